package server

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unsafe"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rdb"
)

// Loading fills the keyspace from the data directory's files: the AOF's
// commands are replayed through a fake client (aofLoader), an RDB is
// decoded into the dataset (rdbLoader). Opening the files and reporting
// a failed load is persist's and aof's; what a loaded record becomes is
// the server's.

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
func (v *rdbLoader) Function(code []byte) error {
	return v.s.scripts().LoadLibrary(code, v.replaceLibs)
}
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

// loadDumpRDB loads dump.rdb at start-up (persist.LoadDump).
func (s *Server) loadDumpRDB() error {
	return s.persist.LoadDump(func(r *bufio.Reader) error {
		s.setLoading(true)
		defer s.setLoading(false)
		_, err := s.decodeRDB(r, s.newRDBLoader(false))
		return err
	})
}
