package server

import (
	"sort"
	"strings"
	"testing"
)

// INFO commandstats (rejected_calls, failed_calls), INFO errorstats and
// total_error_replies against Redis 7.0.15 for every error path: the cases
// of tests/unit/info.tcl ("errorstats: ...") and more.

// statsOf is the comparable part of INFO: every commandstat line without
// its timings, every errorstat line and total_error_replies, sorted.
func statsOf(c *respConn) string {
	var out []string
	for _, line := range strings.Split(bulkText(c.do("INFO", "commandstats")), "\r\n") {
		if strings.HasPrefix(line, "cmdstat_") && !strings.HasPrefix(line, "cmdstat_info:") {
			out = append(out, usecFields.ReplaceAllString(line, ""))
		}
	}
	for _, line := range strings.Split(bulkText(c.do("INFO", "errorstats")), "\r\n") {
		if strings.HasPrefix(line, "errorstat_") {
			out = append(out, line)
		}
	}
	for _, line := range strings.Split(bulkText(c.do("INFO", "stats")), "\r\n") {
		if strings.HasPrefix(line, "total_error_replies:") {
			out = append(out, line)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// compareStats checks the statistics of both servers, read on connection
// i (whose own INFO calls are left out).
func (p *diffPair) compareStats(what string, i int) {
	p.t.Helper()
	oc, rc := p.conn(i)
	if got, want := statsOf(oc), statsOf(rc); got != want {
		p.mismatch("%s: stats differ:\n ours:\n  %s\n redis:\n  %s", what, strings.ReplaceAll(got, "\n", "\n  "), strings.ReplaceAll(want, "\n", "\n  "))
	}
}

func TestDiffErrorStats(t *testing.T) {
	p := newDiffPair(t)
	reset := cmd("CONFIG", "RESETSTAT")
	cases := []struct {
		name string
		cmds [][]string
	}{
		{"failed call authentication error", [][]string{cmd("AUTH", "k")}},
		{"failed call within MULTI/EXEC", [][]string{cmd("MULTI"), cmd("SET", "a", "b"), cmd("AUTH", "a"), cmd("EXEC"), cmd("EXEC")}},
		{"failed call within LUA", [][]string{
			cmd("EVAL", "redis.pcall('XGROUP', 'CREATECONSUMER', 's1', 'mygroup', 'consumer') return ", "0"),
			cmd("EVAL", "a"),
		}},
		{"failed call NOSCRIPT error", [][]string{cmd("EVALSHA", "NotValidShaSUM", "0")}},
		{"failed call NOGROUP error", [][]string{cmd("DEL", "mystream"), nocmp("XADD", "mystream", "*", "f", "v"), cmd("XGROUP", "CREATECONSUMER", "mystream", "mygroup", "consumer")}},
		{"rejected call unknown command", [][]string{cmd("asdf"), cmd("asdf", "x", "y")}},
		{"rejected call unknown subcommand", [][]string{cmd("CONFIG", "nosuch"), cmd("XINFO", "nosuch", "x"), cmd("OBJECT", "nosuch", "k"), cmd("CLIENT", "nosuch")}},
		{"rejected subcommand arity", [][]string{cmd("CONFIG", "GET"), cmd("OBJECT", "ENCODING"), cmd("XGROUP", "CREATE", "s")}},
		{"rejected call within MULTI/EXEC", [][]string{cmd("MULTI"), cmd("SET"), cmd("EXEC")}},
		{"unknown command within MULTI", [][]string{cmd("MULTI"), cmd("nosuch"), cmd("SET", "a", "b"), cmd("EXEC")}},
		{"nested MULTI and WATCH inside MULTI", [][]string{cmd("MULTI"), cmd("MULTI"), cmd("WATCH", "x"), cmd("SET", "a", "b"), cmd("EXEC")}},
		{"DISCARD and EXEC without MULTI", [][]string{cmd("DISCARD"), cmd("EXEC")}},
		{"runtime errors within MULTI", [][]string{cmd("SET", "str", "x"), cmd("MULTI"), cmd("LPUSH", "str", "a"), cmd("INCR", "str"), cmd("EXEC")}},
		{"rejected call due to wrong arity", [][]string{cmd("SET", "k"), cmd("SET", "k1", "v1"), cmd("SET", "k2", "v2")}},
		{"failed wrong type and syntax errors", [][]string{
			cmd("SET", "str", "x"), cmd("LPUSH", "str", "a"), cmd("INCR", "str"), cmd("SET", "a", "b", "NX", "XX"),
			cmd("HSET", "str", "f", "v"), cmd("GET", "nosuchkey"), cmd("EXPIRE", "str", "x"), cmd("ZADD", "z", "x", "m"),
			cmd("XADD", "s", "0-0", "f", "v"), cmd("SELECT", "100"), cmd("DEBUG", "nosuch"),
		}},
		{"error replies from ERR-less commands", [][]string{cmd("DEBUG", "ERROR", "MYERR custom"), cmd("DEBUG", "ERROR", "lowercase text"), cmd("DEBUG", "ERROR", "")}},
		{"rejected call by OOM error", [][]string{cmd("CONFIG", "SET", "maxmemory", "1"), cmd("SET", "a", "b"), cmd("MULTI"), cmd("SET", "a", "b"), cmd("EXEC"), cmd("CONFIG", "SET", "maxmemory", "0")}},
		{"blocking commands", [][]string{cmd("BLPOP", "l", "x"), cmd("BLPOP", "l", "-1"), cmd("SET", "str", "x"), cmd("BLPOP", "str", "0")}},
		{"WRONGPASS and HELLO", [][]string{cmd("HELLO", "4"), shape("HELLO", "2", "AUTH", "default", "bad"), cmd("HELLO", "x")}},
		{"PUBSUB context", [][]string{conn2("SUBSCRIBE", "ch"), conn2("GET", "x"), conn2("PING"), conn2("UNSUBSCRIBE")}},
		{"script errors", [][]string{
			cmd("EVAL", "return redis.call('nosuch')", "0"), cmd("EVAL", "error('x')", "0"), cmd("EVAL", "return {err='MYERR x'}", "0"),
			cmd("EVAL", "return redis.pcall('incr','str')", "0"), cmd("EVAL", "return redis.call('incr','str')", "0"),
			cmd("FCALL", "nosuch", "0"), cmd("FUNCTION", "DELETE", "nosuch"), cmd("SCRIPT", "KILL"),
		}},
	}
	for _, c := range cases {
		p.run([][]string{reset, conn2("CONFIG", "RESETSTAT")})
		p.run(c.cmds)
		p.compareStats(c.name, 0)
	}
	// NOAUTH: a connection made after requirepass is set (those before
	// stay authenticated)
	p.run([][]string{reset, conn2("CONFIG", "RESETSTAT"), cmd("CONFIG", "SET", "requirepass", "pw")})
	oc, rc := dial(t, p.ours.addr), dial(t, p.real.addr)
	for _, c := range [][]string{{"GET", "a"}, {"PING"}, {"nosuch"}, {"SET"}, {"AUTH", "bad"}, {"AUTH", "pw"}, {"GET", "a"}, {"CONFIG", "SET", "requirepass", ""}} {
		if got, want := oc.do(c...), rc.do(c...); got != want {
			t.Errorf("%q: ours %q, redis %q", c, got, want)
		}
	}
	p.compareStats("NOAUTH", 0)
}
