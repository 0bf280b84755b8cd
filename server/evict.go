package server

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"time"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/evict"
	"github.com/aofserver/aofserver/memsize"
)

// Eviction: Redis 7.0's evict.c (performEvictions, the 16-entry eviction
// pool, LFU counters) on top of a memory figure of our own.
//
// What "used memory" is. Redis compares zmalloc's exact count of allocated
// bytes with maxmemory before every command. The Go heap has no such
// count: HeapAlloc includes garbage until the next GC (so it swings
// between the live heap and twice that, and deleting a key lowers it only
// after a GC), and reading it (ReadMemStats) stops the world. Eviction
// needs a figure that drops as soon as a key is deleted, or it would evict
// everything. So used_memory is an estimate kept up to date on every
// write, in O(1) per command:
//
//	used = memStartup                        fixed: runtime, Lua, tables
//	     + Σ dbs: keys × memKeyNode          dict node + bucket per key
//	            + volatile keys × memExpNode  expires node, key copy
//	            + db.memBytes                 key and value allocations
//
// db.memBytes is maintained at the keyspace's choke points (addKey, setKey,
// removeKey, emptyDB, swapDBs) and, for values modified in place, by
// lookupWrite recording the key and settling the difference after the
// command (memSettle). A key or string costs its allocation as the heap
// holds it (allocSize: size class and span share); a collection's cost is
// measured (objMemUsage, O(n), as creating or freeing it is) when it is
// created and whenever its length has doubled or halved since it was last
// measured; in between it is scaled by its length, so a collection's
// figure is amortized O(1) per element and misses only same-length
// changes (a bigger value under an existing hash field). The cost charged
// for a collection is stored in its entry (the length bits strings use), so
// removing a key subtracts exactly what was added and the sum cannot
// drift. After an RDB load (which bypasses the hooks) the sum is recounted.
//
// Client buffers, the AOF buffer and the snapshot's copies are not counted
// (Redis does not count the AOF buffer or a fork child either).
//
// The Go heap really holds this dataset plus garbage: with GOGC=100 the
// process would grow to about twice maxmemory before a GC. So when
// maxmemory is set (and GOMEMLIMIT is not) the runtime's soft memory limit
// is set a margin above it (memLimitFor), and the GC works harder instead.
// A test binary hosts many servers, so it is left alone there.

const (
	memStartup = 900 * 1024 // Redis 7.0.15's used_memory at start-up is ~870K
	memKeyNode = 48         // dictNode[entry] (40) + its bucket share
	memExpNode = 56         // dictNode[int64] (32) + bucket + the key copy
)

// The policies, as package evict's (cmd_keys.go's OBJECT FREQ/IDLETIME
// read them by these names).
const (
	evFlagLRU     = evict.FlagLRU
	evFlagLFU     = evict.FlagLFU
	evFlagAllkeys = evict.FlagAllkeys
	evVolatileTTL = evict.VolatileTTL
	evNoEviction  = evict.NoEviction
)

// performEvictions results.
const (
	evictOK      = iota // under the limit, or evicting is not possible now
	evictRunning        // over, still evicting (in the background)
	evictFail           // over, nothing left to evict
)

type evictState struct {
	policyName string // cfg string the cached policy was parsed from
	policy     evict.Policy

	pool    evict.Pool
	samples []*dict.Node[entry]
	expSamp []*dict.Node[int64]
	nextDB  int

	// procRunning: an eviction goroutine continues a cycle that ran out of
	// time (Redis's evictionTimeProc).
	procRunning bool
	// exceeded: total/current_eviction_exceeded_time.
	exceeded evict.Exceeded
	// preCommandOOM: the last command found memory full with nothing to
	// evict (scripts check it, as server.pre_command_oom_state).
	preCommandOOM bool

	// touched lists keys lookupWrite handed out for in-place changes; their
	// bytes live in touchedKeys so that a record outlives argv.
	touched     []memTouch
	touchedKeys []byte

	vpool valuePool // evicted and overwritten values' buffers, for new ones

	peak       int64     // used_memory_peak
	loadSeen   time.Time // persist.loadStart last recounted after
	memLimit   int64     // maxmemory the runtime limit was set for
	limitOwned bool      // we set debug.SetMemoryLimit
}

type memTouch struct {
	db          *DB
	off, n      int
	pre         int64 // cost charged before the change
	preLen      int   // collection length before the change
	settledOrGo bool  // already settled (the key was removed or replaced)
}

// ---------------------------------------------------------------------------
// Cost of a key.

