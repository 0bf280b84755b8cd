package server

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/acl"
)

// Ports of tests/unit/acl.tcl's single-server cases, compared with
// redis-server 7.0.15. Redis lists single-command rules (+get -set) in its
// command dict's order, random per process: aclNorm sorts each run of
// them before comparing.

const mACLNorm = "\x00aclnorm"
const mACLLog = "\x00acllog"

func aclNorm(args ...string) []string { return append([]string{mACLNorm}, args...) }
func aclLog(args ...string) []string  { return append([]string{mACLLog}, args...) }

func isSingleRule(tok string) bool {
	return len(tok) > 1 && (tok[0] == '+' || tok[0] == '-') && tok[1] != '@'
}

// normalizeACLRules sorts consecutive single-command rules on each line.
func normalizeACLRules(raw string) string {
	lines := strings.Split(raw, "\r\n")
	for i, l := range lines {
		toks := strings.Split(l, " ")
		for j := 0; j < len(toks); {
			k := j
			for k < len(toks) && isSingleRule(toks[k]) && !strings.HasSuffix(toks[k], ")") {
				k++
			}
			if k > j {
				sort.Strings(toks[j:k])
				j = k
			} else {
				j++
			}
		}
		lines[i] = strings.Join(toks, " ")
	}
	return strings.Join(lines, "\r\n")
}

// normalizeACLLog drops the fields of ACL LOG entries that differ between
// servers (age-seconds, client-info).
func normalizeACLLog(raw string) string {
	lines := strings.Split(raw, "\r\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if lines[i] == "age-seconds" || lines[i] == "client-info" {
			i += 2
		}
	}
	return strings.Join(out, "\r\n")
}

func (p *diffPair) runACL(cmds [][]string) {
	p.t.Helper()
	for i, c := range cmds {
		mode := ""
		if len(c) > 0 && (c[0] == mACLNorm || c[0] == mACLLog) {
			mode, c = c[0], c[1:]
		}
		if mode == "" {
			p.step(i, c)
			continue
		}
		conn := 0
		if len(c) > 0 && c[0] == mConn2 {
			conn, c = 1, c[1:]
		}
		oc, rc := p.conn(conn)
		got, want := oc.do(c...), rc.do(c...)
		if mode == mACLNorm {
			got, want = normalizeACLRules(got), normalizeACLRules(want)
		} else {
			got, want = normalizeACLLog(got), normalizeACLLog(want)
		}
		if got != want {
			p.mismatch("#%d %q:\n ours:  %q\n redis: %q", i, c, got, want)
		}
	}
}

