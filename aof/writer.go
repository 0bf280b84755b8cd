package aof

import (
	"fmt"
	"time"
)

// writeLogEvery rate-limits write-error log lines (Redis's AOF_WRITE_LOG_ERROR_RATE).
const writeLogEvery = 30 * time.Second

// writerTick (Options.WriterTick's default) bounds how long fed bytes that
// no client waits for stay in memory when nobody kicks the writer. The
// server kicks it from its cron after background work fed bytes (active
// expiry), as Redis writes them in the beforeSleep after its serverCron;
// the tick is the safety net, so an idle server does not wake up hundreds
// of times a second.
const writerTick = time.Second

// delayedFsyncAfter is Redis's 2-second postponement limit (spec §5.2 step 3).
const delayedFsyncAfter = 2 * time.Second

// writerState is owned by whoever holds AOF.stepMu.
type writerState struct {
	pending     []byte // taken from buf, not yet written (kept across write errors)
	pendingCmds int64
	cmdsTaken   int64 // cumulative commands taken from marks
}

// writerLoop is the writer goroutine: kicked, every writerTick or to retry
// a failed write, it runs write steps (write, under Always fdatasync,
// rotate) for bytes no caller is stepping for. It is not the only one: a
// step runs under stepMu on whichever goroutine takes it first, also a Wait
// leader, Progress (everysec and no, on the network loop) and the network
// loop's syncers through Sync (always; the latter
// fdatasyncs after letting go of stepMu, beside other syncers). Under
// EverySec the fdatasync is syncerLoop's, once a second.
func (a *AOF) writerLoop() {
	defer close(a.writerDone)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	tick := time.NewTicker(a.opt.WriterTick)
	defer tick.Stop()
	for {
		stopping, bg := false, false
		select {
		case <-a.kick:
			// Under always a kick is answered as background bytes are
			// (no gather, the fdatasync after letting go of the step
			// lock), unless a rotation waits for an ordinary step: one
			// fdatasyncs under the lock, and with the network loop's
			// syncers fsyncing beside it (overlap), it held them all
			// behind its own fsync and behind theirs.
			a.bufMu.Lock()
			rot := a.rot
			a.bufMu.Unlock()
			if rot == nil {
				a.raiseBgOff(int64(a.Offset()))
				bg = true
			}
		case <-a.kickBg:
			bg = true
		case <-tick.C:
			if a.bufLen.Load() == 0 {
				continue
			}
			a.raiseBgOff(int64(a.Offset()))
			bg = true
		case <-retry.C:
		case <-a.stopWriter:
			stopping = true
		}
		if bg && a.syncBackground() {
			a.writerRounds.Add(1)
			continue
		}
		if a.term.Load() == nil {
			a.stepMu.Lock()
			if !a.stepClosed {
				for a.step(&a.ws, true) {
				}
			}
			a.stepMu.Unlock()
			if a.writeErr.Load() != nil && !stopping {
				retry.Reset(a.writeRetryEvery)
			}
		}
		if stopping {
			return
		}
		a.writerRounds.Add(1)
	}
}

// syncBackground writes and fdatasyncs, under Always, what was fed up to
// bgOff (background work's bytes, such as active expiry's DELs, and the
// tick's), unless someone wrote it meanwhile: whoever writes under Always
// fdatasyncs what it wrote (a network loop syncer, a Wait leader). It
// holds stepMu for the write only, never gathers, and fdatasyncs after
// letting go of it, as Sync with overlap does. Run as an ordinary step
// (a gather and the fsync under the lock) at the cron's 10 Hz, it held
// every syncer of the network loop back for up to a gather and a whole
// flush: with a 5 ms flush and 50 clients 250 of 6,200 Syncs took two
// flushes or more, 20 with --hz 1. It reports false when the policy is not
// Always or the fsync is suppressed: the ordinary step runs then.
func (a *AOF) syncBackground() bool {
	if Policy(a.policy.Load()) != Always || a.skipFsync() {
		return false
	}
	off := a.bgOff.Load()
	for a.writtenOff.Load() < off {
		seg, w, cmds, progress, ok := a.writeOverlapped()
		if !ok {
			break
		}
		if w > a.syncedOff.Load() && a.claimSync(w) && a.syncOverlapped(seg, w, cmds) != nil {
			break // fatal
		}
		a.publishAck(Always)
		if !progress {
			break
		}
	}
	return true
}

