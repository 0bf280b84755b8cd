package server

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"
)

func TestDiffScriptConversions(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "return {1,2,3,'ciao',{1,2}, 3.99, -2.5, true, false, nil, 5}", "0"),
		cmd("eval", "return {ok='fine'}", "0"),
		cmd("eval", "return {err='bad'}", "0"),
		cmd("eval", "return {err='bad\\r\\nline'}", "0"),
		cmd("eval", "return redis.status_reply('X')", "0"),
		cmd("eval", "return redis.error_reply('My err')", "0"),
		cmd("eval", "return redis.error_reply('-My err')", "0"),
		cmd("eval", "return redis.error_reply(1)", "0"),
		cmd("eval", "return redis.status_reply()", "0"),
		cmd("eval", "return 3.99", "0"),
		cmd("eval", "return -3.99", "0"),
		cmd("eval", "return 'x'", "0"),
		cmd("eval", "return true", "0"),
		cmd("eval", "return false", "0"),
		cmd("eval", "return nil", "0"),
		cmd("eval", "return", "0"),
		cmd("eval", "return {}", "0"),
		cmd("eval", "return {1,{2,{3,{'x',{ok='y'},{err='z'}}}}}", "0"),
		cmd("eval", "return print", "0"),
		cmd("eval", "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2],#KEYS,#ARGV}", "2", "k1", "k2", "a1", "a2"),
		cmd("eval", "return redis.sha1hex('')", "0"),
		cmd("eval", "return redis.sha1hex(ARGV[1])", "0", "Pizza & Mandolino"),
		cmd("eval", "return redis.LOG_DEBUG + redis.LOG_VERBOSE*10 + redis.LOG_NOTICE*100 + redis.LOG_WARNING*1000", "0"),
		cmd("eval", "redis.log(redis.LOG_WARNING, 'hello', 'there') return 1", "0"),
		cmd("eval", "return redis.setresp(2)", "0"),
		cmd("set", "s", "hello"),
		cmd("rpush", "l", "a", "b", "c"),
		cmd("eval", "return redis.call('get', KEYS[1])", "1", "s"),
		cmd("eval", "return redis.call('get', KEYS[1])", "1", "nokey"),
		cmd("eval", "return type(redis.call('get', KEYS[1]))", "1", "nokey"),
		cmd("eval", "return redis.call('lrange', 'l', 0, -1)", "0"),
		cmd("eval", "return redis.call('set', 'x', 'y')", "0"),
		cmd("eval", "return redis.call('set', 'x', 'y')['ok']", "0"),
		cmd("eval", "return redis.call('incr', 'cnt')", "0"),
		cmd("eval", "return redis.call('incrbyfloat', 'f', 1.5)", "0"),
		cmd("eval", "redis.call('set', 'n', 0.1) return redis.call('get', 'n')", "0"),
		cmd("eval", "redis.call('set', 'n', 12345678) return redis.call('get', 'n')", "0"),
		cmd("eval", "redis.call('set', 'n', 1e20) return redis.call('get', 'n')", "0"),
		cmd("eval", "return redis.pcall('incr', 's')", "0"),
		cmd("eval", "return redis.pcall('incr', 's')['err']", "0"),
		cmd("eval", "return redis.pcall('lpush', 's', 'x')", "0"),
		cmd("eval", "return redis.pcall('nosuch')", "0"),
		cmd("eval", "return redis.pcall()", "0"),
		cmd("eval", "return redis.pcall({})", "0"),
		cmd("eval", "local t = redis.pcall('hgetall', 'nokey') return #t", "0"),
		cmd("eval", "return redis.call('select', 1)", "0"),
		cmd("eval", "redis.call('select', 2) redis.call('set', 'indb2', 'v') return redis.call('dbsize')", "0"),
		cmd("exists", "indb2"),
		cmd("select", "2"),
		cmd("get", "indb2"),
		cmd("eval", "return redis.call('get', 'indb2')", "0"),
		cmd("select", "0"),
	})
}

