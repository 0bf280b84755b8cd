package server

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/skiplist"
)

// zsetModel is the reference (as the skiplist package test's): a slice kept sorted by (score, member).
type zsetModel []zEntry

func (m zsetModel) find(member []byte) int {
	for i := range m {
		if bytes.Equal(m[i].member, member) {
			return i
		}
	}
	return -1
}

func (m *zsetModel) insert(score float64, member []byte) {
	i := sort.Search(len(*m), func(i int) bool { return skiplist.Less(score, member, (*m)[i].score, (*m)[i].member) })
	*m = append(*m, zEntry{})
	copy((*m)[i+1:], (*m)[i:])
	(*m)[i] = zEntry{member: member, score: score}
}

func (m *zsetModel) remove(i int) { *m = append((*m)[:i], (*m)[i+1:]...) }

// zsetPair runs the same operations on a listpack and a skiplist sorted set
// and on a model, checking that all three agree.
type zsetPair struct {
	lp, sk *zsetObj
	m      zsetModel
}

func newZsetPair() *zsetPair {
	return &zsetPair{lp: newZsetListpack(), sk: newZsetSkiplist(0)}
}

func (p *zsetPair) set(member []byte, score float64) {
	if score == 0 {
		score = 0
	}
	for _, z := range []*zsetObj{p.lp, p.sk} {
		if cur, ok := z.score(member); ok {
			z.setScore(member, cur, score)
		} else {
			z.insertRaw(cloneBytes(member), score)
		}
	}
	if i := p.m.find(member); i >= 0 {
		p.m.remove(i)
	}
	p.m.insert(score, cloneBytes(member))
}

func (p *zsetPair) del(member []byte) {
	a, b := p.lp.remove(member), p.sk.remove(member)
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
	for _, z := range []*zsetObj{p.lp, p.sk} {
		if z.length() != len(p.m) {
			t.Fatalf("%s length %d, model %d", z.encoding(), z.length(), len(p.m))
		}
		i := 0
		z.each(func(m []byte, sc float64) bool {
			if !bytes.Equal(m, p.m[i].member) || sc != p.m[i].score {
				t.Fatalf("%s element %d = (%q,%v), model (%q,%v)", z.encoding(), i, m, sc, p.m[i].member, p.m[i].score)
			}
			i++
			return true
		})
		for j, e := range p.m {
			rk, sc, ok := z.rank(e.member)
			if !ok || rk != j || sc != e.score {
				t.Fatalf("%s rank(%q) = %d,%v,%v want %d", z.encoding(), e.member, rk, sc, ok, j)
			}
		}
	}
	// Score and lex range lookups agree between encodings and the model.
	for k := 0; k < 5; k++ {
		a, b := float64(r.IntN(12))-1, float64(r.IntN(12))-1
		sr := zScoreRange{min: a, max: b, minex: r.IntN(2) == 0, maxex: r.IntN(2) == 0}
		wantFirst, wantLast := -1, -1
		for j, e := range p.m {
			if sr.gteMin(e.score) && sr.lteMax(e.score) {
				if wantFirst < 0 {
					wantFirst = j
				}
				wantLast = j
			}
		}
		for _, z := range []*zsetObj{p.lp, p.sk} {
			if got := z.firstInScore(&sr); got != wantFirst {
				t.Fatalf("%s firstInScore(%+v) = %d want %d", z.encoding(), sr, got, wantFirst)
			}
			if got := z.lastInScore(&sr); got != wantLast {
				t.Fatalf("%s lastInScore(%+v) = %d want %d", z.encoding(), sr, got, wantLast)
			}
		}
		lr := zLexRange{
			min: zLexBound{val: []byte{byte('a' + r.IntN(8))}, ex: r.IntN(2) == 0},
			max: zLexBound{val: []byte{byte('a' + r.IntN(8))}, ex: r.IntN(2) == 0},
		}
		if r.IntN(5) == 0 {
			lr.min = zLexBound{kind: -1, ex: true}
		}
		if r.IntN(5) == 0 {
			lr.max = zLexBound{kind: 1, ex: true}
		}
		lf, ll := p.lp.firstInLex(&lr), p.lp.lastInLex(&lr)
		sf, sl := p.sk.firstInLex(&lr), p.sk.lastInLex(&lr)
		if allSameScore(p.m) && (lf != sf || ll != sl) {
			t.Fatalf("lex range %+v: listpack %d..%d, skiplist %d..%d", lr, lf, ll, sf, sl)
		}
	}
}

