//go:build linux

package server

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// A wake must never be lost, however wakes and the loop's draining of the
// eventfd interleave: the stop that follows a storm of wakes (ack hooks,
// kills) has to end the loop.
func TestNetLoopWakeNeverLost(t *testing.T) {
	for round := 0; round < 20; round++ {
		s := &Server{}
		l, err := newNetLoop(s)
		if err != nil {
			t.Fatal(err)
		}
		s.loop = l
		s.startNetLoops()
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						l.wake()
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		close(stop)
		wg.Wait()
		done := make(chan struct{})
		go func() { s.stopNetLoops(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the loop did not stop after a storm of wakes (a wake was lost)", round)
		}
	}
}

// Under always the loop goroutine that syncs a small group owns those
// clients until it has replied. A client that sends more meanwhile, or is
// killed meanwhile, is finished by the loop afterwards; a shutdown waits
// for the syncer. Everything else keeps being served.
func TestNetLoopSyncerOwnsHeldClients(t *testing.T) {
	g, s := startLoopAlways(t)
	addr := s.Addr().String()
	a := dial(t, addr)
	id := strings.TrimSpace(strings.TrimPrefix(a.do("CLIENT", "ID"), ":"))
	p := dial(t, addr) // pipelines behind its held reply
	pid := strings.TrimSpace(strings.TrimPrefix(p.do("CLIENT", "ID"), ":"))
	g.closeGate()
	a.send("SET", "k", "v")
	p.send("INCR", "n")
	waitFor(t, "both clients held by the syncer, in fsync", func() bool {
		return g.syncing() > 0 && withSyncer(s, id) && withSyncer(s, pid)
	})
	p.send("INCR", "n")
	p.send("GET", "n")
	kill := asyncDo(t, addr, "CLIENT", "KILL", "ID", id)
	noReply(t, kill, "CLIENT KILL (its AOF offset covers the SET)")
	// Replies wait for the SET's fsync, but commands still execute.
	other := asyncDo(t, addr, "INCR", "m")
	waitForKey(t, s, "m", "the executor stopped while the syncer was in fsync")
	g.openGate()
	if r := reply(t, kill); r != ":1\r\n" {
		t.Fatalf("CLIENT KILL: %q", r)
	}
	if r := reply(t, other); r != ":1\r\n" {
		t.Fatalf("INCR m: %q", r)
	}
	for i, want := range []string{":1\r\n", ":2\r\n", "$1\r\n2\r\n"} {
		if r := p.read(); r != want {
			t.Fatalf("pipelined reply %d: %q, want %q", i, r, want)
		}
	}
	// The killed client got at most its SET reply, then EOF.
	a.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		r, err := readRaw(a.br)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the killed client was never closed")
			}
			break
		}
		if r != "+OK\r\n" {
			t.Fatalf("killed client got %q", r)
		}
	}
	if r := dial(t, addr).do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Fatalf("GET k: %q", r)
	}
	// A shutdown while a syncer is in fsync waits for it, then ends.
	g.closeGate()
	pending := asyncDo(t, addr, "SET", "k2", "v2")
	noReply(t, pending, "SET k2")
	done := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		close(done)
	}()
	waitFor(t, "the loop told to stop", func() bool {
		s.loop.mu.Lock()
		defer s.loop.mu.Unlock()
		return s.loop.stop
	})
	select {
	case <-done:
		t.Fatal("shutdown ended while the syncer was still in fsync")
	default:
	}
	g.openGate()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("shutdown did not end after the syncer's fsync")
	}
}

// Under always a lone client's request is fsynced by the loop goroutine
// itself, with no other thread woken: the standby sleeps through fsyncs
// during which nothing happens, and takes the loop over when something
// does (here: a second client's command while an fsync is stuck).
func TestNetLoopStandbySleepsThroughQuietFsyncs(t *testing.T) {
	g, s := startLoopAlways(t)
	addr := s.Addr().String()
	c := dial(t, addr)
	// What is counted is the standby armed per request; an fsync held off
	// the CPU past standbyDelay on a loaded machine would add take-overs
	// of another cause, so the delay is an hour until the stuck fsync.
	standbyAfter.Store(int64(time.Hour))
	defer standbyAfter.Store(int64(standbyDelay))
	syncs0 := g.syncCount()
	takes0 := s.loop.takes.Load()
	for i := 0; i < 200; i++ {
		if r := c.do("SET", "k", "v"); r != "+OK\r\n" {
			t.Fatalf("SET: %q", r)
		}
	}
	if n := g.syncCount() - syncs0; n < 200 {
		t.Fatalf("%d fsyncs for 200 acknowledged SETs under always", n)
	}
	// Timers and the listener may wake the loop now and then, never per
	// request.
	n := s.loop.takes.Load() - takes0
	t.Logf("standby take-overs in 200 lone requests: %d", n)
	if n > 10 {
		t.Fatalf("the standby took the loop over %d times in 200 lone requests", n)
	}
	standbyAfter.Store(int64(standbyDelay))
	g.closeGate()
	set := asyncDo(t, addr, "SET", "k", "v2")
	noReply(t, set, "SET during a stuck fsync")
	takes1 := s.loop.takes.Load()
	incr := asyncDo(t, addr, "INCR", "m")
	waitForKey(t, s, "m", "nothing executed a command during a stuck fsync")
	if s.loop.takes.Load() == takes1 {
		t.Fatal("a command executed during a stuck fsync, but not on the standby")
	}
	g.openGate()
	if r := reply(t, set); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	if r := reply(t, incr); r != ":1\r\n" {
		t.Fatalf("INCR: %q", r)
	}
}

