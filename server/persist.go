package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

type persistState struct {
	lastSave        time.Time
	lastBgsaveOK    bool
	lastBgsaveTime  int64        // seconds, -1 none
	jobs            persist.Jobs // the background job slot, as Redis's one child
	rdbSaves        int64
	bgsaveScheduled bool
	dirtyAtSave     int64
	lastSaveTry     time.Time

	rewriteScheduled    bool
	rewrites            int64
	rewriteFailures     int64
	lastRewriteOK       bool
	lastRewriteTime     int64
	rewriteLimit        rewriteLimit
	rdbLastCOW          int64 // bytes the last successful BGSAVE copied on write
	aofLastCOW          int64 // and the last successful rewrite
	loadRDBUsedMem      int64 // the used-mem aux field of the RDB being loaded
	loadKeysLoaded      int64
	loadKeysExpired     int64
	loadStart           time.Time
	loadTotal, loadDone int64

	runID string
}

// initPersist readies the persistence state, the job slot included.
func (s *Server) initPersist() {
	p := &s.persist
	p.jobs.Init(&s.mu, persistLog{s}, s.fsys, func(d time.Duration) {
		s.latency.maybeAdd("fork", d, s.cfg.LatencyMonitorThreshold)
	})
	p.lastSave = time.Now()
	p.lastBgsaveOK = true
	p.lastBgsaveTime = -1
	p.lastRewriteOK = true
	p.lastRewriteTime = -1
	b := make([]byte, 20)
	f, err := os.Open("/dev/urandom")
	if err == nil {
		io.ReadFull(f, b)
		f.Close()
	}
	p.runID = fmt.Sprintf("%x", b)
}

func (p *persistState) saveParamsSet(cfg *config.Config) bool { return len(cfg.Save) > 0 }

func (s *Server) runID() string { return s.persist.runID }

func (s *Server) dumpPath() string { return absPath(s.cfg.Dir, s.cfg.DBFilename) }

// ---------------------------------------------------------------- loading

// LoadData loads the dataset at start-up as Redis's loadDataFromDisk does,
// and opens the AOF when appendonly is yes. Clients that connect meanwhile
// get -LOADING.
func (s *Server) LoadData() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.AppendOnly {
		return s.loadAOFAndOpen()
	}
	return s.loadDumpRDB()
}

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

func (s *Server) loadAOFAndOpen() error {
	a, err := aof.Open(s.aofOptions())
	if err != nil {
		return err
	}
	s.installAckHook(a)
	if a.Exists() {
		start := time.Now()
		if err := s.loadAOF(a); err != nil {
			return err
		}
		// Logged by loadDataFromDisk, not by the loader: DEBUG LOADAOF
		// does not print it.
		s.log.Info().Msgf("DB loaded from append only file: %.3f seconds", time.Since(start).Seconds())
	}
	if err := a.Start(func(w io.Writer) error { return s.writeBaseSync(w) }); err != nil {
		return err
	}
	s.aof = a
	return nil
}

// loadAOF replays a's files into the keyspace (under mu) with the loading
// state set: clients get -LOADING meanwhile (start-up and DEBUG LOADAOF).
func (s *Server) loadAOF(a *aof.AOF) error {
	s.setLoading(true)
	defer s.setLoading(false)
	ld := &aofLoader{s: s, fake: s.newFakeClient()}
	_, err := a.Load(ld, func(loaded, total int64) {
		s.persist.loadDone, s.persist.loadTotal = loaded, total
		s.loadingYield()
	})
	return err
}

// loadingYield lets the clients waiting for the executor in while the
// dataset loads, as Redis's processEventsWhileBlocked every 1024 commands
// (AOF) or every few MB (RDB): they are answered -LOADING. Called by the
// loader under mu. The loading command's own executor state (DEBUG
// LOADAOF's client) is restored afterwards.
func (s *Server) loadingYield() {
	cur, failed := s.curClient, s.curCmdFailed
	s.mu.Unlock()
	// A mutex lets the unlocker take it straight back: wait (briefly)
	// until the batches that were queued for it have had their turn.
	for i := 0; i < 20 && s.muWanted.Load() > 0; i++ {
		time.Sleep(20 * time.Microsecond)
	}
	s.mu.Lock()
	s.curClient, s.curCmdFailed = cur, failed
}

