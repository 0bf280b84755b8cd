package aof

import (
	"fmt"
	"path/filepath"
)

// InstallOffline installs a base written by BGREWRITEAOF while appendonly
// is off (spec §3.5): the manifest becomes that base alone, every incr file
// becomes history and is deleted unless DisableAutoGC. The AOF must have
// been opened (Open) but not started.
//
// Durable after it returns nil: the base under its final name and the
// manifest naming it. On error the old manifest stays in force.
func (a *AOF) InstallOffline(tmp string, rdbBase bool) error {
	a.manMu.Lock()
	defer a.manMu.Unlock()
	// The server made the directory before the child started; it may
	// have gone since.
	if err := a.fsys.MkdirAll(a.aofDir); err != nil {
		a.log.Warn().Msgf("Can't open or create append-only dir %s: %s", a.opt.DirName, Strerror(err))
		return fmt.Errorf("aof: Can't open or create append-only dir %s: %w", a.opt.DirName, err)
	}
	nm, base := a.man.AfterRewriteAOFOff(a.opt.FileName, rdbBase)
	dst := a.path(base.Name)
	if err := a.fsys.Rename(tmp, dst); err != nil {
		a.log.Warn().Msgf("Error trying to rename the temporary AOF file %s into %s: %s", filepath.Base(tmp), base.Name, Strerror(err))
		return fmt.Errorf("aof: rename %s: %w", tmp, err)
	}
	a.log.Info().Msgf("Successfully renamed the temporary AOF base file %s into %s", filepath.Base(tmp), base.Name)
	if err := a.persistManifest(nm); err != nil {
		return err
	}
	a.man = nm
	if !a.knobsSnapshot().DisableAutoGC {
		a.delHistoryLocked()
	}
	return nil
}
