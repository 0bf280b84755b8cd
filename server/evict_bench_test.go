package server

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEvictZipfCacheBench compares aofserver (the real binary, so that the
// runtime memory limit applies) with redis-server as an allkeys-lru cache
// whose working set is twice maxmemory: a cache-aside GET/SET load with
// zipfian keys, then each server's hit rate and RSS. Run it with
//
//	EVICT_BENCH=1 go test -run TestEvictZipfCacheBench -v ./server/
//
// (EVICT_BENCH_MB sets maxmemory in MB, default 64).
func TestEvictZipfCacheBench(t *testing.T) {
	if os.Getenv("EVICT_BENCH") == "" {
		t.Skip("set EVICT_BENCH=1 to run the eviction benchmark")
	}
	requireRedis(t)
	mb := 64
	if v, err := strconv.Atoi(os.Getenv("EVICT_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	bin := filepath.Join(t.TempDir(), "aofserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const valueSize = 1000
	maxmemory := int64(mb) << 20
	nkeys := uint64(2 * maxmemory / (valueSize + 100)) // ~100 bytes of overhead a key
	args := []string{"--maxmemory", strconv.FormatInt(maxmemory, 10), "--maxmemory-policy", "allkeys-lru",
		"--save", "", "--appendonly", "no", "--bind", "127.0.0.1"}
	for _, srv := range []struct{ name, path string }{{"redis", redisServerPath}, {"aofserver", bin}} {
		port := freePort(t)
		dir := t.TempDir()
		cmd := exec.Command(srv.path, append([]string{"--port", strconv.Itoa(port), "--dir", dir}, args...)...)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err := waitPing(addr, exited); err != nil {
			t.Fatalf("%s: %v", srv.name, err)
		}
		c := dial(t, addr)
		rnd := rand.New(rand.NewPCG(1, 2)) // the same key sequence for both
		zipf := rand.NewZipf(rnd, 1.01, 1, nkeys-1)
		value := strings.Repeat("v", valueSize)
		run := func(ops int) (hits, gets int) {
			const batch = 100
			keys := make([]string, batch)
			var buf []byte
			for done := 0; done < ops; done += batch {
				buf = buf[:0]
				for i := range keys {
					keys[i] = "key:" + strconv.FormatUint(zipf.Uint64(), 10)
					buf = appendMultibulk(buf, "GET", keys[i])
				}
				c.nc.Write(buf)
				buf = buf[:0]
				misses := 0
				for i := range keys {
					if r := c.read(); r == "$-1\r\n" {
						buf = appendMultibulk(buf, "SET", keys[i], value)
						misses++
					} else {
						hits++
					}
				}
				gets += batch
				c.nc.Write(buf)
				for ; misses > 0; misses-- {
					if r := c.read(); r != "+OK\r\n" {
						t.Fatalf("%s: SET: %q", srv.name, r)
					}
				}
			}
			return hits, gets
		}
		start := time.Now()
		run(int(nkeys) * 2) // fill and warm up
		hits, gets := run(int(nkeys) * 3)
		elapsed := time.Since(start)
		used := infoInt(t, c, "memory", "used_memory")
		evicted := infoInt(t, c, "stats", "evicted_keys")
		rss := procRSS(cmd.Process.Pid)
		t.Logf("%-9s maxmemory %d MB, %d keys of %d B (zipf 1.01): hit rate %.2f%%, used_memory %.1f MB, RSS %.1f MB (%.2fx maxmemory), evicted %d, %.1fs",
			srv.name, mb, nkeys, valueSize, 100*float64(hits)/float64(gets), float64(used)/(1<<20),
			float64(rss)/(1<<20), float64(rss)/float64(maxmemory), evicted, elapsed.Seconds())
		cmd.Process.Kill()
		<-exited
	}
}

// procRSS reads a process's resident set size from /proc.
func procRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