// writeBaseSync writes the current (start-up) dataset as an AOF base.
func (s *Server) writeBaseSync(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := s.newBaseEncoder(bw, true)
	if err := s.encodeAll(enc, true); err != nil {
		return err
	}
	return bw.Flush()
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
	s.writeFunctions(enc) // function libraries come before the keys
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

func (s *Server) setLoading(v bool) {
	s.loading = v
	s.loadingA.Store(v)
	if v {
		s.persist.loadStart = time.Now()
	}
}

func (s *Server) newFakeClient() *client {
	c := newClient(s, nil, -1)
	c.db = s.dbs[0]
	c.flags |= flagFake
	c.authed = true
	return c
}

// aofLoader replays AOF files into the keyspace (aof.Loader).
type aofLoader struct {
	s       *Server
	fake    *client
	inMulti bool // between MULTI and EXEC
}

func (l *aofLoader) LoadRDB(r *bufio.Reader, file string) error {
	_, err := l.s.decodeRDB(r, l.s.newRDBLoader(true))
	return err
}

func (l *aofLoader) Known(argv [][]byte) bool {
	cmd, _ := l.s.lookupCommand(argv)
	return cmd != nil
}

func (l *aofLoader) Command(argv [][]byte) error {
	s := l.s
	c := l.fake
	if eqFold(argv[0], "multi") || eqFold(argv[0], "exec") {
		l.inMulti = eqFold(argv[0], "multi")
		return nil
	}
	// a MULTI block's commands are run by EXEC's call() in Redis
	c.aofDirect = !l.inMulti
	cmd, _ := s.lookupCommand(argv)
	if cmd == nil {
		return fmt.Errorf("%w: '%s'", aof.ErrUnknownCommand, argv[0])
	}
	c.out = c.out[:0]
	s.call(c, cmd, argv)
	c.aofDirect = false
	if len(c.out) > 0 && c.out[0] == '-' {
		msg := strings.TrimRight(string(c.out[1:]), "\r\n")
		s.log.Warn().Msgf("== CRITICAL == This server is sending an error to its AOF-loading-client: '%s' after processing the command '%s'", msg, cmd.fullName())
	}
	c.out = c.out[:0]
	return nil
}

// rdbLoader is the rdb.Visitor that fills the keyspace.
type rdbLoader struct {
	s       *Server
	aofBase bool
	db      int // current SELECTDB
	n       int64
	now     int64
	// replaceLibs: libraries replace existing ones (DEBUG RELOAD MERGE)
	replaceLibs bool
}

func (v *rdbLoader) Aux(key, val []byte) error {
	switch string(key) {
	case "redis-ver":
		v.s.log.Info().Msgf("Loading RDB produced by version %s", val)
	case "ctime":
		age := max(time.Now().Unix()-cAtoi(val), 0)
		v.s.log.Info().Msgf("RDB age %d seconds", age)
	case "used-mem":
		v.s.persist.loadRDBUsedMem = cAtoi(val)
		v.s.log.Info().Msgf("RDB memory usage when created %.2f Mb", float64(v.s.persist.loadRDBUsedMem)/(1024*1024))
	case "aof-preamble":
		if cAtoi(val) != 0 {
			v.s.log.Info().Msg("RDB has an AOF tail")
		}
	case "aof-base":
		if cAtoi(val) != 0 {
			v.s.log.Info().Msg("RDB is base AOF")
		}
	}
	return nil
}
func (v *rdbLoader) SelectDB(db int) error {
	if db >= len(v.s.dbs) {
		return fmt.Errorf("FATAL: Data file was created with a Redis server configured to handle more than %d databases. Exiting", len(v.s.dbs))
	}
	v.db = db
	return nil
}
func (v *rdbLoader) ResizeDB(dbSize, expiresSize uint64) error {
	// A hint from the file: only trust it as far as a sane size.
	if db := v.s.dbs[v.db]; dbSize <= 1<<28 && expiresSize <= dbSize {
		db.keys.Reserve(int(dbSize))
		db.expires.Reserve(int(expiresSize))
	}
	return nil
}
func (v *rdbLoader) Function(code []byte) error { return v.s.loadFunctionLib(code, v.replaceLibs) }
func (v *rdbLoader) Key(dbID int, key []byte, val *rdb.Value, expireMs int64) error {
	s := v.s
	if dbID >= len(s.dbs) {
		return fmt.Errorf("FATAL: Data file was created with a Redis server configured to handle more than %d databases. Exiting", len(s.dbs))
	}
	db := s.dbs[dbID]
	if !v.aofBase && expireMs >= 0 && expireMs < v.now {
		s.persist.loadKeysExpired++
		return nil
	}
	// key and val are the decoder's fresh allocations: keep them without
	// copying, and look the key up once.
	var e entry
	if val.Kind == rdb.KindString {
		e = newStringEntryOwned(val.Str)
	} else {
		e = s.objFromRDB(val)
	}
	k := unsafe.String(unsafe.SliceData(key), len(key))
	e.setLRU(s.lruClock)
	e.setSnapMark(s.snapParity)
	if !db.keys.Set(k, e) {
		return fmt.Errorf("RDB has duplicated key '%s' in DB %d", key, dbID)
	}
	if expireMs >= 0 {
		db.expires.Set(k, expireMs)
	}
	s.persist.loadKeysLoaded++
	v.n++
	if v.n%1024 == 0 {
		s.loadingYield()
	}
	return nil
}

// decodeRDB loads one RDB stream (under mu) through v (an *rdbLoader, or
// one wrapping it), logging Redis's closing line of rdbLoadRio.
func (s *Server) decodeRDB(r *bufio.Reader, v rdb.Visitor) (int64, error) {
	s.persist.loadKeysLoaded, s.persist.loadKeysExpired = 0, 0
	n, err := rdb.Decode(r, v, s.rdbDecodeOptions())
	if err == nil {
		s.log.Info().Msgf("Done loading RDB, keys loaded: %d, keys expired: %d.", s.persist.loadKeysLoaded, s.persist.loadKeysExpired)
	}
	return n, err
}

// rdbDecodeOptions are the options an RDB load decodes with (under mu):
// Redis deep-checks a file it loads only under sanitize-dump-payload yes;
// the limits decide which encodings convert on load.
func (s *Server) rdbDecodeOptions() rdb.DecodeOptions {
	lim := serverLimits(s)
	return rdb.DecodeOptions{MaxDatabases: len(s.dbs), Deep: s.cfg.SanitizeDumpPayload == "yes", Limits: &lim}
}

func (s *Server) newRDBLoader(aofBase bool) *rdbLoader {
	return &rdbLoader{s: s, aofBase: aofBase, now: s.nowMs()}
}

func (s *Server) loadDumpRDB() error {
	path := s.dumpPath()
	f, err := s.fsys().Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("Fatal error loading the DB: %v. Exiting.", err)
	}
	defer f.Close()
	s.setLoading(true)
	defer s.setLoading(false)
	start := time.Now()
	if _, err := s.decodeRDB(bufio.NewReaderSize(f, 1<<20), s.newRDBLoader(false)); err != nil {
		return s.rdbLoadFailed(path, err)
	}
	s.log.Info().Msgf("DB loaded from disk: %.3f seconds", time.Since(start).Seconds())
	return nil
}

