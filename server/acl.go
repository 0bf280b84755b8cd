package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
	"github.com/rs/zerolog"
)

// Redis 7.0.15's ACL users (acl.c): users with flags, password hashes and
// selectors (the root one and those given in parentheses), each selector a
// command bitmap, first-args, key patterns with read/write permissions and
// channel patterns. Commands are numbered once for all servers
// (assignACLIDs), so a selector's bitmap is a fixed array as in Redis, with
// the last bit kept for "future commands" (+@all).

// User flags, in ACLDescribeUser's order.
const (
	userEnabled = 1 << iota
	userDisabled
	userNopass
	userSkipSanitize
	userSanitize
)

var aclUserFlags = []struct {
	name string
	flag int
}{{"on", userEnabled}, {"off", userDisabled}, {"nopass", userNopass},
	{"skip-sanitize-payload", userSkipSanitize}, {"sanitize-payload", userSanitize}}

// Selector flags.
const (
	selRoot = 1 << iota
	selAllKeys
	selAllChannels
	selAllCommands
)

// Key pattern permissions (ACL_READ_PERMISSION, ACL_WRITE_PERMISSION).
const (
	aclKeyRead  = 1
	aclKeyWrite = 2
	aclKeyAll   = aclKeyRead | aclKeyWrite
)

// Check results, ordered as Redis's ACL_DENIED_* (the most relevant
// selector error is the greatest).
const (
	aclOK = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)

// Contexts of ACL LOG entries.
const (
	aclCtxToplevel = iota
	aclCtxMulti
	aclCtxLua
)

const (
	aclCommandBits = 1024
	aclFutureBit   = aclCommandBits - 1 // set only by +@all / allcommands
)

type aclBitmap [aclCommandBits / 64]uint64

