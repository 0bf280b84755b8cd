package persist

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

// A background job is BGSAVE, BGREWRITEAOF (with the AOF on or off), or the
// rewrite that turns the AOF on: a snapshot walk feeding a child process
// that writes the file. There is one job slot, as Redis has one child. The
// slot is taken when the child starts and freed the moment the job's
// outcome is handled, which is also when INFO stops showing it in
// progress: a failed job's walk may still be restoring its mark bits
// (Snapshot.Abort), but that holds no slot, and the next snapshot finishes
// it first.

// Kind is what a job writes.
type Kind uint8

const (
	KindRDB    Kind = iota + 1 // BGSAVE: dump.rdb
	KindAOF                    // BGREWRITEAOF with the AOF on or being turned on
	KindAOFOff                 // BGREWRITEAOF with appendonly no
)

// Snapshot is the keyspace's side of a job: a point-in-time walk that
// writes the dataset into its Pipe. Abort and Status are called under the
// executor's lock; Walk on a goroutine of its own.
type Snapshot interface {
	// Pipe carries the walk's bytes to the writer.
	Pipe() *Pipe
	// Walk drives the walk to its end, taking the lock for each step.
	Walk()
	// Abort stops the writing; the walk goes on (without encoding) to
	// restore what it marked.
	Abort(err error)
	// Status is the walk's progress and its error.
	Status() SnapStatus
}

// SnapStatus is how far a snapshot got.
type SnapStatus struct {
	Keys, Total int64     // keys written, of the keys at its instant
	COWBytes    int64     // bytes copied before a write changed them
	COWAt       time.Time // when COWBytes last grew
	Err         error     // the walk's error (an encoder's)
}

// Log takes persist's log lines at Redis's levels: verbose (-), notice
// (*), warning (#), and the notices a child logs under its own pid.
type Log interface {
	Verbose(msg string)
	Notice(msg string)
	Warning(msg string)
	ChildNotice(pid int, msg string)
}

// ErrSnapshotAborted is the error of a snapshot whose job failed or was
// killed.
var ErrSnapshotAborted = errors.New("snapshot aborted")

// Jobs is the job slot and the children's counters. Its methods run under
// the executor's lock (lock) unless they say otherwise.
type Jobs struct {
	lock sync.Locker
	log  Log
	fs   func() fsx.FS
	// onFork observes how long starting a child took (the latency
	// monitor's "fork" event).
	onFork func(time.Duration)

	running *Job
	reapers sync.WaitGroup // reap goroutines still to run

	// InProc: jobs write through fs from a goroutine instead of a child
	// process (tests on fsx.CrashFS, which a child cannot write through).
	InProc bool

	TotalForks     atomic.Int64 // INFO total_forks
	LatestForkUsec atomic.Int64 // INFO latest_fork_usec
}

// Init sets what the jobs need: the executor's lock, the log, the data
// directory's file system (read at each spawn: tests substitute it), and
// a fork-latency observer (nil: none).
func (js *Jobs) Init(lock sync.Locker, log Log, fs func() fsx.FS, onFork func(time.Duration)) {
	js.lock, js.log, js.fs, js.onFork = lock, log, fs, onFork
}

// Job is a background job. What differs between the kinds is in its
// functions; the lifecycle (start, reap, kill) is one.
type Job struct {
	Kind  Kind
	Snap  Snapshot
	cp    *child
	ended bool // its end was handled (under the lock)

	// Install makes the written file current after a clean exit (off the
	// executor); Discard removes what a failed or killed job left (off
	// the executor, or under it when the job is killed synchronously).
	Install func() error
	Discard func()
	// Done records the outcome and logs it, under the lock.
	Done func(o Outcome)
	// Started, if set, learns the child's pid (under the lock, before
	// Install or Discard can run).
	Started func(pid int)
}

// Pid is the child's pid, for log lines.
func (j *Job) Pid() int { return j.cp.pid }

// Path is the file the child leaves.
func (j *Job) Path() string { return j.cp.path }

// Start is when the child started.
func (j *Job) Start() time.Time { return j.cp.start }

// Ended reports a job whose end was handled (under the lock).
func (j *Job) Ended() bool { return j.ended }

// Kill stops the child on purpose: the job ends as killed by SIGUSR1,
// which is not a failure (Redis's killRDBChild). Its end is reaped as
// any other.
func (j *Job) Kill() { j.cp.kill() }

// Outcome is how a job ended, as Redis's done handlers see it.
type Outcome struct {
	Signal   int   // the child was killed by this signal (0: it exited)
	ExitCode int   // its exit code (-1 if signalled)
	Err      error // the walk's, the stream's or the install's error
	// InstallFailed: the child succeeded, making its file current failed.
	InstallFailed bool
}

// OK reports a job whose file is now current.
func (o Outcome) OK() bool { return o.Signal == 0 && o.ExitCode == 0 && o.Err == nil }