func (g *gateFS) syncCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.syncs
}

// Under always a long pipeline is read on before its fsync: one fsync
// covers what the client sent in one go, not a read buffer's worth at a
// time, and still no reply leaves before it.
func TestNetLoopLongPipelineOneFsync(t *testing.T) {
	g, s := startLoopAlways(t)
	c := dial(t, s.Addr().String())
	const n = 4000 // ~150 KB: ten 16 KB reads
	var req []byte
	for i := 0; i < n; i++ {
		req = appendMultibulk(req, "SET", "p:"+strconv.Itoa(i), "v")
	}
	syncs0 := g.syncCount()
	g.closeGate()
	// The whole pipeline is in the socket before the loop may execute any
	// of it (the executor is held meanwhile), as when a client sends a
	// long pipeline at once on a fast network.
	s.mu.Lock()
	wrote := make(chan struct{})
	go func() { c.nc.Write(req); close(wrote) }()
	select {
	case <-wrote:
	case <-time.After(3 * time.Second):
	}
	s.mu.Unlock()
	waitForKey(t, s, "p:"+strconv.Itoa(n-1), "the pipeline was not executed while its fsync waited")
	noReplyConn(t, c, "a pipelined SET before its fsync")
	g.openGate()
	for i := 0; i < n; i++ {
		if r := c.read(); r != "+OK\r\n" {
			t.Fatalf("reply %d: %q", i, r)
		}
	}
	if k := g.syncCount() - syncs0; k > 3 {
		t.Fatalf("%d fsyncs for one pipeline of %d SETs sent at once", k, n)
	}
	// Then the loop waits in epoll_wait for the next event, not polling:
	// one request at a time costs an iteration or two each (a request, an
	// fsync's hand-back), where a loop left polling runs many between two.
	const pings = 100
	it := s.loop.iter.Load()
	for i := 0; i < pings; i++ {
		if r := c.do("PING"); r != "+PONG\r\n" {
			t.Fatalf("PING: %q", r)
		}
	}
	if d := s.loop.iter.Load() - it; d > 3*pings {
		t.Fatalf("the loop ran %d iterations for %d requests one at a time after a long pipeline", d, pings)
	}
}

// withSyncer reports whether the client with this id is loop-owned and
// held by a syncer goroutine.
func withSyncer(s *Server, id string) bool {
	n, _ := strconv.ParseInt(id, 10, 64)
	s.mu.Lock()
	c := s.clients[n]
	var lc *loopConn
	if c != nil {
		lc = c.lc
	}
	s.mu.Unlock()
	if lc == nil {
		return false
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.syncer
}

// noReplyConn checks that nothing arrives on c for a while.
func noReplyConn(t *testing.T, c *respConn, what string) {
	t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := c.br.Peek(1); err == nil {
		t.Fatalf("%s: a reply arrived", what)
	}
	c.nc.SetReadDeadline(time.Time{})
}

// waitForKey waits until key exists in db 0 (a command executed), or fails
// with msg after 5 s.
func waitForKey(t *testing.T, s *Server, key, msg string) {
	t.Helper()
	testsrv.WaitFor(t, 5*time.Second, msg, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.dbs[0].keys.Get(key)
		return ok
	})
}

// startLoopAlways starts a server under appendfsync always whose AOF
// fsyncs go through a gate, and checks that it serves on the network loop.
func startLoopAlways(t *testing.T) (*gateFS, *Server) {
	t.Helper()
	g := newGateFS()
	s := startGatedServer(t, g, "--appendfsync", "always")
	if s.loop == nil {
		t.Fatal("no network loop")
	}
	return g, s
}

// Reading on before an fsync is bounded: by the replies piled up and by
// the AOF bytes fed, so a client streaming big values still gets fsyncs.
func TestNetLoopReadOnIsBounded(t *testing.T) {
	for _, tc := range []struct {
		out  int
		aof  int64
		want bool
	}{
		{0, 0, true},
		{moreOutMax - 1, moreAOFMax - 1, true},
		{moreOutMax, 0, false},
		{0, moreAOFMax, false},
		{1 << 30, 1 << 40, false},
	} {
		if got := withinReadOn(tc.out, tc.aof); got != tc.want {
			t.Errorf("withinReadOn(%d, %d) = %v", tc.out, tc.aof, got)
		}
	}
}

// netloop no (our directive) serves connections on goroutines; the default
// serves them from the loop.
func TestNetLoopDirective(t *testing.T) {
	for _, tc := range []struct {
		args []string
		loop bool
	}{{nil, true}, {[]string{"--netloop", "no"}, false}} {
		ts := startOurServer(t, tc.args...)
		if (ts.s.loop != nil) != tc.loop {
			t.Fatalf("args %q: network loop %v, want %v", tc.args, ts.s.loop != nil, tc.loop)
		}
		if r := dial(t, ts.addr).do("PING"); r != "+PONG\r\n" {
			t.Fatalf("args %q: PING: %q", tc.args, r)
		}
	}
}
