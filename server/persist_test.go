package server

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
	"github.com/aofserver/aofserver/persist"
)

// Persistence tests: files read back by us and by the real redis-server,
// compared with DEBUG DIGEST.

// fillAllTypes writes every type in small and large size classes, with
// expiries, in several DBs.
func fillAllTypes(t *testing.T, c *respConn) {
	t.Helper()
	must := func(args ...string) {
		if r := c.do(args...); strings.HasPrefix(r, "-") {
			t.Fatalf("%v: %s", args, r)
		}
	}
	must("SET", "str", "hello")
	must("SET", "int", "12345")
	must("SET", "big", strings.Repeat("a", 100))
	must("SET", "ttl", "v", "EX", "10000")
	must("INCRBYFLOAT", "fl", "1.5")
	must("APPEND", "app", "xyz")
	must("RPUSH", "list", "a", "b", "c", "1", "2")
	for i := 0; i < 300; i++ {
		must("RPUSH", "biglist", strings.Repeat("x", i%90)+strconv.Itoa(i))
	}
	must("SADD", "iset", "1", "2", "3")
	must("SADD", "sset", "x", "y", "z")
	for i := 0; i < 600; i++ {
		must("SADD", "bigset", strconv.Itoa(i))
	}
	must("ZADD", "zs", "1", "a", "2.5", "b", "-inf", "c")
	for i := 0; i < 200; i++ {
		must("ZADD", "bigzs", strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	must("HSET", "h", "f1", "v1", "f2", "2")
	for i := 0; i < 600; i++ {
		must("HSET", "bighash", "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	must("PEXPIRE", "bighash", "50000000")
	must("SELECT", "3")
	must("SET", "db3", "v")
	must("SELECT", "0")
	must("MULTI")
	must("SET", "m1", "v")
	must("INCR", "m2")
	must("EXEC")
}

func digestOf(t *testing.T, addr string) string {
	t.Helper()
	c := dial(t, addr)
	return c.do("DEBUG", "DIGEST")
}

func waitInfo(t *testing.T, c *respConn, field, want string) {
	t.Helper()
	if !testsrv.Poll(20*time.Second, func() bool {
		return strings.Contains(c.do("INFO", "persistence"), field+":"+want+"\r\n")
	}) {
		t.Fatalf("%s never became %s:\n%s", field, want, c.do("INFO", "persistence"))
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput()
	if err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

func TestAOFRestartKeepsDataset(t *testing.T) {
	for _, policy := range []string{"always", "everysec", "no"} {
		t.Run(policy, func(t *testing.T) {
			ts := startOurServer(t, "--appendonly", "yes", "--appendfsync", policy)
			c := dial(t, ts.addr)
			fillAllTypes(t, c)
			want := c.do("DEBUG", "DIGEST")
			if want == "+0000000000000000000000000000000000000000\r\n" {
				t.Fatal("empty digest")
			}
			dir := ts.dir
			// A second server on a copy of the directory replays it.
			cp := t.TempDir()
			copyDir(t, dir, cp)
			ts2 := startOurServer(t, "--appendonly", "yes", "--dir", cp)
			if got := digestOf(t, ts2.addr); got != want {
				t.Fatalf("digest after replay %q, want %q", got, want)
			}
		})
	}
}

func TestAOFRealRedisLoadsOurDirectory(t *testing.T) {
	requireRedis(t)
	for _, rewrites := range []int{0, 1, 2} {
		for _, preamble := range []string{"yes", "no"} {
			t.Run(fmt.Sprintf("rewrites=%d/preamble=%s", rewrites, preamble), func(t *testing.T) {
				ts := startOurServer(t, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble, "--aof-timestamp-enabled", "yes")
				c := dial(t, ts.addr)
				fillAllTypes(t, c)
				for i := 0; i < rewrites; i++ {
					if r := c.do("BGREWRITEAOF"); !strings.HasPrefix(r, "+Background append only file rewriting started") {
						t.Fatalf("BGREWRITEAOF: %q", r)
					}
					waitInfo(t, c, "aof_rewrite_in_progress", "0")
					waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
					c.do("SET", "after"+strconv.Itoa(i), "v")
					c.do("LPUSH", "list", "after")
				}
				want := c.do("DEBUG", "DIGEST")
				cp := t.TempDir()
				copyDir(t, ts.dir, cp)
				rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp)
				if got := digestOf(t, rr.addr); got != want {
					log, _ := os.ReadFile(filepath.Join(cp, "redis.log"))
					t.Fatalf("real redis digest %q, ours %q\n%s", got, want, log)
				}
			})
		}
	}
}

func TestAOFWeLoadRealRedisDirectory(t *testing.T) {
	requireRedis(t)
	for _, preamble := range []string{"yes", "no"} {
		t.Run("preamble="+preamble, func(t *testing.T) {
			rr := startRealRedis(t, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble, "--appendfsync", "always") // Redis may postpone writes under everysec
			c := dial(t, rr.addr)
			fillAllTypes(t, c)
			c.do("BGREWRITEAOF")
			waitInfo(t, c, "aof_rewrite_in_progress", "0")
			c.do("SET", "after", "v")
			c.do("RPUSH", "list", "z")
			want := c.do("DEBUG", "DIGEST")
			cp := t.TempDir()
			copyDir(t, rr.dir, cp)
			ts := startOurServer(t, "--appendonly", "yes", "--dir", cp)
			if got := digestOf(t, ts.addr); got != want {
				t.Fatalf("our digest %q, real redis %q\n%s", got, want, ts.logs.String())
			}
		})
	}
}

func TestRDBInterop(t *testing.T) {
	requireRedis(t)
	t.Run("ours-to-redis", func(t *testing.T) {
		ts := startOurServer(t)
		c := dial(t, ts.addr)
		fillAllTypes(t, c)
		want := c.do("DEBUG", "DIGEST")
		if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
			t.Fatalf("BGSAVE: %q", r)
		}
		waitInfo(t, c, "rdb_bgsave_in_progress", "0")
		waitInfo(t, c, "rdb_last_bgsave_status", "ok")
		path := filepath.Join(ts.dir, "dump.rdb")
		out, err := exec.Command("redis-check-rdb", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "RDB looks OK!") {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		rr := startRealRedis(t, "--dir", cp, "--dbfilename", "dump.rdb")
		if got := digestOf(t, rr.addr); got != want {
			t.Fatalf("real redis digest %q, ours %q", got, want)
		}
	})
	t.Run("redis-to-ours", func(t *testing.T) {
		// Compressed quicklist nodes and LZF strings in the file too.
		rr := startRealRedis(t, "--list-compress-depth", "1")
		c := dial(t, rr.addr)
		fillAllTypes(t, c)
		want := c.do("DEBUG", "DIGEST")
		if r := c.do("SAVE"); r != "+OK\r\n" {
			t.Fatalf("SAVE: %q", r)
		}
		cp := t.TempDir()
		copyDir(t, rr.dir, cp)
		ts := startOurServer(t, "--dir", cp)
		if got := digestOf(t, ts.addr); got != want {
			t.Fatalf("our digest %q, real redis %q\n%s", got, want, ts.logs.String())
		}
	})
}

// digestThenBGSAVE sends DEBUG DIGEST and BGSAVE back to back on one
// connection, so nothing runs between them, and returns the digest: the
// dataset the save must hold.
func digestThenBGSAVE(t *testing.T, c *respConn) string {
	t.Helper()
	c.send("DEBUG", "DIGEST")
	c.send("BGSAVE")
	want := c.read()
	if r := c.read(); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	return want
}

// checkSavedDigest waits for the BGSAVE to succeed and loads a copy of its
// directory into a fresh server, whose digest must be want.
func checkSavedDigest(t *testing.T, ts *testServer, c *respConn, want string) {
	t.Helper()
	waitInfo(t, c, "rdb_bgsave_in_progress", "0")
	if info := c.do("INFO", "persistence"); !strings.Contains(info, "rdb_last_bgsave_status:ok") {
		t.Fatalf("BGSAVE failed:\n%s", ts.logs.String())
	}
	cp := t.TempDir()
	copyDir(t, ts.dir, cp)
	ts2 := startOurServer(t, "--dir", cp)
	if got := digestOf(t, ts2.addr); got != want {
		t.Fatalf("dump.rdb digest %q, dataset at BGSAVE %q", got, want)
	}
}

// runWriters runs n clients of ts at once, each with its own connection,
// and waits for them.
func runWriters(t *testing.T, ts *testServer, n int, fn func(w int, wc *respConn)) {
	t.Helper()
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			fn(w, dial(t, ts.addr))
		}(w)
	}
	wg.Wait()
}

// TestBGSAVEPointInTime: writers keep changing keys while a slowed-down
// BGSAVE runs; the file must hold the dataset as of the BGSAVE instant.
func TestBGSAVEPointInTime(t *testing.T) {
	ts := startOurServer(t, "--rdb-key-save-delay", "1000")
	c := dial(t, ts.addr)
	for i := 0; i < 500; i++ {
		c.send("SET", "k"+strconv.Itoa(i), "v0")
	}
	for i := 0; i < 500; i++ {
		c.read()
	}
	c.do("RPUSH", "l", "a", "b")
	c.do("HSET", "h", "f", "v")
	want := digestThenBGSAVE(t, c)
	runWriters(t, ts, 4, func(w int, wc *respConn) {
		for i := 0; i < 300; i++ {
			k := "k" + strconv.Itoa((i*7+w)%600)
			switch i % 5 {
			case 0:
				wc.do("DEL", k)
			case 1:
				wc.do("APPEND", k, "x")
			case 2:
				wc.do("RPUSH", "l", "c")
			case 3:
				wc.do("HSET", "h", "f"+strconv.Itoa(i), "v")
			default:
				wc.do("SET", k, "new", "EX", "1000")
			}
		}
		if w == 0 {
			// FLUSHDB hands the old tables to the snapshot (FLUSHALL
			// would kill the child, as in Redis).
			wc.do("FLUSHDB")
			wc.do("SET", "afterflush", "1")
		}
	})
	checkSavedDigest(t, ts, c, want)
}

// TestBGSAVEPointInTimeOnLoop: the save walked by the network loop at full
// speed (no rdb-key-save-delay), plain strings encoded by the feeder
// after the executor moved on, while writers replace, append to, overwrite
// in place and delete them. The file must hold the dataset of the BGSAVE
// instant, with a valid checksum (and with rdbchecksum no, a zero one).
func TestBGSAVEPointInTimeOnLoop(t *testing.T) {
	for _, checksum := range []string{"yes", "no"} {
		t.Run("rdbchecksum="+checksum, func(t *testing.T) {
			ts := startOurServer(t, "--rdbchecksum", checksum)
			c := dial(t, ts.addr)
			c.do("DEBUG", "POPULATE", "100000", "k", "12")
			c.do("SELECT", "1")
			c.do("DEBUG", "POPULATE", "20000", "d1k", "30")
			c.do("SELECT", "0")
			// Raw strings (changed in place from now on) among the plain
			// ones, some with a TTL, and other types.
			for i := 0; i < 3000; i++ {
				c.send("SETRANGE", "k:"+strconv.Itoa(i), "0", "raw")
				c.send("PEXPIRE", "k:"+strconv.Itoa(i*7), "100000000")
				c.send("RPUSH", "list"+strconv.Itoa(i%300), "a")
			}
			for i := 0; i < 9000; i++ {
				c.read()
			}
			want := digestThenBGSAVE(t, c)
			runWriters(t, ts, 4, func(w int, wc *respConn) {
				for i := 0; i < 2000; i++ {
					k := "k:" + strconv.Itoa((i*131+w*7919)%100000)
					rawKey := "k:" + strconv.Itoa((i*37+w*1009)%3000)
					switch i % 6 {
					case 0:
						wc.send("SET", k, "replaced")
					case 1:
						wc.send("APPEND", rawKey, "+")
					case 2:
						wc.send("SETRANGE", rawKey, "1", "ZZ")
					case 3:
						wc.send("DEL", k)
					case 4:
						wc.send("INCR", "k:counter")
					default:
						wc.send("SETBIT", rawKey, "3", "1")
					}
				}
				for i := 0; i < 2000; i++ {
					wc.read()
				}
			})
			checkSavedDigest(t, ts, c, want)
			if c.do("DEBUG", "DIGEST") == want {
				t.Fatal("the writers changed nothing: the test proves nothing")
			}
			path := filepath.Join(ts.dir, "dump.rdb")
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			trailer := raw[len(raw)-8:]
			if zero := string(trailer) == "\x00\x00\x00\x00\x00\x00\x00\x00"; zero != (checksum == "no") {
				t.Fatalf("checksum trailer %x with rdbchecksum %s", trailer, checksum)
			}
			if _, err := os.Stat(redisServerPath); err == nil {
				out, err := exec.Command("redis-check-rdb", path).CombinedOutput()
				if err != nil || !strings.Contains(string(out), "RDB looks OK!") {
					t.Fatalf("redis-check-rdb: %v\n%s", err, out)
				}
			}
		})
	}
}

// TestRewritePointInTime: a rewrite under concurrent writes; base + new incr
// must replay to the final dataset, and real Redis agrees.
func TestRewritePointInTime(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes", "--appendfsync", "always", "--rdb-key-save-delay", "100")
	c := dial(t, ts.addr)
	for i := 0; i < 500; i++ {
		c.send("SET", "k"+strconv.Itoa(i), "v0")
	}
	for i := 0; i < 500; i++ {
		c.read()
	}
	if r := c.do("BGREWRITEAOF"); !strings.HasPrefix(r, "+Background append only file rewriting started") {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	runWriters(t, ts, 4, func(w int, wc *respConn) {
		for i := 0; i < 200; i++ {
			k := "k" + strconv.Itoa((i*13+w)%600)
			switch i % 4 {
			case 0:
				wc.do("DEL", k)
			case 1:
				wc.do("INCR", "ctr")
			case 2:
				wc.do("SADD", "s", strconv.Itoa(i))
			default:
				wc.do("SET", k, "new"+strconv.Itoa(w))
			}
		}
	})
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
	want := c.do("DEBUG", "DIGEST")
	cp := t.TempDir()
	copyDir(t, ts.dir, cp)
	ts2 := startOurServer(t, "--appendonly", "yes", "--dir", cp)
	if got := digestOf(t, ts2.addr); got != want {
		t.Fatalf("replayed digest %q, want %q", got, want)
	}
	if _, err := os.Stat(redisServerPath); err == nil {
		cp2 := t.TempDir()
		copyDir(t, ts.dir, cp2)
		rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp2)
		if got := digestOf(t, rr.addr); got != want {
			t.Fatalf("real redis digest %q, want %q", got, want)
		}
	}
}

// TestBGSAVEChildKilled: killing the child fails the save cleanly.
func TestBGSAVEChildKilled(t *testing.T) {
	ts := startOurServer(t, "--rdb-key-save-delay", "100000")
	c := dial(t, ts.addr)
	for i := 0; i < 50; i++ {
		c.do("SET", "k"+strconv.Itoa(i), "v")
	}
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid())).Output()
	if err != nil {
		t.Fatalf("pgrep found no child: %v", err)
	}
	var killed bool
	for _, f := range strings.Fields(string(out)) {
		pid, _ := strconv.Atoi(f)
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), persist.ChildFlag) {
			exec.Command("kill", "-9", f).Run()
			killed = true
		}
	}
	if !killed {
		t.Fatalf("no snapshot child among %q", out)
	}
	// The walk alone lasts 5 s (50 keys, 0.1 s each): the save must fail
	// on the child's death, not when the walk ends.
	waitSaveEndsSoon(t, c)
	waitInfo(t, c, "rdb_last_bgsave_status", "err")
	if r := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after killed child: %q", r)
	}
	entries, _ := os.ReadDir(ts.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "temp-") {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "dump.rdb")); err == nil {
		t.Fatal("dump.rdb written by a killed child")
	}
}

