package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aofserver/aofserver/aof"
)

// startAppendOnly turns the AOF on at runtime (CONFIG SET appendonly yes) as
// Redis does (AOF_WAIT_REWRITE): commands go to a temporary incr file while a
// rewrite writes the base from a snapshot in a child process; its
// completion names both in a new manifest. No pause grows with the dataset.
func (s *Server) startAppendOnly() error {
	if c := s.persist.aofChild; c != nil {
		// A rewrite started while the AOF was off is superseded.
		s.log.Info().Msgf("Killing running AOF rewrite child: %d", c.pidOf())
		c.kill()
	}
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	s.installAckHook(a)
	if err := a.StartWaiting(); err != nil {
		return err
	}
	s.aof = a
	// Offsets are per AOF instance: forget those of a previous one.
	for _, c := range s.clients {
		c.fedOff = 0
	}
	if err := s.startRewrite(); err != nil {
		// A child is busy (BGSAVE, or the one just killed): cron retries.
		s.persist.rewriteScheduled = true
	}
	return nil
}

// stopAppendOnly turns the AOF off (CONFIG SET appendonly no): flush,
// fsync, close, and kill a running rewrite.
func (s *Server) stopAppendOnly() {
	if c := s.persist.aofChild; c != nil {
		s.log.Info().Msgf("Killing running AOF rewrite child: %d", c.pidOf())
		c.kill()
	}
	if err := s.aof.Close(); err != nil {
		s.log.Warn().Msgf("Error closing the AOF: %v", err)
	}
	s.aof = nil
}

// startRewriteOffline is BGREWRITEAOF with appendonly no (Redis allows it):
// the snapshot becomes the only file of the manifest.
func (s *Server) startRewriteOffline() error {
	if s.childActive() {
		return errors.New("child active")
	}
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	s.installAckHook(a)
	tmp := filepath.Join(s.cfg.Dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	sn := s.startSnapshot(true)
	s.persist.rewrites++
	cp, err := s.spawnChild(tmp, sn.out, "Background append only file rewriting started")
	if err != nil {
		sn.abort(err)
		go s.runWalker(sn)
		s.persist.lastRewriteOK = false
		s.persist.rewriteFailures++
		return err
	}
	s.persist.aofChild = cp
	s.persist.rewriteScheduled = false
	rdbBase := s.cfg.AOFUseRDBPreamble
	go s.runWalker(sn)
	s.whenChildDone(cp, func() {
		s.mu.Lock()
		snErr := sn.err // written by the walker under mu
		s.mu.Unlock()
		var ierr error
		if cp.err == nil && snErr == nil {
			s.log.Info().Msg("Background AOF rewrite terminated with success")
			ierr = a.InstallOffline(tmp, rdbBase)
		} else {
			ierr = childErr(cp.err, snErr)
		}
		if ierr != nil {
			os.Remove(tmp)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if ierr != nil {
			sn.abort(errSnapshotAborted) // the walker reads its state under mu
		}
		s.persist.aofChild = nil
		s.persist.lastRewriteTime = int64(time.Since(cp.start).Seconds())
		switch {
		case ierr == nil:
			s.persist.lastRewriteOK = true
			s.persist.rewriteFailures = 0
			s.log.Info().Msg("Background AOF rewrite finished successfully")
		case !cp.killed.Load():
			s.log.Warn().Msgf("Background AOF rewrite terminated with error: %v", ierr)
			s.persist.lastRewriteOK = false
			s.persist.rewriteFailures++
		}
	})
	return nil
}
