package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

const dir = "/data/appendonlydir"

func newTestFS(t *testing.T) *CrashFS {
	t.Helper()
	c := NewCrashFS()
	must(t, c.MkdirAll(dir))
	return c
}

// durable writes path, syncs it and its directory.
func durable(t *testing.T, c *CrashFS, path, content string) {
	t.Helper()
	f, err := c.Create(path)
	must(t, err)
	write(t, f, content)
	must(t, f.Sync())
	must(t, f.Close())
	must(t, c.SyncDir(filepath.Dir(path)))
}

func exists(t *testing.T, c *CrashFS, path string) bool {
	t.Helper()
	_, err := c.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

func TestCrashDropsUnsyncedData(t *testing.T) {
	c := newTestFS(t)
	p := filepath.Join(dir, "a.incr.aof")
	f, err := c.OpenAppend(p)
	must(t, err)
	must(t, c.SyncDir(dir))
	write(t, f, "synced;")
	must(t, f.Sync())
	write(t, f, "lost")

	cur, err := c.ReadAll(p)
	must(t, err)
	if string(cur) != "synced;lost" {
		t.Fatalf("before crash: %q", cur)
	}
	after := c.Crash()
	got, err := after.ReadAll(p)
	must(t, err)
	if string(got) != "synced;" {
		t.Fatalf("after crash: %q, want %q", got, "synced;")
	}
	// The original FS is unaffected and the crashed copy is independent.
	write(t, f, "!")
	must(t, f.Sync())
	got, _ = after.ReadAll(p)
	if string(got) != "synced;" {
		t.Fatalf("crashed copy changed by write to the old FS: %q", got)
	}
	// A crash of a crash keeps the same synced state.
	got, _ = after.Crash().ReadAll(p)
	if string(got) != "synced;" {
		t.Fatalf("second crash: %q", got)
	}
}

func TestCrashUndoesUnsyncedCreate(t *testing.T) {
	c := newTestFS(t)
	p := filepath.Join(dir, "new")
	f, err := c.Create(p)
	must(t, err)
	write(t, f, "data")
	must(t, f.Sync()) // file data synced, but not its directory entry
	must(t, f.Close())
	if exists(t, c.Crash(), p) {
		t.Fatal("create without SyncDir survived the crash")
	}
	must(t, c.SyncDir(dir))
	got, err := c.Crash().ReadAll(p)
	must(t, err)
	if string(got) != "data" {
		t.Fatalf("after SyncDir+crash: %q", got)
	}
	// The directory survives even without SyncDir of its parent.
	if _, err := c.Crash().ReadDir(dir); err != nil {
		t.Fatalf("MkdirAll directory lost: %v", err)
	}
}

func TestCrashUndoesUnsyncedRenameAndRemove(t *testing.T) {
	c := newTestFS(t)
	m := filepath.Join(dir, "appendonly.aof.manifest")
	tmp := filepath.Join(dir, "temp-appendonly.aof.manifest")
	durable(t, c, m, "old")

	f, err := c.Create(tmp)
	must(t, err)
	write(t, f, "new")
	must(t, f.Sync())
	must(t, f.Close())
	must(t, c.Rename(tmp, m))
	got, _ := c.ReadAll(m)
	if string(got) != "new" {
		t.Fatalf("current after rename: %q", got)
	}
	// Missing fsync(dir) after the rename: the old manifest comes back.
	cr := c.Crash()
	got, err = cr.ReadAll(m)
	must(t, err)
	if string(got) != "old" {
		t.Fatalf("unsynced rename survived: manifest = %q", got)
	}
	if exists(t, cr, tmp) {
		t.Fatal("temp file exists after crash although its create was never dir-synced")
	}

	must(t, c.SyncDir(dir))
	got, _ = c.Crash().ReadAll(m)
	if string(got) != "new" {
		t.Fatalf("synced rename lost: %q", got)
	}

	must(t, c.Remove(m))
	if !exists(t, c.Crash(), m) {
		t.Fatal("unsynced remove survived the crash")
	}
	must(t, c.SyncDir(dir))
	if exists(t, c.Crash(), m) {
		t.Fatal("synced remove undone")
	}
}

func TestCrashTruncateAndRecreate(t *testing.T) {
	c := newTestFS(t)
	p := filepath.Join(dir, "f")
	durable(t, c, p, "0123456789")

	must(t, c.Truncate(p, 3))
	got, _ := c.Crash().ReadAll(p)
	if string(got) != "0123456789" {
		t.Fatalf("unsynced truncate survived: %q", got)
	}
	f, err := c.OpenAppend(p)
	must(t, err)
	write(t, f, "x")
	must(t, f.Sync())
	got, _ = c.Crash().ReadAll(p)
	if string(got) != "012x" {
		t.Fatalf("after truncate+append+sync: %q", got)
	}

	// O_TRUNC of a synced file is not durable until synced.
	g, err := c.Create(p)
	must(t, err)
	write(t, g, "yy")
	got, _ = c.Crash().ReadAll(p)
	if string(got) != "012x" {
		t.Fatalf("unsynced O_TRUNC survived: %q", got)
	}
	// Writes through a handle of a removed file still reach its inode.
	must(t, c.Remove(p))
	must(t, g.Sync())
	if exists(t, c, p) {
		t.Fatal("removed file still listed")
	}
	got, _ = c.Crash().ReadAll(p)
	if string(got) != "yy" {
		t.Fatalf("unlinked-but-synced file after crash (remove not dir-synced): %q", got)
	}
}

func TestCrashRenameAcrossDirs(t *testing.T) {
	c := newTestFS(t)
	src := "/data/temp-rewriteaof-bg-1.aof"
	dst := filepath.Join(dir, "appendonly.aof.2.base.rdb")
	durable(t, c, src, "base")
	must(t, c.Rename(src, dst))
	must(t, c.SyncDir(dir)) // only the destination directory
	cr := c.Crash()
	for _, p := range []string{src, dst} {
		got, err := cr.ReadAll(p)
		if err != nil || string(got) != "base" {
			t.Fatalf("%s after crash: %q, %v (both links expected)", p, got, err)
		}
	}
}

func TestInjectorFailsOpWithNothingDone(t *testing.T) {
	c := newTestFS(t)
	p := filepath.Join(dir, "f")
	durable(t, c, p, "abc")
	boom := errors.New("boom")
	var seen []string
	c.SetInjector(func(op Op, path string) error {
		seen = append(seen, fmt.Sprintf("%d:%s:%s", c.Ops(), op, path))
		if op == OpRename || op == OpWrite || op == OpRemove || op == OpTruncate {
			return boom
		}
		return nil
	})
	base := c.Ops()
	f, err := c.OpenAppend(p)
	must(t, err)
	if _, err := f.Write([]byte("zz")); !errors.Is(err, boom) {
		t.Fatalf("Write err = %v", err)
	}
	if err := c.Rename(p, p+".2"); !errors.Is(err, boom) {
		t.Fatalf("Rename err = %v", err)
	}
	if err := c.Remove(p); !errors.Is(err, boom) {
		t.Fatalf("Remove err = %v", err)
	}
	if err := f.Truncate(0); !errors.Is(err, boom) {
		t.Fatalf("Truncate err = %v", err)
	}
	must(t, f.Close())
	c.SetInjector(nil)
	got, err := c.ReadAll(p)
	if err != nil || string(got) != "abc" {
		t.Fatalf("failed ops changed state: %q, %v", got, err)
	}
	want := []string{
		fmt.Sprintf("%d:open-append:%s", base, p),
		fmt.Sprintf("%d:write:%s", base+1, p),
		fmt.Sprintf("%d:rename:%s", base+2, p),
		fmt.Sprintf("%d:remove:%s", base+3, p),
		fmt.Sprintf("%d:truncate:%s", base+4, p),
		fmt.Sprintf("%d:close:%s", base+5, p),
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("injector saw\n%q\nwant\n%q", seen, want)
	}
	if c.Ops() != base+6 {
		t.Fatalf("Ops = %d, want %d", c.Ops(), base+6)
	}
}

// TestWriteFileAtomicFaultLoop fails op i for i = 0, 1, ... until
// WriteFileAtomic succeeds. After each failure the old content must still be
// in place, now and after a crash (or, when only the final SyncDir failed, the
// old or the new). Independently, a power cut before each op must leave old or
// new content, and new content once it returned nil.
func TestWriteFileAtomicFaultLoop(t *testing.T) {
	m := filepath.Join(dir, "appendonly.aof.manifest")
	boom := errors.New("injected")
	succeeded := false
	for i := 0; i < 100 && !succeeded; i++ {
		c := newTestFS(t)
		durable(t, c, m, "old\n")
		start := c.Ops()
		c.SetInjector(func(op Op, path string) error {
			if c.Ops()-start == i {
				return boom
			}
			return nil
		})
		err := WriteFileAtomic(c, m, []byte("new\n"))
		c.SetInjector(nil)
		cur, rerr := c.ReadAll(m)
		must(t, rerr)
		crashed, rerr := c.Crash().ReadAll(m)
		must(t, rerr)
		switch {
		case err == nil:
			succeeded = true
			if string(cur) != "new\n" || string(crashed) != "new\n" {
				t.Fatalf("success at i=%d but current=%q crashed=%q", i, cur, crashed)
			}
			if exists(t, c, TempName(m)) {
				t.Fatal("temp file left after success")
			}
		case !errors.Is(err, boom):
			t.Fatalf("i=%d: error does not wrap the injected one: %v", i, err)
		case string(cur) == "new\n":
			// Only a failing SyncDir may leave the rename done.
			if string(crashed) != "old\n" {
				t.Fatalf("i=%d (%v): crashed=%q, want old (dir never synced)", i, err, crashed)
			}
		default:
			if string(cur) != "old\n" || string(crashed) != "old\n" {
				t.Fatalf("i=%d (%v): current=%q crashed=%q", i, err, cur, crashed)
			}
			if exists(t, c, TempName(m)) {
				t.Fatalf("i=%d: temp file left after failure %v", i, err)
			}
		}
	}
	if !succeeded {
		t.Fatal("WriteFileAtomic never succeeded")
	}
}

func TestWriteFileAtomicPowerCutAtEachOp(t *testing.T) {
	m := filepath.Join(dir, "appendonly.aof.manifest")
	c := newTestFS(t)
	durable(t, c, m, "old\n")
	var snaps []*CrashFS
	c.SetInjector(func(op Op, path string) error {
		snaps = append(snaps, c.Crash())
		return nil
	})
	must(t, WriteFileAtomic(c, m, []byte("new\n")))
	c.SetInjector(nil)
	snaps = append(snaps, c.Crash())
	if len(snaps) < 6 { // create, write, sync, close, rename, syncdir + after
		t.Fatalf("only %d ops seen", len(snaps))
	}
	for i, s := range snaps {
		got, err := s.ReadAll(m)
		must(t, err)
		want := "old\n"
		if i == len(snaps)-1 {
			want = "new\n"
		}
		if string(got) != want {
			t.Fatalf("power cut before op %d: manifest %q, want %q", i, got, want)
		}
	}
}

func TestCrashFSConcurrent(t *testing.T) {
	c := newTestFS(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := filepath.Join(dir, fmt.Sprintf("g%d", g))
			f, err := c.OpenAppend(p)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range 200 {
				if _, err := f.Write([]byte{byte(i)}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					if err := f.Sync(); err != nil {
						t.Error(err)
					}
					if err := c.SyncDir(dir); err != nil {
						t.Error(err)
					}
				}
				if _, err := c.ReadDir(dir); err != nil {
					t.Error(err)
				}
			}
			must2(t, f.Sync())
			must2(t, f.Close())
			must2(t, c.Rename(p, p+".done"))
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			_ = c.Crash().String()
			_ = c.Ops()
		}
	}()
	wg.Wait()
	must(t, c.SyncDir(dir))
	cr := c.Crash()
	for g := range 4 {
		got, err := cr.ReadAll(filepath.Join(dir, fmt.Sprintf("g%d.done", g)))
		must(t, err)
		if len(got) != 200 || got[199] != 199 {
			t.Fatalf("g%d: %d bytes", g, len(got))
		}
	}
}

func must2(t *testing.T, err error) {
	if err != nil {
		t.Error(err)
	}
}

func TestCrashFSMisuse(t *testing.T) {
	c := newTestFS(t)
	p := filepath.Join(dir, "f")
	durable(t, c, p, "x")
	if _, err := c.Create(dir); err == nil {
		t.Error("Create of a directory succeeded")
	}
	if err := c.MkdirAll(filepath.Join(p, "sub")); err == nil {
		t.Error("MkdirAll under a file succeeded")
	}
	if err := c.Remove("/data"); err == nil {
		t.Error("Remove of a non-empty dir succeeded")
	}
	if err := c.Truncate(p, -1); err == nil {
		t.Error("negative truncate succeeded")
	}
	r, err := c.Open(p)
	must(t, err)
	must(t, r.Close())
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	// Relative paths work from ".".
	durable(t, c, "rel", "r")
	if got, _ := c.Crash().ReadAll("./rel"); string(got) != "r" {
		t.Errorf("relative path: %q", got)
	}
}
