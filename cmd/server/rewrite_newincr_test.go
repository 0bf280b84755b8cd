package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// TestBgrewriteaofOpensNewIncrFirst is BGREWRITEAOF with appendonly yes
// against real redis-server side by side. rewriteAppendOnlyFileBackground
// opens the new incr file (openNewIncrAofForAppend) before it forks: its
// "Creating AOF incr file" line comes before "started by pid", and when the
// file cannot be opened (here a directory holds its name) BGREWRITEAOF
// fails at once with Redis's error, its log line and
// aof_last_bgrewrite_status:err, and no rewrite starts.
func TestBgrewriteaofOpensNewIncrFirst(t *testing.T) {
	exe := serverBinary(t)
	const created = "Creating AOF incr file appendonly.aof.2.incr.aof on background rewrite"
	const started = "Background append only file rewriting started by pid"
	type result struct {
		reply, status string
		counts        []int
		createdFirst  bool
	}
	lines := []string{created, started, "Can't open the append-only file appendonly.aof.3.incr.aof: Is a directory",
		"Background AOF rewrite finished successfully"}
	run := func(name, addr, dir string, logs func() string) result {
		do := testsrv.Session(t, name, addr, logs)
		if r := do("BGREWRITEAOF"); r != "+Background append only file rewriting started" {
			t.Fatalf("%s: BGREWRITEAOF: %s\n%s", name, r, logs())
		}
		testsrv.WaitForLogs(t, 30*time.Second, name+"'s rewrite to finish", logs, func() bool {
			return strings.Contains(logs(), "Background AOF rewrite finished successfully") &&
				!strings.Contains(do("INFO", "persistence"), "aof_rewrite_in_progress:1")
		})
		// The next rewrite's incr name is taken by a directory.
		if err := os.Mkdir(filepath.Join(dir, "appendonlydir", "appendonly.aof.3.incr.aof"), 0o755); err != nil {
			t.Fatal(err)
		}
		var res result
		res.reply = do("BGREWRITEAOF")
		info := do("INFO", "persistence")
		_, after, _ := strings.Cut(info, "aof_last_bgrewrite_status:")
		res.status, _, _ = strings.Cut(after, "\r\n")
		text := logs()
		for _, l := range lines {
			res.counts = append(res.counts, testsrv.CountLines(text, l))
		}
		ic, is := strings.Index(text, created), strings.Index(text, started)
		res.createdFirst = ic >= 0 && is >= 0 && ic < is
		return res
	}
	dir := t.TempDir()
	// A log file, not the output pipe, whose reader may deliver a line
	// after the reply that follows it.
	p := launchProc(t, freePort(t), exe, "--dir", dir, "--save", "", "--appendonly", "yes",
		"--logfile", filepath.Join(dir, "our.log"))
	p.Log = filepath.Join(dir, "our.log")
	if err := testsrv.Ping(p.addr(), p.done, 15*time.Second); err != nil {
		t.Fatalf("our server: %v\n%s", err, p.out.String())
	}
	ours := run("ours", "127.0.0.1:"+strconv.Itoa(p.port), dir, p.LogText)
	r := testsrv.StartRedis(t, "", "--appendonly", "yes")
	theirs := run("redis", r.Addr(), r.Dir, r.LogText)
	if ours.reply != theirs.reply || ours.status != theirs.status || ours.createdFirst != theirs.createdFirst ||
		!slicesEqual(ours.counts, theirs.counts) {
		t.Errorf("ours %+v\nredis %+v (counts of %q)\nour log:\n%s\nredis log:\n%s", ours, theirs, lines, p.LogText(), r.LogText())
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
