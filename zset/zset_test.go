package zset

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/skiplist"
)

// zsetModel is the reference (as the skiplist package test's): a slice kept sorted by (score, member).
type zsetModel []Entry

func (m zsetModel) find(member []byte) int {
	for i := range m {
		if bytes.Equal(m[i].Member, member) {
			return i
		}
	}
	return -1
}

func (m *zsetModel) insert(score float64, member []byte) {
	i := sort.Search(len(*m), func(i int) bool { return skiplist.Less(score, member, (*m)[i].Score, (*m)[i].Member) })
	*m = append(*m, Entry{})
	copy((*m)[i+1:], (*m)[i:])
	(*m)[i] = Entry{Member: member, Score: score}
}

func (m *zsetModel) remove(i int) { *m = append((*m)[:i], (*m)[i+1:]...) }

// zsetPair runs the same operations on a listpack and a skiplist sorted set
// and on a model, checking that all three agree.
type zsetPair struct {
	lp, sk *Set
	m      zsetModel
}

func newZsetPair() *zsetPair {
	return &zsetPair{lp: NewListpack(0), sk: NewSkiplist(0)}
}

func (p *zsetPair) set(member []byte, score float64) {
	if score == 0 {
		score = 0
	}
	for _, z := range []*Set{p.lp, p.sk} {
		if cur, ok := z.Score(member); ok {
			z.SetScore(member, cur, score)
		} else {
			z.InsertRaw(clone(member), score)
		}
	}
	if i := p.m.find(member); i >= 0 {
		p.m.remove(i)
	}
	p.m.insert(score, clone(member))
}

func (p *zsetPair) del(member []byte) {
	a, b := p.lp.Remove(member), p.sk.Remove(member)
	i := p.m.find(member)
	if a != (i >= 0) || b != (i >= 0) {
		panic(fmt.Sprintf("remove(%q): lp %v sk %v model %v", member, a, b, i >= 0))
	}
	if i >= 0 {
		p.m.remove(i)
	}
}

func (p *zsetPair) check(t testing.TB, r *rand.Rand) {
	t.Helper()
	for _, z := range []*Set{p.lp, p.sk} {
		if z.Len() != len(p.m) {
			t.Fatalf("%s length %d, model %d", z.Encoding(), z.Len(), len(p.m))
		}
		i := 0
		z.Each(func(m []byte, sc float64) bool {
			if !bytes.Equal(m, p.m[i].Member) || sc != p.m[i].Score {
				t.Fatalf("%s element %d = (%q,%v), model (%q,%v)", z.Encoding(), i, m, sc, p.m[i].Member, p.m[i].Score)
			}
			i++
			return true
		})
		for j, e := range p.m {
			rk, sc, ok := z.Rank(e.Member)
			if !ok || rk != j || sc != e.Score {
				t.Fatalf("%s rank(%q) = %d,%v,%v want %d", z.Encoding(), e.Member, rk, sc, ok, j)
			}
		}
	}
	// Score and lex range lookups agree between encodings and the model.
	for k := 0; k < 5; k++ {
		a, b := float64(r.IntN(12))-1, float64(r.IntN(12))-1
		sr := ScoreRange{Min: a, Max: b, MinEx: r.IntN(2) == 0, MaxEx: r.IntN(2) == 0}
		wantFirst, wantLast := -1, -1
		for j, e := range p.m {
			if sr.GteMin(e.Score) && sr.LteMax(e.Score) {
				if wantFirst < 0 {
					wantFirst = j
				}
				wantLast = j
			}
		}
		for _, z := range []*Set{p.lp, p.sk} {
			if got := z.FirstInScore(&sr); got != wantFirst {
				t.Fatalf("%s firstInScore(%+v) = %d want %d", z.Encoding(), sr, got, wantFirst)
			}
			if got := z.LastInScore(&sr); got != wantLast {
				t.Fatalf("%s lastInScore(%+v) = %d want %d", z.Encoding(), sr, got, wantLast)
			}
		}
		lr := LexRange{
			min: lexBound{val: []byte{byte('a' + r.IntN(8))}, ex: r.IntN(2) == 0},
			max: lexBound{val: []byte{byte('a' + r.IntN(8))}, ex: r.IntN(2) == 0},
		}
		if r.IntN(5) == 0 {
			lr.min = lexBound{kind: -1, ex: true}
		}
		if r.IntN(5) == 0 {
			lr.max = lexBound{kind: 1, ex: true}
		}
		lf, ll := p.lp.FirstInLex(&lr), p.lp.LastInLex(&lr)
		sf, sl := p.sk.FirstInLex(&lr), p.sk.LastInLex(&lr)
		if allSameScore(p.m) && (lf != sf || ll != sl) {
			t.Fatalf("lex range %+v: listpack %d..%d, skiplist %d..%d", lr, lf, ll, sf, sl)
		}
	}
}

