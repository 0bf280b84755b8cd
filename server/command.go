package server

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aofserver/aofserver/acl"
	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/hdrhist"
	"github.com/aofserver/aofserver/rstring"

	seam "github.com/aofserver/aofserver/command"
)

// Command flags, named as in Redis's COMMAND output (the seam's, which the
// command groups outside this package use too).
const (
	cmdWrite                = seam.FlagWrite
	cmdReadonly             = seam.FlagReadonly
	cmdDenyOOM              = seam.FlagDenyOOM
	cmdAdmin                = seam.FlagAdmin
	cmdPubSub               = seam.FlagPubSub
	cmdNoScript             = seam.FlagNoScript
	cmdBlocking             = seam.FlagBlocking
	cmdLoading              = seam.FlagLoading
	cmdStale                = seam.FlagStale
	cmdSkipMonitor          = seam.FlagSkipMonitor
	cmdSkipSlowlog          = seam.FlagSkipSlowlog
	cmdFast                 = seam.FlagFast
	cmdNoAuth               = seam.FlagNoAuth
	cmdMayReplicate         = seam.FlagMayReplicate
	cmdNoMulti              = seam.FlagNoMulti
	cmdAllowBusy            = seam.FlagAllowBusy
	cmdNoPropagate          = seam.FlagNoPropagate // never propagated itself (EXEC, EVAL): its effects are
	cmdTouchesArbitraryKeys = seam.FlagTouchesArbitraryKeys
)

