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

// Helpers of the power-cut harness: binaries, processes, a RESP client.

var (
	buildDirOnce sync.Once
	buildDir     string
	buildDirErr  error
	builds       sync.Map // name -> *buildResult
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// build runs "go build" of pkg (relative to this package) once per test
// process into a temporary directory.
func build(t *testing.T, name, pkg string) string {
	t.Helper()
	buildDirOnce.Do(func() { buildDir, buildDirErr = os.MkdirTemp("", "crashfs-bin-") })
	if buildDirErr != nil {
		t.Fatal(buildDirErr)
	}
	v, _ := builds.LoadOrStore(name, &buildResult{})
	b := v.(*buildResult)
	b.once.Do(func() {
		b.path = filepath.Join(buildDir, name)
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if out, err := exec.Command(goBin, "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// binaries returns crashfs and aofserver, built from this tree unless
// AOFSERVER_BIN names a prebuilt server (e.g. by scripts/powerloss.sh).
func binaries(t *testing.T) (crashfs, aofserver string) {
	t.Helper()
	crashfs = build(t, "crashfs", ".")
	if p := os.Getenv("AOFSERVER_BIN"); p != "" {
		return crashfs, p
	}
	return crashfs, build(t, "aofserver", "../server")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// needRedis returns the path of a Redis tool; missing, it fails under
// CI=true and skips otherwise.
func needRedis(t *testing.T, name string) string {
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

func (s *syncBuf) tail(n int) string {
	str := s.String()
	if len(str) > n {
		str = "..." + str[len(str)-n:]
	}
	return str
}

// proc is a child process with its output collected.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuf
	done chan struct{}
	err  error
}

func startProcess(t *testing.T, exe string, args ...string) *proc {
	t.Helper()
	p := &proc{out: &syncBuf{}, done: make(chan struct{})}
	p.cmd = exec.Command(exe, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) kill() {
	if p.exited() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGCONT)
	p.cmd.Process.Kill()
	<-p.done
}

// waitStopped waits until every thread of p is stopped (after SIGSTOP).
func (p *proc) waitStopped(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", p.cmd.Process.Pid))
		stopped := len(tasks) > 0
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if err != nil {
				continue
			}
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			if i < 0 || i+2 >= len(s) || (s[i+2] != 'T' && s[i+2] != 't') {
				stopped = false
				break
			}
		}
		if stopped {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// crashMount is a crashfs process serving mnt over backing.
type crashMount struct {
	exe, backing, mnt string
	flags             []string
	p                 *proc
}

func startCrashMount(t *testing.T, exe, backing, mnt string, flags ...string) *crashMount {
	t.Helper()
	m := &crashMount{exe: exe, backing: backing, mnt: mnt, flags: flags}
	m.start(t)
	return m
}

func (m *crashMount) start(t *testing.T) {
	t.Helper()
	m.p = startProcess(t, m.exe, append(append([]string{}, m.flags...), m.backing, m.mnt)...)
	// Registered after startProcess's kill, so it runs before it; and
	// after the mount, before any server started on it is killed.
	p := m.p
	t.Cleanup(func() { m.stopProc(t, p) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := ctlCall(m.mnt, "status"); err == nil {
			return
		}
		if m.p.exited() || time.Now().After(deadline) {
			needFUSE(t, fmt.Errorf("crashfs did not come up: %v\n%s", m.p.err, m.p.out.String()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (m *crashMount) ctl(t *testing.T, cmd string) string {
	t.Helper()
	out, err := ctlCall(m.mnt, cmd)
	if err != nil {
		t.Fatalf("crashfs ctl %s: %v\n%s", cmd, err, m.p.out.String())
	}
	return out
}

// stop unmounts (SIGTERM) and waits for the exit.
func (m *crashMount) stop(t *testing.T) { m.stopProc(t, m.p) }

func (m *crashMount) stopProc(t *testing.T, p *proc) {
	t.Helper()
	if p.exited() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Errorf("crashfs did not exit after SIGTERM:\n%s", p.out.String())
		p.kill()
		syscall.Unmount(m.mnt, syscall.MNT_DETACH)
	}
}

// reboot is the power coming back: unmount, mount again.
func (m *crashMount) reboot(t *testing.T) {
	t.Helper()
	m.stop(t)
	m.start(t)
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

// server is a running aofserver or redis-server.
type server struct {
	*proc
	port int
}

func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// startServer starts exe and waits for "Ready to accept connections"; it
// returns nil (and the output) when the server exits or is not ready in
// time.
func startServer(t *testing.T, exe string, args ...string) (*server, string) {
	t.Helper()
	s := &server{port: freePort(t)}
	s.proc = startProcess(t, exe, append(args, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1")...)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(s.out.String(), "Ready to accept connections") {
		if s.exited() || time.Now().After(deadline) {
			s.kill()
			return nil, s.out.tail(3000)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s, ""
}

// respConn is a small RESP client.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialResp(addr string) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{c: c, r: bufio.NewReader(c)}, nil
}

func (rc *respConn) Close() error { return rc.c.Close() }

// do sends a command and returns the reply's first line, or the payload of
// a bulk string.
func (rc *respConn) do(timeout time.Duration, args ...string) (string, error) {
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
	rc.c.SetDeadline(time.Now().Add(timeout))
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

func mustDo(t *testing.T, rc *respConn, args ...string) string {
	t.Helper()
	r, err := rc.do(60*time.Second, args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if strings.HasPrefix(r, "-") {
		t.Fatalf("%q: %s", args, r)
	}
	return r
}