// Collections keep the cost charged for them in meta's low 32 bits (strings
// keep their length there): [0,27) cost in 16-byte units, [27,32) the bit
// length of the element count when last measured.
const (
	collCostBits  = 27
	collCostMask  = 1<<collCostBits - 1
	collLenShift  = collCostBits
	collCostUnit  = 16
	collExactUpTo = 32 // collections this small are always measured
)

// valueCost is what e is charged: its length for a string (raw or not, so
// that PFCOUNT's switch to raw changes nothing), the stored figure for a
// collection.
func valueCost(e entry) int64 {
	if e.typ() == typString {
		return memsize.GoAlloc(len(e.str()))
	}
	return int64(e.meta&collCostMask) * collCostUnit
}

// setCollCost stores cost (and the length it was measured at, if
// measured) in a collection entry.
func setCollCost(e *entry, cost int64, measuredLen int, measured bool) int64 {
	u := (cost + collCostUnit - 1) / collCostUnit
	if u > collCostMask {
		u = collCostMask
	}
	lenBits := (e.meta >> collLenShift) & 31
	if measured {
		lenBits = uint64(bits.Len(uint(measuredLen)))
		if lenBits > 31 {
			lenBits = 31
		}
	}
	e.meta = e.meta&^metaLenMask | uint64(u) | lenBits<<collLenShift
	return u * collCostUnit
}

// chargeNew sets a new value's cost (measuring a collection) and returns it.
func chargeNew(e *entry) int64 {
	if e.typ() == typString {
		return valueCost(*e)
	}
	n := objLength(*e)
	return setCollCost(e, objMemUsage(*e), n, true)
}

// recharge re-costs a collection changed in place from preLen elements
// charged pre bytes: measured when small or when its length moved by a
// factor of two since the last measure, scaled by length otherwise.
func recharge(e *entry, pre int64, preLen int) int64 {
	if e.typ() == typString {
		return valueCost(*e)
	}
	n := objLength(*e)
	m := int((e.meta >> collLenShift) & 31)
	if l := bits.Len(uint(n)); n <= collExactUpTo || l >= m+2 || l <= m-2 || preLen == 0 {
		return setCollCost(e, objMemUsage(*e), n, true)
	}
	return setCollCost(e, pre+int64(n-preLen)*pre/int64(preLen), 0, false)
}

// memAdd charges a key being added with value *e.
func (s *Server) memAdd(db *DB, key []byte, e *entry) {
	db.memBytes += memsize.GoAlloc(len(key)) + chargeNew(e)
	s.memTouchNew(db, key, *e)
}

// memReplace charges value *v replacing old under an existing key.
func (s *Server) memReplace(db *DB, key []byte, old entry, v *entry) {
	if len(s.ev.touched) > 0 {
		s.memSettleKey(db, bstr(key), &old)
	}
	db.memBytes += chargeNew(v) - valueCost(old)
	s.memTouchNew(db, key, *v)
}

// memTouchNew records a value just stored that the command may still
// change in place (PFADD and SETBIT fill what they created): raw strings
// and collections.
func (s *Server) memTouchNew(db *DB, key []byte, e entry) {
	if e.typ() != typString || e.rawString() != nil {
		s.memTouch(db, key, &e)
	}
}

// memRemove uncharges a key removed with value old.
func (s *Server) memRemove(db *DB, key string, old entry) {
	if len(s.ev.touched) > 0 {
		s.memSettleKey(db, key, &old)
	}
	db.memBytes -= memsize.GoAlloc(len(key)) + valueCost(old)
}

// memTouch records that the value at p (key in db) may change in place.
func (s *Server) memTouch(db *DB, key []byte, p *entry) {
	ev := &s.ev
	for i := range ev.touched {
		t := &ev.touched[i]
		if t.db == db && !t.settledOrGo && string(ev.touchedKeys[t.off:t.off+t.n]) == bstr(key) {
			return
		}
	}
	off := len(ev.touchedKeys)
	ev.touchedKeys = append(ev.touchedKeys, key...)
	t := memTouch{db: db, off: off, n: len(key), pre: valueCost(*p)}
	if p.typ() != typString {
		t.preLen = objLength(*p)
	}
	ev.touched = append(ev.touched, t)
}

