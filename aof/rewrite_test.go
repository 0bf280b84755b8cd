package aof

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// writeTempBase plays the rewrite child: it writes a RESP base of snapshot
// to r.TempBasePath and fsyncs it.
func writeTempBase(fsys fsx.FS, r *Rewrite, snapshot []string) error {
	f, err := fsys.Create(r.TempBasePath())
	if err != nil {
		return err
	}
	if _, err := f.Write(resp(snapshot...)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func reload(t *testing.T, fsys fsx.FS) []string {
	t.Helper()
	opt, _ := testOpts(fsys, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	l := &recLoader{}
	if _, err := a.Load(l, nil); err != nil {
		t.Fatal(err)
	}
	return withoutSelect0(l.cmds)
}

func TestRewriteInstall(t *testing.T) {
	c := newCrashDir(t)
	a, lb := startFresh(t, c, Always, nil)
	if err := a.Wait(a.Feed(Op{DB: 0, Argv: args("SET a 1")})); err != nil {
		t.Fatal(err)
	}
	r, err := a.StartRewrite(4242)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartRewrite(1); !errors.Is(err, ErrRewriteInProgress) {
		t.Fatalf("second StartRewrite = %v", err)
	}
	if err := a.Wait(a.Feed(Op{DB: 0, Argv: args("SET b 2")})); err != nil {
		t.Fatal(err)
	}
	if r.TempBasePath() != "/data/temp-rewriteaof-bg-4242.aof" {
		t.Fatalf("temp path %s", r.TempBasePath())
	}
	if err := writeTempBase(c, r, []string{"SET a 1"}); err != nil {
		t.Fatal(err)
	}
	if !a.Stats().RewriteInProgress {
		t.Fatal("rewrite not reported in progress")
	}
	if err := r.Install(false); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.RewriteInProgress || st.BaseSize != st.CurrentSize || st.CurrentSize != int64(len(resp("SET a 1"))+len(resp("SELECT 0", "SET b 2"))) {
		t.Fatalf("after Install: %+v", st)
	}
	if err := a.Wait(a.Feed(Op{DB: 0, Argv: args("SET c 3")})); err != nil {
		t.Fatal(err)
	}
	// Durable at once: crash without Close.
	cr := c.Crash()
	m, _ := cr.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q", m)
	}
	names, _ := cr.ReadDir("/data/appendonlydir")
	if want := []string{"appendonly.aof.2.base.aof", "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"}; !slices.Equal(names, want) {
		t.Fatalf("dir %q, want %q", names, want)
	}
	incr2, _ := cr.ReadAll("/data/appendonlydir/appendonly.aof.2.incr.aof")
	if !strings.HasPrefix(string(incr2), "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nb") {
		t.Fatalf("new incr must start with SELECT then the post-switch command: %q", incr2)
	}
	if got, want := reload(t, cr), []string{"SET a 1", "SET b 2", "SET c 3"}; !slices.Equal(got, want) {
		t.Fatalf("reloaded %q, want %q", got, want)
	}
	a.Close()
	for _, l := range []string{
		"Creating AOF incr file appendonly.aof.2.incr.aof on background rewrite",
		"Successfully renamed the temporary AOF base file temp-rewriteaof-bg-4242.aof into appendonly.aof.2.base.aof",
		"Removing the history file appendonly.aof.1.base.aof in the background",
		"Removing the history file appendonly.aof.1.incr.aof in the background",
	} {
		lb.has(t, l)
	}
}

func TestRewriteKeepsHistoryWhenGCDisabled(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, EverySec, func(o *Options) { o.DisableAutoGC = true; o.UseRDBPreamble = true })
	for i := 0; i < 2; i++ {
		r, err := a.StartRewrite(10 + i)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeTempBase(c, r, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Install(true); err != nil {
			t.Fatal(err)
		}
	}
	m, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	want := "file appendonly.aof.3.base.rdb seq 3 type b\n" +
		"file appendonly.aof.2.incr.aof seq 2 type h\n" +
		"file appendonly.aof.2.base.rdb seq 2 type h\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.1.base.rdb seq 1 type h\n" +
		"file appendonly.aof.3.incr.aof seq 3 type i\n"
	if string(m) != want {
		t.Fatalf("manifest:\n%s\nwant (Redis's history order):\n%s", m, want)
	}
	a.SetOptions(func(o *Options) { o.DisableAutoGC = false })
	a.Close() // waits for the background history removal
	m, _ = c.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n" {
		t.Fatalf("manifest after enabling gc:\n%s", m)
	}
}

func TestRewriteAbortLeavesValidState(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, nil)
	a.Wait(a.Feed(Op{DB: 0, Argv: args("SET a 1")}))
	r, err := a.StartRewrite(99)
	if err != nil {
		t.Fatal(err)
	}
	a.Wait(a.Feed(Op{DB: 0, Argv: args("SET b 2")}))
	if err := writeTempBase(c, r, []string{"SET a 1"}); err != nil {
		t.Fatal(err)
	}
	r.Abort(errors.New("child killed"))
	if _, err := c.Stat(r.TempBasePath()); err == nil {
		t.Fatal("temp base not removed")
	}
	m, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q", m)
	}
	// A new rewrite may start after an abort.
	r2, err := a.StartRewrite(100)
	if err != nil {
		t.Fatal(err)
	}
	r2.Abort(nil)
	a.Close()
	i1, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.1.incr.aof")
	i2, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.2.incr.aof")
	if !strings.HasSuffix(string(i1), string(resp("SET a 1"))) || !strings.HasSuffix(string(i2), string(resp("SET b 2"))) || strings.Contains(string(i1), "b") {
		t.Fatalf("switch point not respected: incr1 %q incr2 %q", i1, i2)
	}
	if got := reload(t, c.Crash()); !slices.Equal(got, []string{"SET a 1", "SET b 2"}) {
		t.Fatalf("reloaded %q", got)
	}
}

