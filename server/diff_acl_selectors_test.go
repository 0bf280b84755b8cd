package server

import (
	"strings"
	"testing"
)

// Ports of tests/unit/acl-v2.tcl (selectors, read/write key permissions,
// DRYRUN's key and channel extraction), compared with redis-server 7.0.15.
func TestDiffACLSelectors(t *testing.T) {
	p := newDiffPair(t)
	c2 := func(args ...string) []string { return conn2(args...) }
	dry := func(args ...string) []string { return append([]string{"ACL", "DRYRUN", "command-test"}, args...) }
	steps := [][]string{
		// basic multiple selectors
		cmd("ACL", "SETUSER", "selector-1", "on", "-@all", "resetkeys", "nopass"),
		c2("AUTH", "selector-1", "password"), c2("PING"), c2("SET", "write::foo", "bar"), c2("GET", "read::foo"),
		cmd("ACL", "SETUSER", "selector-1", "(+@write ~write::*)", "(+@read ~read::*)"),
		c2("PING"), c2("SET", "write::foo", "bar"), c2("GET", "read::foo"), c2("GET", "write::foo"), c2("SET", "read::foo", "bar"),
		// selectors start with no permissions (channels per acl-pubsub-default)
		cmd("ACL", "SETUSER", "selector-default", "reset", "()"), aclNorm("ACL", "GETUSER", "selector-default"),
		cmd("ACL", "SETUSER", "selector-del", "on", "(~added-selector)"), aclNorm("ACL", "GETUSER", "selector-del"),
		cmd("ACL", "SETUSER", "selector-del", "clearselectors"), aclNorm("ACL", "GETUSER", "selector-del"),
		// syntax errors inside a selector
		cmd("ACL", "SETUSER", "selector-syntax", "on", "(this-is-invalid)"),
		cmd("ACL", "SETUSER", "selector-syntax", "on", "(&*", "&fail)"),
		cmd("ACL", "GETUSER", "selector-syntax"),
		// flexible selector definitions
		cmd("ACL", "SETUSER", "selector-2", "(~key1 +get )", "( ~key2 +get )", "( ~key3 +get)", "(~key4 +get)"),
		cmd("ACL", "SETUSER", "selector-2", "(~key5", "+get", ")", "(", "~key6", "+get", ")", "(", "~key7", "+get)", "(~key8", "+get)"),
		aclNorm("ACL", "GETUSER", "selector-2"),
		cmd("ACL", "SETUSER", "invalid-selector", " () "), cmd("ACL", "SETUSER", "invalid-selector", "("),
		cmd("ACL", "SETUSER", "invalid-selector", ")"), cmd("ACL", "SETUSER", "invalid-selector", "(~a 'b)"),
		// separate read and write permissions
		cmd("SET", "readstr", "bar"), cmd("SET", "read", "bar"),
		cmd("ACL", "SETUSER", "key-permission-R", "on", "nopass", "%R~read*", "+@all"),
		c2("AUTH", "key-permission-R", "password"), c2("PING"), c2("GET", "readstr"), c2("SET", "readstr", "bar"), c2("GET", "notread"),
		cmd("ACL", "SETUSER", "key-permission-W", "on", "nopass", "%W~write*", "+@all"),
		c2("AUTH", "key-permission-W", "password"), c2("LPUSH", "writelist", "10"), c2("GET", "writestr"), c2("LPUSH", "notwrite", "10"),
		cmd("ACL", "SETUSER", "key-permission-RW", "on", "nopass", "%R~read*", "%W~write*", "+@all"),
		c2("AUTH", "key-permission-RW", "password"), c2("COPY", "read", "write"), c2("COPY", "write", "read"),
		cmd("ACL", "SETUSER", "key-permission-RW-selector", "on", "nopass", "(%R~read* +@all)", "(%W~write* +@all)"),
		c2("AUTH", "key-permission-RW-selector", "password"),
		c2("LPUSH", "writelist", "10"), c2("GET", "writestr"), c2("LPUSH", "notwrite", "10"),
		c2("GET", "readstr"), c2("SET", "readstr", "bar"), c2("GET", "notread"),
		c2("COPY", "read", "write"), c2("COPY", "write", "read"),
		// the log names the most relevant item across selectors
		cmd("ACL", "SETUSER", "acl-log-test-selector", "on", "nopass"),
		cmd("ACL", "SETUSER", "acl-log-test-selector", "+mget", "~key", "(+mget ~key ~otherkey)"),
		c2("AUTH", "acl-log-test-selector", "password"),
		cmd("ACL", "LOG", "RESET"), c2("GET", "key"), aclLog("ACL", "LOG"),
		cmd("ACL", "LOG", "RESET"), c2("MGET", "otherkey", "someotherkey"), aclLog("ACL", "LOG"),
		cmd("ACL", "LOG", "RESET"), c2("MGET", "key", "otherkey", "someotherkey"), aclLog("ACL", "LOG"),
		// GETUSER and LIST
		cmd("ACL", "SETUSER", "selector-info", "-@all", "+get", "resetchannels", "&channel1", "%R~foo1", "%W~bar1", "~baz1"),
		cmd("ACL", "SETUSER", "selector-info", "(-@all +set resetchannels &channel2 %R~foo2 %W~bar2 ~baz2)"),
		aclNorm("ACL", "GETUSER", "selector-info"),
		cmd("ACL", "SETUSER", "user-idempotency", "off", "-@all", "+get", "resetchannels", "&channel1", "%R~foo1", "%W~bar1", "~baz1", "(-@all +set resetchannels &channel2 %R~foo2 %W~bar2 ~baz2)"),
		cmd("ACL", "SETUSER", "selector-rw-info", "%R~foo", "%W~foo", "%RW~bar"), aclNorm("ACL", "GETUSER", "selector-rw-info"),
		aclNorm("ACL", "LIST"),
		// DRYRUN
		cmd("ACL", "SETUSER", "command-test", "+@all", "%R~read*", "%W~write*", "%RW~rw*"),
		dry("GET", "read"), cmd("ACL", "DRYRUN", "not-a-user", "GET", "read"), dry("not-a-command", "read"),
		dry("MIGRATE", "whatever", "whatever", "rw"), dry("MIGRATE", "whatever", "whatever", "read"),
		dry("MIGRATE", "whatever", "whatever", "write"), dry("MIGRATE", "whatever", "whatever", "", "0", "5000", "KEYS", "rw"),
		dry("MIGRATE", "whatever", "whatever", "", "0", "5000", "KEYS", "read"),
		dry("MIGRATE", "whatever", "whatever", "", "0", "5000", "KEYS", "write"),
		dry("SORT", "read", "STORE", "write"), dry("SORT", "read", "STORE", "read"), dry("SORT", "write", "STORE", "write"),
		dry("EVAL", "", "1", "rw1"), dry("EVAL", "", "1", "read"), dry("EVAL_RO", "", "1", "rw1"), dry("EVAL_RO", "", "1", "read"),
		dry("EVAL", "", "0", "read"), dry("EVAL", "", "-1", "read"), dry("EVAL", "", "3", "rw", "rw"), dry("EVAL", "", "3", "rw", "read"),
		dry("GEORADIUS", "read", "longitude", "latitude", "radius", "M", "STOREDIST", "write"),
		dry("GEORADIUS", "read", "longitude", "latitude", "radius", "M"),
		dry("GEORADIUS", "read1", "longitude", "latitude", "radius", "M", "STOREDIST", "read2"),
		dry("GEORADIUS", "write1", "longitude", "latitude", "radius", "M", "STOREDIST", "write2"),
		dry("GEORADIUS", "read", "longitude", "latitude", "radius", "M", "STORE", "write"),
		dry("GEORADIUS", "read1", "longitude", "latitude", "radius", "M", "STORE", "read2"),
		dry("GEORADIUS", "write1", "longitude", "latitude", "radius", "M", "STORE", "write2"),
		dry("SINTERCARD", "2", "read", "read"), dry("SINTERCARD", "2", "write", "read"), dry("SINTERCARD", "2", "nothing", "read"),
		dry("ZCOUNT", "read", "0", "1"), dry("ZCOUNT", "write", "0", "1"), dry("ZCOUNT", "nothing", "0", "1"),
		dry("PFCOUNT", "read", "read"), dry("PFCOUNT", "write", "read"), dry("PFCOUNT", "nothing", "read"),
		dry("ZINTERCARD", "2", "read", "read"), dry("ZINTERCARD", "2", "write", "read"), dry("ZINTERCARD", "2", "nothing", "read"),
		dry("MEMORY", "USAGE", "read"), dry("MEMORY", "USAGE", "write"), dry("MEMORY", "USAGE", "rw"), dry("MEMORY", "USAGE", "nothing"),
		cmd("ACL", "SETUSER", "test-channels", "+@all", "resetchannels", "&channel"),
		cmd("ACL", "DRYRUN", "test-channels", "spublish", "channel", "foo"),
		cmd("ACL", "DRYRUN", "test-channels", "ssubscribe", "channel"),
		cmd("ACL", "DRYRUN", "test-channels", "sunsubscribe"),
		cmd("ACL", "DRYRUN", "test-channels", "sunsubscribe", "otherchannel"),
		cmd("ACL", "DRYRUN", "test-channels", "spublish", "otherchannel", "foo"),
		cmd("ACL", "DRYRUN", "test-channels", "ssubscribe", "otherchannel", "foo"),
		cmd("ACL", "DRYRUN", "test-channels", "unsubscribe", "otherchannel"),
		cmd("ACL", "DRYRUN", "test-channels", "punsubscribe", "x*"),
	}
	// existence, keyspace and cardinality commands need some permission
	for _, c := range []string{"HEXISTS", "HSTRLEN", "SISMEMBER"} {
		steps = append(steps, dry(c, "read", "foo"), dry(c, "write", "foo"), dry(c, "nothing", "foo"))
	}
	// "NAME" runs NAME <key>; "NAME|arg" runs NAME <key> arg, except for
	// containers (OBJECT, XINFO), which run NAME arg <key>
	for _, c := range []string{"TOUCH", "EXISTS", "TYPE", "STRLEN", "HLEN", "LLEN", "SCARD", "ZCARD", "XLEN", "OBJECT|ENCODING", "DEL", "UNLINK", "EXPIRE|5", "TTL", "DUMP", "GETDEL", "GETEX", "GETSET|v", "APPEND|v", "LPOS|v", "XINFO|STREAM"} {
		name, arg, _ := strings.Cut(c, "|")
		for _, k := range []string{"read", "write", "rw", "nothing"} {
			a := []string{name, k}
			switch {
			case name == "OBJECT" || name == "XINFO":
				a = []string{name, arg, k}
			case arg != "":
				a = append(a, arg)
			}
			steps = append(steps, dry(a...))
		}
	}
	p.runACL(steps)
}

