package server

import (
	"testing"
	"time"
)

// DEBUG AOF-FLUSH-SLEEP is server-wide in Redis (server.aof_flush_sleep):
// an AOF turned on later with CONFIG SET appendonly yes sleeps as well.
func TestAOFFlushSleepInheritedByReopenedAOF(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "no")
	c := dial(t, ts.addr)
	if r := c.do("DEBUG", "AOF-FLUSH-SLEEP", "1500"); r != "+OK\r\n" {
		t.Fatalf("DEBUG AOF-FLUSH-SLEEP: %q", r)
	}
	sleep := func() time.Duration {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		if ts.s.aof == nil {
			return -1
		}
		return ts.s.aof.FlushSleep()
	}
	for round := 0; round < 2; round++ {
		if r := c.do("CONFIG", "SET", "appendonly", "yes"); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET appendonly yes: %q", r)
		}
		waitFor(t, "the AOF rewrite", func() bool {
			return infoField(c, "persistence", "aof_rewrite_in_progress") == "0" &&
				infoField(c, "persistence", "aof_rewrite_scheduled") == "0"
		})
		if d := sleep(); d != 1500*time.Microsecond {
			t.Fatalf("round %d: the reopened AOF sleeps %v before a write, want 1.5ms", round, d)
		}
		c.do("SET", "k", "v")
		if r := c.do("CONFIG", "SET", "appendonly", "no"); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET appendonly no: %q", r)
		}
	}
}
