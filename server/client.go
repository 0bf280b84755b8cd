package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/aofserver/aofserver/acl"
	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/pubsub"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/tracking"

	seam "github.com/aofserver/aofserver/command"
)

// client flags
const (
	flagMulti uint32 = 1 << iota
	flagDirtyCAS
	flagDirtyExec // a command failed to queue: EXEC aborts
	flagPubSub
	flagMonitor
	flagCloseAfterReply
	flagCloseASAP
	flagNoEvict
	flagFake // AOF loading client
	// CLIENT REPLY: OFF, SKIP given (applies to the next command), and
	// the command whose reply is being skipped.
	flagReplyOff
	flagReplySkipNext
	flagReplySkip
	flagUnixSocket // accepted on the unixsocket ('U' in CLIENT LIST)
)

type queuedCmd struct {
	cmd  *command
	argv [][]byte
}

// client is one connection. Fields without a note are owned by the
// executor (Server.mu); the connection goroutine only touches out/rd
// between batches.
type client struct {
	srv  *Server
	id   int64
	conn net.Conn
	// lc is set while the network loop owns the connection (netloop_linux.go);
	// yield asks the loop to hand c to a goroutine before the command.
	lc    *loopConn
	yield bool
	// aofDirect: the AOF loader runs this command as Redis's loader does,
	// by its proc without call(): no statistics count it (see call)
	aofDirect bool
	addr      string
	laddr     string
	rd        *resp.Reader

	db     *DB
	name   string
	flags  uint32
	authed bool
	// user is the ACL user the client runs as; nil (the AOF, the master)
	// may run anything.
	user *acl.User
	resp int

	out []byte // replies of the current batch (conn goroutine / under mu)

	// connFlags and connTimeout are the connection goroutine's copies of
	// flags and the timeout config, refreshed under mu after each batch.
	connFlags   uint32
	connTimeout int
	waitOff     aof.Ticket // AOF ticket the replies in out hold at the barrier
	fedOff      aof.Ticket // AOF ticket of this client's last propagated write

	block     *blockState // set while blocked (BLPOP & co.)
	pendingIn []byte      // bytes read while blocked, parsed next

	mstate  []queuedCmd
	watched []watchedKey

	subs pubsub.Subs // its Pub/Sub subscriptions
	// keepOut: spans of out holding pushes that CLIENT REPLY OFF/SKIP
	// must not drop (applyReplyMode).
	keepOut [][2]int

	created   time.Time
	lastInter atomic.Int64 // UnixNano of the last read; set outside mu
	lastCmd   string
	totalCmds int64
	noTouch   bool
	libName   string
	libVer    string

	// asynchronous output for pub/sub, MONITOR and tracking: guarded by
	// pushMu and drained by the client's writer goroutine (pushBuf is the
	// replication stream of a replica, written by its own writer).
	pushMu      sync.Mutex
	pushQ       replyQueue
	pushBuf     []byte
	pushCond    *sync.Cond
	pushWriter  bool
	closed      bool
	closeReason string
	// pubsubOut: the client counts in the pubsub class of
	// client-output-buffer-limit (flagPubSub, readable under pushMu);
	// obufSoftSince is Redis's obuf_soft_limit_reached_time (under pushMu).
	pubsubOut     bool
	obufSoftSince int64
	// obufSoftTimer rechecks the soft limit when its seconds are over,
	// as clientsCron's closeClientOnOutputBufferLimitReached does for a
	// client that receives nothing more (under pushMu).
	obufSoftTimer *time.Timer
	// outHeld mirrors len(out) between a batch and its write (replies
	// waiting for the socket or at the AOF barrier), for CLIENT LIST and
	// INFO run by other clients.
	outHeld atomic.Int64

	// logArgv is what SLOWLOG and MONITOR show of the command being
	// executed when it differs from what ran: secrets redacted (Redis
	// original_argv, redactClientCommandArgument).
	logArgv [][]byte

	// client-side caching (tracking.go)
	trk tracking.Client // CLIENT TRACKING's state
	// pushDraining asks the push writer to write what is queued and stop;
	// pushDone is closed when it has (both under pushMu).
	pushDraining bool
	pushDone     chan struct{}
	// pushIov is the push writer's iovec scratch (pushwrite_linux.go).
	pushIov []pushIovec
	// scriptReadDone: a script of this client ran a read-only command,
	// so the script's keys are remembered when it ends.
	scriptReadDone bool

	// rbuf is Redis's static reply buffer (replybuf.go; under s.mu).
	rbuf replyBuf
	// qbufCap mirrors the size of the query buffer as Redis would hold
	// it (rd.QB) for the memory figures.
	qbufCap atomic.Int64

	// scratch formats one reply element of a command outside this
	// package (seam's Replier.Scratch).
	scratch [48]byte

	// propagation for the command being executed
	propArgv    [][]byte
	preventProp bool

	// replication (replication.go): the replica behind this link (or
	// what its REPLCONF said before SYNC), and the master offset after
	// this client's last propagated write (WAIT).
	repl     *replica
	replWOff int64
}

