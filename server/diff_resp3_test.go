package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// RESP3: the same command tables as the RESP2 differential tests, spoken
// after HELLO 3 to both servers; replies must be byte-identical.

func TestDiffRESP3Hello(t *testing.T) {
	diff3(t, [][]string{
		nocmp("HELLO"), // id differs
		cmd("HELLO", "4"),
		cmd("HELLO", "x"),
		nocmp("HELLO", "3", "SETNAME", "me"),
		cmd("CLIENT", "GETNAME"),
		nocmp("HELLO", "2"),
		cmd("GET", "nokey"),
		cmd("HGETALL", "nokey"),
		nocmp("HELLO", "3"),
		cmd("GET", "nokey"),
		cmd("PING"),
		cmd("PING", "x"),
		cmd("ECHO", "x"),
		nocmp("RESET"),
		cmd("GET", "nokey"),
		nocmp("HELLO", "3"),
		cmd("CLIENT", "GETNAME"),
	})
}

func TestDiffRESP3Strings(t *testing.T) {
	diff3(t, [][]string{
		cmd("GET", "s"),
		cmd("SET", "s", "v"),
		cmd("SET", "s", "w", "GET"),
		cmd("SET", "n", "w", "GET"),
		cmd("SET", "s", "x", "NX"),
		cmd("SET", "s", "x", "NX", "GET"),
		cmd("GETDEL", "nope"),
		cmd("GETEX", "nope"),
		cmd("GETSET", "nope", "1"),
		cmd("MGET", "s", "nope", "n"),
		cmd("INCRBYFLOAT", "f", "1.5"),
		cmd("INCRBYFLOAT", "f", "1e300"),
		cmd("INCR", "i"),
		cmd("GETRANGE", "s", "0", "-1"),
		cmd("SUBSTR", "nope", "0", "-1"),
		cmd("STRLEN", "s"),
		cmd("LCS", "s", "n"),
		cmd("LCS", "s", "n", "IDX", "WITHMATCHLEN"),
		cmd("SETBIT", "b", "7", "1"),
		cmd("BITFIELD", "b", "GET", "u8", "0", "INCRBY", "u8", "0", "300", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "300"),
		cmd("BITFIELD_RO", "b", "GET", "u4", "0"),
		cmd("BITPOS", "b", "1"),
		cmd("PFADD", "hll", "a", "b"),
		cmd("PFCOUNT", "hll"),
		shape("RANDOMKEY"),
		cmd("FLUSHALL"),
		cmd("RANDOMKEY"),
	})
}

func TestDiffRESP3Keys(t *testing.T) {
	diff3(t, [][]string{
		cmd("MSET", "a", "1", "b", "2", "c", "3"),
		cmd("EXPIRE", "a", "100"),
		sorted("KEYS", "*"),
		scanAll("SCAN", "0"),
		shape("SCAN", "0", "COUNT", "100", "TYPE", "string"),
		cmd("TYPE", "a"),
		cmd("TTL", "a"),
		cmd("DUMP", "nope"),
		cmd("OBJECT", "ENCODING", "nope"),
		cmd("OBJECT", "ENCODING", "a"),
		cmd("OBJECT", "FREQ", "a"),
		cmd("EXISTS", "a", "b", "z"),
		cmd("SORT", "nope"),
		cmd("RPUSH", "l", "3", "1", "2"),
		cmd("SORT", "l"),
		cmd("SORT", "l", "GET", "nope*"),
		cmd("SORT_RO", "l", "LIMIT", "0", "1"),
		cmd("COPY", "a", "a2"),
		cmd("MEMORY", "USAGE", "nope"),
		cmd("DBSIZE"),
		nocmp("TIME"),
		cmd("RENAME", "nope", "x"),
		cmd("SWAPDB", "0", "1"),
		cmd("SELECT", "1"),
		cmd("GET", "a"),
	})
}

