package server

import (
	"math"
	"strconv"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rstring"

	seam "github.com/aofserver/aofserver/command"
)

// The generic commands on whole databases, across databases or on the
// value representation (OBJECT); those on named keys of the client's
// database are command/keyscmd.

func init() {
	k := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "generic", summary: summary, since: since, acl: append([]string{"@keyspace"}, acl...)}
	}
	w, r := cmdWrite, cmdReadonly
	register(
		k("keys", 2, r, 0, 0, 0, keysCommand, "Find all keys matching the given pattern", "1.0.0", "@read", "@slow", "@dangerous"),
		// SCAN and RANDOMKEY log the keys they find expired as separate
		// DELs, never wrapped in MULTI/EXEC (expire.tcl).
		k("scan", -2, r|cmdTouchesArbitraryKeys, 0, 0, 0, scanCommand, "Incrementally iterate the keys space", "2.8.0", "@read", "@slow"),
		k("randomkey", 1, r|cmdTouchesArbitraryKeys, 0, 0, 0, randomkeyCommand, "Return a random key from the keyspace", "1.0.0", "@read", "@slow"),
		k("move", 3, w|cmdFast, 1, 1, 1, moveCommand, "Move a key to another database", "1.0.0", "@write", "@fast"),
		k("copy", -3, w|cmdDenyOOM, 1, 2, 1, copyCommand, "Copy a key", "6.2.0", "@write", "@slow"),
		k("swapdb", 3, w|cmdFast, 0, 0, 0, swapdbCommand, "Swaps two Redis databases", "4.0.0", "@write", "@fast", "@dangerous"),
		k("dbsize", 1, r|cmdFast, 0, 0, 0, dbsizeCommand, "Return the number of keys in the selected database", "1.0.0", "@read", "@fast"),
		k("flushdb", -1, w, 0, 0, 0, flushdbCommand, "Remove all keys from the current database", "1.0.0", "@write", "@slow", "@dangerous"),
		k("flushall", -1, w, 0, 0, 0, flushallCommand, "Remove all keys from all databases", "1.0.0", "@write", "@slow", "@dangerous"),
		k("object", -2, 0, 0, 0, 0, nil, "A container for object introspection commands", "2.2.3", "@slow"),
		k("object|encoding", 3, r, 2, 2, 1, objectEncodingCommand, "Inspect the internal encoding of a Redis object", "2.2.3", "@read", "@slow"),
		k("object|refcount", 3, r, 2, 2, 1, objectRefcountCommand, "Get the number of references to the value of the key", "2.2.3", "@read", "@slow"),
		k("object|idletime", 3, r, 2, 2, 1, objectIdletimeCommand, "Get the time since a Redis object was last accessed", "2.2.3", "@read", "@slow"),
		k("object|freq", 3, r, 2, 2, 1, objectFreqCommand, "Get the logarithmic access frequency counter of a Redis object", "4.0.0", "@read", "@slow"),
		k("object|help", 2, cmdLoading|cmdStale, 0, 0, 0, objectHelpCommand, "Show helpful text about the different subcommands", "6.2.0", "@slow"),
	)
}

// lookupReadNoTouch is lookupRead that leaves the LRU clock alone (Redis
// LOOKUP_NOTOUCH: EXISTS, TYPE, TTL, OBJECT, MEMORY USAGE). It sends no
// keymiss event (MEMORY USAGE does not); callers that do send it.
func (s *Server) lookupReadNoTouch(c *client, key []byte) (entry, bool) {
	db := c.db
	if s.expireIfNeeded(db, key) {
		s.stats.keyspaceMisses++
		return entry{}, false
	}
	e, ok := db.keys.Get(bstr(key))
	if !ok {
		s.stats.keyspaceMisses++
		return entry{}, false
	}
	s.stats.keyspaceHits++
	return e, true
}

// lookupReadNoTouchMiss is lookupReadNoTouch with the keymiss event
// (EXISTS, TYPE, TTL: LOOKUP_NOTOUCH without LOOKUP_NONOTIFY).
func (s *Server) lookupReadNoTouchMiss(c *client, key []byte) (entry, bool) {
	e, ok := s.lookupReadNoTouch(c, key)
	if !ok {
		s.keymiss(c, key)
	}
	return e, ok
}

