package server

import (
	"strings"
	"testing"

	"github.com/aofserver/aofserver/acl"
)

func aclDiffCmds() [][]string {
	return [][]string{
		cmd("ROLE"), cmd("ROLE", "x"), cmd("role"),
		cmd("ACL", "WHOAMI"), cmd("ACL", "whoami", "x"),
		cmd("ACL", "USERS"), cmd("ACL", "USERS", "x"),
		cmd("ACL", "LIST"), cmd("ACL", "LIST", "x"),
		cmd("ACL", "GETUSER", "default"), cmd("ACL", "GETUSER", "nouser"), cmd("ACL", "GETUSER"),
		cmd("ACL", "CAT"), cmd("ACL", "CAT", "a", "b"), cmd("ACL", "CAT", "nope"),
		sorted("ACL", "CAT", "geo"), sorted("ACL", "CAT", "GEO"),
		cmd("ACL", "HELP"), cmd("ACL", "HELP", "x"), cmd("ACL", "foo"), cmd("ACL"),
		cmd("ACL", "LOG"), cmd("ACL", "LOG", "5"), cmd("ACL", "LOG", "-1"), cmd("ACL", "LOG", "x"),
		cmd("ACL", "LOG", "RESET"), cmd("ACL", "LOG", "1", "2"),
		cmd("ACL", "LOAD"), cmd("ACL", "SAVE"), cmd("ACL", "LOAD", "x"),
		cmd("ACL", "DELUSER", "default"), cmd("ACL", "DELUSER", "foo", "bar"), cmd("ACL", "DELUSER", "foo", "default"),
		cmd("ACL", "DELUSER"),
		cmd("ACL", "DRYRUN", "default", "get", "a"), cmd("ACL", "DRYRUN", "default", "get"),
		cmd("ACL", "DRYRUN", "default", "nocmd", "a"), cmd("ACL", "DRYRUN", "foo", "get", "a"),
		cmd("ACL", "DRYRUN", "default", "config", "get", "x"), cmd("ACL", "DRYRUN", "default", "config", "nosub", "x"),
		cmd("ACL", "DRYRUN", "default", "config"), cmd("ACL", "DRYRUN", "default", "geoadd", "k", "1", "2"),
		cmd("ACL", "DRYRUN", "default"),
		cmd("ACL", "GENPASS", "0"), cmd("ACL", "GENPASS", "5000"), cmd("ACL", "GENPASS", "x"), cmd("ACL", "GENPASS", "1", "2"),
		shape("ACL", "GENPASS"), shape("ACL", "GENPASS", "5"), shape("ACL", "GENPASS", "4096"), shape("ACL", "GENPASS", "7"),
	}
}

func TestDiffACLRole(t *testing.T) {
	diff(t, aclDiffCmds())
}

func TestDiffACLRoleResp3(t *testing.T) {
	diff3(t, aclDiffCmds())
}

func TestDiffACLRequirepass(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("CONFIG", "SET", "requirepass", "foo"),
		cmd("AUTH", "foo"),
		cmd("ACL", "LIST"), cmd("ACL", "GETUSER", "default"), cmd("ACL", "WHOAMI"), cmd("ROLE"),
		cmd("CONFIG", "SET", "requirepass", "bar"),
		cmd("ACL", "LIST"), cmd("ACL", "GETUSER", "default"),
		cmd("CONFIG", "SET", "requirepass", ""),
		cmd("ACL", "LIST"), cmd("ACL", "GETUSER", "default"),
	})
}

// TestDiffACLCatMembers compares every category's members, restricted to
// the commands both servers have.
func TestDiffACLCatMembers(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	parse := func(raw string) map[string]bool {
		out := map[string]bool{}
		for _, l := range strings.Split(raw, "\r\n") {
			if l != "" && l[0] != '*' && l[0] != '$' {
				out[strings.ToLower(l)] = true
			}
		}
		return out
	}
	ours := parse(oc.do("COMMAND", "LIST"))
	theirs := parse(rc.do("COMMAND", "LIST"))
	for _, cat := range acl.Categories {
		got, want := parse(oc.do("ACL", "CAT", cat)), parse(rc.do("ACL", "CAT", cat))
		for n := range want {
			if ours[n] && !got[n] {
				t.Errorf("ACL CAT %s: %s missing", cat, n)
			}
		}
		for n := range got {
			if theirs[n] && !want[n] {
				t.Errorf("ACL CAT %s: %s should not be listed", cat, n)
			}
		}
	}
}

