package server

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/aofserver/aofserver/acl"
)

// The ACL command (the users and the ACL file are in acl.go, their model in
// package acl), and ROLE
// for a master without replicas.

func init() {
	a := func(name string, arity int, flags uint64, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "server", summary: summary, since: since, acl: acl}
	}
	ls := cmdLoading | cmdStale
	adm := cmdAdmin | cmdNoScript | ls
	register(
		a("acl", -2, 0, nil, "A container for Access List Control commands ", "6.0.0", "@slow"),
		a("acl|cat", -2, cmdNoScript|ls, aclCatCommand, "List the ACL categories or the commands inside a category", "6.0.0", "@slow"),
		a("acl|deluser", -3, adm, aclDeluserCommand, "Remove the specified ACL users and the associated rules", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|dryrun", -4, adm, aclDryrunCommand, "Returns whether the user can execute the given command without executing the command.", "7.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|genpass", -2, cmdNoScript|ls, aclGenpassCommand, "Generate a pseudorandom secure password to use for ACL users", "6.0.0", "@slow"),
		a("acl|getuser", 3, adm, aclGetuserCommand, "Get the rules for a specific ACL user", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|help", 2, ls, aclHelpCommand, "Show helpful text about the different subcommands", "6.0.0", "@slow"),
		a("acl|list", 2, adm, aclListCommand, "List the current ACL rules in ACL config file format", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|load", 2, adm, aclLoadCommand, "Reload the ACLs from the configured ACL file", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|log", -2, adm, aclLogCommand, "List latest events denied because of ACLs in place", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|save", 2, adm, aclSaveCommand, "Save the current ACL rules in the configured ACL file", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|setuser", -3, adm, aclSetuserCommand, "Modify or create the rules for a specific ACL user", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|users", 2, adm, aclUsersCommand, "List the username of all the configured ACL rules", "6.0.0", "@admin", "@slow", "@dangerous"),
		a("acl|whoami", 2, cmdNoScript|ls, aclWhoamiCommand, "Return the name of the user associated to the current connection", "6.0.0", "@slow"),
		a("role", 1, cmdNoScript|ls|cmdFast, roleCommand, "Return the role of the instance in the context of replication", "2.8.12", "@admin", "@fast", "@dangerous"),
	)
}

// aclSubcommandArityError is the reply of ACL subcommands called with the
// wrong arguments (Redis checks those by hand).
func aclSubcommandArityError(c *client, sub []byte) {
	c.err("ERR unknown subcommand or wrong number of arguments for '" + string(sub) + "'. Try ACL HELP.")
}

func aclCatCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 2 {
		c.arrayLen(len(acl.Categories))
		for _, cat := range acl.Categories {
			c.bulkString(cat)
		}
		return
	}
	if len(argv) != 3 {
		aclSubcommandArityError(c, argv[1])
		return
	}
	if !acl.IsCategory(string(argv[2])) {
		c.err("ERR Unknown category '" + string(argv[2]) + "'")
		return
	}
	out := s.acl.rules.Commands().CategoryMembers(string(argv[2]))
	c.arrayLen(len(out))
	for _, n := range out {
		c.bulkString(n)
	}
}

func aclGenpassCommand(c *client, argv [][]byte) {
	bits := int64(256)
	if len(argv) > 3 {
		aclSubcommandArityError(c, argv[1])
		return
	}
	if len(argv) == 3 {
		n, ok := parseInt(argv[2])
		if !ok {
			c.errNotInt()
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.err("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		c.err("ERR failed to generate random bytes")
		return
	}
	c.bulkString(hex.EncodeToString(buf)[:chars])
}

func aclLoadCommand(c *client, argv [][]byte) {
	s := c.srv
	if s.aclFile() == "" {
		aclNoFileCommand(c, argv)
		return
	}
	if msg := s.aclLoadFile(c); msg != "" {
		c.err("ERR " + msg)
		return
	}
	c.ok()
}

func aclSaveCommand(c *client, argv [][]byte) {
	s := c.srv
	if s.aclFile() == "" {
		aclNoFileCommand(c, argv)
		return
	}
	if !s.aclSaveFile() {
		c.err("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.ok()
}

func aclNoFileCommand(c *client, argv [][]byte) {
	c.err("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
}

func aclHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.",
		"HELP",
		"    Prints this help.",
	})
}

func roleCommand(c *client, argv [][]byte) { c.srv.roleReply(c) } // replication.go

func aclWhoamiCommand(c *client, argv [][]byte) {
	if c.user == nil {
		c.nullBulk()
		return
	}
	c.bulkString(c.user.Name)
}

func aclUsersCommand(c *client, argv [][]byte) {
	users := c.srv.sortedUsers()
	c.arrayLen(len(users))
	for _, u := range users {
		c.bulkString(u.Name)
	}
}

func aclListCommand(c *client, argv [][]byte) {
	s := c.srv
	users := s.sortedUsers()
	c.arrayLen(len(users))
	for _, u := range users {
		c.bulkString("user " + u.Name + " " + s.acl.rules.Describe(u))
	}
}

// aclSelectorReply is aclAddReplySelectorDescription: commands, keys and
// channels of one selector.
func aclSelectorReply(c *client, sel *acl.Selector) {
	c.bulkString("commands")
	c.bulkString(c.srv.acl.rules.DescribeCommands(sel))
	c.bulkString("keys")
	c.bulkString(sel.Keys())
	c.bulkString("channels")
	c.bulkString(sel.Channels())
}

func aclGetuserCommand(c *client, argv [][]byte) {
	u := c.srv.acl.users[string(argv[2])]
	if u == nil {
		c.nullBulk()
		return
	}
	c.mapLen(6)
	c.bulkString("flags")
	flags := u.FlagNames()
	c.setLen(len(flags))
	for _, f := range flags {
		c.bulkString(f)
	}
	c.bulkString("passwords")
	c.arrayLen(len(u.Passwords()))
	for _, p := range u.Passwords() {
		c.bulkString(p)
	}
	sels := u.Selectors()
	aclSelectorReply(c, sels[0])
	c.bulkString("selectors")
	c.arrayLen(len(sels) - 1)
	for _, sel := range sels[1:] {
		c.mapLen(3)
		aclSelectorReply(c, sel)
	}
}

func aclDeluserCommand(c *client, argv [][]byte) {
	s := c.srv
	for _, u := range argv[2:] {
		if string(u) == "default" {
			c.err("ERR The 'default' user cannot be removed")
			return
		}
	}
	deleted := 0
	for _, name := range argv[2:] {
		if u := s.acl.users[string(name)]; u != nil {
			delete(s.acl.users, u.Name)
			s.killUserClients(u, c)
			deleted++
		}
	}
	c.integer(int64(deleted))
}

func aclDryrunCommand(c *client, argv [][]byte) {
	s := c.srv
	u := s.acl.users[string(argv[2])]
	if u == nil {
		c.err("ERR User '" + string(argv[2]) + "' not found")
		return
	}
	args := argv[3:]
	cmd, _ := s.lookupCommand(args)
	if cmd == nil {
		c.err("ERR Command '" + string(args[0]) + "' not found")
		return
	}
	if !arityOK(cmd, len(args)) {
		c.err("ERR wrong number of arguments for '" + cmd.fullName() + "' command")
		return
	}
	res, pos := s.aclCheck(u, cmd, args)
	switch res {
	case aclOK:
		c.ok()
	case aclDeniedCmd:
		c.bulkString("This user has no permissions to run the '" + cmd.fullName() + "' command")
	case aclDeniedKey:
		c.bulkString("This user has no permissions to access the '" + string(args[pos]) + "' key")
	default:
		c.bulkString("This user has no permissions to access the '" + string(args[pos]) + "' channel")
	}
}

func aclLogCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 3 {
		aclSubcommandArityError(c, argv[1])
		return
	}
	count := int64(10)
	if len(argv) == 3 {
		if eqFold(argv[2], "reset") {
			s.acl.log = nil
			c.ok()
			return
		}
		n, ok := parseInt(argv[2])
		if !ok {
			c.errNotInt()
			return
		}
		count = max(n, 0)
	}
	count = min(count, int64(len(s.acl.log)))
	c.arrayLen(int(count))
	now := s.nowMs()
	for _, le := range s.acl.log[:count] {
		c.mapLen(7)
		c.bulkString("count")
		c.integer(le.count)
		c.bulkString("reason")
		c.bulkString([...]string{"unknown", "command", "key", "auth", "channel"}[le.reason])
		c.bulkString("context")
		c.bulkString([...]string{"toplevel", "multi", "lua"}[le.context])
		c.bulkString("object")
		c.bulkString(le.object)
		c.bulkString("username")
		c.bulkString(le.username)
		c.bulkString("age-seconds")
		c.double(float64(now-le.ctimeMs) / 1000)
		c.bulkString("client-info")
		c.bulkString(le.cinfo)
	}
}

func aclSetuserCommand(c *client, argv [][]byte) {
	s := c.srv
	for i := 2; i < len(argv); i++ { // the user and its rules: passwords
		c.redactArg(argv, i)
	}
	name := string(argv[2])
	if acl.HasSpaces(name) {
		c.err("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules := make([]string, 0, len(argv)-3)
	for _, a := range argv[3:] {
		rules = append(rules, string(a))
	}
	ops, bad := acl.MergeSelectorArgs(rules)
	if bad >= 0 {
		c.err("ERR Unmatched parenthesis in acl selector starting at '" + string(argv[3+bad]) + "'.")
		return
	}
	// the rules are staged on a copy: all of them apply, or none
	tmp := s.acl.rules.NewUser(name)
	u := s.acl.users[name]
	if u != nil {
		tmp.CopyFrom(u)
	}
	for _, op := range ops {
		if e := s.acl.rules.Set(tmp, op); e != nil {
			c.err("ERR Error in ACL SETUSER modifier '" + op + "': " + e.Error())
			return
		}
	}
	if u != nil {
		s.killPubsubClientsIfNeeded(tmp, u, c)
	} else {
		u = &acl.User{Name: name}
		s.acl.users[name] = u
	}
	u.CopyFrom(tmp)
	if u == s.acl.def {
		s.aclDefaultChanged()
	}
	c.ok()
}
