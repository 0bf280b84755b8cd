//go:build linux

package server

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/internal/testsrv"
	"golang.org/x/sys/unix"
)

// pipeGateFS wraps the OS file system; Sync of an AOF file blocks its
// thread in a read(2) of a pipe until the test writes a byte: a system
// call that holds the thread (and its P), as fdatasync does, where
// gateFS parks a goroutine and lets the runtime run others at once.
type pipeGateFS struct {
	fsx.FS
	r, w   *os.File
	rfd    int
	on     atomic.Bool // gate the fsyncs from now on
	inSync atomic.Int32
}

func newPipeGateFS(t *testing.T) *pipeGateFS {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g := &pipeGateFS{FS: fsx.OS(), r: r, w: w}
	// Fd puts the read end in blocking mode: read(2) blocks the thread.
	g.rfd = int(r.Fd())
	t.Cleanup(func() { w.Close(); r.Close() })
	return g
}

// release lets n fsyncs through, those waiting or the next ones.
func (g *pipeGateFS) release(n int) {
	g.w.Write(make([]byte, n))
}

type pipeGateFile struct {
	fsx.File
	g *pipeGateFS
}

func (f *pipeGateFile) Sync() error {
	if f.g.on.Load() {
		f.g.inSync.Add(1)
		var b [1]byte
		for {
			n, err := unix.Read(f.g.rfd, b[:])
			if n == 1 || (err != nil && err != unix.EINTR) {
				break
			}
		}
		f.g.inSync.Add(-1)
	}
	return f.File.Sync()
}

func (g *pipeGateFS) OpenAppend(p string) (fsx.File, error) {
	f, err := g.FS.OpenAppend(p)
	if err != nil {
		return nil, err
	}
	return &pipeGateFile{File: f, g: g}, nil
}

func (g *pipeGateFS) OpenWrite(p string) (fsx.File, error) {
	f, err := g.FS.OpenWrite(p)
	if err != nil {
		return nil, err
	}
	return &pipeGateFile{File: f, g: g}, nil
}

// TestAlwaysOverlapReadsDuringFsync: with several fsyncs in flight
// (aof-group-commit-inflight 4), a request that arrives while fsyncs are
// in progress is read and gets an fsync of its own before they end: the
// test keeps three fsyncs stuck, lets one go, and the client it answers
// sends again at once, as in a benchmark's steady state. (In the
// benchmark such a request was read only once another fsync came back:
// the loop went with the syncer and the standby, parked on ep2, was seldom
// woken, so a third of requests waited two flushes. This test did not
// catch that: here the standby is woken; it guards the behaviour.)
func TestAlwaysOverlapReadsDuringFsync(t *testing.T) {
	const inflight = "4"
	g := newPipeGateFS(t)
	s := startServerFS(t, g, func() { g.on.Store(false); g.release(1 << 12) }, "--appendfsync", "always", "--aof-group-commit-inflight", inflight)
	addr := s.Addr().String()
	const nconn, stuck = 4, 3
	conns := make([]net.Conn, nconn)
	replies := make(chan int, nconn)
	for i := range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		conns[i] = nc
		rd := bufio.NewReader(nc)
		go func() {
			for {
				r, err := readRaw(rd)
				if err != nil {
					return
				}
				if r != "+OK\r\n" && r != "+PONG\r\n" {
					t.Errorf("connection %d: %q", i, r)
				}
				replies <- i
			}
		}()
	}
	do := func(i int, args ...string) {
		if _, err := conns[i].Write(appendMultibulk(nil, args...)); err != nil {
			t.Fatal(err)
		}
	}
	next := func() int {
		select {
		case i := <-replies:
			return i
		case <-time.After(20 * time.Second):
			t.Fatal("no reply")
			return -1
		}
	}
	for i := range conns {
		do(i, "PING")
		next()
	}
	g.on.Store(true)
	for i := 0; i < stuck; i++ {
		do(i, "SET", "k"+strconv.Itoa(i), "0")
		waitFor(t, "fsync "+strconv.Itoa(i+1)+" to start", func() bool { return g.inSync.Load() >= int32(i+1) })
	}
	idle := stuck // the client not waiting
	for r := 0; r < 60; r++ {
		do(idle, "SET", "k"+strconv.Itoa(idle), strconv.Itoa(r))
		// The deadline only bounds a hang: before the fix most rounds
		// waited until a stuck fsync was let go.
		testsrv.WaitFor(t, 5*time.Second, "round "+strconv.Itoa(r)+": an fsync for a request sent while "+strconv.Itoa(stuck)+" are in flight",
			func() bool { return g.inSync.Load() >= stuck+1 })
		g.release(1)
		idle = next()
	}
}
