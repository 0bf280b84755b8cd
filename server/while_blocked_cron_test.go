package server

import (
	"strings"
	"testing"
	"time"
)

// The cron's run while a load or a busy script holds the executor is
// Redis's whileBlockedCron: with latency-monitor-threshold set, a run
// that lasts it records the "while-blocked-cron" event (in milliseconds
// of the mstime clock); below it, or with the monitor off, nothing.
func TestWhileBlockedCronLatencyEvent(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	// work that spans two millisecond ticks of the clock Redis times with
	slow := func() {
		t0 := time.Now().UnixMilli()
		for time.Now().UnixMilli() < t0+2 {
		}
	}
	run := func(work func()) {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		ts.s.whileBlockedCron(work)
	}
	run(slow) // monitor off
	if r := c.do("LATENCY", "LATEST"); r != "*0\r\n" {
		t.Fatalf("LATENCY LATEST with the monitor off: %q", r)
	}
	c.do("CONFIG", "SET", "latency-monitor-threshold", "1000")
	run(slow)
	if r := c.do("LATENCY", "LATEST"); r != "*0\r\n" {
		t.Fatalf("LATENCY LATEST below the threshold: %q", r)
	}
	c.do("CONFIG", "SET", "latency-monitor-threshold", "1")
	run(slow)
	r := c.do("LATENCY", "LATEST")
	if !strings.HasPrefix(r, "*1\r\n*4\r\n$18\r\nwhile-blocked-cron\r\n:") {
		t.Fatalf("LATENCY LATEST: %q", r)
	}
	if h := c.do("LATENCY", "HISTORY", "while-blocked-cron"); !strings.HasPrefix(h, "*1\r\n*2\r\n:") {
		t.Fatalf("LATENCY HISTORY while-blocked-cron: %q", h)
	}
}
