package server

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Streams against real Redis 7.0: replies byte for byte (explicit IDs
// keep them deterministic; times and the rax node count are compared by
// shape only), and DEBUG DIGEST at the end.

func TestDiffStreamBasics(t *testing.T) {
	cmds := [][]string{
		cmd("XADD", "s", "1-1", "a", "1"), cmd("XADD", "s", "1-2", "b", "2", "c", "3"),
		cmd("XADD", "s", "2-0", "a", "10"), cmd("XADD", "s", "2-*", "a", "11"), cmd("XADD", "s", "3", "a", "12"),
		cmd("XADD", "s", "3-*", "x", "y"), cmd("XADD", "s", "3-5", "x", "y"),
		cmd("XADD", "s", "3-5", "x", "y"), cmd("XADD", "s", "1-9", "x", "y"), cmd("XADD", "s", "0-0", "x", "y"),
		cmd("XADD", "new0", "0-*", "x", "y"), cmd("XADD", "new1", "0-0", "x", "y"), cmd("EXISTS", "new1"),
		cmd("XADD", "s", "18446744073709551615-18446744073709551615", "x", "y"),
		cmd("XADD", "max", "18446744073709551615-18446744073709551615", "x", "y"),
		cmd("XADD", "max", "*", "x", "y"), cmd("XADD", "max", "18446744073709551615-*", "x", "y"),
		cmd("XADD", "s", "NOMKSTREAM", "4-0", "f", "v"), cmd("XADD", "nos", "NOMKSTREAM", "4-0", "f", "v"), cmd("EXISTS", "nos"),
		cmd("XADD", "s", "5-0", "f"), cmd("XADD", "s", "5-0"), cmd("XADD", "s", "5-0", "f", "v", "g"),
		cmd("XADD", "s", "x-0", "f", "v"), cmd("XADD", "s", "-", "f", "v"), cmd("XADD", "s", "+", "f", "v"),
		cmd("XADD", "s", "5-x", "f", "v"), cmd("XADD", "s", "-5", "f", "v"), cmd("XADD", "s", "5--1", "f", "v"),
		cmd("XADD", "s", "  6-0", "f", "v"), cmd("XADD", "s", "+7-0", "f", "v"), cmd("XADD", "s", "008-01", "f", "v"),
		cmd("XADD", "s", "18446744073709551616-0", "f", "v"), cmd("XADD", "s", strings.Repeat("9", 130), "f", "v"),
		cmd("XADD", "s", "MAXLEN", "x", "*", "f", "v"), cmd("XADD", "s", "MAXLEN", "-1", "*", "f", "v"),
		cmd("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "f", "v"), cmd("XADD", "s", "LIMIT", "10", "*", "f", "v"),
		cmd("XADD", "s", "MAXLEN", "5", "LIMIT", "10", "*", "f", "v"), cmd("XADD", "s", "MAXLEN", "~", "5", "LIMIT", "-1", "*", "f", "v"),
		cmd("XADD", "s", "MINID", "-", "*", "f", "v"), cmd("XADD", "s", "FOO", "*", "f", "v"),
		cmd("XLEN", "s"), cmd("XLEN", "nokey"),
		cmd("XRANGE", "s", "-", "+"), cmd("XREVRANGE", "s", "+", "-"), cmd("XRANGE", "s", "1", "2"),
		cmd("XRANGE", "s", "(1-1", "(3-0"), cmd("XREVRANGE", "s", "(3-0", "(1-1"), cmd("XRANGE", "s", "(1", "+"),
		cmd("XRANGE", "s", "-", "+", "COUNT", "2"), cmd("XREVRANGE", "s", "+", "-", "COUNT", "2"),
		cmd("XRANGE", "s", "-", "+", "COUNT", "0"), cmd("XRANGE", "s", "-", "+", "COUNT", "-1"),
		cmd("XRANGE", "s", "-", "+", "COUNT"), cmd("XRANGE", "s", "-", "+", "COUNT", "x"), cmd("XRANGE", "s", "-", "+", "FOO", "1"),
		cmd("XRANGE", "s", "3", "1"), cmd("XRANGE", "s", "(-", "+"), cmd("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"),
		cmd("XRANGE", "s", "-", "(0-0"), cmd("XRANGE", "s", "x", "+"), cmd("XRANGE", "nokey", "-", "+"),
		cmd("XRANGE", "nokey", "-", "+", "COUNT", "0"), cmd("XRANGE", "s", "(", "+"), cmd("XRANGE", "s", "((1", "+"),
		cmd("XDEL", "s", "1-2", "9-9", "1-2"), cmd("XDEL", "s", "x"), cmd("XDEL", "s", "1-1", "-"), cmd("XDEL", "nokey", "1-1"),
		cmd("XRANGE", "s", "-", "+"), cmd("XLEN", "s"),
		cmd("XTRIM", "s", "MAXLEN", "3"), cmd("XRANGE", "s", "-", "+"), cmd("XTRIM", "s", "MINID", "3-0"),
		cmd("XTRIM", "s", "MINID", "=", "3-1"), cmd("XTRIM", "s"), cmd("XTRIM", "s", "FOO", "1"),
		cmd("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "1"), cmd("XTRIM", "nokey", "MAXLEN", "0"),
		cmd("XTRIM", "s", "LIMIT", "1"), cmd("XTRIM", "s", "MAXLEN"),
		cmd("XSETID", "s", "1-0"), cmd("XSETID", "s", "100-0"), cmd("XSETID", "s", "100-0", "ENTRIESADDED", "1"),
		cmd("XSETID", "s", "100-0", "ENTRIESADDED", "-1"), cmd("XSETID", "s", "100-0", "MAXDELETEDID", "200-0"),
		cmd("XSETID", "s", "100-0", "ENTRIESADDED", "50", "MAXDELETEDID", "99-0"), cmd("XSETID", "s", "99-5"),
		cmd("XSETID", "s", "x"), cmd("XSETID", "s", "100-0", "FOO"), cmd("XSETID", "nokey", "1-0"),
		cmd("XADD", "s", "100-0", "a", "b"), nocmp("XADD", "auto", "*", "a", "b"), nocmp("XADD", "auto", "*", "a", "b"),
		cmd("XLEN", "auto"), cmd("DEL", "auto"),
		cmd("SET", "str", "x"),
		cmd("XADD", "str", "1-1", "a", "b"), cmd("XRANGE", "str", "-", "+"), cmd("XLEN", "str"), cmd("XDEL", "str", "1-1"),
		cmd("XTRIM", "str", "MAXLEN", "1"), cmd("XSETID", "str", "1-1"), cmd("XREAD", "STREAMS", "str", "0"),
		cmd("TYPE", "s"), cmd("OBJECT", "ENCODING", "s"),
		cmd("GET", "s"), cmd("LPUSH", "s", "x"), cmd("SADD", "s", "x"), cmd("HSET", "s", "a", "b"), cmd("ZADD", "s", "1", "x"),
		cmd("SORT", "s"), cmd("APPEND", "s", "x"), cmd("LLEN", "s"), cmd("STRLEN", "s"), cmd("EXPIRE", "s", "1000"), cmd("TTL", "s"),
		cmd("PERSIST", "s"), cmd("EXISTS", "s"), shape("DEBUG", "OBJECT", "s"), cmd("OBJECT", "REFCOUNT", "s"),
	}
	cmds = append(cmds, cmd("XRANGE", "s", "-", "+"))
	diff(t, cmds)
}

func TestDiffStreamTrimApprox(t *testing.T) {
	var cmds [][]string
	for i := 1; i <= 350; i++ {
		cmds = append(cmds, cmd("XADD", "t", strconv.Itoa(i)+"-0", "f", strconv.Itoa(i)))
	}
	// big values make nodes close on the byte limit
	for i := 1; i <= 60; i++ {
		cmds = append(cmds, cmd("XADD", "b", strconv.Itoa(i)+"-0", "field", strings.Repeat("v", 150+i), "n", strconv.Itoa(i*1000)))
	}
	cmds = append(cmds,
		cmd("XTRIM", "t", "MAXLEN", "~", "300"), cmd("XLEN", "t"), cmd("XTRIM", "t", "MAXLEN", "~", "150"), cmd("XLEN", "t"),
		cmd("XDEL", "t", "210-0", "211-0", "250-0"), cmd("XTRIM", "t", "MINID", "~", "215"), cmd("XLEN", "t"),
		cmd("XTRIM", "t", "MINID", "~", "300-0", "LIMIT", "50"), cmd("XLEN", "t"),
		cmd("XTRIM", "t", "MINID", "305"), cmd("XLEN", "t"), cmd("XRANGE", "t", "-", "+", "COUNT", "3"),
		cmd("XADD", "t", "MAXLEN", "~", "10", "400-0", "f", "v"), cmd("XLEN", "t"),
		cmd("XADD", "t", "MAXLEN", "10", "401-0", "f", "v"), cmd("XLEN", "t"), cmd("XRANGE", "t", "-", "+", "COUNT", "2"),
		cmd("XTRIM", "b", "MAXLEN", "~", "30"), cmd("XLEN", "b"), cmd("XTRIM", "b", "MAXLEN", "~", "1"), cmd("XLEN", "b"),
		cmd("XINFO", "STREAM", "t"), cmd("XINFO", "STREAM", "b"),
		cmd("XADD", "t", "MINID", "~", "1000", "1000-0", "f", "v"), cmd("XLEN", "t"),
		cmd("XTRIM", "t", "MAXLEN", "0"), cmd("XLEN", "t"), cmd("XRANGE", "t", "-", "+"),
	)
	diff(t, cmds)
}

func TestDiffStreamGroups(t *testing.T) {
	cmds := [][]string{
		cmd("XADD", "s", "1-1", "a", "1"), cmd("XADD", "s", "1-2", "b", "2"), cmd("XADD", "s", "2-0", "c", "3"),
		cmd("XADD", "s", "3-0", "d", "4"), cmd("XADD", "s", "4-0", "e", "5"),
		cmd("XGROUP", "CREATE", "s", "g", "0"), cmd("XGROUP", "CREATE", "s", "g", "0"), cmd("XGROUP", "CREATE", "s", "g2", "$"),
		cmd("XGROUP", "CREATE", "s", "g3", "1-2", "ENTRIESREAD", "2"), cmd("XGROUP", "CREATE", "s", "g4", "x"),
		cmd("XGROUP", "CREATE", "s", "g4", "-"), cmd("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD", "-2"),
		cmd("XGROUP", "CREATE", "s", "g4", "0", "FOO"), cmd("XGROUP", "CREATE", "nokey", "g", "0"),
		cmd("XGROUP", "CREATE", "mk", "g", "$", "MKSTREAM"), cmd("XLEN", "mk"), cmd("TYPE", "mk"),
		cmd("XGROUP", "CREATE", "s"), cmd("XGROUP", "FOO", "s", "g"), cmd("XGROUP", "SETID", "s", "nog", "0"),
		cmd("XGROUP", "CREATECONSUMER", "s", "nog", "c"), cmd("XGROUP", "DELCONSUMER", "nokey", "g", "c"),
		cmd("XINFO", "GROUPS", "s"),
		cmd("XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "carol", "NOACK", "COUNT", "1", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"), cmd("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", "1-1"),
		cmd("XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s", "0"),
		cmd("XREADGROUP", "GROUP", "nog", "alice", "STREAMS", "s", ">"), cmd("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "nokey", ">"),
		cmd("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "$"), cmd("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s"),
		cmd("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "s", ">"), cmd("XREADGROUP", "STREAMS", "s", ">", "x", "y"),
		cmd("XREADGROUP", "GROUP", "g", "alice", "FOO", "STREAMS", "s", ">"),
		cmd("XREAD", "GROUP", "g", "a", "STREAMS", "s", ">"), cmd("XREAD", "NOACK", "STREAMS", "s", "0"), cmd("XREAD", "STREAMS", "s", ">"),
		cmd("XREAD", "STREAMS", "s", "0"), cmd("XREAD", "COUNT", "2", "STREAMS", "s", "mk", "nokey", "1-1", "0", "0"),
		cmd("XREAD", "STREAMS", "s", "$"), cmd("XREAD", "COUNT", "-5", "STREAMS", "s", "3"), cmd("XREAD", "BLOCK", "x", "STREAMS", "s", "0"),
		cmd("XREAD", "BLOCK", "-1", "STREAMS", "s", "0"), cmd("XREAD", "BLOCK", "10", "STREAMS", "s", "0"),
		cmd("XREAD", "COUNT", "x", "STREAMS", "s", "0"), cmd("XREAD", "STREAMS", "s", "x"),
		cmd("XINFO", "GROUPS", "s"),
		cmd("XPENDING", "s", "g"), shape("XPENDING", "s", "g", "-", "+", "10"), shape("XPENDING", "s", "g", "-", "+", "10", "alice"),
		cmd("XPENDING", "s", "g", "-", "+", "10", "nobody"), shape("XPENDING", "s", "g", "(1-1", "+", "1"),
		shape("XPENDING", "s", "g", "IDLE", "0", "-", "+", "10"), cmd("XPENDING", "s", "g", "IDLE", "100000", "-", "+", "10"),
		cmd("XPENDING", "s", "g", "-", "+"), cmd("XPENDING", "s", "g", "-", "+", "x"), cmd("XPENDING", "s", "g", "x", "+", "1"),
		cmd("XPENDING", "s", "g", "IDLE", "x", "-", "+", "1"), cmd("XPENDING", "s", "g", "IDLE", "1", "-", "+"),
		cmd("XPENDING", "s", "nog"), cmd("XPENDING", "nokey", "g"), cmd("XPENDING", "s", "g2"), cmd("XPENDING", "s", "g", "-", "+", "0"),
		cmd("XPENDING", "s", "g", "-", "+", "-3"),
		shape("XINFO", "CONSUMERS", "s", "g"), cmd("XINFO", "CONSUMERS", "s", "nog"), cmd("XINFO", "CONSUMERS", "nokey", "g"),
		cmd("XACK", "s", "g", "1-1", "9-9"), cmd("XACK", "s", "g", "1-1"), cmd("XACK", "s", "nog", "1-1"), cmd("XACK", "s", "g", "x"),
		cmd("XACK", "nokey", "g", "x"), cmd("XPENDING", "s", "g"),
		cmd("XCLAIM", "s", "g", "bob", "0", "1-2"), cmd("XCLAIM", "s", "g", "bob", "0", "1-2", "JUSTID"),
		cmd("XCLAIM", "s", "g", "erin", "0", "2-0", "3-0", "FORCE", "RETRYCOUNT", "7", "JUSTID"),
		cmd("XCLAIM", "s", "g", "erin", "3600000", "1-2"), cmd("XCLAIM", "s", "g", "erin", "0", "9-9"),
		cmd("XCLAIM", "s", "g", "erin", "0", "1-2", "IDLE", "x"), cmd("XCLAIM", "s", "g", "erin", "0", "1-2", "TIME", "x"),
		cmd("XCLAIM", "s", "g", "erin", "0", "1-2", "RETRYCOUNT", "x"), cmd("XCLAIM", "s", "g", "erin", "0", "1-2", "BAR"),
		cmd("XCLAIM", "s", "g", "erin", "x", "1-2"), cmd("XCLAIM", "s", "nog", "erin", "0", "1-2"),
		cmd("XCLAIM", "s", "g", "erin", "0", "1-2", "LASTID", "x"), cmd("XCLAIM", "s", "g", "erin", "0", "9-9", "LASTID", "5-0"),
		cmd("XINFO", "GROUPS", "s"),
		cmd("XDEL", "s", "2-0"), cmd("XCLAIM", "s", "g", "bob", "0", "2-0", "3-0"), shape("XPENDING", "s", "g", "-", "+", "10"),
		cmd("XREADGROUP", "GROUP", "g", "erin", "STREAMS", "s", "0"),
		cmd("XAUTOCLAIM", "s", "g", "frank", "0", "0", "COUNT", "1"), cmd("XAUTOCLAIM", "s", "g", "frank", "0", "0"),
		cmd("XAUTOCLAIM", "s", "g", "frank", "0", "0", "JUSTID"), cmd("XAUTOCLAIM", "s", "g", "frank", "3600000", "0"),
		cmd("XAUTOCLAIM", "s", "g", "frank", "0", "(1-1", "COUNT", "0"), cmd("XAUTOCLAIM", "s", "g", "frank", "0", "0", "FOO"),
		cmd("XAUTOCLAIM", "s", "nog", "frank", "0", "0"), cmd("XAUTOCLAIM", "s", "g", "frank", "x", "0"),
		cmd("XAUTOCLAIM", "s", "g", "frank", "0", "x"),
		cmd("XGROUP", "SETID", "s", "g", "0"), cmd("XGROUP", "SETID", "s", "g", "$", "ENTRIESREAD", "4"),
		cmd("XGROUP", "SETID", "s", "g", "-"), cmd("XGROUP", "SETID", "s", "g", "x"), cmd("XGROUP", "SETID", "s", "g", "0", "MKSTREAM"),
		cmd("XINFO", "GROUPS", "s"),
		cmd("XGROUP", "CREATECONSUMER", "s", "g", "zed"), cmd("XGROUP", "CREATECONSUMER", "s", "g", "zed"),
		cmd("XGROUP", "DELCONSUMER", "s", "g", "frank"), cmd("XGROUP", "DELCONSUMER", "s", "g", "nobody"),
		cmd("XGROUP", "DESTROY", "s", "g2"), cmd("XGROUP", "DESTROY", "s", "g2"), cmd("XGROUP", "DESTROY", "nokey", "g2"),
		cmd("XINFO", "GROUPS", "s"), cmd("XINFO", "GROUPS", "nokey"), cmd("XINFO", "FOO", "s"), cmd("XINFO", "STREAM", "s", "FULL", "COUNT"),
		cmd("XINFO", "STREAM", "s", "BAR"), cmd("XINFO", "STREAM", "nokey"),
		cmd("SET", "str", "x"), cmd("XGROUP", "CREATE", "str", "g", "0"), cmd("XREADGROUP", "GROUP", "g", "a", "STREAMS", "str", ">"),
		cmd("XACK", "str", "g", "1-1"), cmd("XPENDING", "str", "g"), cmd("XCLAIM", "str", "g", "a", "0", "1-1"),
		cmd("XAUTOCLAIM", "str", "g", "a", "0", "0"), cmd("XINFO", "GROUPS", "str"), cmd("XINFO", "STREAM", "str"),
	}
	diff(t, cmds)
}

// Lag and entries-read bookkeeping, including the cases Redis reports as
// unknown (nil).
func TestDiffStreamLag(t *testing.T) {
	cmds := [][]string{
		cmd("XGROUP", "CREATE", "e", "g", "$", "MKSTREAM"), cmd("XINFO", "GROUPS", "e"),
		cmd("XADD", "s", "1-0", "f", "v"), cmd("XADD", "s", "2-0", "f", "v"), cmd("XADD", "s", "3-0", "f", "v"),
		cmd("XADD", "s", "4-0", "f", "v"), cmd("XADD", "s", "5-0", "f", "v"),
		cmd("XGROUP", "CREATE", "s", "a", "0"), cmd("XGROUP", "CREATE", "s", "b", "$"), cmd("XGROUP", "CREATE", "s", "c", "2-0"),
		cmd("XGROUP", "CREATE", "s", "d", "9-0"), cmd("XINFO", "GROUPS", "s"),
		cmd("XREADGROUP", "GROUP", "a", "x", "COUNT", "1", "STREAMS", "s", ">"), cmd("XINFO", "GROUPS", "s"),
		cmd("XDEL", "s", "3-0"), cmd("XINFO", "GROUPS", "s"),
		cmd("XREADGROUP", "GROUP", "a", "x", "COUNT", "2", "STREAMS", "s", ">"), cmd("XINFO", "GROUPS", "s"),
		cmd("XREADGROUP", "GROUP", "c", "x", "STREAMS", "s", ">"), cmd("XINFO", "GROUPS", "s"),
		cmd("XDEL", "s", "1-0"), cmd("XINFO", "GROUPS", "s"), cmd("XTRIM", "s", "MAXLEN", "1"), cmd("XINFO", "GROUPS", "s"),
		cmd("XADD", "s", "6-0", "f", "v"), cmd("XINFO", "GROUPS", "s"), cmd("XDEL", "s", "5-0", "6-0"), cmd("XINFO", "GROUPS", "s"),
		cmd("XREADGROUP", "GROUP", "a", "x", "NOACK", "STREAMS", "s", ">"), cmd("XINFO", "GROUPS", "s"),
		cmd("XSETID", "s", "10-0", "ENTRIESADDED", "20", "MAXDELETEDID", "9-0"), cmd("XINFO", "GROUPS", "s"),
		cmd("XGROUP", "SETID", "s", "b", "10-0"), cmd("XGROUP", "SETID", "s", "c", "0", "ENTRIESREAD", "0"), cmd("XINFO", "GROUPS", "s"),
		cmd("XINFO", "STREAM", "s"), cmd("XINFO", "STREAM", "e"), shape("XINFO", "STREAM", "s", "FULL"),
		// emptied streams: the estimate for IDs up to the last one
		cmd("XADD", "e2", "1-0", "f", "v"), cmd("XADD", "e2", "2-0", "f", "v"), cmd("XGROUP", "CREATE", "e2", "g", "0"),
		cmd("XGROUP", "CREATE", "e2", "h", "1-0"), cmd("XGROUP", "CREATE", "e2", "i", "5-0"), cmd("XDEL", "e2", "1-0", "2-0"),
		cmd("XINFO", "GROUPS", "e2"), cmd("XADD", "e3", "1-0", "f", "v"), cmd("XGROUP", "CREATE", "e3", "g", "0"),
		cmd("XTRIM", "e3", "MAXLEN", "0"), cmd("XINFO", "GROUPS", "e3"), cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "e3", ">"),
		cmd("XADD", "e3", "2-0", "f", "v"), cmd("XINFO", "GROUPS", "e3"), cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "e3", ">"),
		cmd("XINFO", "GROUPS", "e3"),
	}
	diff(t, cmds)
}

// XINFO STREAM FULL with its timing fields masked: compared by shape, and
// the deterministic parts through XINFO GROUPS / XPENDING above.
func TestDiffStreamInfoFull(t *testing.T) {
	var cmds [][]string
	for i := 1; i <= 15; i++ {
		cmds = append(cmds, cmd("XADD", "s", strconv.Itoa(i)+"-0", "f", strconv.Itoa(i)))
	}
	cmds = append(cmds,
		cmd("XGROUP", "CREATE", "s", "g", "0"), cmd("XGROUP", "CREATE", "s", "h", "0"),
		nocmp("XREADGROUP", "GROUP", "g", "c1", "COUNT", "12", "STREAMS", "s", ">"),
		nocmp("XREADGROUP", "GROUP", "h", "c2", "COUNT", "3", "STREAMS", "s", ">"),
		cmd("XGROUP", "CREATECONSUMER", "s", "h", "c0"),
		shape("XINFO", "STREAM", "s", "FULL"), shape("XINFO", "STREAM", "s", "FULL", "COUNT", "0"),
		shape("XINFO", "STREAM", "s", "FULL", "COUNT", "2"), shape("XINFO", "STREAM", "s", "full", "count", "-1"),
		shape("XINFO", "STREAM", "s"), shape("XINFO", "CONSUMERS", "s", "h"),
		cmd("XINFO", "HELP"), cmd("XGROUP", "HELP"),
	)
	diff(t, cmds)
}

func TestDiffStreamMulti(t *testing.T) {
	diff(t, [][]string{
		cmd("XADD", "s", "1-0", "f", "v"), cmd("XGROUP", "CREATE", "s", "g", "0"),
		cmd("MULTI"), cmd("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"), cmd("XLEN", "s"), cmd("EXEC"),
		cmd("COPY", "s", "s2"), cmd("XRANGE", "s2", "-", "+"), cmd("XINFO", "GROUPS", "s2"), shape("XPENDING", "s2", "g", "-", "+", "5"), cmd("XPENDING", "s2", "g"),
		cmd("RENAME", "s2", "s3"), cmd("TYPE", "s3"), cmd("DEL", "s3"),
		cmd("EVAL", "return redis.call('xread','block','0','streams','s','$')", "0"),
		cmd("EVAL", "return redis.call('XREADGROUP','group','g','c','block','0','streams','s','>')", "0"),
		cmd("EVAL", "return redis.call('xread','streams','s','0')", "0"),
		cmd("EVAL", "return redis.call('xadd','s','MAXLEN','1','LIMIT','1','2-0','f','v')", "0"),
		cmd("EVAL", "return redis.call('xadd','s','MAXLEN','~','1','LIMIT','1','2-0','f','v')", "0"),
		scanAll("SCAN", "0", "TYPE", "stream"),
	})
}

// TestDiffStreamRandom runs random stream traffic (explicit IDs, no
// time-dependent replies) against both servers.
func TestDiffStreamRandom(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			diff(t, randStreamCmds(seed, 1500))
		})
	}
}

func randStreamCmds(seed uint64, n int) [][]string {
	r := rand.New(rand.NewPCG(seed, 7))
	keys := []string{"s1", "s2", "s3"}
	groups := []string{"g1", "g2"}
	consumers := []string{"c1", "c2", "c3"}
	last := map[string]int{}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	id := func(k string) string {
		hi := last[k] + 2
		return strconv.Itoa(r.IntN(hi)) + "-" + strconv.Itoa(r.IntN(3))
	}
	var cmds [][]string
	for i := 0; i < n; i++ {
		k := pick(keys)
		switch x := r.IntN(100); {
		case x < 35:
			a := []string{"XADD", k}
			switch r.IntN(8) {
			case 0:
				a = append(a, "MAXLEN", pick([]string{"~", "=", "~"}), strconv.Itoa(r.IntN(300)))
			case 1:
				a = append(a, "MINID", pick([]string{"~", "="}), id(k))
			case 2:
				a = append(a, "MAXLEN", "~", strconv.Itoa(r.IntN(300)), "LIMIT", strconv.Itoa(r.IntN(250)))
			}
			last[k] += 1 + r.IntN(3)
			switch r.IntN(10) {
			case 0:
				a = append(a, strconv.Itoa(last[k])+"-*")
			case 1:
				a = append(a, id(k)) // usually too small: an error
			default:
				a = append(a, strconv.Itoa(last[k]))
			}
			nf := 1 + r.IntN(3)
			if r.IntN(3) == 0 {
				nf = 1
				a = append(a, "f", strconv.Itoa(r.IntN(1000)))
			} else {
				for j := 0; j < nf; j++ {
					a = append(a, pick([]string{"f", "g", "h", "123", "-7"}), strings.Repeat("v", r.IntN(40)))
				}
			}
			cmds = append(cmds, a)
		case x < 42:
			a := []string{"XDEL", k}
			for j := 0; j <= r.IntN(4); j++ {
				a = append(a, id(k))
			}
			cmds = append(cmds, a)
		case x < 46:
			switch r.IntN(3) {
			case 0:
				cmds = append(cmds, cmd("XTRIM", k, "MAXLEN", pick([]string{"~", "="}), strconv.Itoa(r.IntN(300))))
			case 1:
				cmds = append(cmds, cmd("XTRIM", k, "MINID", pick([]string{"~", "="}), id(k)))
			default:
				cmds = append(cmds, cmd("XTRIM", k, "MINID", "~", id(k), "LIMIT", strconv.Itoa(r.IntN(300))))
			}
		case x < 52:
			lo, hi := id(k), id(k)
			if r.IntN(2) == 0 {
				lo = "(" + lo
			}
			if r.IntN(4) == 0 {
				hi = "+"
			}
			if r.IntN(2) == 0 {
				cmds = append(cmds, cmd("XRANGE", k, lo, hi, "COUNT", strconv.Itoa(r.IntN(5))))
			} else {
				cmds = append(cmds, cmd("XREVRANGE", k, hi, lo, "COUNT", strconv.Itoa(r.IntN(5))))
			}
		case x < 55:
			cmds = append(cmds, cmd("XREAD", "COUNT", strconv.Itoa(r.IntN(4)), "STREAMS", k, pick(keys), id(k), id(k)))
		case x < 60:
			g := pick(groups)
			switch r.IntN(6) {
			case 0, 1:
				cmds = append(cmds, cmd("XGROUP", "CREATE", k, g, pick([]string{"$", "0", id(k)}), "MKSTREAM"))
			case 2:
				cmds = append(cmds, cmd("XGROUP", "SETID", k, g, pick([]string{"$", "0", id(k)})))
			case 3:
				cmds = append(cmds, cmd("XGROUP", "DELCONSUMER", k, g, pick(consumers)))
			case 4:
				cmds = append(cmds, cmd("XGROUP", "CREATECONSUMER", k, g, pick(consumers)))
			default:
				if r.IntN(4) == 0 {
					cmds = append(cmds, cmd("XGROUP", "DESTROY", k, g))
				}
			}
		case x < 72:
			a := []string{"XREADGROUP", "GROUP", pick(groups), pick(consumers)}
			if r.IntN(4) == 0 {
				a = append(a, "NOACK")
			}
			a = append(a, "COUNT", strconv.Itoa(r.IntN(6)), "STREAMS", k)
			if r.IntN(4) == 0 {
				a = append(a, pick([]string{"0", id(k)}))
			} else {
				a = append(a, ">")
			}
			cmds = append(cmds, a)
		case x < 78:
			a := []string{"XACK", k, pick(groups)}
			for j := 0; j <= r.IntN(3); j++ {
				a = append(a, id(k))
			}
			cmds = append(cmds, a)
		case x < 84:
			a := []string{"XCLAIM", k, pick(groups), pick(consumers), pick([]string{"0", "3600000"})}
			for j := 0; j <= r.IntN(3); j++ {
				a = append(a, id(k))
			}
			if r.IntN(2) == 0 {
				a = append(a, "JUSTID")
			}
			if r.IntN(3) == 0 {
				a = append(a, "FORCE")
			}
			if r.IntN(3) == 0 {
				a = append(a, "RETRYCOUNT", strconv.Itoa(r.IntN(5)))
			}
			cmds = append(cmds, a)
		case x < 88:
			a := []string{"XAUTOCLAIM", k, pick(groups), pick(consumers), pick([]string{"0", "3600000"}), pick([]string{"0", id(k), "(" + id(k)}), "COUNT", strconv.Itoa(1 + r.IntN(4))}
			if r.IntN(2) == 0 {
				a = append(a, "JUSTID")
			}
			cmds = append(cmds, a)
		case x < 92:
			cmds = append(cmds, cmd("XPENDING", k, pick(groups)))
		case x < 95:
			cmds = append(cmds, cmd("XINFO", "GROUPS", k))
		case x < 98:
			cmds = append(cmds, cmd("XINFO", "STREAM", k))
		case x < 99:
			cmds = append(cmds, cmd("XLEN", k))
		default:
			if r.IntN(3) == 0 {
				cmds = append(cmds, cmd("DEL", k))
				last[k] = 0
			} else {
				cmds = append(cmds, cmd("XSETID", k, strconv.Itoa(last[k]+r.IntN(3))+"-5"))
			}
		}
	}
	return cmds
}

// TestDiffStreamCommandInfo compares name, arity, flags, key positions and
// ACL categories with Redis's COMMAND INFO (subcommands included).
func TestDiffStreamCommandInfo(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	for _, name := range []string{"xadd", "xrange", "xrevrange", "xlen", "xdel", "xtrim", "xsetid", "xread", "xreadgroup",
		"xack", "xpending", "xclaim", "xautoclaim", "xgroup", "xgroup|create", "xgroup|setid", "xgroup|destroy",
		"xgroup|createconsumer", "xgroup|delconsumer", "xgroup|help", "xinfo", "xinfo|stream", "xinfo|groups", "xinfo|consumers", "xinfo|help"} {
		inner := func(raw string) []string {
			_, outer, ok := splitRaw(raw)
			if !ok || len(outer) != 1 {
				t.Fatalf("%s: COMMAND INFO %q", name, raw)
			}
			_, elems, ok := splitRaw(outer[0])
			if !ok || len(elems) < 7 {
				t.Fatalf("%s: COMMAND INFO %q", name, raw)
			}
			return elems[:7]
		}
		got, want := inner(oc.do("COMMAND", "INFO", name)), inner(rc.do("COMMAND", "INFO", name))
		if strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("%s: ours %q, redis %q", name, got, want)
		}
	}
}

