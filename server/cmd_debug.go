package server

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/scripting"
)

// DEBUG, the subset of Redis 7.0's debug.c that tests and tools use.
// Replies, error texts and argument counts follow Redis 7.0.15. DEBUG is
// never propagated: what it changes (RELOAD, LOADAOF, POPULATE) is either
// already on disk or, as in Redis, deliberately not logged.

func init() {
	register(&command{
		name: "debug", arity: -2,
		flags: cmdAdmin | cmdNoScript | cmdLoading | cmdStale,
		proc:  debugCommand, group: "server", since: "1.0.0",
		summary: "A container for debugging commands",
		acl:     []string{"@admin", "@slow", "@dangerous"},
	})
}

const errDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// debugAllowed applies enable-debug-command (Redis allowProtectedAction).
func (s *Server) debugAllowed(c *client) bool {
	switch s.cfg.EnableDebugCommand {
	case "yes":
		return true
	case "local":
		return c.isLocal()
	}
	return false
}

// isLocal is Redis's islocalClient: loopback peers (and internal clients).
func (c *client) isLocal() bool {
	if c.conn == nil {
		return true
	}
	switch a := c.conn.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.Equal(net.IPv4(127, 0, 0, 1)) || a.IP.Equal(net.IPv6loopback)
	case *net.UnixAddr:
		return true
	}
	return false
}

