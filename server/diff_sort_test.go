package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// SORT / SORT_RO against real Redis: every option, the BY/GET pattern
// forms (hash fields, missing keys, wrong types), LIMIT edge cases, STORE
// and the conversion errors.

func TestDiffSortBasic(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "3", "1", "2", "10", "-5", "2.5", "1e2", "0x10"),
		cmd("SORT", "l"), cmd("SORT", "l", "DESC"), cmd("SORT", "l", "ASC"), cmd("SORT", "l", "desc", "asc"),
		cmd("SORT", "l", "ALPHA"), cmd("SORT", "l", "ALPHA", "DESC"),
		cmd("SORT", "l", "LIMIT", "0", "3"), cmd("SORT", "l", "LIMIT", "2", "3"), cmd("SORT", "l", "LIMIT", "5", "100"),
		cmd("SORT", "l", "LIMIT", "-5", "2"), cmd("SORT", "l", "LIMIT", "0", "-1"), cmd("SORT", "l", "LIMIT", "0", "0"),
		cmd("SORT", "l", "LIMIT", "8", "1"), cmd("SORT", "l", "LIMIT", "100", "1"), cmd("SORT", "l", "LIMIT", "1", "-7"),
		cmd("SORT", "l", "LIMIT", "7", "5", "DESC"), cmd("SORT", "l", "DESC", "LIMIT", "1", "2", "ALPHA"),
		cmd("SORT", "l", "LIMIT", "x", "1"), cmd("SORT", "l", "LIMIT", "1", "y"), cmd("SORT", "l", "LIMIT", "1"),
		cmd("SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"),
		cmd("SORT", "l", "LIMIT", "-9223372036854775808", "-9223372036854775808"),
		cmd("SORT", "l", "FOO"), cmd("SORT", "l", "BY"), cmd("SORT", "l", "GET"), cmd("SORT", "l", "STORE"),
		cmd("SORT", "missing"), cmd("SORT", "missing", "ALPHA", "LIMIT", "0", "1"), cmd("SORT", "missing", "BY", "nosort"),
		cmd("SET", "str", "x"), cmd("SORT", "str"), cmd("SORT", "str", "BY", "nosort"), cmd("SORT", "str", "FOO"),
		cmd("HSET", "h", "a", "b"), cmd("SORT", "h"),
		cmd("RPUSH", "bad", "1", "x", "2"), cmd("SORT", "bad"), cmd("SORT", "bad", "ALPHA"), cmd("SORT", "bad", "BY", "nosort"),
		cmd("SORT", "bad", "STORE", "dst"), cmd("EXISTS", "dst"),
		cmd("RPUSH", "f", "nan"), cmd("SORT", "f"),
		cmd("DEL", "f"), cmd("RPUSH", "f", "", "1", " 2", "inf", "-inf", "-0", "0"), cmd("SORT", "f"), cmd("SORT", "f", "DESC"),
		cmd("DEL", "f"), cmd("RPUSH", "f", " "), cmd("SORT", "f"), cmd("DEL", "f"), cmd("RPUSH", "f", "2 "), cmd("SORT", "f"),
		cmd("DEL", "f"), cmd("RPUSH", "f", "b", "a", "B", "A", "ab", "", "a\x00c", "a\x00b"), cmd("SORT", "f", "ALPHA"),
		cmd("SORT", "f", "ALPHA", "DESC"), cmd("SORT", "f", "ALPHA", "STORE", "fs"), cmd("LRANGE", "fs", "0", "-1"),
		cmd("SORT"), cmd("SORT_RO"),
		// Last: Redis checks a stale errno after strtod, so an ERANGE here
		// would leak into later SORTs on the same connection.
		cmd("DEL", "f"), cmd("RPUSH", "f", "1e400"), cmd("SORT", "f"),
		cmd("DEL", "f"), cmd("RPUSH", "f", "1e-400"), cmd("SORT", "f"),
	})
}

