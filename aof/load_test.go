package aof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/manifest"
)

// openGolden copies testdata/<name>/appendonlydir into a temp dir and opens it.
func openGolden(t *testing.T, name string) (*AOF, string, *logBuf) {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", name, "appendonlydir"), filepath.Join(dir, "appendonlydir"))
	opt, lb := testOpts(fsx.OS(), dir, EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	return a, dir, lb
}

func TestLoadGoldenMultipartHistory(t *testing.T) {
	a, dir, lb := openGolden(t, "multipart-history")
	l := &recLoader{}
	st, err := a.Load(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SELECT 0", "RDB k2=v2", "RDB k1=v1", "SELECT 0", "SELECT 0", "SET k3 v3"}
	if !slices.Equal(l.cmds, want) {
		t.Fatalf("commands = %q, want %q", l.cmds, want)
	}
	if st.Files != 2 || st.BaseSize != 108 || st.TotalSize != 108+52 || st.Truncated {
		t.Fatalf("stats = %+v", st)
	}
	lb.has(t, "DB loaded from base file appendonly.aof.3.base.rdb")
	lb.has(t, "DB loaded from incr file appendonly.aof.3.incr.aof")
	lb.has(t, "Reading RDB base file on AOF loading...")
	// Start with gc enabled deletes the 4 history files, as Redis does.
	if err := a.Start(nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if string(got) != "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n" {
		t.Fatalf("manifest after gc:\n%s", got)
	}
	for _, n := range []string{"appendonly.aof.1.base.rdb", "appendonly.aof.2.incr.aof"} {
		if _, err := os.Stat(filepath.Join(dir, "appendonlydir", n)); !os.IsNotExist(err) {
			t.Errorf("history file %s still exists (%v)", n, err)
		}
	}
	lb.has(t, "Removing the history file appendonly.aof.2.incr.aof in the background")
	lb.has(t, "Opening AOF incr file appendonly.aof.3.incr.aof on server start")
}

func TestLoadGoldenTwoIncr(t *testing.T) {
	a, _, _ := openGolden(t, "two-incr")
	l := &recLoader{}
	var calls, lastLoaded, lastTotal int64
	st, err := a.Load(l, func(loaded, total int64) { calls++; lastLoaded, lastTotal = loaded, total })
	if calls == 0 || lastLoaded != 89+304 || lastTotal != 89+304 {
		t.Fatalf("progress: %d calls, last %d/%d", calls, lastLoaded, lastTotal)
	}
	if err != nil {
		t.Fatal(err)
	}
	got := withoutSelect0(l.cmds)
	if len(got) != 10 || got[0] != "set k1 v" || got[9] != "set k10 v" {
		t.Fatalf("commands = %q", got)
	}
	if st.Files != 3 {
		t.Fatalf("files = %d", st.Files)
	}
}

func TestLoadGoldenRESPBaseTimestamps(t *testing.T) {
	a, _, _ := openGolden(t, "resp-base-timestamps")
	l := &recLoader{}
	if _, err := a.Load(l, nil); err != nil {
		t.Fatal(err)
	}
	var fn, sel3, rpush, late, after int
	for _, c := range l.cmds {
		switch {
		case strings.HasPrefix(c, "FUNCTION LOAD #!lua name=mylib"):
			fn++
		case c == "SELECT 3":
			sel3++
		case strings.HasPrefix(c, "RPUSH biglist"):
			rpush++
		case c == "SET late v":
			late++
		case strings.HasPrefix(c, "set after v") || strings.HasPrefix(c, "SET after v"):
			after++
		}
		if strings.HasPrefix(c, "#") {
			t.Fatalf("annotation delivered as a command: %q", c)
		}
	}
	if fn != 1 || sel3 != 1 || rpush != 2 || late != 1 || after != 1 {
		t.Fatalf("fn=%d sel3=%d rpush=%d late=%d after=%d; cmds=%q", fn, sel3, rpush, late, after, l.cmds)
	}
}

func TestOpenUpgradesOldStyleFile(t *testing.T) {
	dir := t.TempDir()
	old, err := os.ReadFile("testdata/upgraded-from-6.x/appendonlydir/appendonly.aof")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	opt, lb := testOpts(fsx.OS(), dir, EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	lb.has(t, "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).")
	if _, err := os.Stat(filepath.Join(dir, "appendonly.aof")); !os.IsNotExist(err) {
		t.Fatalf("old file still in dir: %v", err)
	}
	l := &recLoader{}
	if _, err := a.Load(l, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"SELECT 0", "SELECT 0", "SET old 1"}; !slices.Equal(l.cmds, want) {
		t.Fatalf("cmds = %q", l.cmds)
	}
	if err := a.Start(nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	want, _ := os.ReadFile("testdata/upgraded-from-6.x/appendonlydir/appendonly.aof.manifest")
	if !bytes.Equal(got, want) {
		t.Fatalf("manifest = %q, want golden %q", got, want)
	}
}

func TestLoadGoldenPropagation(t *testing.T) {
	c := newCrashDir(t)
	base, _ := os.ReadFile("testdata/empty-aof-base.rdb")
	incr, _ := os.ReadFile("testdata/propagation.incr.aof")
	putFile(t, c, "/data/appendonlydir/appendonly.aof.1.base.rdb", base)
	putFile(t, c, "/data/appendonlydir/appendonly.aof.1.incr.aof", incr)
	putFile(t, c, "/data/appendonlydir/appendonly.aof.manifest",
		[]byte("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"))
	opt, _ := testOpts(c, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	l := &recLoader{}
	if _, err := a.Load(l, nil); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(l.cmds, "\n")
	// MULTI/EXEC delivered as a unit, with SELECT inside (7.0 order).
	for _, want := range []string{
		"MULTI\nSET m1 v\nSELECT 2\nSET m2 v\nEXEC",
		"MULTI\nset e1 v\nset e2 v\nEXEC",
		"MULTI\nDEL px2\nSET px2 v2\nEXEC",
		"RPUSH bl x y\nLPOP bl",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing sequence %q in\n%s", want, joined)
		}
	}
	if !strings.Contains(joined, "FLUSHDB") {
		t.Error("FLUSHDB missing")
	}
}

// loadCase builds /data/appendonlydir with a RESP base and incrs on a CrashFS.
func loadCase(t *testing.T, base []byte, incrs ...[]byte) (*fsx.CrashFS, Options, *logBuf) {
	t.Helper()
	c := newCrashDir(t)
	m := "file appendonly.aof.1.base.aof seq 1 type b\n"
	putFile(t, c, "/data/appendonlydir/appendonly.aof.1.base.aof", base)
	for i, inc := range incrs {
		name := manifest.IncrName("appendonly.aof", int64(i+1))
		putFile(t, c, "/data/appendonlydir/"+name, inc)
		m += fmt.Sprintf("file %s seq %d type i\n", name, i+1)
	}
	putFile(t, c, "/data/appendonlydir/appendonly.aof.manifest", []byte(m))
	opt, lb := testOpts(c, "/data", EverySec)
	return c, opt, lb
}

func loadWith(t *testing.T, opt Options, l *recLoader) (LoadStats, error) {
	t.Helper()
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	return a.Load(l, nil)
}

func wantLoadErr(t *testing.T, err error, file string, off int64, msgPrefix string, corrupt bool) {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LoadError", err)
	}
	if le.File != file || le.Offset != off || !strings.HasPrefix(le.Msg, msgPrefix) {
		t.Fatalf("LoadError{File:%q Offset:%d Msg:%q}, want file %q offset %d msg %q...", le.File, le.Offset, le.Msg, file, off, msgPrefix)
	}
	if errors.Is(err, ErrCorrupt) != corrupt {
		t.Fatalf("errors.Is(ErrCorrupt) = %v, want %v", !corrupt, corrupt)
	}
}

func TestLoadOutcomes(t *testing.T) {
	good := resp("SET a 1", "SET b 2")
	const incr1 = "appendonly.aof.1.incr.aof"
	const incr2 = "appendonly.aof.2.incr.aof"

	t.Run("torn last incr truncated", func(t *testing.T) {
		torn := append(slices.Clone(good), "*3\r\n$3\r\nSET\r\n$1\r\nc"...)
		c, opt, lb := loadCase(t, nil, torn)
		l := &recLoader{}
		st, err := loadWith(t, opt, l)
		if err != nil || !st.Truncated {
			t.Fatalf("err=%v stats=%+v", err, st)
		}
		got, _ := c.ReadAll("/data/appendonlydir/" + incr1)
		if !bytes.Equal(got, good) {
			t.Fatalf("file not truncated to the last command: %q", got)
		}
		if w := []string{"SET a 1", "SET b 2"}; !slices.Equal(withoutSelect0(l.cmds), w) {
			t.Fatalf("cmds %q", l.cmds)
		}
		lb.has(t, "!!! Warning: short read while loading the AOF file "+incr1+"!!!")
		lb.has(t, fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", incr1, len(good)))
		lb.has(t, "AOF "+incr1+" loaded anyway because aof-load-truncated is enabled")
	})
	t.Run("torn last incr refused", func(t *testing.T) {
		torn := append(slices.Clone(good), "*3\r\n$3\r\nSET"...)
		c, opt, _ := loadCase(t, nil, torn)
		opt.LoadTruncated = false
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, int64(len(good)), "Unexpected end of file reading the append only file "+incr1+". You can: 1) Make a backup", true)
		got, _ := c.ReadAll("/data/appendonlydir/" + incr1)
		if !bytes.Equal(got, torn) {
			t.Fatal("file changed although aof-load-truncated is off")
		}
	})
	t.Run("incomplete multi reverted", func(t *testing.T) {
		f := append(slices.Clone(good), resp("MULTI", "SET x 1", "SET y 2")...)
		c, opt, lb := loadCase(t, nil, f)
		l := &recLoader{}
		if _, err := loadWith(t, opt, l); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(l.cmds, "SET x 1") || slices.Contains(l.cmds, "MULTI") {
			t.Fatalf("incomplete transaction delivered: %q", l.cmds)
		}
		got, _ := c.ReadAll("/data/appendonlydir/" + incr1)
		if !bytes.Equal(got, good) {
			t.Fatalf("not truncated before MULTI: %q", got)
		}
		lb.has(t, "Revert incomplete MULTI/EXEC transaction in AOF file "+incr1)
	})
	t.Run("non-last file truncated", func(t *testing.T) {
		torn := append(slices.Clone(good), "*2\r\n$3"...)
		c, opt, lb := loadCase(t, nil, torn, resp("SET z 9"))
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, int64(len(good)), "Fatal error: the truncated file is not the last file", true)
		got, _ := c.ReadAll("/data/appendonlydir/" + incr1)
		if !bytes.Equal(got, good) {
			t.Fatal("Redis truncates the non-last file before failing; we must too")
		}
		lb.has(t, "Fatal error: the truncated file is not the last file")
	})
	t.Run("garbage in the middle", func(t *testing.T) {
		f := append(slices.Clone(good), "garbage\r\n"...)
		f = append(f, resp("SET c 3")...)
		_, opt, _ := loadCase(t, nil, f)
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, int64(len(good)), "Bad file format reading the append only file "+incr1+": make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", true)
	})
	t.Run("garbage at the tail is not truncated", func(t *testing.T) {
		f := append(slices.Clone(good), "xx"...)
		_, opt, _ := loadCase(t, nil, f)
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, int64(len(good)), "Bad file format", true)
	})
	t.Run("bad argument line", func(t *testing.T) {
		f := append(slices.Clone(good), "*1\r\n+OK\r\n"...)
		_, opt, _ := loadCase(t, nil, f)
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, int64(len(good))+4, "Bad file format", true)
	})
	t.Run("unknown command", func(t *testing.T) {
		f := append(slices.Clone(good), resp("FOOBAR x")...)
		_, opt, lb := loadCase(t, nil, f)
		_, err := loadWith(t, opt, &recLoader{unknown: map[string]bool{"FOOBAR": true}})
		wantLoadErr(t, err, incr1, int64(len(good)), "Unknown command 'FOOBAR' reading the append only file "+incr1, false)
		if !errors.Is(err, ErrUnknownCommand) {
			t.Fatal("error does not wrap ErrUnknownCommand")
		}
		lb.has(t, "Unknown command 'FOOBAR' reading the append only file")
	})
	t.Run("command error continues", func(t *testing.T) {
		f := resp("INCR a", "SET b 2")
		_, opt, _ := loadCase(t, nil, f)
		l := &recLoader{errOn: map[string]error{"INCR": errors.New("ERR value is not an integer or out of range")}}
		if _, err := loadWith(t, opt, l); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(l.cmds, "SET b 2") {
			t.Fatal("loading stopped after a command error")
		}
	})
	t.Run("annotations skipped", func(t *testing.T) {
		f := []byte("#TS:1700000000\r\n")
		f = append(f, resp("SET a 1")...)
		f = append(f, "# any comment\r\n"...)
		f = append(f, resp("SET b 2")...)
		f = append(f, "#TS:17"...) // a torn annotation at EOF is harmless
		_, opt, _ := loadCase(t, []byte("#TS:1\r\n"), f)
		opt.LoadTruncated = false
		l := &recLoader{}
		if _, err := loadWith(t, opt, l); err != nil {
			t.Fatal(err)
		}
		if w := []string{"SET a 1", "SET b 2"}; !slices.Equal(withoutSelect0(l.cmds), w) {
			t.Fatalf("cmds %q", l.cmds)
		}
	})
	t.Run("trailing bytes after bulk unchecked", func(t *testing.T) {
		_, opt, _ := loadCase(t, nil, []byte("*2\r\n$3\r\nGETXY$1\r\n1XY"))
		opt.LoadTruncated = false
		l := &recLoader{}
		if _, err := loadWith(t, opt, l); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(l.cmds, "GET 1") {
			t.Fatalf("cmds %q", l.cmds)
		}
	})
	t.Run("missing listed file", func(t *testing.T) {
		c, opt, lb := loadCase(t, nil, good)
		if err := c.Remove("/data/appendonlydir/" + incr1); err != nil {
			t.Fatal(err)
		}
		_, err := loadWith(t, opt, &recLoader{})
		wantLoadErr(t, err, incr1, 0, "Unable to obtain the AOF file "+incr1+" length. stat: ", false)
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err %v is not ErrNotExist", err)
		}
		lb.has(t, "length. stat: ")
	})
	t.Run("rdb base error is fatal and untouched", func(t *testing.T) {
		base := []byte("REDIS0010\xff")
		c, opt, lb := loadCase(t, base, good)
		_, err := loadWith(t, opt, &recLoader{rdbErr: errors.New("Unexpected EOF reading RDB file")})
		wantLoadErr(t, err, "appendonly.aof.1.base.aof", 0, "Error reading the RDB base file appendonly.aof.1.base.aof, AOF loading aborted", false)
		got, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.1.base.aof")
		if !bytes.Equal(got, base) {
			t.Fatal("RDB base modified")
		}
		lb.has(t, "Error reading the RDB base file")
	})
	t.Run("torn tail after rdb preamble keeps the rdb", func(t *testing.T) {
		rdb, _ := os.ReadFile("testdata/empty-aof-base.rdb")
		base := append(slices.Clone(rdb), "*1\r\n$4\r\nPI"...)
		c, opt, _ := loadCase(t, base)
		if _, err := loadWith(t, opt, &recLoader{}); err != nil {
			t.Fatal(err)
		}
		got, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.1.base.aof")
		if !bytes.Equal(got, rdb) {
			t.Fatalf("base truncated to %d bytes, want %d", len(got), len(rdb))
		}
	})
	t.Run("second file starts in db 0", func(t *testing.T) {
		_, opt, _ := loadCase(t, resp("SELECT 5", "SET a 1"), resp("SET b 2"))
		l := &recLoader{}
		if _, err := loadWith(t, opt, l); err != nil {
			t.Fatal(err)
		}
		want := []string{"SELECT 0", "SELECT 5", "SET a 1", "SELECT 0", "SET b 2"}
		if !slices.Equal(l.cmds, want) {
			t.Fatalf("cmds %q, want %q", l.cmds, want)
		}
	})
	t.Run("empty files", func(t *testing.T) {
		_, opt, _ := loadCase(t, nil, nil)
		l := &recLoader{}
		st, err := loadWith(t, opt, l)
		if err != nil || len(l.cmds) != 0 || st.TotalSize != 0 {
			t.Fatalf("err=%v cmds=%q st=%+v", err, l.cmds, st)
		}
	})
	_ = incr2
}

func TestOpenManifestErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "Found an empty AOF manifest"},
		{"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
		{"file a seq 1 type b", "The AOF manifest file contains too long line"},
		{"file x/y seq 1 type i\n", "File can't be a path, just a filename"},
	} {
		c := newCrashDir(t)
		putFile(t, c, "/data/appendonlydir/appendonly.aof.manifest", []byte(tc.text))
		opt, lb := testOpts(c, "/data", EverySec)
		_, err := Open(opt)
		if err == nil || !strings.Contains(err.Error(), "*** FATAL AOF MANIFEST FILE ERROR ***") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("manifest %q: err = %v, want %q", tc.text, err, tc.want)
		}
		if !errors.Is(err, manifest.ErrCorrupt) {
			t.Errorf("manifest %q: error does not wrap manifest.ErrCorrupt", tc.text)
		}
		lb.has(t, tc.want)
	}
	// Line and text are reported.
	c := newCrashDir(t)
	putFile(t, c, "/data/appendonlydir/appendonly.aof.manifest", []byte("file a seq 1 type b\nfile b seq 1 type z\n"))
	opt, _ := testOpts(c, "/data", EverySec)
	_, err := Open(opt)
	if err == nil || !strings.Contains(err.Error(), "Reading the manifest file, at line 2") || !strings.Contains(err.Error(), ">>> 'file b seq 1 type z'") {
		t.Fatalf("err = %v", err)
	}
}

