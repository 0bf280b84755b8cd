package aof

import "time"

// Non-blocking acknowledgement, for callers that serve many clients from
// one goroutine (the server's network loop) and so must never park in
// Wait: they check Acked, ask for progress with Kick or TryAck, and are
// called back through the ack hook when the acknowledged offset moves.

// SetAckHook sets f to be called (on whichever goroutine moved it) every
// time the acknowledged offset advances or the AOF reaches its terminal
// state. f must not block.
func (a *AOF) SetAckHook(f func()) {
	if f == nil {
		a.ackHook.Store(nil)
		return
	}
	a.ackHook.Store(&f)
}

// Acked reports whether everything up to logical offset off is
// acknowledged: what Wait(off) waits for.
func (a *AOF) Acked(off int64) bool { return a.ackOff.Load() >= off }

// Term returns the terminal error (fatal write or fsync error, or closed)
// once the AOF has one: offsets not acknowledged by then never will be.
func (a *AOF) Term() error {
	if t := a.term.Load(); t != nil {
		return *t
	}
	return nil
}

// Kick asks the writer goroutine to write (and under Always fdatasync)
// what has been fed, without waiting for it.
func (a *AOF) Kick() { a.wake() }

// TryAck is Wait for callers that may not wait on the disk for long: under
// EverySec and No, if no other write is in progress, it write()s what has
// been fed on the calling goroutine (a write to the page cache, as Redis's
// event loop does); under Always, or when another goroutine is stepping, a
// rotation is due, or a write error is being retried, it only kicks the
// writer. It reports whether off is acknowledged on return.
func (a *AOF) TryAck(off int64) bool {
	if a.ackOff.Load() >= off {
		return true
	}
	if Policy(a.policy.Load()) == Always || a.term.Load() != nil || a.writeErr.Load() != nil {
		a.wake()
		return false
	}
	if !a.stepMu.TryLock() {
		a.wake()
		return false
	}
	a.bufMu.Lock()
	rot := a.rot
	a.bufMu.Unlock()
	if rot == nil && !a.stepClosed {
		for a.ackOff.Load() < off && a.step(&a.ws, true) {
		}
	}
	a.stepMu.Unlock()
	if a.ackOff.Load() >= off {
		if a.bufLen.Load() > 0 {
			a.wake()
		}
		return true
	}
	a.wake()
	return false
}

// Always reports whether the policy is appendfsync always.
func (a *AOF) Always() bool { return Policy(a.policy.Load()) == Always }

// SyncTo writes and (under Always) fdatasyncs on the calling goroutine
// until everything up to logical offset off is acknowledged: a Wait that
// always leads (after a step in progress, if any), and does not kick the
// writer for bytes fed meanwhile, as the caller hands those to its next
// SyncTo. It blocks on the disk: a goroutine that serves clients must hand
// them to another before calling it. It never waits to gather committers
// (only aof-group-commit-delay-usec delays it): its caller's clients are
// served by another goroutine meanwhile, and what they feed goes into the
// next SyncTo, so fsyncs follow each other back to back.
func (a *AOF) SyncTo(off int64) error {
	if a.ackOff.Load() < off {
		a.stepMu.Lock()
		for a.ackOff.Load() < off && !a.stepClosed && a.term.Load() == nil && a.step(&a.ws, false) {
		}
		a.stepMu.Unlock()
	}
	if a.ackOff.Load() >= off {
		return nil
	}
	return a.Wait(off) // terminal error, or a write error being retried
}

// SyncOverlapped is SyncTo for a caller that keeps several fsyncs in flight
// (the network loop with aof-group-commit-inflight above 1). It writes
// under the step lock and fdatasyncs after letting go of it, so another
// caller can write what was fed meanwhile and start its own fdatasync
// before this one returns: on a disk whose flushes take long and overlap
// (network storage), groups no longer queue behind one another's fsync.
// An fdatasync makes durable every byte written to the file before it
// began, so each moves the synced offset to what had been written when it
// started, in whatever order they finish. A step that rotates to a new
// incr file fsyncs the old one first, under the lock, as SyncTo does; with
// no-appendfsync-on-rewrite in effect, or another policy, it is SyncTo.
func (a *AOF) SyncOverlapped(off int64) error {
	for a.ackOff.Load() < off {
		if !a.Always() || a.skipFsync() {
			return a.SyncTo(off)
		}
		a.stepMu.Lock()
		if a.stepClosed || a.term.Load() != nil {
			a.stepMu.Unlock()
			break
		}
		a.overlap = true
		progress := a.step(&a.ws, false)
		a.overlap = false
		seg, w, cmds := a.cur, a.writtenOff.Load(), a.writtenCmds.Load()
		a.stepMu.Unlock()
		if w > a.syncedOff.Load() {
			if a.syncOverlapped(seg, w, cmds) != nil {
				break // fatal: Wait returns it
			}
		}
		a.publishAck(Always)
		if !progress && a.ackOff.Load() < off && a.writtenOff.Load() < off {
			break // nothing written: a write error, or the file closed
		}
	}
	if a.ackOff.Load() >= off {
		return nil
	}
	return a.Wait(off)
}

// syncOverlapped fdatasyncs seg, written up to logical offset w, beside
// other callers' fsyncs of it. Durable after it: everything up to w. A
// segment closed meanwhile was synced, or its bytes otherwise covered, by
// whoever closed it, which moves the synced offset itself.
func (a *AOF) syncOverlapped(seg *segment, w, cmds int64) error {
	seg.syncMu.RLock()
	if seg.closed {
		seg.syncMu.RUnlock()
		return nil
	}
	t0 := time.Now()
	err := seg.f.Sync()
	d := time.Since(t0)
	seg.syncMu.RUnlock()
	return a.alwaysSynced(err, w, cmds, d)
}
