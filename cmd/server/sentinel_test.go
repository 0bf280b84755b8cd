package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Redis Sentinel 7.0 (Debian's redis-sentinel) over aofserver: three
// sentinels monitor an aofserver master with one replica (aofserver, or a
// real redis-server), the master is killed with SIGKILL, the sentinels
// promote the replica (MULTI, REPLICAOF NO ONE, CONFIG REWRITE, CLIENT
// KILL TYPE normal/pubsub, EXEC), and the old master, restarted from its
// directory, is turned into a replica of the new one and converges.
// Everything waits for events; the deadlines only bound a failure.

const sentinelMaster = "mym"

// sentinelDeadline bounds each wait: a failover needs down-after (3 s),
// an election and the promoted replica's INFO; a restarted master is
// converted only after Sentinel's 8 s grace (sentinel_publish_period*4).
const sentinelDeadline = 60 * time.Second

// waitUntil polls cond until it holds, failing with what and
// the logs after sentinelDeadline.
func waitUntil(t *testing.T, what string, logs func() string, cond func() bool) {
	t.Helper()
	testsrv.WaitForLogs(t, sentinelDeadline, what, logs, cond)
}

func cli(addr string, args ...string) string { return testsrv.Cli(addr, args...) }

func cliField(out, key string) string { return testsrv.CliField(out, key) }

func infoField(addr, section, key string) string { return testsrv.InfoField(addr, section, key) }

// sentinelNode is one redis-sentinel process.
type sentinelNode struct {
	addr string
	out  *syncBuf
}

func startSentinel(t *testing.T, exe string, masterAddr string, quorum int) *sentinelNode {
	t.Helper()
	p := testsrv.StartSentinel(t, exe, sentinelMaster, masterAddr, quorum, sentinelDeadline)
	return &sentinelNode{addr: p.Addr(), out: p.Out}
}

// serverConf writes dir/redis.conf for a data server (restartable from
// it, and the file CONFIG REWRITE rewrites).
func serverConf(t *testing.T, dir string, port int, extra string) string {
	t.Helper()
	conf := filepath.Join(dir, "redis.conf")
	text := fmt.Sprintf("bind 127.0.0.1\nport %d\ndir %s\nappendonly yes\nrepl-diskless-sync-delay 0\n%s", port, dir, extra)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}

func TestSentinelFailover(t *testing.T) {
	sentinelBin := needTool(t, "redis-sentinel")
	redisBin := needTool(t, "redis-server")
	needTool(t, "redis-cli")
	ours := serverBinary(t)
	for _, replicaKind := range []string{"aofserver", "redis-server"} {
		t.Run("replica="+replicaKind, func(t *testing.T) {
			testSentinelFailover(t, ours, redisBin, sentinelBin, replicaKind)
		})
	}
}

func testSentinelFailover(t *testing.T, ours, redisBin, sentinelBin, replicaKind string) {
	mdir, rdir := t.TempDir(), t.TempDir()
	mport, rport := freePort(t), freePort(t)
	mconf := serverConf(t, mdir, mport, "")
	master := startProcOn(t, mport, ours, mconf)
	maddr := master.addr()
	rconf := serverConf(t, rdir, rport, fmt.Sprintf("replicaof 127.0.0.1 %d\n", mport))
	rbin := ours
	if replicaKind == "redis-server" {
		rbin = redisBin
	}
	replica := startProcOn(t, rport, rbin, rconf)
	raddr := replica.addr()

	var sentinels []*sentinelNode
	logs := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "== master (%s)\n%s\n== replica (%s)\n%s\n", maddr, master.out.String(), raddr, replica.out.String())
		for i, s := range sentinels {
			fmt.Fprintf(&b, "== sentinel %d (%s)\n%s\n", i, s.addr, s.out.String())
		}
		return b.String()
	}
	for i := 0; i < 3; i++ {
		sentinels = append(sentinels, startSentinel(t, sentinelBin, maddr, 2))
	}

	// Data, with the replica in sync.
	mc := dialResp(t, maddr)
	for i := 0; i < 200; i++ {
		if r, err := mc.do("SET", "k"+strconv.Itoa(i), strconv.Itoa(i)); err != nil || r != "+OK" {
			t.Fatalf("SET: %q %v", r, err)
		}
	}
	mc.do("RPUSH", "list", "a", "b", "c")
	mc.do("SELECT", "2")
	mc.do("HSET", "h", "f", "v")
	mc.do("SELECT", "0")
	waitUntil(t, "the replica in sync", logs, func() bool {
		return infoField(raddr, "replication", "master_link_status") == "up" &&
			infoField(maddr, "replication", "master_repl_offset") == infoField(raddr, "replication", "slave_repl_offset")
	})
	want := cli(maddr, "DEBUG", "DIGEST")
	if got := cli(raddr, "DEBUG", "DIGEST"); got != want {
		t.Fatalf("replica digest %s, master %s", got, want)
	}

	// Every sentinel knows the replica and the other two sentinels (they
	// find each other through __sentinel__:hello on our pub/sub).
	for _, s := range sentinels {
		waitUntil(t, "sentinel "+s.addr+" to see the replica and the other sentinels", logs, func() bool {
			out := cli(s.addr, "SENTINEL", "MASTER", sentinelMaster)
			return cliField(out, "num-slaves") == "1" && cliField(out, "num-other-sentinels") == "2" && cliField(out, "flags") == "master"
		})
	}
	if got := cli(sentinels[0].addr, "SENTINEL", "CKQUORUM", sentinelMaster); !strings.HasPrefix(got, "OK 3 usable Sentinels") {
		t.Fatalf("CKQUORUM: %s", got)
	}

	// The master dies.
	master.stop(t, syscall.SIGKILL, 10*time.Second)
	newAddr := "127.0.0.1\n" + strconv.Itoa(rport)
	for _, s := range sentinels {
		waitUntil(t, "sentinel "+s.addr+" to name the replica master", logs, func() bool {
			return cli(s.addr, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", sentinelMaster) == newAddr
		})
	}
	waitUntil(t, "the promoted replica to report role:master", logs, func() bool {
		return infoField(raddr, "replication", "role") == "master"
	})
	// Sentinel's CONFIG REWRITE took replicaof out of the replica's file.
	waitUntil(t, "replicaof gone from the promoted replica's config file", logs, func() bool {
		b, _ := os.ReadFile(rconf)
		return !strings.Contains(string(b), "\nreplicaof ")
	})
	if got := cli(raddr, "DEBUG", "DIGEST"); got != want {
		t.Fatalf("promoted replica's digest %s, the master had %s", got, want)
	}
	if got := cli(raddr, "SET", "after-failover", "1"); got != "OK" {
		t.Fatalf("write on the new master: %s", got)
	}

	// The old master comes back from its directory: a sentinel turns it
	// into a replica of the new master (REPLICAOF + CONFIG REWRITE) and
	// it syncs.
	master = startProcOn(t, mport, ours, mconf)
	waitUntil(t, "the old master to replicate the new one", logs, func() bool {
		return infoField(maddr, "replication", "master_port") == strconv.Itoa(rport) &&
			infoField(maddr, "replication", "master_link_status") == "up" &&
			infoField(raddr, "replication", "master_repl_offset") == infoField(maddr, "replication", "slave_repl_offset")
	})
	if a, b := cli(raddr, "DEBUG", "DIGEST"), cli(maddr, "DEBUG", "DIGEST"); a != b {
		t.Fatalf("digest: new master %s, old master now replica %s", a, b)
	}
	if got := cli(maddr, "GET", "after-failover"); got != "1" {
		t.Fatalf("the old master lacks the write made after the failover: %q", got)
	}
	waitUntil(t, "replicaof in the old master's config file", logs, func() bool {
		b, _ := os.ReadFile(mconf)
		return strings.Contains(string(b), fmt.Sprintf("\nreplicaof 127.0.0.1 %d\n", rport))
	})
	for _, s := range sentinels {
		waitUntil(t, "sentinel "+s.addr+" to list the old master as a replica", logs, func() bool {
			out := cli(s.addr, "SENTINEL", "REPLICAS", sentinelMaster)
			return cliField(out, "port") == strconv.Itoa(mport) && cliField(out, "flags") == "slave" &&
				cliField(out, "master-port") == strconv.Itoa(rport) && cliField(out, "master-link-status") == "ok"
		})
		// A failover that started and did not end, or a second one,
		// would show Sentinel could not use an answer of ours.
		if l := s.out.String(); strings.Contains(l, "-failover-abort") || strings.Count(l, "+switch-master") != 1 {
			t.Fatalf("sentinel %s log:\n%s", s.addr, l)
		}
	}
}
