package rstring

import (
	"bytes"
	"strings"
	"testing"
)

// redisCases were each checked against redis-server 7.0.15 (Debian
// 7.0.15-1~deb12u7): nocase=false through KEYS on a database holding str,
// nocase=true through FUNCTION LIST LIBRARYNAME on a library named str.
var redisCases = []struct {
	pattern, str string
	nocase, want bool
}{
	// plain, '?' and '*'
	{"", "", false, true},
	{"", "a", false, false},
	{"a", "", false, false},
	{"**", "", false, false}, // a star never matches the empty string alone
	{"*?", "", false, false},
	{"*", "a", false, true},
	{"a*", "a", false, true}, // trailing stars after the last char are dropped
	{"a**", "a", false, true},
	{"a*?", "a", false, false},
	{"a*b", "ab", false, true},
	{"a*b", "axxb", false, true},
	{"a*b", "axxbc", false, false},
	{"*b*", "abc", false, true},
	{"?", "a", false, true},
	{"??", "a", false, false},
	{"foo*", "foobar", false, true},
	{"foo*", "fo", false, false},
	{"h?llo", "hello", false, true},
	{"h*llo", "heeeello", false, true},
	{"*a*b*c*", "xaybzcw", false, true},
	{"*a*b*c*", "xaybzw", false, false},
	// classes
	{"h[ae]llo", "hallo", false, true},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hbllo", false, true},
	{"h[a-b]llo", "hcllo", false, false},
	{"[b-a]", "a", false, true}, // reversed range
	{"[z-a]x", "mx", false, true},
	{"[]", "]", false, false},  // an empty class matches nothing
	{"[]]", "]", false, false}, // ... not even the ']' after it
	{"[]]", "]]", false, false},
	{"[-]", "-", false, true},   // '-' with no end is a literal
	{"[a-]", "-", false, false}, // "a-]" is the range ']'..'a' and the class is unterminated
	{"[a-]", "^", false, true},
	{"[a-]", "b", false, false},
	{"[^]", "a", false, true},
	{"[\\]]", "]", false, true},  // escaped ']' inside a class
	{"[\\-a]", "-", false, true}, // escaped '-' is not a range
	{"[\\-a]", "b", false, false},
	{"[a\\", "\\", false, true}, // '\' at the end of a class is literal
	// unterminated classes run to the end of the pattern
	{"[", "a", false, false},
	{"[^", "a", false, true},
	{"[ab", "b", false, true},
	{"[ab", "bc", false, false},
	{"a[", "a", false, false},
	{"[a-", "-", false, true},
	{"[a-c", "b", false, true},
	// escapes
	{"\\*", "*", false, true},
	{"\\*", "a", false, false},
	{"\\?", "?", false, true},
	{"\\[a]", "[a]", false, true},
	{"\\", "\\", false, true}, // a lone trailing '\' is literal
	{"a\\", "a\\", false, true},
	{"\\\\", "\\", false, true},
	{"\\a", "a", false, true},
	// ranges compare signed chars: 0xff is -1, 0x80 is -128
	{"[a-\xff]", "0", false, true},
	{"[a-\xff]", "b", false, false},
	{"[a-\xff]", "\xc3", false, false},
	{"[a-\xff]", "\xff", false, true},
	{"[\x80-\xff]", "\xc3", false, true},
	{"[\x80-\xff]", "a", false, false},
	{"[^\x80-a]", "b", false, true},
	{"[^\x80-a]", "A", false, false},
	// nocase folds ASCII letters, after a reversed range is swapped
	{"HELLO", "hello", true, true},
	{"HELLO", "hello", false, false},
	{"h[A-Z]llo", "hello", true, true},
	{"H[a-z]LLO", "hELlo", true, true},
	{"[^A]b", "ab", true, false},
	{"[Z-a]", "a", true, false}, // ends fold to z..a: nothing matches
	{"[Z-a]", "_", true, false},
	{"[Z-a]", "_", false, true},
	{"[A-_]", "b", true, false}, // a.._ is empty after folding
	{"[_-A]", "B", true, false}, // swapped to A.._, folded to a.._: empty too
	{"[_-A]", "B", false, true},
	{"\\A", "a", true, true},
	{"[\\A]", "a", true, false}, // an escape inside a class compares exactly
	{"[\\A]", "A", true, true},
	{"a*B", "Ab", true, true},
	{"a?[B]", "A_b", true, true},
}