func TestDiffRESP3Lists(t *testing.T) {
	diff3(t, [][]string{
		cmd("LPOP", "l"),
		cmd("LPOP", "l", "2"),
		cmd("RPOP", "l", "2"),
		cmd("LINDEX", "l", "0"),
		cmd("RPUSH", "l", "a", "b", "c", "a"),
		cmd("LPOS", "l", "x"),
		cmd("LPOS", "l", "a"),
		cmd("LPOS", "l", "a", "COUNT", "0"),
		cmd("LPOS", "l", "x", "COUNT", "0"),
		cmd("LINDEX", "l", "10"),
		cmd("LRANGE", "l", "0", "-1"),
		cmd("LRANGE", "nope", "0", "-1"),
		cmd("LMPOP", "2", "nope", "l", "LEFT", "COUNT", "2"),
		cmd("LMPOP", "1", "nope", "LEFT"),
		cmd("BLMPOP", "0.01", "1", "nope", "LEFT"),
		cmd("BLPOP", "nope", "0.01"),
		cmd("BRPOP", "l", "0.01"),
		cmd("BRPOPLPUSH", "nope", "x", "0.01"),
		cmd("BLMOVE", "nope", "x", "LEFT", "RIGHT", "0.01"),
		cmd("RPOPLPUSH", "nope", "x"),
		cmd("LMOVE", "nope", "x", "LEFT", "LEFT"),
		cmd("MULTI"),
		cmd("BLPOP", "nope", "0"),
		cmd("BRPOPLPUSH", "nope", "x", "0"),
		cmd("BLMPOP", "0", "1", "nope", "LEFT"),
		cmd("LPOP", "nope"),
		cmd("EXEC"),
		cmd("LPOP", "l", "10"),
		cmd("LPOP", "l", "10"),
	})
}

func TestDiffRESP3Hashes(t *testing.T) {
	diff3(t, [][]string{
		cmd("HGETALL", "h"),
		cmd("HSET", "h", "a", "1", "b", "2", "c", "3"),
		pairs("HGETALL", "h"),
		sorted("HKEYS", "h"),
		sorted("HVALS", "h"),
		cmd("HGET", "h", "x"),
		cmd("HMGET", "h", "a", "x"),
		cmd("HRANDFIELD", "nope"),
		cmd("HRANDFIELD", "nope", "2"),
		cmd("HRANDFIELD", "nope", "2", "WITHVALUES"),
		shape("HRANDFIELD", "h"),
		shape("HRANDFIELD", "h", "2"),
		shape("HRANDFIELD", "h", "-5"),
		shape("HRANDFIELD", "h", "2", "WITHVALUES"),
		shape("HRANDFIELD", "h", "-5", "WITHVALUES"),
		sorted("HRANDFIELD", "h", "5", "WITHVALUES"),
		cmd("HINCRBYFLOAT", "h", "f", "1.5"),
		cmd("HSTRLEN", "h", "a"),
		scanAll("HSCAN", "h", "0"),
		cmd("HSET", "big", "f"+strings.Repeat("x", 100), "v"),
		pairs("HGETALL", "big"),
	})
}

func TestDiffRESP3Sets(t *testing.T) {
	diff3(t, [][]string{
		cmd("SMEMBERS", "s"),
		cmd("SADD", "s", "a", "b", "c", "1"),
		cmd("SADD", "i", "1", "2", "3"),
		sorted("SMEMBERS", "s"),
		sorted("SMEMBERS", "i"),
		sorted("SINTER", "s", "i"),
		sorted("SUNION", "s", "i"),
		sorted("SDIFF", "s", "i"),
		cmd("SINTER", "s", "nope"),
		cmd("SUNION", "nope"),
		cmd("SDIFF", "nope"),
		cmd("SINTERCARD", "2", "s", "i"),
		cmd("SMISMEMBER", "s", "a", "x"),
		cmd("SISMEMBER", "s", "a"),
		cmd("SPOP", "nope"),
		cmd("SPOP", "nope", "2"),
		cmd("SADD", "one", "x"),
		cmd("SPOP", "one", "1"),
		cmd("SADD", "one", "x", "y"),
		sorted("SPOP", "one", "5"),
		shape("SPOP", "s", "0"),
		sorted("SRANDMEMBER", "s", "100"),
		shape("SRANDMEMBER", "s", "2"),
		shape("SRANDMEMBER", "s", "-5"),
		shape("SRANDMEMBER", "s", "0"),
		cmd("SRANDMEMBER", "nope"),
		cmd("SRANDMEMBER", "nope", "3"),
		sorted("SPOP", "i", "10"),
		scanAll("SSCAN", "s", "0"),
		cmd("DEL", "s"),
	})
}

