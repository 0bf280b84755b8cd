package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of this package run the real binary, built once per test
// process into a temporary directory.
var (
	binDir  string
	binOnce sync.Once
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func serverBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "aofserver-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "aofserver")
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		out, err := exec.Command(goBin, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// needTool returns the path of a Redis tool; missing, it fails under
// CI=true and skips otherwise.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p := "/usr/bin/" + name
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: %v", p, err)
		}
		t.Skipf("%s not installed", p)
	}
	return p
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// syncBuf collects a process's output safely while it runs.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running server process.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuf
	port int
	done chan struct{}
	err  error // exit status, once done is closed
}

// startProc runs exe with args plus "--port <free>" (args may already
// set --dir) and waits until it logs "Ready to accept connections".
func startProc(t *testing.T, exe string, args ...string) *proc {
	t.Helper()
	p := launchProc(t, freePort(t), exe, args...)
	deadline := time.After(15 * time.Second)
	for !strings.Contains(p.out.String(), "Ready to accept connections") {
		select {
		case <-p.done:
			t.Fatalf("%s exited before ready: %v\n%s", exe, p.err, p.out.String())
		case <-deadline:
			t.Fatalf("%s not ready after 15 s:\n%s", exe, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p
}

// launchProc runs exe with args plus "--port port", collecting its
// output; it is killed when the test ends.
func launchProc(t *testing.T, port int, exe string, args ...string) *proc {
	t.Helper()
	p := &proc{port: port, out: &syncBuf{}, done: make(chan struct{})}
	p.cmd = exec.Command(exe, append(args, "--port", strconv.Itoa(port))...)
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// stop sends sig and waits for the exit.
func (p *proc) stop(t *testing.T, sig syscall.Signal, within time.Duration) error {
	t.Helper()
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return p.err
	case <-time.After(within):
		t.Fatalf("process did not exit %v after %v:\n%s", within, sig, p.out.String())
		return nil
	}
}

// respConn is a small RESP client.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialResp(t *testing.T, addr string) *respConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &respConn{c: c, r: bufio.NewReader(c)}
}

// do sends a command and returns the first line of the reply (and the
// bulk payload for "$" replies).
func (rc *respConn) do(args ...string) (string, error) {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		return "", err
	}
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if strings.HasPrefix(line, "$") && line != "$-1" {
		n, _ := strconv.Atoi(line[1:])
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return line, nil
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
	_, haveRedis := os.Stat("/usr/bin/redis-server")
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
		if haveRedis == nil {
			rcmd := exec.Command("/usr/bin/redis-server", c.args...)
			var rerr bytes.Buffer
			rcmd.Stderr = &rerr
			rcmd.Run()
			if rerr.String() != stderr.String() {
				t.Fatalf("%q: stderr differs from redis-server\nours:  %q\nredis: %q", c.args, stderr.String(), rerr.String())
			}
		}
	}
}
