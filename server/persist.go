package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// persistState is the server's side of persistence: the saves and
// rewrites (persist.Persister), and the loading figures INFO reports.
type persistState struct {
	persist.Persister
	loadRDBUsedMem      int64 // the used-mem aux field of the RDB being loaded
	loadKeysLoaded      int64
	loadKeysExpired     int64
	loadStart           time.Time
	loadTotal, loadDone int64

	runID string
}

// initPersist readies the persistence state.
func (s *Server) initPersist() {
	p := &s.persist
	p.Init(persist.Env{
		Lock:     &s.mu,
		Keyspace: persistKeyspace{s},
		Config:   s.cfg,
		FS:       s.fsys,
		Log:      persistLog{s},
		AOF:      persistAOF{s},
		// A diskless transfer is a snapshot in progress: a second one
		// would have to finish its walk first, a pause that grows with
		// the dataset.
		OtherSnapshot: func() bool { return s.repl.diskless != nil },
		Latency: func(event string, d time.Duration) {
			// A fork is timed under mu, where the configured threshold
			// can be read; the unlink of a temp file off it, against
			// the monitor's copy of the threshold.
			if event == "fork" {
				s.latency.maybeAdd(event, d, s.cfg.LatencyMonitorThreshold)
				return
			}
			s.latency.observe(event, d)
		},
		Exit: func(code int) { s.exitFn(code) },
	})
	b := make([]byte, 20)
	f, err := os.Open("/dev/urandom")
	if err == nil {
		io.ReadFull(f, b)
		f.Close()
	}
	p.runID = fmt.Sprintf("%x", b)
}

func (s *Server) runID() string { return s.persist.runID }

func (s *Server) dumpPath() string { return s.persist.DumpPath() }

// aofInflight is how many fsyncs the network loop may have in flight at
// once on a under appendfsync always: aof-group-commit-inflight when set,
// else (0, the default) what a's tuner chose (aof/tune.go).
func (s *Server) aofInflight(a *aof.AOF) int {
	if n := int(s.inflight.Load()); n > 0 || a == nil {
		return max(1, n)
	}
	return a.Inflight()
}

func (s *Server) aofOptions() aof.Options {
	pol, _ := aof.ParsePolicy(s.cfg.AppendFsync)
	return aof.Options{
		FS: s.fsys(), Dir: s.cfg.Dir, DirName: s.cfg.AppendDirname, FileName: s.cfg.AppendFilename,
		Policy: pol, UseRDBPreamble: s.cfg.AOFUseRDBPreamble, LoadTruncated: s.cfg.AOFLoadTruncated,
		TimestampEnabled: s.cfg.AOFTimestampEnabled, DisableAutoGC: s.cfg.AOFDisableAutoGC,
		NoFsyncOnRewrite:    s.cfg.NoAppendfsyncOnRewrite,
		GroupCommitDelay:    time.Duration(s.cfg.AOFGroupCommitDelayUsec) * time.Microsecond,
		GroupCommitMaxBatch: s.cfg.AOFGroupCommitMaxBatch,
		PreallocSize:        s.cfg.AOFPreallocSize,
		WriterTick:          s.testWriterTick,
		FlushSleep:          s.dbg.aofFlushSleep,
		Logger:              s.log,
		Now:                 time.Now,
		OnFatal: func(err error) {
			s.log.Warn().Msgf("%v", err)
			s.exitFn(1)
		},
		OnLatency: s.latency.observe,
		SyncClock: s.testSyncClock,
	}
}

// newBaseEncoder is what a snapshot writes through: an RDB encoder, or
// the RESP rewrite format for an AOF base with aof-use-rdb-preamble no.
func (s *Server) newBaseEncoder(w io.Writer, aofBase bool) persist.Encoder {
	if aofBase && !s.cfg.AOFUseRDBPreamble {
		return persist.NewRESPBase(w, s.cfg.AOFTimestampEnabled)
	}
	return rdb.NewEncoder(w, rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Checksum: s.cfg.RDBChecksum, Limits: s.rdbLimits()})
}