// flagNames are the bits behind the flag names COMMAND INFO reports, in
// its order. Redis's reported flags without a bit here (movablekeys,
// no_mandatory_keys, asking, ...) come from the metadata only; may_replicate
// is one Redis hides from COMMAND INFO ("Hidden on purpose" in server.c),
// so its bit stays as registered.
var flagNames = []struct {
	f    uint64
	name string
}{
	{cmdWrite, "write"}, {cmdReadonly, "readonly"}, {cmdDenyOOM, "denyoom"}, {cmdAdmin, "admin"},
	{cmdPubSub, "pubsub"}, {cmdNoScript, "noscript"}, {cmdBlocking, "blocking"}, {cmdLoading, "loading"},
	{cmdStale, "stale"}, {cmdSkipMonitor, "skip_monitor"}, {cmdSkipSlowlog, "skip_slowlog"},
	{cmdFast, "fast"}, {cmdNoAuth, "no_auth"}, {cmdNoMulti, "no_multi"}, {cmdAllowBusy, "allow_busy"},
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
	// meta is Redis 7.0.15's metadata of the command (COMMAND INFO and
	// DOCS); the fields above are set from it by applyRedisMeta.
	meta *cmdmeta.Meta
	// aclCmd is the command as the ACL rules know it; set by
	// assignACLCommands.
	aclCmd *acl.Command

	// statistics (executor-owned)
	calls, usec, rejected, failed int64
	hist                          *hdrhist.Hist // latency histogram (package hdrhist), nil until called
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
	builtinMetaOnce.Do(initBuiltin)
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

// eqFold is strcasecmp(b, s) == 0.
func eqFold(b []byte, s string) bool { return rstring.EqualFold(b, s) }

func arityOK(cmd *command, n int) bool {
	if cmd.arity > 0 {
		return n == cmd.arity
	}
	return n >= -cmd.arity
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
func cString(b []byte) []byte { return rstring.CString(b) }

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

var (
	builtinMetaOnce sync.Once
	// builtinACLCommands is the builtin table numbered for the ACL.
	builtinACLCommands *acl.Commands
)

// initBuiltin completes the builtin table once every file's init has
// registered its commands.
func initBuiltin() {
	applyRedisMeta(builtin)
	builtinACLCommands = assignACLCommands(builtin)
}

// applyRedisMeta attaches Redis's metadata to each registered command and
// makes what dispatch uses (arity, flags, key range, ACL categories) the
// metadata's, so that the command table and COMMAND INFO cannot disagree.
// The flag bits COMMAND INFO does not show (cmdMayReplicate,
// cmdNoPropagate, ...) are kept as registered. A
// command Redis does not know keeps its registration and gets metadata
// made from it. It runs once, when the first server clones the table:
// every file's init has registered its commands by then.
func applyRedisMeta(t commandTable) {
	byName := make(map[string]*cmdmeta.Meta, len(cmdmeta.Redis))
	var index func(ms []*cmdmeta.Meta)
	index = func(ms []*cmdmeta.Meta) {
		for _, m := range ms {
			byName[m.Name] = m
			index(m.Subs)
		}
	}
	index(cmdmeta.Redis)
	var redisBits uint64
	for _, f := range flagNames {
		redisBits |= f.f
	}
	apply := func(cmd *command) {
		m := byName[cmd.fullName()]
		if m == nil {
			m = metaFromRegistration(cmd)
		}
		cmd.meta = m
		cmd.arity = m.Arity
		cmd.flags &^= redisBits
		for _, name := range m.Flags {
			for _, f := range flagNames {
				if f.name == name {
					cmd.flags |= f.f
				}
			}
		}
		cmd.firstKey, cmd.lastKey, cmd.step = m.FirstKey, m.LastKey, m.Step
		cmd.acl, cmd.group, cmd.summary, cmd.since = m.ACL, m.Group, m.Summary, m.Since
	}
	for _, cmd := range t {
		apply(cmd)
		for _, sub := range cmd.subs {
			apply(sub)
		}
	}
	// Redis's commands no file registered answer from cmd_absent.go.
	for _, m := range cmdmeta.Redis {
		cmd := t[m.Name]
		if cmd == nil {
			cmd = &command{name: m.Name, proc: absentProc(m.Name)}
			if m.Subs != nil {
				cmd.subs = map[string]*command{}
			}
			t[m.Name] = cmd
			apply(cmd)
		}
		for _, sm := range m.Subs {
			subName := sm.Name[len(m.Name)+1:]
			if cmd.subs[subName] == nil {
				sub := &command{name: subName, parent: cmd, proc: absentProc(sm.Name)}
				cmd.subs[subName] = sub
				apply(sub)
			}
		}
	}
	// COMMAND INFO and DOCS list a container's subcommands from its
	// metadata: one Redis does not know (none today) joins a copy of it.
	for _, cmd := range t {
		if cmd.subs == nil {
			continue
		}
		subs := make([]*cmdmeta.Meta, 0, len(cmd.subs))
		for _, sub := range cmd.sortedSubs() {
			subs = append(subs, sub.meta)
		}
		if cmd.meta.Subs == nil || !slices.Equal(subs, cmd.meta.Subs) {
			m := *cmd.meta
			m.Subs = subs
			cmd.meta = &m
		}
	}
}

// metaFromRegistration describes a command the Redis table does not have
// (none today) from its registration.
func metaFromRegistration(cmd *command) *cmdmeta.Meta {
	m := &cmdmeta.Meta{Name: cmd.fullName(), Arity: cmd.arity, FirstKey: cmd.firstKey, LastKey: cmd.lastKey,
		Step: cmd.step, ACL: cmd.acl, Summary: cmd.summary, Since: cmd.since, Group: cmd.group}
	for _, f := range flagNames {
		if cmd.flags&f.f != 0 {
			m.Flags = append(m.Flags, f.name)
		}
	}
	if cmd.firstKey > 0 {
		last := cmd.lastKey
		if last > 0 {
			last -= cmd.firstKey
		}
		fl := []string{"RO"}
		if cmd.flags&cmdWrite != 0 {
			fl = []string{"RW"}
		}
		m.KeySpecs = []cmdmeta.KeySpec{{Flags: fl, BS: "index", Index: cmd.firstKey, FK: "range", LastKey: last, KeyStep: cmd.step}}
	}
	return m
}

// sortedSubs returns cmd's subcommands by name.
func (cmd *command) sortedSubs() []*command {
	out := make([]*command, 0, len(cmd.subs))
	for _, sub := range cmd.subs {
		out = append(out, sub)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func commandCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 1 {
		c.err(unknownSubcommandError(s.commands["command"], argv[1]))
		return
	}
	names := s.commands.sortedNames()
	c.arrayLen(len(names))
	for _, n := range names {
		c.out = cmdmeta.AppendInfo(c.out, c.resp, s.commands[n].meta)
	}
}

func commandCountCommand(c *client, argv [][]byte) { c.integer(int64(len(c.srv.commands))) }

// findCommandByName is lookupCommandBySds: "name" or "container|sub",
// case-insensitively.
func (s *Server) findCommandByName(name []byte) *command {
	n := string(lowerASCII(name))
	if i := strings.IndexByte(n, '|'); i >= 0 {
		if p := s.commands[n[:i]]; p != nil && p.subs != nil {
			return p.subs[n[i+1:]]
		}
		return nil
	}
	return s.commands[n]
}

func commandInfoCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 2 {
		commandCommand(c, argv[:1])
		return
	}
	c.arrayLen(len(argv) - 2)
	for _, n := range argv[2:] {
		if cmd := s.findCommandByName(n); cmd != nil {
			c.out = cmdmeta.AppendInfo(c.out, c.resp, cmd.meta)
		} else {
			c.nullBulk() // addReplyNull: $-1 in RESP2
		}
	}
}

func commandDocsCommand(c *client, argv [][]byte) {
	s := c.srv
	var cmds []*command
	if len(argv) == 2 {
		for _, n := range s.commands.sortedNames() {
			cmds = append(cmds, s.commands[n])
		}
	} else {
		for _, n := range argv[2:] {
			if cmd := s.findCommandByName(n); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.mapLen(len(cmds))
	for _, cmd := range cmds {
		c.bulkString(cmd.meta.Name)
		c.out = cmdmeta.AppendDocs(c.out, c.resp, cmd.meta)
	}
}

// commandListCommand is COMMAND LIST [FILTERBY MODULE name|ACLCAT cat|PATTERN p].
func commandListCommand(c *client, argv [][]byte) {
	s := c.srv
	var filter func(cmd *command) bool
	for i := 2; i < len(argv); i += 3 {
		if !eqFold(argv[i], "filterby") || len(argv)-1-i != 2 {
			c.errSyntax()
			return
		}
		val := argv[i+2]
		switch {
		case eqFold(argv[i+1], "module"):
			filter = func(*command) bool { return false } // no modules
		case eqFold(argv[i+1], "aclcat"):
			filter = func(cmd *command) bool {
				for _, a := range cmd.meta.ACL {
					if len(a) == len(val)+1 && eqFold(val, a[1:]) {
						return true
					}
				}
				return false
			}
		case eqFold(argv[i+1], "pattern"):
			filter = func(cmd *command) bool { return rstring.Match(val, cmd.meta.Name, true) }
		default:
			c.errSyntax()
			return
		}
	}
	var out []string
	for _, n := range s.commands.sortedNames() {
		cmd := s.commands[n]
		if filter == nil || filter(cmd) {
			out = append(out, cmd.meta.Name)
		}
		for _, sub := range cmd.sortedSubs() {
			if filter == nil || filter(sub) {
				out = append(out, sub.meta.Name)
			}
		}
	}
	c.arrayLen(len(out))
	for _, n := range out {
		c.bulkString(n)
	}
}

func commandGetkeysCommand(c *client, argv [][]byte) {
	args := argv[2:]
	keys, errMsg := c.srv.commandKeys(args)
	if errMsg != "" {
		c.err(errMsg)
		return
	}
	c.arrayLen(len(keys))
	for _, k := range keys {
		c.bulk(args[k.Pos])
	}
}

func commandGetkeysandflagsCommand(c *client, argv [][]byte) {
	args := argv[2:]
	keys, errMsg := c.srv.commandKeys(args)
	if errMsg != "" {
		c.err(errMsg)
		return
	}
	c.arrayLen(len(keys))
	for _, k := range keys {
		c.arrayLen(2)
		c.bulk(args[k.Pos])
		c.setLen(len(k.Flags))
		for _, f := range k.Flags {
			c.status(f)
		}
	}
}

func commandHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
		"HELP",
		"    Prints this help.",
	})
}

// commandKeys is getKeysSubcommandImpl for args (a full command line):
// the keys with their flags, or the error to reply.
func (s *Server) commandKeys(args [][]byte) ([]cmdmeta.KeyRef, string) {
	cmd, _ := s.lookupCommand(args)
	if cmd == nil {
		return nil, "ERR Invalid command specified"
	}
	return cmd.meta.Keys(args)
}
