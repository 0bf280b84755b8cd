package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Helpers of the power-cut harness: binaries, processes, a RESP client.

// build runs "go build" of pkg (relative to this package) once per test
// process into a temporary directory.
func build(t *testing.T, name, pkg string) string { t.Helper(); return testsrv.Build(t, name, pkg) }

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
	testsrv.RemoveBuilds()
	os.Exit(code)
}

// needRedis returns the path of a Redis tool; missing, it fails under
// CI=true and skips otherwise.
func needRedis(t *testing.T, name string) string { t.Helper(); return testsrv.NeedTool(t, name) }

type syncBuf = testsrv.SyncBuf

// proc is a child process with its output collected; cmd, out and done
// are testsrv.Proc's Cmd, Out and Done under this package's names.
type proc struct {
	*testsrv.Proc
	cmd  *exec.Cmd
	out  *syncBuf
	done chan struct{}
}

func startProcess(t *testing.T, exe string, args ...string) *proc {
	t.Helper()
	tp := testsrv.Launch(t, exe, args...)
	return &proc{Proc: tp, cmd: tp.Cmd, out: tp.Out, done: tp.Done}
}

func (p *proc) exited() bool { return p.Exited() }

func (p *proc) kill() { p.Kill() }

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
			needFUSE(t, fmt.Errorf("crashfs did not come up: %v\n%s", m.p.Err, m.p.out.String()))
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

func freePort(t *testing.T) int { return testsrv.FreePort(t) }

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
	if !s.WaitOutput(testsrv.ReadyLine, 60*time.Second) {
		s.kill()
		return nil, s.out.Tail(3000)
	}
	return s, ""
}

// respConn is a small RESP client.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialResp(addr string) (*respConn, error) {
	tc, err := testsrv.DialConn(addr)
	if err != nil {
		return nil, err
	}
	return &respConn{c: tc.NC, r: tc.BR}, nil
}

func (rc *respConn) Close() error { return rc.c.Close() }

// do sends a command and returns the reply's first line, or the payload of
// a bulk string.
func (rc *respConn) do(timeout time.Duration, args ...string) (string, error) {
	return (&testsrv.Conn{NC: rc.c, BR: rc.r}).DoLine(timeout, args...)
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
