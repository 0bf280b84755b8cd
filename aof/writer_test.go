package aof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

const incr1Path = "/data/appendonlydir/appendonly.aof.1.incr.aof"

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"always", "everysec", "no", "EverySec"} {
		p, ok := ParsePolicy(s)
		if !ok || p.String() != strings.ToLower(s) {
			t.Errorf("ParsePolicy(%q) = %v, %v", s, p, ok)
		}
	}
	if _, ok := ParsePolicy("sometimes"); ok {
		t.Error("ParsePolicy accepted garbage")
	}
}

func TestStrerror(t *testing.T) {
	err := &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	if got := Strerror(err); got != "No space left on device" {
		t.Fatalf("Strerror = %q", got)
	}
}

func TestFeedFormat(t *testing.T) {
	c := newCrashDir(t)
	opt, _ := testOpts(c, "/data", EverySec)
	opt.TimestampEnabled = true
	now := time.Unix(1700000000, 0)
	opt.Now = func() time.Time { return now }
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	off1 := a.Feed(Op{DB: 0, Argv: args("SET a 1")}, Op{DB: 0, Argv: args("SET b 2")})
	off2 := a.Feed(Op{DB: 3, Argv: args("DEL a")})
	now = now.Add(time.Second)
	off3 := a.Feed(Op{DB: -1, Argv: args("FLUSHALL")})
	want := "#TS:1700000000\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" +
		"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n" +
		"*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n" +
		"#TS:1700000001\r\n*1\r\n$8\r\nFLUSHALL\r\n"
	if string(a.buf) != want {
		t.Fatalf("buffer:\n%q\nwant\n%q", a.buf, want)
	}
	if off3 != Ticket(len(want)) || a.Offset() != off3 || !(off1 < off2 && off2 < off3) {
		t.Fatalf("offsets %d %d %d, len %d", off1, off2, off3, len(want))
	}
}

func TestFeedDoesNotAllocate(t *testing.T) {
	c := newCrashDir(t)
	opt, _ := testOpts(c, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	op := Op{DB: 0, Argv: args("SET key:000001 some-value-of-moderate-size")}
	for i := 0; i < 2000; i++ {
		a.Feed(op)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		a.buf, a.marks = a.buf[:0], a.marks[:0] // what the writer's swap gives back
		a.Feed(op)
	})
	if allocs != 0 {
		t.Fatalf("Feed allocates %.1f times per call", allocs)
	}
}

// startFresh opens and starts an AOF on a fresh CrashFS /data (case D).
func startFresh(t *testing.T, c *fsx.CrashFS, p Policy, tune func(*Options)) (*AOF, *logBuf) {
	t.Helper()
	opt, lb := testOpts(c, "/data", p)
	if tune != nil {
		tune(&opt)
	}
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if a.Exists() {
		t.Fatal("fresh dir reports an AOF")
	}
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	return a, lb
}

func TestStartFreshCreatesBaseIncrManifest(t *testing.T) {
	rdb, _ := os.ReadFile("testdata/empty-aof-base.rdb")
	c := newCrashDir(t)
	opt, lb := testOpts(c, "/data", Always)
	opt.UseRDBPreamble = true
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	err = a.Start(func(w io.Writer) error { _, err := w.Write(rdb); return err })
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Everything must survive a crash right after Start+Close.
	cr := c.Crash()
	m, _ := cr.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Fatalf("manifest %q", m)
	}
	b, _ := cr.ReadAll("/data/appendonlydir/appendonly.aof.1.base.rdb")
	if !bytes.Equal(b, rdb) {
		t.Fatal("base content differs")
	}
	if _, err := cr.Stat(incr1Path); err != nil {
		t.Fatal(err)
	}
	lb.has(t, "Creating AOF base file appendonly.aof.1.base.rdb on server start")
	lb.has(t, "Creating AOF incr file appendonly.aof.1.incr.aof on server start")
	if st := a.Stats(); st.CurrentSize != 0 || st.BaseSize != 0 {
		t.Fatalf("fresh start sizes %+v", st)
	}
}