// ------------------------------------------------------------------ saving

// rdbSaveSync writes dump.rdb synchronously (SAVE, SHUTDOWN, FLUSHALL), as
// Redis's rdbSave: temp-<pid>.rdb is written, fsynced and renamed over
// dump.rdb, then the directory is fsynced (fsx.ReplaceFile). Each failure
// logs Redis's line for its step and fails the save.
func (s *Server) rdbSaveSync() error {
	s.persist.rdbSaves++
	path := s.dumpPath()
	tmp := absPath(s.cfg.Dir, fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	err := fsx.ReplaceFile(s.fsys(), path, tmp, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		enc := rdb.NewEncoder(bw, rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Checksum: s.cfg.RDBChecksum, Limits: s.rdbLimits()})
		if err := s.encodeAll(enc, false); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		cause := errors.Unwrap(err)
		switch step, _ := fsx.FailedStep(err); step {
		case fsx.StepCreate:
			s.log.Warn().Msgf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %v", filepath.Base(tmp), s.cfg.Dir, cause)
		case fsx.StepRename:
			s.log.Warn().Msgf("Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
				filepath.Base(tmp), s.cfg.DBFilename, s.cfg.Dir, errnoText(cause))
		default:
			// Redis 7.0.15's rdbSave has no directory fsync; its
			// later versions fail the save when it fails, as here.
			s.log.Warn().Msgf("Write error saving DB on disk: %s", errnoText(cause))
		}
		return err
	}
	s.log.Info().Msg("DB saved on disk")
	s.persist.dirtyAtSave = s.dirty
	s.dirty = 0
	s.persist.lastSave = time.Now()
	s.persist.lastBgsaveOK = true
	return nil
}

