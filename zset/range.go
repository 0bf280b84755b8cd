package zset

import (
	"bytes"

	"github.com/aofserver/aofserver/rstring"
)

// ScoreRange is a score range (zslParseRange's zrangespec).
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// GteMin reports whether v is past the range's minimum.
func (r *ScoreRange) GteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

// LteMax reports whether v is before the range's maximum.
func (r *ScoreRange) LteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// parseRangeItem parses like zslParseRange: strtod on the text after an
// optional '(' (leading spaces and an empty string are accepted, as strtod
// does; NaN is not).
func parseRangeItem(b []byte) (v float64, ex bool, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	for len(b) > 0 && rstring.IsSpace(b[0]) {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, ex, true
	}
	v, _, ok = rstring.Strtod(b)
	return v, ex, ok
}

// ParseScore parses a score argument like getDoubleFromObject: no
// leading space, no trailing garbage, no NaN, no ERANGE.
func ParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || rstring.IsSpace(b[0]) {
		return 0, false
	}
	f, erange, ok := rstring.Strtod(b)
	if !ok || erange {
		return 0, false
	}
	return f, true
}

// ParseScoreRange parses ZRANGEBYSCORE's min and max (zslParseRange).
func ParseScoreRange(min, max []byte) (ScoreRange, bool) {
	var r ScoreRange
	var ok1, ok2 bool
	r.Min, r.MinEx, ok1 = parseRangeItem(min)
	r.Max, r.MaxEx, ok2 = parseRangeItem(max)
	return r, ok1 && ok2
}

// Lexicographic ranges (zslParseLexRange). kind: -1 is "-", +1 is "+".
type lexBound struct {
	kind int8
	val  []byte
	ex   bool
}

type LexRange struct{ min, max lexBound }

func parseLexItem(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '+':
		return lexBound{kind: 1, ex: true}, len(b) == 1
	case '-':
		return lexBound{kind: -1, ex: true}, len(b) == 1
	case '(':
		return lexBound{val: b[1:], ex: true}, true
	case '[':
		return lexBound{val: b[1:]}, true
	}
	return lexBound{}, false
}

// ParseLexRange parses ZRANGEBYLEX's min and max (zslParseLexRange).
func ParseLexRange(min, max []byte) (LexRange, bool) {
	a, ok1 := parseLexItem(min)
	b, ok2 := parseLexItem(max)
	return LexRange{a, b}, ok1 && ok2
}

// lexCmpBound compares a member with a bound (sdscmplex).
func lexCmpBound(v []byte, b *lexBound) int {
	switch b.kind {
	case -1:
		return 1
	case 1:
		return -1
	}
	return bytes.Compare(v, b.val)
}

// GteMin reports whether v is past the range's minimum.
func (r *LexRange) GteMin(v []byte) bool {
	c := lexCmpBound(v, &r.min)
	if r.min.ex {
		return c > 0
	}
	return c >= 0
}

// LteMax reports whether v is before the range's maximum.
func (r *LexRange) LteMax(v []byte) bool {
	c := lexCmpBound(v, &r.max)
	if r.max.ex {
		return c < 0
	}
	return c <= 0
}

// Empty reports a range that can hold nothing (min > max, or min == max
// with an exclusive end).
func (r *LexRange) Empty() bool {
	var c int
	switch {
	case r.min.kind == r.max.kind && r.min.kind != 0:
		c = 0
	case r.min.kind == -1 || r.max.kind == 1:
		c = -1
	case r.min.kind == 1 || r.max.kind == -1:
		c = 1
	default:
		c = bytes.Compare(r.min.val, r.max.val)
	}
	return c > 0 || (c == 0 && (r.min.ex || r.max.ex))
}
