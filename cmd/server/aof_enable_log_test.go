package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// TestAppendOnlyYesLogsTempIncr is CONFIG SET appendonly yes against real
// redis-server side by side: Redis's rewriteAppendOnlyFileBackground opens
// the temporary incr (openNewIncrAofForAppend in AOF_WAIT_REWRITE) and
// logs "Creating AOF incr file temp-appendonly.aof.incr on background
// rewrite" once; the lines around the rewrite are counted in both logs.
func TestAppendOnlyYesLogsTempIncr(t *testing.T) {
	exe := serverBinary(t)
	lines := []string{
		"Creating AOF incr file temp-appendonly.aof.incr on background rewrite",
		"Background append only file rewriting started by pid",
		"Successfully renamed the temporary AOF incr file temp-appendonly.aof.incr into appendonly.aof.1.incr.aof",
		"Background AOF rewrite finished successfully",
	}
	run := func(name, addr string, logs func() string) map[string]int {
		do := testsrv.Session(t, name, addr, logs)
		if r := do("SET", "k", "v"); r != "+OK" {
			t.Fatalf("%s: SET: %q", name, r)
		}
		if r := do("CONFIG", "SET", "appendonly", "yes"); r != "+OK" {
			t.Fatalf("%s: CONFIG SET appendonly yes: %q\n%s", name, r, logs())
		}
		testsrv.WaitForLogs(t, 30*time.Second, name+"'s rewrite to finish", logs, func() bool {
			return strings.Contains(logs(), "Background AOF rewrite finished successfully")
		})
		got := map[string]int{}
		for _, l := range lines {
			got[l] = testsrv.CountLines(logs(), l)
		}
		return got
	}
	p := startProc(t, exe, "--dir", t.TempDir(), "--save", "")
	ours := run("ours", "127.0.0.1:"+strconv.Itoa(p.port), p.out.String)
	r := testsrv.StartRedis(t, "")
	theirs := run("redis", r.Addr(), r.LogText)
	for _, l := range lines {
		if ours[l] != theirs[l] {
			t.Errorf("%q logged %d times, Redis %d\nour log:\n%s\nredis log:\n%s", l, ours[l], theirs[l], p.out.String(), r.LogText())
		}
	}
}
