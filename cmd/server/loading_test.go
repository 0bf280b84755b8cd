package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DEBUG LOADAOF with appendonly no, as Redis 7.0.15: the manifest on disk
// is read all the same; with no AOF there the process exits with code 1,
// logging nothing and replying nothing.
func TestDebugLoadAOFAppendOnlyNoAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	for _, bin := range []string{exe, real} {
		// No AOF directory: exit 1.
		p := startProc(t, bin, "--dir", t.TempDir(), "--save", "", "--enable-debug-command", "yes")
		c := dialResp(t, p.addr())
		if r, err := c.do("SET", "k", "v"); err != nil || r != "+OK" {
			t.Fatalf("%s: SET: %q %v", bin, r, err)
		}
		before := p.out.String()
		if r, err := c.do("DEBUG", "LOADAOF"); err == nil {
			t.Fatalf("%s: DEBUG LOADAOF replied %q, want the connection closed", bin, r)
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second): // a failure bound
			t.Fatalf("%s: still running after DEBUG LOADAOF without an AOF", bin)
		}
		ee, ok := p.Err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s: exit %v, want code 1:\n%s", bin, p.Err, p.out.String())
		}
		if after := p.out.String(); after != before {
			t.Fatalf("%s: logged %q", bin, after[len(before):])
		}

		// An AOF directory from an earlier run: loaded.
		dir := t.TempDir()
		writeTree(t, filepath.Join(dir, "appendonlydir"), map[string]string{
			"appendonly.aof.1.incr.aof": resp("SET", "fromaof", "1"),
			"appendonly.aof.manifest":   "file appendonly.aof.1.incr.aof seq 1 type i\n",
		})
		p = startProc(t, bin, "--dir", dir, "--save", "", "--enable-debug-command", "yes")
		c = dialResp(t, p.addr())
		c.do("SET", "k", "v")
		if r, err := c.do("DEBUG", "LOADAOF"); err != nil || r != "+OK" {
			t.Fatalf("%s: DEBUG LOADAOF: %q %v", bin, r, err)
		}
		if r, _ := c.do("DBSIZE"); r != ":1" {
			t.Fatalf("%s: DBSIZE after DEBUG LOADAOF: %q", bin, r)
		}
		if r, _ := c.do("GET", "fromaof"); r != "1" {
			t.Fatalf("%s: GET fromaof: %q", bin, r)
		}
		// The line is logged before the reply, but reaches p.out through
		// the pipe's reader: wait for it, then count.
		p.WaitOutput("Append Only File loaded by DEBUG LOADAOF", 10*time.Second)
		if n := countLines(p.out.String(), "Append Only File loaded by DEBUG LOADAOF"); n != 1 {
			t.Fatalf("%s: 'Append Only File loaded by DEBUG LOADAOF' %d times:\n%s", bin, n, p.out.String())
		}
		if strings.Contains(p.out.String(), "Creating AOF") {
			t.Fatalf("%s: DEBUG LOADAOF with appendonly no started the AOF:\n%s", bin, p.out.String())
		}
	}
}
