package aof

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

// gateSyncFS holds every Sync of an incr file while gate is closed (a
// flush that takes as long as the test wants) and reports each Sync begun
// on entered.
type gateSyncFS struct {
	fsx.FS
	gate    chan struct{}
	entered chan struct{}
}

type gateSyncFile struct {
	fsx.File
	fs *gateSyncFS
}

func (g *gateSyncFS) wrap(f fsx.File, err error) (fsx.File, error) {
	if err != nil || !strings.Contains(f.Name(), ".incr.") {
		return f, err
	}
	return gateSyncFile{f, g}, nil
}

func (g *gateSyncFS) Create(p string) (fsx.File, error)     { return g.wrap(g.FS.Create(p)) }
func (g *gateSyncFS) OpenAppend(p string) (fsx.File, error) { return g.wrap(g.FS.OpenAppend(p)) }
func (g *gateSyncFS) OpenWrite(p string) (fsx.File, error)  { return g.wrap(g.FS.OpenWrite(p)) }

func (f gateSyncFile) Sync() error {
	select {
	case f.fs.entered <- struct{}{}:
	default:
	}
	<-f.fs.gate
	return f.File.Sync()
}

// poll waits for cond, failing after a generous deadline.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// The writer's sync of background work's bytes under always (KickPending:
// the server cron's active expiry) holds the step lock for the write
// only: while its fsync is in flight a network loop syncer (Sync with
// overlap) writes the next group and starts its own fsync. Run as an
// ordinary step it fsynced under the lock, and at the cron's 10 Hz held
// every syncer back for a whole flush.
func TestBackgroundSyncLeavesStepLock(t *testing.T) {
	c := newCrashDir(t)
	g := &gateSyncFS{FS: c, gate: make(chan struct{}), entered: make(chan struct{}, 8)}
	open := make(chan struct{})
	close(open)
	g.gate = open // start-up's fsyncs pass
	a, _ := startFresh(t, c, Always, func(o *Options) { o.FS = g; o.WriterTick = time.Hour })
	defer a.Close()
	// The writer has handled Start's kick: nothing else wakes it below
	// but KickPending.
	poll(t, "the writer to go idle", func() bool { return len(a.kick) == 0 && a.writerRounds.Load() >= 1 })
	for len(g.entered) > 0 {
		<-g.entered
	}

	held := make(chan struct{})
	var release sync.Once
	defer release.Do(func() { close(held) }) // before Close, on failure too
	g.gate = held                            // set before any Sync below can read it
	t1 := a.Feed(Op{Argv: args("SET expired 1")})
	a.KickPending()
	<-g.entered // the writer's fsync of t1 is in flight, held
	t2 := a.Feed(Op{Argv: args("SET next 2")})
	done := make(chan error, 1)
	go func() { done <- a.Sync(t2, true) }()
	poll(t, "the second group written while the first fsync is held", func() bool { return a.writtenOff.Load() >= int64(t2) })
	if a.Durable(t1) {
		t.Fatal("t1 acknowledged before its fsync ended")
	}
	release.Do(func() { close(held) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !a.Durable(t1) || !a.Durable(t2) {
		t.Fatal("not acknowledged after the fsyncs ended")
	}
}