// step takes the next batch, writes it (and fdatasyncs it under Always), then
// performs a due rotation. It reports whether it made progress. adaptive
// lets it wait for the recent peak of committers before an fdatasync
// (gather); a caller that runs beside the network loop passes false.
func (a *AOF) step(w *writerState, adaptive bool) bool {
	knobs := a.knobsSnapshot()
	policy := Policy(a.policy.Load())
	if policy == Always && len(w.pending) == 0 && a.bufLen.Load() > 0 && !a.skipFsync() {
		// Let more committers join this fsync.
		if knobs.GroupCommitDelay > 0 {
			time.Sleep(knobs.GroupCommitDelay)
		} else if adaptive {
			a.gather(&a.gs)
		}
		a.gs.covered(a.pendingMarks())
	}

	a.bufMu.Lock()
	rot := a.rot
	end := a.fedOff
	if rot != nil && rot.switchOff < end {
		end = rot.switchOff
	}
	bufStart := a.fedOff - int64(len(a.buf))
	n := end - bufStart
	if n > 0 && policy == Always && knobs.GroupCommitMaxBatch > 0 {
		// Every fed byte belongs to a mark; cut after the mark that reaches
		// the batch limit, but always take at least one mark.
		limit := w.cmdsTaken + int64(knobs.GroupCommitMaxBatch)
		newEnd := bufStart
		for _, m := range a.marks {
			if m.end > end || (m.cmds > limit && newEnd > bufStart) {
				break
			}
			newEnd = m.end
			if m.cmds >= limit {
				break
			}
		}
		end = newEnd
		n = end - bufStart
	}
	if n > 0 {
		if len(w.pending) == 0 && n == int64(len(a.buf)) {
			w.pending, a.buf = a.buf, w.pending[:0]
		} else {
			w.pending = append(w.pending, a.buf[:n]...)
			a.buf = a.buf[:copy(a.buf, a.buf[n:])]
		}
		k := 0
		for k < len(a.marks) && a.marks[k].end <= end {
			k++
		}
		if k > 0 {
			a.takenMarks.Add(int64(k))
			c := a.marks[k-1].cmds
			w.pendingCmds += c - w.cmdsTaken
			w.cmdsTaken = c
			a.marks = a.marks[:copy(a.marks, a.marks[k:])]
		}
	}
	a.bufMu.Unlock()

	progress := false
	if len(w.pending) > 0 {
		if policy == Always && knobs.PreallocSize > 0 {
			a.extend(a.cur, int64(len(w.pending))+1+knobs.PreallocSize/4, knobs.PreallocSize)
		}
		if err := a.writePending(w, policy); err != nil {
			if rot != nil {
				// Never write post-switch bytes behind pre-switch bytes that
				// are still unwritten: fail the rewrite, keep the old incr.
				a.failRotation(rot, err)
			}
			return false
		}
		progress = true
	}
	if policy == Always && !(a.overlap && rot == nil) && a.syncedOff.Load() < a.writtenOff.Load() {
		if err := a.syncAlways(); err != nil {
			if rot != nil {
				a.failRotation(rot, err)
			}
			return false
		}
	}
	a.publishAck(policy)
	if rot != nil && a.writtenOff.Load() == rot.switchOff && len(w.pending) == 0 {
		a.rotate(rot)
		progress = true
	}
	return progress
}

// writePending writes w.pending to the current incr file. Durable after it
// returns nil: nothing (the bytes are in the page cache). On failure it
// applies Redis's rules (spec §5.2 step 5) and returns the error.
func (a *AOF) writePending(w *writerState, policy Policy) error {
	if d := a.flushSleep.Load(); d > 0 && len(w.pending) > 0 {
		time.Sleep(time.Duration(d)) // Redis's usleep in flushAppendOnlyFile
	}
	seg := a.cur
	syncS := a.syncStart.Load()
	t0 := time.Now()
	nw, err := a.writeData(seg, w.pending)
	a.writeLatency(syncS != 0, time.Since(t0))
	if syncS != 0 && a.syncStart.Load() == syncS && time.Duration(time.Now().UnixNano()-syncS) >= delayedFsyncAfter {
		// The write ran while an everysec fsync had been busy for 2 s or more:
		// what Redis counts as a delayed fsync.
		a.delayedFsync.Add(1)
		a.log.Info().Msg("Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.")
	}
	if err == nil && nw != len(w.pending) {
		err = fmt.Errorf("short write (%d of %d bytes)", nw, len(w.pending))
	}
	if err != nil {
		a.writeFailed(w, seg, nw, err, policy)
		return err
	}
	a.wrote(w, nw, w.pendingCmds)
	w.pending, w.pendingCmds = w.pending[:0], 0
	if e := a.writeErr.Load(); e != nil {
		a.writeErr.Store(nil)
		a.log.Warn().Msg("AOF write error looks solved, Redis can write again.")
	}
	return nil
}

