package persist

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

// The snapshot writer leaves the stream at final (the job's install makes
// the name durable with the manifest or the directory fsync), and on a
// failed step removes its temp file and returns the line Redis's child
// logs for that step.
func TestWriteSnapshotSteps(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1<<20) // 10 MB: incremental fsyncs too
	fsys := fsx.NewCrashFS()
	if err := writeSnapshot(fsys, bytes.NewReader(data), "/temp-rewriteaof-7.aof", "/temp-rewriteaof-bg-7.aof"); err != nil {
		t.Fatal(err)
	}
	if got, err := fsys.ReadAll("/temp-rewriteaof-bg-7.aof"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("final file: %d bytes, %v; want %d bytes", len(got), err, len(data))
	}
	if _, err := fsys.Stat("/temp-rewriteaof-7.aof"); err == nil {
		t.Fatal("temp name left behind")
	}

	for _, tc := range []struct {
		op          fsx.Op
		final, want string
	}{
		{fsx.OpCreate, "", "Failed opening the temp RDB file temp-7.rdb (in server root dir /) for saving: No space left on device"},
		{fsx.OpWrite, "", "Write error saving DB on disk: No space left on device"},
		{fsx.OpSync, "/f-7.aof", "Write error writing append only file on disk: No space left on device"},
		{fsx.OpRename, "/f-7.aof", "Error moving temp append only file on the final destination: No space left on device"},
		{fsx.OpCreate, "/f-7.aof", "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): No space left on device"},
	} {
		fsys := fsx.NewCrashFS()
		fsys.SetInjector(func(op fsx.Op, path string) error {
			if op == tc.op {
				return syscall.ENOSPC
			}
			return nil
		})
		tmp := "/temp-7.rdb"
		err := writeSnapshot(fsys, bytes.NewReader(data), tmp, tc.final)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v failing: %v, want %q", tc.op, err, tc.want)
		}
		fsys.SetInjector(nil)
		if _, err := fsys.Stat(tmp); err == nil {
			t.Errorf("%v failing: %s left behind", tc.op, tmp)
		}
	}
}

// After 3 consecutive failed rewrites the scheduled and automatic ones
// wait 1, 2, 4 ... 60 minutes, as Redis's aofRewriteLimited, and a
// success lifts the limit.
func TestRewriteLimited(t *testing.T) {
	var lines []string
	p := &Persister{env: Env{Log: lineLog{&lines}}}
	now := fsxEpoch
	p.RewriteFailures = 3
	var delays []int
	for range 8 {
		if !p.rewriteLimited(now) {
			t.Fatal("not limited after 3 failures")
		}
		delays = append(delays, p.rewriteLimit.delayMinutes)
		now = p.rewriteLimit.next
		if p.rewriteLimited(now) { // the delay is over: one try
			t.Fatal("limited once the delay passed")
		}
	}
	want := []int{1, 2, 4, 8, 16, 32, 60, 60}
	for i := range want {
		if delays[i] != want[i] {
			t.Fatalf("delays %v, want %v", delays, want)
		}
	}
	if lines[0] != "# Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes" {
		t.Fatalf("line %q", lines[0])
	}
	p.RewriteFailures = 0
	if p.rewriteLimited(now) || p.rewriteLimit.delayMinutes != 0 {
		t.Fatal("still limited after a success")
	}
}

var fsxEpoch = time.Unix(1700000000, 0)

// lineLog keeps the lines logged, Redis's level mark first.
type lineLog struct{ lines *[]string }

func (l lineLog) Verbose(msg string) { *l.lines = append(*l.lines, "- "+msg) }
func (l lineLog) Notice(msg string)  { *l.lines = append(*l.lines, "* "+msg) }
func (l lineLog) Warning(msg string) { *l.lines = append(*l.lines, "# "+msg) }
func (l lineLog) ChildNotice(pid int, msg string) {
	*l.lines = append(*l.lines, fmt.Sprintf("%d:C * %s", pid, msg))
}
