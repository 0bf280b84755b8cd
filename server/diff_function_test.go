package server

import (
	"strings"
	"testing"
)

const fnLib1 = "#!lua name=mylib\n" +
	"redis.register_function('setit', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n" +
	"redis.register_function{function_name='getit', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads'}\n"

func TestDiffFunctionLoadErrors(t *testing.T) {
	load := func(code string) []string { return cmd("function", "load", code) }
	diff(t, [][]string{
		load(fnLib1),
		load(fnLib1),
		cmd("function", "load", "replace", fnLib1),
		cmd("function", "load", "REPLACE", "xx", fnLib1),
		cmd("function", "load"),
		cmd("function", "load", "replace"),
		load("#!lua name=x\nredis.call('set','a','b')"),
		load("#!lua name=x\nreturn 1"),
		load("#!lua name=x\nredis.register_function('a-b', function() end)"),
		load("#!lua name=x\nredis.register_function('setit', function() end)"),
		load("#!lua name=x\nredis.register_function('SETIT', function() end)"),
		load("#!lua name=x x=y\nredis.register_function('f1', function() end)"),
		load("#!lua\nredis.register_function('f1', function() end)"),
		load("#!foo name=bar\nredis.register_function('f1', function() end)"),
		load("foo"),
		load("#!lua name=x"),
		load("#!lua name=x\nfoo("),
		load("#!lua name=x\nerror('boom')"),
		load("#!lua name=x\nlocal a = redis.setresp(3)"),
		load("#!lua name=x\na = 5"),
		load("#!lua name=x\nlocal a = string.len('x')"),
		load("#!lua name=x\nwhile true do end"),
		load("#!lua name=x\nredis.register_function('a', function() end)\nredis.register_function('a', function() end)"),
		load("#!lua name=x\nredis.register_function{function_name='a', callback=function() end, flags={'foo'}}"),
		load("#!lua name=x\nredis.register_function{function_name='a', callback=function() end, flags='foo'}"),
		load("#!lua name=x\nredis.register_function{function_name='a'}"),
		load("#!lua name=x\nredis.register_function{callback=function() end}"),
		load("#!lua name=x\nredis.register_function{function_name='a', callback=function() end, foo=1}"),
		load("#!lua name=x\nredis.register_function{function_name='a', callback=5}"),
		load("#!lua name=x\nredis.register_function{function_name='a', callback=function() end, description=5}"),
		load("#!lua name=x\nredis.register_function('a')"),
		load("#!lua name=x\nredis.register_function(1, 2, 3)"),
		load("#!lua name=x\nredis.register_function(5)"),
		load("#!lua name=x\nredis.register_function({}, 2)"),
		load("#!lua name=x\nredis.register_function('b', 5)"),
		load("#!lua name=x\nredis.register_function()"),
		load("#!lua name=y4 name=y5\nredis.register_function('b4', function() return 1 end)"),
		load("#!lua name=\"y 7\"\nredis.register_function('b7', function() return 1 end)"),
		load("#!lua name=\"y7\nredis.register_function('b7', function() return 1 end)"),
		load("#!lua name=\nredis.register_function('b7', function() return 1 end)"),
		load("#!\nredis.register_function('b7', function() return 1 end)"),
		load("#!LUA NAME=up\nredis.log(redis.LOG_WARNING, 'hi')\nredis.register_function('up', function() return redis.REDIS_VERSION_NUM end)"),
		load("#!lua name=flags\nredis.register_function{function_name='fl', callback=function() return 1 end, flags={'no-writes','ALLOW-OOM','allow-stale','no-cluster','allow-cross-slot-keys'}}"),
		load("#!lua name=num\nredis.register_function{function_name=5, callback=function() return 1 end}"),
		// two functions: Redis lists them in (seeded) dict order
		nocmp("function", "list", "libraryname", "mylib", "withcode"),
		cmd("function", "list", "libraryname", "flags"),
		cmd("function", "list", "libraryname", "num"),
		cmd("function", "list", "libraryname", "nomatch*"),
		cmd("function", "list", "withcode", "libraryname", "u*"),
		cmd("function", "list", "libraryname"),
		cmd("function", "list", "foo"),
		cmd("function", "list", "withcode", "withcode"),
		cmd("fcall", "up", "0"),
		cmd("fcall", "5", "0"),
	})
}

