package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/memsize"
)

// Eviction tests: tests/unit/maxmemory.tcl's single-server cases, run on
// real Redis and on ours with the same steps, plus checks of our own
// memory accounting.

func infoInt(t *testing.T, c *respConn, section, field string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(infoField(c, section, field), 10, 64)
	if err != nil {
		t.Fatalf("INFO %s %s: %v", section, field, err)
	}
	return v
}

// bothServers runs fn on a fresh real Redis and a fresh server of ours.
func bothServers(t *testing.T, fn func(t *testing.T, c *respConn), args ...string) {
	real := startRealRedis(t, args...)
	ours := startOurServer(t, args...)
	t.Run("redis", func(t *testing.T) { fn(t, dial(t, real.addr)) })
	t.Run("ours", func(t *testing.T) { fn(t, dial(t, ours.addr)) })
}

// dumpOfA is DUMP's payload for the string "a" (Redis 7.0, RDB 10).
const dumpOfA = "\x00\x01a\n\x00\xbf\xfe\xef\x9b\x8f6}\xb4"

func randomTestKey() string { return "key:" + strconv.Itoa(rand.IntN(1_000_000_000)) }

// fillToLimit is the tcl tests' set-up: maxmemory 100k above what is used
// now, then keys added until used memory is within 4k of it. It returns
// the limit and the number of keys added.
func fillToLimit(t *testing.T, c *respConn, policy string, add func(i int)) (limit int64, n int) {
	t.Helper()
	// A fresh Redis grows by ~100k on its first commands (client and
	// table set-up): warm up as the tcl suite's earlier tests do.
	c.do("SETEX", "warmup", "10", "x")
	infoInt(t, c, "memory", "used_memory")
	c.do("FLUSHALL")
	limit = infoInt(t, c, "memory", "used_memory") + 100*1024
	c.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	c.do("CONFIG", "SET", "maxmemory-policy", policy)
	for {
		add(n)
		n++
		if infoInt(t, c, "memory", "used_memory")+4096 > limit {
			if n <= 10 {
				t.Fatalf("limit %d reached after %d keys: used %d", limit, n, infoInt(t, c, "memory", "used_memory"))
			}
			return limit, n
		}
	}
}

func TestEvictMemoryLimitHonoured(t *testing.T) {
	for _, policy := range []string{"allkeys-random", "allkeys-lru", "allkeys-lfu", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			bothServers(t, func(t *testing.T, c *respConn) {
				limit, n := fillToLimit(t, c, policy, func(int) { c.do("SETEX", randomTestKey(), "10000", "x") })
				for j := 0; j < n; j++ {
					if r := c.do("SETEX", randomTestKey(), "10000", "x"); r != "+OK\r\n" {
						t.Fatalf("SETEX: %q", r)
					}
				}
				if used := infoInt(t, c, "memory", "used_memory"); used >= limit+4096 {
					t.Fatalf("used_memory %d over the limit %d", used, limit)
				}
				if infoInt(t, c, "stats", "evicted_keys") == 0 {
					t.Fatal("nothing evicted")
				}
			})
		})
	}
}

func TestEvictOnlyAllkeysRemovesNonVolatile(t *testing.T) {
	for _, policy := range []string{"allkeys-random", "allkeys-lru", "volatile-lru", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			bothServers(t, func(t *testing.T, c *respConn) {
				limit, n := fillToLimit(t, c, policy, func(int) { c.do("SET", randomTestKey(), "x") })
				oom := false
				for j := 0; j < n; j++ {
					r := c.do("SET", randomTestKey(), "x")
					if strings.Contains(r, "used memory") {
						if r != "-OOM command not allowed when used memory > 'maxmemory'.\r\n" {
							t.Fatalf("error: %q", r)
						}
						oom = true
					}
				}
				if strings.HasPrefix(policy, "allkeys-") {
					if used := infoInt(t, c, "memory", "used_memory"); used >= limit+4096 {
						t.Fatalf("used_memory %d over the limit %d", used, limit)
					}
				} else if !oom {
					t.Fatal("no OOM error with no volatile key to evict")
				}
			})
		})
	}
}

