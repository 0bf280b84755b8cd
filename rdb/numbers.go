package rdb

import (
	"math"
	"strconv"
)

// appendD2String appends the text Redis's d2string gives a score: "nan",
// "inf", "-inf", "0", "-0", an integer when the value is integral and within
// +-2^52, otherwise %.17g.
func appendD2String(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	if f > -4503599627370495 && f < 4503599627370496 && f == float64(int64(f)) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return appendG17(dst, f)
}

// appendG17 formats like C's printf("%.17g").
func appendG17(dst []byte, f float64) []byte {
	// strconv's 'g' with precision 17 follows the same rule as C for choosing
	// between %e and %f (exponent < -4 or >= precision), but keeps trailing
	// zeros only with '#' in C; strconv never keeps them for 'g'. Exponents
	// have at least two digits in both.
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// parseScore parses a score stored as text (listpack/ziplist zsets, old
// ZSET type 3). Like strtod it accepts inf/-inf/nan spellings.
func parseScore(s []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		// strtod saturates to +-HUGE_VAL on overflow; ParseFloat reports
		// ErrRange with the same +-Inf, which Redis would also accept.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}
