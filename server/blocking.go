package server

import (
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rstring"
)

// Blocking on keys, for the blocking pops (BLPOP, BZPOPMIN, BLMPOP, ...:
// the list and sorted-set groups under command/) and XREAD/XREADGROUP
// BLOCK, which block through the seam's Blocker (seam.go), and WAIT.
//
// A client that must block is parked: its command stays in blockState and
// its connection goroutine waits (off the executor) for a wake-up or its
// timeout. A write that creates a key others wait on (or deletes or
// replaces a stream) marks the key ready; after the writing command's
// execution unit, handleReadyKeys serves the parked clients of each ready
// key in arrival order, writing their replies and propagating the pop as
// its own op after the push (as Redis logs "RPUSH bl x y" then "LPOP bl").

const flagBlocked uint32 = 1 << 20

type blockState struct {
	db    *DB
	keys  []string
	argv  [][]byte
	serve func(c *client, argv [][]byte, later bool) bool
	// cmd and dur are the blocking call's command and run time: the
	// reply that ends the wait adds to its stats (Redis
	// updateStatsOnUnblock).
	cmd      *command
	dur      time.Duration
	deadline time.Time
	done     chan struct{}
	// timeoutReply is sent when the timeout passes (default: null array).
	timeoutReply string
	// readyKey is the key being served (set by handleReadyKeys; streams
	// serve only that key, as Redis's serveClientsBlockedOnStreamKey).
	readyKey string
	// unblockOnNoKey: serve is called even when the ready key is gone
	// (XREADGROUP answers an error when its stream is deleted).
	unblockOnNoKey bool
}

type readyKey struct {
	db  *DB
	key string
}

type blockingState struct {
	byKey map[*DB]map[string][]*client
	ready []readyKey
	// queued holds the keys in ready, so that a key is queued once however
	// often it is signalled before being served (Redis db->ready_keys).
	queued map[readyKey]struct{}
	n      int
	// serving: handleReadyKeys runs; scheduled: a goroutine will run it
	// for keys signalled outside any command (active expiry).
	serving, scheduled bool
}

// canBlock: inside MULTI/EXEC, scripts or AOF loading a blocking command
// answers at once (Redis CLIENT_DENY_BLOCKING).
func (s *Server) canBlock(c *client) bool {
	return c.flags&(flagMulti|flagFake) == 0 && s.execDepth <= 1 && c.conn != nil
}

func (s *Server) blockClient(c *client, keys [][]byte, argv [][]byte, timeout time.Duration, serve func(*client, [][]byte, bool) bool) {
	bs := &blockState{db: c.db, argv: rstring.CloneArgv(argv), serve: serve, done: make(chan struct{})}
	if timeout > 0 {
		bs.deadline = time.Now().Add(timeout)
	}
	if s.blocking.byKey == nil {
		s.blocking.byKey = map[*DB]map[string][]*client{}
	}
	m := s.blocking.byKey[c.db]
	if m == nil {
		m = map[string][]*client{}
		s.blocking.byKey[c.db] = m
	}
	seen := map[string]bool{}
	for _, k := range keys {
		ks := string(k)
		if seen[ks] {
			continue
		}
		seen[ks] = true
		bs.keys = append(bs.keys, ks)
		m[ks] = append(m[ks], c)
	}
	c.block = bs
	c.flags |= flagBlocked
	s.blocking.n++
}

// unblockClient removes c from the wait lists and wakes its goroutine.
func (s *Server) unblockClient(c *client) {
	bs := c.block
	if bs == nil {
		return
	}
	m := s.blocking.byKey[bs.db]
	for _, k := range bs.keys {
		cs := m[k]
		for i, x := range cs {
			if x == c {
				cs = append(cs[:i], cs[i+1:]...)
				break
			}
		}
		if len(cs) == 0 {
			delete(m, k)
		} else {
			m[k] = cs
		}
	}
	c.block = nil
	c.flags &^= flagBlocked
	s.blocking.n--
	if s.aof != nil {
		c.waitOff = s.aof.Offset()
		c.fedOff = c.waitOff
	}
	close(bs.done)
}