// bgsave starts a background save (under mu), as Redis's
// rdbSaveBackground: the child writes a temp file that becomes dump.rdb
// once it exited cleanly.
func (s *Server) bgsave() error {
	if s.childActive() {
		return errors.New("child active")
	}
	sn := s.startSnapshot(false)
	s.persist.rdbSaves++
	dirtyAtStart := s.dirty
	j := &persist.Job{Kind: persist.KindRDB, Snap: sn}
	// The child writes temp-<its pid>.rdb, as Redis's.
	j.Install = func() error {
		if err := s.fsys().Rename(j.Path(), s.dumpPath()); err != nil {
			return err
		}
		return s.fsys().SyncDir(filepath.Dir(s.dumpPath()))
	}
	j.Discard = func() {
		t0 := monoNow()
		s.fsys().Remove(j.Path())
		s.latency.observe("rdb-unlink-temp-file", time.Duration(monoNow()-t0))
	}
	j.Done = func(o persist.Outcome) {
		p := &s.persist
		p.lastBgsaveTime = int64(time.Since(j.Start()).Seconds())
		// backgroundSaveDoneHandlerDisk's three cases, word for word.
		switch {
		case o.OK():
			s.log.Info().Msg("Background saving terminated with success")
			p.rdbLastCOW = sn.cowBytes
			s.dirty -= dirtyAtStart
			if s.dirty < 0 {
				s.dirty = 0
			}
			p.lastSave = time.Now()
			p.lastBgsaveOK = true
		case o.Signal != 0:
			s.log.Warn().Msgf("Background saving terminated by signal %d", o.Signal)
			if !o.KilledOnPurpose() {
				p.lastBgsaveOK = false
			}
		default:
			if o.InstallFailed {
				s.log.Warn().Msgf("Error moving temp DB file on the final destination: %v", o.Err)
			}
			s.log.Warn().Msg("Background saving error")
			p.lastBgsaveOK = false
		}
	}
	if err := s.persist.jobs.Start(j, absPath(s.cfg.Dir, "temp-"+persist.PidPlaceholder+".rdb"), "", "Background saving started"); err != nil {
		s.persist.lastBgsaveOK = false
		s.log.Warn().Msgf("Can't save in background: fork: %s", errnoText(err))
		return err
	}
	return nil
}

// -------------------------------------------------------------- rewriting

// rewriteBackground starts BGREWRITEAOF as Redis's
// rewriteAppendOnlyFileBackground: with the AOF on (or being turned on) a
// new incr file starts at this instant; with it off the base becomes the
// manifest's only file.
func (s *Server) rewriteBackground() error {
	if s.aof == nil {
		return s.startRewriteOffline()
	}
	return s.startRewrite()
}