// memSettleKey settles a pending in-place change of key before its value
// cur is replaced or removed, updating cur to carry its new cost.
func (s *Server) memSettleKey(db *DB, key string, cur *entry) {
	ev := &s.ev
	for i := range ev.touched {
		t := &ev.touched[i]
		if t.db != db || t.settledOrGo || string(ev.touchedKeys[t.off:t.off+t.n]) != key {
			continue
		}
		t.settledOrGo = true
		db.memBytes += recharge(cur, t.pre, t.preLen) - t.pre
		return
	}
}

// memSettle charges the in-place changes of the keys lookupWrite handed out
// (after each command, and before memory is looked at).
func (s *Server) memSettle() {
	ev := &s.ev
	for i := range ev.touched {
		t := &ev.touched[i]
		if t.settledOrGo {
			continue
		}
		if p := t.db.keys.GetPtr(bstr(ev.touchedKeys[t.off : t.off+t.n])); p != nil {
			db := t.db
			db.memBytes += recharge(p, t.pre, t.preLen) - t.pre
		}
	}
	ev.touched = ev.touched[:0]
	ev.touchedKeys = ev.touchedKeys[:0]
}

// memRecount recharges every key (after an RDB load, which stores keys
// without the hooks).
func (s *Server) memRecount() {
	s.memSettle()
	for _, db := range s.dbs {
		var n int64
		db.keys.Range(func(k string, e *entry) bool {
			n += memsize.GoAlloc(len(k)) + chargeNew(e)
			return true
		})
		db.memBytes = n
	}
	s.ev.loadSeen = s.persist.loadStart
}

// datasetMemory is the dataset part of used memory (used_memory_dataset).
func (s *Server) datasetMemory() int64 {
	if !s.loading && !s.persist.loadStart.Equal(s.ev.loadSeen) {
		s.memRecount()
	} else if len(s.ev.touched) > 0 {
		s.memSettle()
	}
	var n int64
	for _, db := range s.dbs {
		n += db.memBytes + int64(db.keys.Len())*memKeyNode + int64(db.expires.Len())*memExpNode
	}
	return n
}

// usedMemoryEstimate is used_memory: what maxmemory is compared with.
func (s *Server) usedMemoryEstimate() int64 { return memStartup + s.datasetMemory() }

// datasetBytes is used_memory_dataset: the keys' and values' bytes
// without the tables' nodes.
func (s *Server) datasetBytes() int64 {
	s.datasetMemory() // settles
	var n int64
	for _, db := range s.dbs {
		n += db.memBytes
	}
	return n
}

// usedMemoryPeak is used_memory_peak, raised to used.
func (s *Server) usedMemoryPeak(used int64) int64 {
	s.ev.peak = max(s.ev.peak, used)
	return s.ev.peak
}

// ---------------------------------------------------------------------------
// LRU and LFU fields (the entry's 24-bit clock).

func (s *Server) evictPolicy() evict.Policy {
	if s.cfg.MaxMemoryPolicy != s.ev.policyName {
		s.ev.policyName = s.cfg.MaxMemoryPolicy
		s.ev.policy = evict.ParsePolicy(s.ev.policyName)
	}
	return s.ev.policy
}

// lfuDecrAndReturn is LFUDecrAndReturn for e's clock.
func (s *Server) lfuDecrAndReturn(e entry) uint32 {
	return evict.LFUDecr(e.lru(), s.cfg.LFUDecayTime)
}

// touchAccess updates the clock of a value being accessed (Redis's
// lookupKey: updateLFU under an LFU policy, else the LRU clock).
func (s *Server) touchAccess(e *entry) {
	if s.evictPolicy()&evFlagLFU != 0 {
		e.setLRU(evict.LFUAccess(e.lru(), s.cfg.LFULogFactor, s.cfg.LFUDecayTime))
		return
	}
	e.setLRU(s.lruClock)
}

// initAccess sets the clock of a new value (createObject).
func (s *Server) initAccess(e *entry) {
	if s.evictPolicy()&evFlagLFU != 0 {
		e.setLRU(evict.LFUTimeInMinutes()<<8 | evict.LFUInitVal)
		return
	}
	e.setLRU(s.lruClock)
}

// inheritAccess sets the clock of a value replacing old: Redis's setKey
// looks the old value up for writing (an access), and under LFU the new
// value keeps its counter (dbSetValue).
func (s *Server) inheritAccess(v, old *entry) {
	if s.evictPolicy()&evFlagLFU != 0 {
		v.setLRU(old.lru())
		s.touchAccess(v)
		return
	}
	v.setLRU(s.lruClock)
}