func TestEvictVolatileOnlyRemovesVolatile(t *testing.T) {
	for _, policy := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			bothServers(t, func(t *testing.T, c *respConn) {
				limit, n := fillToLimit(t, c, policy, func(i int) {
					if i%2 == 1 {
						c.do("SETEX", "key:"+strconv.Itoa(i), "10000", "x")
					} else {
						c.do("SET", "key:"+strconv.Itoa(i), "x")
					}
				})
				for j := 0; j < n; j++ {
					c.do("SETEX", "foo:"+strconv.Itoa(j), "10000", "x")
				}
				if used := infoInt(t, c, "memory", "used_memory"); used >= limit+4096 {
					t.Fatalf("used_memory %d over the limit %d", used, limit)
				}
				for j := 0; j < n; j += 2 {
					if r := c.do("EXISTS", "key:"+strconv.Itoa(j)); r != ":1\r\n" {
						t.Fatalf("non-volatile key:%d evicted", j)
					}
				}
			})
		})
	}
}

func TestDiffEvictLRULFUValueOfKeyJustAdded(t *testing.T) {
	diff(t, [][]string{
		cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"),
		cmd("SET", "foo", "a"),
		cmd("OBJECT", "IDLETIME", "foo"),
		cmd("OBJECT", "FREQ", "foo"),
		cmd("DEL", "foo"),
		cmd("SET", "foo", "1"),
		cmd("GET", "foo"),
		cmd("OBJECT", "IDLETIME", "foo"),
		cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"),
		cmd("DEL", "foo"),
		cmd("SET", "foo", "a"),
		cmd("OBJECT", "FREQ", "foo"),
		cmd("OBJECT", "IDLETIME", "foo"),
		cmd("OBJECT", "FREQ", "nokey"),
		// An overwrite keeps the counter and counts as an access, which
		// up to LFU_INIT_VAL always increments it (LFULogIncr).
		cmd("SET", "foo", "b"),
		cmd("OBJECT", "FREQ", "foo"),
		cmd("RESTORE", "r", "0", dumpOfA, "FREQ", "100"),
		cmd("OBJECT", "FREQ", "r"),
		cmd("CONFIG", "SET", "maxmemory-policy", "volatile-lru"),
		cmd("OBJECT", "FREQ", "foo"),
		cmd("RESTORE", "i", "0", dumpOfA, "IDLETIME", "1000"),
		cmd("OBJECT", "IDLETIME", "i"),
		// With maxmemory and an LRU policy small integers are not shared.
		cmd("CONFIG", "SET", "maxmemory", "1gb"),
		cmd("SET", "a", "1"),
		cmd("OBJECT", "REFCOUNT", "a"),
		cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-random"),
		cmd("SET", "b", "1"),
		cmd("OBJECT", "REFCOUNT", "b"),
		cmd("CONFIG", "SET", "maxmemory", "0"),
	})
}

// Evicting with nothing evictable: -OOM for commands that may use memory,
// the others still run.
func TestDiffEvictOOMWithoutCandidates(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "plain", "v"),
		cmd("CONFIG", "SET", "maxmemory-policy", "volatile-lru"),
		cmd("CONFIG", "SET", "maxmemory", "1"),
		cmd("SET", "k", "v"),
		cmd("GET", "plain"),
		cmd("DEL", "plain"),
		cmd("LPUSH", "l", "a"),
		cmd("MULTI"),
		cmd("GET", "x"),
		cmd("EXEC"),
		cmd("CONFIG", "SET", "maxmemory", "0"),
		cmd("SET", "k", "v"),
	})
}

