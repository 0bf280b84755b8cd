package listpack

import (
	"strings"
	"testing"
)

// TestSizes holds the encodings' boundaries from listpack.c.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"0", 2}, {"127", 2}, {"128", 3}, {"-1", 3}, {"-4096", 3}, {"4095", 3}, {"4096", 4},
		{"-32768", 4}, {"32768", 5}, {"8388607", 5}, {"8388608", 6}, {"2147483647", 6},
		{"-2147483649", 10}, {"9223372036854775807", 10},
		{"", 2}, {"01", 4}, {"-0", 4}, {"+1", 4}, {strings.Repeat("a", 63), 65},
		{strings.Repeat("a", 64), 67}, {strings.Repeat("a", 125), 128}, {strings.Repeat("a", 126), 130},
		{strings.Repeat("a", 4095), 4099}, {strings.Repeat("a", 4096), 4103},
	} {
		if got := StrSize(c.s); got != c.want {
			t.Errorf("StrSize(%d bytes %.10q) = %d, want %d", len(c.s), c.s, got, c.want)
		}
	}
	for l, want := range map[int]int{127: 1, 128: 2, 16382: 2, 16383: 3, 2097150: 3, 2097151: 4, 268435454: 4, 268435455: 5} {
		if got := BacklenSize(l); got != want {
			t.Errorf("BacklenSize(%d) = %d, want %d", l, got, want)
		}
	}
}