// rewriteWorkload runs commands, a full rewrite and more commands under
// Always, tolerating injected failures. It returns the keys whose Wait
// succeeded (acknowledged), guarded by mu.
// rewriteWorkload acknowledges through Wait, or with overlapped through
// SyncOverlapped (the network loop's path with aof-group-commit-inflight).
func rewriteWorkload(c *fsx.CrashFS, mu *sync.Mutex, acked *[]string, prealloc int64, overlapped bool) {
	opt, _ := testOpts(c, "/data", Always)
	opt.PreallocSize = prealloc
	opt.OnFatal = func(error) {}
	a, err := Open(opt)
	if err != nil {
		return
	}
	if _, err := a.Load(&recLoader{}, nil); err != nil {
		return
	}
	if err := a.Start(emptyRESPBase); err != nil {
		return
	}
	defer a.Close()
	var model []string
	exec := func(i int) {
		cmd := fmt.Sprintf("SET k%d v%d", i, i)
		off := a.Feed(Op{DB: 0, Argv: args(cmd)})
		model = append(model, cmd)
		wait := a.Wait
		if overlapped {
			wait = func(t Ticket) error { return a.Sync(t, true) }
		}
		if wait(off) == nil {
			mu.Lock()
			*acked = append(*acked, cmd)
			mu.Unlock()
		}
	}
	for i := 0; i < 3; i++ {
		exec(i)
	}
	// Fed, not waited for: still unwritten when the rewrite switches files,
	// so the old incr holds bytes that no fsync covered yet. The next ack
	// covers it, and must not come before the old file's fsync.
	xOff := a.Feed(Op{DB: 0, Argv: args("SET x 1")})
	model = append(model, "SET x 1")
	r, err := a.StartRewrite(77)
	if err == nil {
		snap := slices.Clone(model)
		for i := 3; i < 6; i++ {
			exec(i)
		}
		if a.Durable(xOff) {
			mu.Lock()
			*acked = append(*acked, "SET x 1")
			mu.Unlock()
		}
		if err := writeTempBase(c, r, snap); err != nil {
			r.Abort(err)
		} else {
			r.Install(false)
		}
	}
	for i := 6; i < 9; i++ {
		exec(i)
	}
}

// checkRecovered opens and loads fsys and checks every acknowledged command
// is there; then the AOF must start again.
func checkRecovered(t *testing.T, what string, fsys *fsx.CrashFS, acked []string, prealloc int64) {
	t.Helper()
	opt, _ := testOpts(fsys, "/data", Always)
	opt.PreallocSize = prealloc
	a, err := Open(opt)
	if err != nil {
		t.Fatalf("%s: Open: %v", what, err)
	}
	l := &recLoader{}
	if _, err := a.Load(l, nil); err != nil {
		t.Fatalf("%s: Load: %v", what, err)
	}
	for _, c := range acked {
		if !slices.Contains(l.cmds, c) {
			t.Fatalf("%s: acknowledged %q lost; recovered %q", what, c, l.cmds)
		}
	}
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatalf("%s: Start after recovery: %v", what, err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("%s: Close after recovery: %v", what, err)
	}
}

