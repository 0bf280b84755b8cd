package lualib

import "testing"

// TestAppendFloatG: C's %.17g / %.14g forms, appended after text that may
// hold an 'e' of its own (cjson's encoder appends to the JSON so far).
func TestAppendFloatG(t *testing.T) {
	for _, c := range []struct {
		prefix string
		f      float64
		prec   int
		want   string
	}{
		{"", 1e5, 17, "100000"},
		{"", 1e21, 17, "1e+21"},
		{"", 1e-5, 14, "1e-05"},
		{"", 0.1, 17, "0.10000000000000001"},
		{"[true,", 1e-7, 14, "[true,1e-07"},
		{"[true,", 3, 14, "[true,3"},
	} {
		if got := string(AppendFloatG([]byte(c.prefix), c.f, c.prec)); got != c.want {
			t.Errorf("AppendFloatG(%q, %g, %d) = %q, want %q", c.prefix, c.f, c.prec, got, c.want)
		}
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(10, func() { buf = AppendFloatG(buf[:0], 1e-5, 17) }); n != 0 {
		t.Errorf("AppendFloatG allocates %.0f times into a buffer with room", n)
	}
}
