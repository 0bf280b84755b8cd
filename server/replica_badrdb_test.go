package server

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// replicaLoadLines are the lines a replica logs about loading the RDB
// its master sent, in order, with the figures that vary masked.
func replicaLoadLines(log string) []string {
	var out []string
	interesting := []string{"Before turning into a replica", "Connecting to MASTER", "Reconnecting to MASTER", "Trying a partial resynchronization", "Partial resynchronization not possible",
		"Discarding previously cached master state", "MASTER <-> REPLICA sync: Flushing old data", "MASTER <-> REPLICA sync: Loading DB in memory",
		"Wrong RDB checksum", "Internal error in RDB", "Short read or OOM", "Can't handle RDB format",
		"Failed trying to load the MASTER", "Terminating server"}
	lineNo := regexp.MustCompile(`rdb\.c:\d+ ->`)
	sums := regexp.MustCompile(`\([0-9a-f]+\)`)
	replID := regexp.MustCompile(`[0-9a-f]{40}|127\.0\.0\.1:\d+`)
	for _, l := range strings.Split(log, "\n") {
		for _, p := range interesting {
			if i := strings.Index(l, p); i >= 0 {
				m := lineNo.ReplaceAllString(l[i:], "rdb.c ->")
				out = append(out, replID.ReplaceAllString(sums.ReplaceAllString(m, "(x)"), "<replid>"))
				break
			}
		}
	}
	return out
}

// A replica whose master sends an RDB it cannot load has flushed its old
// data first, renamed the file to dump.rdb, and then, as Redis 7.0.15:
// corrupt content ends the process (rdbReportError while loading a file),
// an RDB version it does not handle is logged and the sync tried again.
func TestReplicaUnloadableRDBFromMaster(t *testing.T) {
	src := startOurServer(t)
	sc := dial(t, src.addr)
	sc.do("DEBUG", "POPULATE", "200")
	if r := sc.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	payload, err := os.ReadFile(filepath.Join(src.dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	badCRC := append([]byte(nil), payload...)
	badCRC[len(badCRC)-1] ^= 0x5a
	v99 := append([]byte("REDIS0099"), payload[9:]...)
	var report bytes.Buffer

	for _, c := range []struct {
		name  string
		rdb   []byte
		exits bool
	}{{"bad checksum", badCRC, true}, {"version 99", v99, false}} {
		send := func(nc net.Conn) {
			nc.Write([]byte("$" + strconv.Itoa(len(c.rdb)) + "\r\n"))
			nc.Write(c.rdb)
		}
		// Redis 7.0.15 as the replica
		fm := startFakeMaster(t)
		_, port, _ := net.SplitHostPort(fm.ln.Addr().String())
		rr := startRealRedis(t)
		r := dial(t, rr.addr)
		r.do("SET", "old", "data")
		fm.payloads <- send
		fm.payloads <- send
		r.do("REPLICAOF", "127.0.0.1", port)
		redisLog := func() string { b, _ := os.ReadFile(filepath.Join(rr.dir, "redis.log")); return string(b) }
		if c.exits {
			eventually(t, c.name+": redis-server exits", func() bool { return rr.cmd.Process.Signal(syscall.Signal(0)) != nil })
		} else {
			eventually(t, c.name+": redis-server tries again", func() bool { return fm.conns.Load() >= 2 })
			if n := r.do("DBSIZE"); n != ":0\r\n" {
				t.Fatalf("%s: redis DBSIZE %q", c.name, n)
			}
		}
		want := replicaLoadLines(redisLog())

		// ours
		fm2 := startFakeMaster(t)
		_, port2, _ := net.SplitHostPort(fm2.ln.Addr().String())
		ours := startOurServer(t)
		exit := make(chan int, 4)
		ours.s.mu.Lock()
		ours.s.exitFn = func(code int) { exit <- code }
		ours.s.persist.CheckReport = &report
		ours.s.mu.Unlock()
		o := dial(t, ours.addr)
		o.do("SET", "old", "data")
		fm2.payloads <- send
		fm2.payloads <- send
		o.do("REPLICAOF", "127.0.0.1", port2)
		if c.exits {
			eventually(t, c.name+": ours exits", func() bool { return len(exit) > 0 })
			if code := <-exit; code != 1 {
				t.Fatalf("%s: exit code %d", c.name, code)
			}
		} else {
			eventually(t, c.name+": ours tries again", func() bool { return fm2.conns.Load() >= 2 })
			if len(exit) != 0 {
				t.Fatalf("%s: ours exited", c.name)
			}
		}
		if n := o.do("DBSIZE"); n != ":0\r\n" {
			t.Fatalf("%s: ours kept its old data: DBSIZE %q", c.name, n)
		}
		if got, _ := os.ReadFile(filepath.Join(ours.dir, "dump.rdb")); !bytes.Equal(got, c.rdb) {
			t.Fatalf("%s: dump.rdb is not the RDB received (%d bytes)", c.name, len(got))
		}
		o.do("REPLICAOF", "NO", "ONE")
		got := replicaLoadLines(ours.logs.String())
		if c.exits {
			got = got[:min(len(got), len(want))] // ours goes on in tests (exitFn returns)
		} else {
			got, want = got[:min(len(got), 10)], want[:min(len(want), 10)] // the first attempt, the retry's start
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: log lines differ\nours:  %q\nredis: %q", c.name, got, want)
		}
	}
}