// startRewrite begins BGREWRITEAOF with the AOF on (under mu).
func (s *Server) startRewrite() error {
	if s.childActive() {
		return errors.New("child active")
	}
	if s.aof == nil {
		return errors.New("AOF is off")
	}
	// The switch point and the snapshot instant are the same hold of mu:
	// everything fed before goes to the old incr and is in the base,
	// everything after goes to the new incr.
	rw, err := s.aof.StartRewrite(os.Getpid())
	if err != nil {
		// StartRewrite logged Redis's line (openNewIncrAofForAppend's).
		s.persist.lastRewriteOK = false
		return err
	}
	sn := s.startSnapshot(true)
	s.persist.rewrites++
	a := s.aof
	j := &persist.Job{Kind: persist.KindAOF, Snap: sn}
	j.Install = func() error {
		s.log.Info().Msg("Background AOF rewrite terminated with success")
		return rw.Install(s.cfg.AOFUseRDBPreamble)
	}
	j.Discard = func() { rw.Abort(persist.ErrSnapshotAborted) }
	j.Started = rw.SetChildPid
	j.Done = func(o persist.Outcome) {
		if s.aof == a {
			a.SetChildActive(false)
		}
		waiting := s.aof == a && a.Waiting()
		s.rewriteDone(j, o, waiting)
	}
	tmp := filepath.Join(s.cfg.Dir, "temp-rewriteaof-"+persist.PidPlaceholder+".aof")
	if err := s.persist.jobs.Start(j, tmp, rw.TempBaseTemplate(persist.PidPlaceholder), "Background append only file rewriting started"); err != nil {
		rw.Abort(err)
		s.persist.lastRewriteOK = false
		s.log.Warn().Msgf("Can't rewrite append only file in background: fork: %s", errnoText(err))
		return err
	}
	s.persist.rewriteScheduled = false
	a.SetChildActive(true)
	return nil
}

// rewriteDone records a rewrite's outcome, as Redis's
// backgroundRewriteDoneHandler (under mu). waiting: the AOF being turned on
// still has no base, so another rewrite is scheduled.
func (s *Server) rewriteDone(j *persist.Job, o persist.Outcome, waiting bool) {
	p := &s.persist
	p.lastRewriteTime = int64(time.Since(j.Start()).Seconds())
	switch {
	case o.OK():
		p.lastRewriteOK = true
		p.rewriteFailures = 0
		p.aofLastCOW = j.Snap.Status().COWBytes
		s.log.Info().Msg("Background AOF rewrite finished successfully")
	case o.InstallFailed:
		// The install logged what failed (the rename or the manifest).
		p.lastRewriteOK = false
		p.rewriteFailures++
	case o.Signal != 0:
		if !o.KilledOnPurpose() {
			p.lastRewriteOK = false
			p.rewriteFailures++
		}
		s.log.Warn().Msgf("Background AOF rewrite terminated by signal %d", o.Signal)
	default:
		p.lastRewriteOK = false
		p.rewriteFailures++
		s.log.Warn().Msg("Background AOF rewrite terminated with error")
	}
	if !o.OK() && waiting {
		// The AOF being turned on has no base yet (Redis's
		// AOF_WAIT_REWRITE): try again.
		p.rewriteScheduled = true
	}
}

// rewriteLimit is Redis's aofRewriteLimited: after 3 consecutive failed
// rewrites, automatic and scheduled ones wait 1, 2, 4 ... 60 minutes
// between tries; BGREWRITEAOF itself is never held back.
type rewriteLimit struct {
	delayMinutes int
	next         time.Time
}

// limited reports whether a rewrite must wait now (under mu).
func (s *Server) rewriteLimited(now time.Time) bool {
	l := &s.persist.rewriteLimit
	if s.persist.rewriteFailures < 3 {
		*l = rewriteLimit{}
		return false
	}
	if !l.next.IsZero() {
		if now.Before(l.next) {
			return true
		}
		l.next = time.Time{}
		return false
	}
	if l.delayMinutes == 0 {
		l.delayMinutes = 1
	} else {
		l.delayMinutes = min(l.delayMinutes*2, 60)
	}
	l.next = now.Add(time.Duration(l.delayMinutes) * time.Minute)
	s.log.Warn().Msgf("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", l.delayMinutes)
	return true
}

