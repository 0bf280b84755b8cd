package server

import (
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/acl"
	"github.com/aofserver/aofserver/cmdmeta"
	"github.com/aofserver/aofserver/internal/testsrv"
)

// Differential tests of the COMMAND family against redis-server 7.0.15:
// the metadata (cmdmeta/commands_gen.go) must reproduce Redis's replies byte for
// byte, in RESP2 and RESP3. Redis lists commands and subcommands in the
// order of a randomly seeded dict, so only those lists are sorted before
// comparing.

// canonInfo sorts the subcommand entries (element 9) of a COMMAND INFO
// entry, recursively.
func canonInfo(raw string) string {
	header, elems, ok := splitRaw(raw)
	if !ok || header != "*10\r\n" || len(elems) != 10 {
		return raw
	}
	if h, subs, ok := splitRaw(elems[9]); ok {
		for i := range subs {
			subs[i] = canonInfo(subs[i])
		}
		sort.Strings(subs)
		elems[9] = h + strings.Join(subs, "")
	}
	return header + strings.Join(elems, "")
}

// canonInfoList canonicalizes a list of COMMAND INFO entries; sortIt also
// sorts the list (COMMAND, COMMAND INFO without names).
func canonInfoList(raw string, sortIt bool) string {
	header, elems, ok := splitRaw(raw)
	if !ok {
		return raw
	}
	for i := range elems {
		elems[i] = canonInfo(elems[i])
	}
	if sortIt {
		sort.Strings(elems)
	}
	return header + strings.Join(elems, "")
}

// canonDocs canonicalizes a COMMAND DOCS reply (name, docs, ...): each
// "subcommands" map is sorted by name; sortIt sorts this level too.
func canonDocs(raw string, sortIt bool) string {
	header, elems, ok := splitRaw(raw)
	if !ok || len(elems)%2 != 0 {
		return raw
	}
	var pairs []string
	for i := 0; i < len(elems); i += 2 {
		pairs = append(pairs, elems[i]+canonDocEntry(elems[i+1]))
	}
	if sortIt {
		sort.Strings(pairs)
	}
	return header + strings.Join(pairs, "")
}

func canonDocEntry(raw string) string {
	header, elems, ok := splitRaw(raw)
	if !ok {
		return raw
	}
	for i := 0; i+1 < len(elems); i += 2 {
		if bulkText(elems[i]) == "subcommands" {
			elems[i+1] = canonDocs(elems[i+1], true)
		}
	}
	return header + strings.Join(elems, "")
}

// listNames returns the bulk strings of a flat array reply.
func listNames(raw string) []string {
	_, elems, _ := splitRaw(raw)
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		out = append(out, bulkText(e))
	}
	sort.Strings(out)
	return out
}

func TestDiffCommandMetadata(t *testing.T) {
	for _, resp3 := range []bool{false, true} {
		t.Run("resp3="+strconv.FormatBool(resp3), func(t *testing.T) {
			p := newDiffPair(t)
			if resp3 {
				p.resp3 = true
				p.hello3(0)
			}
			oc, rc := p.conn(0)
			same := func(what, got, want string) {
				t.Helper()
				if got != want {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					from := max(0, i-300)
					t.Fatalf("%s differs at byte %d:\n ours:  %.600q\n redis: %.600q", what, i, got[from:], want[from:])
				}
			}
			same("COMMAND COUNT", oc.do("COMMAND", "COUNT"), rc.do("COMMAND", "COUNT"))
			names := listNames(rc.do("COMMAND", "LIST"))
			if got := listNames(oc.do("COMMAND", "LIST")); strings.Join(got, " ") != strings.Join(names, " ") {
				t.Fatalf("COMMAND LIST:\n ours:  %v\n redis: %v", got, names)
			}
			same("COMMAND", canonInfoList(oc.do("COMMAND"), true), canonInfoList(rc.do("COMMAND"), true))
			same("COMMAND INFO", canonInfoList(oc.do("COMMAND", "INFO"), true), canonInfoList(rc.do("COMMAND", "INFO"), true))
			same("COMMAND DOCS", canonDocs(oc.do("COMMAND", "DOCS"), true), canonDocs(rc.do("COMMAND", "DOCS"), true))
			for _, n := range names {
				for _, name := range []string{n, strings.ToUpper(n)} {
					same("COMMAND INFO "+name, canonInfoList(oc.do("COMMAND", "INFO", name), false),
						canonInfoList(rc.do("COMMAND", "INFO", name), false))
					same("COMMAND DOCS "+name, canonDocs(oc.do("COMMAND", "DOCS", name), false),
						canonDocs(rc.do("COMMAND", "DOCS", name), false))
				}
			}
			for _, args := range [][]string{
				{"COMMAND", "INFO", "get", "nosuch", "config|get", "get|x", "config|get|x", "SET"},
				{"COMMAND", "DOCS", "nosuch", "set", "config|nosuch", "client|kill", "zadd"},
				{"COMMAND", "LIST", "FILTERBY", "MODULE", "x"},
				{"COMMAND", "LIST", "FILTERBY", "nosuch", "x"},
				{"COMMAND", "LIST", "FILTERBY", "PATTERN"},
				{"COMMAND", "LIST", "x"},
				{"COMMAND", "LIST", "FILTERBY", "ACLCAT", "@read"},
				{"COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"},
				{"COMMAND", "NOSUCH"},
				{"COMMAND", "HELP"},
			} {
				same(strings.Join(args, " "), oc.do(args...), rc.do(args...))
			}
			filters := [][]string{{"PATTERN", "*"}, {"PATTERN", "config*"}, {"PATTERN", "*|*"}, {"PATTERN", "X[A-Z]*"}}
			for _, cat := range acl.Categories {
				filters = append(filters, []string{"ACLCAT", cat}, []string{"ACLCAT", strings.ToUpper(cat)})
			}
			for _, f := range filters {
				args := append([]string{"COMMAND", "LIST", "FILTERBY"}, f...)
				got, want := listNames(oc.do(args...)), listNames(rc.do(args...))
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("%v:\n ours:  %v\n redis: %v", args, got, want)
				}
			}
		})
	}
}

