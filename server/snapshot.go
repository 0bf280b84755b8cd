package server

import (
	"time"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
)

// A snapshot serializes the dataset as of one instant without fork and
// without a pause that grows with the data (used by BGSAVE and
// BGREWRITEAOF).
//
// How: every entry carries a mark bit. While no snapshot runs, all entries
// carry Server.snapParity. Starting a snapshot flips snapParity; from then
// on an entry is "visited" when its bit equals the new parity. Entries
// created during the snapshot get the new parity (they are not part of
// it). A walker visits the keyspace in small steps (bounded per hold of the
// executor) and encodes every unvisited entry; any write first passes
// through beforeModify/lookupWrite, which encodes the old value of an
// unvisited entry before it changes (Dragonfly-style). FLUSHDB/FLUSHALL
// hand the old tables to the snapshot instead of dropping them. All of
// this runs under Server.mu; the encoded bytes go through a persist.Pipe
// to the child process (persist's job). In an RDB stream the walk does not
// encode plain strings (most keys): it stages a reference to their
// immutable bytes (persist.Stage.Ref), and the pipe's feeder encodes them,
// off the executor, and writes the checksum. With that the loop's
// share of a 1M-key BGREWRITEAOF under 50 writing clients fell from
// 1.03-1.18 s to 0.65-0.75 s, and the save from 1.6-1.9 s to 1.1-1.2 s
// (3 runs each).
type snapshot struct {
	s     *Server
	mark  bool
	enc   persist.Encoder
	out   *persist.Pipe
	stage persist.Stage // encoded, not yet queued (under Server.mu)
	// deferStrings: plain string values are staged as refs, for the
	// feeder to encode (RDB streams only).
	deferStrings bool

	dbIdx   int
	cursor  uint64
	started bool // walk of dbIdx has begun (SELECTDB emitted for it)
	curDB   int  // DB of the last SELECTDB written, -1 none
	sizes   []uint64
	expires []uint64

	ahead    dict.ScanAhead // prefetching for the walk of dbs[dbIdx]
	detached []*detachedDB
	walkDone bool
	aborted  bool
	// delayKeys counts the keys written since the walker last slept
	// rdb-key-save-delay for them (keyDelay != 0 only).
	delayKeys int
	keys      int64
	total     int64
	cowBytes  int64     // copied before a write (copiedOnWrite)
	cowAt     time.Time // when cowBytes last grew
	keyDelay  time.Duration
	err       error
	val       rdb.Value // reused for string values
	keyBuf    []byte
}

type detachedDB struct {
	id      int
	keys    *dict.Dict[entry]
	expires *dict.Dict[int64]
	cursor  uint64
}

// startSnapshot begins a point-in-time snapshot (under mu). aofBase selects
// the AOF-base aux field.
func (s *Server) startSnapshot(aofBase bool) *snapshot {
	if old := s.snap; old != nil {
		// A failed job's walk is still restoring its marks: finish that
		// first (marking only, about 0.1 us a key), so that every entry
		// carries snapParity again before it flips.
		old.restoreMarks()
	}
	s.snapParity = !s.snapParity
	sn := &snapshot{s: s, mark: s.snapParity, out: persist.NewPipe(), curDB: -1}
	if aofBase && !s.cfg.AOFUseRDBPreamble {
		sn.enc = s.newBaseEncoder(&sn.stage, aofBase) // RESP: all encoded here
	} else {
		// RDB: plain strings are left to the feeder (Stage.Ref), which
		// also writes the checksum.
		opt := rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Limits: s.rdbLimits()}
		sn.enc = rdb.NewEncoder(&sn.stage, opt)
		sn.out.DeferStrings(opt, s.cfg.RDBChecksum)
		sn.deferStrings = true
	}
	sn.sizes = make([]uint64, len(s.dbs))
	sn.expires = make([]uint64, len(s.dbs))
	for i, db := range s.dbs {
		sn.sizes[i] = uint64(db.size())
		sn.expires[i] = uint64(db.expires.Len())
		sn.total += int64(db.size())
	}
	sn.keyDelay = time.Duration(s.cfg.RDBKeySaveDelay) * time.Microsecond // negative: see debugDelay
	sn.enc.Header(rdb.StandardAux(time.Now().Unix(), s.usedMemory(), aofBase))
	s.scripts().WriteFunctions(sn.enc) // the libraries of this instant, before the keys
	s.snap = sn
	return sn
}

func (s *Server) rdbLimits() rdb.Limits {
	return rdb.Limits{
		HashMaxListpackEntries: s.cfg.HashMaxListpackEntries,
		HashMaxListpackValue:   s.cfg.HashMaxListpackValue,
		ZSetMaxListpackEntries: s.cfg.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   s.cfg.ZSetMaxListpackValue,
		SetMaxIntsetEntries:    s.cfg.SetMaxIntsetEntries,
		ListMaxListpackSize:    s.cfg.ListMaxListpackSize,
		ListCompressDepth:      s.cfg.ListCompressDepth,
		ListPackedThreshold:    s.listPackedThreshold,
	}
}

