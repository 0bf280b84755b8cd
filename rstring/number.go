package rstring

import "math"

// longStrSize is Redis's LONG_STR_SIZE: string2ll refuses a text this long
// or longer (no int64 needs more than 20 bytes).
const longStrSize = 21

// String2ll is Redis 7.0.15's string2ll (util.c): s must be exactly the
// decimal text of an int64 as ll2string would print it. An optional '-',
// then "0" alone or a digit 1-9 followed by digits; no '+', no spaces, no
// leading zeros, "-0" refused, values beyond int64 refused. Which strings
// are integer-encoded (OBJECT ENCODING "int", listpack and intset members,
// the RDB writer's integer strings) and every command argument read as an
// integer depend on this rule, so that such strings load back
// byte-identical. It never allocates.
func String2ll[S ~string | ~[]byte](s S) (int64, bool) {
	n := len(s)
	if n == 0 || n >= longStrSize {
		return 0, false
	}
	if n == 1 && s[0] == '0' {
		return 0, true
	}
	i := 0
	neg := false
	if s[0] == '-' {
		neg = true
		i = 1
		if n == 1 {
			return 0, false
		}
	}
	if s[i] < '1' || s[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > math.MaxUint64/10 || v*10 > math.MaxUint64-d {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// String2ull is Redis's string2ull (util.c), which stream IDs are parsed
// with: a String2ll text that is not negative, or else any text that C's
// strtoull(s, &end, 10) reads in full (leading spaces, a '+', leading
// zeros, even a '-' that wraps around: "-05" is 2^64-5). Like C it reads s
// only up to its first NUL byte, since it takes a C string.
func String2ull[S ~string | ~[]byte](s S) (uint64, bool) {
	s = CString(s)
	if v, ok := String2ll(s); ok {
		if v < 0 {
			return 0, false // negative values are out of range
		}
		return uint64(v), true
	}
	v, end, overflow := Strtoull(s)
	if overflow || len(s) == 0 || end != len(s) {
		return 0, false
	}
	return v, true
}

// CString is s up to its first NUL byte: what C sees of it (Redis's
// %s formatting of an sds, strcasecmp of an argument).
func CString[S ~string | ~[]byte](s S) S {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

// IsSpace is C's isspace in the C locale (Redis never sets LC_CTYPE).
func IsSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// strtoMag reads what C's strto[u]ll(s, &end, 10) reads: leading white
// space, an optional sign, then decimal digits. It returns the magnitude
// (saturated at MaxUint64, with overflow set when it would not fit), the
// sign, and end, the index just past the digits, or 0 when there are none
// (C then points end back at the start of s).
func strtoMag[S ~string | ~[]byte](s S) (mag uint64, neg bool, end int, overflow bool) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if overflow || mag > (math.MaxUint64-d)/10 {
			overflow, mag = true, math.MaxUint64
			continue
		}
		mag = mag*10 + d
	}
	if i == start {
		return 0, false, 0, false
	}
	return mag, neg, i, overflow
}

// Strtoll is C's strtoll(s, &end, 10) (glibc): leading white space, an
// optional sign, decimal digits, stopping at the first other byte. end is
// the index just past the digits, or 0 when there are none; out of range
// saturates to MinInt64/MaxInt64 with overflow set (C's ERANGE).
func Strtoll[S ~string | ~[]byte](s S) (v int64, end int, overflow bool) {
	mag, neg, end, overflow := strtoMag(s)
	if neg {
		if overflow || mag > 1<<63 {
			return math.MinInt64, end, true
		}
		return -int64(mag), end, false
	}
	if overflow || mag > math.MaxInt64 {
		return math.MaxInt64, end, true
	}
	return int64(mag), end, false
}

// Strtoull is C's strtoull(s, &end, 10) (glibc): as Strtoll, but a '-'
// negates the magnitude modulo 2^64, and out of range saturates to
// MaxUint64 with overflow set.
func Strtoull[S ~string | ~[]byte](s S) (v uint64, end int, overflow bool) {
	mag, neg, end, overflow := strtoMag(s)
	if overflow {
		return math.MaxUint64, end, true
	}
	if neg {
		mag = -mag
	}
	return mag, end, false
}

// Atoll is C's atoll (glibc: strtoll with no end pointer), which Redis uses
// where it trusts its input: the manifest's seq, the AOF's multibulk
// lengths. Garbage reads as 0 and out of range saturates.
func Atoll[S ~string | ~[]byte](s S) int64 {
	v, _, _ := Strtoll(s)
	return v
}
