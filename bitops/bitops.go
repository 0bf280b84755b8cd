package bitops

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The operations of BITOP, in its argument order.
const (
	And = iota
	Or
	Xor
	Not
)

// The overflow behaviours of BITFIELD's OVERFLOW.
const (
	Wrap = iota
	Sat
	Fail
)

// Count counts the set bits of b.
func Count(b []byte) int64 {
	var n int
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	return int64(n)
}

// NormalizeRange converts negative indexes against total and clamps the
// range as BITCOUNT/BITPOS do; the result may be empty (start > end).
func NormalizeRange(start, end, total int64) (int64, int64) {
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= total {
		end = total - 1
	}
	return start, end
}

// CountRange counts the set bits of b between bit positions lo and hi
// inclusive (both within b).
func CountRange(b []byte, lo, hi int64) int64 {
	first, last := lo>>3, hi>>3
	n := Count(b[first : last+1])
	n -= int64(bits.OnesCount8(b[first] & ^byte(0xff>>(lo&7))))
	n -= int64(bits.OnesCount8(b[last] & byte(0xff>>(hi&7+1))))
	return n
}

// Find returns the position of the first bit equal to want between bit
// positions lo and hi inclusive (both within b), or -1.
func Find(b []byte, want bool, lo, hi int64) int64 {
	skip := byte(0)
	if !want {
		skip = 0xff
	}
	for pos := lo; pos <= hi; {
		if pos&7 == 0 && pos+7 <= hi {
			// Whole bytes: skip those without a candidate bit.
			i := pos >> 3
			last := (hi + 1) >> 3 // exclusive, whole bytes only
			for i < last && b[i] == skip {
				i++
			}
			if i == last {
				pos = i << 3
				continue
			}
			x := b[i]
			if !want {
				x = ^x
			}
			return i<<3 + int64(bits.LeadingZeros8(x))
		}
		if (b[pos>>3]&(0x80>>(pos&7)) != 0) == want {
			return pos
		}
		pos++
	}
	return -1
}

// Apply sets dst[i] = dst[i] op src[i] 8 bytes at a time; src is at
// least as long as dst (ignored for NOT).
func Apply(op int, dst, src []byte) {
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x := le.Uint64(dst[i:])
		switch op {
		case Not:
			x = ^x
		case And:
			x &= le.Uint64(src[i:])
		case Or:
			x |= le.Uint64(src[i:])
		case Xor:
			x ^= le.Uint64(src[i:])
		}
		le.PutUint64(dst[i:], x)
	}
	for ; i < len(dst); i++ {
		switch op {
		case Not:
			dst[i] = ^dst[i]
		case And:
			dst[i] &= src[i]
		case Or:
			dst[i] |= src[i]
		case Xor:
			dst[i] ^= src[i]
		}
	}
}

// Get reads width bits at bit offset off as an unsigned number; bits
// past the end of b read as zero.
func Get(b []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		idx := off >> 3
		var bit uint64
		if idx < uint64(len(b)) {
			bit = uint64(b[idx]>>(7-off&7)) & 1
		}
		v = v<<1 | bit
		off++
	}
	return v
}

// GetSigned is Get for a signed (two's complement) number.
func GetSigned(b []byte, off uint64, width int) int64 {
	v := int64(Get(b, off, width))
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= -1 << width
	}
	return v
}

// Set writes the low width bits of v at bit offset off (within b).
func Set(b []byte, off uint64, width int, v uint64) {
	for j := 0; j < width; j++ {
		idx, mask := off>>3, byte(1)<<(7-off&7)
		if v&(1<<(width-1-j)) != 0 {
			b[idx] |= mask
		} else {
			b[idx] &^= mask
		}
		off++
	}
}

// UnsignedOverflow reports whether value+incr overflows a width-bit
// unsigned integer (1 above, -1 below, 0 none) and the value to store
// instead for WRAP and SAT, with the same arithmetic as Redis's
// checkUnsignedBitfieldOverflow (a SET passes its value with incr 0).
func UnsignedOverflow(value uint64, incr int64, width, ow int) (int, uint64) {
	max := uint64(math.MaxUint64)
	if width < 64 {
		max = 1<<width - 1
	}
	maxIncr := int64(max - value)
	minIncr := -int64(value)
	wrap := func() uint64 { return (value + uint64(incr)) & max }
	switch {
	case value > max || (incr > 0 && incr > maxIncr):
		if ow == Wrap {
			return 1, wrap()
		}
		return 1, max
	case incr < 0 && incr < minIncr:
		if ow == Wrap {
			return -1, wrap()
		}
		return -1, 0
	}
	return 0, 0
}

// SignedOverflow is UnsignedOverflow for signed integers (Redis's
// checkSignedBitfieldOverflow, including its treatment of SET values far
// outside the range).
func SignedOverflow(value, incr int64, width, ow int) (int, int64) {
	max := int64(math.MaxInt64)
	if width < 64 {
		max = 1<<(width-1) - 1
	}
	min := -max - 1
	maxIncr := int64(uint64(max) - uint64(value))
	minIncr := min - value
	wrap := func() int64 {
		r := uint64(value) + uint64(incr)
		if width < 64 {
			mask := ^uint64(0) << width
			if r&(1<<(width-1)) != 0 {
				r |= mask
			} else {
				r &^= mask
			}
		}
		return int64(r)
	}
	switch {
	case value > max || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ow == Wrap {
			return 1, wrap()
		}
		return 1, max
	case value < min || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ow == Wrap {
			return -1, wrap()
		}
		return -1, min
	}
	return 0, 0
}