// An ACL file with selectors (acl-v2.tcl's "Test behavior of loading
// ACLs").
func TestDiffACLFileSelectors(t *testing.T) {
	p, _, _ := newACLFilePair(t, "user alice on (+get ~rw*)\nuser bob on (+set %W~w*) (+get %R~r*)\n")
	p.runACL([][]string{aclNorm("ACL", "GETUSER", "alice"), aclNorm("ACL", "GETUSER", "bob"), aclNorm("ACL", "LIST")})
}

// ACL DRYRUN of every command both servers have, with generic argument
// lists, for a user whose key patterns cover some of the arguments: the
// key extraction and read/write flags behind every ACL key check.
func TestDiffACLDryrunAll(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	names := map[string]bool{}
	for _, l := range strings.Split(rc.do("COMMAND", "LIST"), "\r\n") {
		if l != "" && l[0] != '*' && l[0] != '$' {
			names[l] = true
		}
	}
	steps := [][]string{cmd("ACL", "SETUSER", "sweep", "+@all", "%R~k1", "%W~k2", "~k4", "resetchannels", "&k1")}
	for _, l := range strings.Split(oc.do("COMMAND", "LIST"), "\r\n") {
		if l == "" || l[0] == '*' || l[0] == '$' || !names[l] {
			continue
		}
		parts := strings.Split(l, "|")
		for _, tail := range [][]string{{"k1"}, {"k2"}, {"k4", "k2"}, {"k1", "k2", "k3"}, {"k1", "2", "k1", "k4"}, {"k4", "k2", "k1", "k4", "k2", "k1", "k3"}, {"1", "k2", "STORE", "k3", "k4"}} {
			steps = append(steps, append(append([]string{"ACL", "DRYRUN", "sweep"}, parts...), tail...))
		}
	}
	p.runACL(steps)
}