func (b *aclBitmap) get(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

type aclKeyPattern struct {
	pattern string
	flags   int
}

type aclSelector struct {
	flags    int
	allowed  aclBitmap
	firstArg map[int][]string // command id -> allowed first arguments
	keys     []aclKeyPattern
	channels []string
}

type aclUser struct {
	name      string
	flags     int
	passwords []string // SHA-256 hex
	selectors []*aclSelector
	// open: the root selector allows every command, key and channel, so
	// processCommand skips the check (the default user's usual state).
	open bool
}

// aclState is a server's users and ACL log.
type aclState struct {
	users map[string]*aclUser
	def   *aclUser
	log   []*aclLogEntry // newest first
	cmds  []*command     // every command, each container followed by its subcommands
	// keyBuf holds the keys of the command being checked (commandKeyRefs)
	keyBuf []cmdmeta.KeyRef
	// startLog and startErr: what loading the configured users said
	// (ACLStartup)
	startLog []func()
	startErr error
}

type aclLogEntry struct {
	count    int64
	reason   int
	context  int
	object   string
	username string
	ctimeMs  int64
	cinfo    string
}

// assignACLIDs numbers the commands of t (containers then their
// subcommands, by name) and records their categories; run once on the
// builtin table, the clones copy both.
func assignACLIDs(t commandTable) {
	id := 0
	next := func(cmd *command) {
		cmd.aclID = id
		id++
		if id == aclFutureBit {
			id++
		}
		for i, cat := range aclCategories {
			if commandHasCategory(cmd, cat) {
				cmd.aclCats |= 1 << i
			}
		}
	}
	for _, n := range t.sortedNames() {
		cmd := t[n]
		next(cmd)
		for _, sn := range sortedSubNames(cmd) {
			next(cmd.subs[sn])
		}
	}
	if id > aclCommandBits {
		panic("too many commands for the ACL bitmap")
	}
}

func sortedSubNames(cmd *command) []string {
	names := make([]string, 0, len(cmd.subs))
	for n := range cmd.subs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Server) initACL() {
	a := &s.acl
	a.users = map[string]*aclUser{}
	for _, n := range s.commands.sortedNames() {
		cmd := s.commands[n]
		a.cmds = append(a.cmds, cmd)
		for _, sn := range sortedSubNames(cmd) {
			a.cmds = append(a.cmds, cmd.subs[sn])
		}
	}
	d := s.defaultUserRules()
	a.users["default"] = d
	a.def = d
	s.aclSetDefaultPassword(s.cfg.Requirepass)
	s.cfg.UserLines = s.aclUserLines
}

// aclUserLines renders the users for CONFIG REWRITE and ACL SAVE.
func (s *Server) aclUserLines() []string {
	var out []string
	for _, u := range s.sortedUsers() {
		out = append(out, "user "+u.name+" "+s.describeUser(u))
	}
	return out
}

// aclLoadAtStartup is ACLLoadUsersAtStartup: the config file's users,
// then the ACL file's. Its log lines and error wait for ACLStartup, so
// that they come where Redis logs them (after "Server initialized").
func (s *Server) aclLoadAtStartup() {
	a := &s.acl
	a.startErr = s.aclLoadUsers(func(warn bool, line string) {
		a.startLog = append(a.startLog, func() {
			if warn {
				s.log.Warn().Msg(line)
			} else {
				s.log.Info().Msg(line)
			}
		})
	})
}

// ACLStartup logs what loading the configured ACL users said, and returns
// the error that must end the start-up, if any.
func (s *Server) ACLStartup() error {
	for _, f := range s.acl.startLog {
		f()
	}
	s.acl.startLog = nil
	return s.acl.startErr
}

func (s *Server) aclLoadUsers(logf func(warn bool, line string)) error {
	file := s.aclFile()
	if file != "" && len(s.cfg.Users) > 0 {
		return errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	}
	for _, line := range s.cfg.Users {
		name := line[0]
		if aclHasSpaces(name) {
			logf(true, "Spaces not allowed in ACL usernames")
			return errors.New("Critical error while loading ACLs. Exiting.")
		}
		rules, bad := aclMergeSelectorArgs(line[1:])
		if bad >= 0 {
			return errors.New("Error in user declaration '" + line[1+bad] + "': Syntax error")
		}
		u := s.acl.users[name]
		if u == nil {
			u = s.newACLUser(name)
			s.acl.users[name] = u
		} else {
			s.aclSetUser(u, "reset") // only "default" exists already
		}
		for _, r := range rules {
			if e := s.aclSetUser(u, r); e != "" {
				logf(true, fmt.Sprintf("Error loading ACL rule '%s' for the user named '%s': %s", r, name, e))
				return errors.New("Critical error while loading ACLs. Exiting.")
			}
		}
		if u.flags&userDisabled != 0 {
			logf(false, fmt.Sprintf("The user '%s' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.", name))
		}
	}
	s.aclDefaultChanged()
	if file != "" {
		if msg := s.aclLoadFile(nil); msg != "" {
			return errors.New("Aborting Redis startup because of ACL errors: " + msg)
		}
	}
	return nil
}

func init() { config.UserValidator = validateConfigUser }

// validateConfigUser is ACLAppendUserForLoading's check of a config file's
// user line on a throwaway user (unknown commands pass: the server's load
// reports them).
func validateConfigUser(line []string) (int, string) {
	s := &Server{commands: builtin.clone(), cfg: config.Default(), log: zerolog.Nop()}
	s.initACL()
	u := s.newACLUser("__fakeuser:0__")
	rules, bad := aclMergeSelectorArgs(line[1:])
	if bad >= 0 {
		return bad, string(aclErrSyntax)
	}
	for j, r := range rules {
		if e := s.aclSetUser(u, r); e != "" && e != aclErrUnknown {
			return j, string(e)
		}
	}
	return 0, ""
}

// aclFile is the aclfile directive ("" for none).
func (s *Server) aclFile() string {
	if v := s.cfg.Get("aclfile"); len(v) == 1 {
		return v[0][1]
	}
	return ""
}

// aclLoadFile is ACLLoadFromFile: the users of the ACL file replace the
// current ones if the whole file is valid; otherwise nothing changes and
// the errors are returned. Clients of the replaced users are closed (cur
// after its reply).
func (s *Server) aclLoadFile(cur *client) string {
	name := s.aclFile()
	data, err := fsx.ReadAll(s.fsys(), absPath(s.cfg.Dir, name))
	if err != nil {
		return "Error loading ACLs, opening file '" + name + "': " + rstring.Strerror(err)
	}
	users := map[string]*aclUser{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		linenum := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, linenum)
			continue
		}
		if aclHasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, linenum, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum)
			continue
		}
		u := s.newACLUser(argv[1])
		users[u.name] = u
		rules, bad := aclMergeSelectorArgs(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, linenum)
		}
		for _, r := range rules {
			r = strings.Trim(r, "\t\r\n")
			if e := s.aclSetUser(u, r); e == aclErrUnknown {
				// a command name is no secret: Redis names the rule
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, linenum, r, e)
			} else if e != "" {
				fmt.Fprintf(&errs, "%s:%d: %s. ", name, linenum, e)
			}
		}
	}
	if errs.Len() != 0 {
		return errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	}
	// the default user keeps its identity (clients point to it)
	def := s.acl.def
	if nd := users["default"]; nd != nil {
		def.copyFrom(nd)
	} else {
		def.copyFrom(s.defaultUserRules())
	}
	users["default"] = def
	old := s.acl.users
	s.acl.users = users
	for n, u := range old {
		if n != "default" {
			s.killUserClients(u, cur)
		}
	}
	s.aclDefaultChanged()
	return ""
}

