package server

import (
	"strconv"
	"time"

	"github.com/aofserver/aofserver/tracking"
)

// Client-side caching (Redis 7.0's tracking.c): CLIENT TRACKING remembers
// which clients read which keys, and a modified key sends them an
// invalidation: a RESP3 push (">2 invalidate [keys]") on the connection
// itself, or a Pub/Sub message on __redis__:invalidate to the client named
// by REDIRECT. In BCAST mode keys are not remembered: every modified key
// under one of the client's prefixes is announced, gathered per prefix
// until the end of the batch (Redis's beforeSleep). Everything here runs
// under Server.mu.

// trackingHost is the Server as package tracking's Host.
type trackingHost Server

func (h *trackingHost) Peer(id int64) tracking.Peer {
	if c := h.clients[id]; c != nil {
		return c
	}
	return nil
}

func (h *trackingHost) Current() (tracking.Peer, bool) {
	nested := h.execDepth > 0 || h.blocking.serving
	if h.curClient == nil {
		return nil, nested
	}
	return h.curClient, nested
}

func (h *trackingHost) Deliver(p tracking.Peer, msg []byte) {
	(*Server)(h).deliverTracking(p.(*client), msg)
}

func (h *trackingHost) StartCron() { (*Server)(h).startTrackingCron() }

// Tracking and PubSubMode make a client a tracking.Peer.
func (c *client) Tracking() *tracking.Client { return &c.trk }
func (c *client) PubSubMode() bool           { return c.flags&flagPubSub != 0 }

// peer is c as a tracking.Peer: nil for no client.
func peer(c *client) tracking.Peer {
	if c == nil {
		return nil
	}
	return c
}

// enableTracking is Redis's enableTracking (tracking.Table.Enable).
func (s *Server) enableTracking(c *client, redir int64, options uint32, prefixes []string) {
	s.tracking.Enable(c, c.id, redir, options, prefixes)
	// A RESP3 client is told about other clients' changes at any time:
	// its output goes asynchronous, as a subscriber's does.
	if c.resp == 3 {
		c.goAsync()
	}
}

// trackingAfterCall runs after each call of cmd by c (Redis's call():
// trackingRememberKeys after a read-only command; afterCommand's pending
// invalidations; resetClient dropping CLIENT CACHING's effect).
func (s *Server) trackingAfterCall(c *client, cmd *command, argv [][]byte) {
	if cmd.flags&cmdReadonly != 0 && !isROScript(cmd) {
		caller := c
		if c.flags&flagFake != 0 && s.curClient != nil && s.curClient != c {
			caller = s.curClient // a script's command: the script's keys
			if caller.trk.Flags()&(tracking.On|tracking.Bcast) == tracking.On {
				caller.scriptReadDone = true
			}
		} else if caller.trk.Flags()&(tracking.On|tracking.Bcast) == tracking.On {
			s.trackingRememberKeys(caller, cmd, argv)
		}
	} else if isScriptRun(cmd) && c.scriptReadDone {
		// The script read something: its declared keys are remembered
		// (Redis takes the keys from the caller's EVAL/FCALL argv).
		c.scriptReadDone = false
		s.trackingRememberKeys(c, cmd, argv)
	}
	if s.execDepth == 0 && c.flags&flagFake == 0 {
		c.scriptReadDone = false
		if s.tracking.Pending() {
			s.tracking.HandlePending()
		}
		if c.flags&flagMulti == 0 && (cmd.parent == nil || cmd.parent.name != "client") {
			c.trk.EndCommand()
		}
	}
}

// isROScript: EVAL_RO & co. are read-only, yet only the commands their
// script runs decide what is remembered.
func isROScript(cmd *command) bool {
	switch cmd.name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return cmd.parent == nil
	}
	return false
}

// trackingRememberKeys is Redis's trackingRememberKeys.
func (s *Server) trackingRememberKeys(c *client, cmd *command, argv [][]byte) {
	if cmd.flags&cmdPubSub != 0 || !c.trk.Remembers() {
		return // before finding the keys, which allocates
	}
	s.tracking.Remember(c, argv, trackingKeyArgs(cmd, argv))
}

// trackingInvalidateKeysOnFlush is Redis's (FLUSHDB, FLUSHALL).
func (s *Server) trackingInvalidateKeysOnFlush() { s.tracking.InvalidateAll() }

// trackingKeyArgs returns the positions of argv's keys, as Redis's
// getKeysFromCommand for the read-only commands whose keys are not a
// first/last/step range.
func trackingKeyArgs(cmd *command, argv [][]byte) []int {
	name := cmd.name
	if cmd.parent != nil {
		name = cmd.parent.name + "|" + name
	}
	numkeysAt := 0
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		numkeysAt = 2
	case "zunion", "zinter", "zdiff", "zintercard", "sintercard":
		numkeysAt = 1
	case "xread", "xreadgroup":
		for i := 1; i < len(argv); i++ {
			if eqFold(argv[i], "streams") {
				n := (len(argv) - i - 1) / 2
				out := make([]int, n)
				for j := range out {
					out[j] = i + 1 + j
				}
				return out
			}
		}
		return nil
	default:
		// the legacy first/last/step range
		if cmd.firstKey <= 0 {
			return nil
		}
		last := cmd.lastKey
		if last < 0 {
			last += len(argv)
		}
		var out []int
		for i := cmd.firstKey; i <= last && i < len(argv); i += max(cmd.step, 1) {
			out = append(out, i)
		}
		return out
	}
	if numkeysAt >= len(argv) {
		return nil
	}
	n, ok := parseInt(argv[numkeysAt])
	if !ok || n <= 0 || int(n) > len(argv)-numkeysAt-1 {
		return nil
	}
	out := make([]int, n)
	for j := range out {
		out[j] = numkeysAt + 1 + j
	}
	return out
}

// deliverTracking hands a message to c: behind the reply being built when
// c is the client whose command runs (its output is written after the
// batch), asynchronously otherwise.
func (s *Server) deliverTracking(c *client, b []byte) {
	if c == s.curClient || s.tracking.Out() == tracking.Peer(c) {
		if c.flags&(flagReplyOff|flagReplySkip) == 0 {
			c.out = append(c.out, b...)
		}
		return
	}
	if c.flags&flagFake != 0 {
		return
	}
	c.pushMu.Lock()
	async := c.pushWriter
	c.pushMu.Unlock()
	if !async {
		if c.lc != nil {
			// Owned by the network loop: the loop hands it over between
			// its batches, and the message waits in its push buffer.
			c.push(b)
			c.requestAsync()
			return
		}
		if c.conn == nil {
			return
		}
		c.startPushWriter()
	}
	c.push(b)
}

func (s *Server) trackingMaxKeys() int64 {
	if v := s.cfg.Get("tracking-table-max-keys"); len(v) == 1 {
		n, _ := strconv.ParseInt(v[0][1], 10, 64)
		return n
	}
	return 0
}

// startTrackingCron runs tracking.Table.Cron every 100 ms while it asks
// for it.
func (s *Server) startTrackingCron() {
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.closing:
				return
			case <-tick.C:
			}
			s.mu.Lock()
			more := s.tracking.Cron(s.trackingMaxKeys())
			s.mu.Unlock()
			if !more {
				return
			}
		}
	}()
}
