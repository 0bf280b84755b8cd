package server

import (
	"errors"
	"net"
	"runtime/debug"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/tracking"
)

const deniedProtectedMode = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

// maxBatch bounds how many pipelined commands run under one hold of the
// executor, so a long pipeline cannot starve other clients.
const maxBatch = 128

func (s *Server) serveConn(nc net.Conn) {
	// Configuration can change under CONFIG SET: read it under the executor.
	s.mu.Lock()
	keepalive, protected := s.cfg.TCPKeepalive, s.cfg.ProtectedMode && s.acl.def.NoPass()
	maxBulk, maxQuery := s.cfg.ProtoMaxBulkLen, s.cfg.ClientQueryBufferLimit
	s.mu.Unlock()
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		if keepalive > 0 {
			tc.SetKeepAlive(true)
			tc.SetKeepAlivePeriod(time.Duration(keepalive) * time.Second)
		}
	}
	// Protected mode: no password and a non-loopback peer.
	if protected {
		if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
			nc.Write([]byte(deniedProtectedMode))
			nc.Close()
			return
		}
	}
	id := s.nextID.Add(1)
	c := newClient(s, nc, id)
	c.rd.MaxBulk = maxBulk
	c.rd.MaxQueryBuf = maxQuery
	c.rd.AuthState = func() (bool, bool) { return s.passwordSet.Load(), c.authed }

	s.mu.Lock()
	if s.cfg.MaxClients > 0 && len(s.clients) >= s.cfg.MaxClients {
		s.stats.rejectedConns++
		s.mu.Unlock()
		nc.Write([]byte("-ERR max number of clients reached\r\n"))
		nc.Close()
		return
	}
	s.clients[id] = c
	c.db = s.dbs[0]
	// Redis's createClient: a client made while the default user needs
	// no password is authenticated, and stays so if requirepass is set.
	s.setDefaultAuth(c)
	s.stats.totalConns++
	c.syncConnView()
	s.mu.Unlock()
	s.nclients.Add(1)

	if s.loop != nil && s.loop.adopt(c, nc) {
		return
	}
	defer s.releaseConn(c)
	s.connLoop(c)
}

// releaseConn frees a client served on its own goroutine once its
// connection is done.
func (s *Server) releaseConn(c *client) {
	s.mu.Lock()
	s.freeClient(c)
	s.mu.Unlock()
	s.nclients.Add(-1)
	c.stopPushWriter()
	c.conn.Close()
}

func (s *Server) connLoop(c *client) {
	deadlineSet := false
	for {
		// Touch the deadline only when one applies: resetting it on every
		// request costs a timer operation per command.
		if t := c.connTimeout; t > 0 && c.connFlags&(flagPubSub|flagMonitor) == 0 {
			c.conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
			deadlineSet = true
		} else if deadlineSet {
			c.conn.SetReadDeadline(time.Time{})
			deadlineSet = false
		}
		// Parsing paused on an unauthenticated limit (resp.Reader.MorePaused):
		// the rest of the buffer is parsed now that the batch ran.
		if !c.rd.MorePaused() {
			buf, err := c.rd.Space()
			if err != nil {
				s.mu.Lock()
				s.log.Warn().Msgf("Closing client that reached max query buffer length: %s", c.infoLine())
				s.mu.Unlock()
				return
			}
			var n int
			if len(c.pendingIn) > 0 {
				// Bytes that arrived while the client was blocked.
				n = copy(buf, c.pendingIn)
				c.pendingIn = c.pendingIn[n:]
			} else {
				n, err = c.conn.Read(buf)
				s.stats.totalReads.Add(1)
			}
			if n > 0 {
				c.rd.Read(n)
				s.stats.netInput.Add(int64(n))
			}
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					s.log.Debug().Msg("Closing idle client")
				}
				return
			}
			c.lastInter.Store(time.Now().UnixNano())
		}
		perr := c.rd.Parse()
		if c.rd.NCmds() > 0 {
			if !s.runBatch(c) {
				return
			}
		}
		if !s.afterBatch(c, perr) {
			return
		}
	}
}

// afterBatch sends the batch's replies (and the protocol error that ended
// it, then closes). It reports whether the connection goes on.
func (s *Server) afterBatch(c *client, perr error) bool {
	if perr != nil {
		var pe *resp.ProtocolError
		if errors.As(perr, &pe) {
			s.reportProtocolError(c, pe)
		}
		s.flushOut(c)
		return false
	}
	if len(c.out) > 0 {
		if !s.flushOut(c) {
			return false
		}
	}
	c.rd.Reset()
	return c.connFlags&(flagCloseAfterReply|flagCloseASAP) == 0
}

// reportProtocolError queues Redis's reply to a malformed request.
func (s *Server) reportProtocolError(c *client, pe *resp.ProtocolError) {
	c.out = append(c.out, "-ERR "...)
	c.out = append(c.out, pe.Error()...)
	c.out = append(c.out, "\r\n"...)
	s.mu.Lock()
	s.countError("ERR " + pe.Error())
	s.mu.Unlock()
	s.log.Debug().Msgf("Protocol error (%s) from client: %s", pe.Msg, c.infoLine())
}

// runBatch executes the parsed commands, then holds the replies at the AOF
// barrier. It returns false if the connection must close.
func (s *Server) runBatch(c *client) bool { return s.runBatchFrom(c, 0, nil, false) }