func TestDiffACLSetuserRules(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		// acl.tcl "Connections start with the default user", "It is
		// possible to create new users", "Usernames can not contain spaces
		// or null characters"
		cmd("ACL", "WHOAMI"),
		cmd("ACL", "SETUSER", "newuser"),
		aclNorm("ACL", "LIST"), cmd("ACL", "USERS"),
		cmd("ACL", "SETUSER", "a a"), cmd("ACL", "SETUSER", "a\x00a"),
		// "New users start disabled", "Enabling the user allows the login"
		cmd("ACL", "SETUSER", "newuser", ">passwd1"),
		cmd("AUTH", "newuser", "passwd1"),
		cmd("ACL", "SETUSER", "newuser", "on", "+acl"),
		cmd("AUTH", "newuser", "passwd1"), cmd("ACL", "WHOAMI"),
		cmd("AUTH", "newuser", "wrong"),
		cmd("ACL", "SETUSER", "newuser", ">passwd2"), cmd("AUTH", "newuser", "passwd2"),
		cmd("ACL", "SETUSER", "newuser", "<passwd1"), cmd("AUTH", "newuser", "passwd1"),
		cmd("AUTH", "default", ""),
		cmd("ACL", "SETUSER", "newuser", "nopass"), cmd("AUTH", "newuser", "zipzapblabla"),
		cmd("ACL", "SETUSER", "newuser", "resetpass"), cmd("AUTH", "newuser", "zipzapblabla"),
		cmd("AUTH", "default", "x"),
		// password hashes
		cmd("ACL", "SETUSER", "hashed", "#34344e4d60718c9d0b2f3f1a4b0d3a0ea7e1b1d0f2a6e0aee1eae9e5bd69e1d1"),
		cmd("ACL", "GETUSER", "hashed"),
		cmd("ACL", "SETUSER", "hashed", "!34344e4d60718c9d0b2f3f1a4b0d3a0ea7e1b1d0f2a6e0aee1eae9e5bd69e1d1"),
		cmd("ACL", "SETUSER", "hashed", "#34344e4d60718c9d0b2f3f1a4b0d3a0ea7e1b1d0f2a6e0aee1eae9e5bd69e1dZ"),
		cmd("ACL", "SETUSER", "hashed", "#abc"), cmd("ACL", "SETUSER", "hashed", "!abc"),
		cmd("ACL", "SETUSER", "hashed", "<notthere"),
		cmd("ACL", "GETUSER", "hashed"),
		// bad rules and their texts
		cmd("ACL", "SETUSER", "bad", "nosuchrule"), cmd("ACL", "SETUSER", "bad", "+nosuchcmd"),
		cmd("ACL", "SETUSER", "bad", "+@nosuchcat"), cmd("ACL", "SETUSER", "bad", "-@nosuchcat"),
		cmd("ACL", "SETUSER", "bad", "~*", "~foo"), cmd("ACL", "SETUSER", "bad", "allkeys", "%R~foo"),
		cmd("ACL", "SETUSER", "bad", "&*", "&foo"), cmd("ACL", "SETUSER", "bad", "allchannels", "&foo"),
		cmd("ACL", "SETUSER", "bad", "+config|get|x"), cmd("ACL", "SETUSER", "bad", "+get|"),
		cmd("ACL", "SETUSER", "bad", "+get|x|y"), cmd("ACL", "SETUSER", "bad", "-select|0"),
		cmd("ACL", "SETUSER", "bad", "%X~a"), cmd("ACL", "SETUSER", "bad", "%RR~a"),
		cmd("ACL", "SETUSER", "bad", "%~a"), cmd("ACL", "SETUSER", "bad", "%~"),
		cmd("ACL", "SETUSER", "odd", "%R", "%RW~", "%WR~x", "~"), aclNorm("ACL", "GETUSER", "odd"),
		cmd("ACL", "SETUSER", "bad", "~a b"), cmd("ACL", "SETUSER", "bad", "+"),
		cmd("ACL", "SETUSER", "bad", "(+get", "~x"), cmd("ACL", "SETUSER", "bad", "on", "(+get"),
		cmd("ACL", "SETUSER", "bad", "(+nosuch)"), cmd("ACL", "SETUSER", "bad", "(~x", "+nosuch)"),
		cmd("ACL", "GETUSER", "bad"), cmd("ACL", "GETUSER", "nosuch"),
		// canonical rules (ACLDescribeUser)
		cmd("ACL", "SETUSER", "r1", "+@slow", "-@all", "+get", "+set", "+config|get", "+select|0", "+select|1"),
		cmd("ACL", "SETUSER", "r2", "+@all", "-@dangerous", "-get", "-client|kill"),
		cmd("ACL", "SETUSER", "r3", "+@read", "+@write", "-@hash", "%R~r*", "%W~w*", "~a*", "%RW~b*", "%R~b*", "&chan*", "&chan*", "(+get ~y*)", "(", "+set", "~z*", ")"),
		cmd("ACL", "SETUSER", "r4", "+@geo", "+@string", "-@fast", "on", "nopass", "skip-sanitize-payload"),
		cmd("ACL", "SETUSER", "r5", "allcommands", "allkeys", "allchannels", "-@all", "+@set", "+@all", "-@set", "sanitize-payload"),
		cmd("ACL", "SETUSER", "r6", "+config", "-config|set", "+debug|digest", "+select|0", "-select"),
		cmd("ACL", "SETUSER", "r7", "nocommands", "+@all", "-@all", "+client", "resetkeys", "~x", "resetchannels", "&y"),
		cmd("ACL", "SETUSER", "r8", "+@all", "(+get)", "(+set)", "clearselectors", "(~a +@read)"),
		cmd("ACL", "SETUSER", "r9", "on", ">a", ">b", ">a", "~k", "+get", "reset"),
		aclNorm("ACL", "LIST"), cmd("ACL", "USERS"),
		aclNorm("ACL", "GETUSER", "r1"), aclNorm("ACL", "GETUSER", "r3"), aclNorm("ACL", "GETUSER", "r6"),
		aclNorm("ACL", "GETUSER", "r8"), aclNorm("ACL", "GETUSER", "default"),
		// ACL DRYRUN
		cmd("ACL", "DRYRUN", "r3", "get", "a1"), cmd("ACL", "DRYRUN", "r3", "get", "y1"),
		cmd("ACL", "DRYRUN", "r3", "set", "r1", "x"), cmd("ACL", "DRYRUN", "r3", "publish", "chanx", "m"),
		cmd("ACL", "DRYRUN", "r3", "hset", "a1", "f", "v"), cmd("ACL", "DRYRUN", "r3", "lpush", "b1", "v"),
		cmd("ACL", "DRYRUN", "r3", "get", "r1"), cmd("ACL", "DRYRUN", "r3", "set", "w1", "v"),
		cmd("ACL", "DRYRUN", "r3", "get", "w1"), cmd("ACL", "DRYRUN", "r3", "copy", "r1", "w1"),
		cmd("ACL", "DRYRUN", "r3", "mget", "a1", "zz", "y1"), cmd("ACL", "DRYRUN", "r3", "set", "zz", "v"),
		cmd("ACL", "DRYRUN", "r7", "publish", "y", "m"), cmd("ACL", "DRYRUN", "r7", "publish", "z", "m"),
		cmd("ACL", "DRYRUN", "r6", "select", "0"), cmd("ACL", "DRYRUN", "r6", "select", "1"),
		cmd("ACL", "DRYRUN", "r6", "config", "set", "x", "y"), cmd("ACL", "DRYRUN", "r6", "config", "get", "x"),
		cmd("ACL", "DRYRUN", "r6", "debug", "digest"), cmd("ACL", "DRYRUN", "r6", "auth", "x"),
		cmd("ACL", "DELUSER", "r1", "r2", "nosuch"), cmd("ACL", "USERS"),
	})
}

