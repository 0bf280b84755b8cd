package rstring

import "testing"

// TestLongDouble holds INCRBYFLOAT's cases from Redis's tests (incr.tcl)
// and string2ld's refusals.
func TestLongDouble(t *testing.T) {
	add := func(a, b string) string {
		x, ok1 := String2ld([]byte(a))
		y, ok2 := String2ld([]byte(b))
		if !ok1 || !ok2 {
			return "parse error"
		}
		z, ok := LdAdd(x, y)
		if !ok {
			return "nan or infinity"
		}
		return string(Ld2string(z))
	}
	for _, c := range [][3]string{
		{"0", "1", "1"}, {"1", "0.25", "1.25"}, {"10.5", "3.0e3", "3010.5"},
		{"1000", "0.01", "1000.01000000000000001"}, {"5.0e3", "2.0e2", "5200"},
		{"-1", "1", "0"}, {"0", "-0", "0"}, {"inf", "1", "nan or infinity"},
	} {
		if got := add(c[0], c[1]); got != c[2] {
			t.Errorf("%s + %s = %s, want %s", c[0], c[1], got, c[2])
		}
	}
	for _, s := range []string{"", " 1", "1 ", "nan", "-nan", "1x", "abc"} {
		if _, ok := String2ld([]byte(s)); ok {
			t.Errorf("String2ld(%q) accepted", s)
		}
	}
}
