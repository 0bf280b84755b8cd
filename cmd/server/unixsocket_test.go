package main

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// unixsocket and unixsocketperm as Redis 7.0.15: clients are accepted on
// the socket too (CLIENT INFO names both ends "<path>:0" and flags it U),
// the file gets the mode, and SHUTDOWN removes the pid file and the socket
// with Redis's log lines, counted, on both servers.
func TestUnixSocketAsRedis(t *testing.T) {
	ours, redis := serverBinary(t), needTool(t, "redis-server")
	type result struct {
		info, mode string
		lines      []int
		left       []string
	}
	lines := []string{"The server is now ready to accept connections at ", "Removing the pid file.",
		"Removing the unix socket file.", "Redis is now ready to exit, bye bye..."}
	run := func(name, exe string) result {
		dir := t.TempDir()
		sock, pid := filepath.Join(dir, "s.sock"), filepath.Join(dir, "p.pid")
		p, tail := testsrv.StartServer(t, 20*time.Second, exe, "--dir", dir, "--save", "", "--appendonly", "no",
			"--unixsocket", sock, "--unixsocketperm", "700", "--pidfile", pid)
		if p == nil {
			t.Fatalf("%s did not start:\n%s", name, tail)
		}
		var r result
		st, err := os.Stat(sock)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r.mode = st.Mode().String()
		nc, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer nc.Close()
		br := bufio.NewReader(nc)
		do := func(args ...string) string {
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := nc.Write(testsrv.AppendMultibulk(nil, args...)); err != nil {
				t.Fatalf("%s: %v: %v", name, args, err)
			}
			raw, err := testsrv.ReadRaw(br)
			if err != nil && !strings.EqualFold(args[0], "shutdown") {
				t.Fatalf("%s: %v: %v", name, args, err)
			}
			return raw
		}
		if r := do("SET", "k", "v"); r != "+OK\r\n" {
			t.Fatalf("%s: SET over the socket: %q", name, r)
		}
		for _, f := range strings.Fields(do("CLIENT", "INFO")) {
			if k, _, _ := strings.Cut(f, "="); k == "addr" || k == "laddr" || k == "flags" {
				r.info += strings.ReplaceAll(f, dir, "<dir>") + " "
			}
		}
		do("SHUTDOWN", "NOSAVE")
		select {
		case <-p.Done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not exit after SHUTDOWN", name)
		}
		out := p.Out.String()
		for _, l := range lines {
			r.lines = append(r.lines, testsrv.CountLines(out, l))
		}
		for _, f := range []string{sock, pid} {
			if _, err := os.Stat(f); err == nil {
				r.left = append(r.left, filepath.Base(f))
			}
		}
		return r
	}
	o, rr := run("ours", ours), run("redis", redis)
	if o.info != rr.info || o.mode != rr.mode || strings.Join(o.left, ",") != strings.Join(rr.left, ",") {
		t.Errorf("ours:  %q mode %s left %v\nredis: %q mode %s left %v", o.info, o.mode, o.left, rr.info, rr.mode, rr.left)
	}
	for i, l := range lines {
		if o.lines[i] != rr.lines[i] || o.lines[i] != 1 {
			t.Errorf("%q logged %d times by ours, %d by redis (want 1)", l, o.lines[i], rr.lines[i])
		}
	}
}

// A socket that cannot be opened stops the start with Redis's line and
// exit status.
func TestUnixSocketFailureAsRedis(t *testing.T) {
	ours, redis := serverBinary(t), needTool(t, "redis-server")
	for _, exe := range []string{ours, redis} {
		dir := t.TempDir()
		sock := filepath.Join(dir, "missing", "s.sock")
		p := testsrv.LaunchOnPort(t, testsrv.FreePort(t), exe, "--bind", "127.0.0.1", "--dir", dir, "--save", "",
			"--unixsocket", sock)
		select {
		case <-p.Done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s started with an unusable socket path", exe)
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(p.Err, &ee) {
			code = ee.ExitCode()
		}
		const want = "Failed opening Unix socket: bind: No such file or directory"
		if code != 1 || testsrv.CountLines(p.Out.String(), want) != 1 {
			t.Errorf("%s: exit %d, output:\n%s", exe, code, p.Out.Tail(2000))
		}
	}
}

// Port 0 turns TCP off as in Redis: with a unixsocket the server runs on
// the socket alone (CONFIG GET port says 0); with none it refuses to start.
func TestPortZeroAsRedis(t *testing.T) {
	ours, redis := serverBinary(t), needTool(t, "redis-server")
	for _, exe := range []string{ours, redis} {
		dir := t.TempDir()
		sock := filepath.Join(dir, "s.sock")
		p := testsrv.Launch(t, exe, "--port", "0", "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--unixsocket", sock)
		if !p.WaitOutput("The server is now ready to accept connections at "+sock, 20*time.Second) {
			t.Fatalf("%s did not start on the socket:\n%s", exe, p.Out.Tail(2000))
		}
		if n := p.Out.CountLines("Running mode=standalone, port=0."); n != 1 {
			t.Errorf("%s: 'port=0' logged %d times:\n%s", exe, n, p.Out.Tail(2000))
		}
		nc, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		nc.Write(testsrv.AppendMultibulk(nil, "CONFIG", "GET", "port"))
		if raw, err := testsrv.ReadRaw(bufio.NewReader(nc)); err != nil || raw != "*2\r\n$4\r\nport\r\n$1\r\n0\r\n" {
			t.Errorf("%s: CONFIG GET port: %q %v", exe, raw, err)
		}
		nc.Close()
		p.Kill()

		q := testsrv.Launch(t, exe, "--port", "0", "--bind", "127.0.0.1", "--dir", dir, "--save", "")
		select {
		case <-q.Done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s started listening nowhere", exe)
		}
		var ee *exec.ExitError
		if !errors.As(q.Err, &ee) || ee.ExitCode() != 1 || q.Out.CountLines("Configured to not listen anywhere, exiting.") != 1 {
			t.Errorf("%s: %v, output:\n%s", exe, q.Err, q.Out.Tail(2000))
		}
	}
}