func TestMatchRedisCases(t *testing.T) {
	for _, tc := range redisCases {
		if got := Match(tc.pattern, tc.str, tc.nocase); got != tc.want {
			t.Errorf("Match(%q, %q, nocase=%v) = %v, Redis says %v", tc.pattern, tc.str, tc.nocase, got, tc.want)
		}
		if got := Match([]byte(tc.pattern), []byte(tc.str), tc.nocase); got != tc.want {
			t.Errorf("Match([]byte %q, %q, nocase=%v) = %v, Redis says %v", tc.pattern, tc.str, tc.nocase, got, tc.want)
		}
	}
}

// stepBound is the most work Match may do on a pattern and a string: a
// '*' tries the rest of the pattern at each position of the string, and
// (thanks to skipLongerMatches) at most one '*' does so all the way, so the
// work is about len(pattern)*len(str).
func stepBound(p, s int) int { return 4*(p+1)*(s+1) + 16 }

func steps[P, S ~string | ~[]byte](p P, s S, nocase bool) (bool, int) {
	var st state
	ok := match(p, s, nocase, &st, 0)
	return ok, st.steps
}

// TestMatchCVE202236021: patterns that took exponential time before Redis
// 7.0.9 answer at once, with no match, as in Redis.
func TestMatchCVE202236021(t *testing.T) {
	for _, tc := range []struct{ pattern, str string }{
		// issue 18: froze aofserver
		{strings.Repeat("a*", 24) + "b", strings.Repeat("a", 60)},
		// keyspace.tcl "Regression for pattern matching long nested loops"
		{strings.Repeat("a*", 20) + "b", strings.Repeat("a", 40)},
		// keyspace.tcl "Regression for pattern matching very long nested loops"
		{strings.Repeat("*?", 50000), strings.Repeat("a", 50000)},
		{strings.Repeat("*a", 100) + "*b", strings.Repeat("a", 10000)},
	} {
		ok, n := steps(tc.pattern, tc.str, false)
		if ok {
			t.Errorf("%.20q... matched %d bytes; Redis says no match", tc.pattern, len(tc.str))
		}
		if max := stepBound(len(tc.pattern), len(tc.str)); n > max {
			t.Errorf("%.20q... took %d steps on %d bytes, over the bound %d", tc.pattern, n, len(tc.str), max)
		}
	}
}

// TestMatchNesting: like Redis (CVE-2024-31228), a '*' nested more than
// 1000 deep fails to match, so a star chain is bounded in depth too.
func TestMatchNesting(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		n       int
		want    bool
	}{
		{"*a", 1000, true},
		{"*a", 1001, false},
		{"a*", 1001, true}, // the last star ends the match before recursing
		{"a*", 1002, false},
	} {
		p, s := strings.Repeat(tc.pattern, tc.n), strings.Repeat("a", tc.n)
		if got := Match(p, s, false); got != tc.want {
			t.Errorf("Match(%q x %d, a x %d) = %v, Redis says %v", tc.pattern, tc.n, tc.n, got, tc.want)
		}
	}
}

// TestMatchNoAlloc: KEYS and PUBLISH call Match once per key or pattern.
func TestMatchNoAlloc(t *testing.T) {
	pb, sb := []byte("user:[0-9]*:na?e"), []byte("user:1234:name")
	ps, ss := string(pb), string(sb)
	if n := testing.AllocsPerRun(100, func() {
		if !Match(pb, sb, false) || !Match(ps, ss, true) || !Match(pb, ss, false) || !Match(ps, sb, false) {
			t.Fatal("no match")
		}
	}); n != 0 {
		t.Errorf("Match allocates %v times per call", n)
	}
}

