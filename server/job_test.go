package server

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/persist"
)

// The background-job lifecycle as Redis's persistence tests use it (aofrw.tcl,
// aof-multi-part.tcl, rdb.tcl): a test kills the child of a BGSAVE or
// BGREWRITEAOF, waits for INFO to say the job is over, and starts the next
// one at once. Each scenario runs on our server and on real redis-server
// 7.0.15 with the same commands, and the replies, INFO fields, files and
// log lines (counted) must agree.

// jobTarget is one server under test: ours in-process, or redis-server.
type jobTarget struct {
	kind string // "ours" or "redis"
	addr string
	dir  string
	pid  int // the process whose children are the job's child
	logs func() string
}

func startJobTarget(t *testing.T, kind string, args ...string) *jobTarget {
	t.Helper()
	if kind == "ours" {
		ts := startOurServer(t, args...)
		return &jobTarget{kind: kind, addr: ts.addr, dir: ts.dir, pid: os.Getpid(), logs: ts.logs.String}
	}
	rr := startRealRedis(t, args...)
	// Redis's children outlive a killed parent: stop a job left running
	// before the directory is removed (cleanups run last-in first-out).
	t.Cleanup(func() { killChildren(rr.cmd.Process.Pid) })
	return &jobTarget{kind: kind, addr: rr.addr, dir: rr.dir, pid: rr.cmd.Process.Pid, logs: func() string {
		b, _ := os.ReadFile(filepath.Join(rr.dir, "redis.log"))
		return string(b)
	}}
}

// childPid is the running job's child, which must exist as soon as the
// reply that started it has arrived (Redis forks before it replies; its
// tests kill the child found so).
func (jt *jobTarget) childPid(t *testing.T) int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(jt.pid)).Output()
	for _, f := range strings.Fields(string(out)) {
		pid, _ := strconv.Atoi(f)
		if jt.kind == "ours" {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if !strings.Contains(string(cmdline), persist.ChildFlag) {
				continue
			}
		}
		return pid
	}
	t.Fatalf("%s: no child process right after the job started", jt.kind)
	return 0
}