// SetFlushSleep makes every write of the AOF wait d first (DEBUG
// AOF-FLUSH-SLEEP, for tests; 0 turns it off).
func (a *AOF) SetFlushSleep(d time.Duration) { a.flushSleep.Store(int64(d)) }

// FlushSleep is the wait SetFlushSleep set.
func (a *AOF) FlushSleep() time.Duration { return time.Duration(a.flushSleep.Load()) }

// wrote accounts for n bytes that reached the file.
func (a *AOF) wrote(w *writerState, n int, cmds int64) {
	a.mu.Lock() // the syncer reads cur and writtenOff together
	a.writtenOff.Add(int64(n))
	a.mu.Unlock()
	a.lastIncrSize.Add(int64(n))
	a.currentSize.Add(int64(n))
	a.bufLen.Add(-int64(n))
	a.writtenCmds.Add(cmds)
}

func (a *AOF) writeFailed(w *writerState, seg *segment, nw int, err error, policy Policy) {
	a.mu.Lock()
	logIt := time.Since(a.lastWriteLog) > writeLogEvery
	if logIt {
		a.lastWriteLog = time.Now()
	}
	a.mu.Unlock()
	if nw > 0 {
		if logIt {
			a.log.Warn().Msgf("Short write while writing to the AOF file: (nwritten=%d, expected=%d)", nw, len(w.pending))
		}
		// Remove the partial record so the file stays loadable.
		start := seg.off - int64(nw)
		if terr := seg.f.Truncate(start); terr == nil {
			seg.off, seg.alloc = start, start
		} else {
			a.log.Warn().Msgf("Could not remove short write from the append-only file.  Redis may refuse to load the AOF the next time it starts.  ftruncate: %s", Strerror(terr))
			// The partial bytes stay in the file: drop them from the buffer.
			a.wrote(w, nw, 0)
			w.pending = w.pending[:copy(w.pending, w.pending[nw:])]
		}
	} else if logIt {
		a.log.Warn().Msgf("Error writing to the AOF file: %s", Strerror(err))
	}
	if policy == Always {
		a.log.Warn().Msg("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		a.setFatal(err)
		return
	}
	a.writeErr.Store(&err)
}

// syncAlways fdatasyncs the current incr under the Always policy. Durable
// after it returns nil: every byte written so far (writtenOff). A failure is
// fatal and never retried (fsyncgate): the kernel may have dropped the pages.
func (a *AOF) syncAlways() error {
	if a.skipFsync() {
		return nil
	}
	seg := a.cur
	w := a.writtenOff.Load()
	cmds := a.writtenCmds.Load()
	seg.syncMu.Lock()
	err, m := a.timedSync(seg.f)
	seg.syncMu.Unlock()
	a.gs.lastSync = m.wall
	return a.alwaysSynced(err, w, cmds, m)
}

// alwaysSynced accounts an fsync under Always that began with w bytes and
// cmds commands written and took m: durable up to w, or fatal.
func (a *AOF) alwaysSynced(err error, w, cmds int64, m syncTiming) error {
	if err != nil {
		a.log.Warn().Msgf("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...", Strerror(err))
		a.setFatal(err)
		return err
	}
	a.advanceSynced(w)
	a.recordFsync(m.wall, cmds)
	if m.cpuOK {
		a.tuneFsync(m)
	}
	a.latency("aof-fsync-always", m.wall)
	return nil
}

// publishAck moves the offset Wait waits for: synced bytes under Always
// (written ones while no-appendfsync-on-rewrite suppresses fsync), written
// bytes otherwise.
func (a *AOF) publishAck(policy Policy) {
	ack := a.writtenOff.Load()
	if policy == Always && !a.skipFsync() {
		ack = a.syncedOff.Load()
	}
	for {
		cur := a.ackOff.Load()
		if ack <= cur {
			return
		}
		if a.ackOff.CompareAndSwap(cur, ack) {
			a.broadcast()
			return
		}
	}
}

func (a *AOF) advanceSynced(off int64) {
	for {
		cur := a.syncedOff.Load()
		if off <= cur || a.syncedOff.CompareAndSwap(cur, off) {
			return
		}
	}
}

func (a *AOF) setFatal(err error) {
	a.mu.Lock()
	first := a.fatalErr == nil
	if first {
		a.fatalErr = err
	}
	a.mu.Unlock()
	if !first {
		return
	}
	t := fmt.Errorf("%w: %w", ErrFatal, err)
	a.term.CompareAndSwap(nil, &t)
	// No step runs once term is set: a rotation StartRewrite queued that
	// no step has taken yet fails here, or its Install would wait forever.
	a.bufMu.Lock()
	rot := a.rot
	a.rot = nil
	a.bufMu.Unlock()
	if rot != nil {
		a.failRotation(rot, t)
	}
	a.broadcast()
	if a.opt.OnFatal != nil {
		go a.opt.OnFatal(err)
	}
}

// Wait blocks until t is durable (barrier.go): written (EverySec, No) or
// written and fdatasync'ed (Always). Many callers share one write and one
// fdatasync (group commit). With EverySec/No a failed write keeps Wait
// waiting while the writer retries every second; Wait fails only once the
// AOF is closed (ErrClosed) or a write/fsync failed under Always (ErrFatal).
func (a *AOF) Wait(t Ticket) error {
	off := int64(t)
	if a.ackOff.Load() >= off {
		return nil
	}
	a.waiters.Add(1)
	defer a.waiters.Add(-1)
	for {
		ch := *a.notify.Load()
		if a.ackOff.Load() >= off {
			return nil
		}
		if t := a.term.Load(); t != nil {
			return *t
		}
		// Leader: if no step is running, write (and under Always fsync)
		// everything fed so far on this goroutine instead of handing off to
		// the writer and back. Others keep waiting and are covered by the
		// same write and fsync (group commit); leftovers fed meanwhile are
		// picked up by the writer goroutine, which is kicked afterwards.
		if a.stepMu.TryLock() {
			progress := false
			if !a.stepClosed && a.term.Load() == nil {
				// Lead until this caller's own bytes are acknowledged, no
				// further: its reply should not wait for later batches.
				for a.ackOff.Load() < off && a.step(&a.ws, true) {
					progress = true
				}
			}
			a.stepMu.Unlock()
			if a.bufLen.Load() > 0 {
				// Bytes fed while we stepped: someone may be waiting on
				// them without having been able to lead.
				a.wake()
			}
			if progress || a.ackOff.Load() >= off {
				continue
			}
			// No progress (a write error being retried): wait for news.
		}
		<-ch
	}
}

// WriteErr returns the last write error (EverySec/No) or background fsync
// error while it is unresolved; nil otherwise. While it is non-nil the server
// rejects writes and PING with "-MISCONF Errors writing to the AOF file:
// <Strerror(err)>".
func (a *AOF) WriteErr() error {
	if e := a.writeErr.Load(); e != nil {
		return *e
	}
	if e := a.bioErr.Load(); e != nil {
		return *e
	}
	return nil
}

// syncerLoop fdatasyncs the current incr once per second under EverySec,
// off the writer (Redis's bio fsync job).
func (a *AOF) syncerLoop() {
	defer close(a.syncerDone)
	t := time.NewTicker(a.everysecEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.everysecSync()
		case <-a.stopSyncer:
			return
		}
	}
}

// everysecSync: durable after it succeeds: every byte written before it
// started. A failure sets WriteErr (MISCONF) until a later fsync succeeds, as
// Redis's bio does.
func (a *AOF) everysecSync() {
	if Policy(a.policy.Load()) != EverySec || a.skipFsync() {
		return
	}
	a.mu.Lock()
	seg, w := a.cur, a.writtenOff.Load()
	a.mu.Unlock()
	if seg == nil || w <= a.syncedOff.Load() {
		return
	}
	cmds := a.writtenCmds.Load()
	a.pendingBio.Add(1)
	a.syncStart.Store(time.Now().UnixNano())
	seg.syncMu.Lock()
	var err error
	t0 := time.Now()
	if !seg.closed {
		err = seg.f.Sync()
	}
	d := time.Since(t0)
	seg.syncMu.Unlock()
	a.syncStart.Store(0)
	a.pendingBio.Add(-1)
	if err != nil {
		if a.bioErr.Load() == nil {
			a.log.Warn().Msgf("Fail to fsync the AOF file: %s", Strerror(err))
		}
		a.bioErr.Store(&err)
		return
	}
	a.bioErr.Store(nil)
	a.advanceSynced(w)
	a.recordFsync(d, cmds)
}