func TestDiffACLPermissions(t *testing.T) {
	p := newDiffPair(t)
	c2 := func(args ...string) []string { return conn2(args...) }
	p.runACL([][]string{
		cmd("ACL", "LOG", "RESET"),
		cmd("ACL", "SETUSER", "newuser", "on", "nopass", "-@all", "+set", "+get", "+acl", "+multi", "+exec", "+discard", "+publish", "+subscribe", "+psubscribe", "+eval", "~obj:*", "&ch*"),
		c2("AUTH", "newuser", "x"), c2("ACL", "WHOAMI"),
		// "By default users are not able to access any command / key"
		c2("SET", "obj:1", "v"), c2("GET", "obj:1"), c2("SET", "other", "v"), c2("INCR", "obj:1"),
		c2("CONFIG", "GET", "maxmemory"), c2("MSET", "obj:1", "a", "x", "b"),
		// pub/sub channels
		c2("PUBLISH", "chan", "m"), c2("PUBLISH", "other", "m"),
		// MULTI: denied commands are refused while queueing; EXEC then
		// aborts, and rules changed after queueing refuse at EXEC
		c2("MULTI"), c2("SET", "obj:1", "a"), c2("INCR", "obj:1"), c2("EXEC"),
		c2("MULTI"), c2("SET", "obj:1", "a"), c2("SET", "obj:2", "b"),
		cmd("ACL", "SETUSER", "newuser", "resetkeys", "~obj:2"),
		c2("EXEC"),
		cmd("ACL", "SETUSER", "newuser", "allkeys"),
		c2("MULTI"), c2("GET", "obj:1"),
		cmd("ACL", "SETUSER", "newuser", "-get"),
		c2("EXEC"),
		cmd("ACL", "SETUSER", "newuser", "+get"),
		// scripts run as the caller
		c2("EVAL", "return redis.call('incr','obj:1')", "0"),
		c2("EVAL", "return redis.pcall('incr','obj:1')", "0"),
		cmd("ACL", "SETUSER", "newuser", "resetkeys", "~obj:*"),
		c2("EVAL", "return redis.call('get','other')", "0"),
		c2("EVAL", "return redis.pcall('set','other','v')", "0"),
		c2("EVAL", "return redis.call('publish','nochan','m')", "0"),
		c2("EVAL", "return redis.acl_check_cmd('set','obj:1','v')", "0"),
		c2("EVAL", "return redis.acl_check_cmd('set','other','v')", "0"),
		c2("EVAL", "return redis.acl_check_cmd('hset','obj:1','f','v')", "0"),
		c2("EVAL", "return redis.acl_check_cmd('get')", "0"),
		// the log (without age and client info)
		aclLog("ACL", "LOG"), aclLog("ACL", "LOG", "2"), cmd("ACL", "LOG", "0"),
		cmd("AUTH", "newuser", "x"), cmd("AUTH", "nosuchuser", "x"), cmd("AUTH", "nosuchuser", "x"),
		cmd("AUTH", "default", "x"),
		aclLog("ACL", "LOG", "3"), cmd("ACL", "LOG", "RESET"), cmd("ACL", "LOG"),
		// "ACL GETUSER is able to translate back command permissions"
		aclNorm("ACL", "GETUSER", "newuser"),
		// HELLO AUTH as another user
		cmd("ACL", "SETUSER", "helloer", "on", ">pw", "+@all", "~*"),
		shape("HELLO", "2", "AUTH", "helloer", "pw"), cmd("ACL", "WHOAMI"),
		cmd("HELLO", "2", "AUTH", "helloer", "wrong"), cmd("ACL", "WHOAMI"),
		cmd("RESET"), cmd("ACL", "WHOAMI"),
		// "ACL DELUSER kills the user's clients"; CLIENT KILL USER
		cmd("ACL", "DELUSER", "newuser"),
	})
	// both servers closed the second connection
	oc, rc := p.conn(1)
	for _, c := range []*respConn{oc, rc} {
		c.send("PING")
		if raw, err := readRaw(c.br); err == nil {
			t.Errorf("the deleted user's connection still answers: %q", raw)
		}
	}
	p.runACL([][]string{
		cmd("CLIENT", "KILL", "USER", "nosuch"),
		cmd("CLIENT", "KILL", "USER", "helloer"),
		// requirepass is the default user's password
		cmd("CONFIG", "SET", "requirepass", "pw1"), aclNorm("ACL", "LIST"),
		cmd("ACL", "SETUSER", "default", "resetpass", ">pw2"),
		cmd("CONFIG", "GET", "requirepass"), aclNorm("ACL", "LIST"),
		cmd("AUTH", "pw2"), cmd("AUTH", "pw1"),
		cmd("ACL", "SETUSER", "default", "nopass"), aclNorm("ACL", "LIST"),
		cmd("CONFIG", "SET", "requirepass", ""),
	})
}