type watchedKey struct {
	db  *DB
	key string
	// expired: the key was already logically expired at WATCH time; its
	// lazy deletion is then not a change (Redis 7.0 watchedKey.expired).
	expired bool
}

func newClient(s *Server, nc net.Conn, id int64) *client {
	c := &client{srv: s, id: id, conn: nc, rd: resp.NewReader(), resp: 2, created: time.Now(), rbuf: newReplyBuf()}
	c.lastInter.Store(c.created.UnixNano())
	c.rd.QB.Mirror = &c.qbufCap
	if nc != nil {
		c.addr = nc.RemoteAddr().String()
		c.laddr = nc.LocalAddr().String()
		if isUnixConn(nc) { // Redis names both ends "<unixsocket>:0"
			c.addr = s.cfg.UnixSocket + ":0"
			c.laddr = c.addr
			c.flags |= flagUnixSocket
		}
	}
	c.pushCond = sync.NewCond(&c.pushMu)
	return c
}

// Reply helpers append to c.out: RESP2, or RESP3 after HELLO 3 where
// the type differs (see the protocol-aware helpers below).

func (c *client) addReplyString(s string) { c.out = append(c.out, s...) }
func (c *client) ok()                     { c.out = append(c.out, "+OK\r\n"...) }
func (c *client) status(s string)         { c.out = redcon.AppendString(c.out, s) }
func (c *client) bulk(b []byte)           { c.out = redcon.AppendBulk(c.out, b) }
func (c *client) bulkString(s string)     { c.out = redcon.AppendBulkString(c.out, s) }
func (c *client) integer(n int64)         { c.out = redcon.AppendInt(c.out, n) }
func (c *client) arrayLen(n int)          { c.out = redcon.AppendArray(c.out, n) }
func (c *client) emptyArray()             { c.out = append(c.out, "*0\r\n"...) }

// Protocol-aware helpers: RESP3 types for a client that sent HELLO 3, their
// RESP2 forms otherwise (Redis's addReplyNull, addReplyMapLen, ...).

// nullBulk is Redis's shared.null[c->resp]: "$-1" or "_".
func (c *client) nullBulk() { c.out = resp.AppendNull(c.out, c.resp) }

// nullArray is Redis's shared.nullarray[c->resp]: "*-1" or "_".
func (c *client) nullArray() { c.out = resp.AppendNullArray(c.out, c.resp) }

// mapLen starts a map of n pairs: "%n", or a flat array of 2n in RESP2.
func (c *client) mapLen(n int) { c.out = resp.AppendMapLen(c.out, c.resp, n) }

// pairsLen starts n member/score (field/value) pairs: a flat array of 2n
// in RESP2, an array of n two-element arrays in RESP3 (each started by
// pairStart).
func (c *client) pairsLen(n int) {
	if c.resp == 3 {
		c.arrayLen(n)
		return
	}
	c.arrayLen(2 * n)
}

// pairStart starts one pair of a pairsLen reply (nothing in RESP2).
func (c *client) pairStart() {
	if c.resp == 3 {
		c.arrayLen(2)
	}
}

// setLen starts a set: "~n", or an array in RESP2.
func (c *client) setLen(n int) { c.out = resp.AppendSetLen(c.out, c.resp, n) }

// pushLen starts an out-of-band push: ">n", or an array in RESP2.
func (c *client) pushLen(n int) { c.out = resp.AppendPushLen(c.out, c.resp, n) }

// double replies a double: ",<d>" or a bulk string in RESP2.
func (c *client) double(f float64) { c.out = resp.AppendDouble(c.out, c.resp, f) }

// boolean replies "#t"/"#f", or 1 / 0 in RESP2 (addReplyBool).
func (c *client) boolean(b bool) { c.out = resp.AppendBool(c.out, c.resp, b) }

// verbatim replies a verbatim string (format "txt" or "mkd"), or a bulk
// string in RESP2.
func (c *client) verbatim(format string, text []byte) {
	c.out = resp.AppendVerbatim(c.out, c.resp, format, text)
}

func (c *client) bulkOrNull(b []byte, ok bool) {
	if ok {
		c.bulk(b)
	} else {
		c.nullBulk()
	}
}