// defaultUserRules is ACLCreateDefaultUser's user, unlinked.
func (s *Server) defaultUserRules() *aclUser {
	d := s.newACLUser("default")
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		s.aclSetUser(d, op)
	}
	return d
}

// aclSaveFile is ACLSaveToFile.
func (s *Server) aclSaveFile() bool {
	var b strings.Builder
	for _, l := range s.aclUserLines() {
		b.WriteString(l + "\n")
	}
	path := absPath(s.cfg.Dir, s.aclFile())
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), s.nowMs())
	if err := fsx.WriteFile(s.fsys(), tmp, []byte(b.String())); err != nil {
		s.log.Warn().Msgf("Writing ACL file for ACL SAVE: %s", rstring.Strerror(err))
		s.fsys().Remove(tmp)
		return false
	}
	if err := s.fsys().Rename(tmp, path); err != nil {
		s.log.Warn().Msgf("Renaming ACL file for ACL SAVE: %s", rstring.Strerror(err))
		s.fsys().Remove(tmp)
		return false
	}
	return true
}

// aclSetDefaultPassword is ACLUpdateDefaultUserPassword: requirepass is
// the default user's only password ("" makes it nopass).
func (s *Server) aclSetDefaultPassword(pass string) {
	d := s.acl.def
	s.aclSetUser(d, "resetpass")
	if pass != "" {
		s.aclSetUser(d, ">"+pass)
	} else {
		s.aclSetUser(d, "nopass")
	}
	s.aclDefaultChanged()
}

// aclDefaultChanged refreshes what the request parser reads (whether
// unauthenticated limits apply).
func (s *Server) aclDefaultChanged() { s.passwordSet.Store(s.aclDefaultNeedsAuth()) }

// aclDefaultNeedsAuth is the first half of Redis's authRequired.
func (s *Server) aclDefaultNeedsAuth() bool {
	f := s.acl.def.flags
	return f&userNopass == 0 || f&userDisabled != 0
}

// setDefaultAuth is clientSetDefaultAuth.
func (s *Server) setDefaultAuth(c *client) {
	c.user = s.acl.def
	f := c.user.flags
	c.authed = f&userNopass != 0 && f&userDisabled == 0
}

func (s *Server) newSelector(flags int) *aclSelector {
	sel := &aclSelector{flags: flags}
	if v := s.cfg.Get("acl-pubsub-default"); len(v) == 1 && v[0][1] == "allchannels" {
		sel.flags |= selAllChannels
	}
	return sel
}

// newACLUser is ACLCreateUser without linking the user.
func (s *Server) newACLUser(name string) *aclUser {
	u := &aclUser{name: name, flags: userDisabled}
	u.selectors = []*aclSelector{s.newSelector(selRoot)}
	return u
}

func (sel *aclSelector) clone() *aclSelector {
	n := *sel
	n.keys = append([]aclKeyPattern(nil), sel.keys...)
	n.channels = append([]string(nil), sel.channels...)
	n.firstArg = nil
	for id, args := range sel.firstArg {
		if n.firstArg == nil {
			n.firstArg = map[int][]string{}
		}
		n.firstArg[id] = append([]string(nil), args...)
	}
	return &n
}

// copyFrom is ACLCopyUser: dst gets src's rules, keeping its name.
func (dst *aclUser) copyFrom(src *aclUser) {
	dst.flags = src.flags
	dst.passwords = append([]string(nil), src.passwords...)
	dst.selectors = make([]*aclSelector, len(src.selectors))
	for i, sel := range src.selectors {
		dst.selectors[i] = sel.clone()
	}
	dst.refresh()
}

func (u *aclUser) refresh() {
	r := u.selectors[0]
	all := selAllKeys | selAllChannels | selAllCommands
	u.open = r.flags&all == all
}

func (u *aclUser) root() *aclSelector { return u.selectors[0] }

