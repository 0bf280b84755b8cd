package server

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MIGRATE as dump.tcl uses it, on our server and on redis-server 7.0.15:
// each kind migrates to a target of its own kind, and the replies of the
// source and the target, INFO's migrate_cached_sockets, the SLOWLOG entry
// (AUTH redacted) and the commands the source's AOF logged must agree.
func TestDiffMigrate(t *testing.T) {
	requireRedis(t)
	runs := map[string][]string{}
	for _, kind := range []string{"ours", "redis"} {
		// always: redis-server postpones an everysec write() while its
		// background fsync runs, so the last commands may not be in the
		// file yet when the scenario reads it.
		src := startJobTarget(t, kind, "--appendonly", "yes", "--appendfsync", "always", "--slowlog-log-slower-than", "0")
		dst := startJobTarget(t, kind)
		runs[kind] = migrateScenario(t, kind, src, dst)
	}
	o, r := runs["ours"], runs["redis"]
	if os.Getenv("MIGRATE_SHOW") != "" {
		t.Logf("%q", o)
	}
	compareSteps(t, o, r)
}

// compareSteps reports each step whose noted outcome differs between our
// server's run and redis-server's.
func compareSteps(t *testing.T, ours, redis []string) {
	t.Helper()
	for i := 0; i < max(len(ours), len(redis)); i++ {
		var a, b string
		if i < len(ours) {
			a = ours[i]
		}
		if i < len(redis) {
			b = redis[i]
		}
		if a != b {
			t.Errorf("step %d:\n ours:  %q\n redis: %q", i, a, b)
		}
	}
}

func migrateScenario(t *testing.T, kind string, src, dst *jobTarget) []string {
	s, d := dial(t, src.addr), dial(t, dst.addr)
	_, port, _ := strings.Cut(dst.addr, ":")
	var out []string
	note := func(what, raw string) { out = append(out, what+" "+raw) }
	mig := func(args ...string) string {
		return s.do(append([]string{"MIGRATE", "127.0.0.1", port}, args...)...)
	}
	d.do("SELECT", "9")
	cached := func() string { return "migrate_cached_sockets:" + infoField(s, "stats", "migrate_cached_sockets") }

	// caching, moving a key, COPY, REPLACE
	note("cache", cached())
	s.do("SET", "key", "Some Value")
	note("migrate", mig("key", "9", "1000"))
	note("cache", cached())
	note("src exists", s.do("EXISTS", "key"))
	note("dst get", d.do("GET", "key"))
	note("dst ttl", d.do("TTL", "key"))
	s.do("LPUSH", "list", "a", "b", "c", "d")
	note("copy", mig("list", "9", "5000", "COPY"))
	note("src list", s.do("LRANGE", "list", "0", "-1"))
	note("dst list", d.do("LRANGE", "list", "0", "-1"))
	d.do("SET", "list", "somevalue")
	note("busy", mig("list", "9", "5000", "COPY"))
	note("replace", mig("list", "9", "5000", "COPY", "REPLACE"))
	note("dst list", d.do("LRANGE", "list", "0", "-1"))

	// the TTL goes along
	d.do("DEL", "key")
	s.do("SET", "key", "Some Value")
	s.do("EXPIRE", "key", "10")
	note("ttl migrate", mig("key", "9", "5000"))
	ttl, _ := strconv.Atoi(bulkText(d.do("TTL", "key")))
	note("dst ttl in 7..10", strconv.FormatBool(ttl >= 7 && ttl <= 10))

	// a value larger than one 64K write, and a hash
	s.do("DEL", "big")
	rnd := rand.New(rand.NewPCG(1, 2)) // the same values for both kinds; LZF cannot shrink them
	for j := 0; j < 2000; j++ {
		args := []string{"RPUSH", "big"}
		for k := 0; k < 20; k++ {
			args = append(args, fmt.Sprintf("item %016x", rnd.Uint64()))
		}
		s.send(args...)
	}
	for j := 0; j < 2000; j++ {
		s.read()
	}
	if n := len(bulkText(s.do("DUMP", "big"))); n <= 64*1024 {
		t.Fatalf("%s: DUMP of big is %d bytes, want more than 64K", kind, n)
	}
	note("big", mig("big", "9", "10000"))
	note("dst big", d.do("LLEN", "big")+d.do("TTL", "big"))
	s.do("HSET", "h", "field1", "item 1", "field2", "item 2", "field3", "item 3")
	note("hash", mig("h", "9", "10000"))
	note("dst hash", d.do("HGETALL", "h"))

	// KEYS: several at once, only those here, NOKEY, the empty key rule
	s.do("MSET", "key1", "v1", "key2", "v2", "key3", "v3")
	note("keys", mig("", "9", "5000", "KEYS", "key1", "key2", "key3"))
	note("src", s.do("EXISTS", "key1", "key2", "key3"))
	note("dst", d.do("MGET", "key1", "key2", "key3"))
	note("not empty", mig("NotEmpty", "9", "5000", "KEYS", "a", "b", "c"))
	note("nokey", mig("", "9", "5000", "KEYS", "nokey-1", "nokey-2", "nokey-2"))
	s.do("MSET", "key1", "v1", "key2", "v2", "key3", "v3")
	d.do("DEL", "key1", "key2", "key3")
	note("some", mig("", "9", "5000", "KEYS", "nokey-1", "key1", "nokey-2", "key2", "nokey-3", "key3"))
	note("dst", d.do("MGET", "key1", "key2", "key3"))

	// only the keys the target acknowledged are deleted and logged as DEL
	s.do("FLUSHDB")
	d.do("FLUSHDB")
	s.do("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "c", "5", "e", "6", "f", "7", "g", "8", "h", "9", "i", "10",
		"l", "11", "m", "12", "n", "13", "o", "14", "p", "15", "q", "16")
	d.do("MSET", "c", "_", "d", "_")
	note("two busy", mig("", "9", "5000", "KEYS", "a", "b", "c", "d", "e", "f", "g", "h", "i", "l", "m", "n", "o", "p", "q"))
	note("sizes", s.do("DBSIZE")+d.do("DBSIZE")+s.do("EXISTS", "c", "d"))

	// bad arguments
	note("syntax", mig("x", "9", "5000", "NOSUCH"))
	note("auth arity", mig("x", "9", "5000", "AUTH"))
	note("auth2 arity", mig("x", "9", "5000", "AUTH2", "u"))
	note("timeout", mig("a", "9", "soon"))
	note("db", mig("a", "x", "5000"))
	s.do("SET", "a", "1")
	note("bad db", mig("a", "99", "5000"))
	note("src a", s.do("EXISTS", "a"))

	// AUTH and AUTH2, right and wrong; the password never reaches SLOWLOG
	s.do("LPUSH", "list", "a", "b", "c", "d")
	d.do("CONFIG", "SET", "requirepass", "foobar")
	d.do("AUTH", "foobar")
	note("auth", mig("list", "9", "5000", "AUTH", "foobar"))
	note("dst list", d.do("LRANGE", "list", "0", "-1"))
	s.do("LPUSH", "list", "a", "b", "c", "d")
	note("auth2", mig("list", "9", "5000", "REPLACE", "AUTH2", "default", "foobar"))
	s.do("SLOWLOG", "RESET")
	s.do("LPUSH", "list", "a", "b", "c", "d")
	d.do("CONFIG", "SET", "requirepass", "foobar2")
	note("wrongpass", mig("list", "9", "5000", "AUTH", "foobar"))
	entries := s.do("SLOWLOG", "GET", "1")
	note("slowlog redacted", strconv.FormatBool(strings.Contains(entries, "(redacted)") && !strings.Contains(entries, "foobar")))
	d.do("CONFIG", "SET", "requirepass", "")

	// a target that does not answer in time: IOERR, the connection is dropped
	s.do("SET", "slow", "1")
	d.do("CLIENT", "PAUSE", "1000", "ALL")
	note("timeout", mig("slow", "9", "300"))
	note("cache", cached())
	d.do("PING") // answered once the pause is over (its own client is paused too)
	note("src slow", s.do("EXISTS", "slow"))

	// nobody listening
	note("refused", s.do("MIGRATE", "127.0.0.1", strconv.Itoa(freePort(t)), "slow", "0", "1000"))

	// what the source's AOF logged, command names only (the TTLs differ)
	s.do("SET", "sync", "1") // under always the log is fsynced before the reply
	note("aof", strings.Join(aofCommandNames(t, src.dir), " "))
	return out
}