// An eviction is propagated as DEL (UNLINK under lazyfree-lazy-eviction)
// after the transaction that went over the limit, as in maxmemory.tcl's
// "propagation with eviction in MULTI": both AOFs must be identical.
func TestEvictPropagatesDelToAOF(t *testing.T) {
	for _, lazy := range []string{"no", "yes"} {
		t.Run("lazyfree-"+lazy, func(t *testing.T) {
			args := []string{"--appendonly", "yes", "--appendfsync", "always", "--maxmemory-policy", "allkeys-lru",
				"--lazyfree-lazy-eviction", lazy}
			real := startRealRedis(t, args...)
			ours := startOurServer(t, args...)
			var aofs [2][]byte
			for i, srv := range []struct{ addr, dir string }{{real.addr, real.dir}, {ours.addr, ours.dir}} {
				c := dial(t, srv.addr)
				for _, args := range [][]string{
					{"SET", "y", "1"}, {"MULTI"}, {"INCR", "x"}, {"CONFIG", "SET", "maxmemory", "1"}, {"INCR", "x"}, {"EXEC"},
				} {
					c.do(args...)
				}
				deadline := time.Now().Add(10 * time.Second)
				for c.do("DBSIZE") != ":0\r\n" {
					if time.Now().After(deadline) {
						t.Fatal("keys not evicted")
					}
				}
				c.do("CONFIG", "SET", "maxmemory", "0")
				c.do("SET", "after", "1")
				aofs[i] = incrAOF(t, srv.dir)
			}
			// Which of x and y goes first is random: compare the sets.
			norm := func(b []byte) string {
				b = bytes.Replace(b, []byte("$1\r\ny\r\n"), []byte("$1\r\nK\r\n"), -1)
				return string(bytes.Replace(b, []byte("$1\r\nx\r\n"), []byte("$1\r\nK\r\n"), -1))
			}
			if norm(aofs[0]) != norm(aofs[1]) {
				t.Fatalf("AOF differs:\nredis: %q\nours:  %q", aofs[0], aofs[1])
			}
			want := "DEL"
			if lazy == "yes" {
				want = "UNLINK"
			}
			if !bytes.Contains(aofs[1], []byte(want)) {
				t.Fatalf("no %s in %q", want, aofs[1])
			}
		})
	}
}

// The "evicted" keyspace event (class e).
func TestDiffEvictKeyspaceEvent(t *testing.T) {
	bothServers(t, func(t *testing.T, c *respConn) {
		sub := dial(t, c.nc.RemoteAddr().String())
		c.do("CONFIG", "SET", "notify-keyspace-events", "KEe")
		sub.do("PSUBSCRIBE", "__key*__:*")
		c.do("SET", "k", "v")
		c.do("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
		c.do("CONFIG", "SET", "maxmemory", "1")
		c.do("PING")
		got := []string{sub.read(), sub.read()}
		want := []string{
			"*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$16\r\n__keyspace@0__:k\r\n$7\r\nevicted\r\n",
			"*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$22\r\n__keyevent@0__:evicted\r\n$1\r\nk\r\n",
		}
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("events %q, want %q", got, want)
		}
		if n := infoInt(t, c, "stats", "evicted_keys"); n != 1 {
			t.Fatalf("evicted_keys %d", n)
		}
		c.do("CONFIG", "SET", "maxmemory", "0")
	})
}