// The workload runs plainly and with a preallocation small enough that
// nearly every batch extends the file.
func TestCrashAndFaultsDuringRewrite(t *testing.T) {
	for _, prealloc := range []int64{0, 128} {
		for _, overlapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("prealloc=%d/overlapped=%v", prealloc, overlapped), func(t *testing.T) {
				crashAndFaultsDuringRewrite(t, prealloc, overlapped)
			})
		}
	}
}

func crashAndFaultsDuringRewrite(t *testing.T, prealloc int64, overlapped bool) {
	// Baseline: how many ops a clean run takes.
	base := newCrashDir(t)
	var mu sync.Mutex
	var acked []string
	rewriteWorkload(base, &mu, &acked, prealloc, overlapped)
	if len(acked) != 10 {
		t.Fatalf("clean run acknowledged %d of 10", len(acked))
	}
	checkRecovered(t, "clean", base.Crash(), acked, prealloc)
	total := base.Ops()

	for i := 0; i <= total+5; i++ {
		// Fault: op i fails once.
		{
			c := newCrashDir(t)
			start := c.Ops()
			var acked []string
			var once sync.Once
			c.SetInjector(func(op fsx.Op, path string) (err error) {
				if c.Ops()-start == i {
					once.Do(func() { err = fmt.Errorf("injected failure of %s %s", op, path) })
				}
				return err
			})
			rewriteWorkload(c, &mu, &acked, prealloc, overlapped)
			c.SetInjector(nil)
			mu.Lock()
			ack := slices.Clone(acked)
			mu.Unlock()
			checkRecovered(t, fmt.Sprintf("fail op %d, crash after", i), c.Crash(), ack, prealloc)
			checkRecovered(t, fmt.Sprintf("fail op %d, no crash", i), c, ack, prealloc)
		}
		// Power cut just before op i.
		{
			c := newCrashDir(t)
			start := c.Ops()
			var acked []string
			var snap *fsx.CrashFS
			var ackedAtCrash []string
			c.SetInjector(func(op fsx.Op, path string) error {
				if snap == nil && c.Ops()-start == i {
					mu.Lock()
					ackedAtCrash = slices.Clone(acked)
					mu.Unlock()
					snap = c.Crash()
				}
				return nil
			})
			rewriteWorkload(c, &mu, &acked, prealloc, overlapped)
			c.SetInjector(nil)
			if snap == nil {
				snap = c.Crash()
				ackedAtCrash = acked
			}
			checkRecovered(t, fmt.Sprintf("crash before op %d", i), snap, ackedAtCrash, prealloc)
		}
	}
}

func TestNoFsyncOnRewrite(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, func(o *Options) { o.NoFsyncOnRewrite = true })
	r, err := a.StartRewrite(5)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitSwitched(); err != nil {
		t.Fatal(err)
	}
	off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	const incr2 = "/data/appendonlydir/appendonly.aof.2.incr.aof"
	if got, _ := c.ReadAll(incr2); len(got) == 0 {
		t.Fatal("not written")
	}
	if got, _ := c.Crash().ReadAll(incr2); len(got) != 0 {
		t.Fatal("fsynced although a rewrite is in progress and no-appendfsync-on-rewrite is set")
	}
	r.Abort(nil)
	off = a.Feed(Op{DB: 0, Argv: args("SET b 2")})
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Crash().ReadAll(incr2); !strings.HasSuffix(string(got), string(resp("SET b 2"))) {
		t.Fatalf("not fsynced after the rewrite ended: %q", got)
	}
	a.Close()
}

type checkingLoader struct{ recLoader }

func (c *checkingLoader) Known(argv [][]byte) bool { return string(argv[0]) != "NOPE" }

func TestCommandCheckerInsideMulti(t *testing.T) {
	f := resp("SET a 1", "MULTI", "NOPE x")
	_, opt, _ := loadCase(t, nil, f)
	l := &checkingLoader{}
	_, err := loadWith(t, opt, &l.recLoader) // without Known: reverted, loads
	if err != nil {
		t.Fatal(err)
	}
	_, opt, _ = loadCase(t, nil, f)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Load(l, nil)
	wantLoadErr(t, err, "appendonly.aof.1.incr.aof", int64(len(resp("SET a 1", "MULTI"))), "Unknown command 'NOPE'", false)
}
