package aof

import (
	"slices"
	"testing"
)

// startWaiting opens /data for an AOF being turned on at runtime.
func startWaiting(t *testing.T, c interface{ ReadAll(string) ([]byte, error) }, opt Options) *AOF {
	t.Helper()
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.StartWaiting(); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTurnOnAtRuntime(t *testing.T) {
	c := newCrashDir(t)
	opt, lb := testOpts(c, "/data", Always)
	a := startWaiting(t, c, opt)
	if !a.Waiting() {
		t.Fatal("not waiting for the first rewrite")
	}
	r, err := a.StartRewrite(7)
	if err != nil {
		t.Fatal(err)
	}
	feedWait(t, a, "SET b 2")
	// Until the base installs nothing names the files: a crash now leaves
	// no AOF at all.
	if names, _ := c.Crash().ReadDir("/data/appendonlydir"); slices.Contains(names, "appendonly.aof.manifest") {
		t.Fatalf("a manifest exists before the first rewrite installed: %q", names)
	}
	if err := writeTempBase(c, r, []string{"SET a 1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Install(false); err != nil {
		t.Fatal(err)
	}
	if a.Waiting() {
		t.Fatal("still waiting after Install")
	}
	feedWait(t, a, "SET c 3")
	cr := c.Crash()
	m, _ := cr.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Fatalf("manifest %q", m)
	}
	if got, want := reload(t, cr), []string{"SET a 1", "SET b 2", "SET c 3"}; !slices.Equal(got, want) {
		t.Fatalf("reloaded %q, want %q", got, want)
	}
	names, _ := cr.ReadDir("/data/appendonlydir")
	if want := []string{"appendonly.aof.1.base.aof", "appendonly.aof.1.incr.aof", "appendonly.aof.manifest"}; !slices.Equal(names, want) {
		t.Fatalf("dir %q, want %q", names, want)
	}
	a.Close()
	lb.has(t, "Successfully renamed the temporary AOF incr file temp-appendonly.aof.incr into appendonly.aof.1.incr.aof")
}

// A failed first rewrite is retried from a new snapshot: the temporary incr
// starts over, so nothing is applied twice.
func TestTurnOnRetryAfterFailedRewrite(t *testing.T) {
	c := newCrashDir(t)
	opt, _ := testOpts(c, "/data", EverySec)
	a := startWaiting(t, c, opt)
	r, err := a.StartRewrite(7)
	if err != nil {
		t.Fatal(err)
	}
	feedWait(t, a, "INCR n")
	r.Abort(nil)
	if !a.Waiting() {
		t.Fatal("a failed first rewrite must leave the AOF waiting")
	}
	r2, err := a.StartRewrite(8)
	if err != nil {
		t.Fatal(err)
	}
	feedWait(t, a, "INCR n")
	if err := writeTempBase(c, r2, []string{"SET n 1"}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Install(false); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := reload(t, c), []string{"SET n 1", "INCR n"}; !slices.Equal(got, want) {
		t.Fatalf("reloaded %q, want %q", got, want)
	}
}

// Turning the AOF on over a stale directory: the old files stay in force
// until the new base installs, then become history and are removed.
func TestTurnOnOverStaleDirectory(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, EverySec, nil)
	feedWait(t, a, "SET stale 1")
	a.Close()
	opt, _ := testOpts(c, "/data", EverySec)
	b := startWaiting(t, c, opt)
	r, err := b.StartRewrite(9)
	if err != nil {
		t.Fatal(err)
	}
	feedWait(t, b, "SET new 2")
	if got := reload(t, c.Crash()); !slices.Equal(got, []string{"SET stale 1"}) {
		t.Fatalf("before install the old AOF must stay in force, got %q", got)
	}
	if err := writeTempBase(c, r, []string{"SET now 1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Install(false); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if got, want := reload(t, c), []string{"SET now 1", "SET new 2"}; !slices.Equal(got, want) {
		t.Fatalf("reloaded %q, want %q", got, want)
	}
	m, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.manifest")
	if string(m) != "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q", m)
	}
}
