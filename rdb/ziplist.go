package rdb

import (
	"encoding/binary"
	"strconv"
)

// Ziplists (types 10, 12, 13, 14) and zipmaps (type 9) are only read, for
// files written by Redis before 7.0.
//
//	ziplist: <zlbytes u32 LE> <zltail u32 LE> <zllen u16 LE> <entry>... FF
//	entry:   <prevlen: 1 byte < 254, or FE + u32 LE> <encoding> <data>
//	         00pppppp | 01pppppp q | 80 + u32 BE    string of that length
//	         C0 int16 | D0 int32 | E0 int64 | F0 int24 | FE int8 (LE)
//	         F1..FD   immediate 0..12
//	zipmap:  <zmlen u8> (<len> key <len> <free u8> value <free bytes>)... FF
//	         <len> is 1 byte < 254, or FE + u32 LE

const zlHeaderSize = 10

// ziplistStrings validates p as Redis's ziplistValidateIntegrity does with
// deep set (Redis always validates ziplists deeply, since it converts them
// while loading): the header's size, tail offset and count, every entry's
// encoding and bounds, and every prevlen against the entry before it. It
// returns the entries as byte strings.
func ziplistStrings(p []byte) ([][]byte, error) {
	size := len(p)
	if size < zlHeaderSize+1 || uint64(binary.LittleEndian.Uint32(p)) != uint64(size) || p[size-1] != 0xFF {
		return nil, errZiplistHeader
	}
	tail := int64(binary.LittleEndian.Uint32(p[4:]))
	if tail > int64(size-1) {
		return nil, errZiplistHeader
	}
	hdrCount := int(binary.LittleEndian.Uint16(p[8:]))
	last := size - 1 // the end byte: no entry may reach past it
	pos, prevRaw, prevPos := zlHeaderSize, 0, -1
	var out [][]byte
	for p[pos] != 0xFF {
		plSize := 1
		if p[pos] >= 254 {
			plSize = 5
		}
		if pos+plSize > last {
			return nil, errZiplistEntry
		}
		prevLen := int64(p[pos])
		if plSize == 5 {
			prevLen = int64(binary.LittleEndian.Uint32(p[pos+1:]))
		}
		ep := pos + plSize // encoding byte
		enc := p[ep]
		var lenSize, n int // header bytes of the encoding, data bytes
		isInt := false
		var v int64
		switch {
		case enc < 0xC0:
			switch enc & 0xC0 {
			case 0x00:
				lenSize, n = 1, int(enc&0x3F)
			case 0x40:
				lenSize = 2
			default:
				lenSize = 5
			}
			if ep+lenSize > last {
				return nil, errZiplistEntry
			}
			switch lenSize {
			case 2:
				n = int(enc&0x3F)<<8 | int(p[ep+1])
			case 5:
				n = int(binary.BigEndian.Uint32(p[ep+1:]))
			}
		default:
			isInt, lenSize = true, 1
			switch enc {
			case 0xC0:
				n = 2
			case 0xD0:
				n = 4
			case 0xE0:
				n = 8
			case 0xF0:
				n = 3
			case 0xFE:
				n = 1
			default:
				if enc < 0xF1 || enc > 0xFD {
					return nil, errZiplistEntry
				}
				v = int64(enc&0x0F) - 1
			}
		}
		data := ep + lenSize
		if int64(data)+int64(n) > int64(last) {
			return nil, errZiplistEntry
		}
		if prevLen != int64(prevRaw) {
			return nil, errZiplistPrevlen
		}
		d := p[data : data+n : data+n]
		if isInt {
			switch n {
			case 1:
				v = int64(int8(d[0]))
			case 2:
				v = int64(int16(binary.LittleEndian.Uint16(d)))
			case 3:
				v = int64(int32(uint32(d[0])<<8|uint32(d[1])<<16|uint32(d[2])<<24) >> 8)
			case 4:
				v = int64(int32(binary.LittleEndian.Uint32(d)))
			case 8:
				v = int64(binary.LittleEndian.Uint64(d))
			}
			d = strconv.AppendInt(nil, v, 10)
		}
		out = append(out, d)
		prevRaw = data + n - pos
		prevPos = pos
		pos = data + n
	}
	if pos != last {
		return nil, errZiplistEntry
	}
	if prevPos >= 0 && int64(prevPos) != tail {
		return nil, errZiplistTail
	}
	if hdrCount != 65535 && hdrCount != len(out) {
		return nil, errZiplistCount
	}
	return out, nil
}

// zipmapPairs validates a zipmap as zipmapValidateIntegrity does with deep
// set (Redis always does: it converts zipmaps on load) and returns its
// field/value pairs. An empty zipmap is refused, as Redis does.
func zipmapPairs(p []byte) ([][2][]byte, error) {
	size := len(p)
	if size < 2 || p[size-1] != 0xFF {
		return nil, errZipmapBad
	}
	last := size - 1
	pos := 1
	// readLen reads a length: one byte below 254, else a u32 LE after it.
	readLen := func() (int64, bool) {
		s := 1
		if p[pos] >= 254 {
			s = 5
		}
		if pos+s > last {
			return 0, false
		}
		l := int64(p[pos])
		if s == 5 {
			l = int64(binary.LittleEndian.Uint32(p[pos+1:]))
		}
		pos += s
		return l, true
	}
	var out [][2][]byte
	for p[pos] != 0xFF {
		kl, ok := readLen()
		if !ok || int64(pos)+kl > int64(last) {
			return nil, errZipmapBad
		}
		k := p[pos : pos+int(kl) : pos+int(kl)]
		pos += int(kl)
		vl, ok := readLen()
		if !ok {
			return nil, errZipmapBad
		}
		free := int64(p[pos])
		pos++
		if int64(pos)+vl+free > int64(last) {
			return nil, errZipmapBad
		}
		v := p[pos : pos+int(vl) : pos+int(vl)]
		pos += int(vl + free)
		out = append(out, [2][]byte{k, v})
	}
	if len(out) == 0 || (p[0] != 254 && int(p[0]) != len(out)) {
		return nil, errZipmapBad
	}
	return out, nil
}
