package server

import (
	"strings"
	"testing"
)

// Lua 5.1's runtime error messages (ldebug.c luaG_typeerror and friends:
// "attempt to index local 't' (a nil value)") for every shape of operand
// the VM can name — local, global, field, upvalue, method, constant,
// temporary — raised at the top of a script, inside pcall and xpcall, and
// in Lua functions called from Go (table.sort, string.gsub), compared with
// redis-server 7.0.15.

// luaErrorBodies are statements that fail at run time.
var luaErrorBodies = []string{
	// call
	"local f; f()",
	"local x = 5; x()",
	"KEYS()",
	"redis.nosuch()",
	"string.nosuch('a')",
	"local t = {} t.x.y()",
	"local t = {} t:m()",
	"local s = 'abc' s:nosuch()",
	"local o; o:m()",
	"local u; (function() u() end)()",
	"return ('x')()",
	"return (nil)()",
	"local t = {} t[1]()",
	"local t, k = {}, 'a' t[k]()",
	"local a = {b = {}} a.b.c()",
	"local t = setmetatable({}, {__call = 5}) t()",
	"local t = setmetatable({}, {}) return t()",
	"for k in nil do end",
	"for k, v in 5 do end",
	"local f = nil; local g = f; g()",
	"local function r() return nil end r()()",
	"return loadstring(string.dump(function() return 1 end))()",
	// index
	"local t = nil; return t.x",
	"local t; t.x = 1",
	"local t = 5; return t[1]",
	"return KEYS[1].x",
	"return ARGV.x.y",
	"local a = {} a.b.c = 1",
	"local a = {} return a.b.c",
	"local t = {} t.x.y.z = 1",
	"local u; return (function() return u.x end)()",
	"local u; (function() u.x = 1 end)()",
	"return (true).x",
	"local s = 'abc' return s.x.y",
	"local t = setmetatable({}, {__index = 5}) return t.x",
	"local t = {} local k = 'q' return t[k][k]",
	"local t = {{}} return t[1][2][3]",
	"local n = 1; n[2] = 3",
	// arithmetic
	"local x; return x + 1",
	"return 1 + {}",
	"local t = {} return t * 2",
	"return 'a' + 1",
	"local s = 'a' return 1 - s",
	"return -{}",
	"local t = {} return -t",
	"local s = 'z' return -s",
	"local n; return n ^ 2",
	"return 2 % nil",
	"local a, b = 1, {} return a / b",
	"local a, b = {}, 1 return a / b",
	"local a, b = 'x', 'y' return a * b",
	"return ('x'):rep(2) + 1",
	"local t = {} return t.n + 1",
	"local u = {} return (function() return u + 1 end)()",
	"local x = 1 local y = x local z = y return z + nil",
	// concatenation
	"local x; return 'a' .. x",
	"return {} .. 'a'",
	"local t = {} return t .. 'a' .. 'b'",
	"local a, b = 'x', nil return a .. b .. 'c'",
	"return 1 .. nil",
	"local t = {} return 'a' .. 'b' .. t",
	"local x = true; return x .. x",
	"local a, b = {}, {} return a .. b",
	"local t = {} return t.s .. 'x'",
	"local t = {} return 'x' .. t.s .. 'y' .. 1",
	// length
	"return #nil",
	"local x = 5 return #x",
	"local u = true; return (function() return #u end)()",
	"local t = {} return #t.x",
	// comparison
	"return 'a' < 1",
	"return {} < {}",
	"return 1 < 'x'",
	"return nil > 1",
	"return {} <= {}",
	"local a, b = true, false return a < b",
	"return function() end < function() end",
	"local a, b = 1, 'x' return a >= b",
	"return coroutine.create(function() end) < 'x'",
	// numeric for
	"for i = 'a', 2 do end",
	"for i = 1, {} do end",
	"for i = 1, 2, nil do end",
	// in a vararg function (its locals start past the extra arguments)
	"local function f(...) local t; return t.x end return f(1, 2, 3)",
	"local function f(a, ...) return a.b end return f(nil, 2)",
	// in Lua called from Go
	"local t = {3, 1, 2} table.sort(t, function(a, b) local n; return n.x end)",
	"table.sort({1, 'x'})",
	"table.sort({{}, {}})",
	"return string.gsub('abc', '%w', function(c) local z; return z.y end)",
	"return loadstring('local t; return t.x')()",
	// argument errors of the libraries (luaL_argerror: the name the caller
	// used, '?' from Go code, a method's self not counted)
	"string.rep()",
	"return string.rep()",
	"local s = string.rep; s()",
	"return ('x'):rep()",
	"return ('x'):rep('y')",
	"return string.sub()",
	"return math.floor('x')",
	"return tonumber()",
	"return ipairs()",
	"table.insert(nil, 1)",
	"return string.byte(nil)",
	"local t = {f = string.upper} return t.f()",
	"return pcall(string.rep)",
	"return pcall(string.rep, 'x', {})",
	"return unpack(nil)",
	"return setmetatable(1, {})",
	"return tostring()",
	"return type()",
	"local n = 0 for k, v in pairs({1, 2}) do n = n + v end for i, v in ipairs({3}) do n = n + v end return n",
	"return pairs()",
	"return pcall()",
	"return rawget()",
	"return next()",
	"return getmetatable()",
	// a block's locals are out of scope after it, their registers reused
	"do local a = 1 end local v = KEYS.x.y",
	"if true then local a = 1 end\nlocal v = KEYS.x.y",
	"if true then local a = 1 end local v = ARGV.q + 1",
	"for i = 1, 2 do local z = i end local q = KEYS.x.y",
	"local a = 1 do local b, c = 2, 3 end local d = KEYS.x.y",
	"local t = {} for k, v in pairs({1}) do local w = v end return t.a.b",
	"while true do local w = 1 break end local r = KEYS.x.y",
	"if false then local a = 1 elseif true then local b = 2 end local c = KEYS.x.y",
	"local t = {} for i = 1, 3 do local u = t[i] local w = u.x end",
	"for i = 1, 2 do if i == 2 then local a = 1 end local b = ARGV[i].x end",
	"local function f(a, b) local c = a + b return c end return f(1, {})",
	"local o = {} function o:m(x) return self.y.z end return o:m(1)",
	"local o = {} function o.m(x) return x.y end return o.m()",
	"local a, b, c = 1 return c.x",
	"local x = 1 local x = nil return x.y",
	"local f = function(...) local a, b = ... return b.c end return f(1)",
	// many locals: registers past the first few
	"local a, b, c, d, e, f, g, h, i, j = 1, 2, 3, 4, 5, 6, 7, 8, 9 return a + j",
}