// killChildren kills pid's children with -9 and waits until each is dead
// (a zombie or gone): none writes into the test's directory any more.
func killChildren(pid int) {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	for _, f := range strings.Fields(string(out)) {
		exec.Command("kill", "-9", f).Run()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			st, err := os.ReadFile("/proc/" + f + "/stat")
			if err != nil || strings.Contains(string(st), ") Z ") {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// waitTempFile waits for the running child's temp file, named after its
// pid as Redis names it (prefix "temp-" or "temp-rewriteaof-bg-").
func (jt *jobTarget) waitTempFile(t *testing.T, prefix, suffix string) {
	t.Helper()
	name := filepath.Join(jt.dir, prefix+strconv.Itoa(jt.childPid(t))+suffix)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s never appeared; temp files: %v", jt.kind, name, tempFiles(jt))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (jt *jobTarget) kill9Child(t *testing.T) {
	t.Helper()
	if err := exec.Command("kill", "-9", strconv.Itoa(jt.childPid(t))).Run(); err != nil {
		t.Fatalf("kill -9: %v", err)
	}
}

// countLog counts the log lines that contain s.
func (jt *jobTarget) countLog(s string) int {
	return strings.Count(jt.logs(), s)
}

func expectReply(t *testing.T, jt *jobTarget, c *respConn, want string, args ...string) {
	t.Helper()
	if got := c.do(args...); got != want {
		t.Fatalf("%s: %v replied %q, want %q", jt.kind, args, got, want)
	}
}

func expectInfo(t *testing.T, jt *jobTarget, c *respConn, field, want string) {
	t.Helper()
	if got := infoField(c, "persistence", field); got != want {
		t.Fatalf("%s: INFO %s is %q, want %q", jt.kind, field, got, want)
	}
}

// slowJobArgs make every job outlast the test: 200 keys at 1 s each.
var slowJobArgs = []string{"--rdb-key-save-delay", "1000000"}

func fillKeys(c *respConn, n int) {
	for i := 0; i < n; i++ {
		c.send("SET", "k"+strconv.Itoa(i), "v")
	}
	for i := 0; i < n; i++ {
		c.read()
	}
}

// manifestIncrs lists the manifest's lines, the form Redis's tests compare.
func manifestLines(t *testing.T, jt *jobTarget) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(jt.dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatalf("%s: %v", jt.kind, err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func tempFiles(jt *jobTarget) []string {
	var names []string
	for _, d := range []string{jt.dir, filepath.Join(jt.dir, "appendonlydir")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "temp-") {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

func forBoth(t *testing.T, fn func(t *testing.T, kind string)) {
	requireRedis(t)
	for _, kind := range []string{"ours", "redis"} {
		t.Run(kind, func(t *testing.T) { fn(t, kind) })
	}
}

// A BGSAVE whose child is killed with -9 fails, its temp file goes, and the
// slot is free once INFO says so: the next BGSAVE and BGREWRITEAOF start.
func TestJobBGSAVEKilledFreesSlot(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, slowJobArgs...)
		c := dial(t, jt.addr)
		fillKeys(c, 200)
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
		jt.waitTempFile(t, "temp-", ".rdb")
		jt.kill9Child(t)
		waitInfo(t, c, "rdb_bgsave_in_progress", "0")
		expectInfo(t, jt, c, "rdb_last_bgsave_status", "err")
		if n := jt.countLog("Background saving terminated by signal 9"); n != 1 {
			t.Fatalf("%s: 'terminated by signal 9' logged %d times\n%s", kind, n, jt.logs())
		}
		if tf := tempFiles(jt); len(tf) != 0 {
			t.Fatalf("%s: temp files left: %v", kind, tf)
		}
		// The slot is free: the next job of each kind starts at once.
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
		jt.kill9Child(t)
		waitInfo(t, c, "rdb_bgsave_in_progress", "0")
		expectReply(t, jt, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
		expectInfo(t, jt, c, "aof_rewrite_in_progress", "1")
		jt.waitTempFile(t, "temp-rewriteaof-", ".aof")
		jt.kill9Child(t)
		waitInfo(t, c, "aof_rewrite_in_progress", "0")
		expectInfo(t, jt, c, "aof_last_bgrewrite_status", "err")
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
	})
}

// A killed rewrite with the AOF on: Redis's "AOF will trigger limit when
// AOFRW fails many times" steps. Each failed rewrite leaves the incr file it
// opened in the manifest, counts a consecutive failure, and frees the slot;
// a rewrite scheduled behind a BGSAVE starts on the cron tick after the
// BGSAVE's child is killed.
func TestJobRewriteKilledFreesSlot(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, append([]string{"--appendonly", "yes"}, slowJobArgs...)...)
		c := dial(t, jt.addr)
		fillKeys(c, 200)
		for i := 1; i <= 2; i++ {
			expectReply(t, jt, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
			jt.waitTempFile(t, "temp-rewriteaof-", ".aof")
			jt.kill9Child(t)
			waitInfo(t, c, "aof_rewrite_in_progress", "0")
			expectInfo(t, jt, c, "aof_last_bgrewrite_status", "err")
			expectInfo(t, jt, c, "aof_rewrites_consecutive_failures", strconv.Itoa(i))
		}
		if n := jt.countLog("Background AOF rewrite terminated by signal 9"); n != 2 {
			t.Fatalf("%s: 'terminated by signal 9' logged %d times\n%s", kind, n, jt.logs())
		}
		want := []string{
			"file appendonly.aof.1.base.rdb seq 1 type b",
			"file appendonly.aof.1.incr.aof seq 1 type i",
			"file appendonly.aof.2.incr.aof seq 2 type i",
			"file appendonly.aof.3.incr.aof seq 3 type i",
		}
		if got := manifestLines(t, jt); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: manifest\n%s\nwant\n%s", kind, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if tf := tempFiles(jt); len(tf) != 0 {
			t.Fatalf("%s: temp files left: %v", kind, tf)
		}
		// A rewrite asked for during a BGSAVE is scheduled (and resets
		// the failure count), and starts once the BGSAVE is over.
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
		expectReply(t, jt, c, "+Background append only file rewriting scheduled\r\n", "BGREWRITEAOF")
		expectInfo(t, jt, c, "aof_rewrite_scheduled", "1")
		expectInfo(t, jt, c, "aof_rewrites_consecutive_failures", "0")
		jt.kill9Child(t)
		waitInfo(t, c, "aof_rewrite_scheduled", "0")
		expectInfo(t, jt, c, "aof_rewrite_in_progress", "1")
		expectInfo(t, jt, c, "rdb_bgsave_in_progress", "0")
		jt.kill9Child(t)
		waitInfo(t, c, "aof_rewrite_in_progress", "0")
		// Then a rewrite that is let finish installs one base and one incr.
		expectReply(t, jt, c, "+OK\r\n", "CONFIG", "SET", "rdb-key-save-delay", "0")
		expectReply(t, jt, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
		waitInfo(t, c, "aof_rewrite_in_progress", "0")
		expectInfo(t, jt, c, "aof_last_bgrewrite_status", "ok")
		expectInfo(t, jt, c, "aof_rewrites_consecutive_failures", "0")
		want = []string{
			"file appendonly.aof.2.base.rdb seq 2 type b",
			"file appendonly.aof.5.incr.aof seq 5 type i",
		}
		if got := manifestLines(t, jt); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: manifest\n%s\nwant\n%s", kind, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, l := range []string{"Background AOF rewrite terminated with success", "Background AOF rewrite finished successfully"} {
			if n := jt.countLog(l); n != 1 {
				t.Fatalf("%s: %q logged %d times\n%s", kind, l, n, jt.logs())
			}
		}
	})
}

// CONFIG SET appendonly no during a rewrite kills the child and waits for
// it (Redis's killAppendOnlyChild): the reply comes with the slot free, so
// a BGSAVE right behind it starts, and no failure is counted.
func TestJobAppendOnlyOffKillsRewrite(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, append([]string{"--appendonly", "yes"}, slowJobArgs...)...)
		c := dial(t, jt.addr)
		fillKeys(c, 200)
		expectReply(t, jt, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
		expectReply(t, jt, c, "+OK\r\n", "CONFIG", "SET", "appendonly", "no")
		expectInfo(t, jt, c, "aof_rewrite_in_progress", "0")
		expectInfo(t, jt, c, "aof_last_bgrewrite_status", "ok")
		expectInfo(t, jt, c, "aof_rewrites_consecutive_failures", "0")
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
		if n := jt.countLog("Killing running AOF rewrite child"); n != 1 {
			t.Fatalf("%s: 'Killing running AOF rewrite child' logged %d times\n%s", kind, n, jt.logs())
		}
		if n := jt.countLog("terminated by signal"); n != 0 {
			t.Fatalf("%s: a reaped-in-place child logged its end:\n%s", kind, jt.logs())
		}
	})
}