// Which keys go: with idle times (LRU), frequencies (LFU) or TTLs set
// apart, the policies evict the cold half and keep the hot keys (a few
// may go: sampling is approximate, in Redis too).
func TestEvictPolicyChoosesCandidates(t *testing.T) {
	const n, hot = 2000, 200
	for _, tc := range []struct {
		policy string
		cold   []string // RESTORE options of cold keys
		warm   []string // of hot keys
		ttl    func(hot bool) string
	}{
		{"allkeys-lru", []string{"IDLETIME", "100000"}, []string{"IDLETIME", "0"}, nil},
		{"volatile-lru", []string{"IDLETIME", "100000"}, []string{"IDLETIME", "0"}, func(bool) string { return "100000000" }},
		{"allkeys-lfu", []string{"FREQ", "0"}, []string{"FREQ", "200"}, nil},
		{"volatile-lfu", []string{"FREQ", "0"}, []string{"FREQ", "200"}, func(bool) string { return "100000000" }},
		{"volatile-ttl", nil, nil, func(hot bool) string {
			if hot {
				return "900000000"
			}
			return "100000000"
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			bothServers(t, func(t *testing.T, c *respConn) {
				c.do("CONFIG", "SET", "maxmemory-policy", tc.policy)
				// Values big enough that client buffers are noise.
				c.do("SET", "warmup", strconv.Itoa(rand.Int())+strings.Repeat("x", 1000))
				payload := bulkText(c.do("DUMP", "warmup"))
				c.do("DEL", "warmup")
				base := infoInt(t, c, "memory", "used_memory")
				for i := 0; i < n; i++ {
					isHot := i%(n/hot) == 0
					args := []string{"RESTORE", "k" + strconv.Itoa(i), "0", payload}
					if tc.ttl != nil {
						args[2] = tc.ttl(isHot)
					}
					if isHot {
						args = append(args, tc.warm...)
					} else {
						args = append(args, tc.cold...)
					}
					if r := c.do(args...); r != "+OK\r\n" {
						t.Fatalf("%v: %q", args, r)
					}
				}
				used := infoInt(t, c, "memory", "used_memory")
				limit := base + (used-base)/2
				c.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
				c.do("SET", "trigger", "1")
				// A cycle is time-bounded: the rest may take a few more.
				deadline := time.Now().Add(10 * time.Second)
				for infoInt(t, c, "memory", "used_memory") > limit && time.Now().Before(deadline) {
				}
				evicted := infoInt(t, c, "stats", "evicted_keys")
				if evicted < n/3 {
					t.Fatalf("only %d evicted", evicted)
				}
				lost := 0
				for i := 0; i < n; i += n / hot {
					if c.do("EXISTS", "k"+strconv.Itoa(i)) != ":1\r\n" {
						lost++
					}
				}
				if lost > hot/20 {
					t.Fatalf("%d of %d hot keys evicted (%d evicted in all)", lost, hot, evicted)
				}
				c.do("CONFIG", "SET", "maxmemory", "0")
			})
		})
	}
}

// A small maxmemory-eviction-tenacity bounds each cycle: the command goes
// through (not OOM) and the eviction goroutine finishes the job.
func TestEvictTimeBoundedLoopContinuesInBackground(t *testing.T) {
	ts := startOurServer(t, "--maxmemory-policy", "allkeys-random", "--maxmemory-eviction-tenacity", "0")
	c := dial(t, ts.addr)
	for i := 0; i < 50; i++ {
		args := []string{"MSET"}
		for j := 0; j < 1000; j++ {
			args = append(args, fmt.Sprintf("key:%d:%d", i, j), "value")
		}
		c.do(args...)
	}
	used := infoInt(t, c, "memory", "used_memory")
	limit := used / 3
	c.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	if r := c.do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET while evicting: %q", r)
	}
	// No more commands (each would run a cycle of its own): the goroutine
	// must finish alone.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ts.s.mu.Lock()
		running, used := ts.s.ev.procRunning, ts.s.usedMemoryEstimate()
		ts.s.mu.Unlock()
		if !running {
			if used > limit {
				t.Fatalf("eviction stopped over the limit: used %d limit %d", used, limit)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still evicting: used %d limit %d", used, limit)
		}
		time.Sleep(time.Millisecond)
	}
	if n := infoInt(t, c, "stats", "evicted_keys"); n < 16 {
		t.Fatalf("evicted_keys %d", n)
	}
	if n := infoInt(t, c, "stats", "current_eviction_exceeded_time"); n != 0 {
		t.Fatalf("current_eviction_exceeded_time %d once under the limit", n)
	}
}