// TestDiffLuaRuntimeErrors runs each body at a script's top level (the
// error reply) and under pcall (the message as a value).
func TestDiffLuaRuntimeErrors(t *testing.T) {
	var steps [][]string
	for _, b := range luaErrorBodies {
		steps = append(steps,
			cmd("EVAL", b, "0"),
			cmd("EVAL", "local ok, e = pcall(function() "+b+" end) return {tostring(ok), e}", "0"),
		)
	}
	diff(t, steps)
}

// TestDiffLuaRuntimeErrorsNested: the handlers of pcall and xpcall see the
// message as Lua 5.1 words it, at any depth.
func TestDiffLuaRuntimeErrorsNested(t *testing.T) {
	ev := func(body string) []string { return cmd("EVAL", body, "0") }
	diff(t, [][]string{
		ev("return xpcall(function() local q; q.x = 1 end, function(m) return 'H:' .. m end)"),
		ev("return {xpcall(function() local q; q() end, function(m) return m end)}"),
		ev("return {xpcall(function() return 1, 2 end, function(m) return m end)}"),
		ev("local ok, e = pcall(function() local ok2, e2 = pcall(function() local z; z() end) error(e2, 0) end) return e"),
		ev("local ok, e = pcall(function() local ok2, e2 = pcall(function() local z; z() end) local w; return w.q end) return e"),
		ev("return {pcall(pcall, function() local z; return z.x end)}"),
		ev("return {xpcall(function() return pcall(function() local z; return z + 1 end) end, function(m) return 'H' .. m end)}"),
		ev("return {xpcall(function() local ok, e = pcall(error, 'x') local n; return n.q end, function(m) return 'H' .. m end)}"),
		ev("local ok, e = pcall(function() return xpcall(function() local v; return #v end, function(m) local h; return h.x end) end) return {tostring(ok), e}"),
		ev("local f = coroutine.wrap(function() local t; t() end) return {pcall(f)}"),
		ev("return {xpcall(coroutine.wrap(function() local t; return t.x end), function(m) return 'H:' .. m end)}"),
		ev("local co = coroutine.create(function() local t; return t.x end) return {coroutine.resume(co)}"),
		ev("local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b.x end) local r = {coroutine.resume(co, 1)} local r2 = {coroutine.resume(co, 5)} return {r[2], r2[2], coroutine.status(co)}"),
		ev("local co = coroutine.create(function() local ok, e = pcall(function() local q; q() end) coroutine.yield(e) return #nil end) return {select(2, coroutine.resume(co)), select(2, coroutine.resume(co))}"),
		ev("return {coroutine.resume(coroutine.create(string.rep))}"),
		ev("local f = coroutine.wrap(function(...) return select('#', ...) end) return f(1, 2, 3)"),
		ev("return coroutine.create()"),
		ev("return coroutine.wrap(print)"),
		ev("return {pcall(coroutine.create, 1)}"),
		// a closure made in the failed call keeps its upvalues' values
		ev("local g pcall(function() local x = 5 g = function() return x end error('e') end) local a, b, c = 1, 2, 3 return g()"),
		ev("local g pcall(function() local x = 5 g = function() return x end local n; return n.x end) local a, b, c = 1, 2, 3 return g()"),
		ev("local g xpcall(function() local x = 5 g = function() return x end error('e') end, function(m) return m end) local a, b, c = 1, 2, 3 return g()"),
		ev("local g pcall(function() local x = 5 g = function() x = x + 1 return x end error('e') end) local a, b, c = {}, {}, {} return {g(), g()}"),
		ev("return {xpcall(function() error('x') end, function(m) error('in handler') end)}"),
		ev("return {pcall(error)}"),
		ev("return {pcall(nil)}"),
		ev("return {pcall(function() error({}) end)}"),
		ev("local ok, e = pcall(function() error(setmetatable({}, {__tostring = function() return 'T' end})) end) return tostring(e)"),
		ev("local function f() return f() + 1 end local ok, e = pcall(f) return e"),
		ev("local x = 1 local function bump() x = x + 1 end pcall(function() local n; return n.x end) bump() return x"),
		ev("local x = 1 local function bump() x = x + 1 end pcall(function() pcall(error, 'e') local n; return n.x end) bump() return x"),
	})
}

