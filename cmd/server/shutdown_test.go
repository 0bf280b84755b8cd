package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// waitLog waits until out holds n lines containing msg (a generous bound
// only fails a hung run).
func waitLog(t *testing.T, p *proc, msg string, n int) {
	t.Helper()
	logged := func() bool { return strings.Count(p.out.String(), msg) >= n }
	testsrv.Poll(15*time.Second, func() bool { return logged() || p.Exited() })
	if !logged() {
		t.Fatalf("%q never logged %d times (exited %v):\n%s", msg, n, p.Exited(), p.out.String())
	}
}

// Redis's tests/unit/shutdown.tcl "RDB save will be failed in shutdown":
// with dump.rdb a directory the final save fails, and a shutdown asked for
// by SIGINT or by SHUTDOWN is aborted (logged, the server keeps serving),
// while SHUTDOWN NOSAVE still exits. Ours and redis-server 7.0.15 run the
// same steps; the replies and the counted log lines must agree.
func TestShutdownAbortedByFailingSaveAsRedis(t *testing.T) {
	exes := map[string]string{"ours": serverBinary(t), "redis": needTool(t, "redis-server")}
	counts := map[string][]int{}
	lines := []string{
		"Saving the final RDB snapshot before exiting.",
		"Error trying to save the DB, can't exit.",
		"Errors trying to shut down the server. Check the logs for more information.",
		"Redis is now ready to exit, bye bye...",
		"Error moving temp DB file temp-",
	}
	for _, kind := range []string{"ours", "redis"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			p := startProc(t, exes[kind], "--dir", dir, "--save", "3600 1", "--appendonly", "no", "--logfile", "")
			// A directory named dump.rdb makes the final rename fail.
			if err := os.Mkdir(filepath.Join(dir, "dump.rdb"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := dialResp(t, p.addr())
			for _, k := range []string{"a", "b", "c"} {
				if r, err := c.do("SET", k, "1"); err != nil || r != "+OK" {
					t.Fatalf("SET: %q %v", r, err)
				}
			}
			p.cmd.Process.Signal(syscall.SIGINT)
			waitLog(t, p, "Errors trying to shut down the server. Check the logs for more information.", 1)
			if r, err := c.do("PING"); err != nil || r != "+PONG" {
				t.Fatalf("PING after the aborted SIGINT: %q %v", r, err)
			}
			if r, err := c.do("SHUTDOWN"); err != nil || r != "-ERR Errors trying to SHUTDOWN. Check logs." {
				t.Fatalf("SHUTDOWN: %q %v", r, err)
			}
			if r, err := c.do("PING"); err != nil || r != "+PONG" {
				t.Fatalf("PING after the aborted SHUTDOWN: %q %v", r, err)
			}
			if r, err := c.do("SHUTDOWN", "ABORT"); err != nil || r != "-ERR No shutdown in progress." {
				t.Fatalf("SHUTDOWN ABORT: %q %v", r, err)
			}
			if r, err := c.do("SHUTDOWN", "SAVE", "NOSAVE"); err != nil || r != "-ERR syntax error" {
				t.Fatalf("SHUTDOWN SAVE NOSAVE: %q %v", r, err)
			}
			c.do("SHUTDOWN", "NOSAVE")
			select {
			case <-p.done:
			case <-time.After(15 * time.Second):
				t.Fatalf("SHUTDOWN NOSAVE did not exit:\n%s", p.out.String())
			}
			if p.Err != nil {
				t.Fatalf("exit status after SHUTDOWN NOSAVE: %v", p.Err)
			}
			out := p.out.String()
			for _, l := range lines {
				counts[kind] = append(counts[kind], strings.Count(out, l))
			}
			if t.Failed() {
				t.Log(out)
			}
		})
	}
	if len(counts["ours"]) != len(lines) || len(counts["redis"]) != len(lines) {
		return // a run failed above
	}
	for i, l := range lines {
		if counts["ours"][i] != counts["redis"][i] {
			t.Errorf("%q logged %d times by ours, %d by redis", l, counts["ours"][i], counts["redis"][i])
		}
	}
	if counts["redis"][1] != 2 {
		t.Errorf("the scenario changed: redis logged can't exit %d times", counts["redis"][1])
	}
}
