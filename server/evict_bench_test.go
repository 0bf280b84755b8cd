package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEvictZipfCacheBench compares aofserver (the real binary, so that the
// runtime memory limit applies) with redis-server as an allkeys-lru cache
// whose working set is twice maxmemory: a cache-aside GET/SET load with
// zipfian keys. Each round runs both servers one after the other (the order
// alternating), and the table gives per run the peak and final RSS, the hit
// rate, the throughput and the server's CPU time per command (utime+stime
// from /proc/<pid>/stat), then each server's min and median. Run it with
//
//	EVICT_BENCH=1 go test -run TestEvictZipfCacheBench -v ./server/
//
// EVICT_BENCH_MB sets maxmemory in MB (default 64), EVICT_BENCH_ROUNDS the
// number of rounds (default 3), EVICT_BENCH_ONLY=redis|aofserver runs one
// server only, EVICT_BENCH_VS=<binary> runs that build of ours (labelled
// "vs") in redis-server's place, to compare two builds, EVICT_BENCH_LOG=1
// shows the servers' stderr (with, say, GODEBUG=gctrace=1),
// EVICT_BENCH_PROF=<file> writes our CPU profile; GOMEMLIMIT overrides our
// runtime limit.
func TestEvictZipfCacheBench(t *testing.T) {
	if os.Getenv("EVICT_BENCH") == "" {
		t.Skip("set EVICT_BENCH=1 to run the eviction benchmark")
	}
	requireRedis(t)
	mb := 64
	if v, err := strconv.Atoi(os.Getenv("EVICT_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("EVICT_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	bin := ourBinary(t)
	servers := []struct{ name, path string }{{"redis", redisServerPath}, {"aofserver", bin}}
	if vs := os.Getenv("EVICT_BENCH_VS"); vs != "" { // another build of ours in Redis's place
		servers[0] = struct{ name, path string }{"vs", vs}
	}
	if only := os.Getenv("EVICT_BENCH_ONLY"); only != "" { // one server, to compare our own settings
		servers = slices.DeleteFunc(servers, func(s struct{ name, path string }) bool { return s.name != only })
	}
	results := make([][]evictBenchResult, len(servers))
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "maxmemory %d MB allkeys-lru, %d keys of 1000 B (zipf 1.01)\n", mb, evictBenchKeys(mb))
	fmt.Fprintf(&tbl, "%-9s %-5s %9s %9s %8s %9s %9s %9s\n", "server", "run", "peakRSS", "RSS", "hit%", "used", "kops/s", "CPU µs/op")
	for r := 0; r < rounds; r++ {
		for i := range servers {
			j := i
			if r%2 == 1 {
				j = len(servers) - 1 - i
			}
			res := runEvictBench(t, servers[j].name, servers[j].path, mb)
			results[j] = append(results[j], res)
			res.row(&tbl, servers[j].name, strconv.Itoa(r+1))
		}
	}
	for i, srv := range servers {
		rs := results[i]
		pick := func(f func(evictBenchResult) float64) (lo, med float64) {
			v := make([]float64, len(rs))
			for k, r := range rs {
				v[k] = f(r)
			}
			slices.Sort(v)
			return v[0], v[len(v)/2]
		}
		var lo, med evictBenchResult
		lo.peakRSS, med.peakRSS = pick(func(r evictBenchResult) float64 { return r.peakRSS })
		lo.rss, med.rss = pick(func(r evictBenchResult) float64 { return r.rss })
		lo.hit, med.hit = pick(func(r evictBenchResult) float64 { return r.hit })
		lo.used, med.used = pick(func(r evictBenchResult) float64 { return r.used })
		lo.kops, med.kops = pick(func(r evictBenchResult) float64 { return r.kops })
		lo.cpuOp, med.cpuOp = pick(func(r evictBenchResult) float64 { return r.cpuOp })
		lo.row(&tbl, srv.name, "min")
		med.row(&tbl, srv.name, "med")
	}
	t.Logf("\n%s", tbl.String())
}

type evictBenchResult struct {
	peakRSS, rss, hit, used, kops, cpuOp float64 // MB, MB, %, MB, 1000 commands/s, µs
}

func (r evictBenchResult) row(b *strings.Builder, name, run string) {
	fmt.Fprintf(b, "%-9s %-5s %6.1f MB %6.1f MB %7.2f%% %6.1f MB %9.1f %9.2f\n",
		name, run, r.peakRSS, r.rss, r.hit, r.used, r.kops, r.cpuOp)
}

func evictBenchKeys(mb int) uint64 {
	return uint64(2 * (int64(mb) << 20) / (1000 + 100)) // ~100 bytes of overhead a key
}

// runEvictBench runs one server through the load: a fill and warm-up of
// twice the key count in GETs, then three times that measured.
func runEvictBench(t *testing.T, name, path string, mb int) evictBenchResult {
	const valueSize = 1000
	maxmemory := int64(mb) << 20
	nkeys := evictBenchKeys(mb)
	port := freePort(t)
	dir := t.TempDir()
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--dir", dir,
		"--maxmemory", strconv.FormatInt(maxmemory, 10), "--maxmemory-policy", "allkeys-lru",
		"--save", "", "--appendonly", "no", "--bind", "127.0.0.1")
	prof := os.Getenv("EVICT_BENCH_PROF") // a CPU profile of ours, written at SIGTERM
	if prof != "" && name == "aofserver" {
		cmd.Args = append(cmd.Args, "--cpu-profile", prof)
	}
	cmd.Dir = dir
	if os.Getenv("EVICT_BENCH_LOG") != "" {
		cmd.Stderr = os.Stderr // GODEBUG=gctrace=1 and the like
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		if prof != "" {
			cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			return
		}
		cmd.Process.Kill()
		<-exited
	}()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := waitPing(addr, exited); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := dial(t, addr)
	rnd := rand.New(rand.NewPCG(1, 2)) // the same key sequence for both
	zipf := rand.NewZipf(rnd, 1.01, 1, nkeys-1)
	value := strings.Repeat("v", valueSize)
	cmds := 0
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
			cmds += batch + misses
			c.nc.Write(buf)
			for ; misses > 0; misses-- {
				if r := c.read(); r != "+OK\r\n" {
					t.Fatalf("%s: SET: %q", name, r)
				}
			}
		}
		return hits, gets
	}
	pid := cmd.Process.Pid
	cpu0 := procCPU(pid)
	start := time.Now()
	run(int(nkeys) * 2) // fill and warm up
	hits, gets := run(int(nkeys) * 3)
	elapsed := time.Since(start)
	cpu := procCPU(pid) - cpu0
	peak, rss := procRSS(pid)
	return evictBenchResult{
		peakRSS: float64(peak) / (1 << 20),
		rss:     float64(rss) / (1 << 20),
		hit:     100 * float64(hits) / float64(gets),
		used:    float64(infoInt(t, c, "memory", "used_memory")) / (1 << 20),
		kops:    float64(cmds) / elapsed.Seconds() / 1000,
		cpuOp:   float64(cpu.Microseconds()) / float64(cmds),
	}
}

// procRSS reads a process's peak and current resident set size from /proc.
func procRSS(pid int) (peak, cur int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	kb := func(v string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n << 10
	}
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			peak = kb(v)
		} else if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			cur = kb(v)
		}
	}
	return peak, cur
}

// procCPU is a process's user plus system CPU time from /proc/<pid>/stat.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the parenthesized command name; utime and stime are
	// the 14th and 15th of the line, in clock ticks (USER_HZ, 100).
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
