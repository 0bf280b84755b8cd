package server

import (
	"slices"
	"strings"
	"testing"
)

const reloadLib = "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)"

// DEBUG RELOAD NOFLUSH keeps the libraries, and the RDB's copy of one
// then fails the load as in Redis 7.0.15 (rdbFunctionLoad without
// RDBFLAGS_ALLOW_DUP); MERGE replaces them; a plain RELOAD flushes them
// first (emptyData). Replies and log lines as Redis's.
func TestDebugReloadNoflushFunctionsAsRedis(t *testing.T) {
	var got [][]string
	for _, tg := range loadingTargets(t) {
		c := dial(t, tg.addr)
		var out []string
		do := func(args ...string) { out = append(out, strings.Join(args, " ")+" -> "+c.do(args...)) }
		do("FUNCTION", "LOAD", reloadLib)
		do("SET", "a", "1")
		n := len(tg.log())
		do("DEBUG", "RELOAD", "NOFLUSH")
		out = append(out, logTail(tg.log(), n)...)
		do("DBSIZE")
		do("FCALL", "f1", "0")
		n = len(tg.log())
		do("DEBUG", "RELOAD", "NOFLUSH", "MERGE")
		out = append(out, logTail(tg.log(), n)...)
		do("DEBUG", "RELOAD")
		do("FCALL", "f1", "0")
		do("DBSIZE")
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}

// DEBUG LOADAOF empties the functions with the keys (emptyData): the
// AOF's FUNCTION LOAD then loads the library again.
func TestDebugLoadAOFFunctionsAsRedis(t *testing.T) {
	var got [][]string
	for _, tg := range loadingTargets(t, "--appendonly", "yes") {
		c := dial(t, tg.addr)
		var out []string
		do := func(args ...string) { out = append(out, strings.Join(args, " ")+" -> "+c.do(args...)) }
		do("FUNCTION", "LOAD", reloadLib)
		do("SET", "a", "1")
		do("DEBUG", "LOADAOF")
		do("FCALL", "f1", "0")
		do("DBSIZE")
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}