// acl.tcl's channel cases: publishing and subscribing to a subset of
// channels, in MULTI too, and subscribers closed when their channels are
// revoked.
func TestDiffACLChannels(t *testing.T) {
	p := newDiffPair(t)
	c2 := func(args ...string) []string { return conn2(args...) }
	p.runACL([][]string{
		cmd("ACL", "SETUSER", "psuser", "on", ">pspass", "+acl", "+client", "+@pubsub", "+multi", "+discard"),
		c2("AUTH", "psuser", "pspass"),
		c2("PUBLISH", "foo", "bar"),
		cmd("ACL", "SETUSER", "psuser", "resetchannels", "&foo:1", "&bar:*"),
		c2("PUBLISH", "foo:1", "m"), c2("PUBLISH", "bar:2", "m"), c2("PUBLISH", "zap:3", "m"),
		c2("MULTI"), c2("PUBLISH", "notexists", "m"), c2("SUBSCRIBE", "notexists", "foo:1"),
		c2("PSUBSCRIBE", "notexists:*", "bar:*"), c2("DISCARD"),
		cmd("ACL", "SETUSER", "hpuser", "on", "nopass", "resetchannels", "&foo", "+@all"),
		aclNorm("ACL", "LIST"),
		cmd("ACL", "DRYRUN", "psuser", "subscribe", "foo:1", "zap:3"),
		cmd("ACL", "DRYRUN", "psuser", "psubscribe", "bar:*"), cmd("ACL", "DRYRUN", "psuser", "psubscribe", "bar:baz"),
		c2("SUBSCRIBE", "foo:1"), c2("SUBSCRIBE", "zap:3"), c2("PSUBSCRIBE", "bar:*"), c2("PSUBSCRIBE", "bar:baz"),
		// a superset keeps the subscriber
		cmd("ACL", "SETUSER", "psuser", "resetchannels", "&foo:1", "&bar:*", "&baz"),
		c2("PING"),
		// revoking its channel closes it
		cmd("ACL", "SETUSER", "psuser", "resetchannels"),
	})
	oc, rc := p.conn(1)
	for _, c := range []*respConn{oc, rc} {
		c.send("PING")
		if raw, err := readRaw(c.br); err == nil {
			t.Errorf("the revoked subscriber still answers: %q", raw)
		}
	}
}