func TestDiffRESP3Zsets(t *testing.T) {
	diff3(t, [][]string{
		cmd("ZSCORE", "z", "a"),
		cmd("ZADD", "z", "1.5", "a", "2", "b", "inf", "c", "-inf", "d", "0.1", "e"),
		cmd("ZSCORE", "z", "a"),
		cmd("ZSCORE", "z", "c"),
		cmd("ZSCORE", "z", "d"),
		cmd("ZSCORE", "z", "e"),
		cmd("ZSCORE", "z", "x"),
		cmd("ZMSCORE", "z", "a", "x", "c"),
		cmd("ZMSCORE", "nope", "a"),
		cmd("ZINCRBY", "z", "1", "a"),
		cmd("ZADD", "z", "INCR", "1", "a"),
		cmd("ZADD", "z", "NX", "INCR", "1", "a"),
		cmd("ZRANGE", "z", "0", "-1"),
		cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
		cmd("ZRANGE", "z", "0", "-1", "REV", "WITHSCORES"),
		cmd("ZRANGE", "z", "(1", "+inf", "BYSCORE", "WITHSCORES"),
		cmd("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"),
		cmd("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES"),
		cmd("ZREVRANGE", "z", "0", "-1", "WITHSCORES"),
		cmd("ZRANGEBYLEX", "z", "-", "+"),
		cmd("ZRANK", "z", "a"),
		cmd("ZRANK", "z", "x"),
		cmd("ZREVRANK", "z", "x"),
		cmd("ZADD", "y", "1", "a", "5", "q"),
		cmd("ZUNION", "2", "z", "y", "WITHSCORES"),
		cmd("ZINTER", "2", "z", "y", "WITHSCORES"),
		cmd("ZDIFF", "2", "z", "y", "WITHSCORES"),
		cmd("ZUNION", "2", "z", "y"),
		cmd("ZRANDMEMBER", "nope"),
		cmd("ZRANDMEMBER", "nope", "2", "WITHSCORES"),
		shape("ZRANDMEMBER", "z", "2", "WITHSCORES"),
		shape("ZRANDMEMBER", "z", "-7", "WITHSCORES"),
		shape("ZRANDMEMBER", "z", "2"),
		sorted("ZRANDMEMBER", "z", "10", "WITHSCORES"),
		scanAll("ZSCAN", "z", "0"),
		cmd("ZPOPMIN", "z"),
		cmd("ZPOPMIN", "z", "2"),
		cmd("ZPOPMAX", "z"),
		cmd("ZPOPMAX", "z", "1"),
		cmd("ZPOPMIN", "nope"),
		cmd("ZPOPMIN", "nope", "2"),
		cmd("BZPOPMAX", "y", "0"),
		cmd("BZPOPMIN", "y", "0"),
		cmd("BZPOPMIN", "nope", "0.01"),
		cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"),
		cmd("ZMPOP", "2", "nope", "z", "MIN", "COUNT", "2"),
		cmd("ZMPOP", "1", "nope", "MAX"),
		cmd("BZMPOP", "0", "1", "z", "MAX"),
		cmd("BZMPOP", "0.01", "1", "nope", "MAX"),
		cmd("MULTI"),
		cmd("BZPOPMIN", "nope", "0"),
		cmd("BZMPOP", "0", "1", "nope", "MAX"),
		cmd("ZSCORE", "y", "q"),
		cmd("EXEC"),
		cmd("ZADD", "w", "1.1", "a", "1e100", "b", "-0.000001", "c", "3.141592653589793", "d"),
		cmd("ZRANGE", "w", "0", "-1", "WITHSCORES"),
		cmd("ZRANGESTORE", "d", "w", "0", "-1"),
		cmd("ZINTERCARD", "1", "w"),
	})
}

