package rdb

import (
	"encoding/binary"
	"errors"
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

var (
	errZiplist = errors.New("ziplist is malformed")
	errZipmap  = errors.New("zipmap is malformed")
)

const zlHeaderSize = 10

// ziplistStrings validates p and returns its entries as byte strings.
func ziplistStrings(p []byte) ([][]byte, error) {
	if len(p) < zlHeaderSize+1 || int(binary.LittleEndian.Uint32(p)) != len(p) || p[len(p)-1] != 0xFF {
		return nil, errZiplist
	}
	hdrCount := int(binary.LittleEndian.Uint16(p[8:]))
	end := len(p) - 1
	pos := zlHeaderSize
	var out [][]byte
	for pos < end {
		// prevlen
		if p[pos] == 0xFE {
			pos += 5
		} else {
			pos++
		}
		if pos >= end {
			return nil, errZiplist
		}
		b := p[pos]
		pos++
		var s []byte
		var n int
		isInt := false
		var v int64
		switch b >> 6 {
		case 0:
			n = int(b & 0x3F)
		case 1:
			if pos >= end {
				return nil, errZiplist
			}
			n = int(b&0x3F)<<8 | int(p[pos])
			pos++
		case 2:
			if pos+4 > end {
				return nil, errZiplist
			}
			l := binary.BigEndian.Uint32(p[pos:])
			if uint64(l) > uint64(end-pos) {
				return nil, errZiplist
			}
			n = int(l)
			pos += 4
		default:
			isInt = true
			var w int
			switch b {
			case 0xC0:
				w = 2
			case 0xD0:
				w = 4
			case 0xE0:
				w = 8
			case 0xF0:
				w = 3
			case 0xFE:
				w = 1
			default:
				if b >= 0xF1 && b <= 0xFD {
					v = int64(b&0x0F) - 1
				} else {
					return nil, errZiplist
				}
			}
			if pos+w > end {
				return nil, errZiplist
			}
			d := p[pos : pos+w]
			switch w {
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
			pos += w
		}
		if isInt {
			s = strconv.AppendInt(nil, v, 10)
		} else {
			if pos+n > end {
				return nil, errZiplist
			}
			s = p[pos : pos+n : pos+n]
			pos += n
		}
		out = append(out, s)
	}
	if hdrCount != 65535 && hdrCount != len(out) {
		return nil, errZiplist
	}
	return out, nil
}

// zipmapPairs validates a zipmap and returns its key/value pairs.
func zipmapPairs(p []byte) ([][2][]byte, error) {
	if len(p) < 2 || p[len(p)-1] != 0xFF {
		return nil, errZipmap
	}
	end := len(p) - 1
	pos := 1
	readLen := func() (int, bool) {
		if pos >= end {
			return 0, false
		}
		b := p[pos]
		switch {
		case b < 254:
			pos++
			return int(b), true
		case b == 254:
			if pos+5 > end {
				return 0, false
			}
			l := binary.LittleEndian.Uint32(p[pos+1:])
			pos += 5
			if uint64(l) > uint64(end-pos) {
				return 0, false
			}
			return int(l), true
		}
		return 0, false
	}
	var out [][2][]byte
	for pos < end {
		kl, ok := readLen()
		if !ok || pos+kl > end {
			return nil, errZipmap
		}
		k := p[pos : pos+kl : pos+kl]
		pos += kl
		vl, ok := readLen()
		if !ok || pos+1 > end {
			return nil, errZipmap
		}
		free := int(p[pos])
		pos++
		if pos+vl+free > end {
			return nil, errZipmap
		}
		v := p[pos : pos+vl : pos+vl]
		pos += vl + free
		out = append(out, [2][]byte{k, v})
	}
	return out, nil
}
