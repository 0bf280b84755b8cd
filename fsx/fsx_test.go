package fsx

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

// conformance runs the same behaviour checks against OS and CrashFS, so the
// in-memory model cannot drift from the real file system.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys func() FS
	}{
		{"os", OS},
		{"crash", func() FS { return NewCrashFS() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := tc.fsys()
			dir := filepath.Join(t.TempDir(), "sub", "appendonlydir")
			must(t, fsys.MkdirAll(dir))
			must(t, fsys.MkdirAll(dir)) // idempotent
			p := filepath.Join(dir, "b.aof")

			f, err := fsys.Create(p)
			must(t, err)
			if f.Name() != p {
				t.Errorf("Name = %q, want %q", f.Name(), p)
			}
			write(t, f, "hello world")
			must(t, f.Sync())
			must(t, f.Truncate(5))
			if n, err := f.Size(); err != nil || n != 5 {
				t.Fatalf("Size after truncate = %d, %v; want 5", n, err)
			}
			// Create's offset is not moved by ftruncate: the gap is zero-filled.
			write(t, f, "!")
			must(t, f.Close())
			if err := f.Close(); err == nil {
				t.Error("second Close succeeded")
			}
			checkContent(t, fsys, p, "hello\x00\x00\x00\x00\x00\x00!")

			// O_TRUNC on an existing file.
			f, err = fsys.Create(p)
			must(t, err)
			write(t, f, "abc")
			must(t, f.Close())
			checkContent(t, fsys, p, "abc")

			// O_APPEND writes at the end, also after truncation.
			a, err := fsys.OpenAppend(p)
			must(t, err)
			write(t, a, "def")
			must(t, a.Truncate(2))
			write(t, a, "Z")
			must(t, a.Sync())
			must(t, a.Close())
			checkContent(t, fsys, p, "abZ")

			// OpenAppend creates.
			q := filepath.Join(dir, "a.aof")
			a, err = fsys.OpenAppend(q)
			must(t, err)
			write(t, a, "1")
			must(t, a.Close())
			if n, err := fsys.Stat(q); err != nil || n != 1 {
				t.Fatalf("Stat = %d, %v", n, err)
			}

			must(t, fsys.Truncate(q, 4))
			checkContent(t, fsys, q, "1\x00\x00\x00")

			// ReaderAt and Reader.
			r, err := fsys.Open(p)
			must(t, err)
			buf := make([]byte, 2)
			if n, err := r.ReadAt(buf, 1); n != 2 || err != nil || string(buf) != "bZ" {
				t.Fatalf("ReadAt = %d %v %q", n, err, buf[:n])
			}
			if n, err := r.ReadAt(buf, 2); n != 1 || err != io.EOF {
				t.Fatalf("ReadAt at tail = %d %v", n, err)
			}
			if sz, err := r.Size(); sz != 3 || err != nil {
				t.Fatalf("ReadFile.Size = %d %v", sz, err)
			}
			must(t, r.Close())

			must(t, fsys.MkdirAll(filepath.Join(dir, "zdir")))
			names, err := fsys.ReadDir(dir)
			must(t, err)
			if want := []string{"a.aof", "b.aof", "zdir"}; !slices.Equal(names, want) {
				t.Fatalf("ReadDir = %q, want %q", names, want)
			}

			must(t, fsys.Rename(q, filepath.Join(dir, "c.aof")))
			if _, err := fsys.Stat(q); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Stat after rename: %v", err)
			}
			// Rename over an existing file replaces it.
			must(t, fsys.Rename(filepath.Join(dir, "c.aof"), p))
			checkContent(t, fsys, p, "1\x00\x00\x00")
			must(t, fsys.SyncDir(dir))
			must(t, fsys.Remove(p))

			for name, err := range map[string]error{
				"open":    openErr(fsys, p),
				"stat":    statErr(fsys, p),
				"remove":  fsys.Remove(p),
				"rename":  fsys.Rename(p, q),
				"trunc":   fsys.Truncate(p, 0),
				"readdir": readDirErr(fsys, p),
				"syncdir": fsys.SyncDir(filepath.Join(dir, "nope")),
				"create":  createErr(fsys, filepath.Join(dir, "nope", "x")),
			} {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s of missing path: err = %v, want fs.ErrNotExist", name, err)
				}
			}
			names, err = fsys.ReadDir(dir)
			must(t, err)
			if want := []string{"zdir"}; !slices.Equal(names, want) {
				t.Fatalf("ReadDir = %q, want %q", names, want)
			}
		})
	}
}

func openErr(fsys FS, p string) error    { _, err := fsys.Open(p); return err }
func statErr(fsys FS, p string) error    { _, err := fsys.Stat(p); return err }
func readDirErr(fsys FS, p string) error { _, err := fsys.ReadDir(p); return err }
func createErr(fsys FS, p string) error  { _, err := fsys.Create(p); return err }

func TestWriteFileAtomicOS(t *testing.T) {
	fsys := OS()
	dir := t.TempDir()
	p := filepath.Join(dir, "appendonly.aof.manifest")
	must(t, WriteFileAtomic(fsys, p, []byte("one\n")))
	must(t, WriteFileAtomic(fsys, p, []byte("two\n")))
	checkContent(t, fsys, p, "two\n")
	names, err := fsys.ReadDir(dir)
	must(t, err)
	if !slices.Equal(names, []string{"appendonly.aof.manifest"}) {
		t.Fatalf("dir holds %q; temp file left behind?", names)
	}
	// The directory is missing: the error names the step and the path.
	err = WriteFileAtomic(fsys, filepath.Join(dir, "missing", "m"), []byte("x"))
	if !errors.Is(err, fs.ErrNotExist) || !bytes.Contains([]byte(err.Error()), []byte("create temp file")) {
		t.Fatalf("err = %v", err)
	}
}

func TestTempName(t *testing.T) {
	if got := TempName("/d/appendonlydir/appendonly.aof.manifest"); got != "/d/appendonlydir/temp-appendonly.aof.manifest" {
		t.Fatalf("TempName = %q", got)
	}
	if got := TempName("m"); got != "temp-m" {
		t.Fatalf("TempName = %q", got)
	}
}

func TestOpString(t *testing.T) {
	seen := map[string]bool{}
	for o := OpCreate; o <= OpRead; o++ {
		s := o.String()
		if s == "" || seen[s] {
			t.Fatalf("Op(%d).String() = %q: empty or duplicate", o, s)
		}
		seen[s] = true
	}
	if s := Op(200).String(); s != "op(200)" {
		t.Fatalf("unknown op = %q", s)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, f File, s string) {
	t.Helper()
	n, err := f.Write([]byte(s))
	if err != nil || n != len(s) {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}

func checkContent(t *testing.T, fsys FS, p, want string) {
	t.Helper()
	r, err := fsys.Open(p)
	must(t, err)
	defer r.Close()
	got, err := io.ReadAll(r)
	must(t, err)
	if string(got) != want {
		t.Fatalf("%s = %q, want %q", p, got, want)
	}
}

// Sync of an OS file from many goroutines at once keeps every write, and
// fails once the file is closed.
func TestSyncOS(t *testing.T) {
	f, err := OS().Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				if _, err := f.Write([]byte("x")); err != nil {
					done <- err
					return
				}
				if err := f.Sync(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n, err := f.Size(); err != nil || n != 80 {
		t.Fatalf("size %d, %v", n, err)
	}
	f.Close()
	if err := f.Sync(); err == nil {
		t.Fatal("Sync of a closed file succeeded")
	}
}
