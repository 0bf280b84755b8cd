package server

//go:generate go run ../cmd/gencommands -o commands_gen.go

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aofserver/aofserver/hdrhist"
	"github.com/aofserver/aofserver/rstring"
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
	meta *cmdMeta
	// aclID is the command's bit in ACL selectors, aclCats its categories
	// (bits in aclCategories order); set by assignACLIDs.
	aclID   int
	aclCats uint32

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
	builtinMetaOnce.Do(func() { applyRedisMeta(builtin); assignACLIDs(builtin) })
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

// cmdMeta is Redis 7.0.15's metadata of one command or subcommand: what
// COMMAND INFO and COMMAND DOCS return. commands_gen.go holds the table,
// generated from a real redis-server 7.0.15 by cmd/gencommands; a nil
// slice is a field Redis omits, an empty one a field it sends empty.
type cmdMeta struct {
	name                    string // full name, "config|get"
	arity                   int
	flags                   []string
	firstKey, lastKey, step int
	acl                     []string
	tips                    []string
	keySpecs                []keySpec

	summary, since, group, complexity string
	docFlags                          []string
	deprecatedSince, replacedBy       string
	history                           [][2]string
	args                              []cmdArg
	subs                              []*cmdMeta
}

// keySpec is one key specification: where the search begins (bs: "index"
// at index, "keyword" searched from startfrom, or "unknown") and how the
// keys are found from there (fk: "range" up to lastkey, "keynum" read at
// keynumidx, or "unknown").
type keySpec struct {
	notes               string
	flags               []string // RO, RW, OW, RM, access, ..., incomplete, variable_flags
	bs                  string
	index               int
	keyword             string
	startfrom           int
	fk                  string
	lastkey, limit      int
	keynumidx, firstkey int
	keystep             int
}

// cmdArg is one argument in COMMAND DOCS.
type cmdArg struct {
	name, typ       string
	keySpecIndex    int // key_spec_index+1; 0 when the argument has none
	token           string
	emptyToken      bool // a token that is "" (MIGRATE's empty key), not none
	summary         string
	since           string
	deprecatedSince string
	flags           []string
	args            []cmdArg // oneof and block arguments
}

func (sp *keySpec) has(flag string) bool {
	for _, f := range sp.flags {
		if f == flag {
			return true
		}
	}
	return false
}

func (m *cmdMeta) hasFlag(flag string) bool {
	for _, f := range m.flags {
		if f == flag {
			return true
		}
	}
	return false
}

var builtinMetaOnce sync.Once

// applyRedisMeta attaches Redis's metadata to each registered command and
// makes what dispatch uses (arity, flags, key range, ACL categories) the
// metadata's, so that the command table and COMMAND INFO cannot disagree.
// The flag bits COMMAND INFO does not show (cmdMayReplicate,
// cmdNoPropagate, ...) are kept as registered. A
// command Redis does not know keeps its registration and gets metadata
// made from it. It runs once, when the first server clones the table:
// every file's init has registered its commands by then.
func applyRedisMeta(t commandTable) {
	byName := make(map[string]*cmdMeta, len(redisCommandMeta))
	var index func(ms []*cmdMeta)
	index = func(ms []*cmdMeta) {
		for _, m := range ms {
			byName[m.name] = m
			index(m.subs)
		}
	}
	index(redisCommandMeta)
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
		cmd.arity = m.arity
		cmd.flags &^= redisBits
		for _, name := range m.flags {
			for _, f := range flagNames {
				if f.name == name {
					cmd.flags |= f.f
				}
			}
		}
		cmd.firstKey, cmd.lastKey, cmd.step = m.firstKey, m.lastKey, m.step
		cmd.acl, cmd.group, cmd.summary, cmd.since = m.acl, m.group, m.summary, m.since
	}
	for _, cmd := range t {
		apply(cmd)
		for _, sub := range cmd.subs {
			apply(sub)
		}
	}
	// Redis's commands no file registered answer from cmd_absent.go.
	for _, m := range redisCommandMeta {
		cmd := t[m.name]
		if cmd == nil {
			cmd = &command{name: m.name, proc: absentProc(m.name)}
			if m.subs != nil {
				cmd.subs = map[string]*command{}
			}
			t[m.name] = cmd
			apply(cmd)
		}
		for _, sm := range m.subs {
			subName := sm.name[len(m.name)+1:]
			if cmd.subs[subName] == nil {
				sub := &command{name: subName, parent: cmd, proc: absentProc(sm.name)}
				cmd.subs[subName] = sub
				apply(sub)
			}
		}
	}
}

