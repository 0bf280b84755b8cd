package server

import (
	"testing"
)

// SMOVE's events and WATCH on its destination, and INCR's effect on the
// object (shared integers 0..9999, in-place updates), against Redis 7.0.15.

func TestDiffNotifySmove(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("SADD", "src", "a", "b", "c"), cmd("SADD", "dst", "a"),
		cmd("SMOVE", "src", "dst", "a"),    // already in dst: srem only
		cmd("SMOVE", "src", "dst", "b"),    // srem + sadd
		cmd("SMOVE", "src", "dst", "nope"), // nothing
		cmd("SMOVE", "src", "new", "c"),    // srem, del src, sadd on a new key
		cmd("SMOVE", "dst", "dst", "a"), cmd("SMOVE", "dst", "dst", "zz"),
		cmd("SADD", "i1", "1", "2"), cmd("SADD", "i2", "2"),
		cmd("SMOVE", "i1", "i2", "2"), cmd("SMOVE", "i1", "i2", "1"),
		cmd("SET", "str", "x"), cmd("SMOVE", "dst", "str", "a"), cmd("SMOVE", "str", "dst", "a"),
	})
}

// A destination that already holds the member is not modified: a WATCH
// on it survives (signalModifiedKey only when added).
func TestDiffSmoveWatch(t *testing.T) {
	diff(t, [][]string{
		cmd("SADD", "src", "a", "b"), cmd("SADD", "dst", "a"),
		conn2("WATCH", "dst"), conn2("MULTI"), conn2("SCARD", "dst"),
		cmd("SMOVE", "src", "dst", "a"),
		conn2("EXEC"),
		conn2("WATCH", "dst"), conn2("MULTI"), conn2("SCARD", "dst"),
		cmd("SMOVE", "src", "dst", "b"),
		conn2("EXEC"),
		conn2("WATCH", "src"), conn2("MULTI"), conn2("SCARD", "src"),
		cmd("SMOVE", "dst", "src", "nope"),
		conn2("EXEC"),
	})
}

func TestDiffIncrObject(t *testing.T) {
	obj := func(k string) [][]string {
		return [][]string{cmd("OBJECT", "ENCODING", k), cmd("OBJECT", "REFCOUNT", k)}
	}
	var cmds [][]string
	add := func(c ...[]string) { cmds = append(cmds, c...) }
	// inside the shared range, at its edges, outside, negative, from a
	// raw or embstr string, past the range by INCR and back by DECR
	add(cmd("SET", "a", "1"))
	add(obj("a")...)
	add(cmd("INCR", "a"))
	add(obj("a")...)
	add(cmd("SET", "b", "9998"), cmd("INCR", "b"))
	add(obj("b")...)
	add(cmd("INCR", "b"))
	add(obj("b")...)
	add(cmd("INCR", "b"))
	add(obj("b")...)
	add(cmd("DECRBY", "b", "2"))
	add(obj("b")...)
	add(cmd("SET", "c", "123456"))
	add(obj("c")...)
	add(cmd("INCR", "c"))
	add(obj("c")...)
	add(cmd("INCRBY", "c", "-1000000"))
	add(obj("c")...)
	add(cmd("INCR", "new"))
	add(obj("new")...)
	add(cmd("SET", "raw", "5"), cmd("APPEND", "raw", "0"))
	add(obj("raw")...)
	add(cmd("INCR", "raw"))
	add(obj("raw")...)
	add(cmd("SET", "big", "99999999999"), cmd("INCR", "big"))
	add(obj("big")...)
	add(cmd("SET", "ttl", "100", "EX", "1000"), cmd("INCR", "ttl"), cmd("TTL", "ttl"))
	add(obj("ttl")...)
	add(cmd("SET", "ttl2", "20000", "EX", "1000"), cmd("INCR", "ttl2"), cmd("TTL", "ttl2"))
	add(obj("ttl2")...)
	add(cmd("SET", "s", "1"), cmd("INCRBYFLOAT", "s", "1"))
	add(obj("s")...)
	add(cmd("INCR", "s"))
	add(obj("s")...)
	add(cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"), cmd("SET", "lru", "5"), cmd("INCR", "lru"))
	add(obj("lru")...)
	add(cmd("INCR", "lru"), cmd("CONFIG", "SET", "maxmemory-policy", "noeviction"))
	add(obj("lru")...)
	diff(t, cmds)
}
