package server

import (
	"errors"
	"sync"
	"time"

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
// this runs under Server.mu; the encoded bytes are staged in memory owned
// by the executor and moved to the queue after each step, outside it (so
// the executor never meets the queue's lock or wakes its reader), then
// streamed to the child process by another goroutine.
type snapshot struct {
	s     *Server
	mark  bool
	enc   snapEncoder
	out   *snapQueue
	stage snapStage // encoded, not yet queued (under Server.mu)

	dbIdx   int
	cursor  uint64
	started bool // walk of dbIdx has begun (SELECTDB emitted for it)
	curDB   int  // DB of the last SELECTDB written, -1 none
	sizes   []uint64
	expires []uint64

	detached []*detachedDB
	walkDone bool
	aborted  bool
	keys     int64
	total    int64
	keyDelay time.Duration
	err      error
	val      rdb.Value // reused for string values
	keyBuf   []byte
}

type detachedDB struct {
	id      int
	keys    *dict[entry]
	expires *dict[int64]
	cursor  uint64
}

// snapStage collects the encoder's many small writes under the executor.
type snapStage struct{ buf []byte }

func (st *snapStage) Write(p []byte) (int, error) {
	st.buf = append(st.buf, p...)
	return len(p), nil
}

// take returns the staged bytes and stages into spare from now on.
func (st *snapStage) take(spare []byte) []byte {
	b := st.buf
	st.buf = spare[:0]
	return b
}

// snapQueue is the byte queue between the executor (producer) and the
// goroutine that feeds the child process. The feeder is woken once a batch
// has gathered (or at the end), not per walk step: each wake-up is a
// context switch on a machine the save already keeps busy.
type snapQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
	err    error
}

// snapFeedBatch is how many queued bytes wake the feeder (well below
// walkHighWater, so the walker never waits for a feeder still asleep).
const snapFeedBatch = 256 << 10

func newSnapQueue() *snapQueue {
	q := &snapQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *snapQueue) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return 0, q.err
	}
	had := len(q.buf)
	q.buf = append(q.buf, p...)
	if had < snapFeedBatch && len(q.buf) >= snapFeedBatch {
		q.cond.Signal()
	}
	return len(p), nil
}

func (q *snapQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf)
}

func (q *snapQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *snapQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.buf = nil
	q.cond.Broadcast()
	q.mu.Unlock()
}

// next blocks until bytes are available and takes them; ok=false at end.
func (q *snapQueue) next(spare []byte) ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 && !q.closed && q.err == nil {
		q.cond.Wait()
	}
	if q.err != nil || (len(q.buf) == 0 && q.closed) {
		return nil, false
	}
	b := q.buf
	q.buf = spare[:0]
	q.cond.Broadcast()
	return b, true
}

// waitBelow blocks until fewer than n bytes are queued (back-pressure for
// the walker) or the queue failed.
func (q *snapQueue) waitBelow(n int) {
	q.mu.Lock()
	for len(q.buf) >= n && q.err == nil {
		q.cond.Wait()
	}
	q.mu.Unlock()
}

var errSnapshotAborted = errors.New("snapshot aborted")

// startSnapshot begins a point-in-time snapshot (under mu). aofBase selects
// the AOF-base aux field.
func (s *Server) startSnapshot(aofBase bool) *snapshot {
	s.snapParity = !s.snapParity
	sn := &snapshot{s: s, mark: s.snapParity, out: newSnapQueue(), curDB: -1}
	sn.enc = s.newBaseEncoder(&sn.stage, aofBase)
	sn.sizes = make([]uint64, len(s.dbs))
	sn.expires = make([]uint64, len(s.dbs))
	for i, db := range s.dbs {
		sn.sizes[i] = uint64(db.size())
		sn.expires[i] = uint64(db.expires.Len())
		sn.total += int64(db.size())
	}
	sn.keyDelay = time.Duration(s.cfg.RDBKeySaveDelay) * time.Microsecond
	sn.enc.Header(rdb.StandardAux(time.Now().Unix(), s.usedMemory(), aofBase))
	s.writeFunctions(sn.enc) // the libraries of this instant, before the keys
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
	}
}

func (sn *snapshot) visited(e entry) bool { return e.snapMark() == sn.mark }

func (sn *snapshot) markNew(e *entry) { e.setSnapMark(sn.mark) }

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
	sn.encode(db.id, key, *p, db.expireAt(key))
}

func (sn *snapshot) encode(dbID int, key string, e entry, expire int64) {
	sn.selectDB(dbID)
	// Strings (most keys) are encoded without allocating: the encoder
	// copies what it needs before Key returns.
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
					sn.encode(db.id, k, *p, db.expireAt(k))
				}
			}
		})
		if cur == 0 {
			return
		}
	}
}

// step advances the walk by at most budget keys. It returns true when the
// whole keyspace was visited (then the encoder is closed).
func (sn *snapshot) step(budget int) bool {
	s := sn.s
	n := 0
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
						sn.encode(d.id, k, *p, exp)
					}
				}
			})
			if d.cursor == 0 {
				sn.detached = sn.detached[1:]
			}
			continue
		}
		if sn.dbIdx >= len(s.dbs) {
			sn.finish()
			return true
		}
		db := s.dbs[sn.dbIdx]
		sn.cursor = db.keys.Scan(sn.cursor, func(k string, p *entry) {
			if !sn.visited(*p) {
				p.setSnapMark(sn.mark)
				n++
				if !sn.aborted {
					sn.encode(db.id, k, *p, db.expireAt(k))
				}
			}
		})
		if sn.cursor == 0 {
			sn.dbIdx++
		}
		if sn.keyDelay > 0 && n > 0 {
			break
		}
		n++ // count empty buckets too, so that a step is always bounded
	}
	return false
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
		sn.out.Write(sn.stage.take(nil))
	}
	sn.out.close()
	if sn.s.snap == sn {
		sn.s.snap = nil
	}
}

// abort stops writing; the walk continues (without encoding) so that the
// mark invariant is restored before the next snapshot.
func (sn *snapshot) abort(err error) {
	sn.aborted = true
	sn.stage.take(nil)
	sn.out.fail(err)
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
func (s *Server) walk(sn *snapshot) {
	var spare []byte
	for {
		sn.out.waitBelow(walkHighWater)
		var done bool
		done, spare = s.walkOnce(sn, spare, 0)
		if done {
			return
		}
		if sn.keyDelay > 0 {
			time.Sleep(sn.keyDelay)
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
func (s *Server) walkOnce(sn *snapshot, spare []byte, budget time.Duration) (bool, []byte) {
	s.mu.Lock()
	t0 := monoNow()
	done := sn.step(walkStep)
	for !done && sn.keyDelay == 0 && monoNow()-t0 < int64(budget) && len(sn.stage.buf) < walkHighWater/4 {
		done = sn.step(walkStep)
	}
	chunk := sn.stage.take(spare)
	// The longest a client can wait for the save: LATENCY shows a step
	// that took latency-monitor-threshold or longer.
	s.latency.maybeAdd("snapshot-step", time.Duration(monoNow()-t0), s.cfg.LatencyMonitorThreshold)
	s.mu.Unlock()
	if len(chunk) > 0 && !done {
		sn.out.Write(chunk)
	}
	return done, chunk
}
