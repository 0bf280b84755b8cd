package evict

import (
	"math"
	"math/rand/v2"
	"time"
)

// Policy is a maxmemory-policy, as Redis's MAXMEMORY_* values: flags,
// then an index.
type Policy int

const (
	FlagLRU     Policy = 1 << 0
	FlagLFU     Policy = 1 << 1
	FlagAllkeys Policy = 1 << 2

	VolatileLRU    Policy = 0<<8 | FlagLRU
	VolatileLFU    Policy = 1<<8 | FlagLFU
	VolatileTTL    Policy = 2 << 8
	VolatileRandom Policy = 3 << 8
	AllkeysLRU     Policy = 4<<8 | FlagLRU | FlagAllkeys
	AllkeysLFU     Policy = 5<<8 | FlagLFU | FlagAllkeys
	AllkeysRandom  Policy = 6<<8 | FlagAllkeys
	NoEviction     Policy = 7 << 8
)

// ParsePolicy maps a maxmemory-policy name to its Policy (noeviction for
// anything else).
func ParsePolicy(name string) Policy {
	switch name {
	case "volatile-lru":
		return VolatileLRU
	case "volatile-lfu":
		return VolatileLFU
	case "volatile-ttl":
		return VolatileTTL
	case "volatile-random":
		return VolatileRandom
	case "allkeys-lru":
		return AllkeysLRU
	case "allkeys-lfu":
		return AllkeysLFU
	case "allkeys-random":
		return AllkeysRandom
	}
	return NoEviction
}

// Pooled reports whether p picks its victims through the pool (LRU, LFU,
// TTL) rather than at random.
func (p Policy) Pooled() bool { return p&(FlagLRU|FlagLFU) != 0 || p == VolatileTTL }

const (
	PoolSize    = 16   // EVPOOL_SIZE
	LFUInitVal  = 5    // LFU_INIT_VAL
	LRUClockRes = 1000 // LRU_CLOCK_RESOLUTION, ms
	LRUMax      = 1<<24 - 1
)

// ---------------------------------------------------------------------------
// LRU and LFU fields (an object's 24-bit clock).

// LFUTimeInMinutes is LFUGetTimeInMinutes.
func LFUTimeInMinutes() uint32 { return uint32(time.Now().Unix()/60) & 65535 }

// lfuTimeElapsed is LFUTimeElapsed: minutes since ldt, wrapping once.
func lfuTimeElapsed(ldt uint32) uint32 {
	now := LFUTimeInMinutes()
	if now >= ldt {
		return now - ldt
	}
	return 65535 - ldt + now
}

// LFULogIncr is LFULogIncr: the counter grows with probability
// 1/((counter-LFU_INIT_VAL)*logFactor+1), saturating at 255.
func LFULogIncr(counter uint32, logFactor int) uint32 {
	if counter == 255 {
		return 255
	}
	r := rand.Float64()
	baseval := float64(counter) - LFUInitVal
	if baseval < 0 {
		baseval = 0
	}
	if r < 1.0/(baseval*float64(logFactor)+1) {
		counter++
	}
	return counter
}

// LFUDecr is LFUDecrAndReturn for an object's clock lru: the counter less
// one per decayTime minutes since it was last decremented (not stored).
func LFUDecr(lru uint32, decayTime int) uint32 {
	ldt := lru >> 8
	counter := lru & 255
	if decayTime > 0 {
		periods := lfuTimeElapsed(ldt) / uint32(decayTime)
		if periods > counter {
			return 0
		}
		counter -= periods
	}
	return counter
}

// LFUAccess is updateLFU: the clock of an object accessed now.
func LFUAccess(lru uint32, logFactor, decayTime int) uint32 {
	return LFUTimeInMinutes()<<8 | LFULogIncr(LFUDecr(lru, decayTime), logFactor)
}

// IdleTime is estimateObjectIdleTime, in ms, for an object's clock lru
// against the server's LRU clock now.
func IdleTime(now, lru uint32) uint64 {
	if now >= lru {
		return uint64(now-lru) * LRUClockRes
	}
	return uint64(now+(LRUMax-lru)) * LRUClockRes
}