// waitSaveEndsSoon waits for a BGSAVE whose child was just killed to end,
// and shows it ended with its child, not with its 5 s walk
// (rdb-key-save-delay): the next BGSAVE starts at once, which it could not
// while the walk still held the job's slot. It waits for events only.
func waitSaveEndsSoon(t *testing.T, c *respConn) {
	t.Helper()
	waitInfo(t, c, "rdb_bgsave_in_progress", "0")
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE right after the killed one ended: %q", r)
	}
	c.do("FLUSHALL") // kills it: leaves no dump.rdb
	waitInfo(t, c, "rdb_bgsave_in_progress", "0")
}

// TestBGSAVEKilledBeforeItRan: FLUSHALL pipelined right behind BGSAVE
// kills a child that has hardly started; it must still be stopped (the
// save would otherwise last 5 s), and, as in Redis, a save killed on
// purpose is not a failed one.
func TestBGSAVEKilledBeforeItRan(t *testing.T) {
	ts := startOurServer(t, "--rdb-key-save-delay", "100000")
	c := dial(t, ts.addr)
	for i := 0; i < 50; i++ {
		c.do("SET", "k"+strconv.Itoa(i), "v")
	}
	c.send("BGSAVE")
	c.send("FLUSHALL")
	if r := c.read(); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	if r := c.read(); r != "+OK\r\n" {
		t.Fatalf("FLUSHALL: %q", r)
	}
	waitSaveEndsSoon(t, c)
	waitInfo(t, c, "rdb_last_bgsave_status", "ok")
	if _, err := os.Stat(filepath.Join(ts.dir, "dump.rdb")); err == nil {
		t.Fatal("dump.rdb written by a killed child")
	}
}