// A shard-channel subscriber is closed too when its channel is revoked.
func TestDiffACLShardSubscriberRevoked(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		cmd("ACL", "SETUSER", "psuser", "on", ">pspass", "+@pubsub", "resetchannels", "&foo:1", "&orders"),
		shape(mConn2, "HELLO", "3", "AUTH", "psuser", "pspass", "SETNAME", "x"),
		conn2("SSUBSCRIBE", "orders"), conn2("SPUBLISH", "nope", "m"),
		cmd("ACL", "SETUSER", "psuser", "resetchannels", "&foo:1"),
	})
	oc, rc := p.conn(1)
	for _, c := range []*respConn{oc, rc} {
		c.send("PING")
		if raw, err := readRaw(c.br); err == nil {
			t.Errorf("the revoked shard subscriber still answers: %q", raw)
		}
	}
}

// acl.tcl's rule translation cases: GETUSER's commands field after
// subcommand, category and first-arg rules (Redis 7.0 recomputes it from
// the bitmap), and every category alone on +@all and -@all.
func TestDiffACLDescribeCommands(t *testing.T) {
	p := newDiffPair(t)
	getCmds := func(u string) []string { return aclNorm("ACL", "GETUSER", u) }
	steps := [][]string{
		cmd("ACL", "SETUSER", "bob", "+memory|doctor"), getCmds("bob"),
		cmd("ACL", "SETUSER", "bob", "+memory"), getCmds("bob"),
		cmd("ACL", "SETUSER", "bob", "+@all", "+client|id"), getCmds("bob"),
		cmd("ACL", "SETUSER", "alice", "+@all", "-memory|doctor"), getCmds("alice"),
		cmd("ACL", "SETUSER", "alice", "+@all", "-memory"), getCmds("alice"),
		cmd("ACL", "SETUSER", "alice", "-@all"), getCmds("alice"),
		cmd("ACL", "SETUSER", "example"), aclNorm("ACL", "LIST"),
		cmd("ACL", "SETUSER", "example", "reset"), aclNorm("ACL", "LIST"),
		cmd("ACL", "SETUSER", "newuser", "reset", "+@all", "~*", "-@string", "+incr", "-debug", "+debug|digest"), getCmds("newuser"),
		cmd("ACL", "SETUSER", "newuser", "reset", "+@string", "-incr", "+acl", "+debug|digest", "+debug|segfault"), getCmds("newuser"),
		cmd("ACL", "SETUSER", "adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "+@all", "-@hash", "-@slow", "+hget"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@hash"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "+@hash"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@string", "-@slow", "+@all"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+@HASH", "+@hash", "+@HaSh"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+HGET", "+hget", "+hGeT"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+@hash", "+@slow", "+@set", "+@set", "+@slow", "+@hash"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+hget", "-hset", "+hset", "-hget"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+client|list", "+client|list", "+config|get", "+config", "+acl|list", "-acl"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+select|0", "+select|0", "+debug|segfault", "+debug"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "-@dangerous"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "adv-test", "-@all", "+config", "+config|get", "-config|set", "+config"), getCmds("adv-test"),
		cmd("ACL", "SETUSER", "newuser", "reset", "-debug", "+debug|a", "+debug|b", "+debug|c"), getCmds("newuser"),
		cmd("ACL", "SETUSER", "newuser", "-debug"), getCmds("newuser"),
		cmd("ACL", "SETUSER", "scripter", "on", "nopass", "+readonly"),
		cmd("ACL", "DRYRUN", "scripter", "EVAL_RO", "", "0"), cmd("ACL", "DRYRUN", "scripter", "EVALSHA_RO", "", "0"),
		cmd("ACL", "DRYRUN", "scripter", "FCALL_RO", "", "0"),
		cmd("ACL", "CAT", "NON_EXISTS"), cmd("ACL", "CAT", "NON_EXISTS", "NON_EXISTS2"),
	}
	for _, cat := range acl.Categories {
		steps = append(steps,
			cmd("ACL", "SETUSER", "additive", "reset", "+@all", "-@"+cat), getCmds("additive"),
			cmd("ACL", "SETUSER", "restrictive", "reset", "-@all", "+@"+cat), getCmds("restrictive"))
	}
	p.runACL(steps)
}

// acl.tcl's ACL LOG cases: grouping, contexts (toplevel, multi, lua),
// keys, channels, auth, and acllog-max-len.
func TestDiffACLLog(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		cmd("ACL", "LOG", "RESET"),
		cmd("ACL", "SETUSER", "user1", ">foo"), cmd("AUTH", "user1", "doo"), cmd("AUTH", "user1", "doo"),
		aclLog("ACL", "LOG"),
		cmd("ACL", "LOG", "RESET"),
		cmd("ACL", "SETUSER", "antirez", ">foo", "on", "+set", "~object:1234"),
		cmd("ACL", "SETUSER", "antirez", "+eval", "+multi", "+exec"),
		cmd("ACL", "SETUSER", "antirez", "resetchannels", "+publish"),
		cmd("ACL", "SETUSER", "demo", "on", "nopass"),
		cmd("AUTH", "antirez", "foo"), cmd("GET", "foo"), cmd("GET", "foo"), cmd("GET", "foo"),
		cmd("SET", "somekeynotallowed", "1234"), cmd("PUBLISH", "somechannelnotallowed", "nullmsg"),
		cmd("MULTI"), cmd("INCR", "foo"), cmd("EXEC"),
		cmd("EVAL", "redis.call('incr','foo')", "0"),
		cmd("AUTH", "demo", ""), cmd("SCRIPT", "HELP"),
		cmd("AUTH", "default", ""),
		aclLog("ACL", "LOG"), aclLog("ACL", "LOG", "2"),
		cmd("ACL", "SETUSER", "antirez", "+incr"),
		cmd("AUTH", "antirez", "foo"), cmd("MULTI"), cmd("INCR", "object:1234"),
		conn2("ACL", "SETUSER", "antirez", "-incr"),
		cmd("EXEC"),
		cmd("AUTH", "antirez", "wrong-password"), cmd("auth", "antirez", "wrong-password"),
		cmd("AUTH", "default", ""),
		aclLog("ACL", "LOG"),
		cmd("ACL", "LOG", "RESET"), cmd("CONFIG", "SET", "acllog-max-len", "0"),
		cmd("AUTH", "antirez", "foo"), cmd("SET", "obj:1", "1"), cmd("SET", "obj:2", "1"),
		cmd("AUTH", "default", ""), cmd("ACL", "LOG"),
		cmd("CONFIG", "SET", "acllog-max-len", "5"),
		cmd("AUTH", "antirez", "foo"),
		cmd("SET", "obj:1", "1"), cmd("SET", "obj:2", "1"), cmd("SET", "obj:3", "1"), cmd("SET", "obj:4", "1"),
		cmd("SET", "obj:5", "1"), cmd("SET", "obj:6", "1"), cmd("SET", "obj:7", "1"),
		cmd("AUTH", "default", ""), aclLog("ACL", "LOG"),
		cmd("CONFIG", "SET", "acllog-max-len", "0"), aclLog("ACL", "LOG"),
		cmd("CONFIG", "SET", "acllog-max-len", "128"),
		// "When default user is off, new connections are not authenticated"
		cmd("ACL", "SETUSER", "default", "off"),
		conn2("PING"), conn2("AUTH", "antirez", "foo"), conn2("PING"),
	})
	// a connection made while the default user is off is not
	// authenticated
	oc, rc := dial(t, p.ours.addr), dial(t, p.real.addr)
	for _, c := range [][]string{{"PING"}, {"HELLO", "3"}, {"AUTH", "x"}, {"AUTH", "antirez", "foo"}, {"ACL", "WHOAMI"}} {
		if got, want := oc.do(c...), rc.do(c...); got != want {
			t.Errorf("%q on a new connection: ours %q, redis %q", c, got, want)
		}
	}
}

