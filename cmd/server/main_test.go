package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// The tests of this package run the real binary, built once per test
// process into a temporary directory; the helpers below are this
// package's short names for internal/testsrv.

func TestMain(m *testing.M) {
	code := m.Run()
	testsrv.RemoveBuilds()
	os.Exit(code)
}

func serverBinary(t *testing.T) string { t.Helper(); return testsrv.Build(t, "aofserver", ".") }

// needTool returns the path of a Redis tool; missing, it fails under
// CI=true and skips otherwise.
func needTool(t *testing.T, name string) string { t.Helper(); return testsrv.NeedTool(t, name) }

func freePort(t *testing.T) int { return testsrv.FreePort(t) }

// syncBuf collects a process's output safely while it runs.
type syncBuf = testsrv.SyncBuf

// proc is a running server process; cmd, out, port and done are
// testsrv.Proc's Cmd, Out, Port and Done under this package's names.
type proc struct {
	*testsrv.Proc
	cmd  *exec.Cmd
	out  *syncBuf
	port int
	done chan struct{}
}

// startProc runs exe with args plus "--port <free>" (args may already
// set --dir) and waits until it logs "Ready to accept connections".
func startProc(t *testing.T, exe string, args ...string) *proc {
	t.Helper()
	p := launchProc(t, freePort(t), exe, args...)
	if !p.WaitOutput(testsrv.ReadyLine, 15*time.Second) {
		if p.Exited() {
			t.Fatalf("%s exited before ready: %v\n%s", exe, p.Err, p.out.String())
		}
		t.Fatalf("%s not ready after 15 s:\n%s", exe, p.out.String())
	}
	return p
}

// launchProc runs exe with args plus "--port port", collecting its
// output; it is killed when the test ends.
func launchProc(t *testing.T, port int, exe string, args ...string) *proc {
	t.Helper()
	tp := testsrv.LaunchOnPort(t, port, exe, args...)
	return &proc{Proc: tp, cmd: tp.Cmd, out: tp.Out, port: tp.Port, done: tp.Done}
}

func (p *proc) addr() string { return p.Addr() }

// stop sends sig and waits for the exit.
func (p *proc) stop(t *testing.T, sig syscall.Signal, within time.Duration) error {
	t.Helper()
	return p.Stop(t, sig, within)
}

// respConn is a small RESP client; c and r are its connection and reader.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialResp(t *testing.T, addr string) *respConn {
	t.Helper()
	c, err := dialRespTry(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.c.Close() })
	return c
}

// dialRespTry is dialResp without failing the test.
func dialRespTry(addr string) (*respConn, error) {
	tc, err := testsrv.DialConn(addr)
	if err != nil {
		return nil, err
	}
	return &respConn{c: tc.NC, r: tc.BR}, nil
}

// do sends a command and returns the first line of the reply (and the
// bulk payload for "$" replies).
func (rc *respConn) do(args ...string) (string, error) {
	return (&testsrv.Conn{NC: rc.c, BR: rc.r}).DoLine(10*time.Second, args...)
}

func TestVersionFlag(t *testing.T) {
	exe := serverBinary(t)
	for _, flag := range []string{"-v", "--version"} {
		out, err := exec.Command(exe, flag).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		s := string(out)
		if !strings.HasPrefix(s, "Redis server v=7.0.15 sha=") || !strings.Contains(s, " bits=64 ") || !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
			t.Fatalf("%s printed %q", flag, s)
		}
	}
}

func TestHelpFlag(t *testing.T) {
	exe := serverBinary(t)
	for _, flag := range []string{"-h", "--help"} {
		out, err := exec.Command(exe, flag).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		s := string(out)
		if !strings.HasPrefix(s, "Usage: ") || !strings.Contains(s, "--version") || !strings.Contains(s, "--port 7777") {
			t.Fatalf("%s printed %q", flag, s)
		}
	}
}

// A bad directive, in the file or on the command line, exits 1 with
// Redis's message naming the line; the text is compared with the real
// redis-server's when it is installed.
func TestBadDirectiveExits1(t *testing.T) {
	exe := serverBinary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(conf, []byte("port 1234\n# comment\n\nfoo bar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{conf}, []string{"Reading the configuration file, at line 4", ">>> 'foo bar'", "Bad directive or wrong number of arguments"}},
		{[]string{"--port", "1", "--nosuch", "1"}, []string{"at line 3", ">>> 'nosuch \"1\"'", "Bad directive or wrong number of arguments"}},
		{[]string{"--port"}, []string{"at line 2", ">>> 'port'", "wrong number of arguments"}},
	}
	haveRedis := testsrv.HaveRedis()
	for _, c := range cases {
		cmd := exec.Command(exe, c.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("%q: exit %v, want status 1\n%s%s", c.args, err, stdout.String(), stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Fatalf("%q: stderr lacks %q:\n%s", c.args, w, stderr.String())
			}
		}
		if !strings.Contains(stderr.String(), "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***") {
			t.Fatalf("%q: stderr %q", c.args, stderr.String())
		}
		if haveRedis {
			rcmd := exec.Command(testsrv.RedisServerPath, c.args...)
			var rerr bytes.Buffer
			rcmd.Stderr = &rerr
			rcmd.Run()
			if rerr.String() != stderr.String() {
				t.Fatalf("%q: stderr differs from redis-server\nours:  %q\nredis: %q", c.args, stderr.String(), rerr.String())
			}
		}
	}
}
