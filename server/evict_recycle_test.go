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

// evictingServer starts ours as an allkeys-lru cache of room bytes above
// its start-up memory, already full (keys are being evicted) of values of
// n bytes.
func evictingServer(t *testing.T, n int, room int64, args ...string) (*testServer, *respConn) {
	t.Helper()
	ts := startOurServer(t, append([]string{"--maxmemory-policy", "allkeys-lru"}, args...)...)
	c := dial(t, ts.addr)
	limit := infoInt(t, c, "memory", "used_memory") + room
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
	_, c := evictingServer(t, n, 256<<10)
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

// SET over an existing string reuses the replaced value's buffer, with or
// without maxmemory: overwriting makes no garbage either.
func TestSetOverwriteReusesReplacedBuffers(t *testing.T) {
	const n, count = 4000, 2000
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	setPipelined(t, c, "k:", count, n)
	setPipelined(t, c, "k:", count, n) // the client's buffers grow once
	if perSet := setPipelined(t, c, "k:", count, n) / count; perSet >= n/2 {
		t.Fatalf("%d bytes allocated an overwriting SET of %d bytes: replaced buffers are not reused", perSet, n)
	}
	// SET ... GET answers the old value, whose buffer the new one may take.
	k := "k:7"
	if got, want := c.do("SET", k, strings.Repeat("z", n), "GET"), "$4000\r\n"+recycleValueFor(k, n)+"\r\n"; got != want {
		t.Fatalf("SET GET answered %.40q..., want %.40q...", got, want)
	}
	if got := c.do("GET", k); got != "$4000\r\n"+strings.Repeat("z", n)+"\r\n" {
		t.Fatalf("GET after SET GET: %.40q...", got)
	}
}

// Values keep their own bytes whatever is recycled: COPY's copies after
// their source is evicted, a BGSAVE's snapshot (which refers to values'
// bytes until its feeder has encoded them) taken while SETs overwrite and
// evict, and every key left.
func TestEvictRecycledValuesKeepTheirBytes(t *testing.T) {
	const n = 1000
	// ~900 keys at 2 ms each: the save lasts while the SETs below run.
	// Each key they overwrite or evict the snapshot copies at once (so the
	// walk skips it), and ~500 are left for the walk: about a second.
	ts, c := evictingServer(t, n, 1<<20, "--rdb-key-save-delay", "2000")
	for i := 0; i < 20; i++ {
		src := "fill:" + strconv.Itoa(i)
		if c.do("EXISTS", src) == ":1\r\n" {
			c.do("COPY", src, "copy:"+src)
		}
	}
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	setPipelined(t, c, "fill:", 100, n) // overwrites: the old values go to the pool
	setPipelined(t, c, "during:", 300, n)
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