// SORT's BY and GET patterns need unrestricted read access (sort.c).
func TestDiffACLSortPatterns(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		cmd("RPUSH", "pub1", "3", "1", "2"), cmd("SET", "w_1", "9"),
		cmd("ACL", "SETUSER", "u1", "on", ">p", "+@all", "~pub*"),
		cmd("ACL", "SETUSER", "u2", "on", ">p", "+@all", "%R~*", "~pub*"),
		cmd("ACL", "SETUSER", "u3", "on", ">p", "+@all", "%W~*", "~pub*"),
		cmd("ACL", "SETUSER", "u4", "on", ">p", "-@all", "+get", "~*", "(+sort ~pub*)"),
		cmd("AUTH", "u1", "p"),
		cmd("SORT", "pub1"), cmd("SORT", "pub1", "BY", "nosort"), cmd("SORT", "pub1", "BY", "w_*"),
		cmd("SORT", "pub1", "GET", "#"), cmd("SORT", "pub1", "GET", "w_*"), cmd("SORT_RO", "pub1", "BY", "w_*"),
		cmd("EVAL", "return redis.call('sort','pub1','by','w_*')", "0"),
		cmd("AUTH", "u2", "p"), cmd("SORT", "pub1", "BY", "w_*", "GET", "#"),
		cmd("AUTH", "u3", "p"), cmd("SORT", "pub1", "BY", "w_*"),
		cmd("AUTH", "u4", "p"), cmd("SORT", "pub1", "BY", "w_*"), cmd("SORT", "pub1"),
	})
}

