package server

import (
	"io"

	"github.com/aofserver/aofserver/aof"
)

// startAppendOnly turns the AOF on at runtime (CONFIG SET appendonly yes).
// With no AOF on disk the base is written at once from the current
// dataset; with an existing directory a rewrite is started so that the
// new base replaces the stale files.
func (s *Server) startAppendOnly() error {
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	existed := a.Exists()
	if err := a.Start(func(w io.Writer) error { return s.writeBaseSync(w) }); err != nil {
		return err
	}
	s.aof = a
	// Offsets are per AOF instance: forget those of a previous one.
	for _, c := range s.clients {
		c.fedOff = 0
	}
	if existed {
		if err := s.startRewrite(); err != nil {
			s.persist.rewriteScheduled = true
		}
	}
	return nil
}

// stopAppendOnly turns the AOF off (CONFIG SET appendonly no): flush,
// fsync, close, and kill a running rewrite.
func (s *Server) stopAppendOnly() {
	if c := s.persist.aofChild; c != nil {
		s.log.Info().Msgf("Killing running AOF rewrite child: %d", c.pid)
		c.kill()
	}
	if err := s.aof.Close(); err != nil {
		s.log.Warn().Msgf("Error closing the AOF: %v", err)
	}
	s.aof = nil
}