// encodeAll writes the whole dataset synchronously (SAVE, start-up base).
func (s *Server) encodeAll(enc persist.Encoder, aofBase bool) error {
	if err := enc.Header(rdb.StandardAux(time.Now().Unix(), s.usedMemory(), aofBase)); err != nil {
		return err
	}
	s.scripts().WriteFunctions(enc) // function libraries come before the keys
	for _, db := range s.dbs {
		if db.size() == 0 {
			continue
		}
		if err := enc.SelectDB(db.id, uint64(db.size()), uint64(db.expires.Len())); err != nil {
			return err
		}
		var err error
		db.keys.Range(func(k string, e *entry) bool {
			err = enc.Key([]byte(k), objToRDB(*e), db.expireAt(k))
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return enc.Close()
}

func (s *Server) aofBufferLength() int64 {
	if s.aof == nil {
		return 0
	}
	return s.aof.Stats().BufferLength
}

func errnoText(err error) string { return rstring.Strerror(err) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func okErr(b bool) string {
	if b {
		return "ok"
	}
	return "err"
}

func (s *Server) infoPersistence(f func(k string, v any)) {
	p := &s.persist
	f("loading", b2i(s.loading))
	f("async_loading", 0)
	// The running job's progress and copy-on-write (see copiedOnWrite);
	// all 0 when none runs, as after Redis's resetChildState.
	perc := "0.00"
	var processed, total, cow, cowAge int64
	if j := p.Jobs.Running(); j != nil {
		st := j.Snap.Status()
		processed, total, cow = st.Keys, st.Total, st.COWBytes
		if total > 0 {
			perc = fmt.Sprintf("%.2f", float64(processed)*100/float64(total))
		}
		if !st.COWAt.IsZero() {
			cowAge = int64(time.Since(st.COWAt).Seconds())
		}
	}
	f("current_cow_peak", cow) // it only grows while a job runs
	f("current_cow_size", cow)
	f("current_cow_size_age", cowAge)
	f("current_fork_perc", perc)
	f("current_save_keys_processed", processed)
	f("current_save_keys_total", total)
	f("rdb_changes_since_last_save", s.dirty)
	f("rdb_bgsave_in_progress", b2i(p.RDBInProgress()))
	f("rdb_last_save_time", p.LastSave.Unix())
	f("rdb_last_bgsave_status", okErr(p.LastBgsaveOK))
	f("rdb_last_bgsave_time_sec", p.LastBgsaveTime)
	f("rdb_current_bgsave_time_sec", persist.Seconds(s.rdbJob()))
	f("rdb_saves", p.RDBSaves)
	f("rdb_last_cow_size", p.RDBLastCOW)
	f("rdb_last_load_keys_expired", p.loadKeysExpired)
	f("rdb_last_load_keys_loaded", p.loadKeysLoaded)
	aofOn := s.aof != nil
	f("aof_enabled", b2i(aofOn))
	f("aof_rewrite_in_progress", b2i(s.aofJob() != nil))
	f("aof_rewrite_scheduled", b2i(p.RewriteScheduled))
	f("aof_last_rewrite_time_sec", p.LastRewriteTime)
	f("aof_current_rewrite_time_sec", persist.Seconds(s.aofJob()))
	f("aof_last_bgrewrite_status", okErr(p.LastRewriteOK))
	f("aof_rewrites", p.Rewrites)
	f("aof_rewrites_consecutive_failures", p.RewriteFailures)
	writeOK := true
	var st aof.Stats
	if aofOn {
		st = s.aof.Stats()
		writeOK = st.LastWriteOK
	}
	f("aof_last_write_status", okErr(writeOK))
	f("aof_last_cow_size", p.AOFLastCOW)
	f("module_fork_in_progress", 0)
	f("module_fork_last_cow_size", 0)
	if s.cfg.AppendOnly && aofOn {
		f("aof_current_size", st.CurrentSize)
		f("aof_base_size", st.BaseSize)
		f("aof_pending_rewrite", b2i(p.RewriteScheduled))
		f("aof_buffer_length", st.BufferLength)
		f("aof_pending_bio_fsync", st.PendingBioFsync)
		f("aof_delayed_fsync", st.DelayedFsync)
		// Ours, after Redis's fields: group commit at work.
		f("aof_fsyncs", st.Fsyncs)
		f("aof_group_commit_avg_cmds", fmt.Sprintf("%.2f", st.AvgCmdsPerFsync))
		f("aof_group_commit_max_cmds", st.MaxCmdsPerFsync)
		f("aof_fsync_p50_usec", st.FsyncP50.Microseconds())
		f("aof_fsync_p99_usec", st.FsyncP99.Microseconds())
		// The self-tuning group commit: the mode in effect, why (fixed:
		// aof-group-commit-inflight set; else the tuner's reason, from the
		// median wall and thread-CPU time of an fsync run alone).
		mode, reason := st.GroupMode.String(), st.GroupReason.String()
		if n := s.inflight.Load(); n > 0 {
			mode, reason = "one", "fixed"
			if n > 1 {
				mode = "overlap"
			}
		}
		f("aof_group_commit_mode", mode)
		f("aof_group_commit_reason", reason)
		f("aof_group_commit_inflight_max", s.aofInflight(s.aof))
		f("aof_group_commit_mode_switches", st.ModeSwitches)
		f("aof_fsync_wall_usec", st.FsyncWall.Microseconds())
		f("aof_fsync_cpu_usec", st.FsyncCPU.Microseconds())
	}
	if s.loading {
		f("loading_start_time", p.loadStart.Unix())
		f("loading_total_bytes", p.loadTotal)
		f("loading_rdb_used_mem", p.loadRDBUsedMem)
		f("loading_loaded_bytes", p.loadDone)
		lp := 0.0
		if p.loadTotal > 0 {
			lp = float64(p.loadDone) * 100 / float64(p.loadTotal)
		}
		f("loading_loaded_perc", fmt.Sprintf("%.2f", lp))
		f("loading_eta_seconds", 1)
	}
}

// ------------------------------------------------------------ shutdown

// prepareShutdown is SHUTDOWN's persistence (persist.PrepareShutdown),
// done once (under mu).
func (s *Server) prepareShutdown(f persist.ShutdownFlags) error {
	if err := s.persist.PrepareShutdown(f, s.loading); err != nil {
		return err
	}
	s.shutdownPrepared = true
	return nil
}

// PrepareShutdownOnSignal is the shutdown a SIGTERM or SIGINT asks for
// (Redis's shutdown_asap in serverCron): false means it failed, was logged,
// and the server goes on.
func (s *Server) PrepareShutdownOnSignal() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdownPrepared {
		return true
	}
	// Redis logs nothing more than prepareShutdown did.
	return s.prepareShutdown(persist.ShutdownFlags{}) == nil
}

func (s *Server) persistOnShutdown(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdownPrepared {
		return nil
	}
	if s.aof == nil && s.persist.Jobs.Running() == nil && len(s.cfg.Save) == 0 {
		return nil
	}
	return s.prepareShutdown(persist.ShutdownFlags{})
}

// fsys is the file system of the data directory: every file operation of
// the server on it (AOF, manifest, dump.rdb, temp files, the replica's
// temp RDB, CONFIG REWRITE's files) goes through it, and tests substitute
// one (fsx.CrashFS, or one that controls fsync). A snapshot writer in a
// child process writes through the OS's (see fsx's package doc).
func (s *Server) fsys() fsx.FS {
	if s.testFS != nil {
		return s.testFS
	}
	return fsx.OS()
}

// rdbJob and aofJob are the running BGSAVE and rewrite (or nil).
func (s *Server) rdbJob() *persist.Job { return s.persist.Jobs.RDB() }
func (s *Server) aofJob() *persist.Job { return s.persist.Jobs.AOF() }

// childActive reports a snapshot in progress (Redis's
// hasActiveChildProcess), a diskless replication transfer included.
func (s *Server) childActive() bool { return s.persist.ChildActive() }

// persistLog is the server's log as the jobs write to it (persist.Log).
type persistLog struct{ s *Server }

func (l persistLog) Verbose(msg string) { l.s.log.Debug().Msg(msg) }
func (l persistLog) Notice(msg string)  { l.s.log.Info().Msg(msg) }
func (l persistLog) Warning(msg string) { l.s.log.Warn().Msg(msg) }
func (l persistLog) ChildNotice(pid int, msg string) {
	l.s.log.Info().Int("cpid", pid).Msg(msg)
}

func absPath(dir, name string) string { return persist.AbsPath(dir, name) }

// persistAOF is the server's side of its AOF (persist.AOFHost).
type persistAOF struct{ s *Server }

func (h persistAOF) AOF() *aof.AOF        { return h.s.aof }
func (h persistAOF) Options() aof.Options { return h.s.aofOptions() }
func (h persistAOF) Wire(a *aof.AOF)      { h.s.installAckHook(a) }
func (h persistAOF) SetAOF(a *aof.AOF) {
	h.s.aof = a
	if a != nil {
		// Offsets are per AOF instance: forget those of a previous one.
		for _, c := range h.s.clients {
			c.fedOff = 0
		}
	}
}

// persistKeyspace is the dataset as the saves see it (persist.Keyspace).
type persistKeyspace struct{ s *Server }

func (k persistKeyspace) Snapshot(aofBase bool) persist.Snapshot { return k.s.startSnapshot(aofBase) }
func (k persistKeyspace) WriteAll(w io.Writer, aofBase bool) error {
	return k.s.encodeAll(k.s.newBaseEncoder(w, aofBase), aofBase)
}
func (k persistKeyspace) Dirty() int64        { return k.s.dirty }
func (k persistKeyspace) Saved(covered int64) { k.s.dirty = max(k.s.dirty-covered, 0) }
