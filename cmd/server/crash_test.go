package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DEBUG SEGFAULT and DEBUG PANIC as Redis 7.0.15: the crash report's
// opening line and lines about the cause, its closing block byte for byte,
// and death by SIGSEGV / SIGABRT (not a Go panic's exit status 2).
func TestDebugCrashAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	const start = "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n"
	for _, tc := range []struct {
		sub   string
		sig   syscall.Signal
		cause []string
	}{
		{"SEGFAULT", syscall.SIGSEGV, []string{"# Redis 7.0.15 crashed by signal: 11, si_code: 2\n"}},
		{"PANIC", syscall.SIGABRT, []string{
			"# ------------------------------------------------\n",
			"# !!! Software Failure. Press left mouse button to continue\n",
			"# Guru Meditation: DEBUG PANIC called at Unix time "}},
	} {
		var tails []string
		for attempt, bin := 0, ""; len(tails) < 2; attempt++ {
			bin = exe
			if len(tails) == 1 {
				bin = real
			}
			p := startProc(t, bin, "--dir", t.TempDir(), "--save", "", "--enable-debug-command", "yes")
			c := dialResp(t, p.addr())
			if r, err := c.do("DEBUG", tc.sub); err == nil {
				t.Fatalf("%s: DEBUG %s replied %q", bin, tc.sub, r)
			}
			select {
			case <-p.done:
			case <-time.After(10 * time.Second): // a failure bound
				t.Fatalf("%s: alive after DEBUG %s", bin, tc.sub)
			}
			ee, ok := p.Err.(*exec.ExitError)
			if !ok {
				t.Fatalf("%s: DEBUG %s: exit %v", bin, tc.sub, p.Err)
			}
			if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != tc.sig {
				t.Fatalf("%s: DEBUG %s: %v, want death by %v\n%s", bin, tc.sub, p.Err, tc.sig, p.out.String())
			}
			out := p.out.String()
			i := strings.Index(out, start)
			if i < 0 {
				t.Fatalf("%s: no report start:\n%s", bin, out)
			}
			for _, l := range tc.cause {
				if !strings.Contains(out[i:], l) {
					t.Fatalf("%s: no %q in:\n%s", bin, l, out)
				}
			}
			j := strings.Index(out, "\n=== REDIS BUG REPORT END.")
			if j < i && bin == real && attempt < 5 {
				// Real Redis's handler sometimes faults again while it
				// dumps its stack's contents, and dies mid-report.
				continue
			}
			if j < i {
				t.Fatalf("%s: no report end:\n%s", bin, out)
			}
			tails = append(tails, out[j:])
		}
		if tails[0] != tails[1] {
			t.Fatalf("DEBUG %s: the report's end differs\nours:  %q\nredis: %q", tc.sub, tails[0], tails[1])
		}
	}
}