// Score is the pool's "idle" of a candidate under p: higher evicts first
// (idle time, inverse frequency, or how soon the TTL, an absolute time in
// ms, ends).
func Score(p Policy, lruClock, lru uint32, decayTime int, ttl int64) uint64 {
	switch {
	case p&FlagLRU != 0:
		return IdleTime(lruClock, lru)
	case p&FlagLFU != 0:
		return 255 - uint64(LFUDecr(lru, decayTime))
	}
	return math.MaxUint64 - uint64(ttl)
}

// ---------------------------------------------------------------------------
// The eviction pool.

type poolEntry struct {
	idle uint64 // higher is a better candidate
	key  []byte // reused buffer; nil when the slot is empty
	buf  []byte
	dbid int
}

// Pool is the eviction pool: the best candidates seen so far, kept across
// cycles, sorted by score ascending (best last). Its key buffers are
// reused, so inserting allocates nothing once warm.
type Pool struct {
	e [PoolSize]poolEntry
}

// Insert puts a candidate in place; a full pool drops its worst entry, or
// the candidate if that is worse still.
func (p *Pool) Insert(idle uint64, key string, dbid int) {
	pool := &p.e
	k := 0
	for k < PoolSize && pool[k].key != nil && pool[k].idle < idle {
		k++
	}
	switch {
	case k == 0 && pool[PoolSize-1].key != nil:
		return
	case k < PoolSize && pool[k].key == nil:
		// an empty slot: nothing to shift
	case pool[PoolSize-1].key == nil:
		// Room on the right: shift k.. right, reusing the last buffer.
		buf := pool[PoolSize-1].buf
		copy(pool[k+1:], pool[k:PoolSize-1])
		pool[k].buf = buf
	default:
		// Full: drop the leftmost (worst) and insert at k-1.
		k--
		buf := pool[0].buf
		copy(pool[:k], pool[1:k+1])
		pool[k].buf = buf
	}
	pool[k].buf = append(pool[k].buf[:0], key...)
	pool[k].key = pool[k].buf
	pool[k].idle = idle
	pool[k].dbid = dbid
}

// Pop takes the best candidate for which exists holds, best first,
// dropping the ghosts (keys gone since they were sampled) on the way. The
// key returned is valid until the next Insert.
func (p *Pool) Pop(exists func(key []byte, dbid int) bool) (key []byte, dbid int, ok bool) {
	for k := PoolSize - 1; k >= 0; k-- {
		pe := &p.e[k]
		if pe.key == nil {
			continue
		}
		key, dbid = pe.key, pe.dbid
		pe.key, pe.idle = nil, 0
		if exists(key, dbid) {
			return key, dbid, true
		}
	}
	return nil, 0, false
}

// ---------------------------------------------------------------------------
// Time.

// TimeLimit is evictionTimeLimitUs: tenacity 0..10 is linear up to
// 500 µs, then 15% more per step; 100 is no limit.
func TimeLimit(tenacity int) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond
	}
	return time.Duration(math.MaxInt64)
}

// Exceeded accounts total/current_eviction_exceeded_time, on a monotonic
// clock in ns.
type Exceeded struct {
	at    int64         // when used memory last went over (0: under)
	total time.Duration // the closed periods
}

// Mark records whether memory is over the limit at time now.
func (x *Exceeded) Mark(over bool, now int64) {
	if over {
		if x.at == 0 {
			x.at = now
		}
	} else if x.at != 0 {
		x.total += time.Duration(now - x.at)
		x.at = 0
	}
}

// Times is total/current_eviction_exceeded_time in ms at time now.
func (x *Exceeded) Times(now int64) (total, current int64) {
	cur := time.Duration(0)
	if x.at != 0 {
		cur = time.Duration(now - x.at)
	}
	return (x.total + cur).Milliseconds(), cur.Milliseconds()
}