// refMatch is an independent reference for Match: the pattern is first cut
// into tokens (a class becomes the set of bytes it accepts, computed the
// way Redis reads it), then a memoized recursion matches tokens against the
// string with the usual glob meaning, '*' matching any run of bytes. Redis
// differs from that only in that nothing, not even "*", matches an empty
// string unless the pattern is empty too.
func refMatch(pattern, str []byte, nocase bool) bool {
	if len(str) == 0 {
		return len(pattern) == 0
	}
	toks := refTokens(pattern, nocase)
	memo := make([]int8, (len(toks)+1)*(len(str)+1)) // 0 unknown, 1 no, 2 yes
	var rec func(t, s int) bool
	rec = func(t, s int) bool {
		if t == len(toks) {
			return s == len(str)
		}
		key := t*(len(str)+1) + s
		if memo[key] != 0 {
			return memo[key] == 2
		}
		var v bool
		if toks[t].star {
			v = rec(t+1, s) || (s < len(str) && rec(t, s+1))
		} else {
			v = s < len(str) && toks[t].set[str[s]] && rec(t+1, s+1)
		}
		memo[key] = 1
		if v {
			memo[key] = 2
		}
		return v
	}
	return rec(0, 0)
}

type refToken struct {
	star bool
	set  [256]bool // the bytes this token accepts
}

func fold(c byte, nocase bool) byte {
	if nocase && c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

func refTokens(p []byte, nocase bool) []refToken {
	var toks []refToken
	lit := func(c byte) refToken {
		var tok refToken
		for x := 0; x < 256; x++ {
			tok.set[x] = fold(byte(x), nocase) == fold(c, nocase)
		}
		return tok
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*':
			toks = append(toks, refToken{star: true})
		case '?':
			var tok refToken
			for x := range tok.set {
				tok.set[x] = true
			}
			toks = append(toks, tok)
		case '\\':
			if i+1 < len(p) {
				i++
			}
			toks = append(toks, lit(p[i]))
		case '[':
			i++
			not := i < len(p) && p[i] == '^'
			if not {
				i++
			}
			var tok refToken
			for ; i < len(p) && p[i] != ']'; i++ {
				switch {
				case p[i] == '\\' && i+1 < len(p):
					i++
					tok.set[p[i]] = true // exact, even under nocase
				case i+2 < len(p) && p[i+1] == '-':
					lo, hi := int(int8(p[i])), int(int8(p[i+2]))
					if lo > hi {
						lo, hi = hi, lo
					}
					if nocase {
						lo, hi = int(int8(fold(byte(lo), true))), int(int8(fold(byte(hi), true)))
					}
					for x := 0; x < 256; x++ {
						c := int(int8(fold(byte(x), nocase)))
						if c >= lo && c <= hi {
							tok.set[x] = true
						}
					}
					i += 2
				default:
					for x := 0; x < 256; x++ {
						if fold(byte(x), nocase) == fold(p[i], nocase) {
							tok.set[x] = true
						}
					}
				}
			}
			if not {
				for x := range tok.set {
					tok.set[x] = !tok.set[x]
				}
			}
			toks = append(toks, tok)
		default:
			toks = append(toks, lit(p[i]))
		}
	}
	return toks
}

func TestRefMatchAgreesOnRedisCases(t *testing.T) {
	for _, tc := range redisCases {
		if got := refMatch([]byte(tc.pattern), []byte(tc.str), tc.nocase); got != tc.want {
			t.Errorf("refMatch(%q, %q, %v) = %v, Redis says %v", tc.pattern, tc.str, tc.nocase, got, tc.want)
		}
	}
}

// FuzzMatch: Match agrees with the reference and its work stays within
// stepBound, whatever the pattern.
func FuzzMatch(f *testing.F) {
	for _, tc := range redisCases {
		f.Add([]byte(tc.pattern), []byte(tc.str), tc.nocase)
	}
	f.Add([]byte(strings.Repeat("a*", 24)+"b"), bytes.Repeat([]byte("a"), 60), false)
	f.Add([]byte("*?*?*?*?*?*?x"), bytes.Repeat([]byte("?"), 30), true)
	f.Fuzz(func(t *testing.T, p, s []byte, nocase bool) {
		// Short inputs keep the reference quick (its memo grows as
		// len(p)*len(s)) and the nesting limit out of reach.
		if len(p) > 256 || len(s) > 256 {
			return
		}
		got, n := steps(p, s, nocase)
		if want := refMatch(p, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, nocase=%v) = %v, reference says %v", p, s, nocase, got, want)
		}
		if max := stepBound(len(p), len(s)); n > max {
			t.Fatalf("Match(%q, %q) took %d steps, over the bound %d", p, s, n, max)
		}
	})
}
