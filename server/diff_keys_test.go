package server

import (
	"strconv"
	"strings"
	"testing"
)

// Keyspace commands against real Redis. TTLs are long (or already in the
// past) so that timing cannot change a reply.

func TestDiffKeysBasic(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "a", "1"), cmd("SET", "b", "2"), cmd("RPUSH", "l", "x"), cmd("SADD", "s", "m"),
		cmd("HSET", "h", "f", "v"), cmd("ZADD", "z", "1", "m"),
		cmd("EXISTS", "a"), cmd("EXISTS", "a", "a", "b", "nope"), cmd("EXISTS", "nope"), cmd("EXISTS"),
		cmd("TYPE", "a"), cmd("TYPE", "l"), cmd("TYPE", "s"), cmd("TYPE", "h"), cmd("TYPE", "z"), cmd("TYPE", "nope"),
		cmd("TYPE"), cmd("TYPE", "a", "b"),
		cmd("DEL", "a", "a", "nope"), cmd("DEL", "nope"), cmd("DEL"), cmd("UNLINK", "b", "l"), cmd("UNLINK"),
		cmd("TOUCH", "s", "h", "nope"), cmd("TOUCH"),
		cmd("DBSIZE"), cmd("DBSIZE", "x"),
		sorted("KEYS", "*"), sorted("KEYS", "?"), sorted("KEYS", "[hz]"), sorted("KEYS", "nomatch*"), cmd("KEYS"),
		cmd("RANDOMKEY", "x"),
		cmd("FLUSHDB"), cmd("RANDOMKEY"), cmd("SET", "only", "1"), cmd("RANDOMKEY"), cmd("RANDOMKEY"),
		cmd("FLUSHDB", "ASYNC"), cmd("FLUSHDB", "SYNC"), cmd("FLUSHDB", "x"), cmd("FLUSHDB", "SYNC", "ASYNC"),
		cmd("FLUSHALL", "x"), cmd("DBSIZE"),
		cmd("SET", "k", "v"), cmd("SELECT", "1"), cmd("SET", "k", "v1"), cmd("FLUSHALL"), cmd("DBSIZE"), cmd("SELECT", "0"), cmd("DBSIZE"),
	})
}

func TestDiffKeysRenameMoveCopy(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "a", "1"), cmd("SET", "b", "2"), cmd("EXPIRE", "a", "100000"),
		cmd("RENAME", "a", "c"), cmd("TTL", "c"), cmd("EXISTS", "a"), cmd("RENAME", "nope", "x"),
		cmd("RENAME", "c", "c"), cmd("RENAME", "nope", "nope"), cmd("RENAME", "c", "b"), cmd("GET", "b"), cmd("TTL", "b"),
		cmd("SET", "d", "4"), cmd("RENAMENX", "d", "b"), cmd("RENAMENX", "d", "e"), cmd("RENAMENX", "e", "e"),
		cmd("RENAMENX", "nope", "x"), cmd("RENAME", "e"),
		cmd("RPUSH", "l", "1", "2"), cmd("RENAME", "l", "b"), cmd("TYPE", "b"), cmd("LRANGE", "b", "0", "-1"),
		cmd("MOVE", "b", "1"), cmd("MOVE", "b", "1"), cmd("SELECT", "1"), cmd("TYPE", "b"), cmd("TTL", "b"), cmd("SELECT", "0"),
		cmd("SET", "m", "x"), cmd("SELECT", "1"), cmd("SET", "m", "y"), cmd("SELECT", "0"),
		cmd("MOVE", "m", "1"), cmd("GET", "m"), cmd("MOVE", "m", "0"), cmd("MOVE", "m", "16"), cmd("MOVE", "m", "-1"),
		cmd("MOVE", "m", "x"), cmd("MOVE", "nope", "1"), cmd("MOVE", "m"),
		cmd("SET", "src", "v", "EX", "100000"), cmd("COPY", "src", "dst"), cmd("GET", "dst"), cmd("TTL", "dst"),
		cmd("COPY", "src", "dst"), cmd("COPY", "src", "dst", "REPLACE"), cmd("COPY", "src", "src"),
		cmd("COPY", "nope", "dst"), cmd("COPY", "src", "dst", "DB", "2"), cmd("COPY", "src", "dst", "DB", "2"),
		cmd("COPY", "src", "dst", "DB", "2", "REPLACE"), cmd("COPY", "src", "dst", "DB", "16"), cmd("COPY", "src", "dst", "DB", "x"),
		cmd("COPY", "src", "dst", "DB"), cmd("COPY", "src", "dst", "FOO"), cmd("COPY", "src", "src", "DB", "0"),
		cmd("HSET", "h", "a", "1", "b", "2"), cmd("COPY", "h", "h2"), cmd("HSET", "h2", "c", "3"), cmd("HLEN", "h"), cmd("HLEN", "h2"),
		cmd("SELECT", "2"), cmd("TTL", "dst"), cmd("SELECT", "0"),
		cmd("SWAPDB", "0", "2"), cmd("GET", "dst"), cmd("DBSIZE"), cmd("SWAPDB", "0", "0"), cmd("SWAPDB", "0", "16"),
		cmd("SWAPDB", "0", "-1"), cmd("SWAPDB", "x", "0"), cmd("SWAPDB", "0"), cmd("SWAPDB", "2", "0"), cmd("DBSIZE"),
	})
}