// memCharged sums what the keys are charged (their stored costs), which
// the running per-DB sums must equal whatever commands did.
func (s *Server) memCharged() (sums, charged int64) {
	s.datasetMemory() // settles, recounts after a load
	for _, db := range s.dbs {
		sums += db.memBytes
		db.keys.Range(func(k string, e *entry) bool {
			charged += memsize.GoAlloc(len(k)) + valueCost(*e)
			return true
		})
	}
	return sums, charged
}

func TestEvictAccountingDoesNotDrift(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	check := func(step string) {
		t.Helper()
		ts.s.mu.Lock()
		sums, charged := ts.s.memCharged()
		ts.s.mu.Unlock()
		if sums != charged {
			t.Fatalf("after %s: per-DB sums %d, keys charged %d", step, sums, charged)
		}
	}
	big := strings.Repeat("x", 300)
	script := [][]string{
		{"SET", "s", "abc"}, {"APPEND", "s", big}, {"APPEND", "s", big}, {"SETRANGE", "s", "2000", "y"},
		{"SETBIT", "b", "10000", "1"}, {"BITFIELD", "b", "SET", "u8", "90000", "3"}, {"INCR", "n"}, {"INCRBYFLOAT", "f", "1.5"},
		{"PFADD", "h", "a", "b", "c"}, {"PFCOUNT", "h"}, {"GETSET", "s", "short"}, {"GETDEL", "n"},
		{"RPUSH", "l", "a", "b", "c"}, {"LPUSH", "l", big, big}, {"LSET", "l", "0", "z"}, {"LPOP", "l"},
		{"LMOVE", "l", "l2", "LEFT", "RIGHT"}, {"LMOVE", "l", "l", "LEFT", "RIGHT"},
		{"HSET", "hh", "f", "v", "g", big}, {"HDEL", "hh", "f"}, {"HINCRBY", "hh", "c", "5"},
		{"SADD", "st", "1", "2", "3"}, {"SADD", "st", "x"}, {"SREM", "st", "1"}, {"SMOVE", "st", "st2", "x"},
		{"ZADD", "z", "1", "a", "2", big}, {"ZINCRBY", "z", "3", "a"}, {"ZPOPMIN", "z"},
		{"XADD", "x", "*", "f", big}, {"XGROUP", "CREATE", "x", "g", "0"}, {"XTRIM", "x", "MAXLEN", "0"},
		{"SUNIONSTORE", "su", "st", "st2"}, {"SORT", "l2", "ALPHA", "STORE", "so"},
		{"RENAME", "su", "su2"}, {"COPY", "su2", "su3"}, {"MOVE", "su3", "1"}, {"SWAPDB", "0", "1"}, {"SWAPDB", "0", "1"},
		{"EXPIRE", "s", "100"}, {"PERSIST", "s"}, {"DEL", "hh"}, {"UNLINK", "z"},
		{"EVAL", "redis.call('append', KEYS[1], ARGV[1]); redis.call('del', KEYS[1]); return redis.call('append', KEYS[1], 'a')", "1", "s", big},
		{"MULTI"}, {"RPUSH", "m", "1"}, {"RPUSH", "m", big}, {"DEL", "m"}, {"RPUSH", "m", "2"}, {"EXEC"},
		{"DUMP", "l2"},
	}
	for _, args := range script {
		c.do(args...)
		check(strings.Join(args, " "))
	}
	// A list far past collExactUpTo, grown and shrunk: scaled estimates.
	for i := 0; i < 300; i++ {
		c.do("RPUSH", "long", strconv.Itoa(i)+big)
	}
	check("RPUSH long")
	for i := 0; i < 250; i++ {
		c.do("RPOP", "long")
	}
	check("RPOP long")
	c.do("DEBUG", "RELOAD")
	check("DEBUG RELOAD")
	c.do("FLUSHDB")
	check("FLUSHDB")
	c.do("FLUSHALL")
	check("FLUSHALL")
	ts.s.mu.Lock()
	used := ts.s.usedMemoryEstimate()
	ts.s.mu.Unlock()
	if used != memStartup {
		t.Fatalf("empty server uses %d, want %d", used, memStartup)
	}
}
