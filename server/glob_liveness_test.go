package server

import (
	"strings"
	"testing"
	"time"
)

// Issue 18 item 1, Redis's CVE-2022-36021: a glob whose stars backtrack
// exponentially against one long key froze the whole server, so neither
// the KEYS nor another client's PING got an answer.

// answerWithin reads one reply, failing (not hanging) after d.
func answerWithin(t *testing.T, r *respConn, what string, d time.Duration) string {
	t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(d))
	raw, err := readRaw(r.br)
	if err != nil {
		t.Fatalf("%s: no answer within %v: %v", what, d, err)
	}
	return raw
}

func TestGlobKeysCVE202236021StaysLive(t *testing.T) {
	key := strings.Repeat("a", 60)
	pattern := strings.Repeat("a*", 24) + "b"
	// A generous bound on a failure, not a timing measurement: the reply
	// takes microseconds when the matcher is right and never comes when it
	// is exponential.
	const deadline = 10 * time.Second
	run := func(addr string) string {
		c1, c2 := dial(t, addr), dial(t, addr)
		if got := c1.do("SET", key, "1"); got != "+OK\r\n" {
			t.Fatalf("SET replied %q", got)
		}
		c1.send("KEYS", pattern)
		c2.send("PING")
		if got := answerWithin(t, c2, "PING from another client during KEYS", deadline); got != "+PONG\r\n" {
			t.Fatalf("PING replied %q", got)
		}
		return answerWithin(t, c1, "KEYS "+pattern, deadline)
	}
	ours := run(startOurServer(t).addr)
	real := run(startRealRedis(t).addr)
	if ours != real {
		t.Fatalf("KEYS %s: ours %q, Redis %q", pattern, ours, real)
	}
	if real != "*0\r\n" {
		t.Fatalf("KEYS %s: Redis itself replied %q", pattern, real)
	}
}

// TestDiffGlobUsers: every command that takes a glob matches as Redis does,
// quirks included: ranges compare signed chars, "**" does not match the
// empty key, an unterminated class runs to the end, and CONFIG GET,
// COMMAND LIST and FUNCTION LIST fold case.
func TestDiffGlobUsers(t *testing.T) {
	keys := []string{"", "a", "A", "b", "-", "0", "]", "^", "\\", "\xc3", "\xff", "ab", "a]", "user:1:name"}
	var cmds [][]string
	for _, k := range keys {
		cmds = append(cmds, cmd("SET", k, "v"), cmd("HSET", "h", "f"+k, "v"), cmd("SADD", "s", "m"+k),
			cmd("ZADD", "z", "1", "m"+k))
	}
	for _, p := range []string{"**", "[a-\xff]", "[\x80-\xff]", "[^\x80-a]", "[", "[^", "[a-", "a[", "[]]", "[a-]",
		"\\", "a\\", "[\\]]", "user:[0-9]*:na?e", "*a*", "?", "??", strings.Repeat("a*", 24) + "b"} {
		cmds = append(cmds, sorted("KEYS", p), scanAll("SCAN", "0", "MATCH", p, "COUNT", "1000"),
			scanAll("HSCAN", "h", "0", "MATCH", "f"+p), scanAll("SSCAN", "s", "0", "MATCH", "m"+p),
			scanAll("ZSCAN", "z", "0", "MATCH", "m"+p))
	}
	cmds = append(cmds,
		conn2("SUBSCRIBE", "news.a", "news.\xc3"), conn2("PSUBSCRIBE", "news.[a-\xff]"),
		sorted("PUBSUB", "CHANNELS", "news.[a-\xff]"), sorted("PUBSUB", "CHANNELS", "NEWS.*"),
		cmd("PUBLISH", "news.0", "m"), cmd("PUBLISH", "news.\xc3", "m"), cmd("PUBSUB", "NUMPAT"),
		pairs("CONFIG", "GET", "MAXMEMORY-P[O]LICY"), pairs("CONFIG", "GET", "[Z-a]axmemory"),
		sorted("COMMAND", "LIST", "FILTERBY", "PATTERN", "GET[R-S]*"),
		cmd("FUNCTION", "LOAD", "#!lua name=MyLib\nredis.register_function('f1', function() return 1 end)"),
		cmd("FUNCTION", "LIST", "LIBRARYNAME", "my[K-M]I?"), cmd("FUNCTION", "LIST", "LIBRARYNAME", "[Z-a]*"),
	)
	diff(t, cmds)
}