// TestDiffStreamNotifications: keyspace events of the stream commands.
func TestDiffStreamNotifications(t *testing.T) {
	for _, classes := range []string{"KEA", "KEm"} {
		t.Run(classes, func(t *testing.T) { notifyDiff(t, classes, streamNotifyCmds()) })
	}
}

func streamNotifyCmds() [][]string {
	return [][]string{
		cmd("XADD", "s", "1-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "1", "2-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "5", "3-1", "f", "v"),
		cmd("XADD", "s", "1-1", "f", "v"), cmd("XDEL", "s", "3-1"), cmd("XDEL", "s", "9-9"), cmd("XTRIM", "s", "MAXLEN", "0"),
		cmd("XTRIM", "s", "MAXLEN", "0"), cmd("XSETID", "s", "10-0"),
		cmd("XGROUP", "CREATE", "s", "g", "0"), cmd("XGROUP", "CREATE", "m", "g", "$", "MKSTREAM"), cmd("XGROUP", "SETID", "s", "g", "0"),
		cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"), cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"),
		cmd("XADD", "s", "11-0", "f", "v"), cmd("XREADGROUP", "GROUP", "g", "d", "STREAMS", "s", ">"),
		cmd("XCLAIM", "s", "g", "e", "0", "11-0"), cmd("XAUTOCLAIM", "s", "g", "f", "0", "0"), cmd("XACK", "s", "g", "11-0"),
		cmd("XGROUP", "DELCONSUMER", "s", "g", "c"), cmd("XGROUP", "DELCONSUMER", "s", "g", "zz"),
		cmd("XGROUP", "DESTROY", "s", "g"), cmd("XGROUP", "DESTROY", "s", "g"), cmd("XRANGE", "nokey", "-", "+"),
		cmd("XREAD", "STREAMS", "nokey", "0"), cmd("XINFO", "STREAM", "nokey"), cmd("XLEN", "nokey"), cmd("XPENDING", "nokey", "g"),
		cmd("XACK", "nokey", "g", "1-1"), cmd("XCLAIM", "nokey", "g", "c", "0", "1-1"), cmd("DEL", "s"),
	}
}

