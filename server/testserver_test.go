package server

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Shared helpers for tests that talk RESP over TCP to our server and to a
// real redis-server 7.0. Every address is 127.0.0.1.

const redisServerPath = testsrv.RedisServerPath

// lockedBuffer collects log output written from server goroutines.
type lockedBuffer = testsrv.SyncBuf

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
	s.PickFreePort() // "--port 0": any free port, not TCP off
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
func requireRedis(t testing.TB) { t.Helper(); testsrv.NeedRedis(t) }

func freePort(t testing.TB) int { return testsrv.FreePort(t) }

// startRealRedis starts /usr/bin/redis-server on a free 127.0.0.1 port
// with no persistence and DEBUG enabled; args override. It is killed when
// the test ends.
func startRealRedis(t testing.TB, args ...string) *realRedis {
	t.Helper()
	p := testsrv.StartRedis(t, "", args...)
	return &realRedis{addr: p.Addr(), dir: p.Dir, cmd: p.Cmd}
}

// ourBinary is cmd/server built once per test binary, for tests that
// measure the real process (RSS, CPU).
func ourBinary(t testing.TB) string {
	t.Helper()
	return testsrv.Build(t, "aofserver", "../cmd/server")
}

// waitPing waits until addr answers PING, failing when exited closes.
func waitPing(addr string, exited <-chan struct{}) error {
	return testsrv.Ping(addr, exited, 5*time.Second)
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
	c, err := testsrv.DialConn(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &respConn{t: t, nc: c.NC, br: c.BR}
}

func appendMultibulk(b []byte, args ...string) []byte { return testsrv.AppendMultibulk(b, args...) }

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
func readRaw(br *bufio.Reader) (string, error) { return testsrv.ReadRaw(br) }

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