// TestDiffLuaRuntimeErrorsFunction: the same messages from FCALL (the
// chunk is user_function, the body a function registered by the library).
func TestDiffLuaRuntimeErrorsFunction(t *testing.T) {
	var steps [][]string
	for _, b := range []string{
		"local t; return t.x",
		"local f; f()",
		"redis.register_function('f2', function() return 2 end)",
		"local a = {} a.b.c = 1",
		"return KEYS[1] + 1",
		"return ARGV .. 'x'",
	} {
		lib := "#!lua name=lib\nlocal up\nredis.register_function('f', function(KEYS, ARGV)\n" + b + "\nend)\n" +
			"redis.register_function('g', function(KEYS, ARGV)\nlocal ok, e = pcall(function() " + b + " end) return e\nend)\n" +
			"redis.register_function('u', function(KEYS, ARGV)\nreturn up.x\nend)"
		steps = append(steps,
			cmd("FUNCTION", "LOAD", "REPLACE", lib),
			cmd("FCALL", "f", "0"),
			cmd("FCALL", "g", "0"),
			cmd("FCALL", "u", "0"),
		)
	}
	steps = append(steps,
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib2\nlocal t\nt.x = 1"),
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib2\nlocal f\nf()"),
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib2\nredis.call('ping')"),
	)
	diff(t, steps)
}