// estimateIdleTime is estimateObjectIdleTime, in ms.
func (s *Server) estimateIdleTime(e entry) uint64 { return evict.IdleTime(s.lruClock, e.lru()) }

// setLRUOrLFU is objectSetLRUOrLFU (RESTORE ... IDLETIME/FREQ): which of
// the two applies depends on the policy.
func (s *Server) setLRUOrLFU(db *DB, key []byte, lfuFreq, lruIdle int64) {
	p := db.keys.GetPtr(bstr(key))
	if p == nil {
		return
	}
	pol := s.evictPolicy()
	if lfuFreq >= 0 {
		if pol&evFlagLFU != 0 {
			p.setLRU(evict.LFUTimeInMinutes()<<8 | uint32(min(lfuFreq, 255)))
		}
		return
	}
	if lruIdle >= 0 && pol&evFlagLFU == 0 {
		abs := int64(s.lruClock) - lruIdle
		if abs < 0 {
			// A wrapped clock: half-way round keeps the idle time high.
			abs = (int64(s.lruClock) + lruMask/2) % lruMask
		}
		p.setLRU(uint32(abs))
	}
}

// ---------------------------------------------------------------------------
// Eviction.

// evictionPoolPopulate samples maxmemory-samples keys of one DB (of its
// expires for volatile-*) into the pool, ordered by idle (best last).
func (s *Server) evictionPoolPopulate(db *DB, pol evict.Policy) {
	ev := &s.ev
	n := max(s.cfg.MaxMemorySamples, 1)
	if pol&evFlagAllkeys != 0 {
		if len(ev.samples) < n {
			ev.samples = make([]*dict.Node[entry], n)
		}
		nodes := ev.samples[:n]
		for _, nd := range nodes[:db.keys.SomeKeys(nodes, rand.Uint64)] {
			ev.pool.Insert(evict.Score(pol, s.lruClock, nd.Val.lru(), s.cfg.LFUDecayTime, 0), nd.Key, db.id)
		}
		return
	}
	if len(ev.expSamp) < n {
		ev.expSamp = make([]*dict.Node[int64], n)
	}
	nodes := ev.expSamp[:n]
	for _, nd := range nodes[:db.expires.SomeKeys(nodes, rand.Uint64)] {
		var e entry
		if pol != evVolatileTTL {
			p := db.keys.GetPtr(nd.Key)
			if p == nil {
				continue
			}
			e = *p
		}
		ev.pool.Insert(evict.Score(pol, s.lruClock, e.lru(), s.cfg.LFUDecayTime, nd.Val), nd.Key, db.id)
	}
}

// evictionAllowed is isSafeToPerformEvictions.
func (s *Server) evictionAllowed() bool {
	if s.loading || s.lendingRun() != nil {
		return false
	}
	if !s.pausedUntil.IsZero() && time.Now().Before(s.pausedUntil) || s.failoverPaused() {
		return false // paused clients: the dataset stays as it is
	}
	return true
}

// performEvictions is Redis's: before a command, evict until used memory
// is back under maxmemory, for at most the tenacity's time; an eviction
// goroutine continues what is left. Called with s.mu held.
func (s *Server) performEvictions() int { return s.performEvictionsFrom(false) }

func (s *Server) performEvictionsFrom(proc bool) int {
	s.applyMemoryLimit()
	if s.cfg.MaxMemory <= 0 || !s.evictionAllowed() {
		return evictOK
	}
	ev := &s.ev
	result := evictFail
	used := s.usedMemoryEstimate()
	ev.peak = max(ev.peak, used)
	if used <= s.cfg.MaxMemory {
		result = evictOK
	} else if s.evictPolicy() != evNoEviction {
		t0 := monoNow()
		result = s.evictCycle(used - s.cfg.MaxMemory)
		s.latency.maybeAdd("eviction-cycle", time.Duration(monoNow()-t0), s.cfg.LatencyMonitorThreshold)
		if result == evictRunning && !proc {
			s.startEvictionProc()
		}
		if result == evictOK && ev.procRunning && !proc {
			result = evictRunning
		}
	}
	ev.exceeded.Mark(result != evictOK, monoNow())
	return result
}