func TestDiffScriptErrors(t *testing.T) {
	diff(t, [][]string{
		cmd("set", "s", "x"),
		cmd("eval", "return redis.call('nosuch')", "0"),
		cmd("eval", "return x", "0"),
		cmd("eval", "x=1", "0"),
		cmd("eval", "error('boom')", "0"),
		cmd("eval", "\n\nerror('boom')", "0"),
		cmd("eval", "error({err='MY boom'})", "0"),
		cmd("eval", "return redis.call('incr','a','b')", "0"),
		cmd("eval", "return redis.call('incr','s')", "0"),
		cmd("eval", "local a = 1\nreturn redis.call('incr','s')", "0"),
		cmd("eval", "return redis.call()", "0"),
		cmd("eval", "return redis.call(1.5)", "0"),
		cmd("eval", "return redis.call({})", "0"),
		cmd("eval", "return redis.call('multi')", "0"),
		cmd("eval", "return redis.call('eval','return 1','0')", "0"),
		cmd("eval", "return redis.call('client','nosuch')", "0"),
		cmd("eval", "redis.call('nosuch')", "0"),
		cmd("eval", "return redis.log()", "0"),
		cmd("eval", "return redis.setresp()", "0"),
		cmd("eval", "return redis.setresp(4)", "0"),
		cmd("eval_ro", "return redis.call('set','a','b')", "1", "a"),
		cmd("eval_ro", "return redis.call('get',KEYS[1])", "1", "s"),
		cmd("eval_ro", "return redis.pcall('del','s')", "0"),
		cmd("eval", "return 1", "-1"),
		cmd("eval", "return 1", "3", "a"),
		cmd("eval", "return 1", "x"),
		cmd("eval", "return 1"),
		cmd("evalsha", "ffffffffffffffffffffffffffffffffffffffff", "0"),
		cmd("evalsha", "fff", "0"),
		cmd("evalsha_ro", "ffffffffffffffffffffffffffffffffffffffff", "0"),
	})
}

func TestDiffScriptCache(t *testing.T) {
	diff(t, [][]string{
		cmd("script", "load", "return 'hello'"),
		cmd("script", "exists", "1b936e3fe509bcbc9cd0664897bbe8fd0cac101b", "ffffffffffffffffffffffffffffffffffffffff", "1B936E3FE509BCBC9CD0664897BBE8FD0CAC101B"),
		cmd("evalsha", "1b936e3fe509bcbc9cd0664897bbe8fd0cac101b", "0"),
		cmd("evalsha", "1B936E3FE509BCBC9CD0664897BBE8FD0CAC101B", "0"),
		cmd("evalsha_ro", "1b936e3fe509bcbc9cd0664897bbe8fd0cac101b", "0"),
		cmd("eval", "return KEYS[1]", "1", "k"),
		cmd("evalsha", "a0c38691e2c1f2d3c6a7c0a7c4c4e66a4c1c6d6b", "0"),
		cmd("script", "flush"),
		cmd("script", "exists", "1b936e3fe509bcbc9cd0664897bbe8fd0cac101b"),
		cmd("evalsha", "1b936e3fe509bcbc9cd0664897bbe8fd0cac101b", "0"),
		cmd("script", "load", "return 'hello'"),
		cmd("script", "flush", "async"),
		cmd("script", "flush", "sync"),
		cmd("script", "flush", "bad"),
		cmd("script", "flush", "sync", "x"),
		cmd("script", "help"),
		cmd("script", "nosuch"),
		cmd("script"),
		cmd("script", "load"),
		cmd("multi"),
		cmd("eval", "return redis.call('incr', KEYS[1])", "1", "m"),
		cmd("eval", "return redis.call('incr', KEYS[1])", "1", "m"),
		cmd("exec"),
	})
}

