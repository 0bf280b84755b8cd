package listpack

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/aofserver/aofserver/rstring"
)

// The ways Each finds a listpack corrupt (lpValidateIntegrity's checks).
var (
	ErrHeader  = errors.New("listpack header does not match blob size")
	ErrEntry   = errors.New("listpack entry is malformed")
	ErrCount   = errors.New("listpack element count does not match header")
	ErrBacklen = errors.New("listpack backlen is wrong")
)

const (
	headerSize = 6
	terminator = 0xFF
	EmptySize  = headerSize + 1 // an empty listpack: header and terminator
)

// Builder builds a listpack in place, as lpAppend does; Begin resets it.
type Builder struct {
	buf   []byte
	count int
}

func (b *Builder) Begin(dst []byte) {
	b.buf = append(dst[:0], 0, 0, 0, 0, 0, 0)
	b.count = 0
}

// Size is the listpack size if finished now (header + entries + FF).
func (b *Builder) Size() int { return len(b.buf) + 1 }

// AppendString adds s, integer-encoded when it is a canonical int64.
func (b *Builder) AppendString(s []byte) {
	if v, ok := rstring.String2ll(s); ok {
		b.AppendInt(v)
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
	b.buf = AppendBacklen(b.buf, len(b.buf)-start)
	b.count++
}

func (b *Builder) AppendInt(v int64) {
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
	b.buf = AppendBacklen(b.buf, len(b.buf)-start)
	b.count++
}

// Finish writes the terminator and header and returns the listpack.
func (b *Builder) Finish() []byte {
	b.buf = append(b.buf, terminator)
	binary.LittleEndian.PutUint32(b.buf[0:4], uint32(len(b.buf)))
	c := b.count
	if c > 65535 {
		c = 65535
	}
	binary.LittleEndian.PutUint16(b.buf[4:6], uint16(c))
	return b.buf
}

// AppendBacklen encodes l as listpack's reverse-readable entry length.
func AppendBacklen(dst []byte, l int) []byte {
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

// Each validates the listpack p as Redis's lpValidateIntegrity does
// with deep set (header size and terminator, then every entry through
// lpValidateNext: a known encoding, bounds, a backlen that decodes to the
// entry's size, and the header's count) and calls fn for every element, as
// a string (a sub-slice of p, valid while p is) or as an integer.
func Each(p []byte, fn func(s []byte, v int64, isInt bool) error) (int, error) {
	if len(p) < EmptySize || uint64(binary.LittleEndian.Uint32(p)) != uint64(len(p)) || p[len(p)-1] != terminator {
		return 0, ErrHeader
	}
	hdrCount := int(binary.LittleEndian.Uint16(p[4:]))
	pos := headerSize
	end := len(p) - 1
	n := 0
	for p[pos] != terminator {
		b := p[pos]
		var hdr int    // encoding bytes
		var dlen int64 // string bytes after them
		var v int64
		isInt := true
		switch {
		case b&0x80 == 0:
			hdr, v = 1, int64(b)
		case b&0xC0 == 0x80:
			hdr, dlen, isInt = 1, int64(b&0x3F), false
		case b&0xE0 == 0xC0:
			hdr = 2
		case b&0xF0 == 0xE0:
			hdr, isInt = 2, false
		case b == 0xF0:
			hdr, isInt = 5, false
		case b >= 0xF1 && b <= 0xF4:
			hdr = 1 + [...]int{2, 3, 4, 8}[b-0xF1]
		default:
			return n, ErrEntry
		}
		// lpCurrentEncodedSizeBytes: the length part of the encoding must be
		// inside the listpack before it is read.
		lenBytes := 1
		if !isInt && hdr > 1 {
			lenBytes = hdr
		}
		if pos+lenBytes > end {
			return n, ErrEntry
		}
		switch {
		case !isInt && hdr == 2:
			dlen = int64(b&0x0F)<<8 | int64(p[pos+1])
		case !isInt && hdr == 5:
			dlen = int64(binary.LittleEndian.Uint32(p[pos+1:]))
		}
		elen := int64(hdr) + dlen
		bl := int64(BacklenSize(int(min(elen, 1<<40))))
		if int64(pos)+elen+bl > int64(end) {
			return n, ErrEntry
		}
		next := pos + int(elen+bl)
		if DecodeBacklen(p, next-1) != uint64(elen) {
			return n, ErrBacklen
		}
		if isInt {
			d := p[pos+1 : pos+hdr]
			switch {
			case hdr == 1:
			case hdr == 2:
				u := int64(b&0x1F)<<8 | int64(d[0])
				if u >= 1<<12 {
					u -= 1 << 13
				}
				v = u
			case hdr == 3:
				v = int64(int16(binary.LittleEndian.Uint16(d)))
			case hdr == 4:
				v = int64(int32((uint32(d[0])|uint32(d[1])<<8|uint32(d[2])<<16)<<8) >> 8)
			case hdr == 5:
				v = int64(int32(binary.LittleEndian.Uint32(d)))
			default:
				v = int64(binary.LittleEndian.Uint64(d))
			}
		}
		var err error
		if isInt {
			err = fn(nil, v, true)
		} else {
			s := p[pos+hdr : pos+int(elen) : pos+int(elen)]
			err = fn(s, 0, false)
		}
		if err != nil {
			return n, err
		}
		n++
		pos = next
	}
	if pos != end {
		return n, ErrEntry
	}
	if hdrCount != 65535 && hdrCount != n {
		return n, ErrCount
	}
	return n, nil
}

// DecodeBacklen is Redis's DecodeBacklen: the entry size stored in the
// backlen that ends at p[i], read backwards; all ones when it runs over
// five bytes.
func DecodeBacklen(p []byte, i int) uint64 {
	var val, shift uint64
	for {
		val |= uint64(p[i]&127) << shift
		if p[i]&128 == 0 {
			return val
		}
		shift += 7
		i--
		if shift > 28 || i < 0 {
			return math.MaxUint64
		}
	}
}