// lookupReadNoStats is lookupRead without hit/miss accounting (EXISTS and
// TYPE use LOOKUP_NOTOUCH-like flags in Redis, but still expire).
func (s *Server) lookupReadNoStats(c *client, key []byte) (entry, bool) {
	if s.expireIfNeeded(c.db, key) {
		return entry{}, false
	}
	return c.db.keys.Get(bstr(key))
}

func keysCommand(c *client, argv [][]byte) {
	s := c.srv
	pat := argv[1]
	all := len(pat) == 1 && pat[0] == '*'
	now := s.nowMs()
	var keys []string
	c.db.keys.Range(func(k string, _ *entry) bool {
		if all || rstring.Match(pat, k, false) {
			if t := c.db.expireAt(k); t >= 0 && t <= now {
				return true
			}
			keys = append(keys, k)
		}
		return true
	})
	c.arrayLen(len(keys))
	for _, k := range keys {
		c.bulkString(k)
	}
}

func scanCommand(c *client, argv [][]byte) {
	s := c.srv
	cursor, ok := seam.ParseScanCursor(c, argv[1])
	if !ok {
		return
	}
	count := int64(10)
	var pat []byte
	var typ []byte
	for i := 2; i < len(argv); i += 2 {
		if i+1 >= len(argv) {
			c.errSyntax()
			return
		}
		switch {
		case eqFold(argv[i], "count"):
			n, ok := parseInt(argv[i+1])
			if !ok {
				c.errNotInt()
				return
			}
			if n < 1 {
				c.errSyntax()
				return
			}
			count = n
		case eqFold(argv[i], "match"):
			pat = argv[i+1]
			if len(pat) == 1 && pat[0] == '*' {
				pat = nil
			}
		case eqFold(argv[i], "type"):
			typ = argv[i+1]
		default:
			c.errSyntax()
			return
		}
	}
	var keys []string
	maxIter := count * 10
	for {
		cursor = c.db.keys.Scan(cursor, func(k string, _ *entry) {
			keys = append(keys, k)
		})
		maxIter--
		if cursor == 0 || maxIter <= 0 || int64(len(keys)) >= count {
			break
		}
	}
	out := keys[:0]
	for _, k := range keys {
		if pat != nil && !rstring.Match(pat, k, false) {
			continue
		}
		kb := []byte(k)
		if s.expireIfNeeded(c.db, kb) {
			continue
		}
		if typ != nil {
			e, ok := c.db.keys.Get(k)
			if !ok || !eqFold(typ, seam.Type(e.typ()).String()) {
				continue
			}
		}
		out = append(out, k)
	}
	c.arrayLen(2)
	c.bulkString(strconv.FormatUint(cursor, 10))
	c.arrayLen(len(out))
	for _, k := range out {
		c.bulkString(k)
	}
}

// randomkeyCommand is Redis 7.0's dbRandomKey: a fair pick (a key's
// chance does not depend on its bucket's chain), skipping expired keys.
func randomkeyCommand(c *client, argv [][]byte) {
	s := c.srv
	for tries := 0; tries < 100; tries++ {
		k, _, ok := c.db.keys.FairRandomKey(s.rnd)
		if !ok {
			break
		}
		if s.expireIfNeeded(c.db, []byte(k)) {
			continue
		}
		c.bulkString(k)
		return
	}
	if k, _, ok := c.db.keys.FairRandomKey(s.rnd); ok {
		c.bulkString(k)
		return
	}
	c.nullBulk()
}

// parseDBIndex parses a DB number; ok=false after replying.
func (s *Server) parseDBIndex(c *client, b []byte, outOfRange string) (int, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.errNotInt()
		return 0, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		// Redis's getIntFromObjectOrReply, before the DB is looked at.
		c.err("ERR value is out of range, value must between -2147483648 and 2147483647")
		return 0, false
	}
	if n < 0 || n >= int64(len(s.dbs)) {
		c.err(outOfRange)
		return 0, false
	}
	return int(n), true
}

