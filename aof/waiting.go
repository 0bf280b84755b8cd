package aof

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Turning the AOF on at runtime (CONFIG SET appendonly yes) is Redis's
// AOF_WAIT_REWRITE state: commands are appended to a temporary incr file,
// temp-<appendfilename>.incr in the AOF directory, that no manifest names
// and that each rewrite's start creates anew, while the first rewrite writes the base from a snapshot in a child
// process. Its Install renames the base and the temporary incr into place
// and only then persists a manifest naming both. A crash before that leaves
// the manifest on disk as it was. Nothing here pauses for the size of the
// dataset: the base is written by the snapshot machinery, off the executor.

// tempIncrName is Redis's getTempIncrAofName.
func (a *AOF) tempIncrName() string { return "temp-" + a.opt.FileName + ".incr" }

// StartWaiting is Start for an AOF being turned on: it starts the writer,
// leaving the directory untouched. Until a rewrite starts (StartRewrite
// creates the AOF directory and the temporary incr file, as Redis's
// rewriteAppendOnlyFileBackground), what is fed is dropped: Redis feeds
// nothing in AOF_WAIT_REWRITE without a rewrite child, and the rewrite's
// snapshot holds it. Until a rewrite installs, Waiting reports true and a
// failed rewrite must be retried.
func (a *AOF) StartWaiting() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started || a.closed {
		return errors.New("aof: StartWaiting called twice or after Close")
	}
	a.lastIncrSize.Store(0)
	a.currentSize.Store(0)
	a.waiting = true
	a.cur = &segment{f: discardFile{}, name: a.tempIncrName()}
	a.startLocked()
	a.wake()
	return nil
}

// discardFile is the incr of an AOF waiting for a rewrite to start: it
// takes every write and keeps nothing.
type discardFile struct{}

func (discardFile) Write(p []byte) (int, error)            { return len(p), nil }
func (discardFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (discardFile) Sync() error                            { return nil }
func (discardFile) Truncate(int64) error                   { return nil }
func (discardFile) Size() (int64, error)                   { return 0, nil }
func (discardFile) Close() error                           { return nil }
func (discardFile) Name() string                           { return "" }

// Waiting reports whether the AOF is still waiting for its first rewrite.
func (a *AOF) Waiting() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting
}

// restartTempIncr is the rotation of a rewrite started while waiting:
// everything fed before the switch point is in the new snapshot, so the
// writer goes on in the temporary incr StartRewrite created anew, empty
// (Redis reopens it with O_TRUNC).
func (a *AOF) restartTempIncr(r *Rewrite) {
	a.mu.Lock()
	old := a.cur
	a.cur = r.next
	a.mu.Unlock()
	a.lastIncrSize.Store(0)
	a.currentSize.Store(0)
	old.syncMu.Lock()
	old.f.Close()
	old.closed = true
	old.syncMu.Unlock()
	// The bytes before the switch point are covered by the snapshot.
	a.advanceSynced(a.writtenOff.Load())
	close(r.switched)
}

// installWaiting completes the first rewrite of an AOF turned on at
// runtime: base and temporary incr are renamed into the directory, then the
// manifest naming them (the old files, if any, as history) is persisted.
// Caller holds manMu. Durable after it returns nil: the manifest and both
// renames (same directory, fsynced by the manifest persist).
func (r *Rewrite) installWaiting(rdbBase bool) error {
	a := r.a
	nm, inc := a.man.WithNewIncr(a.opt.FileName)
	nm, base := nm.AfterRewrite(a.opt.FileName, rdbBase)
	tmp := r.TempBasePath()
	if err := a.renameTimed(tmp, a.path(base.Name)); err != nil {
		a.log.Warn().Msgf("Error trying to rename the temporary AOF file %s into %s: %s", filepath.Base(tmp), base.Name, Strerror(err))
		r.cleanup()
		return fmt.Errorf("aof: rename %s: %w", tmp, err)
	}
	if err := a.renameTimed(a.path(a.tempIncrName()), a.path(inc.Name)); err != nil {
		a.log.Warn().Msgf("Error trying to rename the temporary AOF incr file %s into %s: %s", a.tempIncrName(), inc.Name, Strerror(err))
		a.fsys.Remove(a.path(base.Name))
		return fmt.Errorf("aof: rename %s: %w", a.tempIncrName(), err)
	}
	a.log.Info().Msgf("Successfully renamed the temporary AOF base file %s into %s", filepath.Base(tmp), base.Name)
	a.log.Info().Msgf("Successfully renamed the temporary AOF incr file %s into %s", a.tempIncrName(), inc.Name)
	if err := a.persistManifest(nm); err != nil {
		return err
	}
	a.man = nm
	a.mu.Lock()
	a.waiting = false
	a.mu.Unlock()
	a.finishInstall(a.path(base.Name))
	return nil
}