// TestDumpRestoreInterop: DUMP from one server, RESTORE into the other,
// both directions; the datasets must then have equal digests.
func TestDumpRestoreInterop(t *testing.T) {
	requireRedis(t)
	ours := startOurServer(t)
	rr := startRealRedis(t)
	for _, dir := range []struct {
		name     string
		src, dst string
	}{{"redis-to-ours", rr.addr, ours.addr}, {"ours-to-redis", ours.addr, rr.addr}} {
		t.Run(dir.name, func(t *testing.T) {
			src, dst := dial(t, dir.src), dial(t, dir.dst)
			src.do("FLUSHALL")
			dst.do("FLUSHALL")
			fillAllTypes(t, src)
			keysRaw := src.do("KEYS", "*")
			_, keys, ok := splitRaw(keysRaw)
			if !ok || len(keys) < 10 {
				t.Fatalf("KEYS: %q", keysRaw)
			}
			for _, kr := range keys {
				k := bulkText(kr)
				payload := bulkText(src.do("DUMP", k))
				pttl := strings.TrimSuffix(strings.TrimPrefix(src.do("PTTL", k), ":"), "\r\n")
				ttl := "0"
				if n, _ := strconv.ParseInt(pttl, 10, 64); n > 0 {
					ttl = pttl
				}
				if r := dst.do("RESTORE", k, ttl, payload, "REPLACE"); r != "+OK\r\n" {
					t.Fatalf("RESTORE %s: %q", k, r)
				}
			}
			// DB 0 only: compare just that DB's keys by dumping DB 3 away.
			src.do("SELECT", "3")
			src.do("FLUSHDB")
			src.do("SELECT", "0")
			if a, b := src.do("DEBUG", "DIGEST"), dst.do("DEBUG", "DIGEST"); a != b {
				t.Fatalf("digest after RESTORE: dst %q, src %q", b, a)
			}
			// A corrupted payload gets Redis's error.
			if r := dst.do("RESTORE", "bad", "0", "garbage-payload"); r != "-ERR DUMP payload version or checksum are wrong\r\n" {
				t.Fatalf("bad payload: %q", r)
			}
		})
	}
}