func allSameScore(m zsetModel) bool {
	for i := range m {
		if m[i].score != m[0].score {
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
		for p.lp.length() > 3 {
			n := p.lp.length()
			a := r.IntN(n)
			b := a + r.IntN(n-a)
			p.lp.deleteRankRange(a, b)
			p.sk.deleteRankRange(a, b)
			p.m = append(p.m[:a], p.m[b+1:]...)
			p.check(t, r)
		}
	}
}

func TestZsetConversionLimits(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) {
		c.ZSetMaxListpackEntries = 3
		c.ZSetMaxListpackValue = 4
	})
	d.expect(t, ":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	d.expect(t, "$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "z")
	d.expect(t, ":1\r\n", "ZADD", "z", "4", "d")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "z")
	d.expect(t, ":3\r\n", "ZREM", "z", "a", "b", "c")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "z") // never back
	d.expect(t, ":1\r\n", "ZADD", "y", "1", "abcde")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "y")
	d.expect(t, ":2\r\n", "ZADD", "x", "1", "abcd", "2", "abcdef")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "x")
}

func TestZsetCommands(t *testing.T) {
	for _, enc := range []int{128, 0} {
		t.Run(fmt.Sprint("max-entries=", enc), func(t *testing.T) {
			d := newDSServer(t, func(c *config.Config) { c.ZSetMaxListpackEntries = enc })
			d.expect(t, ":4\r\n", "ZADD", "z", "1", "a", "1", "b", "2.5", "c", "-inf", "m")
			d.expect(t, respArr("m", "-inf", "a", "1", "b", "1", "c", "2.5"), "ZRANGE", "z", "0", "-1", "WITHSCORES")
			d.expect(t, respArr("c", "b"), "ZRANGE", "z", "0", "1", "REV")
			d.expect(t, respArr("b", "c"), "ZRANGE", "z", "1", "+inf", "BYSCORE", "LIMIT", "1", "5")
			d.expect(t, "*0\r\n", "ZRANGE", "z", "(1", "+inf", "BYSCORE", "LIMIT", "1", "5")
			d.expect(t, respArr("c", "b"), "ZREVRANGEBYSCORE", "z", "3", "1", "LIMIT", "0", "2")
			d.expect(t, "*0\r\n", "ZRANGEBYSCORE", "z", "-inf", "inf", "LIMIT", "-1", "5")
			d.expect(t, "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n", "ZRANGE", "z", "0", "1", "LIMIT", "0", "1")
			d.expect(t, "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n", "ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES")
			d.expect(t, "-ERR min or max is not a float\r\n", "ZCOUNT", "z", "x", "1")
			d.expect(t, "-ERR min or max not valid string range item\r\n", "ZLEXCOUNT", "z", "a", "b")
			d.expect(t, ":2\r\n", "ZCOUNT", "z", "1", "2")
			d.expect(t, ":2\r\n", "ZRANK", "z", "b")
			d.expect(t, ":1\r\n", "ZREVRANK", "z", "b")
			d.expect(t, "$-1\r\n", "ZRANK", "z", "zz")
			d.expect(t, "-ERR XX and NX options at the same time are not compatible\r\n", "ZADD", "z", "NX", "XX", "1", "a")
			d.expect(t, "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD", "z", "GT", "LT", "1", "a")
			d.expect(t, "-ERR INCR option supports a single increment-element pair\r\n", "ZADD", "z", "INCR", "1", "a", "2", "b")
			d.expect(t, "-ERR resulting score is not a number (NaN)\r\n", "ZADD", "z", "INCR", "+inf", "m")
			d.expect(t, "-ERR value is not a valid float\r\n", "ZADD", "z", "1e-400", "a")
			d.expect(t, ":1\r\n", "ZADD", "z", "GT", "CH", "5", "a", "0", "b")
			d.expect(t, "$-1\r\n", "ZADD", "z", "INCR", "LT", "1", "a")
			d.expect(t, "$3\r\n6.5\r\n", "ZINCRBY", "z", "1.5", "a")
			d.expect(t, "*3\r\n$3\r\n6.5\r\n$-1\r\n$1\r\n1\r\n", "ZMSCORE", "z", "a", "zz", "b")
			d.expect(t, respArr("m", "-inf", "b", "1"), "ZPOPMIN", "z", "2")
			d.expect(t, respArr("a", "6.5"), "ZPOPMAX", "z")
			d.expect(t, "-ERR value is out of range, must be positive\r\n", "ZPOPMIN", "z", "x")
			d.expect(t, ":1\r\n", "ZREMRANGEBYSCORE", "z", "-inf", "+inf")
			d.expect(t, ":0\r\n", "EXISTS", "z")
			d.expect(t, ":5\r\n", "ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e")
			d.expect(t, respArr("b", "c"), "ZRANGEBYLEX", "l", "(a", "[e", "LIMIT", "0", "2")
			d.expect(t, respArr("d", "c", "b"), "ZREVRANGEBYLEX", "l", "(e", "[b")
			d.expect(t, ":3\r\n", "ZLEXCOUNT", "l", "[b", "[d")
			d.expect(t, ":2\r\n", "ZREMRANGEBYLEX", "l", "-", "[b")
			d.expect(t, ":1\r\n", "ZREMRANGEBYRANK", "l", "-1", "-1")
			d.expect(t, ":2\r\n", "ZRANGESTORE", "dst", "l", "0", "-1")
			d.expect(t, respArr("c", "d"), "ZRANGE", "dst", "0", "-1")
			if enc > 0 { // a listpack scans in order, in one call
				d.expect(t, "*2\r\n$1\r\n0\r\n"+respArr("c", "0", "d", "0"), "ZSCAN", "dst", "0")
			}
		})
	}
}

