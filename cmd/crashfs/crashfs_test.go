package main

import (
	"bytes"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needFUSE fails under CI=true and skips otherwise when FUSE is unusable.
func needFUSE(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("FUSE is required under CI: %v", err)
	}
	t.Skipf("FUSE unavailable: %v", err)
}

type testMount struct {
	c       *crashFS
	backing string
	mnt     string
}

// mountT mounts a crash FS over a fresh backing dir in t.TempDir.
func mountT(t *testing.T, strict bool, fsyncDelay time.Duration) *testMount {
	t.Helper()
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	needFUSE(t, err)
	f.Close()
	dir := t.TempDir()
	m := &testMount{backing: filepath.Join(dir, "backing"), mnt: filepath.Join(dir, "mnt")}
	for _, d := range []string{m.backing, m.mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m.c = newCrashFS(m.backing, strict, fsyncDelay)
	m.c.logf = t.Logf
	srv, err := mountCrashFS(m.c, m.mnt, false)
	needFUSE(t, err)
	if err := srv.WaitMount(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Logf("unmount: %v", err)
			syscall.Unmount(m.mnt, syscall.MNT_DETACH)
		}
	})
	return m
}

func (m *testMount) p(name string) string { return filepath.Join(m.mnt, name) }

func mustWrite(t *testing.T, f *os.File, s string) {
	t.Helper()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func mustSync(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// write + fsync + write + cut: only the fsynced part survives; a file never
// fsynced ends empty; the old handle is dead; the FS stays usable.
func TestCutDropsUnsyncedData(t *testing.T) {
	m := mountT(t, false, 0)
	f, err := os.OpenFile(m.p("aof"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mustWrite(t, f, "first,")
	mustSync(t, f)
	mustWrite(t, f, "second")
	if got := readFile(t, m.p("aof")); got != "first,second" {
		t.Fatalf("live content %q", got)
	}
	if err := os.WriteFile(m.p("never"), []byte("not synced"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file that existed before the mount is durable until modified.
	if err := os.WriteFile(filepath.Join(m.backing, "old"), []byte("old data"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := os.OpenFile(m.p("old"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.WriteAt([]byte("NEW"), 0); err != nil {
		t.Fatal(err)
	}
	st := m.c.Cut()
	if got := readFile(t, m.p("aof")); got != "first," {
		t.Fatalf("after cut %q, want %q", got, "first,")
	}
	if got := readFile(t, m.p("never")); got != "" {
		t.Fatalf("never-synced file holds %q after cut", got)
	}
	if got := readFile(t, m.p("old")); got != "old data" {
		t.Fatalf("pre-existing file holds %q after cut", got)
	}
	if st.LastCutDroppedBytes != int64(len("second")+len("not synced")+len("NEW")) {
		t.Fatalf("dropped %d bytes", st.LastCutDroppedBytes)
	}
	// Handles from before the cut are dead.
	if _, err := f.WriteString("late"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write on a pre-cut handle: %v, want EIO", err)
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("fsync on a pre-cut handle: %v, want EIO", err)
	}
	// The reboot: reopen, append, sync, cut again.
	h, err := os.OpenFile(m.p("aof"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mustWrite(t, h, "third")
	mustSync(t, h)
	mustWrite(t, h, "lost")
	m.c.Cut()
	if got := readFile(t, m.p("aof")); got != "first,third" {
		t.Fatalf("after second cut %q", got)
	}
	s := m.c.Status()
	for _, k := range []string{"writes", "fsyncs", "cuts", "last_cut_dropped_bytes"} {
		if statusField(s, k) == "" {
			t.Fatalf("status lacks %s:\n%s", k, s)
		}
	}
	if statusField(s, "cuts") != "2" || statusField(s, "last_cut_dropped_bytes") != "4" {
		t.Fatalf("status:\n%s", s)
	}
}

// Truncation is data: undone by a cut unless fsynced; large writes (several
// FUSE requests, Writev) are tracked; a write-only file is copied right.
func TestTruncateAndLargeWrites(t *testing.T) {
	m := mountT(t, false, 0)
	big := make([]byte, 3<<20+12345)
	rand.Read(big)
	f, err := os.OpenFile(m.p("big"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(big); err != nil {
		t.Fatal(err)
	}
	mustSync(t, f)
	if err := f.Truncate(10); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100); err != nil {
		t.Fatal(err)
	}
	m.c.Cut()
	b, err := os.ReadFile(m.p("big"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, big) {
		t.Fatalf("after cut: %d bytes, equal prefix %v", len(b), len(b) >= 10 && bytes.Equal(b[:10], big[:10]))
	}
	g, err := os.OpenFile(m.p("big"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Truncate(10); err != nil {
		t.Fatal(err)
	}
	if err := g.Truncate(100); err != nil {
		t.Fatal(err)
	}
	mustSync(t, g)
	m.c.Cut()
	b = []byte(readFile(t, m.p("big")))
	want := append(append([]byte(nil), big[:10]...), make([]byte, 90)...)
	if !bytes.Equal(b, want) {
		t.Fatalf("synced truncation: %d bytes, want 100 (10 kept + 90 zeros)", len(b))
	}
}

// Strict: a file created and fsynced, its directory not, is gone after a
// cut; with the directory fsynced it stays.
func TestStrictCreateNeedsDirSync(t *testing.T) {
	m := mountT(t, true, 0)
	if err := os.Mkdir(m.p("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d/kept", "d/lost"} {
		f, err := os.Create(m.p(name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, f, "content of "+name)
		mustSync(t, f)
		f.Close()
		if name == "d/kept" {
			syncDir(t, m.p("d"))
		}
	}
	m.c.Cut()
	if got := readFile(t, m.p("d/kept")); got != "content of d/kept" {
		t.Fatalf("d/kept = %q", got)
	}
	if exists(m.p("d/lost")) || exists(filepath.Join(m.backing, "d/lost")) {
		t.Fatal("d/lost survived a cut without a directory fsync")
	}
}

// Strict: a rename (the manifest swap) and an unlink not followed by a
// directory fsync are undone: the old name with its old content comes back.
func TestStrictRenameAndUnlinkReverted(t *testing.T) {
	m := mountT(t, true, 0)
	writeSynced := func(name, content string) {
		f, err := os.Create(m.p(name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, f, content)
		mustSync(t, f)
		f.Close()
	}
	writeSynced("manifest", "v1")
	writeSynced("history", "old base")
	syncDir(t, m.mnt)
	writeSynced("temp-manifest", "v2")
	if err := os.Rename(m.p("temp-manifest"), m.p("manifest")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(m.p("history")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, m.p("manifest")); got != "v2" {
		t.Fatalf("live manifest %q", got)
	}
	st := m.c.Cut()
	if got := readFile(t, m.p("manifest")); got != "v1" {
		t.Fatalf("manifest after cut %q, want v1", got)
	}
	if got := readFile(t, m.p("history")); got != "old base" {
		t.Fatalf("history after cut %q", got)
	}
	if exists(m.p("temp-manifest")) {
		t.Fatal("temp-manifest came back, it was never durable")
	}
	if st.LastCutEntriesReverted == 0 {
		t.Fatalf("no entry reverted: %+v", st)
	}
	// Now the same with the directory fsynced: the rename holds.
	writeSynced("temp-manifest", "v3")
	if err := os.Rename(m.p("temp-manifest"), m.p("manifest")); err != nil {
		t.Fatal(err)
	}
	syncDir(t, m.mnt)
	m.c.Cut()
	if got := readFile(t, m.p("manifest")); got != "v3" {
		t.Fatalf("manifest after synced rename + cut %q, want v3", got)
	}
	// A rename whose target data was not fsynced keeps the entry but
	// loses the data.
	f, err := os.OpenFile(m.p("manifest"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, f, " unsynced")
	f.Close()
	m.c.Cut()
	if got := readFile(t, m.p("manifest")); got != "v3" {
		t.Fatalf("manifest %q", got)
	}
}

// Writeback makes dirty data durable by itself.
func TestWriteback(t *testing.T) {
	m := mountT(t, false, 0)
	stop := make(chan struct{})
	defer close(stop)
	go m.c.runWriteback(100*time.Millisecond, stop)
	if err := os.WriteFile(m.p("f"), []byte("written back"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for statusField(m.c.Status(), "writebacks") == "0" || statusField(m.c.Status(), "dirty_bytes") != "0" {
		if time.Now().After(deadline) {
			t.Fatalf("no writeback:\n%s", m.c.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.c.Cut()
	if got := readFile(t, m.p("f")); got != "written back" {
		t.Fatalf("after writeback + cut: %q", got)
	}
}

// Each fsync sleeps for the configured delay.
func TestFsyncDelay(t *testing.T) {
	const delay = 20 * time.Millisecond
	m := mountT(t, false, delay)
	f, err := os.Create(m.p("f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 5
	start := time.Now()
	for i := 0; i < n; i++ {
		mustWrite(t, f, "x")
		mustSync(t, f)
	}
	el := time.Since(start)
	if el < n*delay {
		t.Fatalf("%d fsyncs took %v, want >= %v", n, el, n*delay)
	}
	t.Logf("%d fsyncs with a %v delay took %v", n, delay, el)
}

// The control socket and "crashfs ctl"; cut-on-rename stops the renaming
// process and cuts right after the rename.
func TestControlAndCutOnRename(t *testing.T) {
	m := mountT(t, true, 0)
	sock := ctlSocketPath(m.mnt)
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(sock)
	defer ln.Close()
	go m.c.serveControl(ln)

	ctl := func(args ...string) string {
		t.Helper()
		var out, errb strings.Builder
		if rc := ctlMain(append([]string{m.mnt}, args...), &out, &errb); rc != 0 {
			t.Fatalf("ctl %q: rc %d: %s", args, rc, errb.String())
		}
		return out.String()
	}
	if err := os.WriteFile(m.p("a.manifest"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := ctl("sync"); !strings.Contains(out, "synced") {
		t.Fatalf("sync: %q", out)
	}
	if err := os.WriteFile(m.p("temp-a.manifest"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctl("cut-on-rename", "*.manifest*")
	if s := ctl("status"); !strings.Contains(statusField(s, "cut_on_rename"), "*.manifest*") {
		t.Fatalf("status after arming:\n%s", s)
	}
	// The renaming process gets SIGSTOP: use a child, not the test.
	mv := exec.Command("mv", m.p("temp-a.manifest"), m.p("a.manifest"))
	if err := mv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { mv.Process.Kill(); mv.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for statusField(ctl("status"), "cuts") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("no cut:\n%s", ctl("status"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// SIGSTOP takes effect when mv leaves the rename call.
	for st := procState(mv.Process.Pid); st != "T"; st = procState(mv.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("renaming process state %q, want T (stopped)", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := readFile(t, m.p("a.manifest")); got != "old" {
		t.Fatalf("a.manifest = %q after the cut, want old", got)
	}
	if exists(m.p("temp-a.manifest")) {
		t.Fatal("temp-a.manifest survived")
	}
	if s := ctl("status"); statusField(s, "cut_on_rename") != "off" || statusField(s, "fenced") != "true" {
		t.Fatalf("still armed, or not fenced:\n%s", s)
	}
	// The power is off: a process the SIGSTOP missed changes nothing.
	if err := os.WriteFile(m.p("after-the-cut"), []byte("x"), 0o644); err == nil {
		t.Fatal("a file was created after the automatic cut")
	}
	if err := os.Rename(m.p("a.manifest"), m.p("b.manifest")); err == nil {
		t.Fatal("a rename went through after the automatic cut")
	}
	if got := readFile(t, m.p("a.manifest")); got != "old" {
		t.Fatalf("a.manifest = %q, want old", got)
	}
	if out := ctl("cut"); !strings.HasPrefix(out, "cut 2:") {
		t.Fatalf("cut: %q", out)
	}
	if err := os.WriteFile(m.p("after-the-reboot"), []byte("x"), 0o644); err != nil {
		t.Fatalf("the manual cut did not lift the fence: %v", err)
	}
	var out, errb strings.Builder
	if rc := ctlMain([]string{m.mnt, "bogus"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("bogus command: rc %d, %q", rc, errb.String())
	}
}

// procState returns the state letter of a process from /proc.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// The binary: --help, SIGUSR1 = cut, SIGUSR2 = sync, "crashfs ctl", and
// SIGTERM unmounts.
func TestBinary(t *testing.T) {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	needFUSE(t, err)
	f.Close()
	exe := build(t, "crashfs", ".")
	out, err := exec.Command(exe, "--help").Output()
	if err != nil || !strings.Contains(string(out), "cut-on-rename <glob>") || !strings.Contains(string(out), "SIGUSR1 = cut") {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	dir := t.TempDir()
	backing, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	os.Mkdir(backing, 0o755)
	os.Mkdir(mnt, 0o755)
	m := startCrashMount(t, exe, backing, mnt, "--fsync-delay", "1ms")
	status := func() string {
		out, err := exec.Command(exe, "ctl", mnt, "status").CombinedOutput()
		if err != nil {
			t.Fatalf("crashfs ctl status: %v\n%s", err, out)
		}
		return string(out)
	}
	waitCuts := func(n string) {
		deadline := time.Now().Add(5 * time.Second)
		for statusField(status(), "cuts") != n {
			if time.Now().After(deadline) {
				t.Fatalf("cuts != %s:\n%s", n, status())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := os.WriteFile(filepath.Join(mnt, "a"), []byte("dirty"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.p.cmd.Process.Signal(syscall.SIGUSR1)
	waitCuts("1")
	if got := readFile(t, filepath.Join(mnt, "a")); got != "" {
		t.Fatalf("after SIGUSR1: %q", got)
	}
	if err := os.WriteFile(filepath.Join(mnt, "a"), []byte("synced by SIGUSR2"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.p.cmd.Process.Signal(syscall.SIGUSR2)
	deadline := time.Now().Add(5 * time.Second)
	for statusField(status(), "syncs") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("no sync:\n%s", status())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if out, err := exec.Command(exe, "ctl", mnt, "cut").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "cut 2:") {
		t.Fatalf("ctl cut: %v %q", err, out)
	}
	if got := readFile(t, filepath.Join(mnt, "a")); got != "synced by SIGUSR2" {
		t.Fatalf("after sync + cut: %q", got)
	}
	m.stop(t)
	if m.p.Err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", m.p.Err, m.p.out.String())
	}
	if b, _ := os.ReadFile("/proc/self/mounts"); strings.Contains(string(b), mnt) {
		t.Fatal("still mounted after SIGTERM")
	}
	if _, err := os.Stat(ctlSocketPath(mnt)); err == nil {
		t.Fatal("control socket left behind")
	}
}
