package server

import (
	"fmt"
	"strings"
	"time"
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
	if c.flags&flagMulti != 0 {
		c.discardTransaction()
	}
	s.unwatchAll(c)
	s.pubsubUnsubscribeAll(c)
	c.flags &^= flagPubSub | flagDirtyCAS | flagNoEvict
	if c.flags&flagMonitor != 0 {
		delete(s.monitors, c)
		c.flags &^= flagMonitor
	}
	c.db = s.dbs[0]
	c.resp = 2
	c.name = ""
	c.noTouch = false
	if s.cfg.Requirepass != "" {
		c.authed = false
	}
	c.status("RESET")
}

func selectCommand(c *client, argv [][]byte) {
	s := c.srv
	n, ok := parseInt(argv[1])
	if !ok {
		c.err("ERR value is not an integer or out of range")
		return
	}
	if n < 0 || n >= int64(len(s.dbs)) {
		c.err("ERR DB index is out of range")
		return
	}
	c.db = s.dbs[n]
	c.ok()
}

// checkAuth validates credentials for the default user.
func (s *Server) checkAuth(user, pass []byte) bool {
	if user != nil && string(user) != "default" {
		return false
	}
	if s.cfg.Requirepass == "" {
		return true
	}
	return string(pass) == s.cfg.Requirepass
}

func authCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 3 {
		c.errSyntax()
		return
	}
	c.redactArg(argv, 1)
	if len(argv) == 3 {
		c.redactArg(argv, 2)
	}
	var user, pass []byte
	if len(argv) == 2 {
		if s.cfg.Requirepass == "" {
			c.err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		pass = argv[1]
	} else {
		user, pass = argv[1], argv[2]
	}
	if !s.checkAuth(user, pass) {
		c.err("WRONGPASS invalid username-password pair or user is disabled.")
		return
	}
	c.authed = true
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
	var name []byte
	setName := false
	for ; i < len(argv); i++ {
		more := len(argv) - i - 1
		switch {
		case eqFold(argv[i], "auth") && more >= 2:
			c.redactArg(argv, i+1)
			c.redactArg(argv, i+2)
			if !s.checkAuth(argv[i+1], argv[i+2]) {
				c.err("WRONGPASS invalid username-password pair or user is disabled.")
				return
			}
			c.authed = true
			i += 2
		case eqFold(argv[i], "setname") && more >= 1:
			name = argv[i+1]
			setName = true
			i++
		default:
			c.err("ERR Syntax error in HELLO option '" + string(argv[i]) + "'")
			return
		}
	}
	if s.cfg.Requirepass != "" && !c.authed {
		// Redis 7.0.15's text (7.2 added "<proto>" after HELLO).
		c.err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		if !validClientName(name) {
			c.err("ERR Client names cannot contain spaces, newlines or special characters.")
			return
		}
		c.name = string(name)
	}
	if ver != 0 {
		c.resp = int(ver)
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

// infoLine is the client's CLIENT LIST line (without the newline).
func (c *client) infoLine() string {
	now := time.Now()
	// Redis's order (getClientInfoString).
	flags := ""
	if c.flags&flagMonitor != 0 {
		flags += "O"
	}
	if c.flags&flagPubSub != 0 {
		flags += "P"
	}
	if c.flags&flagMulti != 0 {
		flags += "x"
	}
	if c.flags&flagBlocked != 0 {
		flags += "b"
	}
	if c.flags&flagDirtyCAS != 0 {
		flags += "d"
	}
	if c.flags&flagNoEvict != 0 {
		flags += "e"
	}
	if flags == "" {
		flags = "N"
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
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=0 multi=%d qbuf=%d qbuf-free=%d argv-mem=0 multi-mem=0 rbs=%d rbp=0 obl=0 oll=0 omem=0 tot-mem=%d events=r cmd=%s user=default redir=-1 resp=%d",
		c.id, c.addr, c.laddr, 8+c.id, c.name, int64(now.Sub(c.created).Seconds()), (now.UnixNano()-c.lastInter.Load())/1e9,
		flags, dbid, len(c.channels), len(c.patterns), multi, c.rd.end-c.rd.pos, len(c.rd.buf)-c.rd.end, len(c.rd.buf), len(c.rd.buf)+cap(c.out), cmd, c.resp)
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
				id, ok := parseInt(a)
				if !ok || id <= 0 {
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
		switch typ {
		case "pubsub":
			if cl.flags&flagPubSub == 0 {
				continue
			}
		case "normal":
			if cl.flags&flagPubSub != 0 {
				continue
			}
		case "master", "replica", "slave":
			continue
		}
		sb.WriteString(cl.infoLine())
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
	c.verbatim("txt", []byte(c.infoLine()+"\n"))
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
	var maxAge int64 = -1
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
			if string(v) != "default" {
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
		case eqFold(argv[i], "maxage"):
			n, ok := parseInt(v)
			if !ok {
				c.errNotInt()
				return
			}
			maxAge = n
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
		if typ == "pubsub" && cl.flags&flagPubSub == 0 || typ == "normal" && cl.flags&flagPubSub != 0 || typ == "master" || typ == "replica" || typ == "slave" {
			continue
		}
		if skipme && cl == c {
			continue
		}
		if maxAge >= 0 && int64(time.Since(cl.created).Seconds()) < maxAge {
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
	ms, ok := parseInt(argv[2])
	if !ok || ms < 0 {
		c.err("ERR timeout is not an integer or out of range")
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
	} else if len(argv) > 4 {
		c.errSyntax()
		return
	}
	until := time.Now().Add(time.Duration(ms) * time.Millisecond)
	if until.After(s.pausedUntil) || !writes {
		s.pausedUntil = until
	}
	s.pauseWrites = writes
	c.ok()
}

func clientUnpauseCommand(c *client, argv [][]byte) {
	c.srv.pausedUntil = time.Time{}
	c.ok()
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
		"    * ID <client-id>",
		"      Kill connections by client id.",
		"    * MAXAGE <maxage>",
		"      Kill connections older than the specified age.",
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
