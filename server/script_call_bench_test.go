package server

import (
	"strconv"
	"testing"
)

// benchScriptCalls runs one EVAL whose script makes b.N redis.call's of
// cmd (a Lua argument list), so ns/op and allocs/op are those of one
// redis.call round trip: argument conversion, command lookup, call() and
// the reply converted to a Lua value. Redis's tests/integration/aof.tcl
// "AOF with a slow script" loads an EVAL of 1.5M redis.call('ping').
func benchScriptCalls(b *testing.B, fake bool, cmd string) {
	ts := startOurServer(b)
	s := ts.s
	c := execClient(s, 99)
	if fake {
		// the AOF loader's case: a fake client while loading
		c = s.newFakeClient()
	}
	script := []byte("for i=1,tonumber(ARGV[1]) do redis.call(" + cmd + ") end return 'ok'")
	s.mu.Lock()
	defer s.mu.Unlock()
	eval := func(n int) {
		argv := [][]byte{[]byte("EVAL"), script, []byte("1"), []byte("k"), []byte(strconv.Itoa(n))}
		if s.loading {
			// the AOF loader's path (aofLoader.Command), which keeps no reply
			if err := (&aofLoader{s: s, fake: c}).Command(argv); err != nil {
				b.Fatal(err)
			}
			return
		}
		c.out = c.out[:0]
		s.processCommand(c, argv)
		if string(c.out) != "$2\r\nok\r\n" {
			b.Fatalf("EVAL: %q", c.out)
		}
	}
	eval(1) // compiled, the engine made
	if fake {
		s.setLoading(true)
		defer s.setLoading(false)
	}
	b.ReportAllocs()
	b.ResetTimer()
	eval(b.N)
}

func BenchmarkScriptCallPing(b *testing.B)        { benchScriptCalls(b, false, "'ping'") }
func BenchmarkScriptCallPingLoading(b *testing.B) { benchScriptCalls(b, true, "'ping'") }
func BenchmarkScriptCallGet(b *testing.B)         { benchScriptCalls(b, false, "'get',KEYS[1]") }
func BenchmarkScriptCallIncr(b *testing.B)        { benchScriptCalls(b, false, "'incr',KEYS[1]") }