func moveCommand(c *client, argv [][]byte) {
	s := c.srv
	id, ok := s.parseDBIndex(c, argv[2], "ERR DB index is out of range")
	if !ok {
		return
	}
	dst := s.dbs[id]
	if dst == c.db {
		c.err("ERR source and destination objects are the same")
		return
	}
	if !s.exists(c.db, argv[1]) {
		c.integer(0)
		return
	}
	if s.exists(dst, argv[1]) {
		c.integer(0)
		return
	}
	e, _ := c.db.keys.Get(bstr(argv[1]))
	when := c.db.expireAt(bstr(argv[1]))
	s.beforeModify(c.db, bstr(argv[1]))
	s.removeKey(c.db, bstr(argv[1]))
	s.addKey(dst, argv[1], e)
	if when >= 0 {
		s.setExpire(dst, argv[1], when)
	}
	s.signalModifiedKey(c.db, argv[1])
	s.signalModifiedKey(dst, argv[1])
	s.notify(notifyGeneric, "move_from", argv[1], c.db.id)
	s.notify(notifyGeneric, "move_to", argv[1], dst.id)
	s.dirty++
	c.integer(1)
}

func copyCommand(c *client, argv [][]byte) {
	s := c.srv
	dst := c.db
	replace := false
	for i := 3; i < len(argv); i++ {
		switch {
		case eqFold(argv[i], "replace"):
			replace = true
		case eqFold(argv[i], "db") && i+1 < len(argv):
			id, ok := s.parseDBIndex(c, argv[i+1], "ERR DB index is out of range")
			if !ok {
				return
			}
			dst = s.dbs[id]
			i++
		default:
			c.errSyntax()
			return
		}
	}
	if dst == c.db && string(argv[1]) == string(argv[2]) {
		c.err("ERR source and destination objects are the same")
		return
	}
	e, ok := s.lookupReadNoTouchMiss(c, argv[1])
	if !ok {
		c.integer(0)
		return
	}
	if s.exists(dst, argv[2]) {
		if !replace {
			c.integer(0)
			return
		}
		s.deleteKeyLazy(dst, argv[2], s.cfg.LazyfreeLazyServerDel)
	}
	when := c.db.expireAt(bstr(argv[1]))
	s.addKey(dst, argv[2], objClone(e))
	if when >= 0 {
		s.setExpire(dst, argv[2], when)
	}
	s.signalModifiedKey(dst, argv[2])
	s.notify(notifyGeneric, "copy_to", argv[2], dst.id)
	s.dirty++
	c.integer(1)
}

func swapdbCommand(c *client, argv [][]byte) {
	s := c.srv
	// getIntFromObjectOrReply with its own message: not an int either.
	a, ok := parseInt(argv[1])
	if !ok || a < math.MinInt32 || a > math.MaxInt32 {
		c.err("ERR invalid first DB index")
		return
	}
	b, ok := parseInt(argv[2])
	if !ok || b < math.MinInt32 || b > math.MaxInt32 {
		c.err("ERR invalid second DB index")
		return
	}
	if a < 0 || a >= int64(len(s.dbs)) || b < 0 || b >= int64(len(s.dbs)) {
		c.err("ERR DB index is out of range")
		return
	}
	if a != b {
		s.swapDBs(int(a), int(b))
	}
	s.dirty++
	c.ok()
}

// swapDBs exchanges the contents of two DBs; clients keep their index.
func (s *Server) swapDBs(a, b int) {
	if s.snap != nil {
		// The snapshot must see each DB's content under its old index:
		// write what it has not visited yet before swapping.
		s.snap.drainDB(s.dbs[a])
		s.snap.drainDB(s.dbs[b])
	}
	da, db := s.dbs[a], s.dbs[b]
	// A watched key is touched if it exists before or after the swap
	// (Redis touchAllWatchedKeysInDb(emptied, replaced_with)).
	s.touchAllWatched(da, db)
	s.touchAllWatched(db, da)
	// Clients blocked in a DB stay there: a stream they wait on may be
	// gone, a key they wait for may have come (Redis's
	// scanDatabaseForDeletedStreams and scanDatabaseForReadyKeys).
	s.signalBlockedKeys(da, true)
	s.signalBlockedKeys(db, true)
	s.memSettle() // records name a DB by its dicts
	da.keys, db.keys = db.keys, da.keys
	da.expires, db.expires = db.expires, da.expires
	da.memBytes, db.memBytes = db.memBytes, da.memBytes
	da.expireCursor, db.expireCursor = 0, 0
	s.signalBlockedKeys(da, false)
	s.signalBlockedKeys(db, false)
}

func dbsizeCommand(c *client, argv [][]byte) { c.integer(int64(c.db.size())) }

