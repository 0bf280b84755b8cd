package server

import (
	"strings"
	"testing"
)

// String commands against real Redis: every SET/GETEX option and their
// errors, counters at their limits, float formatting, range edge cases.
// Expiries are long so that timing cannot change a reply.

func TestDiffStringsSet(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "k", "v"), cmd("GET", "k"),
		cmd("SET", "k", "v2", "NX"), cmd("SET", "k", "v2", "XX"), cmd("GET", "k"),
		cmd("SET", "nk", "v", "XX"), cmd("SET", "nk", "v", "NX"), cmd("GET", "nk"),
		cmd("SET", "k", "v3", "GET"), cmd("SET", "missing", "v", "GET"),
		cmd("SET", "k", "v4", "NX", "GET"), cmd("SET", "k", "v5", "XX", "GET"),
		cmd("SET", "k", "v", "NX", "XX"), cmd("SET", "k", "v", "XX", "NX"),
		cmd("SET", "k", "v", "EX", "100000"), cmd("TTL", "k"),
		cmd("SET", "k", "v", "PX", "100000000"), cmd("TTL", "k"),
		cmd("SET", "k", "v", "EXAT", "4102444800"), cmd("EXPIRETIME", "k"),
		cmd("SET", "k", "v", "PXAT", "4102444800123"), cmd("PEXPIRETIME", "k"),
		cmd("SET", "k", "v", "KEEPTTL"), cmd("PEXPIRETIME", "k"),
		cmd("SET", "k", "v"), cmd("TTL", "k"),
		cmd("SET", "k", "v", "EX", "100", "PX", "100"), cmd("SET", "k", "v", "EX", "100", "KEEPTTL"),
		cmd("SET", "k", "v", "KEEPTTL", "EX", "100"), cmd("SET", "k", "v", "EX"),
		cmd("SET", "k", "v", "EX", "0"), cmd("SET", "k", "v", "EX", "-1"), cmd("SET", "k", "v", "PX", "0"),
		cmd("SET", "k", "v", "EX", "abc"), cmd("SET", "k", "v", "EX", "1.5"),
		cmd("SET", "k", "v", "EX", "9223372036854775807"), cmd("SET", "k", "v", "PX", "9223372036854775807"),
		cmd("SET", "k", "v", "EXAT", "0"), cmd("SET", "k", "v", "PXAT", "-5"),
		cmd("SET", "k", "v", "ex", "100000", "nx"), cmd("SET", "k", "v", "Get", "xx"),
		cmd("SET", "k", "v", "PERSIST"), cmd("SET", "k", "v", "FOO"), cmd("SET", "k"), cmd("SET"),
		cmd("SET", "k", "v", "GET", "GET"), cmd("SET", "k", "v", "NX", "NX"),
		cmd("RPUSH", "list", "a"), cmd("SET", "list", "x", "GET"), cmd("SET", "list", "x", "NX", "GET"),
		cmd("SET", "list", "x"), cmd("TYPE", "list"),
		cmd("SETNX", "k", "z"), cmd("SETNX", "k2", "z"), cmd("SETNX", "k2"),
		cmd("SETEX", "k3", "100000", "v"), cmd("TTL", "k3"), cmd("SETEX", "k3", "0", "v"), cmd("SETEX", "k3", "-10", "v"),
		cmd("SETEX", "k3", "x", "v"), cmd("PSETEX", "k4", "100000000", "v"), cmd("TTL", "k4"), cmd("PSETEX", "k4", "0", "v"),
		cmd("GETSET", "k", "new"), cmd("GETSET", "nope", "new"), cmd("GET", "nope"),
		cmd("SET", "list2", "x"), cmd("DEL", "list2"), cmd("RPUSH", "list2", "a"), cmd("GETSET", "list2", "x"),
		cmd("SET", "", ""), cmd("GET", ""), cmd("STRLEN", ""),
		cmd("SET", "bin", "a\x00b\r\nc"), cmd("GET", "bin"), cmd("STRLEN", "bin"),
	})
}

