package persist

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// fakeSnap is a Snapshot of fixed bytes: its walk queues them once
// release is closed.
type fakeSnap struct {
	q       *Pipe
	data    []byte
	release chan struct{}
	aborted error // under the jobs' lock
}

func newFakeSnap(data []byte) *fakeSnap {
	return &fakeSnap{q: NewPipe(), data: data, release: make(chan struct{})}
}

func (f *fakeSnap) Pipe() *Pipe { return f.q }
func (f *fakeSnap) Walk() {
	<-f.release
	var st Stage
	st.Write(f.data)
	f.q.Put(st.Take(Batch{}))
	f.q.Close()
}
func (f *fakeSnap) Abort(err error) {
	f.aborted = err
	f.q.Fail(err)
}
func (f *fakeSnap) Status() SnapStatus { return SnapStatus{Keys: 1, Total: 1} }

// newTestJobs is a job slot writing in process through a CrashFS.
func newTestJobs(t *testing.T) (*Jobs, *sync.Mutex, *fsx.CrashFS, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var lines []string
	fsys := fsx.NewCrashFS()
	js := &Jobs{InProc: true}
	js.Init(&mu, lineLog{&lines}, func() fsx.FS { return fsys }, nil)
	t.Cleanup(func() { js.Wait(context.Background()) })
	return js, &mu, fsys, &lines
}

// A job that completes installs its file, frees the slot and reports
// success, with the child's lines logged under its pid.
func TestJobLifecycleSuccess(t *testing.T) {
	js, mu, fsys, lines := newTestJobs(t)
	sn := newFakeSnap([]byte("REDIS0010 payload"))
	outcome := make(chan Outcome, 1)
	var installed []byte
	j := &Job{Kind: KindRDB, Snap: sn}
	j.Install = func() error {
		var err error
		installed, err = fsys.ReadAll(j.Path())
		return err
	}
	j.Discard = func() { t.Error("discarded a job that succeeded") }
	j.Done = func(o Outcome) { outcome <- o }
	mu.Lock()
	if err := js.start(j, "/temp-"+pidPlaceholder+".rdb", "", "Background saving started"); err != nil {
		t.Fatal(err)
	}
	if js.RDB() != j || js.AOF() != nil {
		t.Fatal("the slot does not hold the job")
	}
	mu.Unlock()
	close(sn.release)
	o := <-outcome
	mu.Lock()
	defer mu.Unlock()
	if !o.OK() || js.Running() != nil {
		t.Fatalf("outcome %+v, running %v", o, js.Running())
	}
	if !bytes.Equal(installed, sn.data) {
		t.Fatalf("installed %q", installed)
	}
	if js.TotalForks.Load() != 1 {
		t.Fatalf("total forks %d", js.TotalForks.Load())
	}
	if len(*lines) != 3 || (*lines)[0] != "* Background saving started by pid "+strconv.Itoa(j.Pid()) ||
		(*lines)[1] != strconv.Itoa(j.Pid())+":C * DB saved on disk" {
		t.Fatalf("lines %q", *lines)
	}
}

// A killed job ends as killed by SIGUSR1, which is no failure: its file
// is discarded, its snapshot aborted and the slot freed.
func TestJobLifecycleKilled(t *testing.T) {
	js, mu, _, _ := newTestJobs(t)
	sn := newFakeSnap(bytes.Repeat([]byte("x"), 1<<20))
	outcome := make(chan Outcome, 1)
	discarded := false
	j := &Job{Kind: KindAOF, Snap: sn}
	j.Install = func() error { t.Error("installed a killed job"); return nil }
	j.Discard = func() { discarded = true }
	j.Done = func(o Outcome) { outcome <- o }
	mu.Lock()
	if err := js.start(j, "/temp-rewriteaof-"+pidPlaceholder+".aof", "/temp-rewriteaof-bg-"+pidPlaceholder+".aof", "Background append only file rewriting started"); err != nil {
		t.Fatal(err)
	}
	j.Kill()
	mu.Unlock()
	close(sn.release)
	o := <-outcome
	mu.Lock()
	defer mu.Unlock()
	if !o.KilledOnPurpose() || o.OK() || !discarded || sn.aborted != ErrSnapshotAborted || js.Running() != nil {
		t.Fatalf("outcome %+v, discarded %v, aborted %v, running %v", o, discarded, sn.aborted, js.Running())
	}
}