// Scripts replicate their effects: one write is logged bare, two or more
// in MULTI/EXEC, a read-only script logs nothing; EVAL itself never is.
func TestScriptPropagationAOF(t *testing.T) {
	args := []string{"--appendonly", "yes", "--appendfsync", "always"}
	real := startRealRedis(t, args...)
	ours := startOurServer(t, args...)
	steps := [][]string{
		{"eval", "redis.call('set',KEYS[1],'a') redis.call('set',KEYS[2],'b') return 1", "2", "k1", "k2"},
		{"eval", "return redis.call('incr',KEYS[1])", "1", "c"},
		{"eval", "return redis.call('get',KEYS[1])", "1", "k1"},
		{"eval_ro", "return redis.call('get',KEYS[1])", "1", "k1"},
		{"eval", "return redis.pcall('incr',KEYS[1])", "1", "k1"},
		{"eval", "redis.call('del','nokey') return redis.call('rpush',KEYS[1],'x','y')", "1", "l"},
		{"script", "load", "return redis.call('lpop',KEYS[1])"},
		{"evalsha", "2ea073125bb1be39e622cc30a0653b35d377d63b", "1", "l"},
		{"multi"},
		{"eval", "return redis.call('incr',KEYS[1])", "1", "c"},
		{"eval", "return redis.call('incr',KEYS[1])", "1", "c"},
		{"exec"},
		{"eval", "redis.call('select', 3) return redis.call('set',KEYS[1],'z')", "1", "k3"},
		{"script", "flush"},
		{"set", "after", "1"},
	}
	oc, rc := dial(t, ours.addr), dial(t, real.addr)
	for _, st := range steps {
		if o, r := oc.do(st...), rc.do(st...); o != r {
			t.Fatalf("%q: ours %q, redis %q", st, o, r)
		}
	}
	o, r := readIncr(t, ours.dir), readIncr(t, real.dir)
	if o != r {
		t.Fatalf("incr AOF differs:\nours:  %q\nredis: %q", o, r)
	}
	for _, want := range []string{"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$2\r\nk1", "$4\r\nlpop\r\n", "EVAL"} {
		if strings.Contains(o, want) != (want != "EVAL") {
			t.Fatalf("incr AOF: contains %q is wrong:\n%q", want, o)
		}
	}
	want := oc.do("debug", "digest")
	if r := oc.do("debug", "loadaof"); r != "+OK\r\n" {
		t.Fatalf("DEBUG LOADAOF: %q", r)
	}
	if got := oc.do("debug", "digest"); got != want {
		t.Fatalf("digest after reload %q, want %q", got, want)
	}
}

func TestDiffScriptLuaEnvironment(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "return 'x' +", "0"),
		cmd("eval", "return {", "0"),
		cmd("eval", "return 'abc", "0"),
		cmd("eval", "x = = 2", "0"),
		cmd("eval", "\n\nfoo(", "0"),
		cmd("eval", "return )", "0"),
		cmd("script", "load", "return )"),
		cmd("eval", "redis.call = nil", "0"),
		cmd("eval", "string.x = 1 return 1", "0"),
		cmd("eval", "print = nil", "0"),
		cmd("eval", "return _G.x", "0"),
		cmd("eval", "return rawget(_G, 'x')", "0"),
		cmd("eval", "local function f(a) return a * 2 end return f(21)", "0"),
		cmd("eval", "function f() return 1 end", "0"),
		cmd("eval", "return tostring(0.1)", "0"),
		cmd("eval", "return string.format('%d-%s', 3, 'x')", "0"),
		cmd("eval", "return math.huge", "0"),
		cmd("eval", "return ('abc'):upper()", "0"),
		cmd("eval", "return table.concat({'a','b'}, ',')", "0"),
		cmd("eval", "return redis.call('blpop','nolist',0)", "0"),
		cmd("eval", "return pcall(function() error('x') end)", "0"),
		cmd("eval", "return {pcall(function() error({err='x'}) end)}", "0"),
		cmd("eval", "return {pcall(function() redis.call('nosuch') end)}", "0"),
		cmd("eval", "return {pcall(function() return 1, 2 end)}", "0"),
		cmd("eval", "return redis.sha1hex()", "0"),
		cmd("eval", "return redis.log(1)", "0"),
		cmd("eval", "return redis.log('a','b')", "0"),
		cmd("eval", "return redis.log(9,'b')", "0"),
		cmd("eval", "return loadstring('return 1')()", "0"),
		cmd("eval", "return unpack({1,2})", "0"),
		cmd("eval", "return select('#', 1, 2)", "0"),
		cmd("eval", "return {type(KEYS), type(ARGV), #KEYS}", "0"),
		cmd("eval", "return 1", "0", "x"),
	})
}