func (sn *snapshot) visited(e entry) bool { return e.snapMark() == sn.mark }

func (sn *snapshot) selectDB(id int) {
	if sn.curDB != id {
		sn.enc.SelectDB(id, sn.sizes[id], sn.expires[id])
		sn.curDB = id
	}
}

// capture encodes key's current value (before a write changes it).
func (sn *snapshot) capture(db *DB, key string, p *entry) {
	p.setSnapMark(sn.mark)
	if sn.aborted {
		return
	}
	before := sn.stage.Size()
	sn.encode(db.id, key, *p, db.expireAt(key), false)
	sn.copiedOnWrite(sn.stage.Size() - before)
}

// copiedOnWrite counts n bytes the snapshot had to copy because a write
// came before the walk: our copy-on-write, which INFO reports where Redis
// reports the pages its child's fork copied (current_cow_size,
// rdb_last_cow_size, aof_last_cow_size).
func (sn *snapshot) copiedOnWrite(n int) {
	if n > 0 {
		sn.cowBytes += int64(n)
		sn.cowAt = time.Now()
	}
}

// encode writes one key, or stages it as a ref. nodeKey says key is the
// dict node's own string, which lives as long as the ref needs: a
// command's key (capture) may be a view of the client's input buffer.
// Only plain (non-raw) strings are staged as refs: their bytes are never
// changed in place (APPEND, SETRANGE, SETBIT and HLL writes copy them into
// a raw string first), as a ref needs.
func (sn *snapshot) encode(dbID int, key string, e entry, expire int64, nodeKey bool) {
	sn.selectDB(dbID)
	if nodeKey && sn.deferStrings && e.typ() == typString && e.rawString() == nil {
		sn.stage.Ref(key, e.str(), expire)
		sn.keys++
		return
	}
	// Strings are encoded without allocating: the encoder copies what it
	// needs before Key returns.
	v := &sn.val
	if e.typ() == typString {
		*v = rdb.Value{Kind: rdb.KindString, Str: e.str()}
	} else {
		v = objToRDB(e)
	}
	sn.keyBuf = append(sn.keyBuf[:0], key...)
	if err := sn.enc.Key(sn.keyBuf, v, expire); err != nil && sn.err == nil {
		sn.err = err
	}
	sn.keys++
}

// detachDB hands db's current tables to the snapshot (FLUSHDB/FLUSHALL):
// they still have to be written, but the server gets new empty ones.
func (sn *snapshot) detachDB(db *DB) {
	if db.keys.Len() == 0 {
		return
	}
	if sn.dbIdx > db.id {
		// Walk finished this DB: every remaining entry was written.
		return
	}
	sn.detached = append(sn.detached, &detachedDB{id: db.id, keys: db.keys, expires: db.expires})
	if sn.dbIdx == db.id {
		// The walker continues on the detached copy.
		sn.detached[len(sn.detached)-1].cursor = sn.cursor
		sn.dbIdx++
		sn.cursor = 0
	}
}

// drainDB writes every unvisited entry of db now (SWAPDB during a
// snapshot; rare, and bounded by that DB's size).
func (sn *snapshot) drainDB(db *DB) {
	var cur uint64
	for {
		cur = db.keys.Scan(cur, func(k string, p *entry) {
			if !sn.visited(*p) {
				p.setSnapMark(sn.mark)
				if !sn.aborted {
					before := sn.stage.Size()
					sn.encode(db.id, k, *p, db.expireAt(k), true)
					sn.copiedOnWrite(sn.stage.Size() - before)
				}
			}
		})
		if cur == 0 {
			return
		}
	}
}

// step advances the walk by at most budget keys (one bucket with
// rdb-key-save-delay, unless aborted). It returns true when the
// whole keyspace was visited (then the encoder is closed).
func (sn *snapshot) step(budget int) bool {
	s := sn.s
	n := 0
	written := 0 // keys encoded by this step, for rdb-key-save-delay
	defer func() { sn.delayKeys += written }()
	slow := sn.keyDelay != 0 && !sn.aborted
	for n < budget {
		if len(sn.detached) > 0 {
			d := sn.detached[0]
			d.cursor = d.keys.Scan(d.cursor, func(k string, p *entry) {
				if !sn.visited(*p) {
					p.setSnapMark(sn.mark)
					n++
					if !sn.aborted {
						exp := int64(-1)
						if t, ok := d.expires.Get(k); ok {
							exp = t
						}
						sn.encode(d.id, k, *p, exp, true)
						written++
					}
				}
			})
			if d.cursor == 0 {
				sn.detached = sn.detached[1:]
			}
		} else {
			if sn.dbIdx >= len(s.dbs) {
				sn.finish()
				return true
			}
			db := s.dbs[sn.dbIdx]
			db.keys.PrefetchScan(sn.cursor, &sn.ahead)
			sn.cursor = db.keys.Scan(sn.cursor, func(k string, p *entry) {
				if !sn.visited(*p) {
					p.setSnapMark(sn.mark)
					n++
					if !sn.aborted {
						sn.encode(db.id, k, *p, db.expireAt(k), true)
						written++
					}
				}
			})
			if sn.cursor == 0 {
				sn.dbIdx++
				sn.ahead = dict.ScanAhead{}
			}
		}
		if slow && written > 0 {
			break
		}
		n++ // count empty buckets too, so that a step is always bounded
	}
	return false
}

