package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// The power-cut harness: a server (aofserver or redis-server) runs with its
// data directory on crashfs while clients INCR their own counters and
// remember the last value acknowledged. Then: SIGSTOP the server (the
// instant the power goes), cut, SIGKILL, unmount and mount again (the
// reboot), restart the server on the same directory and GET the counters.
// lost = acknowledged - recovered (recovered > acknowledged is legal: an
// INCR made durable whose reply never arrived).
//
// By default a short subset runs (aofserver: always and everysec under
// load, always with the cut landing in the manifest swap, strict).
// CRASHFS_POWERLOSS=full runs the whole matrix for both servers and prints
// the table (scripts/powerloss.sh).

type scenario string

const rewriteKeys = 20000

const (
	scLoad    scenario = "load"
	scRewrite scenario = "mid-rewrite"
	scSwap    scenario = "manifest-swap"
	scFresh   scenario = "fresh-start" // load, no checkpoint sync first
)

type plCase struct {
	server  string // "aofserver" or "redis"
	policy  string
	clients int
	sc      scenario
	strict  bool
	// inflight > 1: aof-group-commit-inflight (aofserver), fsyncs that
	// overlap, across a rotation in the mid-rewrite scenario.
	inflight int
}

type plResult struct {
	plCase
	acked, recovered, lost int64
	opsPerSec              float64
	lostSec                float64
	droppedBytes           string
	restartErr             string
	note                   string
}

func (r plResult) row() string {
	mode := "default"
	if r.strict {
		mode = "strict"
	}
	note := r.note
	if r.inflight > 1 {
		note = strings.TrimSpace(fmt.Sprintf("aof-group-commit-inflight %d %s", r.inflight, note))
	}
	rec, lost, secs := strconv.FormatInt(r.recovered, 10), strconv.FormatInt(r.lost, 10), fmt.Sprintf("%.3f", r.lostSec)
	if r.restartErr != "" {
		rec, lost, secs = "RESTART FAILED", "-", "-"
	}
	return fmt.Sprintf("| %-9s | %-8s | %2d | %-13s | %-7s | %8d | %14s | %6s | %7s | %8.0f | %8s | %s |",
		r.server, r.policy, r.clients, r.sc, mode, r.acked, rec, lost, secs, r.opsPerSec, r.droppedBytes, note)
}

const plHeader = "| server    | policy   | cl | scenario      | fs      | acked    | recovered      | lost   | lost s  | ops/s    | dropped  | note |\n" +
	"|-----------|----------|----|---------------|---------|----------|----------------|--------|---------|----------|----------|------|"