func TestDiffStringsGetex(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "k", "v"),
		cmd("GETEX", "k"), cmd("TTL", "k"),
		cmd("GETEX", "k", "EX", "100000"), cmd("TTL", "k"),
		cmd("GETEX", "k", "PX", "200000000"), cmd("TTL", "k"),
		cmd("GETEX", "k", "EXAT", "4102444800"), cmd("EXPIRETIME", "k"),
		cmd("GETEX", "k", "PXAT", "4102444800999"), cmd("PEXPIRETIME", "k"),
		cmd("GETEX", "k", "PERSIST"), cmd("TTL", "k"),
		cmd("GETEX", "k", "EX", "100", "PX", "100"), cmd("GETEX", "k", "PERSIST", "EX", "100"),
		cmd("GETEX", "k", "EX", "100", "PERSIST"), cmd("GETEX", "k", "EX"), cmd("GETEX", "k", "KEEPTTL"),
		cmd("GETEX", "k", "NX"), cmd("GETEX", "k", "GET"), cmd("GETEX", "k", "EX", "0"),
		cmd("GETEX", "k", "EX", "-1"), cmd("GETEX", "k", "EX", "x"), cmd("GETEX", "k", "foo"),
		cmd("GETEX", "k", "EX", "9223372036854775807"),
		cmd("GETEX", "missing"), cmd("GETEX", "missing", "EX", "100"), cmd("GETEX", "missing", "EX", "0"),
		cmd("GETEX", "missing", "foo"),
		cmd("HSET", "h", "f", "v"), cmd("GETEX", "h"), cmd("GETEX", "h", "EX", "100"), cmd("GETEX", "h", "bad"),
		cmd("GETEX"),
		cmd("GETDEL", "k"), cmd("GETDEL", "k"), cmd("GETDEL", "h"), cmd("EXISTS", "h"), cmd("GETDEL"),
	})
}

func TestDiffStringsCounters(t *testing.T) {
	diff(t, [][]string{
		cmd("INCR", "c"), cmd("INCR", "c"), cmd("DECR", "c"), cmd("DECR", "d"),
		cmd("INCRBY", "c", "100"), cmd("INCRBY", "c", "-1000"), cmd("DECRBY", "c", "5"), cmd("DECRBY", "c", "-5"),
		cmd("INCRBY", "c", "x"), cmd("INCRBY", "c", "1.5"), cmd("INCRBY", "c", ""), cmd("INCRBY", "c", " 1"),
		cmd("INCRBY", "c", "+1"), cmd("INCRBY", "c", "01"), cmd("INCRBY", "c", "-0"),
		cmd("SET", "max", "9223372036854775807"), cmd("INCR", "max"), cmd("INCRBY", "max", "1"), cmd("INCRBY", "max", "0"),
		// Beyond uint64: must not wrap around to a small number.
		cmd("SET", "huge", "18446744073709551616"), cmd("INCR", "huge"), cmd("OBJECT", "ENCODING", "huge"),
		cmd("SET", "huge", "18446744073709551615"), cmd("INCR", "huge"), cmd("SET", "huge", "99999999999999999999"), cmd("DECR", "huge"),
		cmd("DECRBY", "max", "-1"), cmd("GET", "max"),
		cmd("SET", "min", "-9223372036854775808"), cmd("DECR", "min"), cmd("DECRBY", "min", "1"), cmd("INCRBY", "min", "-1"),
		cmd("DECRBY", "min", "-9223372036854775808"), cmd("SET", "z", "0"), cmd("DECRBY", "z", "-9223372036854775808"),
		cmd("INCRBY", "z", "9223372036854775808"), cmd("INCRBY", "z", "-9223372036854775809"),
		cmd("SET", "s", "abc"), cmd("INCR", "s"), cmd("SET", "s", "1 "), cmd("INCR", "s"), cmd("SET", "s", " 1"), cmd("INCR", "s"),
		cmd("SET", "s", "010"), cmd("INCR", "s"), cmd("SET", "s", "1e3"), cmd("INCR", "s"),
		cmd("SET", "s", "99999999999999999999"), cmd("INCR", "s"), cmd("SET", "s", ""), cmd("INCR", "s"),
		cmd("RPUSH", "l", "a"), cmd("INCR", "l"), cmd("INCRBYFLOAT", "l", "1"), cmd("DECR", "l"),
		cmd("APPEND", "ap", "12"), cmd("INCR", "ap"), cmd("GET", "ap"), cmd("OBJECT", "ENCODING", "ap"),
		cmd("INCR"), cmd("INCRBY", "c"), cmd("DECRBY", "c", "1", "2"),
	})
}