// runBatchFrom is runBatch from command i (lastA: the AOF of the commands
// before it; blocked: command i-1 left the client blocked), for a
// connection the network loop hands over mid-batch.
func (s *Server) runBatchFrom(c *client, i int, lastA *aof.AOF, blocked bool) bool {
	n := c.rd.NCmds()
	for i < n || blocked {
		a := lastA
		if !blocked {
			var ok bool
			i, a, ok = s.execChunk(c, i, n)
			if !ok {
				return false
			}
			if a != nil {
				lastA = a
			} else {
				a = lastA
			}
			blocked = c.connFlags&flagBlocked != 0
		}
		if blocked {
			blocked = false
			// Replies before the blocking command go out now; the rest
			// of the pipeline waits until the client is served.
			if !s.waitBlocked(c, a) {
				return false
			}
			c.connFlags &^= flagBlocked
			if i < n {
				continue
			}
		}
		if i >= n && a != nil {
			// The barrier: no reply of this batch leaves before what it
			// depends on is written (everysec/no) or fsynced (always).
			if err := a.Wait(c.waitOff); err != nil {
				return false
			}
		}
	}
	return true
}

// execChunk runs commands [i, min(i+maxBatch, n)) under the executor. A
// panic in a command is contained: it is logged, the client gets an error
// and is closed, and the executor is released.
func (s *Server) execChunk(c *client, i, n int) (next int, a *aof.AOF, ok bool) {
	// The network loop cannot parse the rest of a read the reader paused
	// on (an unauthenticated limit after AUTH, HELLO or RESET): such a
	// rare client continues on a goroutine of its own (connLoop does).
	if c.lc != nil && c.rd.MorePaused() {
		c.yield = true
		return i, nil, true
	}
	// Busy-script gate (script_busy.go): while a script of this server runs
	// past busy-reply-threshold, answer BUSY & co. without waiting for the
	// executor. Normal path: one atomic load.
	if scriptsRunning.Load() != 0 {
		if j := s.busyGate(c, i, n); j > i {
			return j, nil, true
		}
	}
	s.muWanted.Add(1)
	s.mu.Lock()
	s.muWanted.Add(-1)
	ok = true
	defer func() {
		if r := recover(); r != nil {
			argv := c.rd.ArgsOf(i)
			name := ""
			if len(argv) > 0 {
				name = string(argv[0])
			}
			s.log.Warn().Msgf("=== ASSERTION FAILED === command '%s' from client %s: %v\n%s", name, c.addr, r, debug.Stack())
			s.execDepth = 0
			s.flushPropagation(false)
			c.out = append(c.out, "-ERR internal error\r\n"...)
			s.flushOut(c)
			ok = false
		}
		c.syncConnView()
		s.mu.Unlock()
	}()
	end := i + maxBatch
	if end > n {
		end = n
	}
	for ; i < end; i++ {
		mark := len(c.out)
		s.processCommand(c, c.rd.ArgsOf(i))
		c.rbuf.noteReply(len(c.out))
		if c.yield {
			break // the network loop hands c to a goroutine, from command i
		}
		if c.flags&(flagReplyOff|flagReplySkip|flagReplySkipNext) != 0 {
			c.applyReplyMode(mark)
		}
		if len(c.out) > replyChunkSize && c.checkOutputLimit(int64(len(c.out)), true) {
			c.out = c.out[:0] // freeClientAsync: nothing more is written
		}
		if c.flags&(flagCloseAfterReply|flagCloseASAP) != 0 {
			i = n
			break
		}
		if c.flags&flagBlocked != 0 {
			i++
			break
		}
	}
	s.tracking.EndBatch(c)
	if n := int64(len(c.out)); n != 0 || c.outHeld.Load() != 0 {
		c.outHeld.Store(n) // until written: see wroteOut
	}
	if s.aof != nil {
		// The ticket the batch's replies hold at the barrier: the AOF
		// decides what they must wait for (aof/barrier.go).
		c.waitOff = s.aof.ReplyTicket(c.fedOff)
	}
	return i, s.aof, ok
}

// syncConnView copies what the connection goroutine reads between batches
// (under Server.mu).
func (c *client) syncConnView() {
	c.connFlags = c.flags
	c.connTimeout = c.srv.cfg.Timeout
}

// flushOut sends c.out to the client (or queues it behind pushed messages).
func (s *Server) flushOut(c *client) bool {
	if len(c.out) == 0 {
		return true
	}
	ok := s.writeOut(c, c.out)
	c.wroteReplies()
	return ok
}

// wroteOut notes that the replies of the last batch left c.out.
func (c *client) wroteOut() {
	if c.outHeld.Load() != 0 {
		c.outHeld.Store(0)
	}
}

// writeOut sends b to the client (or queues it behind pushed messages);
// on a loop-owned connection, best effort (an internal error's reply).
func (s *Server) writeOut(c *client, b []byte) bool {
	_, err := s.writeReplies(c, b)
	return err == nil
}

// freeClient unregisters c (under mu).
func (s *Server) freeClient(c *client) {
	delete(s.clients, c.id)
	if c.trk.Flags()&tracking.On != 0 {
		s.tracking.Disable(c)
	}
	s.unwatchAll(c)
	s.pubsubUnsubscribeAll(c)
	delete(s.monitors, c)
	s.unblockClientOnClose(c)
}