// TestRedisCliHelp compares redis-cli's help, built from COMMAND DOCS
// (argument hints included), against both servers.
func TestRedisCliHelp(t *testing.T) {
	const cli = testsrv.RedisBinDir + "/redis-cli"
	if _, err := os.Stat(cli); err != nil {
		requireRedis(t) // skips, or fails under CI, like the server itself
		t.Skipf("%s not installed", cli)
	}
	real := startRealRedis(t)
	ours := startOurServer(t)
	help := func(addr string, topic ...string) string {
		host, port, _ := strings.Cut(addr, ":")
		out, err := exec.Command(cli, append([]string{"-h", host, "-p", port, "help"}, topic...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli help %v: %v\n%s", topic, err, out)
		}
		return string(out)
	}
	for _, topic := range [][]string{{"set"}, {"SET"}, {"config", "set"}, {"georadius"}, {"client", "kill"},
		{"xreadgroup"}, {"zadd"}, {"migrate"}, {"command", "getkeys"}} {
		got, want := help(ours.addr, topic...), help(real.addr, topic...)
		if got != want {
			t.Errorf("redis-cli help %v:\n ours:  %q\n redis: %q", topic, got, want)
		}
		if len(want) < 40 || !strings.Contains(want, "summary:") {
			t.Errorf("redis-cli help %v printed no help: %q", topic, want)
		}
	}
}

func TestDiffCommandGetkeys(t *testing.T) {
	g := func(args ...string) []string { return append([]string{"COMMAND", "GETKEYS"}, args...) }
	gf := func(args ...string) []string { return append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...) }
	cmds := [][]string{
		g("eval", "return 1", "2", "a", "b", "c"), g("eval", "return 1", "0"), g("eval", "return 1", "3", "a"),
		g("eval", "return 1", "2x", "a", "b"), g("eval", "return 1", "-1", "a"), g("evalsha_ro", "x", "1", "k"),
		g("fcall", "f", "2", "a", "b"), g("fcall_ro", "f", "0", "a"),
		g("xread", "STREAMS", "a", "b", "0", "0"), g("xread", "COUNT", "1", "BLOCK", "0", "streams", "a", "0"),
		g("xread", "STREAMS", "a", "b", "0"), g("xread", "STREAMS"), g("xread", "COUNT", "1", "a", "b"),
		g("xreadgroup", "GROUP", "g", "c", "NOACK", "STREAMS", "a", "b", ">", ">"),
		g("xreadgroup", "GROUP", "streams", "c", "STREAMS", "streams", ">"),
		g("sort", "k"), g("sort", "k", "STORE", "d"), g("sort", "k", "BY", "STORE", "GET", "x", "STORE", "d"),
		g("sort", "k", "STORE", "d", "STORE", "e"), g("sort", "k", "LIMIT", "0", "STORE", "STORE", "d"),
		g("sort", "k", "STORE"), g("sort_ro", "k", "BY", "x"),
		g("migrate", "h", "1", "k", "0", "10"), g("migrate", "h", "1", "", "0", "10", "KEYS", "a", "b"),
		g("migrate", "h", "1", "", "0", "10", "AUTH", "keys", "KEYS", "a"),
		g("migrate", "h", "1", "", "0", "10", "AUTH2", "u", "keys", "KEYS", "a"),
		g("migrate", "h", "1", "k", "0", "10", "KEYS", "a"), g("migrate", "h", "1", "", "0", "10", "COPY", "REPLACE"),
		g("zunionstore", "d", "2", "a", "b"), g("zunionstore", "d", "3", "a", "b"), g("zunionstore", "d", "0", "a"),
		g("zunionstore", "d", "1x", "a"), g("zinterstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"),
		g("zdiff", "2", "a", "b"), g("lmpop", "2", "a", "b", "LEFT"), g("bzmpop", "0", "1", "a", "MIN"),
		g("georadius", "k", "1", "2", "3", "m", "STORE"), g("georadius", "k", "1", "2", "3", "m", "STOREDIST", "d", "STORE", "e"),
		g("set", "a", "b"), g("bitfield", "k", "INCRBY", "u8", "0", "1"), g("get"), g("get", "a", "b"),
		g("ping"), g("config", "get", "x"), g("nosuch", "x"), g("client", "kill", "x"), g("object", "freq", "k"),
		g("memory", "usage", "k"), g("cluster", "countkeysinslot", "1"), g("restore-asking", "k", "0", "x"),
		g("spublish", "c", "m"), g("pfdebug", "getreg", "k"), g("xinfo", "stream", "s"),
		gf("migrate", "h", "1", "", "0", "10", "KEYS", "a", "b"), gf("eval", "s", "2x", "a", "b"),
		gf("sort", "k", "STORE", "d"), gf("xread", "STREAMS", "a", "0"), gf("zunionstore", "d", "1x", "a"),
		gf("georadius", "k", "1", "2", "3", "m", "STORE"), gf("lmpop", "1", "a", "RIGHT"),
	}
	diff(t, cmds)
	diff3(t, cmds)
}