// KilledOnPurpose is a child stopped by the server (SIGUSR1): Redis does
// not count it as a failure.
func (o Outcome) KilledOnPurpose() bool { return o.Signal == sigUSR1 }

// start starts j's child writing path (then renamed final, if set; see
// spawn), fed by j.Snap, and takes the slot. On error the snapshot is
// aborted and the slot stays free.
func (js *Jobs) start(j *Job, path, final, startedMsg string) error {
	cp, err := js.spawn(path, final, j.Snap.Pipe(), startedMsg)
	if err != nil {
		j.Snap.Abort(err)
		go j.Snap.Walk() // restores the mark bits
		return err
	}
	j.cp = cp
	if j.Started != nil {
		j.Started(cp.pid)
	}
	js.running = j
	go j.Snap.Walk()
	js.reapers.Add(1)
	go func() {
		defer js.reapers.Done()
		<-cp.done
		js.reap(j)
	}()
	return nil
}

// reap handles the end of j's child (Redis's checkChildrenDone): its
// outcome is decided, the file installed or discarded off the executor,
// and then, under it, the slot is freed and the outcome recorded. A job
// already ended by killSync is left alone.
func (js *Jobs) reap(j *Job) {
	js.lock.Lock()
	if j.ended {
		js.lock.Unlock()
		return
	}
	j.ended = true // from here on this goroutine owns the end
	var o Outcome
	o.Signal, o.ExitCode = j.cp.exitStatus()
	if o.Signal == 0 && o.ExitCode == 0 {
		// A clean exit with a stream the walk or the feeder did not
		// complete is a failed save, as a child that exits 1.
		if o.Err = firstErr(j.Snap.Status().Err, j.cp.err); o.Err != nil {
			o.ExitCode = 1
		}
	} else {
		o.Err = firstErr(j.cp.err, j.Snap.Status().Err)
	}
	if o.OK() {
		js.logChildDone(j)
	}
	js.lock.Unlock()
	if o.OK() {
		if err := j.Install(); err != nil {
			o.Err, o.InstallFailed = err, true
		}
	} else {
		j.Discard()
	}
	js.lock.Lock()
	defer js.lock.Unlock()
	js.free(j, !o.OK())
	j.Done(o)
}

// killSync stops the running AOF job and frees the slot before it
// returns, as Redis's killAppendOnlyChild (which waits for the child):
// CONFIG SET appendonly yes/no can then start the next job at once.
// Nothing is logged but the kill, and no failure is counted.
func (js *Jobs) killSync(j *Job) {
	if j.ended {
		return
	}
	js.log.Notice(fmt.Sprintf("Killing running AOF rewrite child: %d", j.cp.pid))
	j.cp.kill()
	<-j.cp.done // the child and its feeder end without the executor
	j.ended = true
	j.Discard()
	js.free(j, true)
}

// free frees the slot; with failed, the snapshot is aborted (its walk
// then only restores the mark bits).
func (js *Jobs) free(j *Job, failed bool) {
	if failed {
		j.Snap.Abort(ErrSnapshotAborted)
	}
	if js.running == j {
		js.running = nil
	}
}

// Wait waits (without the lock) until every ended job was reaped, or ctx
// ends: no temp file outlives the server.
func (js *Jobs) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { js.reapers.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Running is the running job, or nil.
func (js *Jobs) Running() *Job { return js.running }

// of returns the running job if it is of one of kinds, or nil.
func (js *Jobs) of(kinds ...Kind) *Job {
	j := js.running
	if j == nil {
		return nil
	}
	for _, k := range kinds {
		if j.Kind == k {
			return j
		}
	}
	return nil
}

// RDB and AOF are the running BGSAVE and rewrite (or nil).
func (js *Jobs) RDB() *Job { return js.of(KindRDB) }
func (js *Jobs) AOF() *Job { return js.of(KindAOF, KindAOFOff) }

// Seconds is how long j has run, for INFO (-1: no job).
func Seconds(j *Job) int64 {
	if j == nil {
		return -1
	}
	return int64(time.Since(j.cp.start).Seconds())
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// logChildDone logs, under the child's pid and role, the lines Redis's
// child logs as it ends with success (rdbSave's or rewriteAppendOnlyFile's,
// then sendChildCowInfo's), before the parent's "terminated with success".
// Our copy-on-write is the snapshot's copied bytes, which only grow: they
// are the current, the peak and the average figure.
func (js *Jobs) logChildDone(j *Job) {
	pid := j.cp.pid
	what := "RDB"
	if j.Kind == KindRDB {
		js.log.ChildNotice(pid, "DB saved on disk")
	} else {
		what = "AOF rewrite"
		js.log.ChildNotice(pid, "Successfully created the temporary AOF base file "+filepath.Base(j.cp.path))
	}
	mb := j.Snap.Status().COWBytes >> 20
	js.log.ChildNotice(pid, fmt.Sprintf("Fork CoW for %s: current %d MB, peak %d MB, average %d MB", what, mb, mb, mb))
}
