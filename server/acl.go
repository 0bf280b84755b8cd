package server

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/aofserver/aofserver/acl"
	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/pubsub"
	"github.com/aofserver/aofserver/rstring"
)

// The server's side of the ACL (package acl holds the users' model, the
// rules and the check): the users by name, the default user the clients
// start as, the ACL file, the ACL LOG and the clients a change closes.

// Check results as the call sites name them.
const (
	aclOK            = acl.OK
	aclDeniedCmd     = acl.DeniedCmd
	aclDeniedKey     = acl.DeniedKey
	aclDeniedAuth    = acl.DeniedAuth
	aclDeniedChannel = acl.DeniedChannel
)

// Contexts of ACL LOG entries.
const (
	aclCtxToplevel = iota
	aclCtxMulti
	aclCtxLua
)

// aclState is a server's users and ACL log.
type aclState struct {
	rules *acl.Rules
	users map[string]*acl.User
	def   *acl.User
	log   []*aclLogEntry // newest first
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

// assignACLCommands numbers the commands of t for the ACL (containers
// then their subcommands, by name); run once on the builtin table, the
// clones copy each command's entry.
func assignACLCommands(t commandTable) *acl.Commands {
	names := t.sortedNames()
	metas := make([]*cmdmeta.Meta, len(names))
	for i, n := range names {
		metas[i] = t[n].meta
	}
	cmds := acl.NewCommands(metas)
	for _, cmd := range t {
		cmd.aclCmd = cmds.Lookup(cmd.meta.Name)
		for _, sub := range cmd.subs {
			sub.aclCmd = cmds.Lookup(sub.meta.Name)
		}
	}
	return cmds
}

// newACLRules is the rules over the process's commands with s's settings.
func (s *Server) newACLRules() *acl.Rules {
	return acl.NewRules(builtinACLCommands, func() bool {
		v := s.cfg.Get("acl-pubsub-default")
		return len(v) == 1 && v[0][1] == "allchannels"
	}, func(msg string) { s.log.Warn().Msg(msg) })
}

func (s *Server) initACL() {
	a := &s.acl
	a.rules = s.newACLRules()
	a.users = map[string]*acl.User{}
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
		out = append(out, "user "+u.Name+" "+s.acl.rules.Describe(u))
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
		if acl.HasSpaces(name) {
			logf(true, "Spaces not allowed in ACL usernames")
			return errors.New("Critical error while loading ACLs. Exiting.")
		}
		rules, bad := acl.MergeSelectorArgs(line[1:])
		if bad >= 0 {
			return errors.New("Error in user declaration '" + line[1+bad] + "': Syntax error")
		}
		u := s.acl.users[name]
		if u == nil {
			u = s.acl.rules.NewUser(name)
			s.acl.users[name] = u
		} else {
			s.acl.rules.Set(u, "reset") // only "default" exists already
		}
		for _, r := range rules {
			if e := s.acl.rules.Set(u, r); e != nil {
				logf(true, fmt.Sprintf("Error loading ACL rule '%s' for the user named '%s': %s", r, name, e))
				return errors.New("Critical error while loading ACLs. Exiting.")
			}
		}
		if !u.Enabled() {
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
	builtinMetaOnce.Do(initBuiltin)
	// acl-pubsub-default is its default here (resetchannels), and the
	// server's load logs the warnings
	r := acl.NewRules(builtinACLCommands, func() bool { return false }, func(string) {})
	u := r.NewUser("__fakeuser:0__")
	rules, bad := acl.MergeSelectorArgs(line[1:])
	if bad >= 0 {
		return bad, string(acl.ErrSyntax)
	}
	for j, rule := range rules {
		if e := r.Set(u, rule); e != nil && e != acl.ErrUnknown {
			return j, e.Error()
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
	users := map[string]*acl.User{}
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
		if acl.HasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, linenum, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum)
			continue
		}
		u := s.acl.rules.NewUser(argv[1])
		users[u.Name] = u
		rules, bad := acl.MergeSelectorArgs(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, linenum)
		}
		for _, r := range rules {
			r = strings.Trim(r, "\t\r\n")
			if e := s.acl.rules.Set(u, r); e == acl.ErrUnknown {
				// a command name is no secret: Redis names the rule
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, linenum, r, e)
			} else if e != nil {
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
		def.CopyFrom(nd)
	} else {
		def.CopyFrom(s.defaultUserRules())
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
func (s *Server) defaultUserRules() *acl.User {
	d := s.acl.rules.NewUser("default")
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		s.acl.rules.Set(d, op)
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
	s.acl.rules.Set(d, "resetpass")
	if pass != "" {
		s.acl.rules.Set(d, ">"+pass)
	} else {
		s.acl.rules.Set(d, "nopass")
	}
	s.aclDefaultChanged()
}

// aclDefaultChanged refreshes what the request parser reads (whether
// unauthenticated limits apply).
func (s *Server) aclDefaultChanged() { s.passwordSet.Store(s.aclDefaultNeedsAuth()) }

// aclDefaultNeedsAuth is the first half of Redis's authRequired.
func (s *Server) aclDefaultNeedsAuth() bool {
	d := s.acl.def
	return !d.NoPass() || !d.Enabled()
}

// setDefaultAuth is clientSetDefaultAuth.
func (s *Server) setDefaultAuth(c *client) {
	c.user = s.acl.def
	c.authed = c.user.NoPass() && c.user.Enabled()
}

// checkCredentials is ACLCheckUserCredentials.
func (s *Server) checkCredentials(name, pass []byte) *acl.User {
	if u := s.acl.users[string(name)]; u != nil && u.Authenticates(pass) {
		return u
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

// aclCheck is ACLCheckAllUserCommandPerm: aclOK, or the most relevant
// denial and the index of the argument that caused it. A nil user (the
// AOF, the master) may run anything.
func (s *Server) aclCheck(u *acl.User, cmd *command, argv [][]byte) (int, int) {
	return s.acl.rules.Check(u, cmd.aclCmd, argv)
}

// aclFullKeyAccess is ACLUserCheckCmdWithUnrestrictedKeyAccess for
// reads: a selector that allows argv (a full command line) can read any
// key.
func (s *Server) aclFullKeyAccess(u *acl.User, argv [][]byte) bool {
	cmd, _ := s.lookupCommand(argv)
	return cmd != nil && s.acl.rules.FullKeyAccess(u, cmd.aclCmd, argv)
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
func (s *Server) aclLogDenial(u *acl.User, who *client, res, ctx int, cmd *command, argv [][]byte, pos int) {
	var obj string
	switch res {
	case aclDeniedCmd:
		obj = cmd.fullName()
	case aclDeniedKey, aclDeniedChannel:
		obj = string(argv[pos])
	}
	s.aclLogAdd(who, res, ctx, u.Name, obj)
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

func (s *Server) sortedUsers() []*acl.User {
	names := make([]string, 0, len(s.acl.users))
	for n := range s.acl.users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*acl.User, len(names))
	for i, n := range names {
		out[i] = s.acl.users[n]
	}
	return out
}

// killUserClients is ACLFreeUserAndKillClients' loop: u's clients fall
// back to the default user, unauthenticated, and are closed (the current
// one after its reply).
func (s *Server) killUserClients(u *acl.User, cur *client) {
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
func (s *Server) killPubsubClientsIfNeeded(nu, orig *acl.User, cur *client) {
	allowed := acl.RevokedChannels(nu, orig)
	if allowed == nil {
		return
	}
	for _, cl := range s.clients {
		if cl.user != orig || cl.flags&flagPubSub == 0 {
			continue
		}
		notPat := func(ch string) bool { return !allowed([]byte(ch), false) }
		kill := cl.subs.Any(pubsub.Pattern, func(p string) bool { return !allowed([]byte(p), true) }) ||
			cl.subs.Any(pubsub.Channel, notPat) || cl.subs.Any(pubsub.Shard, notPat)
		if kill {
			if cl == cur {
				cl.flags |= flagCloseAfterReply
			} else {
				s.killClient(cl)
			}
		}
	}
}