// cutSeg is a piece of fullAOF: a unit of commands delivered together, or an
// annotation line.
type cutSeg struct {
	end  int
	cmds []string // nil for an annotation
}

// fullAOF is a valid incr file used for cut tests: plain commands, an
// annotation, and a transaction.
func fullAOF() ([]byte, []cutSeg) {
	var b []byte
	var segs []cutSeg
	add := func(cmds ...string) {
		b = append(b, resp(cmds...)...)
		segs = append(segs, cutSeg{end: len(b), cmds: cmds})
	}
	add("SELECT 0")
	add("SET k1 v1")
	b = append(b, "#TS:1700000000\r\n"...)
	segs = append(segs, cutSeg{end: len(b)})
	add("MULTI", "SET k2 v2", "INCR n", "EXEC")
	add("DEL k3")
	add("RPUSH l a bb ccc")
	return b, segs
}

func TestLoadEveryCut(t *testing.T) {
	full, segs := fullAOF()
	for cut := 0; cut <= len(full); cut++ {
		// Expected: the whole units before cut; a clean load when the cut is
		// at a segment end or inside an annotation; else a torn tail whose
		// valid prefix ends after the last complete unit.
		var want []string
		pos, valid, clean := 0, 0, true
		for _, sg := range segs {
			if sg.end > cut {
				clean = cut == pos || sg.cmds == nil
				break
			}
			pos = sg.end
			if sg.cmds != nil {
				valid = sg.end
				want = append(want, withoutSelect0(sg.cmds)...)
			}
		}
		for _, truncOK := range []bool{true, false} {
			c, opt, _ := loadCase(t, nil, full[:cut])
			opt.LoadTruncated = truncOK
			l := &recLoader{}
			st, err := loadWith(t, opt, l)
			if got := withoutSelect0(l.cmds); !slices.Equal(got, want) {
				t.Fatalf("cut %d trunc=%v: delivered %q, want %q", cut, truncOK, got, want)
			}
			disk, _ := c.ReadAll("/data/appendonlydir/appendonly.aof.1.incr.aof")
			switch {
			case clean:
				if err != nil || st.Truncated || !bytes.Equal(disk, full[:cut]) {
					t.Fatalf("cut %d (clean): err=%v truncated=%v disk=%d bytes", cut, err, st.Truncated, len(disk))
				}
			case truncOK:
				if err != nil || !st.Truncated {
					t.Fatalf("cut %d: err=%v truncated=%v", cut, err, st.Truncated)
				}
				if !bytes.Equal(disk, full[:valid]) {
					t.Fatalf("cut %d: file truncated to %d bytes, want %d", cut, len(disk), valid)
				}
			default:
				var le *LoadError
				if !errors.As(err, &le) || !errors.Is(err, ErrCorrupt) || le.Offset != int64(valid) {
					t.Fatalf("cut %d: err=%v, want corrupt LoadError at %d", cut, err, valid)
				}
				if !bytes.Equal(disk, full[:cut]) {
					t.Fatalf("cut %d: file modified", cut)
				}
			}
		}
	}
}