// TestLuaErrorNamesAvailable: the error handlers read gopher-lua's call
// frames by reflection; if its layout changed they fall back to unnamed
// messages, which this test turns into a failure (scripting's
// TestLuaFrameLayout says why).
func TestLuaErrorNamesAvailable(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	got := c.do("EVAL", "local t = nil; return t.x", "0")
	if want := "attempt to index local 't' (a nil value)"; !strings.Contains(got, want) {
		t.Fatalf("EVAL replied %q, want %q in it", got, want)
	}
}

// TestDiffLuaLibraryErrors: the libraries' argument checks and messages
// where gopher-lua's differ from Lua 5.1's.
func TestDiffLuaLibraryErrors(t *testing.T) {
	var steps [][]string
	for _, b := range []string{
		"return math.max()", "return math.min()", "return math.max(3, '7', 5)", "return math.min('x')",
		"return select('x')", "return select()", "return select(-5, 1)", "return select(0, 1)",
		"return select('#', 1, 2)", "return select('#x', 1, 2)", "return select('2', 'a', 'b', 'c')",
		"return select(-1, 'a', 'b')", "return select(2.7, 'a', 'b', 'c')",
		"return string.char(-1)", "return string.char(256)", "return string.char('65', 66.9)", "return string.char()",
		"return string.char('x')", "return ('x').char(97)",
		"return table.insert({}, 1, 2, 3)", "return table.insert({})", "return table.insert(1, 2)",
		"local t = {} table.insert(t, 'a') table.insert(t, 1, 'b') return t",
		"return table.concat({{}})", "return table.concat({1, {}, 3})",
		"return coroutine.resume(1)", "return coroutine.status(1)", "return coroutine.status()",
		"local ok, e = pcall(coroutine.yield) return e",
		"return tonumber('10', 99)", "return tonumber('10', 1)", "return tonumber('ff', 16)", "return tonumber('10', 10)",
		"return tonumber('z', 36)", "return tonumber('10', 'x')",
		"return next({}, 'nokey')", "return next({a = 1}, 'a')", "return next({1}, 1)",
		"return rawset({}, nil, 1)", "local t = {} t[nil] = 1", "return rawset({}, 0/0, 1)",
		"return string.gsub('a', 'a', true)", "return {pcall(string.gsub, 'a', 'a')}", "return ('abc'):gsub('b', 5)",
		"return string.gsub('a')",
		"return string.gsub('abc', '%w', {a = {}})", "return string.gsub('abc', '%w', {a = 1.5, b = true})",
		"return string.gsub('abc', '%w', {a = 'A', b = false})", "return string.gsub('abc', '(%w)', function(c) return c == 'b' and 0.1 + 0.2 end)",
		"return string.gsub('abc', '%w', function() return {} end)", "return string.gsub('a1b2', '(%a)(%d)', function(a, d) return d .. a end)",
		"return string.gsub('abc', '()b', {[2] = 'X'})", "local ok, e = pcall(string.gsub, 'abc', '%w', {a = {}}) return e",
		"return assert()", "return assert(false)", "return assert(nil, 'msg')", "return assert(1, 2, 3)",
	} {
		steps = append(steps, cmd("EVAL", b, "0"),
			cmd("EVAL", "local ok, e = pcall(function() "+b+" end) return {tostring(ok), e}", "0"))
	}
	diff(t, steps)
}

