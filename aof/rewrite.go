package aof

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/aofserver/aofserver/manifest"
)

// Rewrite is one BGREWRITEAOF in progress (spec §3). Everything fed before
// StartRewrite belongs to the base snapshot the server takes at that moment;
// everything fed after goes to the new incr file.
type Rewrite struct {
	a         *AOF
	pid       int
	switchOff int64         // logical offset where the new incr starts; set under bufMu
	switched  chan struct{} // closed once the writer tried the rotation
	switchErr error         // rotation failure, read after switched is closed
	next      *segment      // the new incr StartRewrite opened; the writer switches to it
	done      bool          // Install or Abort ran; guarded by a.mu
}

// StartRewrite opens the new incr file and persists the manifest naming it
// (Redis's openNewIncrAofForAppend, which rewriteAppendOnlyFileBackground
// runs before forking: its log line comes before "started by pid", and a
// failure fails BGREWRITEAOF at once), records the switch point and asks
// the writer goroutine to append to the new file every byte fed after this
// call. Call it with the executor lock held, at the instant the base
// snapshot is taken. An AOF still waiting for its first base (StartWaiting)
// gets a fresh temporary incr instead, and no manifest change. childPid
// names the temp base file.
func (a *AOF) StartRewrite(childPid int) (*Rewrite, error) {
	a.manMu.Lock()
	defer a.manMu.Unlock()
	a.mu.Lock()
	if err := a.rewriteRefusal(); err == nil && a.rw != nil {
		a.mu.Unlock()
		return nil, ErrRewriteInProgress
	} else if err != nil {
		a.mu.Unlock()
		return nil, err
	}
	r := &Rewrite{a: a, pid: childPid, switched: make(chan struct{})}
	a.rw = r // reserved while the file is opened below
	waiting := a.waiting
	a.mu.Unlock()

	next, err := a.openNewIncr(waiting)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		err = a.rewriteRefusal() // closed or failed meanwhile
		if err != nil {
			next.f.Close()
		}
	}
	if err != nil {
		a.rw = nil
		return nil, err
	}
	r.next = next
	a.bufMu.Lock()
	r.switchOff = a.fedOff
	a.selectedDB = -1 // the new incr must start with SELECT
	a.rot = r
	a.bufMu.Unlock()
	a.wake()
	return r, nil
}

// rewriteRefusal is why the AOF takes no new incr file now, or nil (a.mu
// held).
func (a *AOF) rewriteRefusal() error {
	switch {
	case a.closed:
		return ErrClosed
	case !a.started:
		return ErrNotStarted
	case a.fatalErr != nil:
		return a.fatalErr
	}
	return nil
}

// openNewIncr creates the incr file a rewrite switches to and, unless the
// AOF is waiting for its first base, persists the manifest naming it
// (manMu held). Waiting, the temporary incr is unlinked and created anew:
// the writer may still append bytes from before the switch point, which the
// snapshot covers, to the old one. Durable after it returns nil: the new
// manifest and the new file's directory entry (not waiting).
func (a *AOF) openNewIncr(waiting bool) (*segment, error) {
	nm := a.man
	var name string
	if waiting {
		// The first rewrite of an AOF being turned on makes the directory
		// (rewriteAppendOnlyFileBackground's dirCreateIfMissing).
		if err := a.fsys.MkdirAll(a.aofDir); err != nil {
			msg := fmt.Sprintf("Can't open or create append-only dir %s: %s", a.opt.DirName, Strerror(err))
			a.log.Warn().Msg(msg)
			return nil, fmt.Errorf("aof: %s: %w", msg, err)
		}
		name = a.tempIncrName()
		if err := a.fsys.Remove(a.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			a.log.Warn().Msgf("Can't open the append-only file %s: %s", name, Strerror(err))
			return nil, fmt.Errorf("aof: remove %s: %w", name, err)
		}
	} else {
		var inc manifest.File
		nm, inc = a.man.WithNewIncr(a.opt.FileName)
		name = inc.Name
	}
	f, err := a.fsys.Create(a.path(name))
	if err != nil {
		a.log.Warn().Msgf("Can't open the append-only file %s: %s", name, Strerror(err))
		return nil, fmt.Errorf("aof: create %s: %w", name, err)
	}
	if !waiting {
		if err := a.persistManifest(nm); err != nil {
			// Keep the file: if only the directory fsync failed, the
			// manifest on disk may already name it.
			f.Close()
			return nil, err
		}
		a.man = nm
	}
	a.log.Info().Msgf("Creating AOF incr file %s on background rewrite", name)
	return &segment{f: f, name: name}, nil
}

