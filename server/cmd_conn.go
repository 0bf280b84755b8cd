package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/aofserver/aofserver/acl"
	"github.com/aofserver/aofserver/pubsub"
	"github.com/aofserver/aofserver/tracking"
)

func init() {
	cn := func(name string, arity int, flags uint64, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "connection", summary: summary, since: since, acl: append([]string{"@connection"}, acl...)}
	}
	ls := cmdLoading | cmdStale
	register(
		cn("ping", -1, cmdFast, pingCommand, "Ping the server", "1.0.0", "@fast"),
		cn("echo", 2, cmdFast|ls, echoCommand, "Echo the given string", "1.0.0", "@fast"),
		cn("quit", -1, cmdAllowBusy|cmdNoAuth|ls|cmdFast|cmdNoScript, quitCommand, "Close the connection", "1.0.0", "@fast"),
		cn("reset", 1, cmdNoScript|cmdLoading|cmdStale|cmdNoAuth|cmdFast|cmdAllowBusy, resetCommand, "Reset the connection", "6.2.0", "@fast"),
		cn("select", 2, ls|cmdFast, selectCommand, "Change the selected database for the current connection", "1.0.0", "@fast"),
		cn("auth", -2, cmdNoScript|ls|cmdFast|cmdNoAuth|cmdAllowBusy, authCommand, "Authenticate to the server", "1.0.0", "@fast"),
		cn("hello", -1, cmdNoScript|ls|cmdFast|cmdNoAuth|cmdAllowBusy, helloCommand, "Handshake with Redis", "6.0.0", "@fast"),
		cn("client", -2, 0, nil, "A container for client connection commands", "2.4.0", "@slow"),
		cn("client|id", 2, cmdNoScript|ls, clientIDCommand, "Returns the client ID for the current connection", "5.0.0", "@slow"),
		cn("client|setname", 3, cmdNoScript|ls, clientSetnameCommand, "Set the current connection name", "2.6.9", "@slow"),
		cn("client|getname", 2, cmdNoScript|ls, clientGetnameCommand, "Get the current connection name", "2.6.9", "@slow"),
		cn("client|list", -2, cmdAdmin|cmdNoScript|ls, clientListCommand, "Get the list of client connections", "2.4.0", "@admin", "@slow", "@dangerous"),
		cn("client|info", 2, cmdNoScript|ls, clientInfoCommand, "Returns information about the current client connection.", "6.2.0", "@slow"),
		cn("client|kill", -3, cmdAdmin|cmdNoScript|ls, clientKillCommand, "Kill the connection of a client", "2.4.0", "@admin", "@slow", "@dangerous"),
		cn("client|pause", -3, cmdAdmin|cmdNoScript|ls, clientPauseCommand, "Stop processing commands from clients for some time", "2.9.50", "@admin", "@slow", "@dangerous"),
		cn("client|unpause", 2, cmdAdmin|cmdNoScript|ls, clientUnpauseCommand, "Resume processing of clients that were paused", "6.2.0", "@admin", "@slow", "@dangerous"),
		cn("client|no-evict", 3, cmdAdmin|cmdNoScript|ls, clientNoEvictCommand, "Set client eviction mode for the current connection", "7.0.0", "@admin", "@slow", "@dangerous"),
		cn("client|help", 2, ls, clientHelpCommand, "Show helpful text about the different subcommands", "5.0.0", "@slow"),
		cn("client|tracking", -3, cmdNoScript|ls, clientTrackingCommand, "Enable or disable server assisted client side caching support", "6.0.0", "@slow"),
		cn("client|caching", 3, cmdNoScript|ls, clientCachingCommand, "Instruct the server about tracking or not keys in the next request", "6.0.0", "@slow"),
		cn("client|getredir", 2, cmdNoScript|ls, clientGetredirCommand, "Get tracking notifications redirection client ID if any", "6.0.0", "@slow"),
		cn("client|trackinginfo", 2, cmdNoScript|ls, clientTrackinginfoCommand, "Return information about server assisted client side caching for the current connection", "6.2.0", "@slow"),
		cn("client|reply", 3, cmdNoScript|ls, clientReplyCommand, "Instruct the server whether to reply to commands", "3.2.0", "@slow"),
		cn("client|unblock", -3, cmdAdmin|cmdNoScript|ls, clientUnblockCommand, "Unblock a client blocked in a blocking command from a different connection", "5.0.0", "@admin", "@slow", "@dangerous"),
	)
}