func TestAlwaysWaitIsDurable(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, nil)
	var exec sync.Mutex // the server's executor lock
	var wg sync.WaitGroup
	const workers, per = 16, 40
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				exec.Lock()
				off := a.Feed(Op{DB: w % 3, Argv: args(fmt.Sprintf("SET w%d:%d %d", w, i, i))})
				exec.Unlock()
				if err := a.Wait(off); err != nil {
					errs <- err
					return
				}
				if i%8 == 0 {
					// Power cut now: every byte up to off must be on "disk".
					got, err := c.Crash().ReadAll(incr1Path)
					if err != nil || Ticket(len(got)) < off {
						errs <- fmt.Errorf("after Wait(%d) the synced incr has %d bytes (%v)", off, len(got), err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	opt, _ := testOpts(c.Crash(), "/data", Always)
	b, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	l := &recLoader{}
	if _, err := b.Load(l, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range l.cmds {
		if strings.HasPrefix(s, "SET w") {
			n++
		}
	}
	if n != workers*per {
		t.Fatalf("recovered %d SETs, want %d", n, workers*per)
	}
}

func TestGroupCommitBatches(t *testing.T) {
	c := newCrashDir(t)
	// A slow fsync lets commands pile up behind it.
	c.SetInjector(func(op fsx.Op, path string) error {
		if op == fsx.OpSync {
			time.Sleep(2 * time.Millisecond)
		}
		return nil
	})
	a, _ := startFresh(t, c, Always, nil)
	var exec sync.Mutex
	var wg sync.WaitGroup
	var waits atomic.Int64
	for w := 0; w < 50; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				exec.Lock()
				off := a.Feed(Op{DB: 0, Argv: args(fmt.Sprintf("INCR c%d", w))})
				exec.Unlock()
				if err := a.Wait(off); err != nil {
					t.Error(err)
					return
				}
				waits.Add(1)
			}
		}(w)
	}
	wg.Wait()
	st := a.Stats()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Fsyncs >= waits.Load() || st.MaxCmdsPerFsync < 2 || st.AvgCmdsPerFsync <= 1 {
		t.Fatalf("no batching: %d fsyncs for %d waits, max %d avg %.2f", st.Fsyncs, waits.Load(), st.MaxCmdsPerFsync, st.AvgCmdsPerFsync)
	}
	if st.FsyncP50 <= 0 || st.FsyncP99 < st.FsyncP50 {
		t.Fatalf("latency stats %v %v", st.FsyncP50, st.FsyncP99)
	}
}

func TestGroupCommitMaxBatch(t *testing.T) {
	c := newCrashDir(t)
	c.SetInjector(func(op fsx.Op, path string) error {
		if op == fsx.OpSync {
			time.Sleep(time.Millisecond)
		}
		return nil
	})
	a, _ := startFresh(t, c, Always, func(o *Options) { o.GroupCommitMaxBatch = 3 })
	var exec sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 20; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				exec.Lock()
				off := a.Feed(Op{DB: 0, Argv: args("INCR x")})
				exec.Unlock()
				if err := a.Wait(off); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st := a.Stats()
	a.Close()
	if st.MaxCmdsPerFsync > 3 || st.Fsyncs < 100/3 {
		t.Fatalf("max batch not honoured: %+v", st)
	}
}

// failingWrites makes writes to incr files fail with ENOSPC while on is set.
func failingWrites(c *fsx.CrashFS, on *atomic.Bool, op fsx.Op) {
	c.SetInjector(func(o fsx.Op, path string) error {
		if o == op && on.Load() && strings.HasSuffix(path, ".incr.aof") {
			return &os.PathError{Op: o.String(), Path: path, Err: syscall.ENOSPC}
		}
		return nil
	})
}

