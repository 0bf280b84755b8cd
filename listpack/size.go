package listpack

import (
	"math"

	"github.com/aofserver/aofserver/rstring"
)

// BacklenSize is the size of lpEncodeBacklen's encoding of an entry whose
// encoding (header and data) takes l bytes.
func BacklenSize(l int) int {
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

// IntEncSize is the size of the integer encoding lpEncodeIntegerGetType
// picks for v (7-bit uint, 13-, 16-, 24-, 32- or 64-bit int), without the
// backlen.
func IntEncSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 5
	}
	return 9
}

// EntrySize is the whole size of an entry whose encoding takes enc bytes.
func EntrySize(enc int) int { return enc + BacklenSize(enc) }

// IntSize is the size of an integer entry holding v.
func IntSize(v int64) int { return EntrySize(IntEncSize(v)) }

// StrSize is the size of the entry lpAppend makes for s: an integer entry
// when s is a string2ll integer, else a 6-, 12- or 32-bit length string.
func StrSize[S ~string | ~[]byte](s S) int {
	if v, ok := rstring.String2ll(s); ok {
		return IntSize(v)
	}
	switch l := len(s); {
	case l < 64:
		return EntrySize(1 + l)
	case l < 4096:
		return EntrySize(2 + l)
	default:
		return EntrySize(5 + l)
	}
}