// aclHashPassword is ACLHashPassword.
func aclHashPassword(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

func aclValidHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// aclHasSpaces is ACLStringHasSpaces (isspace or NUL).
func aclHasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// aclError is the errno ACLSetUser sets; its text is ACLSetUserStringError.
type aclError string

const (
	aclErrUnknown  aclError = "Unknown command or category name in ACL"
	aclErrSyntax   aclError = "Syntax error"
	aclErrAllKeys  aclError = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	aclErrAllChans aclError = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	aclErrNoPass   aclError = "The password you are trying to remove from the user does not exist"
	aclErrBadHash  aclError = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	aclErrChild    aclError = "Allowing first-arg of a subcommand is not supported"
)

// aclLookup is ACLLookupCommand: "name" or "container|sub".
func (s *Server) aclLookup(name string) *command {
	parts := strings.Split(name, "|")
	if len(parts) > 2 {
		return nil
	}
	cmd := s.commands[strings.ToLower(parts[0])]
	if cmd == nil || len(parts) == 1 {
		return cmd
	}
	if cmd.subs == nil {
		return nil
	}
	return cmd.subs[strings.ToLower(parts[1])]
}

func (sel *aclSelector) setBit(id int, on bool) {
	if on {
		sel.allowed[id/64] |= 1 << (id % 64)
	} else {
		sel.allowed[id/64] &^= 1 << (id % 64)
		sel.flags &^= selAllCommands
	}
}

// changePerm is ACLChangeSelectorPerm: a container takes its subcommands
// along.
func (sel *aclSelector) changePerm(cmd *command, on bool) {
	sel.setBit(cmd.aclID, on)
	delete(sel.firstArg, cmd.aclID)
	for _, sub := range cmd.subs {
		sel.setBit(sub.aclID, on)
	}
}

func aclCategoryIndex(name string) int {
	for i, c := range aclCategories {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// setCategory is ACLSetSelectorCommandBitsForCategory.
func (s *Server) setCategory(sel *aclSelector, cat int, on bool) {
	for _, cmd := range s.acl.cmds {
		if cmd.aclCats&(1<<cat) != 0 {
			sel.changePerm(cmd, on)
		}
	}
}

// aclSetSelector is ACLSetSelector.
func (s *Server) aclSetSelector(sel *aclSelector, op string) aclError {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		sel.flags |= selAllKeys
		sel.keys = nil
	case strings.EqualFold(op, "resetkeys"):
		sel.flags &^= selAllKeys
		sel.keys = nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		sel.flags |= selAllChannels
		sel.channels = nil
	case strings.EqualFold(op, "resetchannels"):
		sel.flags &^= selAllChannels
		sel.channels = nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		for i := range sel.allowed {
			sel.allowed[i] = ^uint64(0)
		}
		sel.flags |= selAllCommands
		sel.firstArg = nil
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		sel.allowed = aclBitmap{}
		sel.flags &^= selAllCommands
		sel.firstArg = nil
	case op[0] == '~' || op[0] == '%':
		if sel.flags&selAllKeys != 0 {
			return aclErrAllKeys
		}
		flags, off := aclKeyAll, 1
		if op[0] == '%' {
			flags = 0
			for ; off < len(op); off++ {
				ch := op[off] &^ 0x20
				if ch == 'R' && flags&aclKeyRead == 0 {
					flags |= aclKeyRead
				} else if ch == 'W' && flags&aclKeyWrite == 0 {
					flags |= aclKeyWrite
				} else if op[off] == '~' && flags != 0 { // "%~x" has no permission
					off++
					break
				} else {
					return aclErrSyntax
				}
			}
		}
		pat := op[off:]
		if aclHasSpaces(pat) {
			return aclErrSyntax
		}
		found := false
		for i := range sel.keys {
			if sel.keys[i].pattern == pat {
				sel.keys[i].flags |= flags
				found = true
			}
		}
		if !found {
			sel.keys = append(sel.keys, aclKeyPattern{pattern: pat, flags: flags})
		}
		sel.flags &^= selAllKeys
	case op[0] == '&':
		if sel.flags&selAllChannels != 0 {
			return aclErrAllChans
		}
		pat := op[1:]
		if aclHasSpaces(pat) {
			return aclErrSyntax
		}
		found := false
		for _, c := range sel.channels {
			found = found || c == pat
		}
		if !found {
			sel.channels = append(sel.channels, pat)
		}
		sel.flags &^= selAllChannels
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		name := op[1:]
		bar := strings.LastIndexByte(name, '|')
		if bar < 0 {
			cmd := s.aclLookup(name)
			if cmd == nil {
				return aclErrUnknown
			}
			sel.changePerm(cmd, true)
			return ""
		}
		cmd := s.aclLookup(name[:bar])
		if cmd == nil {
			return aclErrUnknown
		}
		if cmd.parent != nil {
			return aclErrChild
		}
		sub := name[bar+1:]
		if sub == "" {
			return aclErrSyntax
		}
		if cmd.subs != nil {
			if cmd = s.aclLookup(name); cmd == nil {
				return aclErrUnknown
			}
			sel.changePerm(cmd, true)
			return ""
		}
		s.log.Warn().Msgf("Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL and may get disabled in the future (offender: +%s)", name)
		for _, a := range sel.firstArg[cmd.aclID] {
			if strings.EqualFold(a, sub) {
				return ""
			}
		}
		if sel.firstArg == nil {
			sel.firstArg = map[int][]string{}
		}
		sel.firstArg[cmd.aclID] = append(sel.firstArg[cmd.aclID], sub)
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		cmd := s.aclLookup(op[1:])
		if cmd == nil {
			return aclErrUnknown
		}
		sel.changePerm(cmd, false)
	case (op[0] == '+' || op[0] == '-') && op[1] == '@':
		cat := aclCategoryIndex(op[2:])
		if cat < 0 {
			return aclErrUnknown
		}
		s.setCategory(sel, cat, op[0] == '+')
	default:
		return aclErrSyntax
	}
	return ""
}

// aclSetUser is ACLSetUser: one rule applied to u.
func (s *Server) aclSetUser(u *aclUser, op string) (e aclError) {
	defer u.refresh()
	if op == "" {
		return ""
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.flags = u.flags&^userDisabled | userEnabled
	case strings.EqualFold(op, "off"):
		u.flags = u.flags&^userEnabled | userDisabled
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.flags = u.flags&^userSanitize | userSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		u.flags = u.flags&^userSkipSanitize | userSanitize
	case strings.EqualFold(op, "nopass"):
		u.flags |= userNopass
		u.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.flags &^= userNopass
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = aclHashPassword(op[1:])
		} else {
			if !aclValidHash(op[1:]) {
				return aclErrBadHash
			}
			h = op[1:]
		}
		found := false
		for _, p := range u.passwords {
			found = found || p == h
		}
		if !found {
			u.passwords = append(u.passwords, h)
		}
		u.flags &^= userNopass
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = aclHashPassword(op[1:])
		} else {
			if !aclValidHash(op[1:]) {
				return aclErrBadHash
			}
			h = op[1:]
		}
		for i, p := range u.passwords {
			if p == h {
				u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
				return ""
			}
		}
		return aclErrNoPass
	case op[0] == '(' && op[len(op)-1] == ')':
		sel := s.newSelector(0)
		// an unbalanced quote splits into nothing: an empty selector
		args, _ := rstring.SplitArgs(op[1 : len(op)-1])
		for _, a := range args {
			if e := s.aclSetSelector(sel, a); e != "" {
				return e
			}
		}
		u.selectors = append(u.selectors, sel)
	case strings.EqualFold(op, "clearselectors"):
		u.selectors = u.selectors[:1]
	case strings.EqualFold(op, "reset"):
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels"} {
			s.aclSetUser(u, r)
		}
		if v := s.cfg.Get("acl-pubsub-default"); len(v) == 1 && v[0][1] == "allchannels" {
			s.aclSetUser(u, "allchannels")
		}
		for _, r := range []string{"off", "sanitize-payload", "clearselectors", "-@all"} {
			s.aclSetUser(u, r)
		}
	default:
		return s.aclSetSelector(u.root(), op)
	}
	return ""
}

