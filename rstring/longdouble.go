package rstring

import (
	"math/big"
	"strings"
)

// INCRBYFLOAT and HINCRBYFLOAT compute in C's long double (x87 80-bit:
// 64-bit mantissa) and print with "%.17Lf" minus trailing zeros. float64
// gives visibly different results (1000 + 0.01 is 1000.01000000000000001 in
// Redis), so we compute with a 64-bit-mantissa big.Float, rounding to
// nearest even like the FPU.

const ldPrec = 64

// String2ld parses like Redis's string2ld (strtold): no leading or
// trailing space, not empty, NaN refused; infinities are accepted.
func String2ld(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) > 5*1024 || IsSpace(b[0]) || IsSpace(b[len(b)-1]) {
		return nil, false
	}
	s := string(b)
	switch strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")) {
	case "inf", "infinity":
		return new(big.Float).SetInf(s[0] == '-'), true
	case "nan":
		return nil, false
	}
	base := 10
	if u := strings.ToLower(strings.TrimLeft(s, "+-")); strings.HasPrefix(u, "0x") && !strings.Contains(s, "_") {
		base = 0 // strtold reads C99 hex floats
	}
	f, _, err := big.ParseFloat(s, base, ldPrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if ldOverflows(f) {
		return new(big.Float).SetInf(f.Sign() < 0), true
	}
	return f, true
}

// ldOverflows reports a magnitude beyond long double's range.
func ldOverflows(f *big.Float) bool {
	return !f.IsInf() && f.MantExp(nil) > 16384
}

// LdAdd returns a+b, or false if the result is not finite.
func LdAdd(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	z := new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven)
	z.Add(a, b)
	if ldOverflows(z) {
		return nil, false
	}
	return z, true
}

// Ld2string prints like Redis's ld2string(LD_STR_HUMAN).
func Ld2string(f *big.Float) []byte {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return []byte(s)
}