func pingCommand(c *client, argv [][]byte) {
	if len(argv) > 2 {
		c.err(arityError(c.srv.commands["ping"]))
		return
	}
	if c.flags&flagPubSub != 0 && c.resp == 2 {
		c.arrayLen(2)
		c.bulkString("pong")
		if len(argv) == 2 {
			c.bulk(argv[1])
		} else {
			c.bulkString("")
		}
		return
	}
	if len(argv) == 2 {
		c.bulk(argv[1])
		return
	}
	c.addReplyString("+PONG\r\n")
}

func echoCommand(c *client, argv [][]byte) { c.bulk(argv[1]) }

func quitCommand(c *client, argv [][]byte) {
	c.ok()
	c.flags |= flagCloseAfterReply
}

func resetCommand(c *client, argv [][]byte) {
	s := c.srv
	// Redis's clearClientConnectionState, in its order.
	if c.flags&flagMonitor != 0 {
		delete(s.monitors, c)
		c.flags &^= flagMonitor
	}
	if c.trk.Flags()&tracking.On != 0 {
		s.tracking.Disable(c)
	}
	c.db = s.dbs[0]
	c.resp = 2
	s.setDefaultAuth(c)
	c.discardTransaction()
	s.pubsubUnsubscribeAll(c)
	c.name = ""
	c.noTouch = false
	// CLIENT NO-EVICT survives: 7.0.15 clears only these state flags.
	c.flags &^= flagPubSub | flagReplyOff | flagReplySkipNext
	c.status("RESET")
}

func selectCommand(c *client, argv [][]byte) {
	s := c.srv
	n, ok := s.parseDBIndex(c, argv[1], "ERR DB index is out of range")
	if !ok {
		return
	}
	c.db = s.dbs[n]
	c.ok()
}

func authCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 3 {
		c.errSyntax()
		return
	}
	c.redactArg(argv, 1)
	user, pass := []byte("default"), argv[1]
	if len(argv) == 2 {
		if s.acl.def.NoPass() {
			c.err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
	} else {
		user, pass = argv[1], argv[2]
		c.redactArg(argv, 2)
	}
	if !s.authenticate(c, user, pass, argv[0]) {
		c.err("WRONGPASS invalid username-password pair or user is disabled.")
		return
	}
	c.ok()
}

