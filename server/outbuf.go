package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/memsize"
	"github.com/aofserver/aofserver/pubsub"
)

// replyChunkSize is Redis's PROTO_REPLY_CHUNK_BYTES: asynchronous output
// (pub/sub, MONITOR, tracking pushes, replies behind them) is queued in
// chunks of this size, as Redis's reply list, so that a growing backlog
// never reallocates and copies itself (a doubling slice holds up to three
// times its content while it grows, and leaves the old arrays to the GC)
// and written chunks are reused instead of becoming garbage.
const replyChunkSize = 16 << 10

// maxWriteChunks bounds one writev of the push writer (1 MB): what it
// holds in flight stays counted in the output buffer until written.
const maxWriteChunks = 64

var replyChunkPool = sync.Pool{New: func() any { return new([replyChunkSize]byte) }}

// replyQueue is a client's asynchronous output (guarded by client.pushMu).
type replyQueue struct {
	chunks [][]byte // each backed by a pooled [replyChunkSize]byte
	// queued and inflight are the allocated bytes (chunks × 16 KB) queued
	// and handed to the writer: what getClientOutputBufferMemoryUsage
	// counts (Redis counts its reply blocks' allocated sizes too).
	queued   int64
	inflight int64
}

// mem is the queue's output buffer memory (Redis's omem).
func (q *replyQueue) mem() int64 { return q.queued + q.inflight }

func (q *replyQueue) empty() bool { return len(q.chunks) == 0 }

// pending is the bytes queued and not yet taken by the writer (chunks are
// filled in order and taken whole).
func (q *replyQueue) pending() int {
	n := len(q.chunks)
	if n == 0 {
		return 0
	}
	return (n-1)*replyChunkSize + len(q.chunks[n-1])
}

// write appends b, filling the last chunk first.
func (q *replyQueue) write(b []byte) {
	for len(b) > 0 {
		n := len(q.chunks)
		if n == 0 || len(q.chunks[n-1]) == replyChunkSize {
			q.chunks = append(q.chunks, replyChunkPool.Get().(*[replyChunkSize]byte)[:0])
			q.queued += replyChunkSize
			n++
		}
		last := q.chunks[n-1]
		k := copy(last[len(last):replyChunkSize], b)
		q.chunks[n-1] = last[:len(last)+k]
		b = b[k:]
	}
}

// take moves up to maxWriteChunks chunks to bufs for the writer; they stay
// counted (inflight) until done.
func (q *replyQueue) take(bufs [][]byte) [][]byte {
	n := min(len(q.chunks), maxWriteChunks)
	bufs = append(bufs, q.chunks[:n]...)
	k := copy(q.chunks, q.chunks[n:])
	clear(q.chunks[k:])
	q.chunks = q.chunks[:k]
	q.queued -= int64(n) * replyChunkSize
	q.inflight += int64(n) * replyChunkSize
	return bufs
}

// done is the writer returning what take gave it, of which released
// chunks left the in-flight count as they were written.
func (q *replyQueue) done(bufs [][]byte, released int) {
	q.inflight -= int64(len(bufs)-released) * replyChunkSize
	putChunks(bufs)
}

// reset drops what is queued (the client is being closed).
func (q *replyQueue) reset() {
	putChunks(q.chunks)
	q.chunks = nil
	q.queued = 0
}

// bytes copies what is queued (tests).
func (q *replyQueue) bytes() []byte {
	var b []byte
	for _, ch := range q.chunks {
		b = append(b, ch...)
	}
	return b
}

func putChunks(bufs [][]byte) {
	for i, ch := range bufs {
		replyChunkPool.Put((*[replyChunkSize]byte)(ch[:replyChunkSize]))
		bufs[i] = nil
	}
}

// obufClass is the client-output-buffer-limit class of c's output
// (getClientType for the purpose of the limits: MONITOR clients count as
// normal, masters too). Under pushMu or s.mu.
func (c *client) obufClass() int {
	if c.pubsubOut {
		return config.ClassPubSub
	}
	return config.ClassNormal
}

// obufLimitReached is Redis's checkClientOutputBufferLimits for used bytes
// of output in class: the hard limit at once, the soft limit once it has
// been reached continuously for more than its seconds (*softSince is
// obuf_soft_limit_reached_time, in Unix seconds as server.unixtime).
func (s *Server) obufLimitReached(class int, used int64, softSince *int64) bool {
	lim := s.cfg.ClientOutputBufferLimit[class]
	hard := lim.Hard > 0 && used >= lim.Hard
	soft := lim.Soft > 0 && used >= lim.Soft
	if soft {
		now := time.Now().Unix()
		if *softSince == 0 {
			*softSince = now
			soft = false // first time the soft limit is seen reached
		} else if now-*softSince <= lim.SoftSeconds {
			soft = false
		}
	} else {
		*softSince = 0
	}
	return hard || soft
}

// obufPeaks is client_recent_max_output_buffer: the largest output buffer
// seen per second over the last obufPeakSlots seconds (Redis's
// CLIENTS_PEAK_MEM_USAGE_SLOTS, filled by clientsCronTrackExpansiveClients;
// here by every check of a limit, so no client is missed between crons).
type obufPeaks struct {
	slots [obufPeakSlots]struct {
		sec atomic.Int64
		max atomic.Int64
	}
}

const obufPeakSlots = 8