// unblockReplied unblocks c after its wait ended with a reply: the reply
// adds to the blocking command's stats, an error reply counts as a failed
// call (Redis updateStatsOnUnblock).
func (s *Server) unblockReplied(c *client, failed bool, replyDur time.Duration) {
	bs := c.block
	if bs == nil {
		return
	}
	if cmd := bs.cmd; cmd != nil {
		total := bs.dur + replyDur
		cmd.usec += total.Microseconds()
		if failed {
			cmd.failed++
		}
		if cmd.flags&cmdSkipSlowlog == 0 {
			s.slowlog.maybeAdd(s, c, bs.argv, total)
		}
	}
	s.unblockClient(c)
}

// replyTimedOut answers c as its timeout does (also CLIENT UNBLOCK
// [TIMEOUT]): a null array, or the command's own timeout reply.
func (s *Server) replyTimedOut(c *client) {
	if c.block.timeoutReply != "" {
		c.out = append(c.out, c.block.timeoutReply...)
	} else {
		c.nullArray()
	}
}

func (s *Server) blockedCount() int { return s.blocking.n }

func (s *Server) unblockClientOnClose(c *client) { s.unblockClient(c) }

// signalKeyAsReady notes that key may now serve blocked clients.
func (s *Server) signalKeyAsReady(db *DB, key []byte) {
	if s.blocking.n == 0 {
		return
	}
	if _, ok := s.blocking.byKey[db][bstr(key)]; !ok {
		return
	}
	rk := readyKey{db: db, key: string(key)}
	if _, ok := s.blocking.queued[rk]; ok {
		return
	}
	if s.blocking.queued == nil {
		s.blocking.queued = map[readyKey]struct{}{}
	}
	s.blocking.queued[rk] = struct{}{}
	s.blocking.ready = append(s.blocking.ready, rk)
	if s.execDepth == 0 && !s.blocking.serving && !s.blocking.scheduled {
		// Signalled outside any command (a key expired by the cron): no
		// command end will serve it, so serve it once the lock is free
		// (Redis's beforeSleep calls handleClientsBlockedOnKeys).
		s.blocking.scheduled = true
		go func() {
			s.mu.Lock()
			s.blocking.scheduled = false
			s.handleReadyKeys()
			s.mu.Unlock()
		}()
	}
}

// signalBlockedKeys signals every key of db that clients wait on and that
// holds a value (a stream, if onlyStreams: it is about to go). SWAPDB and
// FLUSHDB/FLUSHALL use it as Redis's scanDatabaseForReadyKeys and
// scanDatabaseForDeletedStreams.
func (s *Server) signalBlockedKeys(db *DB, onlyStreams bool) {
	if s.blocking.n == 0 {
		return
	}
	for k := range s.blocking.byKey[db] {
		if e, ok := db.keys.Get(k); ok && (!onlyStreams || e.typ() == typStream) {
			s.signalKeyAsReady(db, []byte(k))
		}
	}
}

// handleReadyKeys serves blocked clients of keys that became ready
// (Redis handleClientsBlockedOnKeys). Runs under mu at depth 0.
func (s *Server) handleReadyKeys() {
	s.blocking.serving = true
	for len(s.blocking.ready) > 0 {
		rk := s.blocking.ready[0]
		s.blocking.ready = s.blocking.ready[1:]
		delete(s.blocking.queued, rk)
		waiting := s.blocking.byKey[rk.db][rk.key]
		if len(waiting) == 0 {
			continue
		}
		// Each client that waited when the key became ready gets one
		// chance, in arrival order; one that cannot be served (another
		// type's waiter, a stream ID not reached yet) does not stop the
		// others. Once the key is gone only XREADGROUP waiters are left
		// to answer (Redis unblockDeletedStreamReadgroupClients).
		for _, c := range append([]*client(nil), waiting...) {
			bs := c.block
			if bs == nil || bs.db != rk.db {
				continue // served or gone meanwhile
			}
			if !bs.unblockOnNoKey {
				if _, ok := rk.db.keys.Get(rk.key); !ok {
					continue
				}
			}
			s.serveBlocked(c, bs, rk.key)
		}
	}
	s.blocking.ready = s.blocking.ready[:0]
	s.blocking.serving = false
}