func getkeysandflagsCmds() [][]string {
	g := func(args ...string) []string { return append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...) }
	return [][]string{
		g("set", "a", "b"), g("set", "a", "b", "GET"), g("set", "a", "b", "EX", "10", "get"),
		g("get", "a"), g("mset", "a", "b", "c", "d"), g("mset", "a", "b", "c"), g("del", "a", "b"),
		g("ping"), g("ping", "x"), g("nocmd", "a"), g("get"), g("get", "a", "b"), g("config", "get", "x"),
		g("config", "nosub", "x"), g("object", "encoding", "k"), g("memory", "usage", "k"),
		g("lmove", "a", "b", "LEFT", "RIGHT"), g("rename", "a", "b"),
		g("geosearchstore", "d", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"),
		g("georadius", "s", "1", "1", "1", "km", "STORE", "d"),
		g("georadius", "s", "1", "1", "1", "km", "STORE", "d", "STOREDIST", "e"),
		g("georadius", "s", "1", "1", "1", "km"),
		g("georadiusbymember", "s", "m", "1", "km", "STOREDIST", "d"),
		g("zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"), g("zunionstore", "d", "x", "a"),
		g("zunionstore", "d", "5", "a"), g("zunion", "2", "a", "b"),
		g("eval", "return 1", "0"), g("eval", "return 1", "2", "a", "b", "c"), g("eval", "return 1", "x"),
		g("xread", "COUNT", "2", "STREAMS", "a", "b", "0", "0"), g("xreadgroup", "GROUP", "g", "c", "STREAMS", "a", "0"),
		g("bitfield", "k", "GET", "u8", "0"), g("bitfield", "k", "GET", "u8", "0", "SET", "u8", "0", "1"),
		g("bitfield", "k", "OVERFLOW", "FAIL"), g("bitfield_ro", "k", "GET", "u8", "0"),
		g("sort", "k"), g("sort", "k", "BY", "w", "GET", "x", "STORE", "d"), g("sort", "k", "STORE", "d", "STORE", "e", "LIMIT", "0", "1"),
		g("sort_ro", "k", "BY", "w"),
		g("lmpop", "2", "a", "b", "LEFT"), g("blmpop", "0", "2", "a", "b", "LEFT"), g("zintercard", "2", "a", "b"),
		g("exists", "a", "b"), g("touch", "a"), g("watch", "a", "b"), g("copy", "a", "b"), g("smove", "a", "b", "m"),
		g("xadd", "s", "*", "f", "v"), g("pfmerge", "d", "a", "b"), g("bitop", "and", "d", "a", "b"),
		g("geoadd", "k", "1", "2", "m"), g("getdel", "k"), g("getex", "k"), g("incr", "k"), g("append", "k", "v"),
		g("hset", "h", "f", "v"), g("sadd", "s", "m"), g("sinterstore", "d", "a", "b"), g("lpush", "l", "v"),
		g("fcall", "f", "1", "k"), g("fcall_ro", "f", "0"), g("publish", "c", "m"),
		g("sintercard", "2", "a", "b", "LIMIT", "1"), g("zrangestore", "d", "s", "0", "-1"),
	}
}

func TestDiffCommandGetkeysandflags(t *testing.T) {
	diff(t, getkeysandflagsCmds())
}

func TestDiffCommandGetkeysandflagsResp3(t *testing.T) {
	diff3(t, getkeysandflagsCmds()[:12])
}

// TestDiffCommandGetkeysandflagsAll runs COMMAND GETKEYSANDFLAGS for every
// command both servers have, with a few generic argument lists.
func TestDiffCommandGetkeysandflagsAll(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	names := map[string]bool{}
	for _, l := range strings.Split(rc.do("COMMAND", "LIST"), "\r\n") {
		if l != "" && l[0] != '*' && l[0] != '$' {
			names[l] = true
		}
	}
	var cmds [][]string
	for _, l := range strings.Split(oc.do("COMMAND", "LIST"), "\r\n") {
		if l == "" || l[0] == '*' || l[0] == '$' || !names[l] {
			continue
		}
		parts := strings.Split(l, "|")
		for _, tail := range [][]string{{"k1"}, {"k1", "k2"}, {"k1", "2", "k3", "k4"}, {"k1", "k2", "k3", "k4", "k5", "k6", "k7"}, {"1", "k2", "STORE", "k4", "k5"}} {
			cmds = append(cmds, append(append([]string{"COMMAND", "GETKEYSANDFLAGS"}, parts...), tail...))
		}
	}
	p.run(cmds)
}