// metaFromRegistration describes a command the Redis table does not have
// (none today) from its registration.
func metaFromRegistration(cmd *command) *cmdMeta {
	m := &cmdMeta{name: cmd.fullName(), arity: cmd.arity, firstKey: cmd.firstKey, lastKey: cmd.lastKey,
		step: cmd.step, acl: cmd.acl, summary: cmd.summary, since: cmd.since, group: cmd.group}
	for _, f := range flagNames {
		if cmd.flags&f.f != 0 {
			m.flags = append(m.flags, f.name)
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
		m.keySpecs = []keySpec{{flags: fl, bs: "index", index: cmd.firstKey, fk: "range", lastkey: last, keystep: cmd.step}}
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

// COMMAND and its subcommands, as Redis 7.0's server.c. Redis lists the
// commands in its dict's order, which depends on a random seed; they are
// sorted here.

// writeCommandInfo is addReplyCommandInfo.
func writeCommandInfo(c *client, cmd *command) {
	m := cmd.meta
	c.arrayLen(10)
	c.bulkString(m.name)
	c.integer(int64(m.arity))
	c.setLen(len(m.flags))
	for _, f := range m.flags {
		c.status(f)
	}
	c.integer(int64(m.firstKey))
	c.integer(int64(m.lastKey))
	c.integer(int64(m.step))
	c.setLen(len(m.acl))
	for _, a := range m.acl {
		c.status(a)
	}
	c.setLen(len(m.tips))
	for _, t := range m.tips {
		c.bulkString(t)
	}
	c.setLen(len(m.keySpecs))
	for i := range m.keySpecs {
		writeKeySpec(c, &m.keySpecs[i])
	}
	if cmd.subs == nil {
		c.setLen(0)
		return
	}
	c.arrayLen(len(cmd.subs))
	for _, sub := range cmd.sortedSubs() {
		writeCommandInfo(c, sub)
	}
}

// writeKeySpec is one element of addReplyCommandKeySpecs.
func writeKeySpec(c *client, sp *keySpec) {
	if sp.notes != "" {
		c.mapLen(4)
		c.bulkString("notes")
		c.bulkString(sp.notes)
	} else {
		c.mapLen(3)
	}
	c.bulkString("flags")
	c.setLen(len(sp.flags))
	for _, f := range sp.flags {
		c.status(f)
	}
	c.bulkString("begin_search")
	c.mapLen(2)
	c.bulkString("type")
	c.bulkString(sp.bs)
	c.bulkString("spec")
	switch sp.bs {
	case "index":
		c.mapLen(1)
		c.bulkString("index")
		c.integer(int64(sp.index))
	case "keyword":
		c.mapLen(2)
		c.bulkString("keyword")
		c.bulkString(sp.keyword)
		c.bulkString("startfrom")
		c.integer(int64(sp.startfrom))
	default:
		c.mapLen(0)
	}
	c.bulkString("find_keys")
	c.mapLen(2)
	c.bulkString("type")
	c.bulkString(sp.fk)
	c.bulkString("spec")
	switch sp.fk {
	case "range":
		c.mapLen(3)
		c.bulkString("lastkey")
		c.integer(int64(sp.lastkey))
		c.bulkString("keystep")
		c.integer(int64(sp.keystep))
		c.bulkString("limit")
		c.integer(int64(sp.limit))
	case "keynum":
		c.mapLen(3)
		c.bulkString("keynumidx")
		c.integer(int64(sp.keynumidx))
		c.bulkString("firstkey")
		c.integer(int64(sp.firstkey))
		c.bulkString("keystep")
		c.integer(int64(sp.keystep))
	default:
		c.mapLen(0)
	}
}

// writeCommandDocs is addReplyCommandDocs.
func writeCommandDocs(c *client, cmd *command) {
	m := cmd.meta
	n := 3
	for _, present := range []bool{m.complexity != "", m.docFlags != nil, m.deprecatedSince != "",
		m.replacedBy != "", m.history != nil, m.args != nil, cmd.subs != nil} {
		if present {
			n++
		}
	}
	c.mapLen(n)
	c.bulkString("summary")
	c.bulkString(m.summary)
	c.bulkString("since")
	c.bulkString(m.since)
	c.bulkString("group")
	c.bulkString(m.group)
	if m.complexity != "" {
		c.bulkString("complexity")
		c.bulkString(m.complexity)
	}
	if m.docFlags != nil {
		c.bulkString("doc_flags")
		c.setLen(len(m.docFlags))
		for _, f := range m.docFlags {
			c.status(f)
		}
	}
	if m.deprecatedSince != "" {
		c.bulkString("deprecated_since")
		c.bulkString(m.deprecatedSince)
	}
	if m.replacedBy != "" {
		c.bulkString("replaced_by")
		c.bulkString(m.replacedBy)
	}
	if m.history != nil {
		c.bulkString("history")
		c.setLen(len(m.history))
		for _, h := range m.history {
			c.arrayLen(2)
			c.bulkString(h[0])
			c.bulkString(h[1])
		}
	}
	if m.args != nil {
		c.bulkString("arguments")
		writeCommandArgs(c, m.args)
	}
	if cmd.subs != nil {
		c.bulkString("subcommands")
		c.mapLen(len(cmd.subs))
		for _, sub := range cmd.sortedSubs() {
			c.bulkString(sub.meta.name)
			writeCommandDocs(c, sub)
		}
	}
}

// writeCommandArgs is addReplyCommandArgList.
func writeCommandArgs(c *client, args []cmdArg) {
	c.arrayLen(len(args))
	for i := range args {
		a := &args[i]
		n := 2
		hasToken := a.token != "" || a.emptyToken
		for _, present := range []bool{a.keySpecIndex > 0, hasToken, a.summary != "", a.since != "",
			a.deprecatedSince != "", a.flags != nil, a.args != nil} {
			if present {
				n++
			}
		}
		c.mapLen(n)
		c.bulkString("name")
		c.bulkString(a.name)
		c.bulkString("type")
		c.bulkString(a.typ)
		if a.keySpecIndex > 0 {
			c.bulkString("key_spec_index")
			c.integer(int64(a.keySpecIndex - 1))
		}
		if hasToken {
			c.bulkString("token")
			c.bulkString(a.token)
		}
		if a.summary != "" {
			c.bulkString("summary")
			c.bulkString(a.summary)
		}
		if a.since != "" {
			c.bulkString("since")
			c.bulkString(a.since)
		}
		if a.deprecatedSince != "" {
			c.bulkString("deprecated_since")
			c.bulkString(a.deprecatedSince)
		}
		if a.flags != nil {
			c.bulkString("flags")
			c.setLen(len(a.flags))
			for _, f := range a.flags {
				c.status(f)
			}
		}
		if a.args != nil {
			c.bulkString("arguments")
			writeCommandArgs(c, a.args)
		}
	}
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
		writeCommandInfo(c, s.commands[n])
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
			writeCommandInfo(c, cmd)
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
		c.bulkString(cmd.meta.name)
		writeCommandDocs(c, cmd)
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
				for _, a := range cmd.meta.acl {
					if len(a) == len(val)+1 && eqFold(val, a[1:]) {
						return true
					}
				}
				return false
			}
		case eqFold(argv[i+1], "pattern"):
			filter = func(cmd *command) bool { return rstring.Match(val, cmd.meta.name, true) }
		default:
			c.errSyntax()
			return
		}
	}
	var out []string
	for _, n := range s.commands.sortedNames() {
		cmd := s.commands[n]
		if filter == nil || filter(cmd) {
			out = append(out, cmd.meta.name)
		}
		for _, sub := range cmd.sortedSubs() {
			if filter == nil || filter(sub) {
				out = append(out, sub.meta.name)
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
		c.bulk(args[k.pos])
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
		c.bulk(args[k.pos])
		c.setLen(len(k.flags))
		for _, f := range k.flags {
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

// keyRef is one key of a command line: its index and its key-spec flags.
type keyRef struct {
	pos   int
	flags []string
}

// commandKeys is getKeysSubcommandImpl's key extraction for args (a full
// command line): the keys with their flags, or the error to reply. An
// empty, error-free result means "no keys" (commands without mandatory
// keys).
func (s *Server) commandKeys(args [][]byte) ([]keyRef, string) {
	cmd, _ := s.lookupCommand(args)
	if cmd == nil {
		return nil, "ERR Invalid command specified"
	}
	m := cmd.meta
	proc := getkeysProcs[m.name]
	hasSpec, varFlags := false, false
	for i := range m.keySpecs {
		hasSpec = hasSpec || !m.keySpecs[i].has("not_key")
		varFlags = varFlags || m.keySpecs[i].has("variable_flags")
	}
	if proc == nil && !hasSpec { // doesCommandHaveKeys
		return nil, "ERR The command has no key arguments"
	}
	if !arityOK(cmd, len(args)) {
		return nil, "ERR Invalid number of arguments specified for command"
	}
	// getKeysFromCommandWithSpecs: the specs when they can be trusted,
	// else the command's own getkeys procedure.
	var keys []keyRef
	ok := false
	if hasSpec && !varFlags {
		keys, ok = keysUsingSpecs(m, args)
	}
	if !ok && proc != nil {
		keys = proc(args)
	}
	if len(keys) == 0 && !m.hasFlag("no_mandatory_keys") {
		return nil, "ERR Invalid arguments specified for command"
	}
	return keys, ""
}

// keysUsingSpecs is getKeysUsingKeySpecs; ok is false for an invalid or
// incomplete spec, where Redis falls back to the getkeys procedure.
func keysUsingSpecs(m *cmdMeta, argv [][]byte) (keys []keyRef, ok bool) {
	return appendKeysUsingSpecs(nil, m, argv)
}

// appendKeysUsingSpecs is keysUsingSpecs appending to keys (the ACL check
// reuses one buffer).
func appendKeysUsingSpecs(keys []keyRef, m *cmdMeta, argv [][]byte) ([]keyRef, bool) {
	argc := len(argv)
	for j := range m.keySpecs {
		sp := &m.keySpecs[j]
		if sp.has("not_key") {
			continue
		}
		first := 0
		switch sp.bs {
		case "index":
			first = sp.index
		case "keyword":
			start, end := sp.startfrom, 1
			if sp.startfrom > 0 {
				end = argc - 1
			} else {
				start = argc + sp.startfrom
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if eqFold(argv[i], sp.keyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue // keyword not found: no keys from this spec
			}
		default:
			return nil, false
		}
		var last, step int
		switch sp.fk {
		case "range":
			step = sp.keystep
			switch {
			case sp.lastkey >= 0:
				last = first + sp.lastkey
			case sp.limit == 0:
				last = argc + sp.lastkey
			default:
				last = first + ((argc-first)/sp.limit + sp.lastkey)
			}
		case "keynum":
			step = sp.keystep
			if first+sp.keynumidx >= argc {
				return nil, false
			}
			n, isInt := parseInt(argv[first+sp.keynumidx])
			if !isInt || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += sp.firstkey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false // out of bounds: a syntax error
		}
		for i := first; i <= last; i += step {
			keys = append(keys, keyRef{pos: i, flags: sp.flags})
		}
		if sp.has("incomplete") {
			return nil, false
		}
	}
	return keys, true
}

// getkeysProcs are Redis's getkeys_proc functions (db.c), used when a
// command's key specs are incomplete, have variable flags or do not fit
// the arguments.
var getkeysProcs = map[string]func(argv [][]byte) []keyRef{
	"zunion":            func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zinter":            func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zdiff":             func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zunionstore":       func(a [][]byte) []keyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"zinterstore":       func(a [][]byte) []keyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"zdiffstore":        func(a [][]byte) []keyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"eval":              func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"evalsha":           func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"eval_ro":           func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"evalsha_ro":        func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"fcall":             func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"fcall_ro":          func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"lmpop":             func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"blmpop":            func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"zmpop":             func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"bzmpop":            func(a [][]byte) []keyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"sintercard":        func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zintercard":        func(a [][]byte) []keyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"sort":              sortGetKeys,
	"sort_ro":           func([][]byte) []keyRef { return []keyRef{{1, keyFlagsRO}} },
	"migrate":           migrateGetKeys,
	"georadius":         georadiusGetKeys,
	"georadiusbymember": georadiusGetKeys,
	"xread":             xreadGetKeys,
	"xreadgroup":        xreadGetKeys,
	"set":               setGetKeys,
	"bitfield":          bitfieldGetKeys,
}

var (
	keyFlagsRO       = []string{"RO", "access"}
	keyFlagsOW       = []string{"OW", "update"}
	keyFlagsRWUpdate = []string{"RW", "access", "update"}
)

// genericGetKeys finds "[destkey] numkeys key [key ...]" keys; like Redis
// it reads numkeys with atoi and returns the keys without flags.
func genericGetKeys(storeKeyOfs, keyCountOfs, firstKeyOfs, keyStep int, argv [][]byte) []keyRef {
	num := int(int32(cAtoi(argv[keyCountOfs])))
	if num < 1 || num > (len(argv)-firstKeyOfs)/keyStep {
		return nil
	}
	keys := make([]keyRef, 0, num+1)
	for i := 0; i < num; i++ {
		keys = append(keys, keyRef{pos: firstKeyOfs + i*keyStep})
	}
	if storeKeyOfs != 0 {
		keys = append(keys, keyRef{pos: storeKeyOfs})
	}
	return keys
}

func sortGetKeys(argv [][]byte) []keyRef {
	keys := []keyRef{{1, keyFlagsRO}}
	store := 0
	for i := 2; i < len(argv); i++ {
		switch {
		case eqFold(argv[i], "limit"):
			i += 2
		case eqFold(argv[i], "get"), eqFold(argv[i], "by"):
			i++
		case eqFold(argv[i], "store") && i+1 < len(argv):
			store = i + 1 // the last STORE wins, as in SORT
		}
	}
	if store > 0 {
		keys = append(keys, keyRef{store, keyFlagsOW})
	}
	return keys
}

func migrateGetKeys(argv [][]byte) []keyRef {
	first, num := 3, 1
	if len(argv) > 6 {
	scan:
		for i := 6; i < len(argv); i++ {
			switch {
			case eqFold(argv[i], "keys"):
				if len(argv[3]) > 0 {
					return nil // "Cannot use MIGRATE KEYS option when key name is not empty"
				}
				first, num = i+1, len(argv)-i-1
				break scan
			case eqFold(argv[i], "auth"):
				i++
			case eqFold(argv[i], "auth2"):
				i += 2
			}
		}
	}
	flags := []string{"RW", "access", "delete"}
	keys := make([]keyRef, num)
	for i := range keys {
		keys[i] = keyRef{first + i, flags}
	}
	return keys
}

func georadiusGetKeys(argv [][]byte) []keyRef {
	stored := -1
	for i := 5; i < len(argv); i++ {
		if (eqFold(argv[i], "store") || eqFold(argv[i], "storedist")) && i+1 < len(argv) {
			stored = i + 1 // the last one wins, as in GEORADIUS
			i++
		}
	}
	keys := []keyRef{{1, keyFlagsRO}}
	if stored >= 0 {
		keys = append(keys, keyRef{stored, keyFlagsOW})
	}
	return keys
}

func xreadGetKeys(argv [][]byte) []keyRef {
	streams := -1
scan:
	for i := 1; i < len(argv); i++ {
		switch {
		case eqFold(argv[i], "block"), eqFold(argv[i], "count"):
			i++
		case eqFold(argv[i], "group"):
			i += 2
		case eqFold(argv[i], "noack"):
		case eqFold(argv[i], "streams"):
			streams = i
			break scan
		default:
			break scan
		}
	}
	num := len(argv) - streams - 1
	if streams == -1 || num == 0 || num%2 != 0 {
		return nil
	}
	num /= 2
	keys := make([]keyRef, num)
	for i := range keys {
		keys[i] = keyRef{streams + 1 + i, keyFlagsRO}
	}
	return keys
}

func setGetKeys(argv [][]byte) []keyRef {
	for _, a := range argv[3:] {
		if eqFold(a, "get") {
			return []keyRef{{1, keyFlagsRWUpdate}}
		}
	}
	return []keyRef{{1, keyFlagsOW}}
}

func bitfieldGetKeys(argv [][]byte) []keyRef {
	readonly := true
scan:
	for i := 2; i < len(argv); i++ {
		rem := len(argv) - i - 1
		switch {
		case eqFold(argv[i], "get") && rem >= 2:
			i += 2
		case (eqFold(argv[i], "set") || eqFold(argv[i], "incrby")) && rem >= 3:
			readonly = false
			break scan
		case eqFold(argv[i], "overflow") && rem >= 1:
			i++
		default:
			readonly = false // a syntax error: safer to assume a write
			break scan
		}
	}
	if readonly {
		return []keyRef{{1, keyFlagsRO}}
	}
	return []keyRef{{1, keyFlagsRWUpdate}}
}
