package rstring

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Strtod parses a whole string as C's strtod would: it reports the value,
// whether strtod would have set ERANGE (overflow to +/-inf, or underflow
// to zero) and whether the text is a valid number at all. NaN is refused.
func Strtod(b []byte) (f float64, erange bool, ok bool) {
	if len(b) == 0 || bytes.IndexByte(b, '_') >= 0 {
		return 0, false, false
	}
	s := string(b)
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if hex && !strings.ContainsAny(body, "pP") {
		s += "p0" // strtod takes hex floats without a binary exponent
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		ne, isNum := err.(*strconv.NumError)
		if !isNum || ne.Err != strconv.ErrRange {
			return 0, false, false
		}
		erange = true
	}
	if math.IsNaN(f) {
		return 0, false, false
	}
	if f == 0 && !erange {
		// Underflow to zero: strtod reports ERANGE when the digits were
		// not all zero.
		mant := body
		if hex {
			mant = body[2:]
			if i := strings.IndexAny(mant, "pP"); i >= 0 {
				mant = mant[:i]
			}
			erange = strings.ContainsAny(mant, "123456789abcdefABCDEF")
		} else {
			if i := strings.IndexAny(mant, "eE"); i >= 0 {
				mant = mant[:i]
			}
			erange = strings.ContainsAny(mant, "123456789")
		}
	}
	return f, erange, true
}
