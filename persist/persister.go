package persist

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
)

// Keyspace is the dataset as the saves see it. Its methods are called
// under the executor's lock.
type Keyspace interface {
	// Snapshot starts a point-in-time walk of the dataset for a job;
	// aofBase: the stream is an AOF base (aof-use-rdb-preamble decides
	// its format).
	Snapshot(aofBase bool) Snapshot
	// WriteAll writes the dataset at once, as an RDB or an AOF base.
	WriteAll(w io.Writer, aofBase bool) error
	// Dirty is the count of changes since the last save, and Saved
	// takes off the covered ones a save just made durable.
	Dirty() int64
	Saved(covered int64)
}

// Env is what a Persister is given: the executor's lock, the dataset,
// the configuration (read under the lock), the data directory's file
// system and the log, and the server's hooks.
type Env struct {
	Lock     sync.Locker
	Keyspace Keyspace
	Config   *config.Config
	FS       func() fsx.FS // read at each use: tests substitute it
	Log      Log
	AOF      AOFHost
	// OtherSnapshot reports a snapshot in progress outside the job slot
	// (a diskless replication transfer: Redis's RDB child with a socket
	// target), which keeps jobs from starting.
	OtherSnapshot func() bool
	// Latency observes a latency monitor event (fork, rdb-unlink-temp-file).
	Latency func(event string, d time.Duration)
	// Exit ends the process (the server's, tests substitute it).
	Exit func(code int)
}

// AOFHost is the server's side of its AOF. Its methods are called under
// the executor's lock.
type AOFHost interface {
	// AOF is the AOF commands are fed to (nil: appendonly no).
	AOF() *aof.AOF
	// SetAOF makes a (nil: none) the AOF commands are fed to.
	SetAOF(a *aof.AOF)
	// Options are what an AOF is opened with.
	Options() aof.Options
	// Wire hooks a, which commands are about to be fed to, into the
	// network loop (its fsyncs wake the loop).
	Wire(a *aof.AOF)
}

// Persister runs SAVE, BGSAVE and BGREWRITEAOF as Redis does, and keeps
// their record: what LASTSAVE, INFO's persistence section and MISCONF
// report, and what the cron has scheduled. Its methods and fields are for
// use under the executor's lock.
type Persister struct {
	Jobs Jobs
	env  Env

	LastSave         time.Time // the last successful save
	LastBgsaveOK     bool
	LastBgsaveTime   int64 // seconds the last BGSAVE took, -1 none
	RDBSaves         int64
	BgsaveScheduled  bool
	RewriteScheduled bool
	Rewrites         int64
	RewriteFailures  int64 // consecutive
	LastRewriteOK    bool
	LastRewriteTime  int64 // seconds the last rewrite took, -1 none
	RDBLastCOW       int64 // bytes the last successful BGSAVE copied on write
	AOFLastCOW       int64 // and the last successful rewrite

	// CheckReport receives redis-check-rdb's report on a file that fails
	// to load (nil: standard output, as Redis's printf).
	CheckReport io.Writer

	lastSaveTry  time.Time // the cron's last try at a save point
	rewriteLimit rewriteLimit
}

// Init readies p for env.
func (p *Persister) Init(env Env) {
	p.env = env
	p.Jobs.Init(env.Lock, env.Log, env.FS, func(d time.Duration) { env.Latency("fork", d) })
	p.LastSave = time.Now()
	p.LastBgsaveOK = true
	p.LastBgsaveTime = -1
	p.LastRewriteOK = true
	p.LastRewriteTime = -1
}

func (p *Persister) notice(format string, a ...any)  { p.env.Log.Notice(fmt.Sprintf(format, a...)) }
func (p *Persister) warning(format string, a ...any) { p.env.Log.Warning(fmt.Sprintf(format, a...)) }

// ChildActive reports a snapshot in progress (Redis's
// hasActiveChildProcess): a job, or another snapshot (Env.OtherSnapshot).
func (p *Persister) ChildActive() bool {
	return p.Jobs.Running() != nil || (p.env.OtherSnapshot != nil && p.env.OtherSnapshot())
}

