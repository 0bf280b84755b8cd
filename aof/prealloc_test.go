package aof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"

	"github.com/aofserver/aofserver/internal/testsrv"
)

func withPrealloc(n int64) func(*Options) { return func(o *Options) { o.PreallocSize = n } }

// feedWait feeds cmds in db 0 and waits for the last one.
func feedWait(t *testing.T, a *AOF, cmds ...string) {
	t.Helper()
	var off Ticket
	for _, c := range cmds {
		off = a.Feed(Op{DB: 0, Argv: args(c)})
	}
	if err := a.Wait(off); err != nil {
		t.Fatal(err)
	}
}

func setCmds(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("SET k%d v%d", i, i))
	}
	return out
}

// loadAll opens and loads c's /data and returns the commands and stats.
func loadAll(t *testing.T, c fsx.FS, tune func(*Options)) (*AOF, []string, LoadStats) {
	t.Helper()
	opt, _ := testOpts(c, "/data", Always)
	if tune != nil {
		tune(&opt)
	}
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	l := &recLoader{}
	st, err := a.Load(l, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return a, withoutSelect0(l.cmds), st
}

func TestPreallocPadsThenTrimsOnClose(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, withPrealloc(1024))
	cmds := setCmds(0, 50)
	for _, cmd := range cmds {
		feedWait(t, a, cmd)
	}
	plain := append(resp("SELECT 0"), resp(cmds...)...)
	live, _ := c.ReadAll(incr1Path)
	if len(live) <= len(plain) || !bytes.HasPrefix(live, plain) {
		t.Fatalf("live file is %d bytes, want the %d data bytes followed by padding", len(live), len(plain))
	}
	if tail := live[len(plain):]; tail[0] != '#' || !isPadding(tail) {
		t.Fatalf("what follows the data is not padding: %q", tail[:min(len(tail), 80)])
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	closed, _ := c.ReadAll(incr1Path)
	if !bytes.Equal(closed, plain) {
		t.Fatalf("closed file is %d bytes, want exactly the %d data bytes", len(closed), len(plain))
	}
}

// A power cut leaves the padding; the data after the restart continues
// right after the old data, so every command loads, in order.
func TestPreallocCrashThenContinue(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, withPrealloc(300)) // several extensions
	first := setCmds(0, 40)
	for _, cmd := range first {
		feedWait(t, a, cmd)
	}
	crashed := c.Crash()
	a.Close()

	a2, got, st := loadAll(t, crashed, withPrealloc(300))
	if !slices.Equal(got, first) {
		t.Fatalf("after the cut loaded %q, want %q", got, first)
	}
	if st.Truncated || st.TailInteriorPad {
		t.Fatalf("stats %+v", st)
	}
	if err := a2.Start(nil); err != nil {
		t.Fatal(err)
	}
	second := setCmds(40, 80)
	for _, cmd := range second {
		feedWait(t, a2, cmd)
	}
	crashed2 := crashed.Crash()
	a2.Close()
	_, got, _ = loadAll(t, crashed2, nil)
	if want := append(slices.Clone(first), second...); !slices.Equal(got, want) {
		t.Fatalf("after the second cut loaded %q, want %q", got, want)
	}
}

// writeIncr replaces the incr file of a fresh AOF directory with data.
func writeIncr(t *testing.T, data []byte) *fsx.CrashFS {
	t.Helper()
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, nil)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	putFile(t, c, incr1Path, data)
	return c
}

func TestPreallocTornBatchIsCut(t *testing.T) {
	valid := resp("SET a 1", "SET b 2")
	torn := resp("SET c 3")
	for name, data := range map[string][]byte{
		"partial command then padding": append(append(slices.Clone(valid), torn[:12]...), padding(256)...),
		"garbage then padding":         append(append(slices.Clone(valid), "*3\r\n$3\r\nSE##"...), padding(256)...),
		"later part of a batch alone":  append(append(append(append(slices.Clone(valid), '#'), padding(128)...), torn...), padding(128)...),
	} {
		t.Run(name, func(t *testing.T) {
			c := writeIncr(t, data)
			a, got, st := loadAll(t, c, nil)
			if want := []string{"SET a 1", "SET b 2"}; !slices.Equal(got, want) {
				t.Fatalf("loaded %q, want %q", got, want)
			}
			if !st.Truncated {
				t.Fatal("not reported as truncated")
			}
			after, _ := c.ReadAll(incr1Path)
			if !bytes.Equal(after, valid) {
				t.Fatalf("file after the cut: %q", after)
			}
			if err := a.Start(nil); err != nil {
				t.Fatal(err)
			}
			feedWait(t, a, "SET d 4")
			a.Close()
			_, got, _ = loadAll(t, c, nil)
			if want := []string{"SET a 1", "SET b 2", "SET d 4"}; !slices.Equal(got, want) {
				t.Fatalf("after restart loaded %q, want %q", got, want)
			}
		})
	}
}

