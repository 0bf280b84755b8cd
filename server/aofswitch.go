package server

import (
	"errors"
	"path/filepath"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/persist"
)

// startAppendOnly turns the AOF on at runtime (CONFIG SET appendonly yes) as
// Redis does (AOF_WAIT_REWRITE): commands go to a temporary incr file while a
// rewrite writes the base from a snapshot in a child process; its
// completion names both in a new manifest. No pause grows with the dataset.
func (s *Server) startAppendOnly() error {
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	s.installAckHook(a)
	switch {
	case s.rdbJob() != nil:
		s.log.Warn().Msg("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
	case s.execDepth > 1:
		s.log.Warn().Msg("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.")
	case s.aofJob() != nil:
		// A rewrite started while the AOF was off cannot become this
		// AOF's base: it did not start a new incr file.
		s.log.Warn().Msg("AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.")
		s.persist.jobs.KillSync(s.aofJob())
	}
	if err := a.StartWaiting(); err != nil {
		return err
	}
	s.aof = a
	// Offsets are per AOF instance: forget those of a previous one.
	for _, c := range s.clients {
		c.fedOff = 0
	}
	if s.childActive() || s.execDepth > 1 {
		s.persist.rewriteScheduled = true
		return nil
	}
	if err := s.startRewrite(); err != nil {
		s.aof = nil
		a.Close()
		s.log.Warn().Msg("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
		return err
	}
	return nil
}

// stopAppendOnly turns the AOF off (CONFIG SET appendonly no), as Redis:
// flush, fsync, close, then kill a running rewrite and wait for it.
func (s *Server) stopAppendOnly() {
	if err := s.aof.Close(); err != nil {
		s.log.Warn().Msgf("Error closing the AOF: %v", err)
	}
	s.aof = nil
	s.persist.rewriteScheduled = false
	if j := s.aofJob(); j != nil {
		s.persist.jobs.KillSync(j)
	}
}

// startRewriteOffline is BGREWRITEAOF with appendonly no (Redis allows it):
// the snapshot becomes the only file of the manifest.
func (s *Server) startRewriteOffline() error {
	if s.childActive() {
		return errors.New("child active")
	}
	// As Redis's rewriteAppendOnlyFileBackground, the AOF directory is
	// made before the child starts, and a failure fails BGREWRITEAOF (not
	// the install, after the child's work and a "success" line).
	if err := s.fsys().MkdirAll(absPath(s.cfg.Dir, s.cfg.AppendDirname)); err != nil {
		s.log.Warn().Msgf("Can't open or create append-only dir %s: %s", s.cfg.AppendDirname, errnoText(err))
		s.persist.lastRewriteOK = false
		return err
	}
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	sn := s.startSnapshot(true)
	s.persist.rewrites++
	rdbBase := s.cfg.AOFUseRDBPreamble
	j := &persist.Job{Kind: persist.KindAOFOff, Snap: sn}
	j.Install = func() error {
		s.log.Info().Msg("Background AOF rewrite terminated with success")
		return a.InstallOffline(j.Path(), rdbBase)
	}
	j.Discard = func() { s.fsys().Remove(j.Path()) }
	j.Done = func(o persist.Outcome) {
		if o.InstallFailed {
			s.fsys().Remove(j.Path())
		}
		s.rewriteDone(j, o, false)
	}
	// The child leaves temp-rewriteaof-bg-<its pid>.aof, as Redis's.
	tmp := filepath.Join(s.cfg.Dir, "temp-rewriteaof-"+persist.PidPlaceholder+".aof")
	final := filepath.Join(s.cfg.Dir, "temp-rewriteaof-bg-"+persist.PidPlaceholder+".aof")
	if err := s.persist.jobs.Start(j, tmp, final, "Background append only file rewriting started"); err != nil {
		s.persist.lastRewriteOK = false
		s.log.Warn().Msgf("Can't rewrite append only file in background: fork: %s", errnoText(err))
		return err
	}
	s.persist.rewriteScheduled = false
	return nil
}
