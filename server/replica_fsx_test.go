package server

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// TestReplicaTempRDBGoesThroughFsys: the RDB a replica receives from its
// master (disk-based sync) is written, fsynced, renamed to dump.rdb and
// loaded through the server's file system: a failure to create it is
// Redis's "Opening the temp file needed for MASTER <-> REPLICA
// synchronization" and the next attempt syncs; nothing lands in the real
// directory.
func TestReplicaTempRDBGoesThroughFsys(t *testing.T) {
	requireRedis(t)
	rr := startRealRedis(t, "--repl-diskless-sync", "no")
	m := dial(t, rr.addr)
	if r := m.do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET on the master: %q", r)
	}
	c := fsx.NewCrashFS()
	var mu sync.Mutex
	var ops []string // the ops on the temp RDB and dump.rdb
	failed := false
	ours := startOurServerWith(t, func(s *Server) {
		if err := c.MkdirAll(s.cfg.Dir); err != nil {
			t.Fatal(err)
		}
		s.testFS = c
	})
	c.SetInjector(func(op fsx.Op, path string) error {
		if !strings.HasSuffix(path, ".rdb") {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		ops = append(ops, op.String()+" "+filepath.Base(path))
		if op == fsx.OpCreate && !failed {
			failed = true
			return errors.New("injected create failure")
		}
		return nil
	})
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, ours, rr)
		}
	})
	r := dial(t, ours.addr)
	_, port, _ := net.SplitHostPort(rr.addr)
	if got := r.do("REPLICAOF", "127.0.0.1", port); got != "+OK\r\n" {
		t.Fatalf("REPLICAOF = %q", got)
	}
	eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
	if got := r.do("GET", "k"); got != "$1\r\nv\r\n" {
		t.Fatalf("GET k on the replica = %q", got)
	}
	if !strings.Contains(ours.logs.String(), "Opening the temp file needed for MASTER <-> REPLICA synchronization: injected create failure") {
		t.Fatalf("the failed create was not logged as Redis's:\n%s", ours.logs.String())
	}
	mu.Lock()
	seen := strings.Join(ops, " ")
	mu.Unlock()
	for _, op := range []string{"create temp-", "write temp-", "sync temp-", "rename temp-", "open dump.rdb", "read dump.rdb"} {
		if !strings.Contains(seen, op) {
			t.Errorf("no %s through the server's FS; ops: %s", op, seen)
		}
	}
	if data, err := c.Crash().ReadAll(filepath.Join(ours.dir, "dump.rdb")); err != nil || !strings.HasPrefix(string(data), "REDIS") {
		t.Errorf("dump.rdb is not durable after the sync: %q, %v", data, err)
	}
	names, err := c.ReadDir(ours.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "temp-") {
			t.Errorf("temp RDB %s left behind", n)
		}
	}
	real, err := os.ReadDir(ours.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range real {
		t.Errorf("%s written to the real directory", e.Name())
	}
}

// TestMasterSendsDumpThroughFsys: a master's disk-based full sync reads
// the dump.rdb its BGSAVE wrote through the server's file system (it
// opened the real directory's).
func TestMasterSendsDumpThroughFsys(t *testing.T) {
	requireRedis(t)
	c := fsx.NewCrashFS()
	ours := startOurServerWith(t, func(s *Server) {
		if err := c.MkdirAll(s.cfg.Dir); err != nil {
			t.Fatal(err)
		}
		s.testFS = c
		s.persist.Jobs.InProc = true // the BGSAVE writes through c too
	}, "--repl-diskless-sync", "no")
	m := dial(t, ours.addr)
	if r := m.do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	_, port, _ := net.SplitHostPort(ours.addr)
	rr := startRealRedis(t, "--replicaof", "127.0.0.1", port)
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, ours, rr)
		}
	})
	r := dial(t, rr.addr)
	eventually(t, "the replica to have k", func() bool { return r.do("GET", "k") == "$1\r\nv\r\n" })
	if _, err := c.ReadAll(filepath.Join(ours.dir, "dump.rdb")); err != nil {
		t.Fatalf("the BGSAVE did not write dump.rdb through the server's FS: %v", err)
	}
}