func TestDiffFunctionCommands(t *testing.T) {
	diff(t, [][]string{
		cmd("function", "stats"),
		cmd("function", "list"),
		cmd("function", "dump"),
		cmd("function", "load", fnLib1),
		cmd("function", "stats"),
		nocmp("function", "list"),
		cmd("function", "list", "libraryname", "nomatch"),
		cmd("function", "dump"),
		cmd("fcall", "setit", "1", "k", "v"),
		cmd("fcall", "SETIT", "1", "k", "v2"),
		cmd("fcall_ro", "setit", "1", "k", "v"),
		cmd("fcall_ro", "getit", "1", "k"),
		cmd("fcall", "getit", "1", "k"),
		cmd("fcall", "nosuch", "0"),
		cmd("fcall", "setit", "x"),
		cmd("fcall", "setit", "5", "a"),
		cmd("fcall", "setit", "-1", "a"),
		cmd("fcall", "setit"),
		cmd("function", "delete", "nosuch"),
		cmd("function", "delete"),
		cmd("function", "delete", "a", "b"),
		cmd("function", "flush", "foo"),
		cmd("function", "flush", "sync", "x"),
		cmd("function", "restore"),
		cmd("function", "restore", "garbage"),
		cmd("function", "restore", "x", "y", "z"),
		cmd("function", "restore", "x", "foo"),
		cmd("function", "kill"),
		cmd("function", "kill", "x"),
		cmd("script", "kill"),
		cmd("function", "nosuch"),
		cmd("function", "help"),
		cmd("function", "delete", "mylib"),
		cmd("fcall", "setit", "1", "k", "v"),
		cmd("function", "list"),
		cmd("function", "load", fnLib1),
		cmd("function", "flush"),
		cmd("function", "load", fnLib1),
		cmd("function", "flush", "async"),
		cmd("function", "load", fnLib1),
		cmd("function", "flush", "SYNC"),
		cmd("function", "stats"),
		cmd("fcall", "getit", "1", "k"),
		cmd("get", "k"),
		// SCRIPT FLUSH leaves the libraries alone
		cmd("function", "load", fnLib1),
		cmd("script", "flush"),
		cmd("fcall", "setit", "1", "k", "after-flush"),
		cmd("eval", "return redis.call('function', 'delete', 'mylib')", "0"),
		cmd("eval", "return redis.call('fcall', 'getit', '1', 'k')", "0"),
		cmd("flushall"),
		cmd("fcall", "getit", "1", "k"),
		cmd("function", "delete", "mylib"),
	})
}

func TestDiffFunctionRuntime(t *testing.T) {
	lib := "#!lua name=rt\n" +
		"local function helper(x) return x * 2 end\n" +
		"redis.register_function('e1', function(keys, args) error('boom') end)\n" +
		"redis.register_function('e2', function(keys, args) return redis.call('nosuch') end)\n" +
		"redis.register_function('e3', function(keys, args) return redis.error_reply('MY err') end)\n" +
		"redis.register_function('e4', function(keys, args) return x.y end)\n" +
		"redis.register_function('e5', function(keys, args) return redis.call('incr', keys[1]) end)\n" +
		"redis.register_function('e6', function(keys, args) error({err='XX custom'}) end)\n" +
		"redis.register_function('e7', function(keys, args) return {1,2,{3,'a'}, redis.status_reply('OK'), helper(21)} end)\n" +
		"redis.register_function('e9', function(keys, args) a = 1 end)\n" +
		"redis.register_function('e10', function(keys, args) return tostring(KEYS) end)\n" +
		"redis.register_function('e11', function(keys, args) local t = {} for i,v in ipairs(args) do t[#t+1]=v end for i,v in ipairs(keys) do t[#t+1]=v end return t end)\n" +
		"redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('set', keys[1], 'x') end, flags={'no-writes'}}\n" +
		"redis.register_function('multi', function(keys, args) redis.call('set', keys[1], '1') redis.call('incr', keys[1]) return redis.call('get', keys[1]) end)\n" +
		"redis.register_function('pc', function(keys, args) local r = redis.pcall('incr', keys[1]) return r end)\n"
	diff(t, [][]string{
		cmd("function", "load", lib),
		cmd("set", "s", "abc"),
		cmd("fcall", "e1", "0"),
		cmd("fcall", "e2", "0"),
		cmd("fcall", "e3", "0"),
		cmd("fcall", "e4", "0"),
		cmd("fcall", "e5", "1", "s"),
		cmd("fcall", "e6", "0"),
		cmd("fcall", "e7", "0"),
		cmd("fcall", "e9", "0"),
		cmd("fcall", "e10", "0"),
		cmd("fcall", "e11", "2", "k1", "k2", "a", "b", "c"),
		cmd("fcall", "ro", "1", "x"),
		cmd("fcall_ro", "ro", "1", "x"),
		cmd("fcall", "multi", "1", "m"),
		cmd("fcall", "pc", "1", "s"),
		cmd("fcall_ro", "e3", "0"),
		cmd("eval", "return redis.call('fcall', 'e3', '0')", "0"),
		cmd("multi"),
		cmd("fcall", "multi", "1", "m2"),
		cmd("fcall", "e3", "0"),
		cmd("exec"),
	})
}