// DumpPath is dump.rdb's path.
func (p *Persister) DumpPath() string { return AbsPath(p.env.Config.Dir, p.env.Config.DBFilename) }

// AbsPath is name in dir, unless it is absolute.
func AbsPath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// ---------------------------------------------------------------- SAVE

// SaveRDB writes dump.rdb synchronously (SAVE, SHUTDOWN, FLUSHALL), as
// Redis's rdbSave: temp-<pid>.rdb is written, fsynced and renamed over
// dump.rdb, then the directory is fsynced (fsx.ReplaceFile). Each failure
// logs Redis's line for its step and fails the save.
func (p *Persister) SaveRDB() error {
	p.RDBSaves++
	cfg := p.env.Config
	path := p.DumpPath()
	tmp := AbsPath(cfg.Dir, fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	dirty := p.env.Keyspace.Dirty()
	err := fsx.ReplaceFile(p.env.FS(), path, tmp, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := p.env.Keyspace.WriteAll(bw, false); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		cause := errors.Unwrap(err)
		switch step, _ := fsx.FailedStep(err); step {
		case fsx.StepCreate:
			p.warning("Failed opening the temp RDB file %s (in server root dir %s) for saving: %v", filepath.Base(tmp), cfg.Dir, cause)
		case fsx.StepRename:
			p.warning("Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
				filepath.Base(tmp), cfg.DBFilename, cfg.Dir, rstring.Strerror(cause))
		default:
			// Redis 7.0.15's rdbSave has no directory fsync; its
			// later versions fail the save when it fails, as here.
			p.warning("Write error saving DB on disk: %s", rstring.Strerror(cause))
		}
		return err
	}
	p.notice("DB saved on disk")
	p.env.Keyspace.Saved(dirty)
	p.LastSave = time.Now()
	p.LastBgsaveOK = true
	return nil
}

// ---------------------------------------------------------------- BGSAVE

// errChildActive is the error of a job that cannot start while another
// snapshot is in progress.
var errChildActive = errors.New("child active")

// BGSAVE starts a background save, as Redis's rdbSaveBackground: the
// child writes temp-<its pid>.rdb, which becomes dump.rdb once it exited
// cleanly. The job is returned so that a caller can learn its end (Done).
func (p *Persister) BGSAVE() (*Job, error) {
	if p.ChildActive() {
		return nil, errChildActive
	}
	sn := p.env.Keyspace.Snapshot(false)
	p.RDBSaves++
	dirtyAtStart := p.env.Keyspace.Dirty()
	j := &Job{Kind: KindRDB, Snap: sn}
	j.Install = func() error {
		fsys, dump := p.env.FS(), p.DumpPath()
		if err := fsys.Rename(j.Path(), dump); err != nil {
			return err
		}
		return fsys.SyncDir(filepath.Dir(dump))
	}
	j.Discard = func() {
		t0 := time.Now()
		p.env.FS().Remove(j.Path())
		p.env.Latency("rdb-unlink-temp-file", time.Since(t0))
	}
	j.Done = func(o Outcome) {
		p.LastBgsaveTime = int64(time.Since(j.Start()).Seconds())
		// backgroundSaveDoneHandlerDisk's three cases, word for word.
		switch {
		case o.OK():
			p.notice("Background saving terminated with success")
			p.RDBLastCOW = sn.Status().COWBytes
			p.env.Keyspace.Saved(dirtyAtStart)
			p.LastSave = time.Now()
			p.LastBgsaveOK = true
		case o.Signal != 0:
			p.warning("Background saving terminated by signal %d", o.Signal)
			if !o.KilledOnPurpose() {
				p.LastBgsaveOK = false
			}
		default:
			if o.InstallFailed {
				p.warning("Error moving temp DB file on the final destination: %v", o.Err)
			}
			p.warning("Background saving error")
			p.LastBgsaveOK = false
		}
	}
	if err := p.Jobs.start(j, AbsPath(p.env.Config.Dir, "temp-"+pidPlaceholder+".rdb"), "", "Background saving started"); err != nil {
		p.LastBgsaveOK = false
		p.warning("Can't save in background: fork: %s", rstring.Strerror(err))
		return nil, err
	}
	return j, nil
}

// ----------------------------------------------------------- BGREWRITEAOF

// RewriteBackground starts BGREWRITEAOF as Redis's
// rewriteAppendOnlyFileBackground: with the AOF on (or being turned on) a
// new incr file starts at this instant; with it off the base becomes the
// manifest's only file.
func (p *Persister) RewriteBackground() error {
	if p.env.AOF.AOF() == nil {
		return p.rewriteOffline()
	}
	return p.Rewrite()
}

// Rewrite begins BGREWRITEAOF with the AOF on.
func (p *Persister) Rewrite() error {
	if p.ChildActive() {
		return errChildActive
	}
	a := p.env.AOF.AOF()
	if a == nil {
		return errors.New("AOF is off")
	}
	// The switch point and the snapshot instant are the same hold of the
	// lock: everything fed before goes to the old incr and is in the
	// base, everything after goes to the new incr.
	rw, err := a.StartRewrite(os.Getpid())
	if err != nil {
		// StartRewrite logged Redis's line (openNewIncrAofForAppend's).
		p.LastRewriteOK = false
		return err
	}
	sn := p.env.Keyspace.Snapshot(true)
	p.Rewrites++
	cfg := p.env.Config
	j := &Job{Kind: KindAOF, Snap: sn}
	j.Install = func() error {
		p.notice("Background AOF rewrite terminated with success")
		return rw.Install(cfg.AOFUseRDBPreamble)
	}
	j.Discard = func() { rw.Abort(ErrSnapshotAborted) }
	j.Started = rw.SetChildPid
	j.Done = func(o Outcome) {
		cur := p.env.AOF.AOF() == a
		if cur {
			a.SetChildActive(false)
		}
		p.rewriteDone(j, o, cur && a.Waiting())
	}
	tmp := filepath.Join(cfg.Dir, "temp-rewriteaof-"+pidPlaceholder+".aof")
	if err := p.Jobs.start(j, tmp, rw.TempBaseTemplate(pidPlaceholder), "Background append only file rewriting started"); err != nil {
		rw.Abort(err)
		p.LastRewriteOK = false
		p.warning("Can't rewrite append only file in background: fork: %s", rstring.Strerror(err))
		return err
	}
	p.RewriteScheduled = false
	a.SetChildActive(true)
	return nil
}

// rewriteOffline is BGREWRITEAOF with appendonly no (Redis allows it):
// the snapshot becomes the only file of the manifest.
func (p *Persister) rewriteOffline() error {
	if p.ChildActive() {
		return errChildActive
	}
	cfg := p.env.Config
	// As Redis's rewriteAppendOnlyFileBackground, the AOF directory is
	// made before the child starts, and a failure fails BGREWRITEAOF (not
	// the install, after the child's work and a "success" line).
	if err := p.env.FS().MkdirAll(AbsPath(cfg.Dir, cfg.AppendDirname)); err != nil {
		p.warning("Can't open or create append-only dir %s: %s", cfg.AppendDirname, rstring.Strerror(err))
		p.LastRewriteOK = false
		return err
	}
	a, err := aof.Open(p.env.AOF.Options())
	if err != nil {
		return err
	}
	sn := p.env.Keyspace.Snapshot(true)
	p.Rewrites++
	rdbBase := cfg.AOFUseRDBPreamble
	j := &Job{Kind: KindAOFOff, Snap: sn}
	j.Install = func() error {
		p.notice("Background AOF rewrite terminated with success")
		return a.InstallOffline(j.Path(), rdbBase)
	}
	j.Discard = func() { p.env.FS().Remove(j.Path()) }
	j.Done = func(o Outcome) {
		if o.InstallFailed {
			p.env.FS().Remove(j.Path())
		}
		p.rewriteDone(j, o, false)
	}
	// The child leaves temp-rewriteaof-bg-<its pid>.aof, as Redis's.
	tmp := filepath.Join(cfg.Dir, "temp-rewriteaof-"+pidPlaceholder+".aof")
	final := filepath.Join(cfg.Dir, "temp-rewriteaof-bg-"+pidPlaceholder+".aof")
	if err := p.Jobs.start(j, tmp, final, "Background append only file rewriting started"); err != nil {
		p.LastRewriteOK = false
		p.warning("Can't rewrite append only file in background: fork: %s", rstring.Strerror(err))
		return err
	}
	p.RewriteScheduled = false
	return nil
}

// rewriteDone records a rewrite's outcome, as Redis's
// backgroundRewriteDoneHandler. waiting: the AOF being turned on still
// has no base, so another rewrite is scheduled.
func (p *Persister) rewriteDone(j *Job, o Outcome, waiting bool) {
	p.LastRewriteTime = int64(time.Since(j.Start()).Seconds())
	switch {
	case o.OK():
		p.LastRewriteOK = true
		p.RewriteFailures = 0
		p.AOFLastCOW = j.Snap.Status().COWBytes
		p.notice("Background AOF rewrite finished successfully")
	case o.InstallFailed:
		// The install logged what failed (the rename or the manifest).
		p.LastRewriteOK = false
		p.RewriteFailures++
	case o.Signal != 0:
		if !o.KilledOnPurpose() {
			p.LastRewriteOK = false
			p.RewriteFailures++
		}
		p.warning("Background AOF rewrite terminated by signal %d", o.Signal)
	default:
		p.LastRewriteOK = false
		p.RewriteFailures++
		p.warning("Background AOF rewrite terminated with error")
	}
	if !o.OK() && waiting {
		// The AOF being turned on has no base yet (Redis's
		// AOF_WAIT_REWRITE): try again.
		p.RewriteScheduled = true
	}
}

// rewriteLimit is Redis's aofRewriteLimited: after 3 consecutive failed
// rewrites, automatic and scheduled ones wait 1, 2, 4 ... 60 minutes
// between tries; BGREWRITEAOF itself is never held back.
type rewriteLimit struct {
	delayMinutes int
	next         time.Time
}

// rewriteLimited reports whether a rewrite must wait now.
func (p *Persister) rewriteLimited(now time.Time) bool {
	l := &p.rewriteLimit
	if p.RewriteFailures < 3 {
		*l = rewriteLimit{}
		return false
	}
	if !l.next.IsZero() {
		if now.Before(l.next) {
			return true
		}
		l.next = time.Time{}
		return false
	}
	if l.delayMinutes == 0 {
		l.delayMinutes = 1
	} else {
		l.delayMinutes = min(l.delayMinutes*2, 60)
	}
	l.next = now.Add(time.Duration(l.delayMinutes) * time.Minute)
	p.warning("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", l.delayMinutes)
	return true
}

// Cron starts what is due: a scheduled BGREWRITEAOF or BGSAVE, a save
// point's BGSAVE, the automatic rewrite, in the order of Redis's
// serverCron.
func (p *Persister) Cron(now time.Time) {
	if p.ChildActive() {
		return
	}
	cfg := p.env.Config
	if p.RewriteScheduled && !p.rewriteLimited(now) {
		p.RewriteBackground()
		return
	}
	dirty := p.env.Keyspace.Dirty()
	for _, sp := range cfg.Save {
		if dirty >= sp.Changes && now.Sub(p.LastSave) > time.Duration(sp.Seconds)*time.Second &&
			(p.LastBgsaveOK || now.Sub(p.lastSaveTry) > 5*time.Second) {
			p.notice("%d changes in %d seconds. Saving...", sp.Changes, sp.Seconds)
			p.lastSaveTry = now
			p.BGSAVE()
			return
		}
	}
	if a := p.env.AOF.AOF(); a != nil && !a.Waiting() && cfg.AutoAOFRewritePercentage > 0 {
		st := a.Stats()
		base := max(st.BaseSize, 1)
		if st.CurrentSize > cfg.AutoAOFRewriteMinSize {
			growth := st.CurrentSize*100/base - 100
			if growth >= int64(cfg.AutoAOFRewritePercentage) && !p.rewriteLimited(now) {
				p.notice("Starting automatic rewriting of AOF on %d%% growth", growth)
				p.Rewrite()
				return
			}
		}
	}
	if p.BgsaveScheduled {
		// Redis runs a scheduled BGSAVE last, when nothing else started.
		p.BgsaveScheduled = false
		p.BGSAVE()
	}
}