// restoreMarks completes an aborted walk at once (under mu).
func (sn *snapshot) restoreMarks() {
	for !sn.step(1 << 16) {
	}
}

func (sn *snapshot) finish() {
	if sn.walkDone {
		return
	}
	sn.walkDone = true
	if !sn.aborted {
		if err := sn.enc.Close(); err != nil && sn.err == nil {
			sn.err = err
		}
		sn.out.Put(sn.stage.Take(persist.Batch{}))
	}
	sn.out.Close()
	if sn.s.snap == sn {
		sn.s.snap = nil
	}
}

// Abort stops writing; the walk continues (without encoding) so that the
// mark invariant is restored before the next snapshot (under mu).
func (sn *snapshot) Abort(err error) {
	sn.aborted = true
	sn.stage.Take(persist.Batch{})
	sn.out.Fail(err)
}

// Pipe is where the walk's bytes go (persist.Snapshot).
func (sn *snapshot) Pipe() *persist.Pipe { return sn.out }

// Walk drives the walk to its end (persist.Snapshot; see runWalker).
func (sn *snapshot) Walk() { sn.s.runWalker(sn) }

// Status is the walk's progress (persist.Snapshot; under mu).
func (sn *snapshot) Status() persist.SnapStatus {
	return persist.SnapStatus{Keys: sn.keys, Total: sn.total, COWBytes: sn.cowBytes, COWAt: sn.cowAt, Err: sn.err}
}

// walkStep bounds the buckets one step visits (about 0.05 ms under load).
// walkLoopBudget is how long the network loop keeps stepping per iteration:
// under load each iteration serves the clients that are ready and then
// walks, and with one step an iteration a 1M-key BGREWRITEAOF took 2.6-3.3
// s, with throughput halved all along; with 0.5 ms steps it took 1.5-1.9 s
// and the requests over 5 ms fell by about a quarter (6 paired runs,
// scripts/bench_snapshot.sh), each request waiting at most that much
// longer. walkHighWater bounds the bytes queued for the child
// (back-pressure).
const (
	walkStep       = 128
	walkLoopBudget = 500 * time.Microsecond
	walkHighWater  = 4 << 20
)

// runWalker drives the walk to its end: on the network loop, between its
// iterations, when there is one (a walker goroutine holding the executor
// can be descheduled by the OS in the middle of a step, and every client
// waits for it); otherwise on the calling goroutine.
func (s *Server) runWalker(sn *snapshot) {
	if sn.keyDelay == 0 && s.walkOnLoop(sn) {
		return
	}
	s.walk(sn)
}

// walk is the walker goroutine: small steps, back-pressure from the
// child's pipe, and client batches waiting for the executor go first.
// With rdb-key-save-delay it sleeps that long per key written, as Redis's
// child does; an aborted walk only restores marks, and does not sleep.
func (s *Server) walk(sn *snapshot) {
	var spare persist.Batch
	for {
		sn.out.WaitBelow(walkHighWater)
		var done bool
		var delayed int
		done, spare, delayed = s.walkOnce(sn, spare, 0)
		if done {
			return
		}
		if sn.keyDelay != 0 {
			for range delayed {
				debugDelay(sn.keyDelay)
			}
			continue
		}
		// A mutex lets the unlocker take it straight back: without this
		// a client batch could wait out several steps.
		for i := 0; i < 20 && s.muWanted.Load() > 0; i++ {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// walkOnce runs steps under the executor for up to budget (at least one
// step; one only with rdb-key-save-delay) and queues their bytes outside
// it. spare is a buffer to stage into; the returned one is the next spare.
func (s *Server) walkOnce(sn *snapshot, spare persist.Batch, budget time.Duration) (bool, persist.Batch, int) {
	s.mu.Lock()
	t0 := monoNow()
	done := sn.step(walkStep)
	for !done && (sn.keyDelay == 0 || sn.aborted) && monoNow()-t0 < int64(budget) && sn.stage.Size() < walkHighWater/4 {
		done = sn.step(walkStep)
	}
	delayed := sn.delayKeys
	sn.delayKeys = 0
	chunk := sn.stage.Take(spare)
	// The longest a client can wait for the save: LATENCY shows a step
	// that took latency-monitor-threshold or longer.
	s.latency.maybeAdd("snapshot-step", time.Duration(monoNow()-t0), s.cfg.LatencyMonitorThreshold)
	s.mu.Unlock()
	if done {
		return true, persist.Batch{}, 0 // finish queued the rest
	}
	return false, sn.out.Put(chunk), delayed
}