// SetChildPid names the temp base after the child process that writes it,
// as Redis does, once that pid is known (the child is started after
// StartRewrite). Call it before Install or Abort, from the goroutine that
// will call them or one that happens before it.
func (r *Rewrite) SetChildPid(pid int) { r.pid = pid }

// TempBasePath is where the rewrite child writes (and fsyncs) the new base:
// <dir>/temp-rewriteaof-bg-<pid>.aof.
func (r *Rewrite) TempBasePath() string {
	return r.TempBaseTemplate(strconv.Itoa(r.pid))
}

// TempBaseTemplate is TempBasePath with pid standing for the child's pid.
func (r *Rewrite) TempBaseTemplate(pid string) string {
	return filepath.Join(r.a.opt.Dir, "temp-rewriteaof-bg-"+pid+".aof")
}

// SwitchOffset is the logical offset at which the new incr file starts.
func (r *Rewrite) SwitchOffset() int64 { return r.switchOff }

// WaitSwitched blocks until the writer created the new incr file and
// persisted the manifest listing it, and returns that step's error.
func (r *Rewrite) WaitSwitched() error {
	<-r.switched
	return r.switchErr
}

// rotate creates incr n+1 and persists the manifest listing it, then makes it
// the file the writer appends to; the old incr is fdatasync'ed and closed in
// the background. Runs on the writer goroutine once every byte before the
// switch point is written. Durable after it succeeds: the new manifest and the
// new (empty) incr's directory entry.
func (a *AOF) rotate(r *Rewrite) {
	a.bufMu.Lock()
	if a.rot != r {
		// Already failed (setFatal, Close took it): r.switched is closed.
		a.bufMu.Unlock()
		return
	}
	a.rot = nil
	a.bufMu.Unlock()
	if e := a.writeErr.Load(); e != nil {
		a.failRotation(r, *e)
		return
	}
	a.mu.Lock()
	waiting := a.waiting
	a.mu.Unlock()
	if waiting {
		a.restartTempIncr(r)
		return
	}
	a.mu.Lock()
	old := a.cur
	a.cur = r.next
	a.mu.Unlock()
	a.lastIncrSize.Store(0)
	endOff := a.writtenOff.Load()
	a.pendingBio.Add(1)
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		defer a.pendingBio.Add(-1)
		old.syncMu.Lock()
		a.trimPadding(old)
		err := old.f.Sync()
		cerr := old.f.Close()
		old.closed = true
		old.syncMu.Unlock()
		if err != nil {
			a.log.Warn().Msgf("Fail to fsync the AOF file: %s", Strerror(err))
			a.bioErr.Store(&err)
			return
		}
		if cerr != nil {
			a.log.Warn().Msgf("Fail to close the AOF file %s: %s", old.name, Strerror(cerr))
		}
		a.advanceSynced(endOff)
	}()
	close(r.switched)
}

func (a *AOF) failRotation(r *Rewrite, err error) {
	a.bufMu.Lock()
	if a.rot == r {
		a.rot = nil
	}
	a.bufMu.Unlock()
	select {
	case <-r.switched:
	default:
		// The new file stays (a manifest may name it), never written.
		r.next.f.Close()
		r.switchErr = err
		close(r.switched)
	}
}

