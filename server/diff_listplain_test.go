package server

import (
	"strings"
	"testing"
)

// Quicklist plain nodes (Redis 7.0): an element at or above DEBUG
// QUICKLIST-PACKED-THRESHOLD gets a node of its own. Ported from
// tests/unit/type/list.tcl ("plain node ...", "Test ... on plain nodes",
// "Crash due to ..."), run against real Redis 7.0.15 with every reply
// compared, plus DEBUG OBJECT's quicklist fields where the node layout is
// the one a run of pushes builds.

func rep(s string, n int) string { return strings.Repeat(s, n) }

// debugObjectQL is DEBUG OBJECT's quicklist part (ql_nodes onwards) and
// serializedlength, which both depend on the node layout.
func debugObjectQL(c *respConn, key string) string {
	var out []string
	for _, f := range strings.Fields(bulkText(c.do("DEBUG", "OBJECT", key))) {
		if strings.HasPrefix(f, "ql_") || strings.HasPrefix(f, "serializedlength:") || strings.HasPrefix(f, "encoding:") {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

func (p *diffPair) compareQuicklist(key string) {
	p.t.Helper()
	oc, rc := p.conn(0)
	if got, want := debugObjectQL(oc, key), debugObjectQL(rc, key); got != want {
		p.t.Errorf("DEBUG OBJECT %s:\n ours:  %s\n redis: %s", key, got, want)
	}
}

func TestDiffListPlainCompression(t *testing.T) {
	p := newDiffPair(t, "--save", "")
	a, b, c, d, e, f, g, j := rep("a", 500), rep("b", 500), rep("c", 500), rep("d", 500), rep("e", 500), rep("f", 500), rep("g", 500), rep("j", 500)
	p.run([][]string{cmd("CONFIG", "SET", "list-compress-depth", "2"), cmd("CONFIG", "SET", "list-max-ziplist-size", "1")})
	insertPop := func(k string) [][]string {
		return [][]string{
			cmd("LPUSH", k, a), cmd("LPUSH", k, b), cmd("LPUSH", k, c), cmd("LPUSH", k, d),
			cmd("LINSERT", k, "AFTER", d, e), cmd("LINSERT", k, "AFTER", d, f),
			cmd("LINSERT", k, "AFTER", d, g), cmd("LINSERT", k, "AFTER", d, j),
			cmd("LRANGE", k, "0", "-1"),
			cmd("LPOP", k), cmd("LPOP", k), cmd("LPOP", k), cmd("LPOP", k),
			cmd("LPOP", k), cmd("LPOP", k), cmd("LPOP", k), cmd("LPOP", k),
		}
	}
	trim := func(k string) [][]string {
		return [][]string{
			cmd("LPUSH", k, a), cmd("LINSERT", k, "AFTER", a, b), cmd("RPUSH", k, c),
			cmd("LINDEX", k, "1"), cmd("LTRIM", k, "1", "-1"), cmd("LLEN", k), cmd("LRANGE", k, "0", "-1"),
		}
	}
	lset := func(k string) [][]string {
		return [][]string{
			cmd("LPUSH", k, a), cmd("LSET", k, "0", b), cmd("LINDEX", k, "0"),
			cmd("LPUSH", k, c), cmd("LSET", k, "0", d), cmd("LINDEX", k, "0"), cmd("LRANGE", k, "0", "-1"),
		}
	}
	// regular packed nodes first, then the same with plain nodes
	p.run(insertPop("list1"))
	p.run(trim("list2"))
	p.run(lset("list3"))
	p.run([][]string{cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b")})
	p.run(insertPop("list4"))
	p.run(trim("list5"))
	p.run(lset("list6"))
	// a layout built by pushes only, compressed in the middle
	p.run([][]string{cmd("RPUSH", "list7", a, b, c, d, e, f, g, j)})
	p.compareQuicklist("list7")
	// compressed plain nodes are saved LZF'd even with rdbcompression off
	p.run([][]string{cmd("CONFIG", "SET", "rdbcompression", "no"), cmd("RPUSH", "list8", a, b, c, d, e)})
	p.compareQuicklist("list8")
	p.run([][]string{cmd("DUMP", "list8"), cmd("CONFIG", "SET", "rdbcompression", "yes")})
	p.run([][]string{cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"), cmd("CONFIG", "SET", "list-compress-depth", "0")})
	p.checkDigest()
}

func TestDiffListPlainNodes(t *testing.T) {
	p := newDiffPair(t, "--save", "")
	x10, x11 := rep("x", 10), rep("x", 11)
	th := func(v string) []string { return cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD", v) }
	// Test LPUSH and LPOP on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("LPUSH", "lst", "9"), cmd("LPUSH", "lst", x10), cmd("LPUSH", "lst", x10),
		cmd("LLEN", "lst"), cmd("RPOP", "lst"), cmd("RPOP", "lst"), cmd("LLEN", "lst"), cmd("LPOP", "lst"),
		cmd("LPUSH", "lst", x10), cmd("LPUSH", "lst", "bb"),
	})
	p.compareQuicklist("lst")
	p.run([][]string{cmd("DEBUG", "RELOAD"), cmd("RPOP", "lst"), th("0")})
	// Test LINDEX and LINSERT on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("LPUSH", "lst", x11), cmd("LPUSH", "lst", "9"), cmd("LPUSH", "lst", x11),
		cmd("LINSERT", "lst", "before", "9", "8"), cmd("LINDEX", "lst", "1"),
		cmd("LINSERT", "lst", "BEFORE", "9", "7"), cmd("LINSERT", "lst", "BEFORE", "9", x11),
		cmd("LINDEX", "lst", "3"), cmd("LRANGE", "lst", "0", "-1"), th("0"),
	})
	// Test LTRIM on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("LPUSH", "lst1", "9"), cmd("LPUSH", "lst1", x11), cmd("LPUSH", "lst1", "9"),
		cmd("LTRIM", "lst1", "1", "-1"), cmd("LLEN", "lst1"), cmd("LRANGE", "lst1", "0", "-1"), th("0"),
	})
	// Test LREM on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("LPUSH", "lst", "one"), cmd("LPUSH", "lst", x11), cmd("LPUSH", "lst", "9"),
		cmd("LREM", "lst", "-2", "one"), cmd("LLEN", "lst"), cmd("LRANGE", "lst", "0", "-1"), th("0"),
	})
	// Test LPOS on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("RPUSH", "lst", "aa"), cmd("RPUSH", "lst", "bb"), cmd("RPUSH", "lst", "cc"),
		cmd("LSET", "lst", "0", x11), cmd("LPOS", "lst", x11), th("0"),
	})
	// Test LMOVE on plain nodes
	p.run([][]string{
		cmd("FLUSHDB"), th("1b"), cmd("RPUSH", "lst2{t}", "aa"), cmd("RPUSH", "lst2{t}", "bb"),
		cmd("LSET", "lst2{t}", "0", x11), cmd("RPUSH", "lst2{t}", "cc"), cmd("RPUSH", "lst2{t}", "dd"),
		cmd("LMOVE", "lst2{t}", "lst{t}", "RIGHT", "LEFT"), cmd("LMOVE", "lst2{t}", "lst{t}", "LEFT", "RIGHT"),
		cmd("LLEN", "lst{t}"), cmd("LLEN", "lst2{t}"), cmd("LPOP", "lst2{t}"), cmd("LPOP", "lst2{t}"),
		cmd("LPOP", "lst{t}"), cmd("LPOP", "lst{t}"), th("0"),
	})
	// Test LSET with packed / plain combinations, then with one item per
	// node (list-max-ziplist-size 1)
	combos := func(thr string) [][]string {
		return [][]string{
			th(thr), cmd("RPUSH", "lst", "aa"), cmd("RPUSH", "lst", "bb"), cmd("LSET", "lst", "0", rep("d", 50001)),
			cmd("LPOP", "lst"), cmd("RPUSH", "lst", rep("f", 50001)), cmd("LSET", "lst", "0", rep("e", 50001)),
			cmd("LPOP", "lst"), cmd("RPUSH", "lst", rep("m", 50001)), cmd("LSET", "lst", "0", "bb"),
			cmd("LPOP", "lst"), cmd("RPUSH", "lst", "bb"), cmd("LSET", "lst", "0", "cc"), cmd("LPOP", "lst"),
			cmd("LRANGE", "lst", "0", "-1"), th("0"),
		}
	}
	p.run(combos("5b"))
	// Test LSET with packed is split in the middle
	p.run([][]string{
		cmd("FLUSHDB"), th("5b"), cmd("RPUSH", "lst", "aa", "bb", "cc", "dd", "ee"),
		cmd("LSET", "lst", "2", rep("e", 10)), cmd("LRANGE", "lst", "0", "-1"),
		cmd("LPOP", "lst"), cmd("LPOP", "lst"), cmd("LPOP", "lst"), cmd("LPOP", "lst"), cmd("LPOP", "lst"), th("0"),
	})
	p.run([][]string{cmd("FLUSHDB"), cmd("CONFIG", "SET", "list-max-ziplist-size", "1")})
	p.run(combos("1b"))
	p.run([][]string{cmd("CONFIG", "SET", "list-max-ziplist-size", "-2")})
	// Crash due to delete entry from a compress quicklist node
	small, large := rep("x", 32), rep("x", 100)
	p.run([][]string{
		cmd("FLUSHDB"), th("100b"), cmd("CONFIG", "SET", "list-compress-depth", "1"),
		cmd("RPUSH", "lst", large), cmd("RPUSH", "lst", small), cmd("RPUSH", "lst", small),
	})
	p.compareQuicklist("lst")
	p.run([][]string{
		cmd("LSET", "lst", "-1", large), cmd("LRANGE", "lst", "0", "-1"),
		th("0"), cmd("CONFIG", "SET", "list-compress-depth", "0"),
	})
	// Crash due to split quicklist node wrongly
	p.run([][]string{
		cmd("FLUSHDB"), th("10b"), cmd("LPUSH", "lst", "aa"), cmd("LPUSH", "lst", "bb"),
		cmd("LSET", "lst", "-2", x10), cmd("RPOP", "lst"), cmd("LRANGE", "lst", "0", "-1"), th("0"),
	})
	// the threshold's argument: memory units, limits, errors
	p.run([][]string{
		th("1k"), th("1mb"), th("4gb"), th("4294967296"), th("4293918720"), th("4293918721"),
		th("-1"), th("abc"), th("1.5"), th(""), cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD"),
		cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1", "2"), th("0"),
	})
	// a big element among small ones: its own node in the RDB layout
	p.run([][]string{th("64"), cmd("RPUSH", "mix", "a", "b", rep("z", 64), "c", rep("y", 63), rep("w", 100), "d")})
	p.compareQuicklist("mix")
	p.run([][]string{cmd("DUMP", "mix"), th("0")})
	p.checkDigest()
}
