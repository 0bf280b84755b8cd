package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"
)

const (
	lpHeaderSize = 6
	lpEnd        = 0xFF
	lpEmptySize  = lpHeaderSize + 1
)

// lpBuilder builds a listpack in place. Reset it with lpBegin.
type lpBuilder struct {
	buf   []byte
	count int
}

func (b *lpBuilder) begin(dst []byte) {
	b.buf = append(dst[:0], 0, 0, 0, 0, 0, 0)
	b.count = 0
}

// size is the listpack size if finished now (header + entries + FF).
func (b *lpBuilder) size() int { return len(b.buf) + 1 }

// appendString adds s, integer-encoded when it is a canonical int64.
func (b *lpBuilder) appendString(s []byte) {
	if v, ok := parseCanonicalInt(s); ok {
		b.appendInt(v)
		return
	}
	start := len(b.buf)
	n := len(s)
	switch {
	case n < 64:
		b.buf = append(b.buf, 0x80|byte(n))
	case n < 4096:
		b.buf = append(b.buf, 0xE0|byte(n>>8), byte(n))
	default:
		b.buf = append(b.buf, 0xF0, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	b.buf = append(b.buf, s...)
	b.buf = appendBacklen(b.buf, len(b.buf)-start)
	b.count++
}

func (b *lpBuilder) appendInt(v int64) {
	start := len(b.buf)
	switch {
	case v >= 0 && v <= 127:
		b.buf = append(b.buf, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v)
		if v < 0 {
			u = uint64((1 << 13) + v)
		}
		b.buf = append(b.buf, byte(u>>8)|0xC0, byte(u))
	case v >= -32768 && v <= 32767:
		b.buf = append(b.buf, 0xF1, byte(v), byte(v>>8))
	case v >= -8388608 && v <= 8388607:
		b.buf = append(b.buf, 0xF2, byte(v), byte(v>>8), byte(v>>16))
	case v >= -2147483648 && v <= 2147483647:
		b.buf = append(b.buf, 0xF3, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	default:
		b.buf = append(b.buf, 0xF4)
		b.buf = binary.LittleEndian.AppendUint64(b.buf, uint64(v))
	}
	b.buf = appendBacklen(b.buf, len(b.buf)-start)
	b.count++
}

// finish writes the terminator and header and returns the listpack.
func (b *lpBuilder) finish() []byte {
	b.buf = append(b.buf, lpEnd)
	binary.LittleEndian.PutUint32(b.buf[0:4], uint32(len(b.buf)))
	c := b.count
	if c > 65535 {
		c = 65535
	}
	binary.LittleEndian.PutUint16(b.buf[4:6], uint16(c))
	return b.buf
}

// appendBacklen encodes l as listpack's reverse-readable entry length.
func appendBacklen(dst []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(dst, byte(l))
	case l < 16383:
		return append(dst, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(dst, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(dst, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	default:
		return append(dst, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

var (
	errLPHeader  = errors.New("listpack header does not match blob size")
	errLPEntry   = errors.New("listpack entry is malformed")
	errLPCount   = errors.New("listpack element count does not match header")
	errLPBacklen = errors.New("listpack backlen is wrong")
)

// lpEach validates the listpack p and calls fn for every element, as a
// string (a sub-slice of p, valid while p is) or as an integer.
func lpEach(p []byte, fn func(s []byte, v int64, isInt bool) error) (int, error) {
	if len(p) < lpEmptySize || int(binary.LittleEndian.Uint32(p)) != len(p) || p[len(p)-1] != lpEnd {
		return 0, errLPHeader
	}
	hdrCount := int(binary.LittleEndian.Uint16(p[4:]))
	pos := lpHeaderSize
	end := len(p) - 1
	n := 0
	for pos < end {
		b := p[pos]
		var hdr, dlen int
		var v int64
		isInt := true
		switch {
		case b&0x80 == 0:
			hdr, v = 1, int64(b)
		case b&0xC0 == 0x80:
			hdr, dlen, isInt = 1, int(b&0x3F), false
		case b&0xE0 == 0xC0:
			if pos+2 > end {
				return n, errLPEntry
			}
			u := int64(b&0x1F)<<8 | int64(p[pos+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			hdr, v = 2, u
		case b&0xF0 == 0xE0:
			if pos+2 > end {
				return n, errLPEntry
			}
			hdr, dlen, isInt = 2, int(b&0x0F)<<8|int(p[pos+1]), false
		case b == 0xF0:
			if pos+5 > end {
				return n, errLPEntry
			}
			l := binary.LittleEndian.Uint32(p[pos+1:])
			if uint64(l) > uint64(end-pos) {
				return n, errLPEntry
			}
			hdr, dlen, isInt = 5, int(l), false
		case b >= 0xF1 && b <= 0xF4:
			w := [...]int{2, 3, 4, 8}[b-0xF1]
			if pos+1+w > end {
				return n, errLPEntry
			}
			d := p[pos+1 : pos+1+w]
			switch w {
			case 2:
				v = int64(int16(binary.LittleEndian.Uint16(d)))
			case 3:
				v = int64(int32((uint32(d[0])|uint32(d[1])<<8|uint32(d[2])<<16)<<8) >> 8)
			case 4:
				v = int64(int32(binary.LittleEndian.Uint32(d)))
			default:
				v = int64(binary.LittleEndian.Uint64(d))
			}
			hdr = 1 + w
		default:
			return n, errLPEntry
		}
		elen := hdr + dlen
		bl := backlenSize(elen)
		if pos+elen+bl > end {
			return n, errLPEntry
		}
		if !backlenMatches(p[pos+elen:pos+elen+bl], elen) {
			return n, errLPBacklen
		}
		var err error
		if isInt {
			err = fn(nil, v, true)
		} else {
			err = fn(p[pos+hdr:pos+elen:pos+elen], 0, false)
		}
		if err != nil {
			return n, err
		}
		n++
		pos += elen + bl
	}
	if hdrCount != 65535 && hdrCount != n {
		return n, errLPCount
	}
	return n, nil
}

func backlenMatches(b []byte, l int) bool {
	var tmp [5]byte
	enc := appendBacklen(tmp[:0], l)
	return string(enc) == string(b)
}

// lpStrings returns every element of p as a byte string; integers are
// formatted in decimal.
func lpStrings(p []byte, hint int) ([][]byte, error) {
	out := make([][]byte, 0, hint)
	_, err := lpEach(p, func(s []byte, v int64, isInt bool) error {
		if isInt {
			s = strconv.AppendInt(nil, v, 10)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