func TestDiffStringsIncrbyfloat(t *testing.T) {
	diff(t, [][]string{
		cmd("INCRBYFLOAT", "f", "1.5"), cmd("INCRBYFLOAT", "f", "0.1"), cmd("INCRBYFLOAT", "f", "-1.6"),
		cmd("GET", "f"),
		cmd("INCRBYFLOAT", "f", "1e3"), cmd("INCRBYFLOAT", "f", "1.0e-2"), cmd("INCRBYFLOAT", "f", "-0"),
		cmd("INCRBYFLOAT", "f", "5.0e3"), cmd("INCRBYFLOAT", "f", "3.0e-10"),
		cmd("INCRBYFLOAT", "g", "10"), cmd("INCRBYFLOAT", "g", "0.00000000000000001"),
		cmd("INCRBYFLOAT", "h", "1e200"), cmd("INCRBYFLOAT", "h", "1e200"),
		cmd("INCRBYFLOAT", "big", "1.7e308"), cmd("INCRBYFLOAT", "big", "1.7e308"), cmd("GET", "big"),
		cmd("INCRBYFLOAT", "i", "inf"), cmd("INCRBYFLOAT", "i", "-inf"), cmd("INCRBYFLOAT", "i", "nan"),
		cmd("INCRBYFLOAT", "i", "abc"), cmd("INCRBYFLOAT", "i", ""), cmd("INCRBYFLOAT", "i", " 1"),
		cmd("INCRBYFLOAT", "i", "1 "), cmd("INCRBYFLOAT", "i", "0x10"), cmd("INCRBYFLOAT", "i", "1_0"),
		cmd("SET", "s", "abc"), cmd("INCRBYFLOAT", "s", "1"),
		cmd("SET", "s", "3"), cmd("INCRBYFLOAT", "s", "0.5"), cmd("INCRBYFLOAT", "s", "0.5"), cmd("OBJECT", "ENCODING", "s"),
		cmd("SET", "s", "1.5e3"), cmd("INCRBYFLOAT", "s", "0"),
		cmd("SET", "s", " 1"), cmd("INCRBYFLOAT", "s", "1"),
		cmd("SET", "s", "0.1"), cmd("INCRBYFLOAT", "s", "0.2"),
		cmd("SET", "s", "-0.0"), cmd("INCRBYFLOAT", "s", "0"),
		cmd("SET", "s", "10.50"), cmd("INCRBYFLOAT", "s", "0.1"),
		cmd("SET", "s", "5"), cmd("INCRBYFLOAT", "s", "-5"), cmd("GET", "s"),
		cmd("INCRBYFLOAT", "s", "123456789012345678901234567890"),
		cmd("INCRBYFLOAT", "t", "3.14159265358979323846"),
		cmd("INCRBYFLOAT", "u", "-1e-300"), cmd("INCRBYFLOAT", "u", "1e-320"),
		cmd("INCRBYFLOAT", "s"),
	})
}

