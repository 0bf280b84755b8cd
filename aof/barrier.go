package aof

// The reply barrier. Every write a command makes is fed to the AOF, which
// hands back a Ticket; a reply holding ticket T may leave once Durable(T).
// The policy is the AOF's business alone: callers never look at it.
//
//	t := a.ReplyTicket(own)  // the ticket this batch's replies hold
//	a.Durable(t)             // may they leave? (one atomic load)
//	a.Wait(t)                // a goroutine of one client: lead the write/fsync, block
//	a.Progress(t)            // a loop serving many clients: whatever needs no disk wait
//	a.Sync(t, overlap)       // that loop's syncer goroutine: write and fsync now
//	a.SetWakeHook(f)         // f runs when tickets become durable
//
// Contract: under always no reply leaves before every write it
// acknowledges or reveals is fdatasync'ed; under everysec and no the
// client's own writes are write()n before its replies. Nothing here makes
// the executor wait on a disk: Feed only appends to memory.

// Ticket is a position in the AOF's stream (the logical end offset after a
// Feed), monotonic for the life of the AOF, across files.
type Ticket int64

// ReplyTicket returns the ticket the replies of a batch must hold, given
// own, the ticket of the client's last Feed. Under always, everything fed
// so far, by anyone: a reply may reveal another client's write (a GET of
// a key just SET) and must not before that write is durable. Under
// everysec and no, the client's own writes only: reads do not wait, so
// they keep working while a full disk refuses writes, as in Redis.
func (a *AOF) ReplyTicket(own Ticket) Ticket {
	if Policy(a.policy.Load()) == Always {
		return a.Offset()
	}
	return own
}

// Durable reports whether a reply holding t may leave: t is fdatasync'ed
// (always; written while no-appendfsync-on-rewrite suppresses the fsync)
// or written (everysec, no).
func (a *AOF) Durable(t Ticket) bool { return a.ackOff.Load() >= int64(t) }

// Term returns the terminal error (fatal write or fsync error, or closed)
// once the AOF has one: tickets not durable by then never will be.
func (a *AOF) Term() error {
	if t := a.term.Load(); t != nil {
		return *t
	}
	return nil
}

// SetWakeHook sets f to be called (on whichever goroutine moved it) every
// time tickets become durable or the AOF reaches its terminal state, while
// some caller waits (Progress left a ticket pending and no Wait or Sync
// covers it yet, or always). f must not block.
func (a *AOF) SetWakeHook(f func()) {
	if f == nil {
		a.wakeHook.Store(nil)
		return
	}
	a.wakeHook.Store(&f)
}

// Blocks reports whether a ticket that is not durable yet needs a Sync
// (an fdatasync, under always): a caller serving many clients may read
// more of a long pipeline before asking, so that one fsync covers it.
func (a *AOF) Blocks() bool { return Policy(a.policy.Load()) == Always }

// Progress does for t what needs no wait on a disk, for callers that serve
// many clients from one goroutine and so must never block: under everysec
// and no, if no other step is running, it write()s what has been fed on
// the calling goroutine (a write to the page cache, as Redis's event loop
// does); otherwise it kicks the writer and the wake hook reports the
// ticket durable later. It returns whether t is durable, and sync: t needs
// an fdatasync, which the caller must run with Sync on a goroutine that
// may block (under always; the writer is not kicked, Sync does it).
func (a *AOF) Progress(t Ticket) (durable, sync bool) {
	off := int64(t)
	if a.ackOff.Load() >= off {
		return true, false
	}
	if a.term.Load() != nil {
		return false, false
	}
	if Policy(a.policy.Load()) == Always {
		return false, true
	}
	if a.writeErr.Load() != nil || !a.stepMu.TryLock() {
		a.wake()
		return false, false
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
		return true, false
	}
	a.wake()
	return false, false
}

