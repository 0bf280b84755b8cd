package main

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Sharding through an existing proxy: twemproxy (Debian's nutcracker) in
// front of aofserver shards, alone or mixed with redis-server shards. The
// proxy hashes each key with fnv1a_64 onto a ketama ring; the test builds
// the same ring to name the shard every key must be on.

// twemproxyShards are the server names of the pool. Named servers put
// their name, not host:port, on the ring, so the ring does not depend on
// the free ports the shards happen to get.
var twemproxyShards = []string{"shard0", "shard1", "shard2"}

// needNutcracker is needTool for Debian's nutcracker, which is in sbin.
func needNutcracker(t *testing.T) string {
	t.Helper()
	p := "/usr/sbin/nutcracker"
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI (apt-get install nutcracker): %v", p, err)
		}
		t.Skipf("%s not installed", p)
	}
	return p
}

// twemproxyFNV1a64 is twemproxy's hash_fnv1a_64 (src/hashkit/nc_fnv.c):
// despite its name it keeps the state in 32 bits, the 64-bit offset basis
// and prime truncated, and xors each key byte as a signed char.
func twemproxyFNV1a64(key string) uint32 {
	h := uint32(0xcbf29ce484222325 & 0xffffffff)
	for i := 0; i < len(key); i++ {
		h ^= uint32(int32(int8(key[i])))
		h *= uint32(0x100000001b3 & 0xffffffff)
	}
	return h
}

type ketamaPoint struct {
	value uint32
	shard int
}

// ketamaRing is twemproxy's ketama_update (src/hashkit/nc_ketama.c) for
// servers of weight 1 that are all live (auto_eject_hosts: false): each
// server gets 160 points, four per MD5 of "<name>-<i>".
func ketamaRing(names []string) []ketamaPoint {
	const pointsPerServer = 160
	n := len(names)
	pct := float32(1) / float32(n)
	// The C computes this in float and adds a double epsilon.
	perServer := uint32(math.Floor(float64(float32(pct*pointsPerServer/4*float32(n)))+0.0000000001)) * 4
	var ring []ketamaPoint
	for s, name := range names {
		for i := uint32(0); i < perServer/4; i++ {
			sum := md5.Sum([]byte(name + "-" + strconv.FormatUint(uint64(i), 10)))
			for x := 0; x < 4; x++ {
				ring = append(ring, ketamaPoint{binary.LittleEndian.Uint32(sum[x*4:]), s})
			}
		}
	}
	sort.Slice(ring, func(i, j int) bool { return ring[i].value < ring[j].value })
	return ring
}

// shardOf is ketama_dispatch: the first point at or after the key's hash,
// wrapping to the first point.
func shardOf(ring []ketamaPoint, key string) int {
	h := twemproxyFNV1a64(key)
	i := sort.Search(len(ring), func(i int) bool { return ring[i].value >= h })
	if i == len(ring) {
		i = 0
	}
	return ring[i].shard
}

func TestKetamaRingShape(t *testing.T) {
	ring := ketamaRing(twemproxyShards)
	if len(ring) != 160*len(twemproxyShards) {
		t.Fatalf("ring has %d points, want %d", len(ring), 160*len(twemproxyShards))
	}
	// hash_fnv1a_64 of "" is the truncated offset basis.
	if h := twemproxyFNV1a64(""); h != 0x84222325 {
		t.Fatalf("fnv1a_64(\"\") = %#x", h)
	}
}

// waitPong dials addr until a PING through it answers +PONG (a proxy has
// no "ready" log line; a restarted shard answers -LOADING until its AOF is
// in), failing if the process ends first.
func waitPong(t *testing.T, addr string, done <-chan struct{}, output func() string) {
	t.Helper()
	if err := testsrv.Ping(addr, done, 15*time.Second); err != nil {
		t.Fatalf("%s does not answer PING: %v\n%s", addr, err, output())
	}
}

// startProcOn is startProc on a given port (a shard restarted where the
// proxy expects it), ready once it answers PING.
func startProcOn(t *testing.T, port int, exe string, args ...string) *proc {
	t.Helper()
	p := launchProc(t, port, exe, args...)
	waitPong(t, p.addr(), p.done, p.out.String)
	return p
}