// Install completes a successful rewrite (Redis's backgroundRewriteDoneHandler,
// spec §3.3) after the child wrote and fsynced TempBasePath: the temp base is
// renamed into the AOF directory as base n+1, the old base and every incr but
// the current one become history, the manifest is persisted, and history files
// are deleted unless DisableAutoGC. The in-memory manifest changes only once
// the new one is durable. Call it off the executor lock.
//
// Durable after it returns nil: the new base under its final name and the
// manifest naming it. On error the old manifest stays in force.
func (r *Rewrite) Install(rdbBase bool) error {
	a := r.a
	if err := r.WaitSwitched(); err != nil {
		r.cleanup()
		r.finish()
		return fmt.Errorf("aof: rewrite could not switch to a new incr file: %w", err)
	}
	defer r.finish()
	a.manMu.Lock()
	defer a.manMu.Unlock()
	a.mu.Lock()
	waiting := a.waiting
	a.mu.Unlock()
	if waiting {
		return r.installWaiting(rdbBase)
	}
	nm, base := a.man.AfterRewrite(a.opt.FileName, rdbBase)
	tmp := r.TempBasePath()
	dst := a.path(base.Name)
	if err := a.renameTimed(tmp, dst); err != nil {
		a.log.Warn().Msgf("Error trying to rename the temporary AOF file %s into %s: %s", filepath.Base(tmp), base.Name, Strerror(err))
		r.cleanup()
		return fmt.Errorf("aof: rename %s: %w", tmp, err)
	}
	a.log.Info().Msgf("Successfully renamed the temporary AOF base file %s into %s", filepath.Base(tmp), base.Name)
	if err := a.persistManifest(nm); err != nil {
		// Redis unlinks the new base here; we keep it, since after a failed
		// directory fsync the manifest on disk may already name it.
		return err
	}
	a.man = nm
	a.finishInstall(dst)
	return nil
}

// finishInstall runs once a manifest naming the new base at path is in
// force: sizes restart from it, history goes. Caller holds manMu.
func (a *AOF) finishInstall(path string) {
	if sz, err := a.statTimed(path); err == nil {
		cur := sz + a.lastIncrSize.Load()
		a.currentSize.Store(cur)
		a.baseSize.Store(cur)
	}
	if !a.knobsSnapshot().DisableAutoGC {
		a.delHistoryLocked()
	}
}

// Abort ends a failed or killed rewrite: temp files are removed and the
// manifest keeps base n + incr n + incr n+1, which loads correctly. An AOF
// still waiting for its first base also drops its temporary incr, as
// Redis's aofDelTempIncrAofFile: what it held is in the next rewrite's
// snapshot (the writer goes on appending to the unlinked file until that
// rewrite creates a new one).
func (r *Rewrite) Abort(err error) {
	<-r.switched
	r.cleanup()
	a := r.a
	a.mu.Lock()
	waiting := a.waiting && !a.closed
	a.mu.Unlock()
	if waiting {
		name := a.tempIncrName()
		a.log.Info().Msgf("Removing the temp incr aof file %s in the background", name)
		if err := a.fsys.Remove(a.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			a.log.Warn().Msgf("Fail to remove the temp incr AOF file %s: %s", name, Strerror(err))
		}
	}
	r.finish()
}

func (r *Rewrite) cleanup() {
	a := r.a
	for _, p := range []string{r.TempBasePath(), filepath.Join(a.opt.Dir, fmt.Sprintf("temp-rewriteaof-%d.aof", r.pid))} {
		if err := a.fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			a.log.Warn().Msgf("Fail to remove the temp AOF file %s: %s", p, Strerror(err))
		}
	}
}

func (r *Rewrite) finish() {
	a := r.a
	a.mu.Lock()
	r.done = true
	if a.rw == r {
		a.rw = nil
	}
	a.mu.Unlock()
	a.wake()
}
