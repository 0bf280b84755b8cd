package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
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
// streamed to the child process by another goroutine, the feeder. In an
// RDB stream the walk does not encode plain strings (most keys): it stages
// a reference to their immutable bytes (snapRef), and the feeder encodes
// them, off the executor, and writes the checksum. With that the loop's
// share of a 1M-key BGREWRITEAOF under 50 writing clients fell from
// 1.03-1.18 s to 0.65-0.75 s, and the save from 1.6-1.9 s to 1.1-1.2 s
// (3 runs each).
type snapshot struct {
	s     *Server
	mark  bool
	enc   snapEncoder
	out   *snapQueue
	stage snapStage // encoded, not yet queued (under Server.mu)
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

// snapStage collects the encoder's many small writes under the executor,
// and the string values whose encoding is left to the feeder (refs).
type snapStage struct {
	buf      []byte
	refs     []snapRef
	refBytes int // the refs' key and value bytes
}

// snapRef is a string key whose record the feeder goroutine encodes, off
// the executor: at is where it goes among the staged bytes. Only plain
// (non-raw) strings are deferred: their bytes are never changed in place
// (APPEND, SETRANGE, SETBIT and HLL writes copy them into a raw string
// first), so the slice still holds the value of the snapshot's instant
// when the feeder reads it, whatever the executor did meanwhile, and it
// keeps that value alive until then. Encoding is most of a step's work:
// the key and value bytes are cold in the cache and are copied, checked
// for integers and perhaps compressed.
type snapRef struct {
	at     int
	key    string
	val    []byte
	expire int64
}

// snapBatch is what one step staged: bytes, with the refs to put among
// them; size counts both (as snapStage.size did when it was taken).
type snapBatch struct {
	raw  []byte
	refs []snapRef
	size int
}

func (st *snapStage) Write(p []byte) (int, error) {
	st.buf = append(st.buf, p...)
	return len(p), nil
}

// take returns the staged batch and stages into spare from now on.
func (st *snapStage) take(spare snapBatch) snapBatch {
	b := snapBatch{raw: st.buf, refs: st.refs, size: st.size()}
	st.buf, st.refs, st.refBytes = spare.raw[:0], spare.refs[:0], 0
	return b
}

func (st *snapStage) size() int { return len(st.buf) + st.refBytes }

// snapQueue is the queue of batches between the executor (producer) and
// the goroutine that feeds the child process, which encodes the refs. The
// feeder is woken once a batch of bytes has gathered (or at the end), not
// per walk step: each wake-up is a context switch on a machine the save
// already keeps busy. Batches the feeder is done with come back to the
// producer through put, for reuse.
type snapQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	batches []snapBatch
	size    int
	free    []snapBatch
	closed  bool
	err     error

	// refEnc encodes the refs (nil: there are none, a RESP base). With
	// patchCRC the stream's producer wrote a zero checksum, and the feeder
	// puts the CRC-64 of the bytes it sent in its place: only it sees
	// them in their final order.
	refEnc   *rdb.Encoder
	refOut   refSink
	refVal   rdb.Value
	patchCRC bool
}

// refSink is the writer refEnc appends a ref's record through.
type refSink struct{ b []byte }

func (w *refSink) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// snapFeedBatch is how many queued bytes wake the feeder (well below
// walkHighWater, so the walker never waits for a feeder still asleep).
const snapFeedBatch = 256 << 10

// feedChunk is the most the feeder renders before writing to the child.
const feedChunk = 256 << 10