func helloCommand(c *client, argv [][]byte) {
	s := c.srv
	ver := int64(0)
	i := 1
	if len(argv) >= 2 {
		v, ok := parseInt(argv[1])
		if !ok {
			c.err("ERR Protocol version is not an integer or out of range")
			return
		}
		ver = v
		i = 2
		if ver < 2 || ver > 3 {
			c.err("NOPROTO unsupported protocol version")
			return
		}
	}
	for ; i < len(argv); i++ {
		more := len(argv) - i - 1
		switch {
		case eqFold(argv[i], "auth") && more >= 2:
			c.redactArg(argv, i+1)
			c.redactArg(argv, i+2)
			if !s.authenticate(c, argv[i+1], argv[i+2], argv[0]) {
				c.err("WRONGPASS invalid username-password pair or user is disabled.")
				return
			}
			i += 2
		case eqFold(argv[i], "setname") && more >= 1:
			// Redis 7.0.15 names the client at once (clientSetNameOrReply),
			// before the authentication check
			if !validClientName(argv[i+1]) {
				c.err("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			c.name = string(argv[i+1])
			i++
		default:
			c.err("ERR Syntax error in HELLO option '" + string(argv[i]) + "'")
			return
		}
	}
	if !c.authed {
		// Redis 7.0.15's text (7.2 added "<proto>" after HELLO).
		c.err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if ver != 0 {
		c.resp = int(ver)
		if c.resp == 3 && c.trk.Flags()&tracking.On != 0 {
			c.goAsync() // invalidations may now come at any time
		}
	}
	c.mapLen(7)
	c.bulkString("server")
	c.bulkString("redis")
	c.bulkString("version")
	c.bulkString(Version)
	c.bulkString("proto")
	c.integer(int64(c.resp))
	c.bulkString("id")
	c.integer(c.id)
	c.bulkString("mode")
	c.bulkString("standalone")
	c.bulkString("role")
	c.bulkString("master")
	c.bulkString("modules")
	c.emptyArray()
}

func validClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

func clientIDCommand(c *client, argv [][]byte) { c.integer(c.id) }

func clientSetnameCommand(c *client, argv [][]byte) {
	if !validClientName(argv[2]) {
		c.err("ERR Client names cannot contain spaces, newlines or special characters.")
		return
	}
	c.name = string(argv[2])
	c.ok()
}

func clientGetnameCommand(c *client, argv [][]byte) {
	if c.name == "" {
		c.nullBulk()
		return
	}
	c.bulkString(c.name)
}

// infoLine is the client's CLIENT LIST line (without the newline) as
// seen by another client, safe from any goroutine holding s.mu.
func (c *client) infoLine() string { return c.infoLineFor(nil) }

// infoLineFor is Redis 7.0.15's getClientInfoString as seen by viewer: the
// query buffer and argv figures are read only for the viewer itself, whose
// goroutine owns its reader; another connection's reader changes outside
// the lock, so its size comes from the copy its goroutine publishes.
func (c *client) infoLineFor(viewer *client) string {
	return c.infoLineOmem(viewer, c.outputMemory())
}

// infoLineOmem is infoLineFor with the output buffer size given (the
// limit check holds pushMu, which outputMemory takes).
func (c *client) infoLineOmem(viewer *client, omem int64) string {
	now := time.Now()
	// Redis's order (getClientInfoString).
	var fl []byte
	if c.flags&flagMonitor != 0 {
		fl = append(fl, 'O')
	}
	if c.flags&flagReplica != 0 {
		fl = append(fl, 'S')
	}
	if c.flags&flagMaster != 0 {
		fl = append(fl, 'M')
	}
	if c.flags&flagPubSub != 0 {
		fl = append(fl, 'P')
	}
	if c.flags&flagMulti != 0 {
		fl = append(fl, 'x')
	}
	if c.flags&flagBlocked != 0 {
		fl = append(fl, 'b')
	}
	if c.trk.Flags()&tracking.On != 0 {
		fl = append(fl, 't')
	}
	if c.trk.Flags()&tracking.BrokenRedir != 0 {
		fl = append(fl, 'R')
	}
	if c.trk.Flags()&tracking.Bcast != 0 {
		fl = append(fl, 'B')
	}
	if c.flags&flagDirtyCAS != 0 {
		fl = append(fl, 'd')
	}
	if c.flags&flagCloseAfterReply != 0 {
		fl = append(fl, 'c')
	}
	if c.flags&flagCloseASAP != 0 {
		fl = append(fl, 'A')
	}
	if c.flags&flagUnixSocket != 0 {
		fl = append(fl, 'U')
	}
	if c.flags&flagNoEvict != 0 {
		fl = append(fl, 'e')
	}
	if len(fl) == 0 {
		fl = append(fl, 'N')
	}
	multi := -1
	if c.flags&flagMulti != 0 {
		multi = len(c.mstate)
	}
	dbid := 0
	if c.db != nil {
		dbid = c.db.id
	}
	cmd := c.lastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	redir := int64(-1)
	if c.trk.Flags()&tracking.On != 0 {
		redir = c.trk.Redir()
	}
	// The query buffer as Redis would hold it (resp.Reader.QB); while the
	// viewer's own command runs, it still holds the whole read.
	qbuf, qfree := c.rd.QB.Figures()
	qalloc := qbuf + qfree
	if viewer == c {
		qbuf = c.rd.BatchBytes()
		qfree = max(qalloc-qbuf, 0)
	}
	argvMem, _ := c.argvMem()
	multiMem := c.multiMem()
	user := "(superuser)"
	if c.user != nil {
		user = c.user.Name
	}
	events := "r"
	if omem > 0 {
		events = "rw"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d qbuf=%d qbuf-free=%d argv-mem=%d multi-mem=%d rbs=%d rbp=%d obl=0 oll=0 omem=%d tot-mem=%d events=%s cmd=%s user=%s redir=%d resp=%d",
		c.id, c.addr, c.laddr, 8+c.id, c.name, int64(now.Sub(c.created).Seconds()), (now.UnixNano()-c.lastInter.Load())/1e9,
		fl, dbid, c.subs.Len(pubsub.Channel), c.subs.Len(pubsub.Pattern), c.subs.Len(pubsub.Shard), multi, qbuf, qfree, argvMem, multiMem, c.rbuf.usable, c.rbuf.peak, omem, c.memoryUsage(omem), events, cmd, user, redir, c.resp)
}

func clientListCommand(c *client, argv [][]byte) {
	s := c.srv
	var ids map[int64]bool
	typ := ""
	for i := 2; i < len(argv); i++ {
		switch {
		case eqFold(argv[i], "type") && i+1 < len(argv):
			typ = strings.ToLower(string(argv[i+1]))
			switch typ {
			case "normal", "pubsub", "master", "replica", "slave":
			default:
				c.err("ERR Unknown client type '" + string(argv[i+1]) + "'")
				return
			}
			i++
		case eqFold(argv[i], "id") && i+1 < len(argv):
			ids = map[int64]bool{}
			for _, a := range argv[i+1:] {
				// Any integer: one no client has just lists nobody.
				id, ok := parseInt(a)
				if !ok {
					c.err("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
			i = len(argv)
		default:
			c.errSyntax()
			return
		}
	}
	var sb strings.Builder
	for _, id := range s.sortedClientIDs() {
		cl := s.clients[id]
		if ids != nil && !ids[id] {
			continue
		}
		if typ != "" && !cl.hasType(typ) {
			continue
		}
		sb.WriteString(cl.infoLineFor(c))
		sb.WriteByte('\n')
	}
	c.verbatim("txt", []byte(sb.String()))
}

func (s *Server) sortedClientIDs() []int64 {
	ids := make([]int64, 0, len(s.clients))
	for id := range s.clients {
		ids = append(ids, id)
	}
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

func clientInfoCommand(c *client, argv [][]byte) {
	c.verbatim("txt", []byte(c.infoLineFor(c)+"\n"))
}

func clientKillCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 3 {
		for _, cl := range s.clients {
			if cl.addr == string(argv[2]) {
				s.killClient(cl)
				c.ok()
				return
			}
		}
		c.err("ERR No such client")
		return
	}
	if len(argv)%2 != 0 {
		c.errSyntax()
		return
	}
	var id int64 = -1
	addr, laddr, typ := "", "", ""
	skipme := true
	var user *acl.User
	for i := 2; i < len(argv); i += 2 {
		v := argv[i+1]
		switch {
		case eqFold(argv[i], "id"):
			n, ok := parseInt(v)
			if !ok || n <= 0 {
				c.err("ERR client-id should be greater than 0")
				return
			}
			id = n
		case eqFold(argv[i], "addr"):
			addr = string(v)
		case eqFold(argv[i], "laddr"):
			laddr = string(v)
		case eqFold(argv[i], "type"):
			typ = strings.ToLower(string(v))
			switch typ {
			case "normal", "pubsub", "master", "replica", "slave":
			default:
				c.err("ERR Unknown client type '" + string(v) + "'")
				return
			}
		case eqFold(argv[i], "user"):
			if user = s.acl.users[string(v)]; user == nil {
				c.err("ERR No such user '" + string(v) + "'")
				return
			}
		case eqFold(argv[i], "skipme"):
			if eqFold(v, "yes") {
				skipme = true
			} else if eqFold(v, "no") {
				skipme = false
			} else {
				c.errSyntax()
				return
			}
		default:
			c.errSyntax()
			return
		}
	}
	killed := 0
	for _, cl := range s.clients {
		if id != -1 && cl.id != id {
			continue
		}
		if addr != "" && cl.addr != addr {
			continue
		}
		if laddr != "" && cl.laddr != laddr {
			continue
		}
		if typ != "" && !cl.hasType(typ) {
			continue
		}
		if user != nil && cl.user != user {
			continue
		}
		if skipme && cl == c {
			continue
		}
		s.killClient(cl)
		killed++
	}
	c.integer(int64(killed))
}

func (s *Server) killClient(cl *client) {
	cl.flags |= flagCloseASAP
	// Forgotten now as a waiter: a push right after CLIENT KILL must not
	// be handed to it before its goroutine sees the closed socket.
	s.unblockClient(cl)
	cl.conn.Close()
}

func clientPauseCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 4 {
		c.err("ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.")
		return
	}
	ms, ok := parseInt(argv[2])
	if !ok {
		c.err("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.err("ERR timeout is negative")
		return
	}
	writes := false
	if len(argv) == 4 {
		switch {
		case eqFold(argv[3], "write"):
			writes = true
		case eqFold(argv[3], "all"):
		default:
			c.err("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	s.pauseClients(time.Now().Add(time.Duration(ms)*time.Millisecond), writes)
	c.ok()
}

func clientUnpauseCommand(c *client, argv [][]byte) {
	c.srv.unpauseClients()
	c.ok()
}

// clientTrackingCommand is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], checked in Redis 7.0's order.
func clientTrackingCommand(c *client, argv [][]byte) {
	s := c.srv
	var redir int64
	var options uint32
	var prefixes []string
	for j := 3; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case eqFold(argv[j], "redirect") && more > 0:
			j++
			if redir != 0 {
				c.err("ERR A client can only redirect to a single other client")
				return
			}
			n, ok := parseInt(argv[j])
			if !ok {
				c.errNotInt()
				return
			}
			if s.clients[n] == nil {
				c.err("ERR The client ID you want redirect to does not exist")
				return
			}
			redir = n
		case eqFold(argv[j], "bcast"):
			options |= tracking.Bcast
		case eqFold(argv[j], "optin"):
			options |= tracking.Optin
		case eqFold(argv[j], "optout"):
			options |= tracking.Optout
		case eqFold(argv[j], "noloop"):
			options |= tracking.Noloop
		case eqFold(argv[j], "prefix") && more > 0:
			j++
			prefixes = append(prefixes, string(argv[j]))
		default:
			c.errSyntax()
			return
		}
	}
	switch {
	case eqFold(argv[2], "on"):
		if options&tracking.Bcast == 0 && len(prefixes) > 0 {
			c.err("ERR PREFIX option requires BCAST mode to be enabled")
			return
		}
		if c.trk.Flags()&tracking.On != 0 && (c.trk.Flags()&tracking.Bcast != 0) != (options&tracking.Bcast != 0) {
			c.err("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if options&tracking.Bcast != 0 && options&(tracking.Optin|tracking.Optout) != 0 {
			c.err("ERR OPTIN and OPTOUT are not compatible with BCAST")
			return
		}
		if options&tracking.Optin != 0 && options&tracking.Optout != 0 {
			c.err("ERR You can't specify both OPTIN mode and OPTOUT mode")
			return
		}
		if options&tracking.Optin != 0 && c.trk.Flags()&tracking.Optout != 0 || options&tracking.Optout != 0 && c.trk.Flags()&tracking.Optin != 0 {
			c.err("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if options&tracking.Bcast != 0 {
			if msg, stop := tracking.PrefixCollision(&c.trk, prefixes); msg != "" {
				c.err(msg)
				if stop {
					return
				}
			}
		}
		s.enableTracking(c, redir, options, prefixes)
	case eqFold(argv[2], "off"):
		s.tracking.Disable(c)
	default:
		c.errSyntax()
		return
	}
	c.ok()
}

func clientCachingCommand(c *client, argv [][]byte) {
	if c.trk.Flags()&tracking.On == 0 {
		c.err("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case eqFold(argv[2], "yes"):
		if c.trk.Flags()&tracking.Optin == 0 {
			c.err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case eqFold(argv[2], "no"):
		if c.trk.Flags()&tracking.Optout == 0 {
			c.err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		c.errSyntax()
		return
	}
	c.trk.SetCaching()
	c.ok()
}

func clientGetredirCommand(c *client, argv [][]byte) {
	if c.trk.Flags()&tracking.On != 0 {
		c.integer(c.trk.Redir())
		return
	}
	c.integer(-1)
}

func clientTrackinginfoCommand(c *client, argv [][]byte) {
	f := c.trk.Flags()
	flags := []string{"off"}
	if f&tracking.On != 0 {
		flags[0] = "on"
	}
	if f&tracking.Bcast != 0 {
		flags = append(flags, "bcast")
	}
	if f&tracking.Optin != 0 {
		flags = append(flags, "optin")
		if f&tracking.Caching != 0 {
			flags = append(flags, "caching-yes")
		}
	}
	if f&tracking.Optout != 0 {
		flags = append(flags, "optout")
		if f&tracking.Caching != 0 {
			flags = append(flags, "caching-no")
		}
	}
	if f&tracking.Noloop != 0 {
		flags = append(flags, "noloop")
	}
	if f&tracking.BrokenRedir != 0 {
		flags = append(flags, "broken_redirect")
	}
	c.mapLen(3)
	c.bulkString("flags")
	c.setLen(len(flags))
	for _, fl := range flags {
		c.bulkString(fl)
	}
	c.bulkString("redirect")
	if f&tracking.On != 0 {
		c.integer(c.trk.Redir())
	} else {
		c.integer(-1)
	}
	c.bulkString("prefixes")
	ps := c.trk.Prefixes()
	c.arrayLen(len(ps))
	for _, p := range ps {
		c.bulkString(p)
	}
}

// clientReplyCommand is CLIENT REPLY ON|OFF|SKIP; OFF and SKIP are not
// answered (applyReplyMode drops their reply).
func clientReplyCommand(c *client, argv [][]byte) {
	switch {
	case eqFold(argv[2], "on"):
		c.flags &^= flagReplySkip | flagReplyOff
		c.ok()
	case eqFold(argv[2], "off"):
		c.flags |= flagReplyOff
	case eqFold(argv[2], "skip"):
		if c.flags&flagReplyOff == 0 {
			c.flags |= flagReplySkipNext
		}
	default:
		c.errSyntax()
	}
}

// applyReplyMode drops the reply of the command that just ran (from mark
// on) under CLIENT REPLY OFF or SKIP, then moves SKIP on to the next
// command (Redis's prepareClientToWrite and resetClient).
func (c *client) applyReplyMode(mark int) {
	if c.flags&(flagReplyOff|flagReplySkip) != 0 && len(c.out) > mark {
		// Pushes (keepOut) stay, moved down over what is dropped.
		kept := c.out[:mark]
		for _, sp := range c.keepOut {
			if sp[0] >= mark {
				kept = append(kept, c.out[sp[0]:sp[1]]...)
			}
		}
		c.out = kept
	}
	c.keepOut = c.keepOut[:0]
	c.flags &^= flagReplySkip
	if c.flags&flagReplySkipNext != 0 {
		c.flags |= flagReplySkip
		c.flags &^= flagReplySkipNext
	}
}

func clientNoEvictCommand(c *client, argv [][]byte) {
	switch {
	case eqFold(argv[2], "on"):
		c.flags |= flagNoEvict
	case eqFold(argv[2], "off"):
		c.flags &^= flagNoEvict
	default:
		c.errSyntax()
		return
	}
	c.ok()
}

func clientHelpCommand(c *client, argv [][]byte) {
	lines := []string{
		"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CACHING (YES|NO)",
		"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR",
		"    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"UNPAUSE",
		"    Stop the current client pause, resuming traffic.",
		"PAUSE <timeout> [WRITE|ALL]",
		"    Suspend all, or just write, clients for <timeout> milliseconds.",
		"REPLY (ON|OFF|SKIP)",
		"    Control the replies sent to the current connection.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]",
		"    Unblock the specified blocked client.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
		"         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO",
		"    Report tracking status for the current connection.",
		"NO-EVICT (ON|OFF)",
		"    Protect current client connection from eviction.",
		"HELP",
		"    Prints this help.",
	}
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}