// parseFlushFlags is getFlushCommandFlags: SYNC or ASYNC, by default
// lazyfree-lazy-user-flush.
func parseFlushFlags(c *client, argv [][]byte) (async, ok bool) {
	switch {
	case len(argv) == 1:
		return c.srv.cfg.LazyfreeLazyUserFlush, true
	case len(argv) == 2 && eqFold(argv[1], "sync"):
		return false, true
	case len(argv) == 2 && eqFold(argv[1], "async"):
		return true, true
	}
	c.errSyntax()
	return false, false
}

func flushdbCommand(c *client, argv [][]byte) {
	async, ok := parseFlushFlags(c, argv)
	if !ok {
		return
	}
	s := c.srv
	n := s.emptyDB(c.db)
	s.flushedLazily(n, async)
	s.dirty += int64(n)
	s.trackingInvalidateKeysOnFlush()
	s.dirty++ // always propagated, even on an empty DB
	c.ok()
}

func flushallCommand(c *client, argv [][]byte) {
	async, ok := parseFlushFlags(c, argv)
	if !ok {
		return
	}
	s := c.srv
	n := 0
	for _, db := range s.dbs {
		n += s.emptyDB(db)
	}
	s.flushedLazily(n, async)
	s.dirty += int64(n)
	s.trackingInvalidateKeysOnFlush()
	s.persist.FlushallSave()
	s.dirty++
	// The save above resets dirty: without this an empty FLUSHALL with
	// save points would reach neither the AOF nor the log (as Redis).
	s.forceProp = true
	c.ok()
}

// emptyDB removes every key of db and returns how many there were.
func (s *Server) emptyDB(db *DB) int {
	n := db.size()
	if s.snap != nil {
		s.snap.detachDB(db)
	}
	s.touchAllWatched(db, nil)
	s.signalBlockedKeys(db, true) // XREADGROUP waiters: their streams are gone
	s.memSettle()
	db.keys = dict.New[entry](0)
	db.expires = dict.New[int64](0)
	db.expireCursor = 0
	db.memBytes = 0
	return n
}

func (s *Server) objectLookup(c *client, key []byte) (entry, bool) {
	if s.expireIfNeeded(c.db, key) {
		c.nullBulk()
		return entry{}, false
	}
	e, ok := c.db.keys.Get(bstr(key))
	if !ok {
		c.nullBulk()
	}
	return e, ok
}

func objectEncodingCommand(c *client, argv [][]byte) {
	if e, ok := c.srv.objectLookup(c, argv[2]); ok {
		c.bulkString(objEncoding(e))
	}
}

func objectRefcountCommand(c *client, argv [][]byte) {
	if e, ok := c.srv.objectLookup(c, argv[2]); ok {
		if c.srv.sharedInteger(e) {
			c.integer(math.MaxInt32) // OBJ_SHARED_REFCOUNT
			return
		}
		c.integer(1)
	}
}

// sharedInteger reports whether Redis would hold e as one of its shared
// integers 0..9999 (refcount INT_MAX): not a copy made by COPY, and not
// while maxmemory evicts by LRU/LFU, when Redis shares none (each key
// needs its own clock).
func (s *Server) sharedInteger(e entry) bool {
	if e.typ() != typString || e.meta&(metaUnsharedBit|metaRawBit) != 0 || stringEncoding(e) != "int" {
		return false
	}
	if s.cfg.MaxMemory != 0 && s.evictPolicy()&(evFlagLRU|evFlagLFU) != 0 {
		return false
	}
	v, _ := parseInt(e.str())
	return v >= 0 && v < 10000
}

func objectIdletimeCommand(c *client, argv [][]byte) {
	s := c.srv
	e, ok := s.objectLookup(c, argv[2])
	if !ok {
		return
	}
	if s.evictPolicy()&evFlagLFU != 0 {
		c.err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.integer(int64(s.estimateIdleTime(e) / 1000))
}

func objectFreqCommand(c *client, argv [][]byte) {
	s := c.srv
	e, ok := s.objectLookup(c, argv[2])
	if !ok {
		return
	}
	if s.evictPolicy()&evFlagLFU == 0 {
		c.err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.integer(int64(s.lfuDecrAndReturn(e)))
}

func objectHelpCommand(c *client, argv [][]byte) {
	lines := []string{
		"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
		"IDLETIME <key>",
		"    Return the idle time of the <key>, that is the approximated number of",
		"    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>",
		"    Return the number of references of the value associated with the specified",
		"    <key>.",
		"HELP",
		"    Prints this help.",
	}
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}