// TestDiffLuaStringFormat: string.format as Lua 5.1's str_format (C's
// sprintf per conversion, its errors).
func TestDiffLuaStringFormat(t *testing.T) {
	var steps [][]string
	for _, b := range []string{
		"return string.format('%d', 'x')", "return string.format('%s')", "return string.format()", "return string.format('%y', 1)",
		"return string.format('%')", "return string.format('%5')", "return string.format('%-+ #0-d', 1)", "return string.format('%123d', 1)",
		"return string.format('%1.123f', 1)",
		"return string.format('%d %i %5d %-5d| %05d %+d % d %.3d', 1, 2.9, 3, 4, 5, 6, 7, 8)",
		"return string.format('%d', -2.9)", "return string.format('%d', 1e300)", "return string.format('%d', '12')",
		"return string.format('%x %X %o %u %#x %#o %#x %5x|%-5x|', 255, 255, 8, 42, 255, 8, 0, 10, 10)",
		"return string.format('%x', -1)", "return string.format('%u', -1)", "return string.format('%+x % x', 5, 5)",
		"return string.format('%e %E %.2e %f %.3f %10.2f|%-10.2f| %g %G %.3g %g %g %g', 1234.5, 0.00012, 3, 1/3, 2/3, 3.14159, 2.5, 123456789, 1e-10, 0.0001234, 100000, 1e6, 0.1)",
		"return string.format('%f %e %g %5.1f %-6f| %+f', 1/0, -1/0, 0/0, 1/0, -1/0, 1/0)",
		"return string.format('%#g %#.3g %#x', 1, 2.5, 255)",
		"return string.format('%c%c%c', 76, 117, 97)", "return string.format('%5c|%-5c|', 65, 66)",
		"return string.format('%q', 'a\"b\\\\c\\nd\\re\\0f')", "return string.format('%q', 1.5)",
		"return string.format('%s %s %s', 1, 'x', 2.5)", "return string.format('%.2s|%5s|%-5s|%5.1s|', 'abc', 'ab', 'ab', 'xyz')",
		"return string.format('%s', string.rep('x', 150))", "return string.format('%.120s', string.rep('y', 150))",
		"return string.format('%s', 'a\\0b')", "return string.format('%s', {})", "return string.format('%d', {})",
		"return string.format('%5.2f%%', 99.555)", "return string.format('no conversions')", "return string.format(12)",
		"return ('%d-%d'):format(1, 2)", "return string.format('%s', nil)",
	} {
		steps = append(steps, cmd("EVAL", b, "0"))
	}
	diff(t, steps)
}

// TestDiffLuaRuntimeErrorsTypical: the mistakes scripts make with what
// redis.call returns (false for a missing key, a table, a status).
func TestDiffLuaRuntimeErrorsTypical(t *testing.T) {
	var steps [][]string
	for _, b := range []string{
		"local v = redis.call('get', 'nokey') return v:upper()",
		"return redis.call('get', 'nokey') .. 'x'",
		"return tonumber(redis.call('get', 'nokey')) + 1",
		"local cfg = cjson.decode('{}') return cfg.limits.max",
		"local r = redis.call('hgetall', 'nokey') return r[1].x",
		"local n = redis.call('incr', 'c') return n.x",
		"local s = redis.call('set', 'k', 'v') return s + 1",
		"local t = redis.call('keys', '*') for i = 1, #t + 1 do local k = t[i] local l = #k end",
		"local data = {} data[KEYS[1]].count = 1",
		"local function add(a, b) return a + b end return add(ARGV[1], ARGV[2])",
		"local m = {} function m.run(self) return self.x.y end return m:run()",
		"local a = ARGV a[1] = a[1] + 1",
		"for _, k in ipairs(KEYS) do redis.call('del', k) end return KEYS.missing.field",
	} {
		steps = append(steps, cmd("EVAL", b, "1", "kk"))
	}
	diff(t, steps)
}