func debugCommand(c *client, argv [][]byte) {
	s := c.srv
	c.preventPropagation() // enable-debug-command: processCommand
	sub, n := argv[1], len(argv)
	switch {
	case n == 2 && eqFold(sub, "help"):
		helpLines(c, debugHelp)
	case n == 3 && eqFold(sub, "log"):
		s.log.Warn().Msgf("DEBUG LOG: %s", argv[2])
		c.ok()
	case n == 2 && eqFold(sub, "change-repl-id"):
		// Redis's changeReplicationId + clearReplicationId2: replicas
		// can no longer continue from our history (PSYNC tests use it).
		s.log.Warn().Msg("Changing replication IDs after receiving DEBUG change-repl-id")
		s.replInit()
		s.repl.NewID()
		c.ok()
	case eqFold(sub, "reload"):
		debugReload(c, argv)
	case eqFold(sub, "loadaof"):
		debugLoadAOF(c)
	case n == 3 && eqFold(sub, "object"):
		debugObject(c, argv[2])
	case n >= 3 && n <= 5 && eqFold(sub, "populate"):
		debugPopulate(c, argv)
	case n == 2 && eqFold(sub, "digest"):
		d := s.datasetDigest()
		c.status(hex.EncodeToString(d[:]))
	case eqFold(sub, "digest-value"):
		c.arrayLen(n - 2)
		for _, k := range argv[2:] {
			// No lookupRead: a debug command must see logically expired
			// keys without deleting them (as Redis's dictFind).
			var d [20]byte
			if e, ok := c.db.keys.Get(bstr(k)); ok {
				d = s.valueDigest(e, c.db, bstr(k))
			}
			c.status(hex.EncodeToString(d[:]))
		}
	case n == 3 && eqFold(sub, "sleep"):
		debugSleep(s, cStrtod(argv[2]))
		c.ok()
	case n == 3 && eqFold(sub, "set-disable-deny-scripts"):
		n, _ := strconv.Atoi(string(argv[2])) // atoi: garbage is 0
		s.scripts().SetDenyScriptsOff(n != 0)
		c.ok()
	case n == 2 && eqFold(sub, "segfault"):
		s.debugSegfault()
	case n == 2 && eqFold(sub, "panic"):
		s.debugPanic()
	case n == 3 && eqFold(sub, "aof-flush-sleep"):
		// Redis's aof_flush_sleep: the next writes of the AOF wait first.
		s.dbg.aofFlushSleep = time.Duration(cAtoi(argv[2])) * time.Microsecond
		if s.aof != nil {
			s.aof.SetFlushSleep(s.dbg.aofFlushSleep)
		}
		c.ok()
	case n == 3 && eqFold(sub, "set-skip-checksum-validation"):
		s.dbg.skipChecksum = cAtoi(argv[2]) != 0
		c.ok()
	case n == 3 && eqFold(sub, "pause-cron"):
		s.dbg.pauseCron = cAtoi(argv[2]) != 0
		c.ok()
	case n == 3 && eqFold(sub, "set-active-expire"):
		s.activeExpire = cAtoi(argv[2]) != 0
		c.ok()
	case n == 3 && eqFold(sub, "quicklist-packed-threshold"):
		debugPackedThreshold(c, argv[2])
	case n == 3 && eqFold(sub, "sdslen"):
		debugSDSLen(c, argv[2])
	case n == 3 && eqFold(sub, "listpack"):
		debugListpack(c, argv[2])
	case (n == 3 || n == 4) && eqFold(sub, "quicklist"):
		debugQuicklist(c, argv)
	case n == 2 && eqFold(sub, "structsize"):
		debugStructSize(c)
	case n == 3 && eqFold(sub, "htstats"):
		debugHTStats(c, argv)
	case n == 3 && eqFold(sub, "htstats-key"):
		debugHTStatsKey(c, argv)
	case n == 2 && eqFold(sub, "config-rewrite-force-all"):
		// rewriteConfig(server.configfile, 1): with no file, fopen(NULL)
		// fails with EFAULT.
		switch err := s.cfg.RewriteFS(s.fsys(), true, s.configRewriteLog); {
		case err == config.ErrNoConfigFile:
			c.err("ERR CONFIG-REWRITE-FORCE-ALL failed: Bad address")
		case err != nil:
			c.err("ERR CONFIG-REWRITE-FORCE-ALL failed: " + strings.TrimPrefix(err.Error(), "ERR Rewriting config file: "))
		default:
			c.ok()
		}
	case n == 3 && eqFold(sub, "error"):
		// "-<string>" as is (addReplySds): no error code added, and
		// not an error reply for the statistics.
		c.out = resp.AppendError(c.out, string(argv[2]))
	case n == 4 && eqFold(sub, "replybuffer"):
		debugReplyBuffer(c, argv)
	case n == 3 && eqFold(sub, "protocol"):
		debugProtocol(c, string(lowerASCII(argv[2])))
	default:
		c.err("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(sub), 128) + "'. Try DEBUG HELP.")
	}
}

// debugKnobs are the switches DEBUG turns for Redis's tests (under mu).
type debugKnobs struct {
	aofFlushSleep time.Duration // AOF-FLUSH-SLEEP, kept for the AOF's writer
	skipChecksum  bool          // SET-SKIP-CHECKSUM-VALIDATION: RESTORE ignores the CRC
	pauseCron     bool          // PAUSE-CRON: the cron does nothing
	// REPLYBUFFER: server.reply_buffer_peak_reset_time (ms, -1 never;
	// set in New) and reply_buffer_resizing_enabled turned off.
	replyBufPeakReset int64
	replyBufNoResize  bool
}

// truncate is s cut to at most n bytes (Redis's "%.*s" in an error).
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// debugSleep blocks the executor, as Redis's single thread sleeps; it
// gives up early when the server shuts down.
func debugSleep(s *Server, secs float64) {
	us := secs * 1e6
	if !(us > 0) { // negative or NaN: nanosleep fails in Redis, no sleep
		return
	}
	if us > float64(math.MaxInt64/1000) {
		us = float64(math.MaxInt64 / 1000)
	}
	t := time.NewTimer(time.Duration(int64(us)) * time.Microsecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.closing:
	}
}

// debugReload is DEBUG RELOAD [MERGE|NOFLUSH|NOSAVE ...]: SAVE, empty the
// dataset, load dump.rdb again.
func debugReload(c *client, argv [][]byte) {
	s := c.srv
	flush, save, merge := true, true, false
	for _, opt := range argv[2:] {
		switch {
		case eqFold(opt, "merge"):
			merge = true
		case eqFold(opt, "noflush"):
			flush = false
		case eqFold(opt, "nosave"):
			save = false
		default:
			c.err("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if save {
		if err := s.persist.SaveRDB(); err != nil {
			c.err("ERR")
			return
		}
	}
	if flush {
		// emptyData: the functions go too
		for _, db := range s.dbs {
			s.emptyDB(db)
		}
		s.scripts().FlushFunctions()
	}
	if err := s.reloadDumpRDB(merge); err != nil {
		if le := (*scripting.LibLoadError)(nil); errors.As(err, &le) {
			// rdbLoadRio's lines; the read error report that follows is
			// logged at verbose level for a client's load (isRestoreContext)
			s.log.Warn().Msg("Failed loading library, " + le.Reason)
			s.log.Warn().Msg("Short read or OOM loading DB. Unrecoverable error, aborting now.")
		} else if lines, ok := rdb.LoadFailureLines(err); ok {
			// rdbReportError for a client's load (isRestoreContext): its
			// report at verbose level, after rdbLoad's own warning
			for i, l := range lines {
				if i < len(lines)-1 {
					s.log.Warn().Msg(l)
				} else {
					s.log.Debug().Msg(l)
				}
			}
		} else if !errors.Is(err, fs.ErrNotExist) && !s.persist.LoadRefused(err) {
			// (a missing dump.rdb fails rdbLoad's fopen: nothing logged)
			s.log.Warn().Msgf("DEBUG RELOAD: %v", err)
		}
		c.err("ERR Error trying to load the RDB dump")
		return
	}
	s.log.Warn().Msg("DB reloaded by DEBUG RELOAD")
	c.ok()
}

// mergeLoader lets a reloaded key replace an existing one (RELOAD MERGE).
type mergeLoader struct{ *rdbLoader }

func (m mergeLoader) Key(dbID int, key []byte, val *rdb.Value, expireMs int64) error {
	s := m.s
	// An expired key in the file is skipped and must not evict the live one.
	if dbID >= 0 && dbID < len(s.dbs) && (expireMs < 0 || expireMs >= m.now) {
		db := s.dbs[dbID]
		if _, ok := db.keys.Get(bstr(key)); ok {
			s.beforeModify(db, bstr(key))
			s.removeKey(db, bstr(key))
		}
	}
	return m.rdbLoader.Key(dbID, key, val, expireMs)
}

func (s *Server) reloadDumpRDB(merge bool) error {
	f, err := s.fsys().Open(s.dumpPath())
	if err != nil {
		return err
	}
	defer f.Close()
	s.setLoading(true)
	defer s.setLoading(false)
	ld := s.newRDBLoader(false)
	ld.replaceLibs = merge
	var v rdb.Visitor = ld
	if merge {
		v = mergeLoader{ld}
	}
	_, err = s.decodeRDB(bufio.NewReaderSize(f, 1<<20), v)
	return err
}

// debugLoadAOF is DEBUG LOADAOF: write out the AOF buffer, empty the
// dataset and replay the AOF files of the manifest, serving other clients
// -LOADING meanwhile. As Redis 7.0.15, the manifest on disk is read even
// with appendonly no, and a load that fails (or finds no AOF at all) ends
// the process with exit code 1, nothing more logged.
func debugLoadAOF(c *client) {
	s := c.srv
	a := s.aof
	if a != nil {
		// Everything fed so far must be in the files before they are read.
		if err := a.Wait(a.Offset()); err != nil {
			s.log.Warn().Msgf("DEBUG LOADAOF: flushing the AOF: %v", err)
			c.err("ERR Error trying to load the AOF files, check server logs.")
			return
		}
	}
	// emptyData: the functions go too
	for _, db := range s.dbs {
		s.emptyDB(db)
	}
	s.scripts().FlushFunctions()
	if a == nil {
		// Read only: the AOF is neither started nor kept.
		var err error
		if a, err = aof.Open(s.aofOptions()); err != nil {
			debugLoadAOFExit(c)
			return
		}
	}
	if !a.Exists() {
		debugLoadAOFExit(c)
		return
	}
	if err := s.loadAOF(a); err != nil {
		debugLoadAOFExit(c)
		return
	}
	s.dirty = 0 // as Redis: nothing to propagate or save
	s.log.Warn().Msg("Append Only File loaded by DEBUG LOADAOF")
	c.ok()
}

// debugLoadAOFExit is Redis's exit(1) after a failed DEBUG LOADAOF; when
// exitFn returns (tests), the client is dropped without a reply as it
// would be by the dying process.
func debugLoadAOFExit(c *client) {
	c.srv.exitFn(1)
	c.flags |= flagCloseASAP
}

// debugObject is DEBUG OBJECT key, Redis's low-level line about a value.
func debugObject(c *client, key []byte) {
	s := c.srv
	e, ok := c.db.keys.Get(bstr(key))
	if !ok {
		c.err(errNoSuchKey)
		return
	}
	enc := objEncoding(e)
	refcount := 1
	if s.sharedInteger(e) {
		refcount = math.MaxInt32
	}
	payload := rdb.DumpPayload(objToRDB(e), rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Limits: s.rdbLimits()})
	serLen := 0
	if len(payload) > 11 {
		serLen = len(payload) - 11 // minus type byte, RDB version, CRC-64
	}
	lru := e.lru()
	idle := s.lruClock - lru
	if s.lruClock < lru {
		idle = s.lruClock + (lruMask - lru)
	}
	ptr := uintptr(e.ptr)
	if ptr == 0 {
		ptr = uintptr(0xdead0000) // empty strings share no storage
	}
	line := fmt.Sprintf("Value at:0x%x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
		ptr, refcount, enc, serLen, lru, idle)
	if e.typ() == typList {
		line += quicklistInfo(payload, objLength(e), s.cfg.ListMaxListpackSize, s.cfg.ListCompressDepth)
	}
	c.status(line)
}

// quicklistInfo derives Redis's " ql_nodes:... ql_uncompressed_size:..."
// suffix from the value's RDB_TYPE_LIST_QUICKLIST_2 serialization, whose
// node split is the one Redis would make.
func quicklistInfo(payload []byte, count, fill, compress int) string {
	p := payload
	if len(p) < 1 {
		return ""
	}
	p = p[1:] // type byte
	nodes, p, ok := rdbLen(p)
	if !ok || nodes == 0 {
		return ""
	}
	var size uint64
	for i := uint64(0); i < nodes; i++ {
		if _, p, ok = rdbLen(p); !ok { // container
			return ""
		}
		if len(p) > 0 && p[0] == 0xC3 { // LZF: clen, ulen, data
			var clen, ulen uint64
			if clen, p, ok = rdbLen(p[1:]); !ok {
				return ""
			}
			if ulen, p, ok = rdbLen(p); !ok || uint64(len(p)) < clen {
				return ""
			}
			size += ulen
			p = p[clen:]
			continue
		}
		var l uint64
		if l, p, ok = rdbLen(p); !ok || uint64(len(p)) < l {
			return ""
		}
		size += l
		p = p[l:]
	}
	return fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
		nodes, float64(count)/float64(nodes), fill, b2i(compress != 0), size)
}

// rdbLen decodes one RDB length (not the special string encodings).
func rdbLen(p []byte) (uint64, []byte, bool) {
	if len(p) == 0 {
		return 0, p, false
	}
	switch p[0] >> 6 {
	case 0:
		return uint64(p[0] & 0x3f), p[1:], true
	case 1:
		if len(p) < 2 {
			return 0, p, false
		}
		return uint64(p[0]&0x3f)<<8 | uint64(p[1]), p[2:], true
	case 2:
		if p[0] == 0x80 && len(p) >= 5 {
			return uint64(p[1])<<24 | uint64(p[2])<<16 | uint64(p[3])<<8 | uint64(p[4]), p[5:], true
		}
		if p[0] == 0x81 && len(p) >= 9 {
			var v uint64
			for _, b := range p[1:9] {
				v = v<<8 | uint64(b)
			}
			return v, p[9:], true
		}
	}
	return 0, p, false
}

// debugPopulate is DEBUG POPULATE count [prefix] [size]: string keys
// "<prefix>:<n>" = "value:<n>" (zero-padded or cut to size), skipping
// existing keys, not propagated.
func debugPopulate(c *client, argv [][]byte) {
	s := c.srv
	count, ok := parsePositiveLong(c, argv[2])
	if !ok {
		return
	}
	prefix := "key"
	if len(argv) >= 4 {
		prefix = string(argv[3])
	}
	size := int64(0)
	if len(argv) == 5 {
		if size, ok = parsePositiveLong(c, argv[4]); !ok {
			return
		}
	}
	var kb, vb []byte
	for j := int64(0); j < count; j++ {
		kb = append(kb[:0], prefix...)
		kb = append(kb, ':')
		kb = strconv.AppendInt(kb, j, 10)
		if len(kb) > 127 { // Redis formats into a 128-byte buffer
			kb = kb[:127]
		}
		if s.lookupWrite(c, kb) != nil {
			continue
		}
		vb = append(vb[:0], "value:"...)
		vb = strconv.AppendInt(vb, j, 10)
		var val []byte
		if size == 0 {
			val = cloneBytes(vb)
		} else {
			val = make([]byte, size)
			copy(val, vb)
		}
		s.addKey(c.db, kb, newStringEntryOwned(val))
		s.signalModifiedKey(c.db, kb)
	}
	c.ok()
}

// parsePositiveLong is Redis's getPositiveLongFromObjectOrReply (one
// message for both a non-integer and a negative value).
func parsePositiveLong(c *client, b []byte) (int64, bool) {
	v, ok := parseInt(b)
	if !ok || v < 0 {
		c.err("ERR value is out of range, must be positive")
		return 0, false
	}
	return v, true
}

// cStrtod parses the longest float prefix of b like C's strtod (0 when
// there is none).
func cStrtod(b []byte) float64 {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	if len(s) > 64 {
		s = s[:64]
	}
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil || isRangeErr(err) {
			if strings.ContainsAny(s[:end], "_xXpP") {
				continue // Go-only syntax (underscores, hex floats)
			}
			return f
		}
	}
	return 0
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// cAtoi is C's atoi: optional sign and leading digits, 0 otherwise.
func cAtoi(b []byte) int64 {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' && j < 19 {
		j++
	}
	v, _ := strconv.ParseInt(s[:j], 10, 64)
	return v
}