func TestDiffScriptBitLib(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "return {bit.tobit(0xffffffff), bit.tobit(2^32+5), bit.bnot(0), bit.band(0xff, 0x0f, 0x7), bit.bor(1, 2, 4), bit.bxor(3, 5)}", "0"),
		cmd("eval", "return {bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 12), bit.ror(0x12345678, 12), bit.bswap(0x12345678)}", "0"),
		cmd("eval", "return {bit.tohex(255), bit.tohex(-1, -4), bit.tohex(0x1234abcd, 2)}", "0"),
		cmd("eval", "return bit.tobit(1.5) + bit.tobit(2.5) * 10", "0"),
	})
}

func TestDiffScriptErrorStats(t *testing.T) {
	diff(t, [][]string{
		cmd("config", "resetstat"),
		cmd("set", "s", "x"),
		cmd("eval", "return redis.call('incr','s')", "0"),
		cmd("info", "errorstats"),
		cmd("eval", "return redis.pcall('incr','s')", "0"),
		cmd("info", "errorstats"),
		cmd("eval", "return redis.call('lpush','s','x')", "0"),
		cmd("info", "errorstats"),
		cmd("eval", "return redis.call('nosuch')", "0"),
		cmd("eval", "error('x')", "0"),
		cmd("eval", "return {err='MYERR x'}", "0"),
		cmd("info", "errorstats"),
	})
}

func TestDiffScriptShebangAndNumbers(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "#!lua flags=no-writes\nreturn redis.call('set','a','b')", "0"),
		cmd("eval", "#!lua\nreturn 1", "0"),
		cmd("eval", "#!lua\nreturn x", "0"),
		cmd("eval", "#!luax\nreturn 1", "0"),
		cmd("eval", "#!lua flags=bad\nreturn 1", "0"),
		cmd("eval", "#!lua name=x\nreturn 1", "0"),
		cmd("eval", "#!lua flags=no-writes,allow-oom\nreturn redis.call('get','a')", "0"),
		cmd("eval", "#!lua flags=no-writes\nreturn redis.pcall('del','a')", "0"),
		cmd("eval", "return tostring(0.1+0.2) .. ' ' .. tostring(1/0) .. ' ' .. tostring(-1/0) .. ' ' .. tostring(2^53) .. ' ' .. tostring(1e-5) .. ' ' .. tostring(12) .. ' ' .. tostring(nil) .. ' ' .. tostring(true)", "0"),
		cmd("eval", "return {1e20, -1e20, 2^63, -2^63, 0/0}", "0"),
	})
}

func TestDiffScriptSelfReferencingTable(t *testing.T) {
	p := newDiffPair(t)
	raw := func(addr string) []byte {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("EVAL \"local t = {} t[1] = t return t\" 0\r\nPING\r\n"))
		var buf []byte
		tmp := make([]byte, 65536)
		for !bytes.HasSuffix(buf, []byte("+PONG\r\n")) {
			n, err := c.Read(tmp)
			if err != nil {
				t.Fatalf("read: %v (%d bytes)", err, len(buf))
			}
			buf = append(buf, tmp[:n]...)
		}
		return buf
	}
	o, r := raw(p.ours.addr), raw(p.real.addr)
	if !bytes.Equal(o, r) {
		t.Fatalf("ours %d bytes ending %q, redis %d bytes ending %q", len(o), o[max(0, len(o)-60):], len(r), r[max(0, len(r)-60):])
	}
}