func allSameScore(m zsetModel) bool {
	for i := range m {
		if m[i].Score != m[0].Score {
			return false
		}
	}
	return true
}

func TestZsetEncodingsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 2; round++ {
		p := newZsetPair()
		sameScore := round == 1
		for op := 0; op < 4000; op++ {
			member := []byte{byte('a' + r.IntN(8)), byte('a' + r.IntN(8))}
			score := float64(r.IntN(10))
			if sameScore {
				score = 1
			}
			if r.IntN(3) == 0 {
				p.del(member)
			} else {
				p.set(member, score)
			}
			if op%50 == 0 {
				p.check(t, r)
			}
		}
		// deleteRankRange on both.
		for p.lp.Len() > 3 {
			n := p.lp.Len()
			a := r.IntN(n)
			b := a + r.IntN(n-a)
			p.lp.DeleteRankRange(a, b)
			p.sk.DeleteRankRange(a, b)
			p.m = append(p.m[:a], p.m[b+1:]...)
			p.check(t, r)
		}
	}
}

func TestZParseScore(t *testing.T) {
	cases := []struct {
		in string
		ok bool
		v  float64
	}{
		{"1", true, 1}, {"-2.5", true, -2.5}, {"inf", true, math.Inf(1)}, {"-inf", true, math.Inf(-1)},
		{"+inf", true, math.Inf(1)}, {"0x10", true, 16}, {"0x1p3", true, 8}, {"1e-310", true, 1e-310},
		{"nan", false, 0}, {"1e400", false, 0}, {"1e-400", false, 0}, {" 1", false, 0}, {"1 ", false, 0},
		{"", false, 0}, {"1_0", false, 0}, {"abc", false, 0}, {"0e-400", true, 0},
	}
	for _, c := range cases {
		v, ok := ParseScore([]byte(c.in))
		if ok != c.ok || (ok && v != c.v) {
			t.Errorf("ParseScore(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
	}
	// Range items follow strtod more loosely: empty is 0, leading space ok,
	// overflow ok.
	for _, c := range []struct {
		in     string
		ok, ex bool
		v      float64
	}{{"(1", true, true, 1}, {"", true, false, 0}, {"(", true, true, 0}, {" 2", true, false, 2}, {"1e400", true, false, math.Inf(1)}, {"x", false, false, 0}, {"(nan", false, true, 0}} {
		v, ex, ok := parseRangeItem([]byte(c.in))
		if ok != c.ok || (ok && (v != c.v || ex != c.ex)) {
			t.Errorf("parseRangeItem(%q) = %v,%v,%v", c.in, v, ex, ok)
		}
	}
}

func FuzzZParse(f *testing.F) {
	for _, s := range []string{"1", "(1.5", "-inf", "+", "-", "[a", "(b", "0x1p3", "1e400", "", "nan", " 3", "0x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseScore(b)
		if ok {
			if math.IsNaN(v) {
				t.Fatalf("NaN accepted from %q", b)
			}
			if _, erange, ok2 := rstring.Strtod(b); !ok2 || erange {
				t.Fatalf("ParseScore accepted %q but rstring.Strtod says ok=%v erange=%v", b, ok2, erange)
			}
		}
		if _, _, ok := parseRangeItem(b); ok && len(b) > 0 && b[0] != '(' && !rstring.IsSpace(b[0]) {
			if _, _, ok3 := rstring.Strtod(b); !ok3 {
				t.Fatalf("range item %q accepted but not a number", b)
			}
		}
		if lb, ok := parseLexItem(b); ok {
			if lb.kind == 0 && len(lb.val) != len(b)-1 {
				t.Fatalf("lex item %q parsed to %q", b, lb.val)
			}
		}
	})
}

// FuzzZsetOps drives both encodings with an operation stream decoded from
// the input and checks them against the model.
func FuzzZsetOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("zadd zrem zadd zadd"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		p := newZsetPair()
		r := rand.New(rand.NewPCG(uint64(len(ops)), 7))
		for i := 0; i+1 < len(ops); i += 2 {
			member := []byte{'a' + ops[i]%6}
			score := float64(ops[i+1]%5) - 2
			if ops[i+1]%7 == 0 {
				score = math.Inf(1)
			}
			if ops[i]&0x80 != 0 {
				p.del(member)
			} else {
				p.set(member, score)
			}
		}
		p.check(t, r)
	})
}