func TestDiffSortTypes(t *testing.T) {
	diff(t, [][]string{
		// intset, hashtable set, listpack and skiplist zsets
		cmd("SADD", "is", "5", "-3", "10", "7", "0"), cmd("SORT", "is"), cmd("SORT", "is", "DESC"),
		cmd("SORT", "is", "BY", "nosort"), cmd("SORT", "is", "BY", "nosort", "DESC"), cmd("SORT", "is", "BY", "nosort", "LIMIT", "1", "2"),
		cmd("SORT", "is", "ALPHA"), cmd("SORT", "is", "BY", "nosort", "STORE", "isd"), cmd("LRANGE", "isd", "0", "-1"),
		cmd("SADD", "hs", "b", "a", "c", "10", "9"), cmd("SORT", "hs", "ALPHA"), cmd("SORT", "hs", "ALPHA", "DESC", "LIMIT", "1", "3"),
		cmd("SORT", "hs"), sorted("SORT", "hs", "BY", "nosort"), cmd("SORT", "hs", "BY", "nosort", "STORE", "hsd"),
		cmd("LRANGE", "hsd", "0", "-1"), cmd("SORT", "hs", "BY", "nosort", "DESC", "STORE", "hsd"), cmd("LRANGE", "hsd", "0", "-1"),
		cmd("ZADD", "zl", "3", "a", "1", "b", "2", "c", "2", "d"), cmd("OBJECT", "ENCODING", "zl"),
		cmd("SORT", "zl", "ALPHA"), cmd("SORT", "zl", "BY", "nosort"), cmd("OBJECT", "ENCODING", "zl"),
		cmd("SORT", "zl", "BY", "nosort", "DESC"), cmd("SORT", "zl", "BY", "nosort", "LIMIT", "1", "2"),
		cmd("SORT", "zl", "BY", "nosort", "DESC", "LIMIT", "1", "2"), cmd("SORT", "zl", "BY", "nosort", "LIMIT", "3", "10"),
		cmd("SORT", "zl", "BY", "nosort", "LIMIT", "4", "10"), cmd("SORT", "zl", "BY", "nosort", "DESC", "LIMIT", "0", "0"),
		cmd("SORT_RO", "zl", "ALPHA", "DESC"), cmd("SORT", "zl"),
		cmd("ZADD", "zn", "1", "10", "2", "9", "3", "8"), cmd("SORT", "zn"), cmd("SORT", "zn", "BY", "nosort"),
		cmd("SORT_RO", "zn", "BY", "nosort", "DESC"), cmd("OBJECT", "ENCODING", "zn"),
		cmd("RPUSH", "l", "c", "a", "b", "d"), cmd("SORT", "l", "BY", "nosort"), cmd("SORT", "l", "BY", "nosort", "DESC"),
		cmd("SORT", "l", "BY", "nosort", "LIMIT", "1", "2"), cmd("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"),
		cmd("SORT", "l", "BY", "nosort", "LIMIT", "3", "5"), cmd("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "3", "5"),
		cmd("SORT", "l", "BY", "nosort", "LIMIT", "9", "5"), cmd("SORT", "l", "BY", "nosort", "LIMIT", "0", "0"),
		cmd("SORT", "l", "BY", "#"), cmd("SORT", "l", "BY", "nosort", "GET", "#"),
		cmd("SORT", "l", "BY", "nosort", "STORE", "ld"), cmd("LRANGE", "ld", "0", "-1"),
	})
}

func TestDiffSortPatterns(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "1", "2", "3", "4", "5"),
		cmd("MSET", "w_1", "50", "w_2", "10", "w_3", "30", "w_4", "20", "w_5", "40"),
		cmd("MSET", "o_1", "one", "o_2", "two", "o_3", "three", "o_5", "five"),
		cmd("HSET", "h_1", "f", "e", "n", "5"), cmd("HSET", "h_2", "f", "d", "n", "4"), cmd("HSET", "h_3", "f", "c", "n", "-1"),
		cmd("HSET", "h_4", "f", "b"), cmd("HSET", "h_5", "f", "a", "n", "0.5"),
		cmd("SORT", "l", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "DESC"), cmd("SORT", "l", "BY", "w_*", "GET", "o_*"),
		cmd("SORT", "l", "BY", "w_*", "GET", "#", "GET", "o_*", "GET", "w_*"),
		cmd("SORT", "l", "BY", "w_*", "LIMIT", "1", "2", "GET", "o_*", "GET", "#"),
		cmd("SORT", "l", "BY", "h_*->n"), cmd("SORT", "l", "BY", "h_*->f", "ALPHA"), cmd("SORT", "l", "BY", "h_*->f", "ALPHA", "DESC"),
		cmd("SORT", "l", "BY", "h_*->n", "GET", "h_*->f", "GET", "h_*->n", "GET", "h_*->zz"),
		cmd("SORT", "l", "BY", "o_*", "ALPHA"), cmd("SORT", "l", "BY", "o_*", "ALPHA", "DESC"),
		cmd("SORT", "l", "BY", "o_*"), // not numbers
		cmd("SORT", "l", "BY", "missing_*"), cmd("SORT", "l", "BY", "missing_*", "DESC"),
		cmd("SORT", "l", "BY", "h_*"), cmd("SORT", "l", "GET", "h_*"), cmd("SORT", "l", "GET", "l"), cmd("SORT", "l", "GET", "w_*->"),
		cmd("SORT", "l", "BY", "w_*->"), cmd("SORT", "l", "GET", "*->f"), cmd("SET", "x1->f", "v"), cmd("SORT", "l", "GET", "x*->f"),
		cmd("SORT", "l", "GET", "x1->*"), cmd("SORT", "l", "GET", "w_*", "GET", "w_*"), cmd("SORT", "l", "GET", "#", "GET", "##"),
		cmd("SORT", "l", "BY", "w_*", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
		cmd("SORT", "l", "BY", "w_*", "GET", "o_*", "GET", "h_*->n", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
		cmd("SORT", "l", "LIMIT", "0", "0", "STORE", "d"), cmd("EXISTS", "d"), cmd("SORT", "l", "LIMIT", "0", "0", "STORE", "d"),
		cmd("SORT", "l", "GET", "o_*", "STORE", "d", "LIMIT", "3", "1"), cmd("LRANGE", "d", "0", "-1"),
		cmd("SET", "d", "str"), cmd("EXPIRE", "d", "1000"), cmd("SORT", "l", "STORE", "d"), cmd("TTL", "d"), cmd("TYPE", "d"),
		cmd("SORT", "l", "STORE", "l"), cmd("LRANGE", "l", "0", "-1"),
		cmd("SORT_RO", "l", "STORE", "d"), cmd("SORT_RO", "l", "BY", "w_*", "GET", "o_*"),
		// ALPHA BY with equal weights keeps the input order (stable sort).
		cmd("RPUSH", "m", "e", "d", "c", "b", "a"), cmd("MSET", "k_e", "x", "k_d", "y", "k_c", "x"),
		cmd("SORT", "m", "BY", "k_*", "ALPHA"), cmd("SORT", "m", "BY", "k_*", "ALPHA", "DESC"), cmd("SORT", "m", "BY", "k_*"),
		cmd("SORT", "m", "BY", "k_*", "ALPHA", "STORE", "md"), cmd("LRANGE", "md", "0", "-1"),
		cmd("SADD", "s", "1", "2", "3"), cmd("SORT", "s", "BY", "w_*", "GET", "o_*"), cmd("SORT", "s", "BY", "h_*->n", "DESC"),
		cmd("ZADD", "z", "1", "1", "2", "2", "3", "3"), cmd("SORT", "z", "BY", "w_*"), cmd("SORT", "z", "BY", "w_*", "GET", "#", "GET", "o_*"),
		// only the first '*' is replaced; "->" before the '*' is no field
		cmd("MSET", "a_1_*", "3", "a_2_*", "1", "a_3_*", "2", "p->q1", "z"),
		cmd("SORT", "l", "BY", "a_*_*", "GET", "a_*_*"), cmd("SORT", "l", "GET", "p->q*"), cmd("SORT", "l", "GET", "h_*->f->x"),
		cmd("HSET", "h_1", "f->x", "deep"), cmd("SORT", "l", "GET", "h_*->f->x", "GET", "h_*->"),
		// BY without '*' and then a real pattern: nothing is sorted.
		cmd("SORT", "l", "BY", "nosort", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "BY", "nosort"),
	})
}

