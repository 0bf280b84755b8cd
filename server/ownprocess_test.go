package server

import (
	"math"
	"runtime/debug"
	"strconv"
	"testing"
)

// The Go memory limit follows maxmemory only in a server that owns its
// process: an embedded one (every server of this test binary) must leave
// the runtime of its neighbours alone.
func TestMemoryLimitOnlyWhenOwningTheProcess(t *testing.T) {
	if v := debug.SetMemoryLimit(-1); v != math.MaxInt64 {
		t.Skipf("the test binary runs with a memory limit already (%d)", v)
	}
	defer debug.SetMemoryLimit(math.MaxInt64)
	const maxmem = 1 << 30
	run := func(own bool) int64 {
		var setup func(*Server)
		if own {
			setup = func(s *Server) { s.OwnProcess() }
		}
		ts := startOurServerWith(t, setup)
		c := dial(t, ts.addr)
		if r := c.do("CONFIG", "SET", "maxmemory", strconv.Itoa(maxmem)); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET maxmemory: %q", r)
		}
		if r := c.do("SET", "k", "v"); r != "+OK\r\n" { // eviction runs before a command
			t.Fatalf("SET: %q", r)
		}
		return debug.SetMemoryLimit(-1)
	}
	if got := run(false); got != math.MaxInt64 {
		t.Fatalf("an embedded server set the memory limit to %d", got)
	}
	if got, want := run(true), memLimitFor(maxmem); got != want {
		t.Fatalf("memory limit %d, want %d (maxmemory %d)", got, want, maxmem)
	}
}
