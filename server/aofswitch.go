package server

import (
	"github.com/aofserver/aofserver/aof"
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
		s.persist.Jobs.KillSync(s.aofJob())
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
		s.persist.RewriteScheduled = true
		return nil
	}
	if err := s.persist.Rewrite(); err != nil {
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
	s.persist.RewriteScheduled = false
	if j := s.aofJob(); j != nil {
		s.persist.Jobs.KillSync(j)
	}
}