// Sync writes and (under always) fdatasyncs on the calling goroutine until
// t is durable: a Wait that always leads (after a step in progress, if
// any), and does not kick the writer for bytes fed meanwhile, as the
// caller hands those to its next Sync. It blocks on the disk: a goroutine
// that serves clients must hand them to another before calling it. It
// never waits to gather committers (only aof-group-commit-delay-usec
// delays it): its caller's clients are served by another goroutine
// meanwhile, and what they feed goes into the next Sync, so fsyncs follow
// each other back to back.
//
// With overlap (the network loop with several fsyncs in flight, tune.go),
// under always, it writes under the step lock and fdatasyncs after letting
// go of it, so another caller can write what was fed meanwhile and start
// its own fdatasync before this one returns: on a disk whose flushes take
// long and overlap (network storage), groups no longer queue behind one
// another's fsync. An fdatasync makes durable every byte written to the
// file before it began, so each moves the durable offset to what had been
// written when it started, in whatever order they finish. A step that
// rotates to a new incr file fsyncs the old one first, under the lock.
func (a *AOF) Sync(t Ticket, overlap bool) error {
	off := int64(t)
	if overlap && Policy(a.policy.Load()) == Always && !a.skipFsync() {
		return a.syncOverlapping(off)
	}
	if a.ackOff.Load() < off {
		a.stepMu.Lock()
		for a.ackOff.Load() < off && !a.stepClosed && a.term.Load() == nil && a.step(&a.ws, false) {
		}
		a.stepMu.Unlock()
	}
	if a.ackOff.Load() >= off {
		return nil
	}
	return a.Wait(t) // terminal error, or a write error being retried
}

func (a *AOF) syncOverlapping(off int64) error {
	for a.ackOff.Load() < off {
		if Policy(a.policy.Load()) != Always || a.skipFsync() {
			return a.Sync(Ticket(off), false)
		}
		seg, w, cmds, progress, ok := a.writeOverlapped()
		if !ok {
			break
		}
		if w > a.syncedOff.Load() {
			if !a.claimSync(w) && off <= w {
				// An fdatasync in flight began with these bytes written:
				// its end acknowledges them. A second one would cost the
				// device a flush and tie this reply to the later of the
				// two.
				a.waitAcked(off)
				continue
			}
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
	return a.Wait(Ticket(off))
}

// writeOverlapped is one step under the step lock that writes what was
// fed without fdatasyncing it (overlap): the caller fdatasyncs seg, written
// up to w (cmds commands), after letting go of the lock, so that others can
// write and start their own fdatasync meanwhile. ok is false when no step
// may run (the AOF closed or failed).
func (a *AOF) writeOverlapped() (seg *segment, w, cmds int64, progress, ok bool) {
	a.stepMu.Lock()
	defer a.stepMu.Unlock()
	if a.stepClosed || a.term.Load() != nil {
		return nil, 0, 0, false, false
	}
	a.overlap = true
	progress = a.step(&a.ws, false)
	a.overlap = false
	return a.cur, a.writtenOff.Load(), a.writtenCmds.Load(), progress, true
}

// claimSync records that an overlapped fdatasync begins with w bytes
// written, and reports false when one that began with as many or more is
// in flight or done already.
func (a *AOF) claimSync(w int64) bool {
	for {
		cur := a.syncClaim.Load()
		if w <= cur {
			return false
		}
		if a.syncClaim.CompareAndSwap(cur, w) {
			return true
		}
	}
}

// waitAcked waits, without leading a step, until off is acknowledged or
// the AOF has a terminal state.
func (a *AOF) waitAcked(off int64) {
	a.waiters.Add(1)
	defer a.waiters.Add(-1)
	for {
		ch := *a.notify.Load()
		if a.ackOff.Load() >= off || a.term.Load() != nil {
			return
		}
		<-ch
	}
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
	err, m := a.timedSync(seg.f)
	seg.syncMu.RUnlock()
	return a.alwaysSynced(err, w, cmds, m)
}
