package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/rstring"
)

// User flags, in ACLDescribeUser's order.
const (
	userEnabled = 1 << iota
	userDisabled
	userNopass
	userSkipSanitize
	userSanitize
)

var userFlags = []struct {
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
	keyRead  = 1
	keyWrite = 2
	keyAll   = keyRead | keyWrite
)

type bitmap [commandBits / 64]uint64

func (b *bitmap) get(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

type keyPattern struct {
	pattern string
	flags   int
}

// Selector is one set of permissions of a user: the root one or one
// given in parentheses.
type Selector struct {
	flags    int
	allowed  bitmap
	firstArg map[int][]string // command id -> allowed first arguments
	keys     []keyPattern
	channels []string
}

// User is one ACL user.
type User struct {
	Name      string
	flags     int
	passwords []string // SHA-256 hex
	selectors []*Selector
	// open: the root selector allows every command, key and channel, so
	// processCommand skips the check (the default user's usual state).
	open bool
}

// Open reports whether u may run anything: the check can be skipped.
func (u *User) Open() bool { return u.open }

// Enabled reports whether u may authenticate ("on").
func (u *User) Enabled() bool { return u.flags&userDisabled == 0 }

// NoPass reports whether any password authenticates u ("nopass").
func (u *User) NoPass() bool { return u.flags&userNopass != 0 }

// FlagNames are u's flags as ACL GETUSER lists them.
func (u *User) FlagNames() []string {
	var out []string
	for _, f := range userFlags {
		if u.flags&f.flag != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// Passwords are the SHA-256 hashes of u's passwords, in hex.
func (u *User) Passwords() []string { return u.passwords }

// Selectors are u's selectors, the root one first.
func (u *User) Selectors() []*Selector { return u.selectors }

// Authenticates is ACLCheckUserCredentials for u: whether pass logs in.
func (u *User) Authenticates(pass []byte) bool {
	if u.flags&userDisabled != 0 {
		return false
	}
	if u.flags&userNopass != 0 {
		return true
	}
	h := hashPassword(string(pass))
	for _, p := range u.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			return true
		}
	}
	return false
}

func (sel *Selector) clone() *Selector {
	n := *sel
	n.keys = append([]keyPattern(nil), sel.keys...)
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

// CopyFrom is ACLCopyUser: dst gets src's rules, keeping its name.
func (dst *User) CopyFrom(src *User) {
	dst.flags = src.flags
	dst.passwords = append([]string(nil), src.passwords...)
	dst.selectors = make([]*Selector, len(src.selectors))
	for i, sel := range src.selectors {
		dst.selectors[i] = sel.clone()
	}
	dst.refresh()
}

func (u *User) refresh() {
	r := u.selectors[0]
	all := selAllKeys | selAllChannels | selAllCommands
	u.open = r.flags&all == all
}

func (u *User) root() *Selector { return u.selectors[0] }

// hashPassword is ACLHashPassword.
func hashPassword(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

func validHash(h string) bool {
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

// HasSpaces is ACLStringHasSpaces (isspace or NUL): such a user name or
// pattern is refused.
func HasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// Error is the errno ACLSetUser sets; its text is ACLSetUserStringError.
type Error string

func (e Error) Error() string { return string(e) }

// The errors of a rule.
const (
	ErrUnknown  Error = "Unknown command or category name in ACL"
	ErrSyntax   Error = "Syntax error"
	ErrAllKeys  Error = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	ErrAllChans Error = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	ErrNoPass   Error = "The password you are trying to remove from the user does not exist"
	ErrBadHash  Error = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	ErrChild    Error = "Allowing first-arg of a subcommand is not supported"
)

// Rules makes users and applies rules to them over one command table,
// with one server's settings.
type Rules struct {
	cmds *Commands
	// allChannels is acl-pubsub-default: whether a new selector may use
	// every channel.
	allChannels func() bool
	// warn logs the deprecation warning of a first-arg rule.
	warn func(msg string)
	// keyBuf holds the keys of the command being checked.
	keyBuf []cmdmeta.KeyRef
}

// NewRules returns the rules over cmds; allChannels reads the
// acl-pubsub-default setting ("allchannels"), warn logs a warning.
func NewRules(cmds *Commands, allChannels func() bool, warn func(msg string)) *Rules {
	return &Rules{cmds: cmds, allChannels: allChannels, warn: warn}
}

// Commands is the table the rules name commands from.
func (r *Rules) Commands() *Commands { return r.cmds }

func (r *Rules) newSelector(flags int) *Selector {
	sel := &Selector{flags: flags}
	if r.allChannels() {
		sel.flags |= selAllChannels
	}
	return sel
}

// NewUser is ACLCreateUser without linking the user: disabled, with no
// permission.
func (r *Rules) NewUser(name string) *User {
	u := &User{Name: name, flags: userDisabled}
	u.selectors = []*Selector{r.newSelector(selRoot)}
	return u
}

func (sel *Selector) setBit(id int, on bool) {
	if on {
		sel.allowed[id/64] |= 1 << (id % 64)
	} else {
		sel.allowed[id/64] &^= 1 << (id % 64)
		sel.flags &^= selAllCommands
	}
}

// changePerm is ACLChangeSelectorPerm: a container takes its subcommands
// along.
func (sel *Selector) changePerm(cmd *Command, on bool) {
	sel.setBit(cmd.id, on)
	delete(sel.firstArg, cmd.id)
	for _, sub := range cmd.subs {
		sel.setBit(sub.id, on)
	}
}

// setCategory is ACLSetSelectorCommandBitsForCategory.
func (r *Rules) setCategory(sel *Selector, cat int, on bool) {
	for _, cmd := range r.cmds.all {
		if cmd.cats&(1<<cat) != 0 {
			sel.changePerm(cmd, on)
		}
	}
}

// setSelector is ACLSetSelector.
func (r *Rules) setSelector(sel *Selector, op string) error {
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
		sel.allowed = bitmap{}
		sel.flags &^= selAllCommands
		sel.firstArg = nil
	case op[0] == '~' || op[0] == '%':
		if sel.flags&selAllKeys != 0 {
			return ErrAllKeys
		}
		flags, off := keyAll, 1
		if op[0] == '%' {
			flags = 0
			for ; off < len(op); off++ {
				ch := op[off] &^ 0x20
				if ch == 'R' && flags&keyRead == 0 {
					flags |= keyRead
				} else if ch == 'W' && flags&keyWrite == 0 {
					flags |= keyWrite
				} else if op[off] == '~' && flags != 0 { // "%~x" has no permission
					off++
					break
				} else {
					return ErrSyntax
				}
			}
		}
		pat := op[off:]
		if HasSpaces(pat) {
			return ErrSyntax
		}
		found := false
		for i := range sel.keys {
			if sel.keys[i].pattern == pat {
				sel.keys[i].flags |= flags
				found = true
			}
		}
		if !found {
			sel.keys = append(sel.keys, keyPattern{pattern: pat, flags: flags})
		}
		sel.flags &^= selAllKeys
	case op[0] == '&':
		if sel.flags&selAllChannels != 0 {
			return ErrAllChans
		}
		pat := op[1:]
		if HasSpaces(pat) {
			return ErrSyntax
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
			cmd := r.cmds.Lookup(name)
			if cmd == nil {
				return ErrUnknown
			}
			sel.changePerm(cmd, true)
			return nil
		}
		cmd := r.cmds.Lookup(name[:bar])
		if cmd == nil {
			return ErrUnknown
		}
		if cmd.parent != nil {
			return ErrChild
		}
		sub := name[bar+1:]
		if sub == "" {
			return ErrSyntax
		}
		if cmd.subs != nil {
			if cmd = r.cmds.Lookup(name); cmd == nil {
				return ErrUnknown
			}
			sel.changePerm(cmd, true)
			return nil
		}
		r.warn("Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL and may get disabled in the future (offender: +" + name + ")")
		for _, a := range sel.firstArg[cmd.id] {
			if strings.EqualFold(a, sub) {
				return nil
			}
		}
		if sel.firstArg == nil {
			sel.firstArg = map[int][]string{}
		}
		sel.firstArg[cmd.id] = append(sel.firstArg[cmd.id], sub)
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		cmd := r.cmds.Lookup(op[1:])
		if cmd == nil {
			return ErrUnknown
		}
		sel.changePerm(cmd, false)
	case (op[0] == '+' || op[0] == '-') && op[1] == '@':
		cat := categoryIndex(op[2:])
		if cat < 0 {
			return ErrUnknown
		}
		r.setCategory(sel, cat, op[0] == '+')
	default:
		return ErrSyntax
	}
	return nil
}

// Set is ACLSetUser: one rule applied to u; the error is an Error.
func (r *Rules) Set(u *User, op string) error {
	defer u.refresh()
	if op == "" {
		return nil
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
			h = hashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return ErrBadHash
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
			h = hashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return ErrBadHash
			}
			h = op[1:]
		}
		for i, p := range u.passwords {
			if p == h {
				u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
				return nil
			}
		}
		return ErrNoPass
	case op[0] == '(' && op[len(op)-1] == ')':
		sel := r.newSelector(0)
		// an unbalanced quote splits into nothing: an empty selector
		args, _ := rstring.SplitArgs(op[1 : len(op)-1])
		for _, a := range args {
			if e := r.setSelector(sel, a); e != nil {
				return e
			}
		}
		u.selectors = append(u.selectors, sel)
	case strings.EqualFold(op, "clearselectors"):
		u.selectors = u.selectors[:1]
	case strings.EqualFold(op, "reset"):
		for _, rule := range []string{"resetpass", "resetkeys", "resetchannels"} {
			r.Set(u, rule)
		}
		if r.allChannels() {
			r.Set(u, "allchannels")
		}
		for _, rule := range []string{"off", "sanitize-payload", "clearselectors", "-@all"} {
			r.Set(u, rule)
		}
	default:
		return r.setSelector(u.root(), op)
	}
	return nil
}

// MergeSelectorArgs is ACLMergeSelectorArguments: a selector spread over
// several arguments is joined; bad is the index of an unclosed one, or -1.
func MergeSelectorArgs(args []string) (out []string, bad int) {
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