// While a script is busy, a restricted user's denied command gets NOPERM,
// not BUSY (processCommand checks the ACL first).
func aclBusyScenario(t *testing.T, addr string) []string {
	t.Helper()
	var out []string
	r, r2 := dial(t, addr), dial(t, addr)
	out = append(out, r.do("ACL", "SETUSER", "u", "on", ">p", "+@all", "-get", "~*"), r2.do("AUTH", "u", "p"))
	ch := asyncDo(t, addr, "EVAL", "while true do end", "0")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(r.do("PING"), "-BUSY") {
		if time.Now().After(deadline) {
			t.Fatal("the server never became busy")
		}
	}
	out = append(out, r2.do("GET", "x"), r2.do("SET", "x", "1"), r2.do("MULTI"), r2.do("GET", "x"))
	out = append(out, r.do("SCRIPT", "KILL"), reply(t, ch), r2.do("EXEC"))
	return out
}

func TestDiffACLBusyScript(t *testing.T) {
	requireRedis(t)
	rr := startRealRedis(t, "--busy-reply-threshold", "10")
	ours := startOurServer(t, "--busy-reply-threshold", "10")
	compareScenario(t, aclBusyScenario(t, ours.addr), aclBusyScenario(t, rr.addr))
}

// GETUSER (a map, flags a set) and LOG (maps, age a double) in RESP3.
func TestDiffACLResp3(t *testing.T) {
	p := newDiffPair3(t)
	p.runACL([][]string{
		cmd("ACL", "SETUSER", "r3", "on", ">x", "~a*", "%R~b*", "&c*", "+@read", "-get", "(+set ~s*)", "(+get)"),
		aclNorm("ACL", "GETUSER", "r3"), aclNorm("ACL", "GETUSER", "default"), cmd("ACL", "GETUSER", "nosuch"),
		aclNorm("ACL", "LIST"), cmd("ACL", "USERS"), cmd("ACL", "WHOAMI"),
		cmd("AUTH", "r3", "bad"), cmd("AUTH", "r3", "x"), cmd("GET", "a1"), cmd("SET", "s1", "v"), cmd("SET", "a1", "v"),
		cmd("AUTH", "default", ""),
		aclLog("ACL", "LOG"), cmd("ACL", "DRYRUN", "r3", "get", "zz"), cmd("ACL", "DRYRUN", "r3", "set", "s1", "v"),
	})
}

