package rstring

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// refString2ll is the rule String2ll implements, said another way: s is
// accepted exactly when it is the text strconv prints for some int64.
func refString2ll(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// refStrtoull is glibc's strtoull(s, &end, 10) by big.Int arithmetic.
func refStrtoull(s string) (v uint64, end int, overflow bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t\n\v\f\r"))
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	n, _ := new(big.Int).SetString(s[i:j], 10)
	if n.Cmp(new(big.Int).SetUint64(math.MaxUint64)) > 0 {
		return math.MaxUint64, j, true
	}
	v = n.Uint64()
	if neg {
		v = -v
	}
	return v, j, false
}

// refStrtoll is glibc's strtoll(s, &end, 10) by big.Int arithmetic.
func refStrtoll(s string) (v int64, end int, overflow bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t\n\v\f\r"))
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	n, _ := new(big.Int).SetString(s[start:j], 10)
	switch {
	case n.Cmp(big.NewInt(math.MaxInt64)) > 0:
		return math.MaxInt64, j, true
	case n.Cmp(big.NewInt(math.MinInt64)) < 0:
		return math.MinInt64, j, true
	}
	return n.Int64(), j, false
}

func refString2ull(s string) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if v, ok := refString2ll(s); ok {
		return uint64(v), v >= 0
	}
	v, end, overflow := refStrtoull(s)
	return v, s != "" && end == len(s) && !overflow
}

// TestString2ll holds util.c's own string2ll test cases plus the length
// and leading-zero edges.
func TestString2ll(t *testing.T) {
	cases := []struct {
		in string
		v  int64
		ok bool
	}{
		{"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"01", 0, false},
		{"-1", -1, true}, {"0", 0, true}, {"1", 1, true}, {"99", 99, true}, {"-99", -99, true},
		{"-9223372036854775808", math.MinInt64, true}, {"-9223372036854775809", 0, false},
		{"9223372036854775807", math.MaxInt64, true}, {"9223372036854775808", 0, false},
		{"", 0, false}, {"-", 0, false}, {"-0", 0, false}, {"00", 0, false}, {"-01", 0, false},
		{"18446744073709551615", 0, false}, {"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false}, {"100000000000000000000", 0, false},
		{"1a", 0, false}, {"1\x00", 0, false}, {"1.0", 0, false}, {"0x10", 0, false},
		{"123456789", 123456789, true}, {"--1", 0, false},
	}
	for _, c := range cases {
		v, ok := String2ll(c.in)
		if v != c.v || ok != c.ok {
			t.Errorf("String2ll(%q) = %d, %v; want %d, %v", c.in, v, ok, c.v, c.ok)
		}
		if v2, ok2 := String2ll([]byte(c.in)); v2 != v || ok2 != ok {
			t.Errorf("String2ll([]byte(%q)) = %d, %v; string gives %d, %v", c.in, v2, ok2, v, ok)
		}
	}
}

func TestString2ull(t *testing.T) {
	cases := []struct {
		in string
		v  uint64
		ok bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", 0, false}, {"-1", 0, false}, {"-0", 0, true},
		{"-05", math.MaxUint64 - 4, true}, {" 5", 5, true}, {"+5", 5, true}, {"007", 7, true},
		{"5 ", 0, false}, {"", 0, false}, {" ", 0, false}, {"+", 0, false}, {"-", 0, false},
		{"5\x00junk", 5, true}, {"\x005", 0, false}, {"1-2", 0, false},
		{"-18446744073709551615", 1, true}, {"-18446744073709551616", 0, false},
	}
	for _, c := range cases {
		v, ok := String2ull(c.in)
		if v != c.v || ok != c.ok {
			t.Errorf("String2ull(%q) = %d, %v; want %d, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

func TestStrtoll(t *testing.T) {
	cases := []struct {
		in       string
		v        int64
		end      int
		overflow bool
	}{
		{"", 0, 0, false}, {"  ", 0, 0, false}, {"x", 0, 0, false}, {"-", 0, 0, false},
		{" +12x", 12, 4, false}, {"\t-7", -7, 3, false}, {"0009", 9, 4, false},
		{"9223372036854775808", math.MaxInt64, 19, true}, {"-9223372036854775808", math.MinInt64, 20, false},
		{"-9223372036854775809", math.MinInt64, 20, true}, {"99999999999999999999999", math.MaxInt64, 23, true},
	}
	for _, c := range cases {
		v, end, of := Strtoll(c.in)
		if v != c.v || end != c.end || of != c.overflow {
			t.Errorf("Strtoll(%q) = %d, %d, %v; want %d, %d, %v", c.in, v, end, of, c.v, c.end, c.overflow)
		}
		if Atoll(c.in) != c.v {
			t.Errorf("Atoll(%q) = %d, want %d", c.in, Atoll(c.in), c.v)
		}
	}
}

func TestNumbersDoNotAllocate(t *testing.T) {
	b := []byte("-9223372036854775808")
	if n := testing.AllocsPerRun(100, func() {
		String2ll(b)
		String2ull(b)
		Strtoll(b)
	}); n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

func FuzzString2ll(f *testing.F) {
	for _, s := range []string{"0", "-0", "+1", "01", "-9223372036854775808", "9223372036854775808", "18446744073709551616", " 1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := String2ll(s)
		rv, rok := refString2ll(s)
		if v != rv || ok != rok {
			t.Fatalf("String2ll(%q) = %d, %v; reference %d, %v", s, v, ok, rv, rok)
		}
	})
}

func FuzzString2ull(f *testing.F) {
	for _, s := range []string{"0", "-0", "-05", " +7", "18446744073709551615", "18446744073709551616", "5\x00x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := String2ull(s)
		rv, rok := refString2ull(s)
		if ok != rok || (ok && v != rv) {
			t.Fatalf("String2ull(%q) = %d, %v; reference %d, %v", s, v, ok, rv, rok)
		}
	})
}

func FuzzStrtoll(f *testing.F) {
	for _, s := range []string{"", " -12x", "+", "99999999999999999999", "-9223372036854775809", "\v\f7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, end, of := Strtoll(s)
		rv, rend, rof := refStrtoll(s)
		if v != rv || end != rend || of != rof {
			t.Fatalf("Strtoll(%q) = %d, %d, %v; reference %d, %d, %v", s, v, end, of, rv, rend, rof)
		}
		u, uend, uof := Strtoull(s)
		ru, ruend, ruof := refStrtoull(s)
		if u != ru || uend != ruend || uof != ruof {
			t.Fatalf("Strtoull(%q) = %d, %d, %v; reference %d, %d, %v", s, u, uend, uof, ru, ruend, ruof)
		}
	})
}