func FuzzLoad(f *testing.F) {
	full, _ := fullAOF()
	f.Add(full, true)
	f.Add(full[:len(full)-3], false)
	f.Add([]byte("*1\r\n$-1\r\n"), true)
	f.Add([]byte("*99999999999999999999\r\n"), true)
	f.Add([]byte("*1\r\n$99999999999\r\nx"), true)
	f.Add([]byte("REDIS0010\xff"), true)
	f.Add([]byte("#\n*\n"), false)
	f.Add(resp("MULTI", "SET a b"), true)
	f.Fuzz(func(t *testing.T, data []byte, truncOK bool) {
		c := fsx.NewCrashFS()
		_ = c.MkdirAll("/d/appendonlydir")
		w := func(p string, b []byte) {
			fl, _ := c.Create(p)
			fl.Write(b)
			fl.Close()
		}
		w("/d/appendonlydir/appendonly.aof.1.incr.aof", data)
		w("/d/appendonlydir/appendonly.aof.manifest", []byte("file appendonly.aof.1.incr.aof seq 1 type i\n"))
		opt, _ := testOpts(c, "/d", EverySec)
		opt.LoadTruncated = truncOK
		a, err := Open(opt)
		if err != nil {
			t.Fatal(err)
		}
		st, err := a.Load(&recLoader{rdbErr: errors.New("no rdb")}, func(loaded, total int64) {})
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LoadError", err)
			}
			return
		}
		disk, _ := c.ReadAll("/d/appendonlydir/appendonly.aof.1.incr.aof")
		if st.Truncated {
			if !truncOK || len(disk) > len(data) || !bytes.Equal(disk, data[:len(disk)]) {
				t.Fatalf("bad truncation: %d of %d bytes", len(disk), len(data))
			}
			// The truncated file must now load cleanly with nothing to cut.
			a2, _ := Open(opt)
			st2, err := a2.Load(&recLoader{rdbErr: errors.New("no rdb")}, nil)
			if err != nil || st2.Truncated {
				t.Fatalf("reload of truncated file: err=%v truncated=%v", err, st2.Truncated)
			}
		}
	})
}