// CONFIG SET appendonly yes while a rewrite started with the AOF off runs:
// that child is killed and a new rewrite starts at once (Redis's
// startAppendOnly); killing the new child with -9 leaves the AOF waiting,
// removes the temp incr file, and schedules the rewrite again.
func TestJobAppendOnlyOnRestartsRewrite(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, slowJobArgs...)
		c := dial(t, jt.addr)
		fillKeys(c, 200)
		expectReply(t, jt, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
		expectReply(t, jt, c, "+OK\r\n", "CONFIG", "SET", "appendonly", "yes")
		expectInfo(t, jt, c, "aof_rewrite_in_progress", "1")
		if n := jt.countLog("Stopping background AOF and starting a rewrite now"); n != 1 {
			t.Fatalf("%s: restart logged %d times\n%s", kind, n, jt.logs())
		}
		jt.kill9Child(t)
		waitInfo(t, c, "aof_rewrites_consecutive_failures", "1")
		if n := jt.countLog("Removing the temp incr aof file temp-appendonly.aof.incr in the background"); n != 1 {
			t.Fatalf("%s: temp incr removal logged %d times\n%s", kind, n, jt.logs())
		}
		// Rescheduled: the next cron tick starts it again.
		waitInfo(t, c, "aof_rewrite_in_progress", "1")
		expectReply(t, jt, c, "+OK\r\n", "CONFIG", "SET", "rdb-key-save-delay", "0")
		jt.kill9Child(t)
		// Rescheduled again, and this child writes at full speed.
		waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
		waitInfo(t, c, "aof_rewrite_in_progress", "0")
		expectInfo(t, jt, c, "aof_rewrites_consecutive_failures", "0")
		if n := jt.countLog("Background AOF rewrite terminated by signal 9"); n != 2 {
			t.Fatalf("%s: 'terminated by signal 9' logged %d times\n%s", kind, n, jt.logs())
		}
		want := []string{
			"file appendonly.aof.1.base.rdb seq 1 type b",
			"file appendonly.aof.1.incr.aof seq 1 type i",
		}
		if got := manifestLines(t, jt); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: manifest\n%s\nwant\n%s", kind, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// FLUSHALL during a BGSAVE kills the child with SIGUSR1: the save ends as
// killed on purpose (status stays ok) and the slot is free for the next.
func TestJobFlushallKillsBGSAVE(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, slowJobArgs...)
		c := dial(t, jt.addr)
		fillKeys(c, 200)
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
		expectReply(t, jt, c, "+OK\r\n", "FLUSHALL")
		waitInfo(t, c, "rdb_bgsave_in_progress", "0")
		expectInfo(t, jt, c, "rdb_last_bgsave_status", "ok")
		if n := jt.countLog("Background saving terminated by signal 10"); n != 1 {
			t.Fatalf("%s: 'terminated by signal 10' logged %d times\n%s", kind, n, jt.logs())
		}
		fillKeys(c, 10)
		expectReply(t, jt, c, "+Background saving started\r\n", "BGSAVE")
	})
}

