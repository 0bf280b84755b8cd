package server

import (
	"strings"
	"testing"
	"time"
)

// DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE takes a payload whose CRC is
// wrong while it is 1, as Redis 7.0.15's verifyDumpPayload.
func TestDebugSkipChecksumValidationAsRedis(t *testing.T) {
	ours, real := startOurServer(t), startRealRedis(t)
	rc := dial(t, real.addr)
	rc.do("RPUSH", "l", "a", "b", "c")
	raw := rc.do("DUMP", "l")
	i := strings.Index(raw, "\r\n")
	payload := []byte(raw[i+2 : len(raw)-2])
	payload[len(payload)-1] ^= 0xff // the CRC's last byte
	for _, addr := range []string{ours.addr, real.addr} {
		c := dial(t, addr)
		for _, step := range []struct {
			cmd  []string
			want string
		}{
			{[]string{"RESTORE", "k", "0", string(payload)}, "-ERR DUMP payload version or checksum are wrong\r\n"},
			{[]string{"DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1"}, "+OK\r\n"},
			{[]string{"RESTORE", "k", "0", string(payload)}, "+OK\r\n"},
			{[]string{"LRANGE", "k", "0", "-1"}, "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
			{[]string{"DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0"}, "+OK\r\n"},
			{[]string{"RESTORE", "k2", "0", string(payload)}, "-ERR DUMP payload version or checksum are wrong\r\n"},
		} {
			if got := c.do(step.cmd...); got != step.want {
				t.Fatalf("%s: %s: %q, want %q", addr, step.cmd[0], got, step.want)
			}
		}
	}
}

// DEBUG AOF-FLUSH-SLEEP <usec>: every AOF write waits first; under
// appendfsync always a write's reply waits for it, so it comes no sooner.
func TestDebugAOFFlushSleep(t *testing.T) {
	ours := startOurServer(t, "--appendonly", "yes", "--appendfsync", "always")
	c := dial(t, ours.addr)
	if got := c.do("DEBUG", "AOF-FLUSH-SLEEP", "300000"); got != "+OK\r\n" {
		t.Fatalf("DEBUG AOF-FLUSH-SLEEP: %q", got)
	}
	start := time.Now()
	c.do("SET", "x", "1")
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("SET answered after %v with a 300 ms AOF flush sleep", d)
	}
}

// DEBUG PAUSE-CRON 1: the cron does nothing, so keys that expire are not
// collected actively. A server without the pause is the witness that the
// cron had time to run.
func TestDebugPauseCron(t *testing.T) {
	paused, witness := startOurServer(t, "--hz", "100"), startOurServer(t, "--hz", "100")
	pc, wc := dial(t, paused.addr), dial(t, witness.addr)
	if got := pc.do("DEBUG", "PAUSE-CRON", "1"); got != "+OK\r\n" {
		t.Fatalf("DEBUG PAUSE-CRON 1: %q", got)
	}
	for _, c := range []*respConn{pc, wc} {
		c.do("SET", "k", "v", "PX", "1")
	}
	waitDBSize := func(c *respConn, what string) {
		deadline := time.Now().Add(10 * time.Second) // a failure bound
		for c.do("DBSIZE") != ":0\r\n" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the expired key was never collected", what)
			}
			time.Sleep(5 * time.Millisecond) // polling
		}
	}
	waitDBSize(wc, "witness")
	wc.do("SET", "k2", "v", "PX", "1") // a few more cycles
	waitDBSize(wc, "witness")
	if got := pc.do("DBSIZE"); got != ":1\r\n" {
		t.Fatalf("paused cron: DBSIZE %q, want the expired key still there", got)
	}
	pc.do("DEBUG", "PAUSE-CRON", "0")
	waitDBSize(pc, "resumed")
}