// aofCommandNames lists the first argument of every command in the incr
// files of dir's AOF, in order.
func aofCommandNames(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := parseAll(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cmds {
			name := strings.ToUpper(c[0])
			if name == "DEL" {
				name += fmt.Sprint(c[1:])
			}
			if n := len(names); n > 0 && strings.HasPrefix(names[n-1], name+"*") || n > 0 && names[n-1] == name {
				k, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(names[n-1], name), "*"))
				names[n-1] = name + "*" + strconv.Itoa(max(k, 1)+1)
				continue
			}
			names = append(names, name)
		}
	}
	return names
}

// The cached connections idle for more than 10 s are closed by cron once
// a second (migrateCloseTimedoutSockets): dump.tcl waits 15 s for it; here
// the clock is moved instead.
func TestMigrateCachedSocketsExpire(t *testing.T) {
	src, dst := startOurServer(t), startOurServer(t)
	c := dial(t, src.addr)
	c.do("SET", "k", "v")
	_, port, _ := strings.Cut(dst.addr, ":")
	if r := c.do("MIGRATE", "127.0.0.1", port, "k", "0", "5000"); r != "+OK\r\n" {
		t.Fatalf("MIGRATE: %q", r)
	}
	if n := infoField(c, "stats", "migrate_cached_sockets"); n != "1" {
		t.Fatalf("migrate_cached_sockets:%s after a MIGRATE", n)
	}
	src.s.mu.Lock()
	src.s.migrate.closeTimedOut(time.Now().Add(10 * time.Second))
	kept := len(src.s.migrate)
	src.s.migrate.closeTimedOut(time.Now().Add(12 * time.Second))
	left := len(src.s.migrate)
	src.s.mu.Unlock()
	if kept != 1 || left != 0 {
		t.Fatalf("cached sockets: %d kept at 10 s (want 1), %d left at 12 s (want 0)", kept, left)
	}
	if n := infoField(c, "stats", "migrate_cached_sockets"); n != "0" {
		t.Fatalf("migrate_cached_sockets:%s after the cache expired", n)
	}
}