// persistCron: scheduled BGREWRITEAOF/BGSAVE, save points and the
// automatic rewrite, in the order of Redis's serverCron.
func (s *Server) persistCron() {
	p := &s.persist
	if s.childActive() {
		return
	}
	now := time.Now()
	if p.rewriteScheduled && !s.rewriteLimited(now) {
		s.rewriteBackground()
		return
	}
	for _, sp := range s.cfg.Save {
		if s.dirty >= sp.Changes && now.Sub(p.lastSave) > time.Duration(sp.Seconds)*time.Second &&
			(p.lastBgsaveOK || now.Sub(p.lastSaveTry) > 5*time.Second) {
			s.log.Info().Msgf("%d changes in %d seconds. Saving...", sp.Changes, sp.Seconds)
			p.lastSaveTry = now
			s.bgsave()
			return
		}
	}
	if s.aof != nil && !s.aof.Waiting() && s.cfg.AutoAOFRewritePercentage > 0 {
		st := s.aof.Stats()
		base := st.BaseSize
		if base < 1 {
			base = 1
		}
		if st.CurrentSize > s.cfg.AutoAOFRewriteMinSize {
			growth := st.CurrentSize*100/base - 100
			if growth >= int64(s.cfg.AutoAOFRewritePercentage) && !s.rewriteLimited(now) {
				s.log.Info().Msgf("Starting automatic rewriting of AOF on %d%% growth", growth)
				s.startRewrite()
				return
			}
		}
	}
	if p.bgsaveScheduled {
		// Redis runs a scheduled BGSAVE last, when nothing else started.
		p.bgsaveScheduled = false
		s.bgsave()
	}
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
	if j := p.jobs.Running(); j != nil {
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
	f("rdb_bgsave_in_progress", b2i(s.rdbJob() != nil || s.repl.diskless != nil)) // a diskless transfer is one, as Redis's socket-target child
	f("rdb_last_save_time", p.lastSave.Unix())
	f("rdb_last_bgsave_status", okErr(p.lastBgsaveOK))
	f("rdb_last_bgsave_time_sec", p.lastBgsaveTime)
	f("rdb_current_bgsave_time_sec", persist.Seconds(s.rdbJob()))
	f("rdb_saves", p.rdbSaves)
	f("rdb_last_cow_size", p.rdbLastCOW)
	f("rdb_last_load_keys_expired", p.loadKeysExpired)
	f("rdb_last_load_keys_loaded", p.loadKeysLoaded)
	aofOn := s.aof != nil
	f("aof_enabled", b2i(aofOn))
	f("aof_rewrite_in_progress", b2i(s.aofJob() != nil))
	f("aof_rewrite_scheduled", b2i(p.rewriteScheduled))
	f("aof_last_rewrite_time_sec", p.lastRewriteTime)
	f("aof_current_rewrite_time_sec", persist.Seconds(s.aofJob()))
	f("aof_last_bgrewrite_status", okErr(p.lastRewriteOK))
	f("aof_rewrites", p.rewrites)
	f("aof_rewrites_consecutive_failures", p.rewriteFailures)
	writeOK := true
	var st aof.Stats
	if aofOn {
		st = s.aof.Stats()
		writeOK = st.LastWriteOK
	}
	f("aof_last_write_status", okErr(writeOK))
	f("aof_last_cow_size", p.aofLastCOW)
	f("module_fork_in_progress", 0)
	f("module_fork_last_cow_size", 0)
	if s.cfg.AppendOnly && aofOn {
		f("aof_current_size", st.CurrentSize)
		f("aof_base_size", st.BaseSize)
		f("aof_pending_rewrite", b2i(p.rewriteScheduled))
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

// shutdownFlags are SHUTDOWN's options.
type shutdownFlags struct {
	save, nosave, force bool
}

// prepareShutdown stops the jobs, syncs the AOF and saves dump.rdb when
// configured (under mu), as Redis 7.0's finishShutdown. On error nothing
// is closed and the server goes on serving: a save that fails (or an AOF
// still waiting for its first base) aborts the shutdown unless force.
func (s *Server) prepareShutdown(f shutdownFlags) error {
	if s.loading {
		// Never overwrite dump.rdb with half-loaded data.
		f.save, f.nosave = false, true
	}
	if j := s.rdbJob(); j != nil {
		s.log.Warn().Msg("There is a child saving an .rdb. Killing it!")
		j.Kill()
	}
	if s.aof != nil {
		if j := s.aofJob(); j != nil {
			if s.aof.Waiting() {
				if !f.force {
					s.log.Warn().Msg("Writing initial AOF, can't exit.")
					return s.shutdownFailed(errors.New("writing initial AOF"))
				}
				s.log.Warn().Msg("Writing initial AOF. Exit anyway.")
			}
			s.log.Warn().Msg("There is a child rewriting the AOF. Killing it!")
			s.persist.jobs.KillSync(j)
		}
		s.log.Info().Msg("Calling fsync() on the AOF file.")
		if err := s.aof.Sync(s.aof.Offset(), false); err != nil {
			s.log.Warn().Msgf("Fail to fsync the AOF file: %s.", errnoText(err))
		}
	}
	if (len(s.cfg.Save) > 0 && !f.nosave) || f.save {
		s.log.Info().Msg("Saving the final RDB snapshot before exiting.")
		if err := s.rdbSaveSync(); err != nil {
			if !f.force {
				s.log.Warn().Msg("Error trying to save the DB, can't exit.")
				return s.shutdownFailed(err)
			}
			s.log.Warn().Msg("Error trying to save the DB. Exit anyway.")
		}
	}
	if s.aof != nil {
		// Close writes and fsyncs what is left, whatever the policy.
		if err := s.aof.Close(); err != nil {
			s.log.Warn().Msgf("Error closing the AOF: %v", err)
		}
		s.aof = nil
	}
	s.shutdownPrepared = true
	return nil
}

func (s *Server) shutdownFailed(err error) error {
	s.log.Warn().Msg("Errors trying to shut down the server. Check the logs for more information.")
	return err
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
	return s.prepareShutdown(shutdownFlags{}) == nil
}

func (s *Server) persistOnShutdown(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdownPrepared {
		return nil
	}
	if s.aof == nil && s.persist.jobs.Running() == nil && len(s.cfg.Save) == 0 {
		return nil
	}
	return s.prepareShutdown(shutdownFlags{})
}

func (s *Server) flushallSave() {
	if j := s.rdbJob(); j != nil {
		j.Kill() // reaped as Redis's killRDBChild: "terminated by signal 10"
	}
	if len(s.cfg.Save) > 0 {
		s.rdbSaveSync()
	}
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
func (s *Server) rdbJob() *persist.Job { return s.persist.jobs.RDB() }
func (s *Server) aofJob() *persist.Job { return s.persist.jobs.AOF() }

// childActive reports a running job (Redis's hasActiveChildProcess).
// A diskless replication transfer counts: it is a snapshot in progress
// (Redis's RDB child with a socket target), and a second one would have to
// finish its walk first, a pause that grows with the dataset.
func (s *Server) childActive() bool { return s.persist.jobs.Running() != nil || s.repl.diskless != nil }

// persistLog is the server's log as the jobs write to it (persist.Log).
type persistLog struct{ s *Server }

func (l persistLog) Notice(msg string)  { l.s.log.Info().Msg(msg) }
func (l persistLog) Warning(msg string) { l.s.log.Warn().Msg(msg) }
func (l persistLog) ChildNotice(pid int, msg string) {
	l.s.log.Info().Int("cpid", pid).Msg(msg)
}

func absPath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