// TestDiffStreamInfoMasked compares XINFO STREAM FULL and XINFO CONSUMERS
// byte for byte with the times (unix ms, idle ms) masked.
func TestDiffStreamInfoMasked(t *testing.T) {
	p := newDiffPair(t)
	p.run(randStreamCmds(5, 800))
	p.run([][]string{
		cmd("XADD", "s1", "99999-1", "f", "v"), cmd("XGROUP", "CREATE", "s1", "gx", "0"),
		cmd("XREADGROUP", "GROUP", "gx", "a", "COUNT", "3", "STREAMS", "s1", ">"), cmd("XGROUP", "CREATECONSUMER", "s1", "gx", "b"),
	})
	times := regexp.MustCompile(`:1[0-9]{12}\r\n`)
	idle := regexp.MustCompile(`idle\r\n:[0-9]+\r\n`)
	mask := func(r string) string {
		return idle.ReplaceAllString(times.ReplaceAllString(r, ":T\r\n"), "idle\r\n:I\r\n")
	}
	oc, rc := p.conn(0)
	for _, k := range []string{"s1", "s2", "s3"} {
		for _, a := range [][]string{
			{"XINFO", "STREAM", k, "FULL"}, {"XINFO", "STREAM", k, "FULL", "COUNT", "0"}, {"XINFO", "STREAM", k},
			{"XINFO", "CONSUMERS", k, "g1"}, {"XINFO", "CONSUMERS", k, "g2"}, {"XINFO", "CONSUMERS", k, "gx"},
		} {
			if got, want := mask(oc.do(a...)), mask(rc.do(a...)); got != want {
				t.Errorf("%q:\n ours:  %q\n redis: %q", a, got, want)
			}
		}
	}
}