// err replies "-<msg>" where msg starts with the error code ("ERR ...",
// "WRONGTYPE ..."); it counts the error in errorstats.
func (c *client) err(msg string) {
	c.srv.countError(msg)
	c.out = resp.AppendError(c.out, msg)
	c.srv.curCmdFailed = true
}

func (c *client) errWrongType() { c.err(errWrongType) }
func (c *client) errSyntax()    { c.err(errSyntax) }
func (c *client) errNotInt()    { c.err(errNotInt) }

// Shared error texts, word for word as Redis 7.0 (the seam's, where the
// command groups outside this package use them too).
const (
	errWrongType = seam.ErrWrongType
	errSyntax    = seam.ErrSyntax
	errNotInt    = seam.ErrNotInt
	errNotFloat  = seam.ErrNotFloat
	errLongRange = seam.ErrLongRange
	errNoSuchKey = seam.ErrNoSuchKey
	errOutOfRng  = seam.ErrOutOfRange
)

// push queues output for a client in asynchronous mode from any
// goroutine holding s.mu, enforcing client-output-buffer-limit.
func (c *client) push(b []byte) { c.pushParts(b, nil, nil) }

// pushParts queues a, b and then cc as one message (a published payload
// goes straight from the publisher's argument to the subscriber's queue),
// then checks the limits as Redis's _addReplyProtoToList does after each
// append. Under s.mu.
func (c *client) pushParts(a, b, cc []byte) {
	c.pushMu.Lock()
	defer c.pushMu.Unlock()
	if c.closed {
		return
	}
	c.pushQ.write(a)
	c.pushQ.write(b)
	c.pushQ.write(cc)
	// Messages wait in Redis's reply buffer too (its peak, rbp=); the
	// caller holds s.mu, which guards rbuf.
	c.rbuf.noteReply(c.pushQ.pending())
	used := c.pushQ.mem()
	c.srv.stats.obufPeak.note(used)
	if c.conn != nil && c.srv.obufLimitReached(c.obufClass(), used, &c.obufSoftSince) {
		c.closeOnObufLimitLocked(used, true)
		return
	}
	if c.obufSoftSince != 0 && c.obufSoftTimer == nil {
		c.armSoftLimitTimer()
	}
	c.pushCond.Signal()
}

// armSoftLimitTimer rechecks c's output buffer in the first second the
// soft limit it reached may close it, about when clientsCron (every 100 ms
// at the default hz) would. Under pushMu and s.mu.
func (c *client) armSoftLimitTimer() {
	secs := c.srv.cfg.ClientOutputBufferLimit[c.obufClass()].SoftSeconds
	at := time.Unix(c.obufSoftSince+secs+1, 0).Add(100 * time.Millisecond)
	c.obufSoftTimer = time.AfterFunc(time.Until(at), func() {
		s := c.srv
		s.mu.Lock()
		defer s.mu.Unlock()
		c.pushMu.Lock()
		c.obufSoftTimer = nil
		c.pushMu.Unlock()
		c.checkOutputLimit(c.outHeld.Load(), false)
	})
}

// checkOutputLimit is closeClientOnOutputBufferLimitReached after a command
// of c: pending is the size of its replies not queued yet (c.out). Redis
// counts only what overflows its 16 KB static reply buffer, so smaller
// replies are never checked. It reports whether c is being closed. Under
// s.mu. async: from a reply (the client is closed by the loop, "scheduled
// to be closed ASAP" in the log), or from the cron's recheck ("closed").
func (c *client) checkOutputLimit(pending int64, async bool) bool {
	c.pushMu.Lock()
	defer c.pushMu.Unlock()
	if c.closed || c.conn == nil { // a fake client is never freed here
		return false
	}
	used := pending + c.pushQ.mem()
	if used == 0 {
		c.obufSoftSince = 0 // nothing to check (reply_bytes == 0)
		return false
	}
	c.srv.stats.obufPeak.note(used)
	if !c.srv.obufLimitReached(c.obufClass(), used, &c.obufSoftSince) {
		if c.obufSoftSince != 0 && c.obufSoftTimer == nil {
			c.armSoftLimitTimer()
		}
		return false
	}
	c.closeOnObufLimitLocked(used, async)
	return true
}