func TestDiffScriptCjson(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "return cjson.encode({1,2,'a/b',{x=1},true,false})", "0"),
		cmd("eval", "return cjson.encode({[1]=1,[20]=2})", "0"),
		cmd("eval", "return cjson.encode({[1]=1,[3]=3})", "0"),
		cmd("eval", "return cjson.encode({})", "0"),
		cmd("eval", "return cjson.encode(1/0)", "0"),
		cmd("eval", "return cjson.encode(redis.call)", "0"),
		cmd("eval", "return cjson.encode('\\1\"\\\\\\n\\127')", "0"),
		cmd("eval", "return cjson.encode({0.1, -3, 1e20, 'x'})", "0"),
		cmd("eval", "return cjson.encode({[true]=1})", "0"),
		cmd("eval", "return cjson.encode(cjson.null)", "0"),
		cmd("eval", "return cjson.encode({a={b={c='d'}}})", "0"),
		cmd("eval", "return cjson.decode('[1,2,null,{\"a\":\"b\"}]')[4].a", "0"),
		cmd("eval", "return tostring(cjson.decode('null') == cjson.null)", "0"),
		cmd("eval", "local t = cjson.decode(ARGV[1]) return {t.name, t.n, #t.list, t.list[2]}", "0", `{"name":"x","n":42,"list":[1,"two",3]}`),
		cmd("eval", "return cjson.decode('\"\\\\u0041\\\\n\"')", "0"),
		cmd("eval", "cjson.x = 1", "0"),
	})
}

func TestDiffScriptNumkeysParsing(t *testing.T) {
	diff(t, [][]string{
		cmd("eval", "return #KEYS", "+1", "a"),
		cmd("eval", "return #KEYS", " 1", "a"),
		cmd("eval", "return #KEYS", "01", "a"),
		cmd("eval", "return #KEYS", "99999999999999999999", "a"),
		cmd("eval", "return #KEYS", "-0", "a"),
		cmd("eval", "return #KEYS", "1.0", "a"),
	})
}

func TestDiffScriptCommonPatterns(t *testing.T) {
	diff(t, [][]string{
		cmd("hset", "h", "a", "1", "b", "2"),
		cmd("zadd", "z", "1.5", "m1", "2", "m2"),
		cmd("eval", "local v = tonumber(redis.call('hget', KEYS[1], 'a')) return v + 10", "1", "h"),
		cmd("eval", "return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", "1", "z"),
		cmd("eval", "return redis.call('zscore', KEYS[1], 'm1')", "1", "z"),
		cmd("eval", "return redis.call('exists', KEYS[1], 'nokey')", "1", "h"),
		cmd("eval", "local n = 0 for i = 1, 10 do n = n + redis.call('incr', 'ctr') end return n", "0"),
		cmd("eval", "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", "1", "lock", "tok"),
		cmd("set", "lock", "tok"),
		cmd("eval", "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", "1", "lock", "tok"),
		cmd("eval", "return string.format('%.2f|%5s|%x', 3.14159, 'ab', 255)", "0"),
		cmd("eval", "local t = {} for w in string.gmatch('a b c', '%a+') do t[#t+1] = w end return t", "0"),
		cmd("eval", "return redis.call('type', KEYS[1])", "1", "h"),
		cmd("eval", "return redis.call('type', KEYS[1])['ok']", "1", "z"),
		cmd("eval", "return redis.call('ping')", "0"),
		cmd("eval", "return redis.call('hgetall', KEYS[1])", "1", "h"),
		cmd("eval", "redis.call('set', KEYS[1], ARGV[1], 'EX', 100) return redis.call('ttl', KEYS[1])", "1", "ek", "v"),
		cmd("eval", "return redis.call('mget', 'ek', 'nokey', 'ctr')", "0"),
		cmd("eval", "return redis.call('object', 'encoding', 'ctr')", "0"),
		cmd("eval", "return redis.call('lpush', KEYS[1], unpack(ARGV))", "1", "lst", "a", "b", "c"),
		cmd("eval", "return redis.call('sort', KEYS[1], 'alpha')", "1", "lst"),
	})
}

// Blocking commands are refused inside scripts, as in Redis 7.0.
func TestDiffScriptBlockingRefused(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "a"),
		cmd("EVAL", "return redis.call('blpop','nokey',0)", "0"),
		cmd("EVAL", "return redis.call('brpoplpush','nokey','x',0)", "0"),
		cmd("EVAL", "return redis.pcall('bzpopmin','z',0)", "0"),
		cmd("LLEN", "l"),
	})
}