// BGREWRITEAOF with appendonly no writes a base-only manifest (spec §3.5),
// which real Redis loads.
func TestRewriteWithAOFOff(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "no")
	c := dial(t, ts.addr)
	fillAllTypes(t, c)
	if r := c.do("BGREWRITEAOF"); r != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
	man, err := os.ReadFile(filepath.Join(ts.dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	if string(man) != "file appendonly.aof.1.base.rdb seq 1 type b\n" {
		t.Fatalf("manifest:\n%s", man)
	}
	want := c.do("DEBUG", "DIGEST")
	if _, err := os.Stat(redisServerPath); err == nil {
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp)
		if got := digestOf(t, rr.addr); got != want {
			t.Fatalf("real redis digest %q, ours %q", got, want)
		}
	}
	cp := t.TempDir()
	copyDir(t, ts.dir, cp)
	ts2 := startOurServer(t, "--appendonly", "yes", "--dir", cp)
	if got := digestOf(t, ts2.addr); got != want {
		t.Fatalf("our digest after load %q, want %q", got, want)
	}
}

// A killed rewrite leaves base N + incr N + incr N+1, which both we and
// real Redis load to the same dataset.
func TestKilledRewriteLoads(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes", "--rdb-key-save-delay", "100000")
	c := dial(t, ts.addr)
	fillAllTypes(t, c)
	if r := c.do("BGREWRITEAOF"); !strings.HasPrefix(r, "+Background append only file rewriting started") {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	c.do("SET", "during", "rewrite")
	killSnapshotChild(t)
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_last_bgrewrite_status", "err")
	c.do("SET", "after", "kill")
	want := c.do("DEBUG", "DIGEST")
	man, _ := os.ReadFile(filepath.Join(ts.dir, "appendonlydir", "appendonly.aof.manifest"))
	if strings.Count(string(man), "type i") != 2 {
		t.Fatalf("manifest after a killed rewrite:\n%s", man)
	}
	for _, kind := range []string{"ours", "redis"} {
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		var addr string
		if kind == "ours" {
			addr = startOurServer(t, "--appendonly", "yes", "--dir", cp).addr
		} else {
			if _, err := os.Stat(redisServerPath); err != nil {
				requireRedis(t)
			}
			addr = startRealRedis(t, "--appendonly", "yes", "--dir", cp).addr
		}
		if got := digestOf(t, addr); got != want {
			t.Fatalf("%s loads digest %q, want %q", kind, got, want)
		}
	}
}

func killSnapshotChild(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid())).Output()
		for _, f := range strings.Fields(string(out)) {
			pid, _ := strconv.Atoi(f)
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if strings.Contains(string(cmdline), persist.ChildFlag) {
				exec.Command("kill", "-9", f).Run()
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no snapshot child found")
}

// CONFIG SET appendonly yes at runtime, as Redis 7.0 does it: the reply
// comes at once (the base is written by a rewrite child from a snapshot),
// writes made while it runs land in the new incr, the manifest names base 1
// and incr 1, and both we and real Redis load the result to the same
// dataset. Real Redis does the same on the same commands.
func TestAppendOnlyOnAtRuntime(t *testing.T) {
	requireRedis(t)
	for _, kind := range []string{"ours", "redis"} {
		t.Run(kind, func(t *testing.T) {
			args := []string{"--appendonly", "no", "--rdb-key-save-delay", "200"}
			var addr, dir string
			if kind == "ours" {
				ts := startOurServer(t, args...)
				addr, dir = ts.addr, ts.dir
			} else {
				rr := startRealRedis(t, args...)
				addr, dir = rr.addr, rr.dir
			}
			c := dial(t, addr)
			fillAllTypes(t, c)
			for i := 0; i < 2000; i++ {
				c.send("SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
			}
			for i := 0; i < 2000; i++ {
				c.read()
			}
			if r := c.do("CONFIG", "SET", "appendonly", "yes"); r != "+OK\r\n" {
				t.Fatalf("CONFIG SET appendonly yes: %q", r)
			}
			// 2000+ keys at 200 µs each: the child still writes the base
			// while the server answers.
			if info := c.do("INFO", "persistence"); !strings.Contains(info, "aof_enabled:1\r\n") || !strings.Contains(info, "aof_rewrite_in_progress:1\r\n") {
				t.Fatalf("INFO while turning on:\n%s", info)
			}
			c.do("SET", "during", "1")
			c.do("INCR", "k1")
			waitInfo(t, c, "aof_rewrite_in_progress", "0")
			waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
			c.do("SET", "after", "1")
			man, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
			if err != nil {
				t.Fatal(err)
			}
			if string(man) != "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
				t.Fatalf("manifest:\n%s", man)
			}
			want := c.do("DEBUG", "DIGEST")
			for _, loader := range []string{"ours", "redis"} {
				cp := t.TempDir()
				copyDir(t, dir, cp)
				var got string
				if loader == "ours" {
					got = digestOf(t, startOurServer(t, "--appendonly", "yes", "--dir", cp).addr)
				} else {
					got = digestOf(t, startRealRedis(t, "--appendonly", "yes", "--dir", cp).addr)
				}
				if got != want {
					t.Fatalf("%s loads the directory to digest %q, want %q", loader, got, want)
				}
			}
		})
	}
}

// TestLatencySnapshotStep: a snapshot step that holds the executor past
// latency-monitor-threshold shows in LATENCY as "snapshot-step" (a 32 MB
// value takes milliseconds to copy on any machine), so the longest wait a
// save causes is visible from the server itself.
func TestLatencySnapshotStep(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	c.do("SETRANGE", "big", strconv.Itoa(32<<20), "x")
	if r := c.do("LATENCY", "HISTORY", "snapshot-step"); r != "*0\r\n" {
		t.Fatalf("history before any save: %q", r)
	}
	c.do("CONFIG", "SET", "latency-monitor-threshold", "1")
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitInfo(t, c, "rdb_bgsave_in_progress", "0")
	waitInfo(t, c, "rdb_last_bgsave_status", "ok")
	r := c.do("LATENCY", "HISTORY", "snapshot-step")
	if !strings.HasPrefix(r, "*") || r == "*0\r\n" {
		t.Fatalf("no snapshot-step sample: %q", r)
	}
	if r := c.do("LATENCY", "LATEST"); !strings.Contains(r, "snapshot-step") {
		t.Fatalf("LATENCY LATEST: %q", r)
	}
}

// Bytes fed with nobody waiting for them (active expiry's DELs) reach the
// incr file right after the cron cycle that fed them, as Redis writes them
// in the beforeSleep after serverCron: not a writer tick later (1 s). The
// writer's tick is made longer than the test, so the DEL reaching the file
// at all proves the cron's kick wrote it.
func TestActiveExpiryDelIsWrittenAfterCron(t *testing.T) {
	ts := startOurServerWith(t, func(s *Server) { s.testWriterTick = time.Hour },
		"--appendonly", "yes", "--appendfsync", "everysec", "--hz", "100")
	c := dial(t, ts.addr)
	if r := c.do("SET", "gone", "v", "PX", "30"); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	waitFor(t, "the expired key's DEL in the incr file", func() bool {
		return strings.Contains(readIncr(t, ts.dir), "$3\r\nDEL\r\n$4\r\ngone\r\n")
	})
}
