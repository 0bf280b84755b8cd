package server

import (
	"os"
	"path/filepath"
	"regexp"
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

// DEBUG RELOAD NOSAVE of a dump.rdb that is missing, corrupt or of an
// unhandled version: Redis's reply, and its log lines at notice level
// (the RDB error report of a client's load is verbose).
func TestDebugReloadBadDumpAsRedis(t *testing.T) {
	var got [][]string
	for _, tg := range loadingTargets(t) {
		c := dial(t, tg.addr)
		var out []string
		do := func(args ...string) { out = append(out, strings.Join(args, " ")+" -> "+c.do(args...)) }
		dump := filepath.Join(tg.dir, "dump.rdb")
		n := len(tg.log())
		do("DEBUG", "RELOAD", "NOSAVE")
		c.do("SET", "k", "v")
		c.do("SAVE")
		good, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		bad := append([]byte(nil), good...)
		bad[len(bad)-1] ^= 0x5a
		os.WriteFile(dump, bad, 0o644)
		do("DEBUG", "RELOAD", "NOSAVE")
		do("DBSIZE")
		os.WriteFile(dump, append([]byte("REDIS0099"), good[9:]...), 0o644)
		do("DEBUG", "RELOAD", "NOSAVE")
		do("DBSIZE")
		for _, l := range logTail(tg.log(), n) {
			if !strings.Contains(l, "DB saved on disk") {
				out = append(out, regexp.MustCompile(`\([0-9a-f]+\)`).ReplaceAllString(l, "(x)"))
			}
		}
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}