func TestEverySecWriteErrorRetries(t *testing.T) {
	c := newCrashDir(t)
	var fail atomic.Bool
	failingWrites(c, &fail, fsx.OpWrite)
	opt, lb := testOpts(c, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	a.writeRetryEvery = 20 * time.Millisecond
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	off0 := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
	if err := a.Wait(off0); err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	off := a.Feed(Op{DB: 0, Argv: args("SET b 2")})
	done := make(chan error, 1)
	go func() { done <- a.Wait(off) }()
	deadline := time.Now().Add(5 * time.Second)
	for a.WriteErr() == nil {
		if time.Now().After(deadline) {
			t.Fatal("WriteErr never set")
		}
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(a.WriteErr(), syscall.ENOSPC) || a.Stats().LastWriteOK || a.Stats().BufferLength == 0 {
		t.Fatalf("WriteErr %v stats %+v", a.WriteErr(), a.Stats())
	}
	select {
	case err := <-done:
		t.Fatalf("Wait returned (%v) although the write failed", err)
	case <-time.After(50 * time.Millisecond):
	}
	fail.Store(false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the disk recovered")
	}
	if a.WriteErr() != nil {
		t.Fatal("WriteErr still set")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := c.Crash().ReadAll(incr1Path)
	if want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + string(resp("SET a 1", "SET b 2")); string(got) != want {
		t.Fatalf("file %q", got)
	}
	lb.has(t, "Error writing to the AOF file: No space left on device")
	lb.has(t, "AOF write error looks solved, Redis can write again.")
}

func TestAlwaysWriteErrorIsFatal(t *testing.T) {
	for _, op := range []fsx.Op{fsx.OpWrite, fsx.OpSync} {
		t.Run(op.String(), func(t *testing.T) {
			c := newCrashDir(t)
			var fail atomic.Bool
			failingWrites(c, &fail, op)
			fatal := make(chan error, 2)
			a, lb := startFresh(t, c, Always, func(o *Options) { o.OnFatal = func(err error) { fatal <- err } })
			fail.Store(true)
			off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
			err := a.Wait(off)
			if !errors.Is(err, ErrFatal) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Wait = %v", err)
			}
			select {
			case err := <-fatal:
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("OnFatal(%v)", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("OnFatal not called")
			}
			a.Feed(Op{DB: 0, Argv: args("SET b 2")})
			a.Close()
			if len(fatal) != 0 {
				t.Fatal("OnFatal called twice")
			}
			if op == fsx.OpWrite {
				lb.has(t, "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
			} else {
				lb.has(t, "Can't persist AOF for fsync error when the AOF fsync policy is 'always': No space left on device. Exiting...")
			}
		})
	}
}

// shortFS wraps an FS so that the next write to an incr file writes only
// half of its bytes and fails with ENOSPC.
type shortFS struct {
	fsx.FS
	short atomic.Bool
}

type shortFile struct {
	fsx.File
	fs *shortFS
}

func (s *shortFS) OpenWrite(p string) (fsx.File, error) {
	f, err := s.FS.OpenWrite(p)
	if err != nil {
		return nil, err
	}
	return &shortFile{File: f, fs: s}, nil
}

func (f *shortFile) WriteAt(p []byte, off int64) (int, error) {
	if f.fs.short.CompareAndSwap(true, false) && len(p) > 1 {
		n, _ := f.File.WriteAt(p[:len(p)/2], off)
		return n, syscall.ENOSPC
	}
	return f.File.WriteAt(p, off)
}

func TestShortWriteIsTruncatedAway(t *testing.T) {
	c := newCrashDir(t)
	sfs := &shortFS{FS: c}
	opt, lb := testOpts(sfs, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	a.writeRetryEvery = 10 * time.Millisecond
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(a.Feed(Op{DB: 0, Argv: args("SET a 1")})); err != nil {
		t.Fatal(err)
	}
	sfs.short.Store(true)
	if err := a.Wait(a.Feed(Op{DB: 0, Argv: args("SET b 2")})); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := c.ReadAll(incr1Path)
	if want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + string(resp("SET a 1", "SET b 2")); string(got) != want {
		t.Fatalf("file %q, want %q", got, want)
	}
	lb.has(t, "Short write while writing to the AOF file: (nwritten=")
}

func TestEverySecSyncsInBackground(t *testing.T) {
	c := newCrashDir(t)
	opt, _ := testOpts(c, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	a.everysecEvery = 10 * time.Millisecond
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := c.Crash().ReadAll(incr1Path)
		if Ticket(len(got)) >= off {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("everysec never fsynced")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if a.Stats().Fsyncs == 0 {
		t.Fatal("fsync not counted")
	}
	a.Close()
}

func TestPolicyNoNeverSyncsUntilClose(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, No, nil)
	off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ReadAll(incr1Path); Ticket(len(got)) != off {
		t.Fatalf("not written: %d bytes", len(got))
	}
	if got, _ := c.Crash().ReadAll(incr1Path); len(got) != 0 {
		t.Fatalf("policy no fsynced %d bytes", len(got))
	}
	a.Feed(Op{DB: 0, Argv: args("SET b 2")}) // never waited for
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Crash().ReadAll(incr1Path); !bytes.HasSuffix(got, resp("SET b 2")) {
		t.Fatalf("Close did not flush+fsync: %q", got)
	}
	if err := a.Wait(1 << 40); !errors.Is(err, ErrClosed) {
		t.Fatalf("Wait after Close = %v", err)
	}
}

func TestSwitchToAlwaysSyncsPending(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, No, nil)
	off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	a.SetPolicy(Always)
	off = a.Feed(Op{DB: 0, Argv: args("SET b 2")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Crash().ReadAll(incr1Path); Ticket(len(got)) != off {
		t.Fatalf("synced %d bytes, want %d", len(got), off)
	}
	a.Close()
}

// SyncTo is durable on return like Wait, from several goroutines at once,
// and fails once the AOF is closed.
func TestAlwaysSyncToIsDurable(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, nil)
	var exec sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				exec.Lock()
				off := a.Feed(Op{Argv: args(fmt.Sprintf("SET s%d:%d x", w, i))})
				exec.Unlock()
				if err := a.Sync(off, false); err != nil {
					errs <- err
					return
				}
				if !a.Durable(off) {
					errs <- fmt.Errorf("SyncTo(%d) returned unacknowledged", off)
					return
				}
				got, err := c.Crash().ReadAll(incr1Path)
				if err != nil || Ticket(len(got)) < off {
					errs <- fmt.Errorf("after SyncTo(%d) the synced incr has %d bytes (%v)", off, len(got), err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	exec.Lock()
	off := a.Feed(Op{Argv: args("SET last x")})
	exec.Unlock()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if a.Durable(off) {
		return // Close wrote and synced it: nothing left to fail
	}
	if err := a.Sync(off, false); err == nil {
		t.Fatal("SyncTo after Close: nil error for an unacknowledged offset")
	}
}

// SyncTo (the network loop's syncer) never waits to gather committers:
// another goroutine serves its clients meanwhile. A Wait leader does,
// when recent fsyncs covered more commands than are pending.
func TestAlwaysSyncToDoesNotGather(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, nil)
	defer a.Close()
	gathered := func() bool {
		a.stepMu.Lock()
		defer a.stepMu.Unlock()
		return a.gs.timer != nil // made by the first wait in gather
	}
	setPeak := func() {
		a.stepMu.Lock()
		a.gs.peak, a.gs.lastSync = 1000, time.Millisecond
		a.stepMu.Unlock()
	}
	setPeak()
	if err := a.Sync(a.Feed(Op{Argv: args("SET a 1")}), false); err != nil {
		t.Fatal(err)
	}
	if gathered() {
		t.Fatal("SyncTo waited to gather committers")
	}
	setPeak()
	if err := a.Wait(a.Feed(Op{Argv: args("SET b 1")})); err != nil {
		t.Fatal(err)
	}
	if !gathered() {
		t.Fatal("a Wait leader with a recent peak of 1000 did not gather (the check above proves nothing)")
	}
}
