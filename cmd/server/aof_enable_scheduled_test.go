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

// TestAppendOnlyYesScheduledCreatesNothing is CONFIG SET appendonly yes
// while a BGSAVE runs, against real redis-server side by side: Redis's
// startAppendOnly only schedules the rewrite, so no temporary incr file
// (nor the AOF directory) exists until the rewrite starts once the BGSAVE
// is over; then it logs the temporary incr's creation once.
func TestAppendOnlyYesScheduledCreatesNothing(t *testing.T) {
	exe := serverBinary(t)
	type result struct {
		dirExists, tempExists bool
		created               int
	}
	run := func(name, addr, dir string, logs func() string) result {
		do := testsrv.Session(t, name, addr, logs)
		for i := 0; i < 20; i++ {
			do("SET", "k"+strconv.Itoa(i), "v")
		}
		do("CONFIG", "SET", "rdb-key-save-delay", "100000") // 0.1 s a key: the BGSAVE outlasts the checks
		if r := do("BGSAVE"); r != "+Background saving started" {
			t.Fatalf("%s: BGSAVE: %s", name, r)
		}
		if r := do("CONFIG", "SET", "appendonly", "yes"); r != "+OK" {
			t.Fatalf("%s: CONFIG SET appendonly yes: %s\n%s", name, r, logs())
		}
		var res result
		_, err := os.Stat(filepath.Join(dir, "appendonlydir"))
		res.dirExists = err == nil
		_, err = os.Stat(filepath.Join(dir, "appendonlydir", "temp-appendonly.aof.incr"))
		res.tempExists = err == nil
		if !strings.Contains(do("INFO", "persistence"), "rdb_bgsave_in_progress:1") {
			t.Fatalf("%s: the BGSAVE ended before the checks", name)
		}
		do("CONFIG", "SET", "rdb-key-save-delay", "0")
		testsrv.WaitForLogs(t, 60*time.Second, name+"'s scheduled rewrite to finish", logs, func() bool {
			return strings.Contains(logs(), "Background AOF rewrite finished successfully")
		})
		res.created = testsrv.CountLines(logs(), "Creating AOF incr file temp-appendonly.aof.incr on background rewrite")
		return res
	}
	dir := t.TempDir()
	p := launchProc(t, freePort(t), exe, "--dir", dir, "--save", "", "--logfile", filepath.Join(dir, "our.log"))
	p.Log = filepath.Join(dir, "our.log")
	if err := testsrv.Ping(p.addr(), p.done, 15*time.Second); err != nil {
		t.Fatalf("our server: %v\n%s", err, p.out.String())
	}
	ours := run("ours", p.addr(), dir, p.LogText)
	r := testsrv.StartRedis(t, "")
	theirs := run("redis", r.Addr(), r.Dir, r.LogText)
	if ours != theirs {
		t.Errorf("ours %+v\nredis %+v\nour log:\n%s\nredis log:\n%s", ours, theirs, p.LogText(), r.LogText())
	}
}
