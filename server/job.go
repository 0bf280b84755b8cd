package server

import (
	"fmt"
	"path/filepath"
	"time"
)

// A background job is BGSAVE, BGREWRITEAOF (with the AOF on or off), or the
// rewrite that turns the AOF on: a snapshot walk feeding a child process
// that writes the file. There is one job slot, as Redis has one child. The
// slot is taken when the child starts and freed the moment the job's
// outcome is handled, which is also when INFO stops showing it in
// progress: a failed job's walk may still be restoring its mark bits
// (snapshot.abort), but that holds no slot, and the next snapshot finishes
// it first (startSnapshot).

type jobKind uint8

const (
	jobRDB    jobKind = iota + 1 // BGSAVE: dump.rdb
	jobAOF                       // BGREWRITEAOF with the AOF on or being turned on
	jobAOFOff                    // BGREWRITEAOF with appendonly no
)

// job is the running background job. What differs between the kinds is in
// its three functions; the lifecycle (start, reap, kill) is one.
type job struct {
	kind  jobKind
	cp    *childProc
	sn    *snapshot
	ended bool // its end was handled (under Server.mu)

	// install makes the written file current after a clean exit (off the
	// executor); discard removes what a failed or killed job left (off
	// the executor, or under it when the job is killed synchronously).
	install func() error
	discard func()
	// done records the outcome and logs it, under Server.mu.
	done func(o jobOutcome)
	// started, if set, learns the child's pid (under Server.mu, before
	// install or discard can run).
	started func(pid int)
}

// jobOutcome is how a job ended, as Redis's done handlers see it.
type jobOutcome struct {
	signal   int   // the child was killed by this signal (0: it exited)
	exitCode int   // its exit code (-1 if signalled)
	err      error // the walk's, the stream's or the install's error
	// installFailed: the child succeeded, making its file current failed.
	installFailed bool
}

// ok reports a job whose file is now current.
func (o jobOutcome) ok() bool { return o.signal == 0 && o.exitCode == 0 && o.err == nil }

// killedOnPurpose is a child stopped by the server (SIGUSR1): Redis does
// not count it as a failure.
func (o jobOutcome) killedOnPurpose() bool { return o.signal == sigUSR1 }

// startJob starts j's child writing path (then renamed final, if set; see
// spawnChild), fed by j.sn, and takes the slot (under mu). On error the
// snapshot is aborted and the slot stays free.
func (s *Server) startJob(j *job, path, final, startedMsg string) error {
	cp, err := s.spawnChild(path, final, j.sn.out, startedMsg)
	if err != nil {
		j.sn.abort(err)
		go s.runWalker(j.sn) // restores the mark bits
		return err
	}
	j.cp = cp
	if j.started != nil {
		j.started(cp.pidOf())
	}
	s.persist.job = j
	go s.runWalker(j.sn)
	s.children.Add(1)
	go func() {
		defer s.children.Done()
		<-cp.done
		s.reapJob(j)
	}()
	return nil
}

// reapJob handles the end of j's child (Redis's checkChildrenDone): its
// outcome is decided, the file installed or discarded off the executor,
// and then, under it, the slot is freed and the outcome recorded. A job
// already ended by killJobSync is left alone.
func (s *Server) reapJob(j *job) {
	s.mu.Lock()
	if j.ended {
		s.mu.Unlock()
		return
	}
	j.ended = true // from here on this goroutine owns the end
	var o jobOutcome
	o.signal, o.exitCode = j.cp.exitStatus()
	if o.signal == 0 && o.exitCode == 0 {
		// A clean exit with a stream the walk or the feeder did not
		// complete is a failed save, as a child that exits 1.
		if o.err = firstErr(j.sn.err, j.cp.err); o.err != nil {
			o.exitCode = 1
		}
	} else {
		o.err = firstErr(j.cp.err, j.sn.err)
	}
	if o.ok() {
		s.logChildDone(j)
	}
	s.mu.Unlock()
	if o.ok() {
		if err := j.install(); err != nil {
			o.err, o.installFailed = err, true
		}
	} else {
		j.discard()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.freeJob(j, !o.ok())
	j.done(o)
}

// killJobSync stops the running AOF job and frees the slot before it
// returns, as Redis's killAppendOnlyChild (which waits for the child):
// CONFIG SET appendonly yes/no can then start the next job at once.
// Nothing is logged but the kill, and no failure is counted. Under mu.
func (s *Server) killJobSync(j *job) {
	if j.ended {
		return
	}
	s.log.Info().Msgf("Killing running AOF rewrite child: %d", j.cp.pidOf())
	j.cp.kill()
	<-j.cp.done // the child and its feeder end without the executor
	j.ended = true
	j.discard()
	s.freeJob(j, true)
}

// freeJob frees the slot (under mu); with failed, the snapshot is aborted
// (its walk then only restores the mark bits).
func (s *Server) freeJob(j *job, failed bool) {
	if failed {
		j.sn.abort(errSnapshotAborted)
	}
	if s.persist.job == j {
		s.persist.job = nil
	}
}

// jobOf returns the running job of kind k, or nil.
func (s *Server) jobOf(kinds ...jobKind) *job {
	j := s.persist.job
	if j == nil {
		return nil
	}
	for _, k := range kinds {
		if j.kind == k {
			return j
		}
	}
	return nil
}

// rdbJob and aofJob are the running BGSAVE and rewrite (or nil).
func (s *Server) rdbJob() *job { return s.jobOf(jobRDB) }
func (s *Server) aofJob() *job { return s.jobOf(jobAOF, jobAOFOff) }

// childActive reports a running job (Redis's hasActiveChildProcess).
// A diskless replication transfer counts: it is a snapshot in progress
// (Redis's RDB child with a socket target), and a second one would have to
// finish its walk first, a pause that grows with the dataset.
func (s *Server) childActive() bool { return s.persist.job != nil || s.repl.diskless != nil }

// jobSeconds is how long j has run, for INFO (-1: no job).
func jobSeconds(j *job) int64 {
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

// describe is the outcome for a log line's tail.
func (o jobOutcome) describe() string {
	if o.err != nil {
		return o.err.Error()
	}
	if o.signal != 0 {
		return fmt.Sprintf("signal %d", o.signal)
	}
	return fmt.Sprintf("exit code %d", o.exitCode)
}

// logChildDone logs, under the child's pid and role, the lines Redis's
// child logs as it ends with success (rdbSave's or rewriteAppendOnlyFile's,
// then sendChildCowInfo's), before the parent's "terminated with success".
// Our copy-on-write is the snapshot's copied bytes, which only grow: they
// are the current, the peak and the average figure. Under mu.
func (s *Server) logChildDone(j *job) {
	pid := j.cp.pidOf()
	what := "RDB"
	if j.kind == jobRDB {
		s.log.Info().Int("cpid", pid).Msg("DB saved on disk")
	} else {
		what = "AOF rewrite"
		s.log.Info().Int("cpid", pid).Msgf("Successfully created the temporary AOF base file %s", filepath.Base(j.cp.path))
	}
	mb := j.sn.cowBytes >> 20
	s.log.Info().Int("cpid", pid).Msgf("Fork CoW for %s: current %d MB, peak %d MB, average %d MB", what, mb, mb, mb)
}
