package server

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Recycling of evicted values' buffers (valuePool): new values take them,
// and no key, copy or snapshot ever sees another key's bytes.

// recycleValueFor is the only value key ever holds, so that a buffer
// reused while something still referred to it shows as a wrong value.
func recycleValueFor(key string, n int) string {
	return strings.Repeat(key+"|", n/(len(key)+1)+1)[:n]
}

// evictingServer starts ours as an allkeys-lru cache already full (keys
// are being evicted) of values of n bytes.
func evictingServer(t *testing.T, n int, args ...string) (*testServer, *respConn) {
	t.Helper()
	ts := startOurServer(t, append([]string{"--maxmemory-policy", "allkeys-lru"}, args...)...)
	c := dial(t, ts.addr)
	limit := infoInt(t, c, "memory", "used_memory") + 256<<10
	c.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	for i := 0; infoInt(t, c, "stats", "evicted_keys") == 0; i++ {
		k := "fill:" + strconv.Itoa(i)
		c.do("SET", k, recycleValueFor(k, n))
	}
	return ts, c
}

// setPipelined SETs keys prefix0..prefix<count-1> to their values, the
// commands built before they are timed.
func setPipelined(t *testing.T, c *respConn, prefix string, count, n int) (bytesAllocated uint64) {
	t.Helper()
	var buf []byte
	for i := 0; i < count; i++ {
		k := prefix + strconv.Itoa(i)
		buf = appendMultibulk(buf, "SET", k, recycleValueFor(k, n))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.nc.Write(buf); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < count; i++ {
		if r := c.read(); r != "+OK\r\n" {
			t.Fatalf("SET %s%d: %q", prefix, i, r)
		}
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A SET that evicts a value of its size class reuses that value's buffer:
// a full cache makes (almost) no garbage. Without recycling every SET
// allocates its 4000 bytes (4096 with the size class) and the evicted one
// is garbage.
func TestEvictSetReusesEvictedBuffers(t *testing.T) {
	const n, count = 4000, 2000
	_, c := evictingServer(t, n)
	setPipelined(t, c, "warm:", 200, n) // the client's buffers grow once
	evicted := infoInt(t, c, "stats", "evicted_keys")
	perSet := setPipelined(t, c, "new:", count, n) / count
	if got := infoInt(t, c, "stats", "evicted_keys") - evicted; got < count*9/10 {
		t.Fatalf("only %d evictions for %d SETs: the test proves nothing", got, count)
	}
	if perSet >= n/2 {
		t.Fatalf("%d bytes allocated a SET of %d bytes in a full cache: evicted buffers are not reused", perSet, n)
	}
}

// Values keep their own bytes whatever is recycled: COPY's copies after
// their source is evicted, a BGSAVE's snapshot (which refers to values'
// bytes until its feeder has encoded them) taken while SETs evict, and
// every key left.
func TestEvictRecycledValuesKeepTheirBytes(t *testing.T) {
	const n = 1000
	// 2 ms a key: the save (~250 keys) lasts while the SETs below run.
	ts, c := evictingServer(t, n, "--rdb-key-save-delay", "2000")
	for i := 0; i < 20; i++ {
		src := "fill:" + strconv.Itoa(i)
		if c.do("EXISTS", src) == ":1\r\n" {
			c.do("COPY", src, "copy:"+src)
		}
	}
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	setPipelined(t, c, "during:", 2000, n)
	if infoField(c, "persistence", "rdb_bgsave_in_progress") != "1" {
		t.Fatal("the save ended before the SETs: the test proved nothing about it")
	}
	waitFor(t, "the BGSAVE to end", func() bool {
		return infoField(c, "persistence", "rdb_bgsave_in_progress") == "0"
	})
	if st := infoField(c, "persistence", "rdb_last_bgsave_status"); st != "ok" {
		t.Fatalf("BGSAVE: %s", st)
	}
	setPipelined(t, c, "after:", 2000, n)
	check := func(when string) {
		t.Helper()
		keys := 0
		for cursor := "0"; ; {
			r := c.do("SCAN", cursor, "COUNT", "1000")
			parts := strings.Split(r, "\r\n")
			cursor = parts[2]
			for j := 4; j+1 < len(parts); j += 2 {
				k := parts[j+1]
				want := recycleValueFor(strings.TrimPrefix(k, "copy:"), n)
				if got := c.do("GET", k); got != "$"+strconv.Itoa(n)+"\r\n"+want+"\r\n" {
					t.Fatalf("%s: GET %s is %.60q..., want %.60q...", when, k, got, want)
				}
				keys++
			}
			if cursor == "0" {
				break
			}
		}
		if keys < 100 {
			t.Fatalf("%s: only %d keys checked", when, keys)
		}
	}
	check("live")
	c.do("CONFIG", "SET", "maxmemory", "0")
	if r := c.do("DEBUG", "RELOAD", "NOSAVE"); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD NOSAVE: %q", r)
	}
	check("the BGSAVE's dump")
	_ = ts
}