// startTwemproxy runs nutcracker with a ketama/fnv1a_64 redis pool over
// the shards and returns its client address once it answers PING.
func startTwemproxy(t *testing.T, bin string, shards []*proc) string {
	t.Helper()
	dir := t.TempDir()
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	var conf strings.Builder
	fmt.Fprintf(&conf, "pool:\n  listen: %s\n  hash: fnv1a_64\n  distribution: ketama\n"+
		"  redis: true\n  auto_eject_hosts: false\n  timeout: 10000\n  servers:\n", listen)
	for i, s := range shards {
		fmt.Fprintf(&conf, "   - %s:1 %s\n", s.addr(), twemproxyShards[i])
	}
	confPath := filepath.Join(dir, "nutcracker.yml")
	if err := os.WriteFile(confPath, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "nutcracker.log")
	out := &syncBuf{}
	cmd := exec.Command(bin, "-c", confPath, "-o", logPath,
		"-a", "127.0.0.1", "-s", strconv.Itoa(freePort(t)))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	logs := func() string {
		b, _ := os.ReadFile(logPath)
		return conf.String() + out.String() + string(b)
	}
	waitPong(t, listen, done, logs)
	return listen
}

// readBulks reads n bulk strings of an array reply whose header do
// returned.
func (rc *respConn) readBulks(n int) ([]string, error) {
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		line, err := rc.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSuffix(line[1:], "\r\n"))
		if line[0] != '$' || err != nil {
			return nil, fmt.Errorf("array element %d: %q", i, line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		out = append(out, string(buf[:size]))
	}
	return out, nil
}

// shardKeys is KEYS * asked of one shard directly.
func shardKeys(t *testing.T, addr string) []string {
	t.Helper()
	rc := dialResp(t, addr)
	head, err := rc.do("KEYS", "*")
	if err != nil || !strings.HasPrefix(head, "*") {
		t.Fatalf("KEYS * on %s: %q %v", addr, head, err)
	}
	n, _ := strconv.Atoi(head[1:])
	keys, err := rc.readBulks(n)
	if err != nil {
		t.Fatalf("KEYS * on %s: %v", addr, err)
	}
	return keys
}

func TestTwemproxySharding(t *testing.T) {
	nutcracker := needNutcracker(t)
	bench := needTool(t, "redis-benchmark")
	real := needTool(t, "redis-server")
	ours := serverBinary(t)
	for _, tc := range []struct {
		name string
		exes []string
	}{
		{"aofserver", []string{ours, ours, ours}},
		{"mixed", []string{ours, real, ours}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			twemproxyRun(t, nutcracker, bench, tc.exes)
		})
	}
}