// serveBlocked tries to serve c, waiting in bs, from the ready key.
func (s *Server) serveBlocked(c *client, bs *blockState, key string) {
	prevDB, prevFailed, prevClient := c.db, s.curCmdFailed, s.curClient
	c.db, s.curCmdFailed, s.curClient = bs.db, false, c
	bs.readyKey = key
	start := monoNow()
	served := bs.serve(c, bs.argv, true)
	if s.tracking.Pending() {
		s.tracking.HandlePending() // behind the reply, as Redis's afterCommand
	}
	failed := s.curCmdFailed
	c.db, s.curCmdFailed, s.curClient = prevDB, prevFailed, prevClient
	if served {
		d := time.Duration(monoNow() - start)
		s.unblockedLatency(bs, d)
		s.unblockReplied(c, failed, d)
	}
}

// waitBlocked sends a client that blocked the replies to the commands
// before the blocking one (once the AOF holds what they depend on), then
// waits until it is served (waitUnblocked). From the moment it blocked the
// executor may serve it, appending to c.out and moving c.waitOff: both are
// taken under the lock, and touched again only once the wait is over.
func (s *Server) waitBlocked(c *client, a *aof.AOF) bool {
	s.mu.Lock()
	out, off := c.out, c.waitOff
	c.out = nil
	s.mu.Unlock()
	if a != nil {
		if err := a.Wait(off); err != nil {
			return false
		}
	}
	if len(out) > 0 && !s.writeOut(c, out) {
		return false
	}
	return s.waitUnblocked(c)
}

// waitUnblocked parks the connection goroutine of a blocked client until it
// is served, times out, or its connection closes. It returns false if the
// connection is gone.
func (s *Server) waitUnblocked(c *client) bool {
	s.mu.Lock()
	bs := c.block
	s.mu.Unlock()
	if bs == nil {
		return true
	}
	var timer <-chan time.Time
	if !bs.deadline.IsZero() {
		t := time.NewTimer(time.Until(bs.deadline))
		defer t.Stop()
		timer = t.C
	}
	// Watch the socket so that a client that goes away is unblocked (and
	// never gets data popped for it). Bytes it pipelines meanwhile are kept.
	watch := make(chan error, 1)
	var got []byte
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := c.conn.Read(buf)
			if n > 0 || !isTimeout(err) {
				c.srv.stats.totalReads.Add(1)
			}
			if n > 0 {
				got = append(got, buf[:n]...)
			}
			if err != nil {
				watch <- err
				return
			}
		}
	}()
	gone := false
	select {
	case <-bs.done:
	case <-timer:
		s.mu.Lock()
		if c.block == bs {
			s.replyTimedOut(c)
			s.unblockReplied(c, false, 0)
		}
		s.mu.Unlock()
	case <-watch:
		gone = true
		s.mu.Lock()
		if c.block == bs {
			s.unblockClient(c)
		}
		s.mu.Unlock()
	}
	if !gone {
		c.conn.SetReadDeadline(time.Now())
		err := <-watch
		c.conn.SetReadDeadline(time.Time{})
		if !isTimeout(err) {
			gone = true
		}
	}
	c.pendingIn = append(c.pendingIn, got...)
	return !gone
}

func isTimeout(err error) bool {
	type timeout interface{ Timeout() bool }
	t, ok := err.(timeout)
	return ok && t.Timeout()
}

func clientUnblockCommand(c *client, argv [][]byte) {
	s := c.srv
	id, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	withErr := false
	if len(argv) == 4 {
		switch {
		case eqFold(argv[3], "timeout"):
		case eqFold(argv[3], "error"):
			withErr = true
		default:
			c.err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	} else if len(argv) > 4 {
		c.errSyntax()
		return
	}
	target := s.clients[id]
	if target == nil || target.block == nil {
		c.integer(0)
		return
	}
	if withErr {
		// An error reply of the unblocked command, counted as Redis's
		// addReplyError to the target counts it.
		s.countError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
		target.out = append(target.out, "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"...)
	} else {
		s.replyTimedOut(target)
	}
	// Redis 7.0 counts either form as a failed call of the unblocked
	// command (updateStatsOnUnblock(target, 0, 0, 1)).
	s.unblockedLatency(target.block, 0)
	s.unblockReplied(target, true, 0)
	c.integer(1)
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