// aclMergeSelectorArgs is ACLMergeSelectorArguments: a selector spread
// over several arguments is joined; bad is the index of an unclosed one.
func aclMergeSelectorArgs(args []string) (out []string, bad int) {
	open := -1
	var cur string
	for j, op := range args {
		if len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, j
			continue
		}
		if open != -1 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				out = append(out, cur)
			}
			continue
		}
		out = append(out, op)
	}
	if open != -1 {
		return nil, open
	}
	return out, -1
}

// checkCredentials is ACLCheckUserCredentials.
func (s *Server) checkCredentials(name, pass []byte) *aclUser {
	u := s.acl.users[string(name)]
	if u == nil || u.flags&userDisabled != 0 {
		return nil
	}
	if u.flags&userNopass != 0 {
		return u
	}
	h := aclHashPassword(string(pass))
	for _, p := range u.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			return u
		}
	}
	return nil
}

// authenticate is ACLAuthenticateUser; a failure is logged as Redis does.
func (s *Server) authenticate(c *client, name, pass []byte, cmdName []byte) bool {
	if u := s.checkCredentials(name, pass); u != nil {
		c.authed = true
		c.user = u
		return true
	}
	ctx := aclCtxToplevel
	if c.flags&flagMulti != 0 {
		ctx = aclCtxMulti
	}
	s.aclLogAdd(c, aclDeniedAuth, ctx, string(name), string(cmdName))
	return false
}

