package server

import "time"

// CLIENT PAUSE as Redis 7.0 (networking.c pauseClients/unpauseClients,
// processCommand's blockPostponeClient): a paused command waits, counted
// as a blocked client, until CLIENT UNPAUSE or the pause's end, and the
// waiters then run in arrival order. While paused no key expires, actively
// or lazily (expireIfNeeded reports it expired but keeps it), so that the
// dataset stays as it is. s.pausedUntil and s.pauseWrites are the pause's
// end and type (WRITE when pauseWrites, otherwise ALL); all under s.mu.

type pauseState struct {
	// waiters are the postponed clients, in arrival order; each is woken
	// by closing its channel once it is first in line and unpaused.
	waiters []*pauseWaiter
	timer   *time.Timer
}

type pauseWaiter struct {
	c     *client
	ready chan struct{}
}

// pauseClients is Redis 7.0's pauseClients: a pause only grows, in time and
// in kind (WRITE to ALL), until CLIENT UNPAUSE.
func (s *Server) pauseClients(until time.Time, writes bool) {
	if !s.pauseActive() {
		s.pauseWrites = writes
	} else if !writes {
		s.pauseWrites = false
	}
	if until.After(s.pausedUntil) {
		s.pausedUntil = until
	}
	if s.pause.timer != nil {
		s.pause.timer.Stop()
	}
	s.pause.timer = time.AfterFunc(time.Until(s.pausedUntil), func() {
		s.mu.Lock()
		s.pauseExpired()
		s.mu.Unlock()
	})
}

// pauseActive reports whether a pause is in force
// (checkClientPauseTimeoutAndReturnIfPaused, ending one that ran out).
func (s *Server) pauseActive() bool {
	if s.pausedUntil.IsZero() {
		return false
	}
	if time.Now().Before(s.pausedUntil) {
		return true
	}
	s.unpauseClients()
	return false
}

func (s *Server) pauseExpired() {
	if !s.pausedUntil.IsZero() && !time.Now().Before(s.pausedUntil) {
		s.unpauseClients()
	}
}

// unpauseClients ends the pause and lets the postponed clients run, first
// come first served.
func (s *Server) unpauseClients() {
	s.pausedUntil = time.Time{}
	s.pauseWrites = false
	if s.pause.timer != nil {
		s.pause.timer.Stop()
		s.pause.timer = nil
	}
	s.wakeNextPaused()
}

func (s *Server) wakeNextPaused() {
	if len(s.pause.waiters) > 0 {
		w := s.pause.waiters[0]
		select {
		case <-w.ready:
		default:
			close(w.ready)
		}
	}
}

// pausedClients counts the postponed clients (part of blocked_clients).
func (s *Server) pausedClients() int { return len(s.pause.waiters) }

// pausedFor reports whether CLIENT PAUSE holds c's cmd back now: any
// command under ALL; under WRITE one that may write or replicate (Redis's
// is_may_replicate_command, with EXEC judged by what it would run and a
// script by its declared flags).
func (s *Server) pausedFor(c *client, cmd *command, argv [][]byte) bool {
	if c.flags&flagFake != 0 {
		return false
	}
	if s.failoverPaused() && c.flags&flagMaster == 0 && s.writeHeld(c, cmd, argv) {
		return true // FAILOVER holds writes until it ends
	}
	if !s.pauseActive() {
		return false
	}
	if !s.pauseWrites {
		return true
	}
	return s.writeHeld(c, cmd, argv)
}

// writeHeld reports whether a WRITE pause holds cmd back: one that may
// write or replicate, EXEC judged by what it would run.
func (s *Server) writeHeld(c *client, cmd *command, argv [][]byte) bool {
	if c.flags&flagMulti != 0 && isExecLike(cmd) {
		for _, q := range c.mstate {
			if s.mayReplicate(q.cmd, q.argv) {
				return true
			}
		}
		return false
	}
	return s.mayReplicate(cmd, argv)
}

// mayReplicate is (getCommandFlags & (CMD_WRITE|CMD_MAY_REPLICATE)): a
// script that declared flags is a write unless flags=no-writes.
func (s *Server) mayReplicate(cmd *command, argv [][]byte) bool {
	if cmd.parent == nil && len(argv) >= 2 {
		switch cmd.name {
		case "eval_ro", "evalsha_ro", "fcall_ro":
			return false
		case "eval", "evalsha", "fcall":
			if write, known := s.scripts().MayWrite(cmd.name, argv[1]); known {
				return write
			}
		}
	}
	return cmd.flags&(cmdWrite|cmdMayReplicate) != 0
}

// waitPause postpones c until the pause no longer holds its command back
// and every client postponed before it went first. Called under s.mu,
// which it releases while waiting. False: c was killed meanwhile, and its
// command must not run.
func (s *Server) waitPause(c *client, cmd *command, argv [][]byte) bool {
	w := &pauseWaiter{c: c, ready: make(chan struct{})}
	s.pause.waiters = append(s.pause.waiters, w)
	c.flags |= flagBlocked
	for {
		s.mu.Unlock()
		<-w.ready
		s.mu.Lock()
		if s.pause.waiters[0] == w && !s.pausedFor(c, cmd, argv) {
			break
		}
		w.ready = make(chan struct{}) // paused again meanwhile
		if s.pause.waiters[0] != w {
			s.wakeNextPaused()
		}
	}
	s.pause.waiters = s.pause.waiters[1:]
	c.flags &^= flagBlocked
	// The next one runs after this client's command, as Redis serves its
	// unblocked clients one after the other.
	s.wakeNextPaused()
	return c.flags&flagCloseASAP == 0
}
