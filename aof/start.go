package aof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Start opens the last incr file for appending (Redis's
// aofOpenIfNeededOnServerStart) and starts the writer and syncer goroutines.
// If the manifest lists no file (case D), writeBase is first called to write
// the startup base synchronously ("Creating AOF base file ... on server
// start"); its name ends in .base.rdb or .base.aof after UseRDBPreamble.
// writeBase may be nil only when Exists() is true.
//
// Durable after Start returns nil: the base (if written), the incr file's
// directory entry and the manifest that lists both.
func (a *AOF) Start(writeBase func(w io.Writer) error) error {
	a.mu.Lock()
	if a.started || a.closed {
		a.mu.Unlock()
		return errors.New("aof: Start called twice or after Close")
	}
	knobs := a.knobs
	a.mu.Unlock()

	a.manMu.Lock()
	defer a.manMu.Unlock()
	if err := a.fsys.MkdirAll(a.aofDir); err != nil {
		msg := fmt.Sprintf("Can't open or create append-only dir %s: %s", a.opt.DirName, Strerror(err))
		a.log.Warn().Msg(msg)
		return fmt.Errorf("aof: %s: %w", msg, err)
	}
	m := a.man
	dirty := false
	if m.Empty() {
		if writeBase == nil {
			return errors.New("aof: no AOF exists and no base writer was given")
		}
		nm, base := m.AfterRewrite(a.opt.FileName, knobs.UseRDBPreamble)
		if err := a.writeStartupBase(base.Name, writeBase); err != nil {
			return err
		}
		a.log.Info().Msgf("Creating AOF base file %s on server start", base.Name)
		if !knobs.UseRDBPreamble && knobs.TimestampEnabled {
			// A RESP base opens with a #TS line, which Redis's
			// rewriteAppendOnlyFileRio counts as the last one written;
			// an RDB base has none, so Redis annotates the first write
			// even within the same second.
			a.bufMu.Lock()
			a.lastTS = a.now().Unix()
			a.bufMu.Unlock()
		}
		m, dirty = nm, true
	}
	creating := len(m.Incrs) == 0
	if creating {
		m, _ = m.WithNewIncr(a.opt.FileName)
		dirty = true
	}
	last := m.Incrs[len(m.Incrs)-1].Name
	f, err := a.fsys.OpenWrite(a.path(last))
	if err != nil {
		msg := fmt.Sprintf("Can't open the append-only file %s: %s", last, Strerror(err))
		a.log.Warn().Msg(msg)
		return fmt.Errorf("aof: %s: %w", msg, err)
	}
	if dirty {
		// Makes the new base and incr entries durable too (same directory).
		if err := a.persistManifest(m); err != nil {
			f.Close()
			return err
		}
		a.man = m
	}
	size, err := f.Size()
	if err != nil {
		f.Close()
		return fmt.Errorf("aof: size of %s: %w", last, err)
	}
	seg := &segment{f: f, name: last, off: size, alloc: size}
	if last == a.tailName && a.tailEnd < size {
		// Preallocation padding follows the data (prealloc.go).
		seg.off = a.tailEnd
		if knobs.Policy != Always || knobs.PreallocSize == 0 {
			a.trimPadding(seg)
		}
	}
	seg.noPrealloc = last == a.tailName && a.tailInteriorPad
	a.lastIncrSize.Store(seg.off)
	if creating {
		a.log.Info().Msgf("Creating AOF incr file %s on server start", last)
	} else {
		a.log.Info().Msgf("Opening AOF incr file %s on server start", last)
	}
	a.mu.Lock()
	if !a.loaded {
		// Fresh start: like Redis, the startup base is not counted.
		a.currentSize.Store(seg.off)
	} else {
		a.currentSize.Add(seg.off - size)
	}
	a.cur = seg
	a.startLocked()
	a.mu.Unlock()
	if !knobs.DisableAutoGC {
		a.delHistoryLocked()
	}
	// A temporary incr left by a crash while the AOF was being turned on.
	a.fsys.Remove(a.path(a.tempIncrName()))
	a.wake()
	return nil
}

// startLocked marks the AOF started and starts the writer and syncer.
// Caller holds mu and has set cur.
func (a *AOF) startLocked() {
	a.started = true
	a.stopWriter = make(chan struct{})
	a.stopSyncer = make(chan struct{})
	a.writerDone = make(chan struct{})
	a.syncerDone = make(chan struct{})
	go a.writerLoop()
	go a.syncerLoop()
}

// writeStartupBase writes <Dir>/temp-rewriteaof-<pid>.aof with writeBase,
// fdatasyncs and closes it, then renames it into the AOF directory as name
// (Redis's rewriteAppendOnlyFile). Durable after it returns: the content; the
// directory entry becomes durable with the next manifest persist.
func (a *AOF) writeStartupBase(name string, writeBase func(w io.Writer) error) error {
	tmp := filepath.Join(a.opt.Dir, fmt.Sprintf("temp-rewriteaof-%d.aof", os.Getpid()))
	f, err := a.fsys.Create(tmp)
	if err != nil {
		msg := fmt.Sprintf("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s", Strerror(err))
		a.log.Warn().Msg(msg)
		return fmt.Errorf("aof: %s: %w", msg, err)
	}
	fail := func(step string, err error) error {
		f.Close()
		a.fsys.Remove(tmp)
		a.log.Warn().Msgf("Write error writing append only file on disk: %s", Strerror(err))
		return fmt.Errorf("aof: startup base %s: %s: %w", tmp, step, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := writeBase(bw); err != nil {
		return fail("write", err)
	}
	if err := bw.Flush(); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Close(); err != nil {
		a.fsys.Remove(tmp)
		return fmt.Errorf("aof: startup base %s: close: %w", tmp, err)
	}
	if err := a.fsys.Rename(tmp, a.path(name)); err != nil {
		a.log.Warn().Msgf("Error moving temp append only file on the final destination: %s", Strerror(err))
		a.fsys.Remove(tmp)
		return fmt.Errorf("aof: startup base: rename %s: %w", tmp, err)
	}
	return nil
}

// Close writes what is buffered, fdatasyncs the incr file ("Calling fsync()
// on the AOF file.") and stops the goroutines. Durable after it returns nil:
// everything fed before Close. A pending write error is returned.
func (a *AOF) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	started := a.started
	a.mu.Unlock()
	var err error
	if started {
		a.bufMu.Lock()
		a.closing = true
		a.bufMu.Unlock()
		close(a.stopWriter)
		<-a.writerDone
		close(a.stopSyncer)
		<-a.syncerDone
		// Wait for a leader still stepping, and keep new ones out.
		a.stepMu.Lock()
		a.stepClosed = true
		a.stepMu.Unlock()
		a.bufMu.Lock()
		rot := a.rot
		a.rot = nil
		a.bufMu.Unlock()
		if rot != nil {
			a.failRotation(rot, ErrClosed)
		}
		if e := a.writeErr.Load(); e != nil {
			err = fmt.Errorf("aof: close with unwritten data: %w", *e)
		}
		if t := a.term.Load(); t != nil {
			err = *t
		}
		seg := a.cur
		seg.syncMu.Lock()
		a.trimPadding(seg)
		if a.term.Load() == nil {
			// silent: Redis's finishShutdown logs "Calling fsync() on the
			// AOF file." itself, its stopAppendOnly nothing
			if serr := seg.f.Sync(); serr != nil && err == nil {
				err = fmt.Errorf("aof: fsync %s: %w", seg.name, serr)
			} else if serr == nil {
				a.advanceSynced(a.writtenOff.Load())
			}
		}
		if cerr := seg.f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("aof: close %s: %w", seg.name, cerr)
		}
		seg.closed = true
		seg.syncMu.Unlock()
		a.mu.Lock()
		waiting := a.waiting
		a.mu.Unlock()
		if waiting {
			// No manifest names it: the first rewrite never installed.
			a.fsys.Remove(a.path(a.tempIncrName()))
		}
		a.publishAck(Policy(a.policy.Load()))
		a.bg.Wait()
	}
	t := ErrClosed
	a.term.CompareAndSwap(nil, &t)
	a.broadcast()
	return err
}