func TestDiffStringsRanges(t *testing.T) {
	diff(t, [][]string{
		cmd("APPEND", "a", "hello"), cmd("APPEND", "a", " world"), cmd("GET", "a"), cmd("APPEND", "a", ""),
		cmd("OBJECT", "ENCODING", "a"), cmd("STRLEN", "a"), cmd("STRLEN", "missing"),
		cmd("SET", "n", "12"), cmd("APPEND", "n", "34"), cmd("GET", "n"), cmd("OBJECT", "ENCODING", "n"),
		cmd("APPEND", "e", ""), cmd("EXISTS", "e"), cmd("GET", "e"),
		cmd("GETRANGE", "a", "0", "4"), cmd("GETRANGE", "a", "-5", "-1"), cmd("GETRANGE", "a", "6", "100"),
		cmd("GETRANGE", "a", "5", "2"), cmd("GETRANGE", "a", "-100", "2"), cmd("GETRANGE", "a", "0", "-100"),
		cmd("GETRANGE", "a", "100", "200"), cmd("GETRANGE", "a", "-1", "-2"), cmd("GETRANGE", "a", "0", "0"),
		cmd("GETRANGE", "a", "x", "1"), cmd("GETRANGE", "a", "0", "9223372036854775807"),
		cmd("GETRANGE", "a", "-9223372036854775808", "-1"),
		cmd("GETRANGE", "missing", "0", "-1"), cmd("GETRANGE", "e", "0", "-1"), cmd("GETRANGE", "e", "-1", "-1"),
		cmd("SUBSTR", "a", "0", "2"), cmd("SET", "i", "12345"), cmd("GETRANGE", "i", "1", "2"),
		cmd("SETRANGE", "a", "6", "WORLD"), cmd("GET", "a"), cmd("SETRANGE", "a", "20", "!"), cmd("GET", "a"),
		cmd("SETRANGE", "a", "0", ""), cmd("SETRANGE", "missing", "0", ""), cmd("EXISTS", "missing"),
		cmd("SETRANGE", "missing", "3", ""), cmd("EXISTS", "missing"),
		cmd("SETRANGE", "new", "2", "xy"), cmd("GET", "new"),
		cmd("SETRANGE", "a", "-1", "x"), cmd("SETRANGE", "a", "x", "x"), cmd("SETRANGE", "a", "536870912", "x"),
		cmd("SETRANGE", "a", "536870911", ""), cmd("SETRANGE", "a", "9223372036854775807", "x"),
		cmd("SETRANGE", "i", "0", "9"), cmd("GET", "i"), cmd("OBJECT", "ENCODING", "i"),
		cmd("RPUSH", "l", "x"), cmd("APPEND", "l", "x"), cmd("GETRANGE", "l", "0", "1"), cmd("SETRANGE", "l", "0", "x"),
		cmd("STRLEN", "l"), cmd("SETRANGE", "l", "0", ""),
		cmd("APPEND", "big", strings.Repeat("b", 60)), cmd("OBJECT", "ENCODING", "big"),
		cmd("SET", "emb", strings.Repeat("e", 44)), cmd("OBJECT", "ENCODING", "emb"),
		cmd("SET", "raw", strings.Repeat("e", 45)), cmd("OBJECT", "ENCODING", "raw"),
		cmd("SET", "int", "-9223372036854775808"), cmd("OBJECT", "ENCODING", "int"),
		cmd("SET", "notint", "9223372036854775808"), cmd("OBJECT", "ENCODING", "notint"),
		cmd("SET", "lead0", "0123"), cmd("OBJECT", "ENCODING", "lead0"),
	})
}

func TestDiffStringsMulti(t *testing.T) {
	diff(t, [][]string{
		cmd("MSET", "a", "1", "b", "2", "c", "3"), cmd("MGET", "a", "b", "c", "d"),
		cmd("MSET", "a"), cmd("MSET", "a", "1", "b"), cmd("MSET"),
		cmd("MSET", "a", "x", "a", "y"), cmd("GET", "a"),
		cmd("MSETNX", "a", "1", "z", "2"), cmd("EXISTS", "z"),
		cmd("MSETNX", "y", "1", "z", "2"), cmd("MGET", "y", "z"),
		cmd("MSETNX", "q", "1", "q", "2"), cmd("GET", "q"),
		cmd("MSETNX", "a"), cmd("MSETNX", "a", "1", "b"),
		cmd("RPUSH", "l", "x"), cmd("MGET", "a", "l", "b"), cmd("MSETNX", "l", "1", "w", "2"), cmd("EXISTS", "w"),
		cmd("MSET", "l", "now-string"), cmd("TYPE", "l"),
		cmd("SET", "t", "v", "EX", "100000"), cmd("MSET", "t", "v2"), cmd("TTL", "t"),
		cmd("MGET"),
	})
}

func TestDiffStringsWrongType(t *testing.T) {
	cmds := [][]string{cmd("RPUSH", "l", "a"), cmd("SADD", "s", "a"), cmd("HSET", "h", "f", "v"), cmd("ZADD", "z", "1", "a")}
	for _, k := range []string{"l", "s", "h", "z"} {
		cmds = append(cmds,
			cmd("GET", k), cmd("GETSET", k, "x"), cmd("GETDEL", k), cmd("APPEND", k, "x"), cmd("STRLEN", k),
			cmd("SETRANGE", k, "0", "x"), cmd("GETRANGE", k, "0", "1"), cmd("INCR", k), cmd("DECRBY", k, "2"),
			cmd("INCRBYFLOAT", k, "1"), cmd("SETNX", k, "x"), cmd("SET", k, "x", "NX"), cmd("TYPE", k))
	}
	diff(t, cmds)
}