func TestZsetRDBRoundTrip(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.ZSetMaxListpackEntries = 4 })
	small := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncSkiplist, ZSet: []rdb.ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 1}}}
	z := zsetFromRDB(small, d.s)
	if z.encoding() != "listpack" {
		t.Fatalf("small skiplist from RDB loads as %s, Redis converts it to listpack", z.encoding())
	}
	big := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncListpack}
	for i := 0; i < 6; i++ {
		big.ZSet = append(big.ZSet, rdb.ZMember{Member: []byte(fmt.Sprint("m", i)), Score: float64(5 - i)})
	}
	z = zsetFromRDB(big, d.s)
	if z.encoding() != "skiplist" || z.length() != 6 {
		t.Fatalf("oversized listpack loads as %s/%d", z.encoding(), z.length())
	}
	v := z.toRDB()
	if v.Encoding != rdb.EncSkiplist || len(v.ZSet) != 6 || string(v.ZSet[0].Member) != "m5" {
		t.Fatalf("toRDB = %+v", v)
	}
	cl := z.clone()
	cl.remove([]byte("m5"))
	if _, ok := z.score([]byte("m5")); !ok {
		t.Fatalf("clone shares the dict")
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
		v, ok := zParseScore([]byte(c.in))
		if ok != c.ok || (ok && v != c.v) {
			t.Errorf("zParseScore(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
	}
	// Range items follow strtod more loosely: empty is 0, leading space ok,
	// overflow ok.
	for _, c := range []struct {
		in     string
		ok, ex bool
		v      float64
	}{{"(1", true, true, 1}, {"", true, false, 0}, {"(", true, true, 0}, {" 2", true, false, 2}, {"1e400", true, false, math.Inf(1)}, {"x", false, false, 0}, {"(nan", false, true, 0}} {
		v, ex, ok := zParseRangeItem([]byte(c.in))
		if ok != c.ok || (ok && (v != c.v || ex != c.ex)) {
			t.Errorf("zParseRangeItem(%q) = %v,%v,%v", c.in, v, ex, ok)
		}
	}
}

func FuzzZParse(f *testing.F) {
	for _, s := range []string{"1", "(1.5", "-inf", "+", "-", "[a", "(b", "0x1p3", "1e400", "", "nan", " 3", "0x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := zParseScore(b)
		if ok {
			if math.IsNaN(v) {
				t.Fatalf("NaN accepted from %q", b)
			}
			if _, erange, ok2 := zStrtod(b); !ok2 || erange {
				t.Fatalf("zParseScore accepted %q but zStrtod says ok=%v erange=%v", b, ok2, erange)
			}
		}
		if _, _, ok := zParseRangeItem(b); ok && len(b) > 0 && b[0] != '(' && !isCSpace(b[0]) {
			if _, _, ok3 := zStrtod(b); !ok3 {
				t.Fatalf("range item %q accepted but not a number", b)
			}
		}
		if lb, ok := zParseLexItem(b); ok {
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