func twemproxyRun(t *testing.T, nutcracker, bench string, exes []string) {
	ring := ketamaRing(twemproxyShards)
	shards := make([]*proc, len(exes))
	shardArgs := make([][]string, len(exes))
	for i, exe := range exes {
		shardArgs[i] = []string{"--dir", t.TempDir(), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "yes", "--appendfsync", "always"}
		shards[i] = startProc(t, exe, shardArgs[i]...)
	}
	proxy := startTwemproxy(t, nutcracker, shards)

	// redis-benchmark exits 1 on the first error reply ("Error from
	// server: ..."); with -q each test ends in a "NAME: <n> requests per
	// second" line. Its CONFIG GET at start is refused by the proxy
	// itself, which it reports as a warning.
	tests := []string{"SET", "GET", "INCR", "LPUSH", "HSET", "SADD", "ZADD"}
	host, port, _ := net.SplitHostPort(proxy)
	out, err := exec.Command(bench, "-h", host, "-p", port, "-q", "-n", "2000", "-r", "1000",
		"-t", strings.ToLower(strings.Join(tests, ","))).CombinedOutput()
	text := strings.ReplaceAll(string(out), "\r", "\n")
	if err != nil || strings.Contains(text, "Error") {
		t.Fatalf("redis-benchmark through the proxy: %v\n%s", err, text)
	}
	for _, name := range tests {
		found := false
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, name+": ") && strings.Contains(line, "requests per second") {
				found = true
			}
		}
		if !found {
			t.Errorf("redis-benchmark output has no %s result:\n%s", name, text)
		}
	}

	// Our own keys, then every key of every shard: each must be on the
	// shard the ring names, and each shard must hold some.
	pc := dialResp(t, proxy)
	for i := 0; i < 300; i++ {
		k := "user:" + strconv.Itoa(i)
		if r, err := pc.do("SET", k, strconv.Itoa(i)); err != nil || r != "+OK" {
			t.Fatalf("SET %s through the proxy: %q %v", k, r, err)
		}
	}
	total := 0
	for i, s := range shards {
		keys := shardKeys(t, s.addr())
		if len(keys) == 0 {
			t.Errorf("%s (%s) holds no key", twemproxyShards[i], s.addr())
		}
		for _, k := range keys {
			if want := shardOf(ring, k); want != i {
				t.Errorf("key %q is on %s, the ring names %s", k, twemproxyShards[i], twemproxyShards[want])
			}
		}
		total += len(keys)
		t.Logf("%s (%s): %d keys", twemproxyShards[i], filepath.Base(exes[i]), len(keys))
	}
	if total < 300 {
		t.Errorf("%d keys on all shards, fewer than the 300 written", total)
	}

	// A second proxy, started fresh on the same servers, finds every key
	// the first one wrote.
	pc2 := dialResp(t, startTwemproxy(t, nutcracker, shards))
	for i := 0; i < 300; i++ {
		k := "user:" + strconv.Itoa(i)
		if r, err := pc2.do("GET", k); err != nil || r != strconv.Itoa(i) {
			t.Fatalf("GET %s through a second proxy: %q %v", k, r, err)
		}
	}

	twemproxyKill9(t, proxy, ring, shards, exes, shardArgs, 0)
}

// twemproxyKill9 writes through the proxy from several clients, kills
// shard victim with SIGKILL once it has acknowledged enough writes,
// restarts it from its directory on the same port and checks every write
// the proxy acknowledged for it survived (appendfsync always).
func twemproxyKill9(t *testing.T, proxy string, ring []ketamaPoint, shards []*proc, exes []string, shardArgs [][]string, victim int) {
	const writers, enough = 4, 300
	var (
		killed   atomic.Bool
		onVictim atomic.Int64
		enoughCh = make(chan struct{})
		once     sync.Once
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		acked    = make([][]string, writers) // keys on the victim, value = key
	)
	for w := 0; w < writers; w++ {
		c := dialResp(t, proxy)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := "kill:" + strconv.Itoa(w) + ":" + strconv.Itoa(i)
				r, err := c.do("SET", k, k)
				if err != nil || r != "+OK" {
					if !killed.Load() {
						t.Errorf("SET %s through the proxy before the kill: %q %v", k, r, err)
					}
					return // the proxy answers -ERR for the dead shard
				}
				if shardOf(ring, k) == victim {
					acked[w] = append(acked[w], k)
					if onVictim.Add(1) == enough {
						once.Do(func() { close(enoughCh) })
					}
				}
			}
		}(w)
	}
	select {
	case <-enoughCh:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d writes to %s acknowledged after 30 s", onVictim.Load(), twemproxyShards[victim])
	}
	killed.Store(true)
	p := shards[victim]
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	close(stop)
	wg.Wait()

	shards[victim] = startProcOn(t, p.port, exes[victim], shardArgs[victim]...)
	direct := dialResp(t, shards[victim].addr())
	through := dialResp(t, proxy)
	n := 0
	for _, keys := range acked {
		for _, k := range keys {
			n++
			if r, err := direct.do("GET", k); err != nil || r != k {
				t.Fatalf("acknowledged %s lost by the SIGKILL of %s: GET gives %q %v", k, twemproxyShards[victim], r, err)
			}
			if r, err := through.do("GET", k); err != nil || r != k {
				t.Fatalf("GET %s through the proxy after the restart: %q %v", k, r, err)
			}
		}
	}
	t.Logf("%d writes acknowledged by %s before its SIGKILL, all there after the restart", n, twemproxyShards[victim])
}