// evictCycle evicts until toFree bytes are freed (evictOK), nothing is
// left (evictFail) or the time is up (evictRunning).
func (s *Server) evictCycle(toFree int64) int {
	ev := &s.ev
	pol := s.evictPolicy()
	limit := evict.TimeLimit(s.cfg.MaxMemoryEvictionTenacity)
	start := monoNow()
	var freed int64
	keysFreed := 0
	exists := func(key []byte, dbid int) bool {
		db := s.dbs[dbid]
		if pol&evFlagAllkeys != 0 {
			_, found := db.keys.Get(bstr(key))
			return found
		}
		_, found := db.expires.Get(bstr(key))
		return found
	}
	for freed < toFree {
		var bestDB *DB
		var bestKey []byte
		if pol.Pooled() {
			for bestKey == nil {
				total := 0
				// Sample every DB: no local choices.
				for _, db := range s.dbs {
					d := db.keys.Len()
					if pol&evFlagAllkeys == 0 {
						d = db.expires.Len()
					}
					if d > 0 {
						s.evictionPoolPopulate(db, pol)
						total += d
					}
				}
				if total == 0 {
					break
				}
				// Best first; ghosts are dropped. The key's buffer is
				// reused only by the next populate.
				if key, dbid, ok := ev.pool.Pop(exists); ok {
					bestDB, bestKey = s.dbs[dbid], key
				}
			}
		} else if pol == evict.AllkeysRandom || pol == evict.VolatileRandom {
			// One DB after the other, a random key of each.
			for range s.dbs {
				ev.nextDB = (ev.nextDB + 1) % len(s.dbs)
				db := s.dbs[ev.nextDB]
				var k string
				var ok bool
				if pol == evict.AllkeysRandom {
					k, _, ok = db.keys.RandomKey(nil)
				} else {
					k, _, ok = db.expires.RandomKey(nil)
				}
				if ok {
					bestDB, bestKey = db, []byte(k)
					break
				}
			}
		}
		if bestKey == nil {
			return evictFail
		}
		before := s.usedMemoryEstimate()
		s.evictKey(bestDB, bestKey)
		freed += before - s.usedMemoryEstimate()
		keysFreed++
		if keysFreed%16 == 0 && time.Duration(monoNow()-start) > limit {
			return evictRunning
		}
	}
	return evictOK
}

// evictKey deletes one key as an eviction: evicted_keys, the "evicted"
// event, WATCH, and DEL (UNLINK under lazyfree-lazy-eviction) propagated
// on its own.
func (s *Server) evictKey(db *DB, key []byte) {
	k := cloneBytes(key)
	t0 := monoNow()
	s.beforeModify(db, bstr(k))
	if old, ok := s.removeKeyValue(db, bstr(k)); ok {
		s.freeValue(old, s.cfg.LazyfreeLazyEviction)
		s.recycleValue(old)
	}
	s.latency.maybeAdd("eviction-del", time.Duration(monoNow()-t0), s.cfg.LatencyMonitorThreshold)
	s.stats.evictedKeys++
	s.signalModifiedKey(db, k)
	s.notify(notifyEvicted, "evicted", k, db.id)
	cmd := "DEL"
	if s.cfg.LazyfreeLazyEviction {
		cmd = "UNLINK"
	}
	s.propagate(db.id, [][]byte{[]byte(cmd), k})
}

// startEvictionProc continues an eviction cycle that ran out of time on a
// goroutine of its own, a cycle at a time with commands let in between,
// until memory is under the limit or nothing is left (Redis's
// evictionTimeProc).
func (s *Server) startEvictionProc() {
	if s.ev.procRunning {
		return
	}
	s.ev.procRunning = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			// Commands waiting for the executor go first.
			for i := 0; i < 20 && s.muWanted.Load() > 0; i++ {
				time.Sleep(20 * time.Microsecond)
			}
			s.mu.Lock()
			r := evictRunning // paused or loading: try again later
			select {
			case <-s.closing:
				r = evictOK
			default:
				if s.evictionAllowed() {
					r = s.performEvictionsFrom(true)
				}
			}
			if r != evictRunning {
				s.ev.procRunning = false
			}
			if s.aof != nil {
				s.aof.KickPending() // the DELs of this cycle
			}
			s.mu.Unlock()
			if r != evictRunning {
				return
			}
			runtime.Gosched()
		}
	}()
}

// ---------------------------------------------------------------------------
// The runtime's memory limit.