// ---- permission checks ----

// commandKeyRefs is the keys of argv for the ACL check (which may have
// the wrong arity, from acl_check_cmd).
func (s *Server) commandKeyRefs(cmd *command, argv [][]byte) []cmdmeta.KeyRef {
	if cmd.meta == nil {
		return nil
	}
	k := cmd.meta.AppendKeys(s.acl.keyBuf[:0], argv)
	if k != nil {
		s.acl.keyBuf = k // reused: one check runs at a time
	}
	return k
}

func commandHasKeys(cmd *command) bool { return cmd.meta != nil && cmd.meta.HasKeys() }

func keyRefPerm(flags []string) int {
	p := 0
	for _, f := range flags {
		switch f {
		case "access":
			p |= aclKeyRead
		case "insert", "delete", "update":
			p |= aclKeyWrite
		}
	}
	return p
}

func (sel *aclSelector) checkKey(key []byte, perm int) bool {
	if sel.flags&selAllKeys != 0 {
		return true
	}
	for _, p := range sel.keys {
		if p.flags&perm != perm {
			continue
		}
		if rstring.Match(p.pattern, key, false) {
			return true
		}
	}
	return false
}

func aclChannelAllowed(list []string, ch []byte, literal bool) bool {
	for _, p := range list {
		if literal && p == string(ch) || !literal && rstring.Match(p, ch, false) {
			return true
		}
	}
	return false
}

// channelArgs is ACLDoesCommandHaveChannels with the channels' place:
// argv[from:to], literal for PSUBSCRIBE's patterns.
func channelArgs(cmd *command, argc int) (from, to int, literal, ok bool) {
	if cmd.parent != nil {
		return 0, 0, false, false
	}
	switch cmd.name {
	case "publish", "spublish":
		return 1, 2, false, true
	case "subscribe", "ssubscribe":
		return 1, argc, false, true
	case "psubscribe":
		return 1, argc, true, true
	}
	return 0, 0, false, false
}

// checkSelector is ACLSelectorCheckCmd; keys caches the key extraction
// across selectors.
func (s *Server) checkSelector(sel *aclSelector, cmd *command, argv [][]byte, keys *[]cmdmeta.KeyRef, keysDone *bool) (int, int) {
	if sel.flags&selAllCommands == 0 && cmd.flags&cmdNoAuth == 0 && !sel.allowed.get(cmd.aclID) {
		args := sel.firstArg[cmd.aclID]
		if len(argv) < 2 || args == nil {
			return aclDeniedCmd, 0
		}
		idx := 1
		if cmd.parent != nil {
			idx = 2
		}
		ok := false
		for _, a := range args {
			if idx < len(argv) && eqFold(argv[idx], a) {
				ok = true
				break
			}
		}
		if !ok {
			return aclDeniedCmd, 0
		}
	}
	if sel.flags&selAllKeys == 0 && commandHasKeys(cmd) {
		if !*keysDone {
			*keys, *keysDone = s.commandKeyRefs(cmd, argv), true
		}
		for _, k := range *keys {
			if !sel.checkKey(argv[k.Pos], keyRefPerm(k.Flags)) {
				return aclDeniedKey, k.Pos
			}
		}
	}
	if sel.flags&selAllChannels == 0 {
		if from, to, literal, ok := channelArgs(cmd, len(argv)); ok {
			for j := from; j < to && j < len(argv); j++ {
				if !aclChannelAllowed(sel.channels, argv[j], literal) {
					return aclDeniedChannel, j
				}
			}
		}
	}
	return aclOK, 0
}