func TestDiffRESP3Streams(t *testing.T) {
	diff3(t, [][]string{
		cmd("XADD", "s", "1-1", "f", "v"),
		cmd("XADD", "s", "2-1", "f", "v", "g", "w"),
		cmd("XADD", "t", "1-1", "a", "b"),
		cmd("XRANGE", "s", "-", "+"),
		cmd("XREVRANGE", "s", "+", "-", "COUNT", "1"),
		cmd("XREAD", "STREAMS", "s", "t", "0", "0"),
		cmd("XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "1-1"),
		cmd("XREAD", "STREAMS", "s", "$"),
		cmd("XREAD", "BLOCK", "10", "STREAMS", "s", "$"),
		cmd("XGROUP", "CREATE", "s", "g", "0"),
		cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"),
		cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "10", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "10", "STREAMS", "s", ">"),
		shape("XPENDING", "s", "g"),
		shape("XPENDING", "s", "g", "-", "+", "10"),
		shape("XINFO", "STREAM", "s"),
		shape("XINFO", "STREAM", "s", "FULL"),
		shape("XINFO", "GROUPS", "s"),
		shape("XINFO", "CONSUMERS", "s", "g"),
		shape("XAUTOCLAIM", "s", "g", "c", "0", "0"),
		shape("XCLAIM", "s", "g", "c", "0", "1-1"),
		cmd("XINFO", "STREAM", "nope"),
		cmd("XDEL", "s", "1-1"),
		cmd("MULTI"),
		cmd("XREAD", "BLOCK", "0", "STREAMS", "s", "$"),
		cmd("EXEC"),
	})
}

func TestDiffRESP3Server(t *testing.T) {
	p := newDiffPair3(t)
	p.run([][]string{
		pairs("CONFIG", "GET", "maxmemory"),
		pairs("CONFIG", "GET", "maxmemory*"),
		cmd("CONFIG", "GET", "nope"),
		cmd("COMMAND", "DOCS", "nope"),
		cmd("COMMAND", "INFO", "nope"),
		cmd("COMMAND", "GETKEYS", "set", "a", "b"),
		shape("SLOWLOG", "GET"),
		cmd("LATENCY", "LATEST"),
		cmd("LATENCY", "HISTORY", "command"),
		shape("SCRIPT", "EXISTS", "a"),
		cmd("PUBSUB", "NUMSUB", "a", "b"),
		cmd("PUBSUB", "CHANNELS"),
		cmd("OBJECT", "HELP"),
		cmd("LATENCY", "DOCTOR"),
		cmd("WAIT", "0", "0"),
	})
	// COMMAND DOCS / INFO: our docs carry fewer fields (no complexity,
	// arguments, history), so compare the reply's types up to there.
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"COMMAND", "DOCS", "get"}, "%1\r\n$3\r\nget\r\n%"},
		{[]string{"COMMAND", "DOCS", "config"}, "%1\r\n$6\r\nconfig\r\n%"},
		{[]string{"COMMAND", "INFO", "get"}, "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n~3\r\n"},
	} {
		oc, rc := p.conn(0)
		got, want := oc.do(c.args...), rc.do(c.args...)
		if !strings.HasPrefix(got, c.prefix) || !strings.HasPrefix(want, c.prefix) {
			t.Errorf("%v: ours %.60q, redis %.60q", c.args, got, want)
		}
	}
	for _, args := range [][]string{{"INFO", "server"}, {"CLIENT", "INFO"}, {"CLIENT", "LIST"}, {"MEMORY", "DOCTOR"}} {
		oc, rc := p.conn(0)
		got, want := oc.do(args...), rc.do(args...)
		if !strings.HasPrefix(got, "=") || !strings.HasPrefix(want, "=") {
			t.Errorf("%v: ours %.40q, redis %.40q", args, got, want)
			continue
		}
		// "=<len>\r\ntxt:" then the text
		gi, wi := strings.Index(got, "\r\n"), strings.Index(want, "\r\n")
		if got[gi:gi+6] != want[wi:wi+6] || got[gi:gi+6] != "\r\ntxt:" {
			t.Errorf("%v: ours %.40q, redis %.40q", args, got, want)
		}
		if args[0] == "INFO" && got[gi+6:gi+6+9] != want[wi+6:wi+6+9] {
			t.Errorf("%v: ours %.40q, redis %.40q", args, got, want)
		}
	}
}