// debugHelp is Redis 7.0.15's text as the installed (jemalloc) build
// prints it, MALLCTL lines included, though MALLCTL itself is not served.
var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"AOF-FLUSH-SLEEP <microsec>",
	"    Server will sleep before flushing the AOF, this is used for testing.",
	"ASSERT",
	"    Crash by assertion failed.",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"CONFIG-REWRITE-FORCE-ALL",
	"    Like CONFIG REWRITE but writes all configuration options, including",
	"    keywords not listed in original configuration file or default values.",
	"CRASH-AND-RECOVER [<milliseconds>]",
	"    Hard crash and restart after a <milliseconds> delay (default 0).",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LEAK <string>",
	"    Create a memory leak of the input string.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"HTSTATS <dbid>",
	"    Return hash table statistics of the specified Redis database.",
	"HTSTATS-KEY <key>",
	"    Like HTSTATS but for the hash table stored at <key>'s value.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"REPLICATE <string>",
	"    Replicates the provided string to replicas, allowing data divergence.",
	"MALLCTL <key> [<val>]",
	"    Get or set a malloc tuning integer.",
	"MALLCTL-STR <key> [<val>]",
	"    Get or set a malloc tuning string.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"DROP-CLUSTER-PACKET-FILTER <packet-type>",
	"    Drop all packets that match the filtered type. Set to -1 allow all packets.",
	"OOM",
	"    Crash the server simulating an out-of-memory error.",
	"PANIC",
	"    Crash the server simulating a panic.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"RESTART [<milliseconds>]",
	"    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
	"SDSLEN <key>",
	"    Show low level SDS string info representing `key` and value.",
	"SEGFAULT",
	"    Crash the server with sigsegv.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"STRUCTSIZE",
	"    Return the size of different Redis core C structures.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
	"CLIENT-EVICTION",
	"    Show low level client eviction pools info (maxmemory-clients).",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"CLUSTERLINK KILL <to|from|all> <node-id>",
	"    Kills the link based on the direction to/from (both) with the provided node.",
	"HELP",
	"    Prints this help.",
}