// aclCheck is ACLCheckAllUserCommandPerm: aclOK, or the most relevant
// denial and the index of the argument that caused it. A nil user (the
// AOF, the master) may run anything.
func (s *Server) aclCheck(u *aclUser, cmd *command, argv [][]byte) (int, int) {
	if u == nil || u.open {
		return aclOK, 0
	}
	relevant, last := aclDeniedCmd, 0
	var keys []cmdmeta.KeyRef
	done := false
	for _, sel := range u.selectors {
		r, idx := s.checkSelector(sel, cmd, argv, &keys, &done)
		if r == aclOK {
			return aclOK, 0
		}
		if r > relevant || r == relevant && idx > last {
			relevant, last = r, idx
		}
	}
	return relevant, last
}

// aclFullKeyAccess is ACLUserCheckCmdWithUnrestrictedKeyAccess for
// reads: a selector that allows argv (a full command line) can read any
// key (allkeys, or a "*" pattern with read permission).
func (s *Server) aclFullKeyAccess(u *aclUser, argv [][]byte) bool {
	cmd, _ := s.lookupCommand(argv)
	if cmd == nil {
		return false
	}
	var keys []cmdmeta.KeyRef
	done := false
	for _, sel := range u.selectors {
		if r, _ := s.checkSelector(sel, cmd, argv, &keys, &done); r != aclOK {
			continue
		}
		if sel.flags&selAllKeys != 0 {
			return true
		}
		for _, p := range sel.keys {
			if p.flags&aclKeyRead != 0 && p.pattern == "*" {
				return true
			}
		}
	}
	return false
}

// aclDenial is processCommand's NOPERM reply for a denial.
func aclDenial(res int, cmd *command) string {
	switch res {
	case aclDeniedCmd:
		return "NOPERM this user has no permissions to run the '" + cmd.fullName() + "' command"
	case aclDeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	case aclDeniedChannel:
		return "NOPERM this user has no permissions to access one of the channels used as arguments"
	}
	return "no permission"
}

// aclLogDenial adds the ACL LOG entry of a denied command (addACLLogEntry
// with the automatic object): u is the user denied, who the client that
// the entry describes (a script's caller).
func (s *Server) aclLogDenial(u *aclUser, who *client, res, ctx int, cmd *command, argv [][]byte, pos int) {
	var obj string
	switch res {
	case aclDeniedCmd:
		obj = cmd.fullName()
	case aclDeniedKey, aclDeniedChannel:
		obj = string(argv[pos])
	}
	s.aclLogAdd(who, res, ctx, u.name, obj)
}

// aclLogAdd is addACLLogEntry; c is the client the entry describes (the
// script's caller for a script).
func (s *Server) aclLogAdd(c *client, reason, ctx int, username, object string) {
	now := s.nowMs()
	cinfo := ""
	if c != nil {
		cinfo = c.infoLine()
	}
	le := &aclLogEntry{count: 1, reason: reason, context: ctx, object: object, username: username, ctimeMs: now, cinfo: cinfo}
	log := s.acl.log
	for i := 0; i < len(log) && i < 10; i++ {
		m := log[i]
		d := m.ctimeMs - now
		if d < 0 {
			d = -d
		}
		if m.reason == le.reason && m.context == le.context && d <= 60000 && m.object == le.object && m.username == le.username {
			m.cinfo, m.ctimeMs = le.cinfo, now
			m.count++
			copy(log[1:i+1], log[:i])
			log[0] = m
			return
		}
	}
	log = append(log, nil)
	copy(log[1:], log)
	log[0] = le
	max := 128
	if v := s.cfg.Get("acllog-max-len"); len(v) == 1 {
		if n, ok := parseInt([]byte(v[0][1])); ok {
			max = int(n)
		}
	}
	if len(log) > max {
		log = log[:max]
	}
	s.acl.log = log
}

// ---- describing users ----

func (p aclKeyPattern) String() string {
	switch p.flags {
	case aclKeyAll:
		return "~" + p.pattern
	case aclKeyRead:
		return "%R~" + p.pattern
	case aclKeyWrite:
		return "%W~" + p.pattern
	}
	return "%~" + p.pattern // unreachable: "%~x" is a syntax error
}

func (s *Server) countCategory(b *aclBitmap, cat int) (on, off int) {
	for _, cmd := range s.acl.cmds {
		if cmd.aclCats&(1<<cat) != 0 {
			if b.get(cmd.aclID) {
				on++
			} else {
				off++
			}
		}
	}
	return
}