// While a job runs INFO shows its progress and what it copied on write
// (the values the walk had to encode early because a write came first:
// our counterpart of the pages a forked child's parent copies); after a
// successful save rdb_last_cow_size keeps it, and with no job running the
// current_* fields are 0, as Redis's.
func TestJobCOWInfo(t *testing.T) {
	ts := startOurServer(t, "--rdb-key-save-delay", "10000") // 10 ms a key
	c := dial(t, ts.addr)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100; i++ {
		// Values LZF cannot shrink: the copies are counted as encoded.
		val := make([]byte, 1024)
		for j := range val {
			val[j] = byte('!' + rng.IntN(90))
		}
		c.send("SET", "k"+strconv.Itoa(i), string(val))
	}
	for i := 0; i < 100; i++ {
		c.read()
	}
	expectInfoOurs := func(field, want string) {
		t.Helper()
		if got := infoField(c, "persistence", field); got != want {
			t.Fatalf("INFO %s is %q, want %q", field, got, want)
		}
	}
	expectInfoOurs("current_cow_size", "0")
	expectInfoOurs("current_save_keys_total", "0")
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	// The walk does a key per 10 ms: most of these come before it.
	for i := 0; i < 50; i++ {
		c.send("SET", "k"+strconv.Itoa(i), "x")
	}
	for i := 0; i < 50; i++ {
		c.read()
	}
	expectInfoOurs("current_save_keys_total", "100")
	cow, _ := strconv.Atoi(infoField(c, "persistence", "current_cow_size"))
	if cow < 25*1024 {
		t.Fatalf("current_cow_size %d after 50 values of 1 KB were overwritten", cow)
	}
	if p, _ := strconv.Atoi(infoField(c, "persistence", "current_save_keys_processed")); p < 25 {
		t.Fatalf("current_save_keys_processed %d: the early copies count as processed", p)
	}
	if peak := infoField(c, "persistence", "current_cow_peak"); peak != strconv.Itoa(cow) && peak < strconv.Itoa(cow) {
		t.Fatalf("current_cow_peak %s below current_cow_size %d", peak, cow)
	}
	waitInfo(t, c, "rdb_bgsave_in_progress", "0")
	expectInfoOurs("rdb_last_bgsave_status", "ok")
	last, _ := strconv.Atoi(infoField(c, "persistence", "rdb_last_cow_size"))
	if last < cow {
		t.Fatalf("rdb_last_cow_size %d, below the %d seen during the save", last, cow)
	}
	expectInfoOurs("current_cow_size", "0")
	expectInfoOurs("current_save_keys_processed", "0")
	expectInfoOurs("current_fork_perc", "0.00")
}
