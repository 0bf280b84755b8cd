package server

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// gateFS wraps the OS file system; while closed, Sync of an AOF file blocks.
type gateFS struct {
	fsx.FS
	mu     sync.Mutex
	open   chan struct{}
	syncs  int
	inSync int
}

func newGateFS() *gateFS {
	g := &gateFS{FS: fsx.OS(), open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gateFS) closeGate() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gateFS) openGate() {
	g.mu.Lock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
	g.mu.Unlock()
}

func (g *gateFS) syncing() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inSync
}

type gateFile struct {
	fsx.File
	g *gateFS
}

func (f *gateFile) Sync() error {
	f.g.mu.Lock()
	ch := f.g.open
	f.g.inSync++
	f.g.syncs++
	f.g.mu.Unlock()
	<-ch
	f.g.mu.Lock()
	f.g.inSync--
	f.g.mu.Unlock()
	return f.File.Sync()
}

func (g *gateFS) OpenAppend(p string) (fsx.File, error) {
	f, err := g.FS.OpenAppend(p)
	if err != nil {
		return nil, err
	}
	return &gateFile{File: f, g: g}, nil
}

func (g *gateFS) OpenWrite(p string) (fsx.File, error) {
	f, err := g.FS.OpenWrite(p)
	if err != nil {
		return nil, err
	}
	return &gateFile{File: f, g: g}, nil
}

func startGatedServer(t *testing.T, g *gateFS, args ...string) *Server {
	t.Helper()
	return startServerFS(t, g, g.openGate, args...)
}

// startServerFS starts a server whose AOF goes through fsys; release runs
// before its shutdown, to let any fsync held in fsys go.
func startServerFS(t *testing.T, fsys fsx.FS, release func(), args ...string) *Server {
	t.Helper()
	all := append([]string{"--port", "0", "--bind", "127.0.0.1", "--dir", t.TempDir(), "--save", "", "--appendonly", "yes"}, args...)
	cfg, err := config.Load("", all, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg, NewLogger(&lockedBuffer{}, "notice", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.testFS = fsys
	s.exitFn = func(int) {}
	s.PickFreePort() // "--port 0": any free port, not TCP off
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	if err := s.LoadData(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// asyncDo sends a command and delivers its reply on a channel.
func asyncDo(t *testing.T, addr string, args ...string) <-chan string {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.Write(appendMultibulk(nil, args...))
	ch := make(chan string, 1)
	go func() {
		r, err := readRaw(bufio.NewReader(nc))
		if err != nil {
			r = "error: " + err.Error()
		}
		ch <- r
	}()
	return ch
}

func noReply(t *testing.T, ch <-chan string, what string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s got a reply %q before its data was fsynced", what, r)
	case <-time.After(150 * time.Millisecond):
	}
}

func reply(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no reply")
		return ""
	}
}

// TestAlwaysBarrier: under appendfsync always no reply — to the write, or to
// a read that would reveal it — leaves before the write is fsynced, while
// the executor keeps executing other clients' commands meanwhile; also with
// several fsyncs in flight (aof-group-commit-inflight), where they must
// really overlap.
func TestAlwaysBarrier(t *testing.T) {
	for _, inflight := range []int{1, 4} {
		t.Run("inflight="+strconv.Itoa(inflight), func(t *testing.T) { alwaysBarrier(t, inflight) })
	}
}

func alwaysBarrier(t *testing.T, inflight int) {
	g := newGateFS()
	s := startGatedServer(t, g, "--appendfsync", "always", "--aof-group-commit-inflight", strconv.Itoa(inflight))
	addr := s.Addr().String()
	g.closeGate()
	setA := asyncDo(t, addr, "SET", "k", "v1")
	noReply(t, setA, "SET")
	getB := asyncDo(t, addr, "GET", "k")
	noReply(t, getB, "GET revealing an unsynced write")
	// The executor is not waiting on the disk: other commands still run.
	var more []<-chan string
	for i := 0; i < 20; i++ {
		more = append(more, asyncDo(t, addr, "INCR", "ctr"))
	}
	waitFor(t, "the executor to run 20 INCRs while an fsync is in flight", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		v, ok := s.dbs[0].keys.Get("ctr")
		return ok && string(v.str()) == "20"
	})
	if n := g.syncing(); n == 0 {
		t.Fatal("no fsync in flight")
	}
	if inflight > 1 {
		// The INCRs' group needs a second fsync while the first is
		// stuck: wait for it to start (the deadline only bounds a hang).
		waitFor(t, "a second fsync in flight", func() bool { return g.syncing() >= 2 })
		if n := g.syncing(); n > inflight {
			t.Fatalf("%d fsyncs in flight at once with aof-group-commit-inflight %d", n, inflight)
		}
	}
	for _, ch := range more {
		noReply(t, ch, "INCR")
		break
	}
	g.mu.Lock() // the AOF's writer may be in Sync too (a cron kick)
	syncsBefore := g.syncs
	g.mu.Unlock()
	g.openGate()
	if r := reply(t, setA); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	if r := reply(t, getB); r != "$2\r\nv1\r\n" {
		t.Fatalf("GET: %q", r)
	}
	for _, ch := range more {
		if r := reply(t, ch); !strings.HasPrefix(r, ":") {
			t.Fatalf("INCR: %q", r)
		}
	}
	// Group commit: the 20 INCRs that piled up behind one fsync needed far
	// fewer than 20 more.
	g.mu.Lock()
	extra := g.syncs - syncsBefore
	g.mu.Unlock()
	if extra >= 20 {
		t.Fatalf("%d fsyncs for 20 writes: no group commit", extra)
	}
}

// TestEverysecDoesNotWaitForFsync: a stuck fsync must not hold replies
// under everysec (the bytes are written, then acknowledged).
func TestEverysecDoesNotWaitForFsync(t *testing.T) {
	g := newGateFS()
	s := startGatedServer(t, g, "--appendfsync", "everysec")
	addr := s.Addr().String()
	g.closeGate()
	if r := reply(t, asyncDo(t, addr, "SET", "k", "v")); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	// The once-a-second fsync starts and hangs in the gate.
	waitFor(t, "the everysec fsync to start", func() bool { return g.syncing() > 0 })
	if r := reply(t, asyncDo(t, addr, "SET", "k2", "v")); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	// The reply came while the fsync is still stuck: it did not wait.
	if g.syncing() == 0 {
		t.Fatal("the fsync ended before the reply: the test proved nothing")
	}
}

// waitFor polls cond until it holds; the 20 s deadline only turns a hang
// into a failure, it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testsrv.WaitFor(t, 20*time.Second, what, cond)
}