// memLimitFor is the Go soft memory limit for a maxmemory m: the heap may
// exceed the dataset by a tenth and 2.5 MB, or by m/64 and 7.75 MB when
// that is more (below ~62 MB). Below the limit sit the live heap
// (used_memory, which charges each allocation its span share, allocSize),
// the runtime's own memory (~6 MB whatever m: metadata 2.7, the profiling
// bucket table 1.4, stacks, the live heap that is not the dataset) and span
// fragmentation (1-2 MB); what is left is the room for garbage, and a
// cache that recycles its evicted values (valuePool) makes little. Where
// that room runs out there is a cliff: the GC runs back to back (~400
// cycles a run of TestEvictZipfCacheBench instead of ~8, 3.3-5 µs a
// command instead of ~1). The limit is ~1 MB above it: at 64 MB + 1.5 MB
// instead of 2.5 falls over, as did every m of 32 MB or less with a
// tenth and 2.5 MB (the fixed part does not shrink with m). Interleaved
// with redis-server (RSS, see docs/benchmarks.md): 64 MB 76.6 MB against
// 77.3, 256 MB 271 against 276, 32 MB 44.7 against 44.1, 16 MB 28.4
// against 27.7, 4 MB 15.4 against 15.2.
func memLimitFor(m int64) int64 {
	return m + max(m/10+5<<19, m/64+31<<18)
}

// applyMemoryLimit follows maxmemory with the runtime's soft limit when the
// server owns its process (OwnProcess: a test binary runs many servers in
// one runtime), unless GOMEMLIMIT says otherwise.
func (s *Server) applyMemoryLimit() {
	ev := &s.ev
	if ev.memLimit == s.cfg.MaxMemory {
		return
	}
	ev.memLimit = s.cfg.MaxMemory
	if !s.ownsProcess || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if s.cfg.MaxMemory > 0 {
		debug.SetMemoryLimit(memLimitFor(s.cfg.MaxMemory))
		ev.limitOwned = true
	} else if ev.limitOwned {
		debug.SetMemoryLimit(math.MaxInt64)
		ev.limitOwned = false
	}
}

// evictExceededTimes is total/current_eviction_exceeded_time in ms.
func (s *Server) evictExceededTimes() (total, current int64) { return s.ev.exceeded.Times(monoNow()) }

// A cache evicts a value for (about) every value it is given: without
// recycling, each evicted buffer is garbage until the next GC, and with
// the runtime's limit only a few MB above the live heap (memLimitFor) that
// garbage is what sets how often the GC runs. So evictKey (and setKey, for
// the value a write replaces) keeps the buffers of plain strings and SET's
// new values take them (Server.newString), like a malloc reusing a freed
// chunk. This is safe
// only while nothing else refers to the evicted bytes: entries are never
// shared between keys, replies copy, and only a snapshot's staged
// references (persist.Stage.Ref) and a replica's diskless transfer outlive a
// command, so nothing is recycled while one runs. Only buffers that
// newStringEntry made for the entry (metaOwnBit) are taken.
const (
	valPoolMin   = 128      // smaller values share their size classes with small objects
	valPoolMax   = 32 << 10 // the largest small size class
	valPoolBytes = 64 << 10 // kept at most, in all (not counted in used_memory)
)

// valuePool holds recycled value buffers by size class.
type valuePool struct {
	bufs  [len(memsize.GoClasses)][][]byte
	bytes int
}

// recycleValue keeps the buffer of a value gone from the keyspace (evicted or
// overwritten) for reuse, if it may.
func (s *Server) recycleValue(e entry) {
	if e.meta&(metaOwnBit|metaRawBit) != metaOwnBit || e.typ() != typString {
		return
	}
	n := int(e.meta & strLenMask)
	vp := &s.ev.vpool
	if n < valPoolMin || n > valPoolMax || vp.bytes+n > valPoolBytes || s.snap != nil || s.childActive() {
		return
	}
	i := memsize.GoClassIndex(n)
	vp.bufs[i] = append(vp.bufs[i], unsafe.Slice((*byte)(e.ptr), n))
	vp.bytes += n
}

// newString is newStringEntry on a recycled buffer of v's size class when
// there is one.
func (s *Server) newString(v []byte) entry {
	n := len(v)
	vp := &s.ev.vpool
	if vp.bytes == 0 || n < valPoolMin || n > valPoolMax {
		return newStringEntry(v)
	}
	i := memsize.GoClassIndex(n)
	bufs := vp.bufs[i]
	k := len(bufs) - 1
	if k < 0 || len(bufs[k]) < n {
		return newStringEntry(v)
	}
	b := bufs[k]
	bufs[k] = nil
	vp.bufs[i] = bufs[:k]
	vp.bytes -= len(b)
	copy(b, v)
	return entry{ptr: unsafe.Pointer(unsafe.SliceData(b)), meta: uint64(n) | uint64(typString)<<metaTypShift | metaOwnBit}
}
