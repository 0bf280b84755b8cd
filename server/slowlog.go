package server

import (
	"strconv"
	"time"

	"github.com/aofserver/aofserver/config"
)

type slowlogEntry struct {
	id       int64
	time     int64
	duration int64
	argv     [][]byte
	addr     string
	name     string
}

type slowlog struct {
	entries []slowlogEntry // newest first
	nextID  int64
}

func (l *slowlog) init() {}

var redacted = []byte("(redacted)")

// redactArg makes SLOWLOG and MONITOR show argv[i] of the command being
// executed as "(redacted)" (Redis redactClientCommandArgument): AUTH, HELLO
// AUTH, ACL SETUSER and CONFIG SET of a secret call it before they can fail.
func (c *client) redactArg(argv [][]byte, i int) {
	if c.logArgv == nil {
		c.logArgv = append(make([][]byte, 0, len(argv)), argv...)
	}
	c.logArgv[i] = redacted
}

// loggedArgv is what SLOWLOG and MONITOR show of the command that ran with
// argv: the arguments as the client sent them, secrets redacted. (Commands
// that propagate differently, SET EX as SET PXAT, SPOP as SREM, ... only
// change their propagated copy, c.propArgv.)
func (c *client) loggedArgv(argv [][]byte) [][]byte {
	if c.logArgv != nil {
		return c.logArgv
	}
	return argv
}

// sensitiveConfig reports whether CONFIG SET name takes a secret.
func sensitiveConfig(name []byte) bool { return config.Sensitive(string(name)) }

// aofLoadingContext: commands replayed from the AOF (and scripts they run)
// are neither slow-logged nor shown to MONITOR (Redis isAOFLoadingContext).
func (s *Server) aofLoadingContext(c *client) bool {
	return s.loading && c.flags&flagFake != 0
}

func (l *slowlog) maybeAdd(s *Server, c *client, argv [][]byte, d time.Duration) {
	thr := s.cfg.SlowlogLogSlowerThan
	if thr < 0 || d.Microseconds() < thr || s.aofLoadingContext(c) {
		return
	}
	max := s.cfg.SlowlogMaxLen
	// Redis trims argv to 32 args and each arg to 128 bytes.
	n := len(argv)
	if n > 32 {
		n = 32
	}
	args := make([][]byte, n)
	for i := 0; i < n; i++ {
		if i == 31 && len(argv) > 32 {
			args[i] = []byte("... (" + strconv.Itoa(len(argv)-31) + " more arguments)")
			break
		}
		a := argv[i]
		if len(a) > 128 {
			args[i] = []byte(string(a[:128]) + "... (" + strconv.Itoa(len(a)-128) + " more bytes)")
		} else {
			args[i] = cloneBytes(a)
		}
	}
	addr := c.addr
	if c.flags&flagFake != 0 {
		addr = "?:0" // a script's client: Redis's peer id of a client without a connection
	}
	e := slowlogEntry{id: l.nextID, time: time.Now().Unix(), duration: d.Microseconds(), argv: args, addr: addr, name: c.name}
	l.nextID++
	l.entries = append([]slowlogEntry{e}, l.entries...)
	if max >= 0 && len(l.entries) > max {
		l.entries = l.entries[:max]
	}
}

func slowlogGetCommand(c *client, argv [][]byte) {
	l := &c.srv.slowlog
	count := int64(10)
	if len(argv) == 3 {
		n, ok := parseInt(argv[2])
		if !ok || n < -1 {
			c.err("ERR count should be greater than or equal to -1")
			return
		}
		if n == -1 {
			n = int64(len(l.entries))
		}
		count = n
	} else if len(argv) > 3 {
		c.err(arityError(c.srv.commands["slowlog"].subs["get"]))
		return
	}
	if count > int64(len(l.entries)) {
		count = int64(len(l.entries))
	}
	c.arrayLen(int(count))
	for _, e := range l.entries[:count] {
		c.arrayLen(6)
		c.integer(e.id)
		c.integer(e.time)
		c.integer(e.duration)
		c.arrayLen(len(e.argv))
		for _, a := range e.argv {
			c.bulk(a)
		}
		c.bulkString(e.addr)
		c.bulkString(e.name)
	}
}

func slowlogLenCommand(c *client, argv [][]byte) { c.integer(int64(len(c.srv.slowlog.entries))) }

func slowlogResetCommand(c *client, argv [][]byte) {
	c.srv.slowlog.entries = nil
	c.ok()
}

func slowlogHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.",
		"HELP",
		"    Prints this help.",
	})
}
