package server

import (
	"strings"
	"testing"
	"time"
)

const busyLib = "#!lua name=busy\n" +
	"redis.register_function('loop', function() while true do end end)\n" +
	"redis.register_function('wloop', function(keys) redis.call('set', keys[1], 'x') while true do end end)\n"

// busyScenario runs the busy-script steps against addr and returns the
// replies (durations masked), for comparison with real Redis.
func busyScenario(t *testing.T, addr string) []string {
	t.Helper()
	var out []string
	c := dial(t, addr)
	add := func(r string) { out = append(out, r) }
	if r := c.do("FUNCTION", "LOAD", busyLib); r != "$4\r\nbusy\r\n" {
		t.Fatalf("FUNCTION LOAD: %q", r)
	}
	waitBusy := func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if r := c.do("PING"); strings.HasPrefix(r, "-BUSY") {
				add(r)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("the server never became busy")
	}

	// EVAL, killed with SCRIPT KILL.
	ch := asyncDo(t, addr, "EVAL", "local i = 0 while true do i = i + 1 end", "0")
	waitBusy()
	add(c.do("SET", "k", "v"))
	add(c.do("FUNCTION", "STATS"))
	add(c.do("FUNCTION", "KILL"))
	add(c.do("SHUTDOWN"))
	add(c.do("NOSUCHCMD"))
	add(c.do("GET"))
	add(c.do("SCRIPT", "KILL"))
	add(reply(t, ch))
	add(c.do("PING"))
	add(c.do("EVAL", "local s = 0 for i = 1, 10 do s = s + i end return s", "0"))
	add(c.do("SCRIPT", "KILL"))

	// A function, killed with FUNCTION KILL.
	ch = asyncDo(t, addr, "FCALL", "loop", "0")
	waitBusy()
	add(c.do("SCRIPT", "KILL"))
	stats := c.do("FUNCTION", "STATS")
	if i := strings.Index(stats, "duration_ms\r\n:"); i >= 0 {
		j := strings.Index(stats[i+14:], "\r\n")
		stats = stats[:i+14] + "N" + stats[i+14+j:]
	}
	add(stats)
	// transaction commands are allowed, the rest is refused
	add(c.do("MULTI"))
	add(c.do("SET", "a", "b"))
	add(c.do("EXEC"))
	add(c.do("DISCARD"))
	add(c.do("WATCH", "a"))
	add(c.do("UNWATCH"))
	add(c.do("FUNCTION", "KILL"))
	add(reply(t, ch))
	add(c.do("FUNCTION", "KILL"))
	add(c.do("FCALL", "loop", "x"))

	// A function that wrote cannot be killed; SHUTDOWN NOSAVE ends it.
	ch = asyncDo(t, addr, "FCALL", "wloop", "1", "w")
	waitBusy()
	add(c.do("FUNCTION", "KILL"))
	add(c.do("SCRIPT", "KILL"))
	add(c.do("SHUTDOWN"))
	c.send("SHUTDOWN", "NOSAVE")
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE did not stop the script")
	}
	return out
}

func TestBusyScriptMatchesRedis(t *testing.T) {
	requireRedis(t)
	rr := startRealRedis(t, "--busy-reply-threshold", "100")
	ours := startOurServer(t, "--busy-reply-threshold", "100")
	want := busyScenario(t, rr.addr)
	got := busyScenario(t, ours.addr)
	if len(got) != len(want) {
		t.Fatalf("got %d replies, want %d:\n%q\n%q", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply #%d:\n ours:  %q\n redis: %q", i, got[i], want[i])
		}
	}
}

// Below the threshold other clients wait; busy-reply-threshold 0 never
// answers BUSY.
func TestBusyScriptBelowThreshold(t *testing.T) {
	ts := startOurServer(t, "--busy-reply-threshold", "0")
	ch := asyncDo(t, ts.addr, "EVAL", "local t = redis.call('time') local s = t[1] * 1000000 + t[2] while true do t = redis.call('time') if t[1] * 1000000 + t[2] - s > 300000 then break end end return 1", "0")
	time.Sleep(50 * time.Millisecond)
	c := dial(t, ts.addr)
	if r := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING: %q", r)
	}
	if r := reply(t, ch); r != ":1\r\n" {
		t.Fatalf("EVAL: %q", r)
	}
	if r := c.do("SCRIPT", "KILL"); r != "-NOTBUSY No scripts in execution right now.\r\n" {
		t.Fatalf("SCRIPT KILL: %q", r)
	}
	// The errors the gate replied are counted once the script ends.
	ts2 := startOurServer(t, "--busy-reply-threshold", "50")
	ch = asyncDo(t, ts2.addr, "EVAL", "while true do end", "0")
	c2 := dial(t, ts2.addr)
	for !strings.HasPrefix(c2.do("PING"), "-BUSY") {
		time.Sleep(10 * time.Millisecond)
	}
	c2.do("SCRIPT", "KILL")
	reply(t, ch)
	if info := c2.do("INFO", "errorstats"); !strings.Contains(info, "errorstat_BUSY:count=") {
		t.Fatalf("BUSY not counted:\n%s", info)
	}
}