func (p *obufPeaks) note(n int64) {
	if n <= 0 {
		return
	}
	now := time.Now().Unix()
	sl := &p.slots[now%obufPeakSlots]
	if sl.sec.Load() != now {
		sl.sec.Store(now)
		sl.max.Store(n)
		return
	}
	for {
		m := sl.max.Load()
		if n <= m || sl.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (p *obufPeaks) recent() int64 {
	now := time.Now().Unix()
	var m int64
	for i := range p.slots {
		sl := &p.slots[i]
		if now-sl.sec.Load() < obufPeakSlots {
			m = max(m, sl.max.Load())
		}
	}
	return m
}

// Sizes Redis 7.0.15's getClientMemoryUsage adds up (x86-64).
const (
	sizeofClient     = 768 // zmalloc_size(c): the client struct's jemalloc class
	sizeofListNode   = 24
	sizeofWatchedKey = 32
	sizeofMultiCmd   = 24
)

// memoryUsage is Redis's getClientMemoryUsage (CLIENT LIST tot-mem, INFO
// mem_clients_*), the figures of the structures Redis would hold for c:
// output buffer, query buffer (sdsZmallocSize), the client struct, its
// reply buffer, the running command's arguments, the MULTI state, and the
// pub/sub dictionaries' entries and buckets. Under s.mu.
func (c *client) memoryUsage(omem int64) int64 {
	alloc := c.qbufCap.Load()
	mem := omem + memsize.Jemalloc(memsize.SdsHdrSize(alloc)+alloc+1) + sizeofClient + c.rbuf.usable
	argvLen, argc := c.argvMem()
	mem += int64(argvLen) + int64(sizeofPointer*argc)
	mem += c.multiStateMemOverhead()
	mem += int64(c.subs.Len(pubsub.Pattern) * sizeofListNode)
	mem += dictMemOverhead(c.subs.Len(pubsub.Channel)) + dictMemOverhead(c.subs.Len(pubsub.Shard))
	return mem
}

// dictMemOverhead is a client's pub/sub dict as Redis counts it: entries
// and buckets (4, doubled as it fills).
func dictMemOverhead(n int) int64 {
	if n == 0 {
		return 0
	}
	slots := 4
	for slots < n {
		slots *= 2
	}
	return int64(n*sizeofDictEntry + slots*sizeofPointer)
}

// argvMem is argv_len_sum and argc: the arguments of the command running
// (the caller's own CLIENT LIST) or of the one a blocked client waits in;
// Redis frees them after a command.
func (c *client) argvMem() (sum, argc int) {
	var argv [][]byte
	switch {
	case c == c.srv.curClient:
		argv = c.srv.curArgv
	case c.block != nil:
		argv = c.block.argv
	}
	for _, a := range argv {
		sum += len(a)
	}
	return sum, len(argv)
}

// multiStateMemOverhead is the queued commands' arguments (multi-mem),
// the watched keys and the command array (2, doubled as it fills).
func (c *client) multiStateMemOverhead() int64 {
	mem := int64(c.multiMem() + len(c.watched)*(sizeofListNode+sizeofWatchedKey))
	if n := len(c.mstate); n > 0 {
		alloc := 2
		for alloc < n {
			alloc *= 2
		}
		mem += int64(alloc * sizeofMultiCmd)
	}
	return mem
}

// recentMaxOutputBuffer is INFO client_recent_max_output_buffer: the
// largest output buffer over the last seconds, the present ones included.
// Under s.mu.
func (s *Server) recentMaxOutputBuffer() int64 {
	m := s.stats.obufPeak.recent()
	for _, c := range s.clients {
		m = max(m, c.outputMemory())
	}
	return m
}

// normalClientsMemory is INFO mem_clients_normal: getClientMemoryUsage
// summed over the normal, pub/sub and master clients (replicas are
// mem_clients_slaves). Under s.mu.
func (s *Server) normalClientsMemory() int64 {
	var n int64
	for _, c := range s.clients {
		if c.flags&flagReplica != 0 {
			continue
		}
		n += c.memoryUsage(c.outputMemory())
	}
	return n
}

// multiMem is CLIENT LIST multi-mem (mstate.argv_len_sums): the queued
// commands' argument bytes and argv arrays.
func (c *client) multiMem() int {
	n := 0
	for _, q := range c.mstate {
		for _, a := range q.argv {
			n += len(a)
		}
		n += sizeofPointer * len(q.argv)
	}
	return n
}

// writeReplies is the one place replies reach a client's socket (pushed
// messages have their writer, pushWriterLoop). Asynchronous output queues
// b behind what is pushed (counted in total_net_output_bytes once
// written); a loop-owned connection gets one non-blocking write(2), which
// may take part of b (n < len(b), err nil or EAGAIN); a connection on its
// own goroutine a blocking Write. It returns how many bytes of b went.
func (s *Server) writeReplies(c *client, b []byte) (int, error) {
	// The bytes leave the client's omem before the peer can read them (a
	// CLIENT LIST it sends next must not count them, as in Redis, whose
	// write and accounting are one step); what is not written comes back.
	if held := c.outHeld.Load(); held != 0 {
		c.outHeld.Store(max(held-int64(len(b)), 0))
	}
	if c.lc == nil {
		c.pushMu.Lock()
		async := c.pushWriter
		c.pushMu.Unlock()
		if async {
			c.queueOut(b)
			return len(b), nil
		}
	}
	// Counted before the peer can see the bytes; what was not written is
	// taken back.
	s.stats.netOutput.Add(int64(len(b)))
	s.stats.totalWrites.Add(1)
	var n int
	var err error
	if c.lc != nil {
		n, err = c.lc.writeNow(b)
	} else {
		n, err = c.conn.Write(b)
	}
	if n = max(n, 0); n < len(b) {
		s.stats.netOutput.Add(int64(n - len(b)))
		c.outHeld.Add(int64(len(b) - n))
	}
	return n, err
}

// wroteReplies resets c.out once all of it was written.
func (c *client) wroteReplies() {
	if cap(c.out) > 1<<20 {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	c.wroteOut()
}