func TestDiffKeysExpire(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "k", "v"), cmd("TTL", "k"), cmd("PTTL", "k"), cmd("EXPIRETIME", "k"), cmd("PEXPIRETIME", "k"),
		cmd("TTL", "nope"), cmd("PTTL", "nope"), cmd("EXPIRETIME", "nope"), cmd("PEXPIRETIME", "nope"),
		cmd("EXPIRE", "k", "100000"), cmd("TTL", "k"), cmd("PERSIST", "k"), cmd("PERSIST", "k"), cmd("TTL", "k"),
		cmd("PERSIST", "nope"), cmd("EXPIRE", "nope", "100"),
		cmd("EXPIREAT", "k", "4102444800"), cmd("EXPIRETIME", "k"), cmd("PEXPIREAT", "k", "4102444800555"), cmd("PEXPIRETIME", "k"),
		cmd("PEXPIRE", "k", "100000000"), cmd("TTL", "k"),
		// NX XX GT LT
		cmd("PERSIST", "k"),
		cmd("EXPIRE", "k", "100000", "XX"), cmd("EXPIRE", "k", "100000", "GT"), cmd("EXPIRE", "k", "100000", "LT"),
		cmd("TTL", "k"), cmd("EXPIRE", "k", "100000", "NX"), cmd("EXPIRE", "k", "200000", "NX"), cmd("TTL", "k"),
		cmd("EXPIRE", "k", "200000", "XX"), cmd("TTL", "k"), cmd("EXPIRE", "k", "100000", "GT"), cmd("TTL", "k"),
		cmd("EXPIRE", "k", "300000", "GT"), cmd("TTL", "k"), cmd("EXPIRE", "k", "400000", "LT"), cmd("TTL", "k"),
		cmd("EXPIRE", "k", "100000", "LT"), cmd("TTL", "k"),
		cmd("EXPIRE", "k", "100", "NX", "XX"), cmd("EXPIRE", "k", "100", "GT", "LT"), cmd("EXPIRE", "k", "100", "NX", "GT"),
		cmd("EXPIRE", "k", "100", "NX", "LT"), cmd("EXPIRE", "k", "100", "XX", "GT"), cmd("EXPIRE", "k", "100", "FOO"),
		cmd("EXPIRE", "k", "100", "xx", "lt"), cmd("TTL", "k"), pause(3), cmd("EXPIRE", "k", "100", "gt", "gt"),
		cmd("PEXPIRE", "k", "5000000", "GT"), cmd("PEXPIREAT", "k", "4102444800000", "LT"), cmd("EXPIREAT", "k", "4102444800", "NX"),
		cmd("EXPIRE", "k", "x"), cmd("EXPIRE", "k", "1.5"), cmd("EXPIRE", "k", ""), cmd("EXPIRE", "k"),
		cmd("EXPIRE", "k", "9223372036854775807"), cmd("EXPIRE", "k", "9223372036854775"), cmd("PEXPIRE", "k", "9223372036854775807"),
		cmd("EXPIRE", "k", "-9223372036854775808"), cmd("EXPIREAT", "k", "9223372036854775807"),
		cmd("PEXPIREAT", "k", "9223372036854775807"), cmd("TTL", "k"),
		cmd("SET", "p", "v"), cmd("EXPIRE", "p", "100", "GT"), cmd("TTL", "p"), cmd("EXPIRE", "p", "100", "LT"), cmd("TTL", "p"),
		cmd("PERSIST", "p"), cmd("EXPIRE", "p", "-1", "LT"), cmd("EXISTS", "p"),
		// past expiry deletes
		cmd("SET", "gone", "v"), cmd("EXPIRE", "gone", "0"), cmd("EXISTS", "gone"),
		cmd("SET", "gone", "v"), cmd("EXPIRE", "gone", "-10"), cmd("EXISTS", "gone"),
		cmd("SET", "gone", "v"), cmd("PEXPIREAT", "gone", "1"), cmd("EXISTS", "gone"),
		cmd("SET", "gone", "v"), cmd("EXPIREAT", "gone", "100"), cmd("GET", "gone"),
		cmd("SET", "gone", "v"), cmd("EXPIRE", "gone", "0", "NX"), cmd("EXISTS", "gone"),
		cmd("SET", "gone", "v", "EX", "100000"), cmd("EXPIRE", "gone", "0", "XX"), cmd("EXISTS", "gone"),
		cmd("SET", "gone", "v", "EX", "100000"), cmd("EXPIRE", "gone", "0", "GT"), cmd("EXISTS", "gone"),
		cmd("SET", "ttl", "v", "EX", "100000"), cmd("SET", "ttl", "v2"), cmd("TTL", "ttl"),
		cmd("SET", "ttl", "v", "EX", "100000"), cmd("APPEND", "ttl", "x"), cmd("TTL", "ttl"),
		cmd("INCR", "ttl2"), cmd("EXPIRE", "ttl2", "100000"), cmd("INCR", "ttl2"), cmd("TTL", "ttl2"),
		cmd("RPUSH", "lt", "a"), cmd("EXPIRE", "lt", "100000"), cmd("RPUSH", "lt", "b"), cmd("TTL", "lt"),
		cmd("TTL"), cmd("PERSIST"), cmd("EXPIRETIME", "a", "b"),
	})
}

