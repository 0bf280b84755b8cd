package server

import (
	"sort"
	"strconv"
	"strings"
)

// Command flags, named as in Redis's COMMAND output.
const (
	cmdWrite uint64 = 1 << iota
	cmdReadonly
	cmdDenyOOM
	cmdAdmin
	cmdPubSub
	cmdNoScript
	cmdBlocking
	cmdLoading
	cmdStale
	cmdSkipMonitor
	cmdSkipSlowlog
	cmdFast
	cmdNoAuth
	cmdMayReplicate
	cmdNoMulti
	cmdAllowBusy
	cmdNoPropagate // never propagated itself (EXEC, EVAL): its effects are
	cmdTouchesArbitraryKeys
)

var flagNames = []struct {
	f    uint64
	name string
}{
	{cmdWrite, "write"}, {cmdReadonly, "readonly"}, {cmdDenyOOM, "denyoom"}, {cmdAdmin, "admin"},
	{cmdPubSub, "pubsub"}, {cmdNoScript, "noscript"}, {cmdBlocking, "blocking"}, {cmdLoading, "loading"},
	{cmdStale, "stale"}, {cmdSkipMonitor, "skip_monitor"}, {cmdSkipSlowlog, "skip_slowlog"},
	{cmdFast, "fast"}, {cmdNoAuth, "no_auth"}, {cmdMayReplicate, "may_replicate"}, {cmdNoMulti, "no_multi"},
	{cmdAllowBusy, "allow_busy"},
}

type cmdProc func(c *client, argv [][]byte)

// command is one entry of the command table. It drives dispatch, arity
// errors, COMMAND output and AOF propagation.
type command struct {
	name     string // lower case; "config|get" style for subcommands
	arity    int    // Redis convention: >0 exact, <0 at least -arity
	flags    uint64
	firstKey int
	lastKey  int
	step     int
	proc     cmdProc
	group    string
	summary  string
	since    string
	acl      []string // ACL categories, e.g. "@string"
	subs     map[string]*command
	parent   *command

	// statistics (executor-owned)
	calls, usec, rejected, failed int64
	hist                          *hdrHist // latency histogram (latency.go), nil until called
}

func (cmd *command) fullName() string {
	if cmd.parent != nil {
		return cmd.parent.name + "|" + cmd.name
	}
	return cmd.name
}

type commandTable map[string]*command

// register adds commands; used by the cmd_*.go files from init().
var builtin = commandTable{}

func register(cmds ...*command) {
	for _, c := range cmds {
		if c.step == 0 && c.firstKey > 0 {
			c.step = 1
		}
		if i := strings.IndexByte(c.name, '|'); i >= 0 {
			parent := builtin[c.name[:i]]
			if parent == nil {
				panic("parent command not registered: " + c.name)
			}
			if parent.subs == nil {
				parent.subs = map[string]*command{}
			}
			c.name = c.name[i+1:]
			c.parent = parent
			parent.subs[c.name] = c
			continue
		}
		builtin[c.name] = c
	}
}

// clone copies the table: each server keeps statistics of its own (tests
// run several servers in one process).
func (t commandTable) clone() commandTable {
	out := make(commandTable, len(t))
	for name, c := range t {
		cc := *c
		if c.subs != nil {
			cc.subs = make(map[string]*command, len(c.subs))
			for sn, sc := range c.subs {
				scc := *sc
				scc.parent = &cc
				cc.subs[sn] = &scc
			}
		}
		out[name] = &cc
	}
	return out
}

// lookupCommand finds argv's command; for container commands it descends
// into the subcommand. It returns the container (and nil) for an unknown
// subcommand so the caller can say so.
func (s *Server) lookupCommand(argv [][]byte) (cmd, container *command) {
	var buf [32]byte
	cmd = s.commands[string(lowerInto(buf[:0], argv[0]))]
	if cmd == nil || cmd.subs == nil {
		return cmd, nil
	}
	if len(argv) < 2 {
		return cmd, nil // arity error of the container
	}
	sub := cmd.subs[string(lowerInto(buf[:0], argv[1]))]
	if sub == nil {
		return nil, cmd
	}
	return sub, nil
}

// lowerASCII returns a lower-cased copy only if needed (usually not).
func lowerASCII(b []byte) []byte {
	for i := 0; i < len(b); i++ {
		if b[i] >= 'A' && b[i] <= 'Z' {
			out := make([]byte, len(b))
			for j := 0; j < len(b); j++ {
				c := b[j]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				out[j] = c
			}
			return out
		}
	}
	return b
}

func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		d := s[i]
		if d >= 'A' && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

func arityOK(cmd *command, n int) bool {
	if cmd.arity > 0 {
		return n == cmd.arity
	}
	return n >= -cmd.arity
}

// keyPositions returns the indexes of argv that are keys (legacy
// first/last/step; negative last counts from the end).
func (cmd *command) keyPositions(argv [][]byte) []int {
	if cmd.firstKey <= 0 {
		return nil
	}
	last := cmd.lastKey
	if last < 0 {
		last = len(argv) + last
	}
	var out []int
	for i := cmd.firstKey; i <= last && i < len(argv); i += cmd.step {
		out = append(out, i)
	}
	return out
}

func (t commandTable) sortedNames() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// unknownCommandError formats Redis's "unknown command" error.
func unknownCommandError(argv [][]byte) string {
	var sb strings.Builder
	for i := 1; i < len(argv) && sb.Len() < 128; i++ {
		a := cString(argv[i])
		room := 128 - sb.Len()
		if len(a) > room {
			a = a[:room]
		}
		sb.WriteByte('\'')
		sb.Write(a)
		sb.WriteString("' ")
	}
	name := cString(argv[0])
	if len(name) > 128 {
		name = name[:128]
	}
	return "ERR unknown command '" + string(name) + "', with args beginning with: " + sb.String()
}

func unknownSubcommandError(container *command, sub []byte) string {
	if len(sub) > 128 {
		sub = sub[:128]
	}
	return "ERR unknown subcommand '" + string(sub) + "'. Try " + strings.ToUpper(container.name) + " HELP."
}

func arityError(cmd *command) string {
	return "ERR wrong number of arguments for '" + cmd.fullName() + "' command"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// cString cuts b at its first NUL, as Redis's %s formatting of sds does.
func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// lowerInto appends b lower-cased to dst; with a stack buffer and the
// map[string(bytes)] form, command lookup does not allocate.
func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
