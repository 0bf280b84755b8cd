package server

import (
	"strconv"
	"testing"
)

// benchScriptLoop runs one EVAL whose script runs body b.N times, so
// ns/op is one iteration.
func benchScriptLoop(b *testing.B, setup, body string) {
	ts := startOurServer(b)
	s := ts.s
	c := execClient(s, 99)
	script := []byte(setup + " for i=1,tonumber(ARGV[1]) do " + body + " end return 'ok'")
	s.mu.Lock()
	defer s.mu.Unlock()
	eval := func(n int) {
		c.out = c.out[:0]
		s.processCommand(c, [][]byte{[]byte("EVAL"), script, []byte("0"), []byte(strconv.Itoa(n))})
		if string(c.out) != "$2\r\nok\r\n" {
			b.Fatalf("EVAL: %q", c.out)
		}
	}
	eval(1)
	b.ReportAllocs()
	b.ResetTimer()
	eval(b.N)
}

// pcall's success path (its handler only runs on errors).
func BenchmarkScriptPcall(b *testing.B) {
	benchScriptLoop(b, "local f = function(x) return x end", "pcall(f, i)")
}

// pcall catching an error: the handler names the operand.
func BenchmarkScriptPcallError(b *testing.B) {
	benchScriptLoop(b, "local f = function() local t return t.x end", "pcall(f)")
}