func TestDiffKeysObjectEncoding(t *testing.T) {
	cmds := [][]string{
		cmd("SET", "int", "123"), cmd("SET", "negint", "-123"), cmd("SET", "emb", "hello"),
		cmd("SET", "raw", strings.Repeat("r", 45)), cmd("SET", "e44", strings.Repeat("r", 44)),
		cmd("SET", "bigint", "12345678901234567890"), cmd("SET", "sp", " 1"), cmd("SET", "empty", ""),
		cmd("APPEND", "app", "1"),
		cmd("RPUSH", "l", "a"), cmd("RPUSH", "lbig", strings.Repeat("x", 10000)),
		cmd("SADD", "si", "1", "2"), cmd("SADD", "ss", "a"), cmd("SADD", "smix", "1", "a"),
		cmd("HSET", "hs", "f", "v"), cmd("HSET", "hl", "f", strings.Repeat("v", 65)), cmd("HSET", "hl2", strings.Repeat("f", 65), "v"),
		cmd("ZADD", "zs", "1", "a"), cmd("ZADD", "zl", "1", strings.Repeat("m", 65)),
	}
	for i := 0; i < 513; i++ {
		n := strconv.Itoa(i)
		cmds = append(cmds, cmd("SADD", "sbig", n), cmd("HSET", "hbig", "f"+n, n), cmd("RPUSH", "lmany", n))
		if i < 129 {
			cmds = append(cmds, cmd("ZADD", "zbig", n, "m"+n))
		}
		if i == 511 {
			cmds = append(cmds, cmd("OBJECT", "ENCODING", "sbig"), cmd("OBJECT", "ENCODING", "hbig"))
		}
		if i == 127 {
			cmds = append(cmds, cmd("OBJECT", "ENCODING", "zbig"))
		}
	}
	for _, k := range []string{"int", "negint", "emb", "raw", "e44", "bigint", "sp", "empty", "app", "l", "lbig", "lmany",
		"si", "ss", "smix", "hs", "hl", "hl2", "zs", "zl", "sbig", "hbig", "zbig", "nope"} {
		cmds = append(cmds, cmd("OBJECT", "ENCODING", k))
	}
	cmds = append(cmds,
		cmd("OBJECT", "REFCOUNT", "int"), cmd("OBJECT", "REFCOUNT", "emb"), cmd("OBJECT", "REFCOUNT", "nope"),
		cmd("OBJECT", "FREQ", "int"), cmd("OBJECT", "ENCODING"), cmd("OBJECT", "FOO", "int"), cmd("OBJECT", "HELP"),
		cmd("OBJECT"),
	)
	diff(t, cmds)
}