func newSnapQueue() *snapQueue {
	q := &snapQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// put queues b and returns a used batch to stage into next (or an empty
// one).
func (q *snapQueue) put(b snapBatch) snapBatch {
	q.mu.Lock()
	defer q.mu.Unlock()
	var spare snapBatch
	if n := len(q.free); n > 0 {
		spare = q.free[n-1]
		q.free = q.free[:n-1]
	}
	if q.err != nil || (len(b.raw) == 0 && len(b.refs) == 0) {
		return spare
	}
	had := q.size
	q.batches = append(q.batches, b)
	q.size += b.size
	if had < snapFeedBatch && q.size >= snapFeedBatch {
		q.cond.Signal()
	}
	return spare
}

func (q *snapQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.size
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
	q.batches, q.size = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
}

// next blocks until batches are queued and takes them; ok=false at end.
// done are the batches of the previous call, kept for reuse.
func (q *snapQueue) next(done []snapBatch) ([]snapBatch, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Up to 64 batches are kept: about what the queue holds at its high
	// water. With 8, the walker grew new refs arrays for most steps: 31 MB
	// of garbage for a 1M-key save, and as no GC cycle runs during one, as
	// much peak RSS.
	for i := range done {
		if len(q.free) < 64 && cap(done[i].raw) <= 1<<20 {
			clear(done[i].refs) // drop the values they kept alive
			q.free = append(q.free, snapBatch{raw: done[i].raw[:0], refs: done[i].refs[:0]})
		}
	}
	for len(q.batches) == 0 && !q.closed && q.err == nil {
		q.cond.Wait()
	}
	if q.err != nil || (len(q.batches) == 0 && q.closed) {
		return nil, false
	}
	b := q.batches
	q.batches, q.size = done[:0], 0
	q.cond.Broadcast()
	return b, true
}

// waitBelow blocks until fewer than n bytes are queued (back-pressure for
// the walker) or the queue failed.
func (q *snapQueue) waitBelow(n int) {
	q.mu.Lock()
	for q.size >= n && q.err == nil {
		q.cond.Wait()
	}
	q.mu.Unlock()
}

// feed writes the stream to w until its end: the batches' bytes with the
// refs encoded among them and, with patchCRC, the checksum in place of the
// zero one the producer's encoder ended with (the last 8 bytes are held
// back until the end for that). It returns the first write error; a
// failed queue is the caller's to report. A ref cannot fail to encode (a
// string has no invalid form).
func (q *snapQueue) feed(w io.Writer) error {
	var done []snapBatch
	// out is reused for the whole stream and written whenever it passes
	// feedChunk, rather than grown to all that was queued: garbage made
	// during a save stays until it ends (no GC cycle runs), in the RSS.
	out := make([]byte, 0, 2*feedChunk)
	var crc uint64
	send := func() error {
		n := len(out)
		if q.patchCRC {
			n -= 8 // the last 8 bytes may be the checksum to patch
		}
		if n <= 0 {
			return nil
		}
		if _, err := w.Write(out[:n]); err != nil {
			return err
		}
		if q.patchCRC {
			crc = rdb.CRC64(crc, out[:n])
		}
		out = out[:copy(out, out[n:])]
		return nil
	}
	for {
		batches, ok := q.next(done)
		if !ok {
			break
		}
		done = batches
		if q.refEnc == nil && !q.patchCRC && len(out) == 0 && len(batches) == 1 {
			if _, err := w.Write(batches[0].raw); err != nil {
				return err
			}
			continue
		}
		for i := range batches {
			out = q.render(out, batches[i:i+1])
			if len(out) >= feedChunk {
				if err := send(); err != nil {
					return err
				}
			}
		}
		if err := send(); err != nil {
			return err
		}
	}
	q.mu.Lock()
	clean := q.err == nil
	q.mu.Unlock()
	if clean && q.patchCRC {
		if len(out) != 8 {
			return fmt.Errorf("snapshot stream ended without its checksum (%d bytes held)", len(out))
		}
		_, err := w.Write(binary.LittleEndian.AppendUint64(out[:0], crc))
		return err
	}
	return nil
}

// render appends the bytes of batches, refs encoded, to out.
func (q *snapQueue) render(out []byte, batches []snapBatch) []byte {
	for i := range batches {
		b := &batches[i]
		prev := 0
		for j := range b.refs {
			r := &b.refs[j]
			out = append(out, b.raw[prev:r.at]...)
			prev = r.at
			q.refOut.b = out
			q.refVal = rdb.Value{Kind: rdb.KindString, Str: r.val} // reused: no allocation a key
			// The encoder only reads the key, and copies it before Key
			// returns.
			q.refEnc.Key(unsafe.Slice(unsafe.StringData(r.key), len(r.key)), &q.refVal, r.expire)
			out = q.refOut.b
		}
		out = append(out, b.raw[prev:]...)
	}
	return out
}

var errSnapshotAborted = errors.New("snapshot aborted")

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
	sn := &snapshot{s: s, mark: s.snapParity, out: newSnapQueue(), curDB: -1}
	if aofBase && !s.cfg.AOFUseRDBPreamble {
		sn.enc = s.newBaseEncoder(&sn.stage, aofBase) // RESP: all encoded here
	} else {
		// RDB: plain strings are left to the feeder (snapRef), which
		// also writes the checksum.
		opt := rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Limits: s.rdbLimits()}
		sn.enc = rdb.NewEncoder(&sn.stage, opt)
		sn.out.refEnc = rdb.NewEncoder(&sn.out.refOut, opt)
		sn.out.patchCRC = s.cfg.RDBChecksum
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
		ListPackedThreshold:    s.listPackedThreshold,
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
	before := sn.stage.size()
	sn.encode(db.id, key, *p, db.expireAt(key), false)
	sn.copiedOnWrite(sn.stage.size() - before)
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
func (sn *snapshot) encode(dbID int, key string, e entry, expire int64, nodeKey bool) {
	sn.selectDB(dbID)
	if nodeKey && sn.deferStrings && e.typ() == typString && e.rawString() == nil {
		val := e.str()
		sn.stage.refs = append(sn.stage.refs, snapRef{at: len(sn.stage.buf), key: key, val: val, expire: expire})
		sn.stage.refBytes += len(key) + len(val) + 16
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
					before := sn.stage.size()
					sn.encode(db.id, k, *p, db.expireAt(k), true)
					sn.copiedOnWrite(sn.stage.size() - before)
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
		sn.out.put(sn.stage.take(snapBatch{}))
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
	sn.stage.take(snapBatch{})
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
// With rdb-key-save-delay it sleeps that long per key written, as Redis's
// child does; an aborted walk only restores marks, and does not sleep.
func (s *Server) walk(sn *snapshot) {
	var spare snapBatch
	for {
		sn.out.waitBelow(walkHighWater)
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
func (s *Server) walkOnce(sn *snapshot, spare snapBatch, budget time.Duration) (bool, snapBatch, int) {
	s.mu.Lock()
	t0 := monoNow()
	done := sn.step(walkStep)
	for !done && (sn.keyDelay == 0 || sn.aborted) && monoNow()-t0 < int64(budget) && sn.stage.size() < walkHighWater/4 {
		done = sn.step(walkStep)
	}
	delayed := sn.delayKeys
	sn.delayKeys = 0
	chunk := sn.stage.take(spare)
	// The longest a client can wait for the save: LATENCY shows a step
	// that took latency-monitor-threshold or longer.
	s.latency.maybeAdd("snapshot-step", time.Duration(monoNow()-t0), s.cfg.LatencyMonitorThreshold)
	s.mu.Unlock()
	if done {
		return true, snapBatch{}, 0 // finish queued the rest
	}
	return false, sn.out.put(chunk), delayed
}
