package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// incrBytes is what the AOF's incr files hold now.
func incrBytes(t *testing.T, s *Server) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.cfg.Dir, s.cfg.AppendDirname, "*.incr.aof"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestReplyTicketEverysecWritesBeforeReply: under everysec and no, a
// write's bytes are in the AOF file (write()n) when its reply arrives, on
// the network loop and on a connection's own goroutine alike.
func TestReplyTicketEverysecWritesBeforeReply(t *testing.T) {
	for _, pol := range []string{"everysec", "no"} {
		for _, loop := range []string{"yes", "no"} {
			t.Run(pol+"/netloop="+loop, func(t *testing.T) {
				s := startGatedServer(t, newGateFS(), "--appendfsync", pol, "--netloop", loop)
				addr := s.Addr().String()
				for i := 0; i < 30; i++ {
					v := "val-" + pol + "-" + loop + "-" + strconv.Itoa(i)
					if r := reply(t, asyncDo(t, addr, "SET", "k", v)); r != "+OK\r\n" {
						t.Fatalf("SET: %q", r)
					}
					if !strings.Contains(incrBytes(t, s), v+"\r\n") {
						t.Fatalf("SET %s answered before its bytes were written to the AOF", v)
					}
				}
			})
		}
	}
}

// TestReplyTicketAlwaysGoroutinePath: under always, on connections served
// by their own goroutines (netloop no), neither the write's reply nor a
// read revealing it leaves before the write's fsync.
func TestReplyTicketAlwaysGoroutinePath(t *testing.T) {
	g := newGateFS()
	s := startGatedServer(t, g, "--appendfsync", "always", "--netloop", "no")
	addr := s.Addr().String()
	g.closeGate()
	set := asyncDo(t, addr, "SET", "k", "v1")
	noReply(t, set, "SET")
	get := asyncDo(t, addr, "GET", "k")
	noReply(t, get, "GET revealing an unsynced write")
	g.openGate()
	if r := reply(t, set); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	if r := reply(t, get); r != "$2\r\nv1\r\n" {
		t.Fatalf("GET: %q", r)
	}
}