func TestDiffKeysScan(t *testing.T) {
	cmds := [][]string{}
	for i := 0; i < 300; i++ {
		n := strconv.Itoa(i)
		cmds = append(cmds, cmd("SET", "key:"+n, n))
		if i%10 == 0 {
			cmds = append(cmds, cmd("RPUSH", "list:"+n, n), cmd("SADD", "set:"+n, n), cmd("HSET", "hash:"+n, "f", n),
				cmd("ZADD", "zset:"+n, n, "m"))
		}
	}
	cmds = append(cmds,
		scanAll("SCAN", "0"), scanAll("SCAN", "0", "COUNT", "7"), scanAll("SCAN", "0", "MATCH", "key:1*"),
		scanAll("SCAN", "0", "MATCH", "*:2?", "COUNT", "1000"), scanAll("SCAN", "0", "TYPE", "list"),
		scanAll("SCAN", "0", "TYPE", "string", "MATCH", "key:29*"), scanAll("SCAN", "0", "TYPE", "hash"),
		scanAll("SCAN", "0", "TYPE", "zset"), scanAll("SCAN", "0", "TYPE", "set"), scanAll("SCAN", "0", "TYPE", "nosuchtype"),
		scanAll("SCAN", "0", "MATCH", "nomatch"),
		cmd("SCAN", "x"), cmd("SCAN", "+"), cmd("SCAN", "-"), cmd("SCAN", " 0"), cmd("SCAN", "0x"),
		scanAll("SCAN", "-0"), scanAll("SCAN", "+0"), scanAll("SCAN", ""), cmd("SCAN", "-18446744073709551616"), cmd("SCAN", "0", "COUNT", "0"), cmd("SCAN", "0", "COUNT", "-1"),
		cmd("SCAN", "0", "COUNT", "x"), cmd("SCAN", "0", "MATCH"), cmd("SCAN", "0", "FOO", "bar"), cmd("SCAN", "0", "TYPE"),
		cmd("SCAN"), cmd("SCAN", "18446744073709551615", "COUNT", "1", "MATCH", "zzz"), cmd("SCAN", "18446744073709551616"),
		cmd("FLUSHDB"), cmd("SCAN", "0"), cmd("SET", "one", "1"), cmd("SCAN", "0"),
	)
	diff(t, cmds)
}

func TestDiffConnection(t *testing.T) {
	diff(t, [][]string{
		cmd("PING"), cmd("PING", "hello"), cmd("PING", "a", "b"), cmd("ping"),
		cmd("ECHO", "x"), cmd("ECHO", ""), cmd("ECHO"), cmd("ECHO", "a", "b"),
		cmd("SELECT", "15"), cmd("SELECT", "16"), cmd("SELECT", "-1"), cmd("SELECT", "x"), cmd("SELECT", "1.0"),
		cmd("SELECT"), cmd("SELECT", "0", "1"), cmd("SELECT", "0"),
		cmd("AUTH", "pass"), cmd("AUTH", "user", "pass"), cmd("AUTH", "default", "x"), cmd("AUTH"), cmd("AUTH", "a", "b", "c"),
		shape("HELLO", "2"), cmd("HELLO", "4"), cmd("HELLO", "x"), cmd("HELLO", "2", "AUTH", "default"),
		cmd("HELLO", "2", "FOO"), shape("HELLO", "2", "SETNAME", "n1"), cmd("CLIENT", "GETNAME"),
		cmd("CLIENT", "SETNAME", "myname"), cmd("CLIENT", "GETNAME"), cmd("CLIENT", "SETNAME", "my name"),
		cmd("CLIENT", "SETNAME", "a\nb"), cmd("CLIENT", "SETNAME", ""), cmd("CLIENT", "GETNAME"),
		cmd("CLIENT", "SETNAME"), cmd("CLIENT", "GETNAME", "x"), cmd("CLIENT", "FOO"), cmd("CLIENT"),
		nocmp("CLIENT", "ID"), cmd("CLIENT", "NO-EVICT", "on"), cmd("CLIENT", "NO-EVICT", "maybe"),
		cmd("NOSUCHCOMMAND"), cmd("nosuchcommand", "a", "b"), cmd("NOSUCH", strings.Repeat("a", 200)),
		cmd("GET"), cmd("GET", "a", "b"), cmd("SET", "a"), cmd("CONFIG", "FOO"), cmd("CONFIG"),
		cmd("COMMAND", "COUNT", "x"), cmd("OBJECT", "nosub"),
	})
}

// EXISTS, TYPE, TTL, COPY and MEMORY USAGE count keyspace hits and misses
// as Redis 7.0 does; pops from blocking commands (writes) do not.
func TestDiffKeyspaceStatsReads(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("CONFIG", "RESETSTAT"),
		cmd("SET", "a", "1"), cmd("RPUSH", "l", "x", "y"),
		cmd("EXISTS", "a", "nope"), cmd("TYPE", "a"), cmd("TYPE", "nope"), cmd("TTL", "a"), cmd("PTTL", "nope"),
		cmd("COPY", "a", "b"), cmd("COPY", "nope", "c"),
		cmd("BLPOP", "l", "0"), cmd("LMPOP", "1", "l", "LEFT"),
	})
	for _, f := range []string{"keyspace_hits", "keyspace_misses"} {
		a, b := p.conn(0)
		if o, r := infoField(a, "stats", f), infoField(b, "stats", f); o != r {
			t.Fatalf("%s: ours %q, redis %q", f, o, r)
		}
	}
}
