package server

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// failover.tcl's scenarios on three of our servers and on three
// redis-server 7.0.15 (real processes, so that a replica can be stopped
// with SIGSTOP): the replies, roles, resync counts and digests must agree.
func TestDiffFailover(t *testing.T) {
	requireRedis(t)
	runs := map[string][]string{}
	for _, kind := range []string{"ours", "redis"} {
		exe := ourBinary(t)
		if kind == "redis" {
			exe = testsrv.NeedRedis(t)
		}
		var nodes []*testsrv.Proc
		var cs []*respConn
		for i := 0; i < 3; i++ {
			p, tail := testsrv.StartServer(t, 20*time.Second, exe, "--dir", t.TempDir(), "--save", "", "--appendonly", "no",
				"--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
			if p == nil {
				t.Fatalf("%s did not start:\n%s", kind, tail)
			}
			nodes = append(nodes, p)
			cs = append(cs, dial(t, p.Addr()))
		}
		t.Cleanup(func() {
			if t.Failed() {
				for i, p := range nodes {
					t.Logf("%s node %d's log:\n%s", kind, i, p.Out.Tail(4000))
				}
			}
		})
		runs[kind] = failoverScenario(t, kind, nodes, cs)
	}
	o, r := runs["ours"], runs["redis"]
	if os.Getenv("FAILOVER_SHOW") != "" {
		t.Logf("%q", r)
	}
	compareSteps(t, o, r)
}

func failoverScenario(t *testing.T, kind string, nodes []*testsrv.Proc, cs []*respConn) []string {
	var out []string
	note := func(what, v string) { out = append(out, what+" "+v) }
	port := func(i int) string { return strconv.Itoa(nodes[i].Port) }
	stat := func(i int, f string) int {
		n, _ := strconv.Atoi(infoField(cs[i], "stats", f))
		return n
	}
	state := func(i int) string { return replInfo(cs[i], "master_failover_state") }
	role := func(i int) string { _, el, _ := splitRaw(cs[i].do("ROLE")); return bulkText(el[0]) }
	digests := func() string {
		d0 := cs[0].do("DEBUG", "DIGEST")
		return strconv.FormatBool(d0 == cs[1].do("DEBUG", "DIGEST") && d0 == cs[2].do("DEBUG", "DIGEST"))
	}
	waitOffsets := func(m int, rs ...int) {
		for _, r := range rs {
			eventually(t, kind+": replica in sync", func() bool {
				return replInfo(cs[r], "master_link_status") == "up" &&
					replInfo(cs[m], "master_repl_offset") == replInfo(cs[r], "slave_repl_offset")
			})
		}
	}

	note("no replicas", cs[0].do("FAILOVER", "TO", "127.0.0.1", port(1)))
	cs[1].do("REPLICAOF", "127.0.0.1", port(0))
	cs[2].do("REPLICAOF", "127.0.0.1", port(0))
	for i := 0; i < 100; i++ {
		cs[0].do("SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
	}
	waitOffsets(0, 1, 2)
	note("invalid host", cs[0].do("FAILOVER", "TO", "invalidhost", port(1)))
	note("invalid port", cs[0].do("FAILOVER", "TO", "127.0.0.1", "invalidport"))
	note("force and timeout only", cs[0].do("FAILOVER", "FORCE", "TIMEOUT", "100"))
	note("to a replica", cs[1].do("FAILOVER", "TO", "127.0.0.1", port(1)))
	note("force without timeout", cs[0].do("FAILOVER", "TO", "127.0.0.1", port(1), "FORCE"))
	note("syntax", cs[0].do("FAILOVER", "NOSUCH"))
	note("abort nothing", cs[0].do("FAILOVER", "ABORT"))

	// to a given replica: node 1 becomes master with partial resyncs only
	psync0, full0 := stat(1, "sync_partial_ok"), stat(1, "sync_full")
	note("failover to 1", cs[0].do("FAILOVER", "TO", "127.0.0.1", port(1)))
	eventually(t, kind+": failover 0 -> 1 done", func() bool { return state(0) == "no-failover" })
	cs[2].do("REPLICAOF", "127.0.0.1", port(1))
	eventually(t, kind+": node 0 a replica of node 1", func() bool { return replInfo(cs[0], "master_port") == port(1) })
	waitOffsets(1, 0, 2)
	note("roles", role(0)+" "+role(1)+" "+role(2))
	note("resyncs", strconv.Itoa(stat(1, "sync_partial_ok")-psync0)+" partial, "+strconv.Itoa(stat(1, "sync_full")-full0)+" full")
	note("digests", digests())
	note("write on the old master", cs[0].do("SET", "x", "1"))
	note("write on the new master", cs[1].do("SET", "x", "1"))

	// a replica that never catches up: TIMEOUT aborts, writes go on
	waitOffsets(1, 0, 2)
	nodes[0].Cmd.Process.Signal(syscall.SIGSTOP)
	cs[1].do("SET", "case", "1")
	note("failover with timeout", cs[1].do("FAILOVER", "TO", "127.0.0.1", port(0), "TIMEOUT", "500"))
	eventually(t, kind+": the timed-out failover over", func() bool { return state(1) == "no-failover" })
	nodes[0].Cmd.Process.Signal(syscall.SIGCONT)
	note("roles", role(0)+" "+role(1)+" "+role(2))

	// aborted by hand while it waits; reads go on meanwhile
	waitOffsets(1, 0, 2)
	nodes[0].Cmd.Process.Signal(syscall.SIGSTOP)
	cs[1].do("SET", "case", "2")
	note("failover to wait", cs[1].do("FAILOVER", "TO", "127.0.0.1", port(0), "TIMEOUT", "60000"))
	note("state", state(1))
	note("read meanwhile", cs[1].do("GET", "case"))
	note("again", cs[1].do("FAILOVER"))
	note("replicaof meanwhile", cs[1].do("REPLICAOF", "NO", "ONE"))
	note("abort", cs[1].do("FAILOVER", "ABORT"))
	note("state", state(1))
	nodes[0].Cmd.Process.Signal(syscall.SIGCONT)
	waitOffsets(1, 0, 2)
	note("roles", role(0)+" "+role(1)+" "+role(2))
	note("digests", digests())

	// to any replica: one that has the whole stream is chosen
	note("failover to any", cs[1].do("FAILOVER"))
	eventually(t, kind+": failover 1 -> any done", func() bool { return state(1) == "no-failover" && role(1) == "slave" })
	newMaster := 0
	if role(2) == "master" {
		newMaster = 2
	}
	other := 2 - newMaster
	cs[other].do("REPLICAOF", "127.0.0.1", port(newMaster))
	waitOffsets(newMaster, 1, other)
	roles := role(0) + " " + role(1) + " " + role(2)
	note("one master", strconv.FormatBool(strings.Count(roles, "master") == 1 && role(1) == "slave"))
	note("digests", digests())
	return out
}
