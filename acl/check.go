package acl

import (
	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/rstring"
)

// Check results, ordered as Redis's ACL_DENIED_* (the most relevant
// selector error is the greatest).
const (
	OK = iota
	DeniedCmd
	DeniedKey
	DeniedAuth
	DeniedChannel
)

func keyRefPerm(flags []string) int {
	p := 0
	for _, f := range flags {
		switch f {
		case "access":
			p |= keyRead
		case "insert", "delete", "update":
			p |= keyWrite
		}
	}
	return p
}

func (sel *Selector) checkKey(key []byte, perm int) bool {
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

func channelAllowed(list []string, ch []byte, literal bool) bool {
	for _, p := range list {
		if literal && p == string(ch) || !literal && rstring.Match(p, ch, false) {
			return true
		}
	}
	return false
}

// channelArgs is ACLDoesCommandHaveChannels with the channels' place:
// argv[from:to], literal for PSUBSCRIBE's patterns.
func channelArgs(cmd *Command, argc int) (from, to int, literal, ok bool) {
	if cmd.parent != nil {
		return 0, 0, false, false
	}
	switch cmd.Meta.Name {
	case "publish", "spublish":
		return 1, 2, false, true
	case "subscribe", "ssubscribe":
		return 1, argc, false, true
	case "psubscribe":
		return 1, argc, true, true
	}
	return 0, 0, false, false
}

// keys is getKeysFromCommandWithSpecs for the check: the keys of argv,
// which may have the wrong arity (acl_check_cmd).
func (r *Rules) keys(cmd *Command, argv [][]byte) []cmdmeta.KeyRef {
	k := cmd.Meta.AppendKeys(r.keyBuf[:0], argv)
	if k != nil {
		r.keyBuf = k // reused: one check runs at a time
	}
	return k
}

// checkSelector is ACLSelectorCheckCmd; keys caches the key extraction
// across selectors.
func (r *Rules) checkSelector(sel *Selector, cmd *Command, argv [][]byte, keys *[]cmdmeta.KeyRef, keysDone *bool) (int, int) {
	if sel.flags&selAllCommands == 0 && !cmd.noAuth && !sel.allowed.get(cmd.id) {
		args := sel.firstArg[cmd.id]
		if len(argv) < 2 || args == nil {
			return DeniedCmd, 0
		}
		idx := 1
		if cmd.parent != nil {
			idx = 2
		}
		ok := false
		for _, a := range args {
			if idx < len(argv) && rstring.EqualFold(argv[idx], a) {
				ok = true
				break
			}
		}
		if !ok {
			return DeniedCmd, 0
		}
	}
	if sel.flags&selAllKeys == 0 && cmd.Meta.HasKeys() {
		if !*keysDone {
			*keys, *keysDone = r.keys(cmd, argv), true
		}
		for _, k := range *keys {
			if !sel.checkKey(argv[k.Pos], keyRefPerm(k.Flags)) {
				return DeniedKey, k.Pos
			}
		}
	}
	if sel.flags&selAllChannels == 0 {
		if from, to, literal, ok := channelArgs(cmd, len(argv)); ok {
			for j := from; j < to && j < len(argv); j++ {
				if !channelAllowed(sel.channels, argv[j], literal) {
					return DeniedChannel, j
				}
			}
		}
	}
	return OK, 0
}

// Check is ACLCheckAllUserCommandPerm: OK, or the most relevant denial
// and the index of the argument that caused it. A nil user (the AOF, the
// master) may run anything.
func (r *Rules) Check(u *User, cmd *Command, argv [][]byte) (int, int) {
	if u == nil || u.open {
		return OK, 0
	}
	relevant, last := DeniedCmd, 0
	var keys []cmdmeta.KeyRef
	done := false
	for _, sel := range u.selectors {
		res, idx := r.checkSelector(sel, cmd, argv, &keys, &done)
		if res == OK {
			return OK, 0
		}
		if res > relevant || res == relevant && idx > last {
			relevant, last = res, idx
		}
	}
	return relevant, last
}

// FullKeyAccess is ACLUserCheckCmdWithUnrestrictedKeyAccess for reads: a
// selector that allows argv (a full command line of cmd) can read any key
// (allkeys, or a "*" pattern with read permission).
func (r *Rules) FullKeyAccess(u *User, cmd *Command, argv [][]byte) bool {
	var keys []cmdmeta.KeyRef
	done := false
	for _, sel := range u.selectors {
		if res, _ := r.checkSelector(sel, cmd, argv, &keys, &done); res != OK {
			continue
		}
		if sel.flags&selAllKeys != 0 {
			return true
		}
		for _, p := range sel.keys {
			if p.flags&keyRead != 0 && p.pattern == "*" {
				return true
			}
		}
	}
	return false
}

// RevokedChannels is ACLKillPubsubClientsIfNeeded's test when nu's rules
// replace orig's: nil when every channel orig allowed stays allowed, else
// whether a subscriber's channel (or, literal, its pattern) is still
// allowed.
func RevokedChannels(nu, orig *User) (allowed func(ch []byte, literal bool) bool) {
	var upcoming []string
	for _, sel := range nu.selectors {
		if sel.flags&selAllChannels != 0 {
			return nil
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
		return nil
	}
	return func(ch []byte, literal bool) bool { return channelAllowed(upcoming, ch, literal) }
}