func TestDiffRESP3Scripting(t *testing.T) {
	diff3(t, [][]string{
		cmd("EVAL", "return nil", "0"),
		cmd("EVAL", "return false", "0"),
		cmd("EVAL", "return true", "0"),
		cmd("EVAL", "return {1,2,{3,'x'},false}", "0"),
		cmd("EVAL", "return {err='boom'}", "0"),
		cmd("EVAL", "return {ok='fine'}", "0"),
		cmd("EVAL", "return 3.99", "0"),
		cmd("EVAL", "return redis.call('get','nope')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('get','nope')", "0"),
		cmd("HSET", "h", "a", "1"),
		cmd("SADD", "s", "m"),
		cmd("ZADD", "z", "1.5", "m"),
		cmd("EVAL", "return redis.call('hgetall','h')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('hgetall','h')", "0"),
		cmd("EVAL", "redis.setresp(3); local r = redis.call('hgetall','h'); return r['map']['a']", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('smembers','s')", "0"),
		cmd("EVAL", "redis.setresp(3); local r = redis.call('smembers','s'); return tostring(r['set']['m'])", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('zscore','z','m')", "0"),
		cmd("EVAL", "redis.setresp(3); return tostring(redis.call('zscore','z','m')['double'])", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('zrange','z','0','-1','withscores')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('smismember','s','m','x')", "0"),
		cmd("EVAL", "redis.setresp(3); return {redis.call('get','nope') == nil}", "0"),
		cmd("EVAL", "redis.setresp(3); return type(redis.call('get','nope'))", "0"),
		cmd("EVAL", "redis.setresp(2); return redis.call('zscore','z','m')", "0"),
		cmd("EVAL", "redis.setresp(4)", "0"),
		cmd("EVAL", "redis.setresp()", "0"),
		cmd("EVAL", "return {map={a=1}}", "0"),
		cmd("EVAL", "return {set={a=true}}", "0"),
		cmd("EVAL", "return {double=1.5}", "0"),
		cmd("EVAL", "return {double=3}", "0"),
		cmd("EVAL", "return {double=0/0}", "0"),
		cmd("EVAL", "return {double=1/0}", "0"),
		cmd("EVAL", "return {double=-1/0}", "0"),
		cmd("EVAL", "return {double=1e300}", "0"),
		cmd("EVAL", "return {double=1e-7}", "0"),
		cmd("EVAL", "return {1,{map={a={set={x=true}}}}}", "0"),
		cmd("EVAL", "return {big_number='1\\r\\n2'}", "0"),
		cmd("EVAL", "return {ok='x', double=1}", "0"),
		cmd("EVAL", "return {double='1.5'}", "0"),
		cmd("EVAL", "return {map=5}", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.pcall('nosuch')", "0"),
		cmd("XADD", "st", "1-1", "a", "b"),
		cmd("EVAL", "redis.setresp(3); return redis.call('xread','streams','st','0')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('xinfo','stream','st')['map']['length']", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('config','get','maxmemory')", "0"),
		cmd("EVAL", "return {big_number='123'}", "0"),
		cmd("EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"),
		cmd("EVAL", "return {1, nil, 2}", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','attrib')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','map')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','bignum')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','verbatim')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','true')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('debug','protocol','double')", "0"),
		cmd("EVAL", "redis.setresp(2); return redis.call('debug','protocol','map')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('hello')['map']['proto']", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('xread','streams','nope','0')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.pcall('incr','h')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('get', 'nope') == nil and 1 or 0", "0"),
		cmd("EVAL", "redis.setresp(3); local t = redis.call('zadd','zz','incr','1','m'); return t['double']", "0"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function(keys, args) return redis.call('hgetall', keys[1]) end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function{function_name='g', callback=function() return {map={x=1}} end, flags={'no-writes'}}"),
		cmd("FCALL", "f", "1", "h"),
		cmd("FCALL_RO", "g", "0"),
		cmd("FUNCTION", "LIST", "LIBRARYNAME", "lib2"),
		cmd("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib2"),
		shape("FUNCTION", "STATS"),
	})
}

func TestDiffRESP3PubSub(t *testing.T) {
	diff3(t, [][]string{
		cmd("SUBSCRIBE", "ch"),
		cmd("PSUBSCRIBE", "c*"),
		cmd("PING"),
		cmd("GET", "x"),
		cmd("PUBSUB", "NUMSUB", "ch"),
		cmd("UNSUBSCRIBE", "nope"),
	})
	// Messages are pushes, read as they arrive.
	p := newDiffPair3(t)
	p.run([][]string{cmd("SUBSCRIBE", "ch")})
	p.run([][]string{conn2("PUBLISH", "ch", "hi")})
	oc, rc := p.conn(0)
	if got, want := oc.read(), rc.read(); got != want {
		t.Fatalf("message: ours %q, redis %q", got, want)
	}
	p.run([][]string{
		cmd("PSUBSCRIBE", "c*"),
		conn2("PUBLISH", "ch", "hi"),
	})
	for i := 0; i < 2; i++ {
		if got, want := oc.read(), rc.read(); got != want {
			t.Fatalf("message %d: ours %q, redis %q", i, got, want)
		}
	}
	p.run([][]string{
		conn2("CONFIG", "SET", "notify-keyspace-events", "KEA"),
		cmd("PSUBSCRIBE", "__key*"),
		conn2("SET", "k", "v"),
	})
	for i := 0; i < 2; i++ {
		if got, want := oc.read(), rc.read(); got != want {
			t.Fatalf("notification %d: ours %q, redis %q", i, got, want)
		}
	}
	p.run([][]string{
		cmd("UNSUBSCRIBE"),
		cmd("PUNSUBSCRIBE"),
	})
	for i := 0; i < 1; i++ {
		if got, want := oc.read(), rc.read(); got != want {
			t.Fatalf("unsubscribe %d: ours %q, redis %q", i, got, want)
		}
	}
	p.run([][]string{
		cmd("UNSUBSCRIBE"),
		cmd("PING"),
	})
}

// waitBlocked waits until both servers count one blocked client.
func waitBlocked(t *testing.T, p *diffPair) {
	t.Helper()
	p.conn(1)
	for _, c := range []*respConn{p.oc[1], p.rc[1]} {
		testsrv.WaitFor(t, 10*time.Second, "the client to block", func() bool {
			return strings.Contains(c.do("INFO", "clients"), "blocked_clients:1\r\n")
		})
	}
}

func TestDiffRESP3Blocking(t *testing.T) {
	p := newDiffPair3(t)
	oc, rc := p.conn(0)
	served := func(block []string, feed ...[]string) {
		t.Helper()
		t.Logf("%v", block)
		oc.send(block...)
		rc.send(block...)
		waitBlocked(t, p)
		for _, f := range feed {
			p.run([][]string{append([]string{mConn2}, f...)})
		}
		if got, want := oc.read(), rc.read(); got != want {
			t.Fatalf("%v: ours %q, redis %q", block, got, want)
		}
	}
	served([]string{"BLPOP", "l", "0"}, []string{"RPUSH", "l", "a"})
	served([]string{"BZPOPMIN", "z", "0"}, []string{"ZADD", "z", "1.5", "m"})
	served([]string{"BZMPOP", "0", "1", "z", "MIN", "COUNT", "2"}, []string{"ZADD", "z", "1", "a", "2", "b", "3", "c"})
	served([]string{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, []string{"XADD", "s", "1-1", "f", "v"})
	p.run([][]string{conn2("XGROUP", "CREATE", "s", "g", "$")})
	served([]string{"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"}, []string{"XADD", "s", "2-1", "f", "v"})
	served([]string{"BLMOVE", "nope", "x", "LEFT", "RIGHT", "0"}, []string{"RPUSH", "nope", "v"})
	served([]string{"BRPOPLPUSH", "nope2", "x", "0"}, []string{"RPUSH", "nope2", "v"})
	// CLIENT UNBLOCK: a null in RESP3
	oid, rid := oc.do("CLIENT", "ID"), rc.do("CLIENT", "ID")
	for _, c := range []*respConn{oc, rc} {
		c.send("BLPOP", "empty", "0")
	}
	waitBlocked(t, p)
	p.oc[1].do("CLIENT", "UNBLOCK", bulkText(oid))
	p.rc[1].do("CLIENT", "UNBLOCK", bulkText(rid))
	if got, want := oc.read(), rc.read(); got != want {
		t.Fatalf("CLIENT UNBLOCK: ours %q, redis %q", got, want)
	}
	p.checkDigest()
}

func TestDiffRESP3Transactions(t *testing.T) {
	diff3(t, [][]string{
		cmd("WATCH", "k"),
		conn2("SET", "k", "1"),
		cmd("MULTI"),
		cmd("GET", "k"),
		cmd("EXEC"),
		cmd("MULTI"),
		cmd("ZADD", "z", "1", "a"),
		cmd("ZSCORE", "z", "a"),
		cmd("HGETALL", "nope"),
		cmd("SMEMBERS", "nope"),
		cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
		cmd("EXEC"),
	})
}

// Lua tables with map/set/double/big_number/verbatim_string fields reply
// their RESP2 forms to a RESP2 client.
func TestDiffLuaRESP3FieldsToRESP2(t *testing.T) {
	diff(t, [][]string{
		cmd("EVAL", "return {map={a=1}}", "0"),
		cmd("EVAL", "return {set={a=true}}", "0"),
		cmd("EVAL", "return {double=1.5}", "0"),
		cmd("EVAL", "return {double=3}", "0"),
		cmd("EVAL", "return {double=0/0}", "0"),
		cmd("EVAL", "return {double=-1/0}", "0"),
		cmd("EVAL", "return {1,{map={a={set={x=true}}}}}", "0"),
		cmd("EVAL", "return {big_number='123'}", "0"),
		cmd("EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"),
		cmd("EVAL", "redis.setresp(3); return false", "0"),
		cmd("EVAL", "redis.setresp(3); return true", "0"),
		cmd("HSET", "h", "a", "1"),
		cmd("ZADD", "z", "2.5", "m"),
		cmd("EVAL", "redis.setresp(3); return redis.call('hgetall','h')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('zrange','z','0','-1','withscores')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('get','nope')", "0"),
		cmd("EVAL", "redis.setresp(3); return {redis.call('get','nope')}", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('client','info')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('info','nosuchsection')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('info','nosuchsection')['verbatim_string']['format']", "0"),
		cmd("EVAL", "redis.setresp(2); return redis.call('info','nosuchsection')", "0"),
	})
}

// DEBUG PROTOCOL replies one value of each RESP3 type.
func TestDiffDebugProtocol(t *testing.T) {
	var cmds [][]string
	for _, typ := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map",
		"attrib", "push", "verbatim", "true", "false", "nope", "MAP"} {
		cmds = append(cmds, cmd("DEBUG", "PROTOCOL", typ))
	}
	noPush := append(cmds[:9:9], cmds[10:]...)
	p2 := newDiffPair(t)
	if p2.resp3 { // DIFF_RESP3=1 survey
		p2.run(noPush)
	} else {
		p2.run(cmds)
	}
	p2.checkDigest()
	// RESP3: "push" is a push then a reply: read both
	p := newDiffPair3(t)
	p.run(noPush)
	oc, rc := p.conn(0)
	got, want := oc.do("DEBUG", "PROTOCOL", "push"), rc.do("DEBUG", "PROTOCOL", "push")
	got, want = got+oc.read(), want+rc.read()
	if got != want {
		t.Fatalf("DEBUG PROTOCOL push: ours %q, redis %q", got, want)
	}
	p.checkDigest()
}

// Maps and sets a script returns are walked in Lua 5.1's table order.
func TestDiffRESP3LuaTableOrder(t *testing.T) {
	hset := []string{"HSET", "h"}
	sadd := []string{"SADD", "s"}
	for i := 0; i < 100; i++ {
		f := "field:" + strconv.Itoa(i*7919%1000)
		hset = append(hset, f, strconv.Itoa(i))
		sadd = append(sadd, strconv.Itoa(i*37%1000)) // an intset: SMEMBERS order is defined
	}
	cmds := [][]string{
		hset, sadd,
		cmd("EVAL", "redis.setresp(3); return redis.call('hgetall','h')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('smembers','s')", "0"),
		cmd("EVAL", "redis.setresp(3); return redis.call('config','get','*max*')", "0"),
		cmd("EVAL", "return {map={a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10}}", "0"),
		cmd("EVAL", "return {set={x=true,y=true,z=true,w=true,v=true}}", "0"),
		cmd("EVAL", "local m = {} for i = 1, 50 do m['k'..i] = i end return {map=m}", "0"),
	}
	diff3(t, cmds)
	diff(t, cmds)
}