// acl.tcl's HELLO cases (authentication and SETNAME chains, a default user
// without commands) and a client deleting its own user.
func TestDiffACLHelloAndSelfDelete(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		cmd("ACL", "SETUSER", "secure-user", ">supass", "on", "+@all"),
		cmd("ACL", "SETUSER", "default", "-@all"),
		shape("HELLO", "2", "AUTH", "secure-user", "supass"), cmd("ACL", "WHOAMI"),
		cmd("ACL", "SETUSER", "default", "nopass", "+@all"), cmd("AUTH", "default", ""),
		cmd("ACL", "SETUSER", "secure-user1", ">supass", "on", "+@all"),
		cmd("ACL", "SETUSER", "secure-user2", ">supass", "on", "+@all"),
		shape("HELLO", "2", "AUTH", "secure-user", "pass", "AUTH", "secure-user2", "supass", "AUTH", "secure-user1", "supass"),
		cmd("ACL", "WHOAMI"),
		shape("HELLO", "2", "AUTH", "secure-user", "supass", "AUTH", "secure-user2", "supass", "AUTH", "secure-user", "pass"),
		cmd("ACL", "WHOAMI"),
		shape("HELLO", "2", "SETNAME", "client1", "SETNAME", "client2"), cmd("CLIENT", "GETNAME"),
		cmd("HELLO", "2", "SETNAME", "client5", "SETNAME", "client name"), cmd("CLIENT", "GETNAME"),
		cmd("CLIENT", "SETNAME", "client0"), cmd("HELLO", "2", "AUTH", "user", "pass", "SETNAME", "client1"), cmd("CLIENT", "GETNAME"),
		cmd("ACL", "HELP", "xxx"),
		cmd("ACL", "SETUSER", "not_used", "on", ">passwd"), cmd("ACL", "DELUSER", "not_used"), cmd("PING"),
		cmd("ACL", "SETUSER", "using", "on", "+acl", ">passwd"), conn2("AUTH", "using", "passwd"),
		conn2("ACL", "DELUSER", "using"),
	})
	oc, rc := p.conn(1)
	for _, c := range []*respConn{oc, rc} {
		c.send("PING")
		if raw, err := readRaw(c.br); err == nil {
			t.Errorf("the client that deleted its own user still answers: %q", raw)
		}
	}
	// SETNAME applies before HELLO's authentication check (on a new
	// second connection)
	p.oc[1], p.rc[1] = nil, nil
	p.runACL([][]string{
		cmd("CONFIG", "SET", "requirepass", "pw"),
		conn2("HELLO", "2", "SETNAME", "early"), conn2("HELLO", "2", "SETNAME", "x2", "AUTH", "default", "bad"),
		conn2("HELLO", "2", "SETNAME", "a b"),
		conn2("AUTH", "pw"), conn2("CLIENT", "GETNAME"),
		cmd("CONFIG", "SET", "requirepass", ""),
	})
}

// NOPERM replies count in the error stats like Redis's (rejected calls at
// top level and in MULTI, failed calls inside scripts).
func TestDiffACLErrorStats(t *testing.T) {
	p := newDiffPair(t)
	p.runACL([][]string{
		cmd("CONFIG", "RESETSTAT"),
		cmd("ACL", "SETUSER", "e", "on", "nopass", "+@all", "-get", "~k*", "&c"),
		cmd("AUTH", "e", "x"), cmd("GET", "k"), cmd("SET", "z", "1"), cmd("PUBLISH", "d", "m"),
		cmd("EVAL", "return redis.call('get','k')", "0"), cmd("EVAL", "return redis.pcall('set','z',1)", "0"),
		cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"), cmd("AUTH", "nouser", "y"),
		cmd("INFO", "errorstats"),
	})
}
