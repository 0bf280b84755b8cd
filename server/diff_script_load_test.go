package server

import "testing"

// Lua 5.1's chunk loading in scripts (loadstring, load, string.dump: Redis
// refuses binary chunks) and the table library's deprecated functions,
// compared with redis-server.
func TestDiffScriptLoadString(t *testing.T) {
	ev := func(body string) []string { return cmd("EVAL", body, "0") }
	diff(t, [][]string{
		ev("local f, e = loadstring('\\27Lua') return e"),
		ev("local f, e = loadstring(string.dump(function() return 1 end)) return e"),
		ev("return type(string.dump)"),
		ev("return #string.dump(function() return 1 end) > 4"),
		ev("return string.dump(function() return 1 end):sub(1, 5)"),
		ev("local ok, e = pcall(string.dump, print) return e"),
		ev("local ok, e = pcall(string.dump) return e"),
		ev("return string.dump()"),
		ev("local f, e = loadstring('return 1 +') return e"),
		ev("local f, e = loadstring('x x', 'nm') return e"),
		ev("local f, e = loadstring('x x', '=nm') return e"),
		ev("local f, e = loadstring('x x', '@nm') return e"),
		ev("local f, e = loadstring('return 1\\n+') return e"),
		ev("local f, e = loadstring('a=1\\nreturn 1 +\\n') return e"),
		ev("local f, e = loadstring('return \"abc') return e"),
		ev("local f, e = loadstring('return 1 + aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa +') return e"),
		ev("local f, e = loadstring('\\nreturn 1 +') return e"),
		ev("local f, e = loadstring('x x', 'long name aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa') return e"),
		ev("local f, e = loadstring('bad script') return e"),
		ev("return loadstring('return 7')()"),
		ev("return loadstring('return ...')(5)"),
		ev("return loadstring()"),
		ev("local i=0 local f, e = load(function() i=i+1 if i==1 then return 'return 1 +' end end) return e"),
		ev("local i=0 local f, e = load(function() i=i+1 if i==1 then return '\\27Lua' end end) return e"),
		ev("local i=0 local f = load(function() i=i+1 if i==1 then return 'return 4' end end) return f()"),
		ev("local f, e = load(function() return {} end) return e"),
		ev("return load()"),
		ev("local f, e = load(function() error('boom') end) return e"),
		ev("local f, e = load(function() error('boom') end) return type(e)"),
		cmd("EVAL", "bad script", "0"),
		cmd("EVAL", "return 1 +", "0"),
		cmd("EVAL", "return '\x1b'", "0"),
		cmd("EVAL", "\x1bLua", "0"),
	})
}

func TestDiffScriptTableCompat(t *testing.T) {
	ev := func(body string) []string { return cmd("EVAL", body, "0") }
	diff(t, [][]string{
		ev("local t = {} for k in pairs(table) do t[#t+1] = k end table.sort(t) return t"),
		ev("local t = {} for k in pairs(string) do t[#t+1] = k end table.sort(t) return t"),
		ev("return rawget(string, '__index') == nil"),
		ev("return getmetatable('').__index == string"),
		ev("return ('abc'):upper()"),
		ev("local r = {} table.foreachi({'a','b','c'}, function(i, v) r[#r+1] = i .. v end) return r"),
		ev("return table.foreachi({'a','b','c'}, function(i, v) if i == 2 then return v end end)"),
		ev("local n = 0 table.foreach({a=1, b=2, 3}, function(k, v) n = n + v end) return n"),
		ev("return table.foreach({x=5}, function(k, v) return k .. v end)"),
		ev("local n = 0 table.foreach(redis, function() n = n + 1 end) return n > 10"),
		ev("return table.foreach()"),
		ev("return table.foreach({})"),
		ev("return table.foreachi(1, print)"),
		ev("return table.setn({}, 1)"),
		ev("return table.setn(1)"),
		ev("local ok, e = pcall(table.setn, {}) return e"),
		ev("return table.getn({1,2,3})"),
	})
}

// Runtime errors on operands without a name (temporaries), worded as Lua
// 5.1's luaG_aritherror / luaG_concaterror, and setmetatable's checks.
func TestDiffScriptOperandErrors(t *testing.T) {
	ev := func(body string) []string { return cmd("EVAL", body, "0") }
	diff(t, [][]string{
		ev("local ok, e = pcall(function() return 1 + {} end) return e"),
		ev("local ok, e = pcall(function() return {} * 2 end) return e"),
		ev("local ok, e = pcall(function() return '3' - {} end) return e"),
		ev("local ok, e = pcall(function() return 'x' / 1 end) return e"),
		ev("local ok, e = pcall(function() return 2 ^ true end) return e"),
		ev("local ok, e = pcall(function() return 5 % 'a' end) return e"),
		ev("local ok, e = pcall(function() return {} .. 'a' end) return e"),
		ev("local ok, e = pcall(function() return 'a' .. {} end) return e"),
		ev("local ok, e = pcall(function() return 1 .. true end) return e"),
		ev("return 1 + {}"),
		ev("return 'a' .. {}"),
		ev("local ok, e = pcall(setmetatable, 1, {}) return e"),
		ev("local ok, e = pcall(setmetatable, {}, 1) return e"),
		ev("local ok, e = pcall(setmetatable, {}) return e"),
		ev("return getmetatable(setmetatable({}, nil))"),
		ev("return setmetatable(1, {})"),
	})
}

// FUNCTION LOAD: a NUL in the shebang line (Redis's strchr finds no end
// of line), and parse errors worded as Lua 5.1's parser.
func TestDiffFunctionLoadMetaAndSyntax(t *testing.T) {
	diff(t, [][]string{
		cmd("FUNCTION", "LOAD", "#!lua name=bad\x00name\nredis.register_function('f', function() return 1 end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=ok\nredis.register_function('f', function() return '\x00' end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=a\nbad script"),
		cmd("FUNCTION", "LOAD", "#!lua name=a\nredis.register_function('f', function()\n error \nend)"),
		cmd("FUNCTION", "LOAD", "#!lua name=a\nreturn 1 +"),
		cmd("FUNCTION", "FLUSH"),
	})
}