// TestDiffAbsentCommands covers the commands whose feature aofserver does
// not have: they answer as Redis 7.0.15 does with it disabled or unused.
func TestDiffAbsentCommands(t *testing.T) {
	diff(t, [][]string{
		cmd("ASKING"), cmd("READONLY"), cmd("READWRITE"), cmd("CLUSTER"), cmd("CLUSTER", "INFO"),
		cmd("CLUSTER", "HELP"), cmd("CLUSTER", "NOSUCH"), cmd("CLUSTER", "KEYSLOT", "a"), cmd("CLUSTER", "SLOTS"),
		cmd("FAILOVER"), cmd("FAILOVER", "ABORT"), cmd("FAILOVER", "TIMEOUT", "x"), cmd("FAILOVER", "TIMEOUT", "0"),
		cmd("FAILOVER", "TIMEOUT", "10", "TIMEOUT", "10"), cmd("FAILOVER", "TO", "h", "x"), cmd("FAILOVER", "TO", "h"),
		cmd("FAILOVER", "FORCE"), cmd("FAILOVER", "TO", "h", "1", "FORCE", "TIMEOUT", "5"), cmd("FAILOVER", "x"),
		cmd("LOLWUT"), cmd("LOLWUT", "VERSION", "x"), cmd("LOLWUT", "VERSION", "7"),
		cmd("MODULE", "LIST"), cmd("MODULE", "HELP"), cmd("MODULE", "NOSUCH"), cmd("MODULE"),
		cmd("MODULE", "LOAD", "/nonexistent.so"), cmd("MODULE", "LOADEX", "/nonexistent.so"), cmd("MODULE", "UNLOAD", "x"),
		cmd("RESTORE-ASKING", "k", "0", "x"), cmd("SCRIPT", "DEBUG", "no"), cmd("SCRIPT", "DEBUG", "x"),
	})
}

// TestDiffModuleAllowed: with enable-module-command yes, loading fails as
// a failed dlopen does and unloading finds no module.
func TestDiffModuleAllowed(t *testing.T) {
	p := newDiffPair(t, "--enable-module-command", "yes")
	p.run([][]string{
		cmd("MODULE", "LOAD", "/nonexistent.so"), cmd("MODULE", "LOADEX", "/nonexistent.so", "ARGS", "a"),
		cmd("MODULE", "UNLOAD", "x"), cmd("MODULE", "LIST"),
	})
}

// TestEveryRedisCommandServed: each command and subcommand Redis 7.0.15
// has is in the table, and each has its metadata.
func TestEveryRedisCommandServed(t *testing.T) {
	ts := startOurServer(t)
	var walk func(ms []*cmdmeta.Meta)
	walk = func(ms []*cmdmeta.Meta) {
		for _, m := range ms {
			cmd := ts.s.findCommandByName([]byte(m.Name))
			if cmd == nil || cmd.meta != m {
				t.Errorf("%s: not served with its metadata", m.Name)
			}
			walk(m.Subs)
		}
	}
	walk(cmdmeta.Redis)
	if len(ts.s.commands) != len(cmdmeta.Redis) {
		t.Errorf("%d commands, Redis 7.0.15 has %d", len(ts.s.commands), len(cmdmeta.Redis))
	}
}