// debugProtocol is DEBUG PROTOCOL <type>: one reply of each RESP3 type (the
// sample values of Redis's debug.c), in its RESP2 form for a RESP2 client.
func debugProtocol(c *client, name string) {
	switch name {
	case "string":
		c.bulkString("Hello World")
	case "integer":
		c.integer(12345)
	case "double":
		c.double(3.141)
	case "bignum":
		const big = "1234567999999999999999999999999999999"
		if c.resp == 3 {
			c.addReplyString("(" + big + "\r\n")
		} else {
			c.bulkString(big)
		}
	case "null":
		c.nullBulk()
	case "array", "set":
		if name == "set" {
			c.setLen(3)
		} else {
			c.arrayLen(3)
		}
		for j := 0; j < 3; j++ {
			c.integer(int64(j))
		}
	case "map":
		c.mapLen(3)
		for j := 0; j < 3; j++ {
			c.integer(int64(j))
			c.boolean(j == 1)
		}
	case "attrib":
		if c.resp >= 3 {
			c.addReplyString("|1\r\n")
			c.bulkString("key-popularity")
			c.arrayLen(2)
			c.bulkString("key:123")
			c.integer(90)
		}
		c.bulkString("Some real reply following the attribute")
	case "push":
		if c.resp < 3 {
			c.err("ERR RESP2 is not supported by this command")
			return
		}
		c.pushLen(2)
		c.bulkString("server-cpu-usage")
		c.integer(42)
		c.bulkString("Some real reply following the push reply")
	case "true":
		c.boolean(true)
	case "false":
		c.boolean(false)
	case "verbatim":
		c.verbatim("txt", []byte("This is a verbatim\nstring"))
	default:
		c.err("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

// debugPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD <memory>, Redis's
// quicklistisSetPackedThreshold: 0 restores 1 GB, and nothing above 4 GB
// minus 1 MB is taken. Elements are kept whole whatever the threshold; it
// decides the node layout that DUMP, RDB files and DEBUG OBJECT show.
func debugPackedThreshold(c *client, arg []byte) {
	sz, ok := config.ParseMemory(string(arg))
	if !ok || sz > 1<<32-1<<20 {
		c.err("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
		return
	}
	c.srv.listPackedThreshold = int(sz)
	c.ok()
}
