package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"
)

// Shared helpers for tests that talk RESP over TCP to our server and to a
// real redis-server 7.0. Every address is 127.0.0.1.

const redisServerPath = "/usr/bin/redis-server"

// lockedBuffer collects log output written from server goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testServer is our server running in-process on a free port.
type testServer struct {
	s    *Server
	addr string
	dir  string
	logs *lockedBuffer
}

// startOurServer starts our server on 127.0.0.1 with a fresh directory, no
// persistence and DEBUG enabled; args ("--directive", "value", ...)
// override those defaults. It is shut down when the test ends.
func startOurServer(t testing.TB, args ...string) *testServer {
	t.Helper()
	return startOurServerWith(t, nil, args...)
}

// startOurServerWith is startOurServer with setup run on the server before
// it listens and loads its data (test hooks).
func startOurServerWith(t testing.TB, setup func(*Server), args ...string) *testServer {
	t.Helper()
	dir := t.TempDir()
	all := append([]string{"--port", "0", "--bind", "127.0.0.1", "--dir", dir, "--save", "",
		"--appendonly", "no", "--enable-debug-command", "yes"}, args...)
	cfg, err := config.Load("", all, nil)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	// Read before Serve: a CONFIG SET rewrites the whole struct, and a
	// client's reply is no happens-before edge for the race detector.
	dir = cfg.Dir
	logs := &lockedBuffer{}
	s, err := New(cfg, NewLogger(logs, "notice", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.exitFn = func(int) {} // SHUTDOWN must not end the test binary
	if setup != nil {
		setup(s)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() { s.Shutdown(ctx); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			// A wedged executor (a panic under s.mu) must not hang the
			// whole test binary.
			t.Errorf("server did not shut down within 15s")
		}
	})
	if err := s.LoadData(); err != nil {
		t.Fatalf("LoadData: %v", err)
	}
	return &testServer{s: s, addr: s.Addr().String(), dir: dir, logs: logs}
}

// realRedis is a redis-server child process.
type realRedis struct {
	addr string
	dir  string
	cmd  *exec.Cmd
}

// requireRedis skips (or, under CI=true, fails) when redis-server is absent.
func requireRedis(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(redisServerPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: %v", redisServerPath, err)
		}
		t.Skipf("%s not installed", redisServerPath)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// startRealRedis starts /usr/bin/redis-server on a free 127.0.0.1 port
// with no persistence and DEBUG enabled; args override. It is killed when
// the test ends.
func startRealRedis(t testing.TB, args ...string) *realRedis {
	t.Helper()
	requireRedis(t)
	dir := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // the free port may be taken meanwhile
		port := freePort(t)
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--enable-debug-command", "yes", "--daemonize", "no",
			"--logfile", "redis.log"}, args...)
		cmd := exec.Command(redisServerPath, all...)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = waitPing(addr, exited); lastErr == nil {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			return &realRedis{addr: addr, dir: dir, cmd: cmd}
		}
		cmd.Process.Kill()
		<-exited
	}
	log, _ := os.ReadFile(dir + "/redis.log")
	t.Fatalf("redis-server did not answer PING: %v\n%s", lastErr, log)
	return nil
}

func waitPing(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(5 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("redis-server exited")
		default:
		}
		var nc net.Conn
		nc, err = net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			nc.SetDeadline(time.Now().Add(time.Second))
			_, err = nc.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			if err == nil {
				var raw string
				raw, err = readRaw(bufio.NewReader(nc))
				if err == nil && raw == "+PONG\r\n" {
					nc.Close()
					return nil
				}
				if err == nil {
					err = fmt.Errorf("PING replied %q", raw)
				}
			}
			nc.Close()
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// respConn is a tiny RESP client returning raw reply bytes, so that
// comparisons are byte-exact.
type respConn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func dial(t testing.TB, addr string) *respConn {
	t.Helper()
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("refusing to connect to %q: tests only talk to 127.0.0.1", addr)
	}
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &respConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func appendMultibulk(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// send writes one command without reading its reply.
func (r *respConn) send(args ...string) {
	r.t.Helper()
	r.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.nc.Write(appendMultibulk(nil, args...)); err != nil {
		r.t.Fatalf("write %v: %v", args, err)
	}
}

// read reads one complete reply, raw.
func (r *respConn) read() string {
	r.t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	raw, err := readRaw(r.br)
	if err != nil {
		r.t.Fatalf("read reply: %v", err)
	}
	return raw
}

// do sends one command and returns its raw reply.
func (r *respConn) do(args ...string) string {
	r.t.Helper()
	r.send(args...)
	return r.read()
}

// readRaw reads one RESP2/RESP3 reply (nested aggregates included) and
// returns its exact bytes.
func readRaw(br *bufio.Reader) (string, error) {
	var sb strings.Builder
	err := readValue(br, &sb, 0)
	return sb.String(), err
}

func readValue(br *bufio.Reader, sb *strings.Builder, depth int) error {
	if depth > 64 {
		return errors.New("reply nested too deeply")
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return fmt.Errorf("bad reply line %q", line)
	}
	sb.WriteString(line)
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return nil
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 512<<20 {
			return fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return err
		}
		sb.Write(buf)
		return nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 1<<24 {
			return fmt.Errorf("bad aggregate length %q", body)
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readValue(br, sb, depth+1); err != nil {
				return err
			}
		}
		if line[0] == '|' { // attributes precede the reply they describe
			return readValue(br, sb, depth+1)
		}
		return nil
	}
	return fmt.Errorf("unknown reply type %q", line)
}

// splitRaw splits a raw aggregate reply into its header and the raw bytes
// of each top-level element; ok=false for a non-aggregate.
func splitRaw(raw string) (header string, elems []string, ok bool) {
	if raw == "" || !strings.ContainsRune("*~>%", rune(raw[0])) { // not "|": attributes + a reply
		return "", nil, false
	}
	br := bufio.NewReader(strings.NewReader(raw))
	header, err := br.ReadString('\n')
	if err != nil {
		return "", nil, false
	}
	n, err := strconv.Atoi(header[1 : len(header)-2])
	if err != nil || n < 0 {
		return header, nil, true
	}
	if header[0] == '%' {
		n *= 2
	}
	for i := 0; i < n; i++ {
		e, err := readRaw(br)
		if err != nil {
			return "", nil, false
		}
		elems = append(elems, e)
	}
	return header, elems, true
}

// bulkText returns the payload of a raw bulk/simple reply (for logs and
// for reading cursors).
func bulkText(raw string) string {
	if raw == "" {
		return ""
	}
	switch raw[0] {
	case '+', '-', ':':
		return strings.TrimSuffix(raw[1:], "\r\n")
	case '$':
		if i := strings.Index(raw, "\r\n"); i >= 0 && len(raw) >= i+4 {
			return raw[i+2 : len(raw)-2]
		}
	}
	return raw
}