// TestSortStorePropagation checks that SORT ... STORE is logged as sent and
// plain SORT is not.
func TestSortStorePropagation(t *testing.T) {
	d := newDSServer(t, nil)
	d.do("RPUSH", "l", "2", "1")
	d.ops()
	d.do("SORT", "l")
	if ops := d.ops(); len(ops) != 0 {
		t.Fatalf("SORT propagated %q", ops)
	}
	d.expect(t, ":2\r\n", "SORT", "l", "STORE", "d")
	if ops := d.ops(); len(ops) != 1 || ops[0] != "SORT l STORE d" {
		t.Fatalf("SORT STORE propagated %q", ops)
	}
	d.expect(t, ":0\r\n", "SORT", "nokey", "STORE", "d")
	if ops := d.ops(); len(ops) != 1 || ops[0] != "SORT nokey STORE d" {
		t.Fatalf("SORT STORE (delete) propagated %q", ops)
	}
	d.expect(t, ":0\r\n", "SORT", "nokey", "STORE", "d")
	if ops := d.ops(); len(ops) != 0 {
		t.Fatalf("no-op SORT STORE propagated %q", ops)
	}
}

// TestDiffSortRandom sorts random lists/sets/zsets with random options.
func TestDiffSortRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x50e7))
			p := newDiffPair(t)
			val := func() string {
				switch r.IntN(4) {
				case 0:
					return strconv.Itoa(r.IntN(40) - 20)
				case 1:
					return strconv.FormatFloat(r.Float64()*100-50, 'g', -1, 64)
				default:
					return strconv.Itoa(r.IntN(30))
				}
			}
			var cmds [][]string
			for i := 0; i < 30; i++ {
				cmds = append(cmds, cmd("SET", "w"+strconv.Itoa(i), val()), cmd("HSET", "h"+strconv.Itoa(i), "f", val(), "g", "x"+val()))
			}
			for i := 0; i < 400; i++ {
				k := []string{"l", "s", "z"}[r.IntN(3)]
				m := strconv.Itoa(r.IntN(30))
				switch r.IntN(4) {
				case 0:
					switch k {
					case "l":
						cmds = append(cmds, cmd("RPUSH", "l", m, strconv.Itoa(r.IntN(30))))
					case "s":
						cmds = append(cmds, cmd("SADD", "s", m, "x"[:r.IntN(2)]+m))
					default:
						cmds = append(cmds, cmd("ZADD", "z", val(), m))
					}
					continue
				}
				a := []string{"SORT", k}
				if r.IntN(2) == 0 {
					a = append(a, "BY", []string{"w*", "h*->f", "nosort", "nokey*"}[r.IntN(4)])
				}
				if r.IntN(3) == 0 {
					a = append(a, "LIMIT", strconv.Itoa(r.IntN(12)-2), strconv.Itoa(r.IntN(12)-2))
				}
				if r.IntN(2) == 0 {
					a = append(a, "DESC")
				}
				if r.IntN(3) == 0 {
					a = append(a, "ALPHA")
				}
				for n := r.IntN(3); n > 0; n-- {
					a = append(a, "GET", []string{"#", "w*", "h*->g", "nokey*"}[r.IntN(4)])
				}
				store := r.IntN(4) == 0
				if store {
					a = append(a, "STORE", "dst")
				}
				// Order-unstable: a hash-table set with nosort and no STORE,
				// and ties between equal BY values (partial sort with LIMIT).
				c := cmd(a...)
				if k == "s" && !store {
					c = sorted(a...)
				}
				if byTies(a) {
					c = nocmp(a...)
				}
				cmds = append(cmds, c)
				if store {
					if byTies(a) {
						cmds = append(cmds, cmd("DEL", "dst"))
					} else {
						cmds = append(cmds, cmd("LRANGE", "dst", "0", "-1"))
					}
				}
			}
			p.run(cmds)
			p.checkDigest()
		})
	}
}