// Without padding at the end the same damage stays a format error: the
// leniency is only for a preallocated tail.
func TestGarbageWithoutPaddingStillRefuses(t *testing.T) {
	data := append(resp("SET a 1"), "*3\r\n$3\r\nSE##\r\n*1\r\n$4\r\nPING\r\n"...)
	c := writeIncr(t, data)
	opt, _ := testOpts(c, "/data", Always)
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Load(&recLoader{}, nil); err == nil || !strings.Contains(err.Error(), "Bad file format") {
		t.Fatalf("Load: %v, want a format error", err)
	}
}

// Padding followed by data up to the end: someone (real Redis) appended
// after a padded file. Everything loads, and the file is not preallocated
// again, so it can never look like a torn batch.
func TestPreallocInteriorPaddingLoads(t *testing.T) {
	data := append(append(append(resp("SET a 1"), '#'), padding(128)...), resp("SET b 2")...)
	c := writeIncr(t, data)
	a, got, st := loadAll(t, c, withPrealloc(256))
	if want := []string{"SET a 1", "SET b 2"}; !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	if !st.TailInteriorPad || st.TailEnd != int64(len(data)) {
		t.Fatalf("stats %+v (file %d bytes)", st, len(data))
	}
	if err := a.Start(nil); err != nil {
		t.Fatal(err)
	}
	feedWait(t, a, "SET c 3")
	live, _ := c.ReadAll(incr1Path)
	if want := append(slices.Clone(data), resp("SELECT 0", "SET c 3")...); !bytes.Equal(live, want) {
		t.Fatalf("live file %q, want plain appends %q", live, want)
	}
	a.Close()
}

// Everysec does not preallocate; a padded file left by always is trimmed
// when it is opened under another policy.
func TestPreallocOnlyUnderAlways(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, EverySec, withPrealloc(1024))
	feedWait(t, a, "SET a 1")
	live, _ := c.ReadAll(incr1Path)
	if want := resp("SELECT 0", "SET a 1"); !bytes.Equal(live, want) {
		t.Fatalf("everysec file %q, want %q", live, want)
	}
	a.Close()

	c2 := newCrashDir(t)
	a2, _ := startFresh(t, c2, Always, withPrealloc(1024))
	feedWait(t, a2, "SET a 1")
	crashed := c2.Crash()
	a2.Close()
	opt, _ := testOpts(crashed, "/data", EverySec)
	opt.PreallocSize = 1024
	a3, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a3.Load(&recLoader{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a3.Start(nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := crashed.ReadAll(incr1Path); !bytes.Equal(got, resp("SELECT 0", "SET a 1")) {
		t.Fatalf("file opened under everysec still padded: %d bytes", len(got))
	}
	a3.Close()
}

// Real Redis and redis-check-aof accept a directory left by a killed
// server that preallocated (the padding lines are annotations).
func TestRealRedisLoadsPreallocatedDirectory(t *testing.T) {
	testsrv.NeedRedis(t)
	needBinary(t, realCheckAOF)
	live := t.TempDir()
	opt, _ := testOpts(fsx.OS(), live, Always)
	opt.PreallocSize = 4096
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		feedWait(t, a, fmt.Sprintf("SET k%d v%d", i, i))
	}
	feedWait(t, a, "MULTI", "INCR n", "INCR n", "EXEC")
	dir := t.TempDir()
	copyDir(t, filepath.Join(live, "appendonlydir"), filepath.Join(dir, "appendonlydir"))
	a.Close()
	incr, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(incr, padding(padLineLen)) {
		t.Fatal("the copied incr file is not padded; the test would prove nothing")
	}
	port, logs := checkAndServe(t, dir)
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("redis-cli", "-p", strconv.Itoa(port), "MGET", "k0", "k99", "n").Output()
		if string(out) == "v0\nv99\n2\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not load the padded directory (last reply %q):\n%s", out, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