// closeOnObufLimitLocked closes c for its output buffer of used bytes
// (freeClientAsync: nothing more is written to it) with Redis's log line,
// which shows the omem that got it closed. Under pushMu and s.mu.
func (c *client) closeOnObufLimitLocked(used int64, async bool) {
	if c.obufSoftTimer != nil {
		c.obufSoftTimer.Stop()
		c.obufSoftTimer = nil
	}
	c.closed = true
	c.closeReason = "output buffer limit"
	if async {
		c.srv.log.Warn().Msgf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", c.infoLineOmem(nil, used))
	} else {
		c.srv.log.Warn().Msgf("Client %s closed for overcoming of output buffer limits.", c.infoLineOmem(nil, used))
	}
	c.pushQ.reset()
	c.flags |= flagCloseASAP
	c.conn.Close()
	c.pushCond.Broadcast()
}

// setPubSubOut moves c in or out of the pubsub class of the limits (under
// s.mu).
func (c *client) setPubSubOut(on bool) {
	c.pushMu.Lock()
	c.pubsubOut = on
	c.pushMu.Unlock()
}

// outputMemory is getClientOutputBufferMemoryUsage as other clients see
// it: queued pushes, the replication stream, and replies held between a
// batch and its write.
func (c *client) outputMemory() int64 {
	c.pushMu.Lock()
	n := c.pushQ.mem() + int64(len(c.pushBuf))
	c.pushMu.Unlock()
	return n + c.outHeld.Load()
}

// goAsync switches the client to asynchronous output, moving the replies
// produced so far in front of any message pushed later (under Server.mu, so
// no PUBLISH can interleave).
func (c *client) goAsync() {
	c.startPushWriter()
	if len(c.out) > 0 {
		c.pushMu.Lock()
		c.pushQ.write(c.out)
		c.pushCond.Signal()
		c.pushMu.Unlock()
		c.out = c.out[:0]
	}
}

// queueOut queues a batch's replies behind what the writer has (no limit
// check: the batch's commands were checked as they ran).
func (c *client) queueOut(b []byte) {
	c.pushMu.Lock()
	if !c.closed {
		c.pushQ.write(b)
		c.pushCond.Signal()
	}
	c.pushMu.Unlock()
}

// startPushWriter switches the client to asynchronous output.
func (c *client) startPushWriter() {
	c.detachLocked() // the writer goroutine needs a net.Conn of its own
	c.pushMu.Lock()
	if c.pushWriter {
		c.pushMu.Unlock()
		return
	}
	c.pushWriter = true
	c.pushDone = make(chan struct{})
	c.pushMu.Unlock()
	go c.pushWriterLoop()
}

// pushWriterLoop writes the queue, up to maxWriteChunks chunks per writev;
// total_net_output_bytes counts what the socket took.
func (c *client) pushWriterLoop() {
	defer close(c.pushDone)
	var bufs, nb net.Buffers
	for {
		c.pushMu.Lock()
		for c.pushQ.empty() && !c.closed && !c.pushDraining {
			c.pushCond.Wait()
		}
		if c.closed || c.pushQ.empty() { // closed, or drained
			c.pushMu.Unlock()
			return
		}
		bufs = c.pushQ.take(bufs[:0])
		c.pushMu.Unlock()
		var total int64
		for _, b := range bufs {
			total += int64(len(b))
		}
		// Counted before the peer can see the bytes (INFO right after
		// reading them includes them); what was not written is taken back.
		c.srv.stats.netOutput.Add(total)
		c.srv.stats.totalWrites.Add(1)
		n, released, err := c.writeTaken(bufs, &nb)
		c.srv.stats.netOutput.Add(n - total)
		c.pushMu.Lock()
		c.pushQ.done(bufs, released)
		c.pushMu.Unlock()
		if err != nil {
			c.pushMu.Lock()
			c.closed = true
			c.pushQ.reset()
			c.pushMu.Unlock()
			c.conn.Close()
			return
		}
	}
}

// writeTakenBlocking writes bufs with one blocking writev (WriteTo); the
// chunks stay counted until it returns.
func (c *client) writeTakenBlocking(bufs [][]byte, nb *net.Buffers) (int64, int, error) {
	*nb = append((*nb)[:0], bufs...) // WriteTo consumes its receiver
	n, err := nb.WriteTo(c.conn)
	clear((*nb)[:cap(*nb)])
	return n, 0, err
}

// stopPushWriter ends asynchronous output once what is queued is written
// (QUIT's +OK, the last messages), within a second for a peer that does
// not read.
func (c *client) stopPushWriter() {
	c.pushMu.Lock()
	running := c.pushWriter && !c.closed
	c.pushDraining = true
	c.pushCond.Broadcast()
	done := c.pushDone
	c.pushMu.Unlock()
	if running && done != nil {
		c.conn.SetWriteDeadline(time.Now().Add(time.Second))
		<-done
	}
	c.pushMu.Lock()
	c.closed = true
	c.pushCond.Broadcast()
	c.pushMu.Unlock()
}
