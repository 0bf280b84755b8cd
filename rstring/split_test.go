package rstring

import (
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string // nil: refused
	}{
		{"", []string{}},
		{" \t\v\f ", []string{}},
		{"set foo bar", []string{"set", "foo", "bar"}},
		{`  "a b"  'c d' `, []string{"a b", "c d"}},
		{`"\x41\x4a\n\r\t\b\a\q\\\""`, []string{"AJ\n\r\t\b\aq\\\""}},
		{`"\x4g"`, []string{"x4g"}},
		{`'it\'s' '\n'`, []string{"it's", `\n`}},
		{`""`, []string{""}},
		{`a"b c" d`, []string{"ab c", "d"}},
		{"a\vb", []string{"a\vb"}},
		{"a\x00b c", []string{"a"}},
		{"\"a\x00b\"", nil},
		{`"foo"bar`, nil},
		{`'foo'bar`, nil},
		{`"unterminated`, nil},
		{`'unterminated`, nil},
		{`"ends with backslash\`, nil},
	}
	for _, c := range cases {
		got, ok := SplitArgs(c.in)
		if c.want == nil {
			if ok {
				t.Errorf("SplitArgs(%q) = %q, want refusal", c.in, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
		gb, okb := SplitArgs([]byte(c.in))
		if !okb || len(gb) != len(got) {
			t.Fatalf("SplitArgs([]byte(%q)) = %q, %v", c.in, gb, okb)
		}
		for i := range gb {
			if gb[i] == nil || string(gb[i]) != got[i] {
				t.Errorf("SplitArgs([]byte(%q))[%d] = %#v, want %q (non-nil)", c.in, i, gb[i], got[i])
			}
		}
	}
}

func TestRepr(t *testing.T) {
	for in, want := range map[string]string{
		"":                  `""`,
		"abc":               `"abc"`,
		"a\"b\\c":           `"a\"b\\c"`,
		"\n\r\t\a\b":        `"\n\r\t\a\b"`,
		"\x00\x1f\x7f\xff ": `"\x00\x1f\x7f\xff "`,
	} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzSplitArgs checks that SplitArgs never panics, that both of its input
// types agree, and that it reads Repr's output back (CONFIG REWRITE's
// values, redis-server's --option arguments rely on that).
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{"", `"a\x41" 'b\'c'`, "a\x00b", `"x"y`, "\xff\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gs, oks := SplitArgs(s)
		gb, okb := SplitArgs([]byte(s))
		if oks != okb || len(gs) != len(gb) {
			t.Fatalf("SplitArgs(%q): string gives %q, %v; []byte gives %q, %v", s, gs, oks, gb, okb)
		}
		for i := range gs {
			if gs[i] != string(gb[i]) {
				t.Fatalf("SplitArgs(%q)[%d]: %q vs %q", s, i, gs[i], gb[i])
			}
		}
		back, ok := SplitArgs("x " + Repr(s) + " y")
		if !ok || len(back) != 3 || back[1] != s {
			t.Fatalf("SplitArgs(Repr(%q)) = %q, %v", s, back, ok)
		}
	})
}
