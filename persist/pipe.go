package persist

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
)

// The byte pipe from a snapshot walk to the snapshot writer: the walk
// encodes under the server's lock into a Stage (memory the executor owns),
// moves each step's Batch to the Pipe outside it (so the executor never
// meets the pipe's lock or wakes its reader), and the feeder goroutine
// streams the batches to the child process (or, for a diskless transfer,
// to the replicas' sockets). In an RDB stream the walk does not encode
// plain strings: it stages a reference to their immutable bytes (a ref),
// and the feeder encodes them, off the executor, and writes the checksum.

// Stage collects the encoder's many small writes under the executor, and
// the string values whose encoding is left to the feeder (refs).
type Stage struct {
	buf      []byte
	refs     []ref
	refBytes int // the refs' key and value bytes
}

// ref is a string key whose record the feeder encodes, off the executor:
// at is where it goes among the staged bytes. Only plain (non-raw)
// strings are deferred: their bytes are never changed in place (APPEND,
// SETRANGE, SETBIT and HLL writes copy them into a raw string first), so
// the slice still holds the value of the snapshot's instant when the
// feeder reads it, whatever the executor did meanwhile, and it keeps that
// value alive until then. Encoding is most of a step's work: the key and
// value bytes are cold in the cache and are copied, checked for integers
// and perhaps compressed.
type ref struct {
	at     int
	key    string
	val    []byte
	expire int64
}

// Batch is what one step staged: bytes, with the refs to put among them;
// size counts both (as Stage.Size did when it was taken).
type Batch struct {
	raw  []byte
	refs []ref
	size int
}

func (st *Stage) Write(p []byte) (int, error) {
	st.buf = append(st.buf, p...)
	return len(p), nil
}

// Ref stages the string key=val (expire: its unix time in ms, -1 none) for
// the feeder to encode. key and val must stay unchanged until the feeder
// is done with them (see ref); the pipe must encode refs (DeferStrings).
func (st *Stage) Ref(key string, val []byte, expire int64) {
	st.refs = append(st.refs, ref{at: len(st.buf), key: key, val: val, expire: expire})
	st.refBytes += len(key) + len(val) + 16
}

// Take returns the staged batch and stages into spare from now on.
func (st *Stage) Take(spare Batch) Batch {
	b := Batch{raw: st.buf, refs: st.refs, size: st.Size()}
	st.buf, st.refs, st.refBytes = spare.raw[:0], spare.refs[:0], 0
	return b
}

// Size is how many bytes are staged, refs counted at their raw size.
func (st *Stage) Size() int { return len(st.buf) + st.refBytes }

// Pipe is the queue of batches between the executor (producer) and the
// goroutine that feeds the child process, which encodes the refs. The
// feeder is woken once a batch of bytes has gathered (or at the end), not
// per walk step: each wake-up is a context switch on a machine the save
// already keeps busy. Batches the feeder is done with come back to the
// producer through Put, for reuse.
type Pipe struct {
	mu      sync.Mutex
	cond    *sync.Cond
	batches []Batch
	size    int
	free    []Batch
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

// feedBatch is how many queued bytes wake the feeder (well below the
// walk's high water mark, so the walker never waits for a feeder still
// asleep).
const feedBatch = 256 << 10

// feedChunk is the most the feeder renders before writing to the child.
const feedChunk = 256 << 10

// NewPipe returns an empty pipe.
func NewPipe() *Pipe {
	q := &Pipe{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// DeferStrings makes the feeder encode the staged refs with opt; with
// patchCRC the producer's stream ends with a zero checksum, which the
// feeder replaces with the CRC-64 of the bytes it sent. Before any Put.
func (q *Pipe) DeferStrings(opt rdb.EncoderOptions, patchCRC bool) {
	q.refEnc = rdb.NewEncoder(&q.refOut, opt)
	q.patchCRC = patchCRC
}

// Put queues b and returns a used batch to stage into next (or an empty
// one).
func (q *Pipe) Put(b Batch) Batch {
	q.mu.Lock()
	defer q.mu.Unlock()
	var spare Batch
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
	if had < feedBatch && q.size >= feedBatch {
		q.cond.Signal()
	}
	return spare
}

// Pending is how many bytes are queued.
func (q *Pipe) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.size
}

// Close ends the stream: the feeder returns once it sent what is queued.
func (q *Pipe) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Fail fails the stream with err (the first error is kept): what is
// queued is dropped, and the feeder and a waiting producer wake.
func (q *Pipe) Fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.batches, q.size = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Err is the error the stream failed with, or nil.
func (q *Pipe) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// next blocks until batches are queued and takes them; ok=false at end.
// done are the batches of the previous call, kept for reuse.
func (q *Pipe) next(done []Batch) ([]Batch, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Up to 64 batches are kept: about what the queue holds at its high
	// water. With 8, the walker grew new refs arrays for most steps: 31 MB
	// of garbage for a 1M-key save, and as no GC cycle runs during one, as
	// much peak RSS.
	for i := range done {
		if len(q.free) < 64 && cap(done[i].raw) <= 1<<20 {
			clear(done[i].refs) // drop the values they kept alive
			q.free = append(q.free, Batch{raw: done[i].raw[:0], refs: done[i].refs[:0]})
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

// WaitBelow blocks until fewer than n bytes are queued (back-pressure for
// the walker) or the pipe failed.
func (q *Pipe) WaitBelow(n int) {
	q.mu.Lock()
	for q.size >= n && q.err == nil {
		q.cond.Wait()
	}
	q.mu.Unlock()
}

// Feed writes the stream to w until its end: the batches' bytes with the
// refs encoded among them and, with patchCRC, the checksum in place of the
// zero one the producer's encoder ended with (the last 8 bytes are held
// back until the end for that). It returns the first write error; a
// failed pipe is the caller's to report (Err). A ref cannot fail to
// encode (a string has no invalid form).
func (q *Pipe) Feed(w io.Writer) error {
	var done []Batch
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
	if q.Err() == nil && q.patchCRC {
		if len(out) != 8 {
			return fmt.Errorf("snapshot stream ended without its checksum (%d bytes held)", len(out))
		}
		_, err := w.Write(binary.LittleEndian.AppendUint64(out[:0], crc))
		return err
	}
	return nil
}

// feedAll is Feed for a job's feeder: a write error fails the pipe (which
// stops the walk), and the error returned is the write's or else the
// pipe's. w is closed at the end, which ends the writer's input.
func (q *Pipe) feedAll(w io.WriteCloser) error {
	ferr := q.Feed(w)
	if ferr != nil {
		q.Fail(ferr)
	}
	if err := q.Err(); err != nil && ferr == nil {
		ferr = err
	}
	w.Close()
	return ferr
}

// render appends the bytes of batches, refs encoded, to out.
func (q *Pipe) render(out []byte, batches []Batch) []byte {
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