func TestPowerLoss(t *testing.T) {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	needFUSE(t, err)
	f.Close()
	// The full matrix (aofserver and redis side by side) is what CI runs;
	// -short keeps a quick aofserver-only subset for local iterations.
	full := !testing.Short() || os.Getenv("CRASHFS_POWERLOSS") == "full"
	crashfs, aofserver := binaries(t)
	exes := map[string]string{"aofserver": aofserver}
	servers := []string{"aofserver"}
	var cases []plCase
	if full {
		exes["redis"] = needRedis(t, "redis-server")
		servers = append(servers, "redis")
		for _, srv := range servers {
			for _, p := range []string{"always", "everysec", "no"} {
				for _, cl := range []int{1, 8} {
					cases = append(cases, plCase{server: srv, policy: p, clients: cl, sc: scLoad})
				}
			}
		}
		for _, srv := range servers {
			cases = append(cases,
				plCase{server: srv, policy: "always", clients: 8, sc: scLoad, strict: true},
				plCase{server: srv, policy: "always", clients: 8, sc: scFresh, strict: true},
				plCase{server: srv, policy: "always", clients: 4, sc: scRewrite},
				plCase{server: srv, policy: "everysec", clients: 4, sc: scRewrite},
				plCase{server: srv, policy: "always", clients: 4, sc: scSwap, strict: true})
		}
		cases = append(cases,
			plCase{server: "aofserver", policy: "always", clients: 8, sc: scLoad, strict: true, inflight: 4},
			plCase{server: "aofserver", policy: "always", clients: 8, sc: scRewrite, inflight: 4})
	} else {
		cases = []plCase{
			{server: "aofserver", policy: "always", clients: 8, sc: scLoad},
			{server: "aofserver", policy: "everysec", clients: 8, sc: scLoad},
			{server: "aofserver", policy: "always", clients: 4, sc: scSwap, strict: true},
		}
	}
	start := time.Now()
	var rows []string
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s/%dcl/%s", c.server, c.policy, c.clients, c.sc)
		if c.strict {
			name += "/strict"
		}
		if c.inflight > 1 {
			name += fmt.Sprintf("/inflight%d", c.inflight)
		}
		t.Run(name, func(t *testing.T) {
			r := powerCut(t, crashfs, exes[c.server], c)
			rows = append(rows, r.row())
			t.Log(r.row())
			if r.restartErr != "" {
				t.Fatalf("%s did not restart after the cut:\n%s", c.server, r.restartErr)
			}
			if c.server != "aofserver" {
				return // Redis's losses are reported, not asserted
			}
			if c.policy == "always" && r.lost != 0 {
				t.Errorf("appendfsync always lost %d acknowledged writes", r.lost)
			}
			if c.policy == "everysec" && r.lostSec > 2 {
				t.Errorf("appendfsync everysec lost %.2f s of writes (> 2 s)", r.lostSec)
			}
		})
	}
	t.Logf("power-cut table (%d runs, %.1f s):\n%s\n%s", len(rows), time.Since(start).Seconds(), plHeader, strings.Join(rows, "\n"))
}