// describeCommands is ACLDescribeSelectorCommandRules: +@all or -@all,
// then the categories that fit best, then single commands. (Redis emits
// the single commands in its command dict's order, which is random per
// process; ours is by name.)
func (s *Server) describeCommands(sel *aclSelector) string {
	var b strings.Builder
	fake := &aclSelector{}
	additive := !sel.allowed.get(aclFutureBit)
	if additive {
		b.WriteString("-@all ")
		s.aclSetSelector(fake, "-@all")
	} else {
		b.WriteString("+@all ")
		s.aclSetSelector(fake, "+@all")
	}
	temp := &aclSelector{allowed: sel.allowed}
	applied := make([]bool, len(aclCategories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := s.countCategory(&temp.allowed, j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best == -1 {
			break
		}
		s.setCategory(fake, best, additive)
		s.setCategory(temp, best, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(aclCategories[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	for _, n := range s.commands.sortedNames() {
		s.describeSingle(sel, fake, &b, s.commands[n])
	}
	out := b.String()
	return out[:len(out)-1]
}

func (s *Server) describeSingle(sel, fake *aclSelector, b *strings.Builder, cmd *command) {
	userbit, fakebit := sel.allowed.get(cmd.aclID), fake.allowed.get(cmd.aclID)
	if userbit != fakebit {
		if userbit {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(cmd.fullName())
		b.WriteByte(' ')
		fake.changePerm(cmd, userbit)
	}
	for _, sn := range sortedSubNames(cmd) {
		s.describeSingle(sel, fake, b, cmd.subs[sn])
	}
	if !userbit {
		for _, a := range sel.firstArg[cmd.aclID] {
			b.WriteString("+" + cmd.fullName() + "|" + a + " ")
		}
	}
}

// describeSelector is ACLDescribeSelector.
func (s *Server) describeSelector(sel *aclSelector) string {
	var b strings.Builder
	if sel.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, p := range sel.keys {
			b.WriteString(p.String() + " ")
		}
	}
	if sel.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range sel.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands(sel))
	return b.String()
}

// describeUser is ACLDescribeUser (ACL LIST's rules).
func (s *Server) describeUser(u *aclUser) string {
	var b strings.Builder
	for _, f := range aclUserFlags {
		if u.flags&f.flag != 0 {
			b.WriteString(f.name + " ")
		}
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, sel := range u.selectors {
		if i == 0 {
			b.WriteString(s.describeSelector(sel))
		} else {
			b.WriteString(" (" + s.describeSelector(sel) + ")")
		}
	}
	return b.String()
}

func (s *Server) sortedUsers() []*aclUser {
	names := make([]string, 0, len(s.acl.users))
	for n := range s.acl.users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*aclUser, len(names))
	for i, n := range names {
		out[i] = s.acl.users[n]
	}
	return out
}

// killUserClients is ACLFreeUserAndKillClients' loop: u's clients fall
// back to the default user, unauthenticated, and are closed (the current
// one after its reply).
func (s *Server) killUserClients(u *aclUser, cur *client) {
	for _, cl := range s.clients {
		if cl.user != u {
			continue
		}
		cl.user = s.acl.def
		cl.authed = false
		if cl == cur {
			cl.flags |= flagCloseAfterReply
		} else {
			s.killClient(cl)
		}
	}
}

// killPubsubClientsIfNeeded is ACLKillPubsubClientsIfNeeded: orig's
// subscribers whose channels the new rules no longer allow are closed.
func (s *Server) killPubsubClientsIfNeeded(nu, orig *aclUser, cur *client) {
	var upcoming []string
	for _, sel := range nu.selectors {
		if sel.flags&selAllChannels != 0 {
			return
		}
		upcoming = append(upcoming, sel.channels...)
	}
	match := true
	for _, sel := range orig.selectors {
		for _, c := range sel.channels {
			found := false
			for _, u := range upcoming {
				found = found || u == c
			}
			if !found {
				match = false
			}
		}
	}
	if match {
		return
	}
	for _, cl := range s.clients {
		if cl.user != orig || cl.flags&flagPubSub == 0 {
			continue
		}
		kill := false
		for p := range cl.patterns {
			if !aclChannelAllowed(upcoming, []byte(p), true) {
				kill = true
			}
		}
		for ch := range cl.channels {
			if !aclChannelAllowed(upcoming, []byte(ch), false) {
				kill = true
			}
		}
		for ch := range cl.shardChannels {
			if !aclChannelAllowed(upcoming, []byte(ch), false) {
				kill = true
			}
		}
		if kill {
			if cl == cur {
				cl.flags |= flagCloseAfterReply
			} else {
				s.killClient(cl)
			}
		}
	}
}