// byTies reports a SORT whose order may depend on how equal keys are
// ordered: ALPHA with a BY pattern (equal or missing weights compare
// equal), or a set sorted with LIMIT or nosort (table order).
func byTies(a []string) bool {
	by, alpha, limit, nosort := false, false, false, false
	for i, x := range a {
		switch x {
		case "BY":
			by = true
			nosort = a[i+1] == "nosort"
		case "ALPHA":
			alpha = true
		case "LIMIT":
			limit = true
		}
	}
	if a[1] == "s" && nosort && limit {
		return true
	}
	return by && !nosort && alpha
}

// TestDiffSortKeyspaceStats compares keyspace hits/misses: SORT's BY/GET
// lookups and the set-algebra inputs count as Redis counts them (STORE
// forms and ZMPOP/LMPOP look keys up for writing, which does not count).
func TestDiffSortKeyspaceStats(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("RPUSH", "l", "1", "2", "3"), cmd("SET", "w_1", "3"), cmd("HSET", "h_2", "f", "1"),
		cmd("ZADD", "z", "1", "a"), cmd("SADD", "s", "a"), cmd("RPUSH", "q", "x"),
		cmd("CONFIG", "RESETSTAT"),
		cmd("SORT", "l", "BY", "w_*", "GET", "h_*->f", "GET", "#", "GET", "nokey_*"), cmd("SORT", "nokey"),
		cmd("SORT_RO", "l", "BY", "nosort", "GET", "w_*"), cmd("SORT", "l", "STORE", "dst"),
		cmd("ZUNION", "3", "z", "s", "nokey"), cmd("ZINTERSTORE", "d", "2", "z", "nokey"), cmd("ZINTERCARD", "2", "z", "s"),
		cmd("ZDIFF", "2", "nokey", "z"), cmd("ZRANDMEMBER", "z"), cmd("ZRANDMEMBER", "nokey", "2"),
		cmd("ZMPOP", "2", "nokey", "z", "MIN"), cmd("LMPOP", "2", "nokey", "q", "LEFT"),
	})
	oc, rc := p.conn(0)
	for _, f := range []string{"keyspace_hits", "keyspace_misses"} {
		if got, want := sortInfoStat(oc, f), sortInfoStat(rc, f); got != want || got == "" {
			t.Fatalf("%s: ours %q, redis %q", f, got, want)
		}
	}
}

func sortInfoStat(c *respConn, field string) string {
	raw := c.do("INFO", "stats")
	for _, line := range strings.Split(raw, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}
