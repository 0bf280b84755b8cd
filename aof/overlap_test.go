package aof

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

// slowSyncFS holds every Sync of an incr file until a second one is in
// flight beside it, or for 300 ms, and counts how many run at once.
type slowSyncFS struct {
	fsx.FS
	cur, peak atomic.Int32
	entered   chan struct{} // one send per incr Sync begun (non-blocking)
	twoOnce   sync.Once
	two       chan struct{} // closed when two Syncs are in flight at once
}

type slowSyncFile struct {
	fsx.File
	fs *slowSyncFS
}

func (s *slowSyncFS) wrap(f fsx.File, err error) (fsx.File, error) {
	if err != nil || !strings.Contains(f.Name(), ".incr.") {
		return f, err
	}
	return slowSyncFile{f, s}, nil
}

func (s *slowSyncFS) Create(p string) (fsx.File, error)     { return s.wrap(s.FS.Create(p)) }
func (s *slowSyncFS) OpenAppend(p string) (fsx.File, error) { return s.wrap(s.FS.OpenAppend(p)) }
func (s *slowSyncFS) OpenWrite(p string) (fsx.File, error)  { return s.wrap(s.FS.OpenWrite(p)) }

func (f slowSyncFile) Sync() error {
	n := f.fs.cur.Add(1)
	for {
		p := f.fs.peak.Load()
		if n <= p || f.fs.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if n >= 2 {
		f.fs.twoOnce.Do(func() { close(f.fs.two) })
	}
	select {
	case f.fs.entered <- struct{}{}:
	default:
	}
	select {
	case <-f.fs.two:
	case <-time.After(300 * time.Millisecond):
	}
	err := f.File.Sync()
	f.fs.cur.Add(-1)
	return err
}

// Two callers of SyncOverlapped have their fdatasyncs in flight at once,
// where SyncTo's queue one behind the other (the first is held up to
// 300 ms for the second to join); each returns only once the crash state
// holds its command.
func TestSyncOverlappedFsyncsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		peak int32
	}{{"SyncOverlapped", 2}, {"SyncTo", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashDir(t)
			sfs := &slowSyncFS{FS: c, entered: make(chan struct{}, 8), two: make(chan struct{})}
			a, _ := startFresh(t, c, Always, func(o *Options) { o.FS = sfs })
			defer a.Close()
			// Start kicks the writer goroutine: let it find nothing to do,
			// or it may take the second command's bytes itself.
			for len(a.kick) > 0 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond)
			a.stepMu.Lock()
			a.stepMu.Unlock()
			for len(sfs.entered) > 0 { // syncs of the start-up
				<-sfs.entered
			}
			sfs.peak.Store(0)
			overlap := tc.name != "SyncTo"
			syncFn := func(t Ticket) error { return a.Sync(t, overlap) }
			var wg sync.WaitGroup
			errs := make([]error, 2)
			offs := make([]Ticket, 2)
			run := func(i int, cmd string) {
				defer wg.Done()
				offs[i] = a.Feed(Op{Argv: args(cmd)})
				if errs[i] = syncFn(offs[i]); errs[i] == nil {
					// Acknowledged: the command must survive a power cut now.
					data, _ := c.Crash().ReadAll("/data/appendonlydir/appendonly.aof.1.incr.aof")
					if !bytes.Contains(data, []byte(strings.Fields(cmd)[1]+"\r\n")) {
						errs[i] = errAckNotDurable(cmd)
					}
				}
			}
			wg.Add(1)
			go run(0, "SET first 1")
			<-sfs.entered // the first fsync is in flight
			wg.Add(1)
			go run(1, "SET second 2")
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("caller %d: %v", i, err)
				}
			}
			if got := sfs.peak.Load(); got != tc.peak {
				t.Fatalf("%d fsyncs at once at most, want %d", got, tc.peak)
			}
			if !a.Durable(max(offs[0], offs[1])) {
				t.Fatal("not acknowledged after both returned")
			}
		})
	}
}

type errAckNotDurable string

func (e errAckNotDurable) Error() string {
	return "acknowledged but not in the synced file: " + string(e)
}