func TestDiffCmsgpack(t *testing.T) {
	ev := func(script string, args ...string) []string {
		return append([]string{"eval", script, "0"}, args...)
	}
	hex := "local s = cmsgpack.pack(%s) local h = {} for i = 1, math.min(#s, 40) do h[#h+1] = string.format('%%02x', s:byte(i)) end return {#s, table.concat(h)}"
	pack := func(expr string) []string { return ev(fmtLua(hex, expr)) }
	diff(t, [][]string{
		pack("0"), pack("1"), pack("127"), pack("128"), pack("255"), pack("256"), pack("65535"), pack("65536"),
		pack("4294967295"), pack("4294967296"), pack("-1"), pack("-32"), pack("-33"), pack("-128"), pack("-129"),
		pack("-32768"), pack("-32769"), pack("-2147483648"), pack("-2147483649"), pack("2^53"), pack("-2^63"), pack("2^63"), pack("2^64"),
		pack("0.5"), pack("1.1"), pack("-0.25"), pack("3.4028234663852886e38"), pack("1e300"), pack("1/0"), pack("-1/0"), pack("0/0"),
		pack("''"), pack("'abc'"), pack("string.rep('x', 31)"), pack("string.rep('x', 32)"), pack("string.rep('x', 255)"),
		pack("string.rep('x', 256)"), pack("string.rep('x', 65535)"), pack("string.rep('x', 65536)"),
		pack("true"), pack("false"), pack("nil"), pack("{}"), pack("{1,2,3}"), pack("{1,'a',{true,false}}"),
		pack("{a=1}"), pack("{[1]=1,[3]=3}"), pack("{[1.5]=1}"), pack("{[-1]=1}"), pack("{[0]=1}"),
		pack("{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}"), pack("1, 'two', {3}"), pack("print"),
		pack("{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}"),
		ev("local t = {} for i = 1, 20 do t['k'..i] = nil end t.only = {1,2} return cmsgpack.pack(t)"),
		ev("return {cmsgpack.unpack(cmsgpack.pack(1, -1, 'x', {1, 2, {3}}, true))}"),
		ev("local a, b, c = cmsgpack.unpack(cmsgpack.pack(0.5, 1e300, 2^40)) return {tostring(a), tostring(b), tostring(c)}"),
		ev("local t = cmsgpack.unpack(cmsgpack.pack({a=1, b={2, 3}})) return {t.a, t.b[1], t.b[2]}"),
		ev("return cmsgpack.unpack(ARGV[1])", "\x92\x01\xc0"),
		ev("return {cmsgpack.unpack(ARGV[1])}", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff"),
		ev("return {cmsgpack.unpack(ARGV[1])}", "\xd3\xff\xff\xff\xff\xff\xff\xff\xfe"),
		ev("return {cmsgpack.unpack(ARGV[1])}", "\xd1\xff\x80\xcd\x12\x34\xd0\x80\xe0\x7f\xce\x80\x00\x00\x00\xd2\x80\x00\x00\x00"),
		ev("return {cmsgpack.unpack(ARGV[1])}", "\xd9\x03abc\xda\x00\x01x\xdb\x00\x00\x00\x02yz\xa0"),
		ev("return {cmsgpack.unpack(ARGV[1])}", "\xdc\x00\x02\x01\x02\xdd\x00\x00\x00\x01\x05\xc3\xc2"),
		ev("local t = cmsgpack.unpack(ARGV[1]) return {t.a, t.b}", "\xde\x00\x02\xa1a\x01\xa1b\x02"),
		ev("return cmsgpack.unpack(ARGV[1])", "\x93\x01"),
		ev("return cmsgpack.unpack(ARGV[1])", "\xc1"),
		ev("return cmsgpack.unpack(ARGV[1])", "\xda\x00"),
		ev("return {cmsgpack.unpack('')}"),
		ev("return cmsgpack.unpack()"),
		ev("return cmsgpack.pack()"),
		ev("return {cmsgpack.unpack_one(ARGV[1])}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_one(ARGV[1], 2)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_one(ARGV[1], 3)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_one(ARGV[1], 4)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_one(ARGV[1], -1)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_limit(ARGV[1], 2)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_limit(ARGV[1], 2, 1)}", "\x01\x02\x03"),
		ev("return {cmsgpack.unpack_limit(ARGV[1], 0)}", "\x01\x02\x03"),
		ev("return cmsgpack.unpack(cmsgpack.pack('x' .. 5))"),
		ev("return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.lshift(1, 4), bit.rshift(-1, 28), bit.arshift(-16, 2), bit.tohex(255), bit.tohex(-1, -4), bit.bnot(0), bit.rol(1, 33), bit.ror(1, 1), bit.bswap(0x12345678), bit.tobit(2^32 + 5)}"),
	})
}

// fmtLua formats a Lua snippet (kept apart so the format verb is clear).
func fmtLua(format, expr string) string {
	return strings.ReplaceAll(strings.ReplaceAll(format, "%s", expr), "%%", "%")
}
