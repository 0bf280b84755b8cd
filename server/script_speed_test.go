package server

import (
	"strconv"
	"testing"
)

// A redis.call made as a statement keeps no result: its reply is not
// turned into a Lua value (Redis's "AOF with a slow script" loads 1.5M
// redis.call('ping')). A {ok=...} table cost four allocations a call.
// (scripting's TestLuaFrameLayout checks that the layout this needs is
// still gopher-lua's.)
func TestScriptCallStatementAllocs(t *testing.T) {
	ts := startOurServer(t)
	s := ts.s
	c := execClient(s, 99)
	const calls = 2000
	argv := [][]byte{[]byte("EVAL"), []byte("for i=1," + strconv.Itoa(calls) + " do redis.call('ping') end return 'ok'"), []byte("0")}
	s.mu.Lock()
	defer s.mu.Unlock()
	run := func() {
		c.out = c.out[:0]
		s.processCommand(c, argv)
		if string(c.out) != "$2\r\nok\r\n" {
			t.Fatalf("EVAL: %q", c.out)
		}
	}
	run() // compiled
	if n := testing.AllocsPerRun(5, run) / calls; n > 3 {
		t.Errorf("redis.call('ping') as a statement allocates %.1f times", n)
	}
}

// Skipping the reply of a statement changes nothing a script sees; the
// globals are read through the read-only view natively, and the chunks
// loadstring makes see that view too (Redis's globals table is itself
// read-only and raises on a missing name).
func TestDiffScriptResultsAndGlobals(t *testing.T) {
	diff(t, [][]string{
		cmd("set", "s", "str"),
		cmd("eval", "redis.call('ping') return 1", "0"),
		cmd("eval", "local r = redis.call('ping') return r.ok", "0"),
		cmd("eval", "return (redis.call('ping')).ok", "0"),
		cmd("eval", "local a, b = redis.call('ping') return {a.ok, tostring(b)}", "0"),
		cmd("eval", "local function f() return redis.call('ping') end f() return f().ok", "0"),
		cmd("eval", "redis.call('incr', 's') return 1", "0"),
		cmd("eval", "redis.pcall('incr', 's') return 1", "0"),
		cmd("eval", "redis.pcall('nosuch') return 1", "0"),
		cmd("eval", "redis.call('nosuch') return 1", "0"),
		cmd("eval", "local t = {redis.call('ping'), redis.call('get', 's')} return {t[1].ok, t[2]}", "0"),
		cmd("eval", "for i = 1, 3 do redis.call('incr', 'n') end return redis.call('get', 'n')", "0"),
		cmd("eval", "return nosuch", "0"),
		cmd("eval", "redis = 1", "0"),
		cmd("eval", "x = 1", "0"),
		cmd("eval", "return type(redis)", "0"),
		cmd("eval", "local ok, e = pcall(loadstring('x=1; return 2')) return {tostring(ok), e}", "0"),
		cmd("eval", "local ok, e = pcall(loadstring('return nosuch')) return {tostring(ok), e}", "0"),
		cmd("eval", "local ok, e = pcall(loadstring('redis = 1')) return {tostring(ok), e}", "0"),
		cmd("eval", "return loadstring('return redis.call(\\'ping\\')')()", "0"),
		cmd("eval", "return loadstring('return 7')()", "0"),
		cmd("eval", "return tostring(getmetatable(_G) ~= nil)", "0"),
		cmd("eval", "return type(getmetatable(_G).__index)", "0"),
		cmd("eval", "return rawget(_G, 'nosuch') == nil", "0"),
		cmd("eval", "return type(rawget(_G, 'redis'))", "0"),
	})
}