func powerCut(t *testing.T, crashfsExe, exe string, c plCase) plResult {
	res := plResult{plCase: c}
	dir := t.TempDir()
	backing, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var flags []string
	if c.strict {
		flags = append(flags, "--strict")
	}
	m := startCrashMount(t, crashfsExe, backing, mnt, flags...)
	args := []string{"--dir", mnt, "--appendonly", "yes", "--appendfsync", c.policy, "--save", "",
		"--enable-debug-command", "yes"}
	if c.inflight > 1 {
		args = append(args, "--aof-group-commit-inflight", strconv.Itoa(c.inflight))
	}
	srv, out := startServer(t, exe, args...)
	if srv == nil {
		t.Fatalf("server did not start on crashfs:\n%s", out)
	}
	admin, err := dialResp(srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if c.sc != scLoad {
		// Keys, and a rewrite that lasts ~2 s: rdb-key-save-delay is a
		// sleep per key, in microseconds, and no sleep is shorter than
		// ~50-100 µs (Redis's negative, statistical delays have no
		// counterpart in aofserver), hence 20k keys rather than 200k.
		mustDo(t, admin, "DEBUG", "POPULATE", strconv.Itoa(rewriteKeys))
		// aofserver interleaves its snapshot with the event loop and
		// pays far more per key than Redis's forked child: a smaller
		// delay gives both a rewrite of a few seconds.
		delay := "50"
		if c.server == "aofserver" {
			delay = "5"
		}
		mustDo(t, admin, "CONFIG", "SET", "rdb-key-save-delay", delay)
	}
	// The server has been running a while: what it created at startup
	// (appendonlydir, the first manifest) has reached the disk. Not so
	// for fresh-start: the cut comes once loadAcks INCRs were acknowledged
	// after the first start, and in strict mode only what the server
	// fsynced (files and directories) is there.
	if c.sc != scFresh {
		m.ctl(t, "sync")
	}

	fsyncs0 := fsyncCount(t, m)
	acked := make([]atomic.Int64, c.clients)
	var wg sync.WaitGroup
	for i := 0; i < c.clients; i++ {
		rc, err := dialResp(srv.addr())
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int, rc *respConn) {
			defer wg.Done()
			defer rc.Close()
			key := "counter:" + strconv.Itoa(i)
			for {
				r, err := rc.do(30*time.Second, "INCR", key)
				if err != nil {
					return // the server is gone
				}
				n, err := strconv.ParseInt(strings.TrimPrefix(r, ":"), 10, 64)
				if err != nil || !strings.HasPrefix(r, ":") {
					return // e.g. an error reply after a failed write
				}
				acked[i].Store(n)
			}
		}(i, rc)
	}
	loadStart := time.Now()
	var cutAt time.Time
	switch c.sc {
	case scLoad, scFresh:
		waitAcked(t, srv, acked, loadAcks)
		if c.policy == "everysec" {
			// Cut after a background fsync, with writes since: the loss
			// is what came after the last fsync, not the whole load.
			waitFsync(t, m, srv, fsyncs0)
			waitAcked(t, srv, acked, sumAcked(acked)+afterFsyncAcks)
		}
		cutAt = manualCut(t, m, srv)
	case scRewrite:
		waitAcked(t, srv, acked, preRewriteAcks)
		mustDo(t, admin, "BGREWRITEAOF")
		waitRewrite(t, admin)
		// Cut once clients' writes went to the new incr file meanwhile.
		waitAcked(t, srv, acked, sumAcked(acked)+duringRewriteAcks)
		info := mustDo(t, admin, "INFO", "persistence")
		if !strings.Contains(info, "aof_rewrite_in_progress:1") {
			res.note = "rewrite ended before the cut"
		}
		cutAt = manualCut(t, m, srv)
	case scSwap:
		waitAcked(t, srv, acked, preRewriteAcks)
		mustDo(t, admin, "BGREWRITEAOF")
		waitRewrite(t, admin)
		m.ctl(t, "cut-on-rename *.manifest*")
		deadline := time.Now().Add(60 * time.Second)
		for statusField(m.ctl(t, "status"), "cuts") != "1" {
			if time.Now().After(deadline) || srv.exited() {
				t.Fatalf("no manifest rename within 60 s (exited %v):\n%s\n%s", srv.exited(), m.ctl(t, "status"), srv.out.Tail(3000))
			}
			time.Sleep(5 * time.Millisecond)
		}
		cutAt = time.Now()
		res.note = "cut at the manifest rename"
		if !srv.waitStopped(5 * time.Second) {
			// crashfs SIGSTOPs the renaming process; rarely (about 1 run in
			// 20 here) the server is not seen stopped. The cut has happened
			// either way: stop it now, or keep what it left if it exited.
			// Whatever it acknowledged after the cut had to be fsynced on
			// cut files, so the loss check below still holds.
			states, _ := exec.Command("sh", "-c", fmt.Sprintf("cat /proc/%d/task/*/stat 2>/dev/null | awk '{print $2, $3}'", srv.cmd.Process.Pid)).CombinedOutput()
			t.Logf("server not stopped by the cut-on-rename (exited %v); threads:\n%s", srv.exited(), states)
			if !srv.exited() {
				srv.cmd.Process.Signal(syscall.SIGSTOP)
				if !srv.waitStopped(5 * time.Second) {
					t.Fatal("server did not stop")
				}
			}
			res.note += " (stopped by the harness)"
		}
	}
	loadDur := cutAt.Sub(loadStart).Seconds()
	// Replies sent before the stop may still be on their way.
	time.Sleep(100 * time.Millisecond)
	res.acked = sumAcked(acked)
	res.droppedBytes = statusField(m.ctl(t, "status"), "last_cut_dropped_bytes")
	srv.kill()
	admin.Close()
	wg.Wait()
	if res.acked == 0 {
		t.Fatalf("no INCR acknowledged before the cut:\n%s", srv.out.Tail(3000))
	}
	res.opsPerSec = float64(res.acked) / loadDur

	cutLog := m.p.out.Tail(3000)
	m.reboot(t)
	srv2, out := startServer(t, exe, args...)
	if srv2 == nil {
		// Enough to tell a server bug from a crashfs one next time: what
		// the cut did, and the files it left.
		res.restartErr = out + "\n-- server before the cut:\n" + srv.out.Tail(2000) +
			"\n-- crashfs before the reboot:\n" + cutLog + "\n-- files after the cut:\n" + describeFiles(m.backing)
		return res
	}
	defer srv2.kill()
	rc, err := dialResp(srv2.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	for i := range acked {
		r, err := rc.do(10*time.Second, "GET", "counter:"+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if r != "$-1" {
			if got, err = strconv.ParseInt(r, 10, 64); err != nil {
				t.Fatalf("GET counter:%d = %q", i, r)
			}
		}
		res.recovered += got
		a := acked[i].Load()
		if got < a {
			res.lost += a - got
		}
		if got > a+1 {
			res.note = strings.TrimSpace(res.note + fmt.Sprintf(" counter:%d recovered %d > acked %d + 1", i, got, a))
		}
	}
	res.lostSec = float64(res.lost) / res.opsPerSec
	return res
}

// manualCut: SIGSTOP the server, wait until it is stopped, cut.
func manualCut(t *testing.T, m *crashMount, srv *server) time.Time {
	t.Helper()
	srv.cmd.Process.Signal(syscall.SIGSTOP)
	at := time.Now()
	if !srv.waitStopped(5 * time.Second) {
		t.Fatal("server did not stop")
	}
	m.ctl(t, "cut")
	return at
}

// The load before a cut, counted in acknowledged INCRs (all clients): the
// cut of load and fresh-start (under everysec, then afterFsyncAcks more
// after a background fsync); before a BGREWRITEAOF; during one, before its
// cut.
const (
	loadAcks          = 1000
	afterFsyncAcks    = 100
	preRewriteAcks    = 200
	duringRewriteAcks = 100
)

// waitAcked waits until the clients have had n INCRs acknowledged in all
// (the 60 s deadline only turns a hang into a failure).
func waitAcked(t *testing.T, srv *server, acked []atomic.Int64, n int64) {
	t.Helper()
	testsrv.Poll(60*time.Second, func() bool { return sumAcked(acked) >= n || srv.exited() })
	if sumAcked(acked) < n {
		t.Fatalf("%d of %d INCRs acknowledged (exited %v):\n%s", sumAcked(acked), n, srv.exited(), srv.out.Tail(3000))
	}
}

// fsyncCount is crashfs's count of fsync and fdatasync calls.
func fsyncCount(t *testing.T, m *crashMount) int64 {
	t.Helper()
	n, err := strconv.ParseInt(statusField(m.ctl(t, "status"), "fsyncs"), 10, 64)
	if err != nil {
		t.Fatalf("crashfs status: fsyncs: %v", err)
	}
	return n
}

// waitFsync waits until a file was fsynced since crashfs counted n (the
// 60 s deadline only turns a hang into a failure).
func waitFsync(t *testing.T, m *crashMount, srv *server, n int64) {
	t.Helper()
	testsrv.Poll(60*time.Second, func() bool { return fsyncCount(t, m) > n || srv.exited() })
	if fsyncCount(t, m) <= n {
		t.Fatalf("no fsync in 60 s (exited %v):\n%s", srv.exited(), srv.out.Tail(3000))
	}
}

func sumAcked(acked []atomic.Int64) int64 {
	var n int64
	for i := range acked {
		n += acked[i].Load()
	}
	return n
}

func waitRewrite(t *testing.T, admin *respConn) {
	t.Helper()
	testsrv.WaitFor(t, 10*time.Second, "BGREWRITEAOF to start", func() bool {
		return strings.Contains(mustDo(t, admin, "INFO", "persistence"), "aof_rewrite_in_progress:1")
	})
}

// describeFiles lists every regular file under root with its inode and
// size, and prints the manifests, for a failed restart's report.
func describeFiles(root string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		var ino uint64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		fmt.Fprintf(&b, "%s ino=%d size=%d\n", rel, ino, fi.Size())
		if strings.Contains(fi.Name(), "manifest") {
			if c, err := os.ReadFile(p); err == nil {
				fmt.Fprintf(&b, "%s", c)
			}
		}
		return nil
	})
	return b.String()
}
