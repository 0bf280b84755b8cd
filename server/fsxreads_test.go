package server

import (
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// TestDebugReloadThroughFsys: DEBUG RELOAD saves dump.rdb and reads it
// back through the server's file system (it read the real directory).
func TestDebugReloadThroughFsys(t *testing.T) {
	c := fsx.NewCrashFS()
	ts := startOurServerWith(t, func(s *Server) {
		if err := c.MkdirAll(s.cfg.Dir); err != nil {
			t.Fatal(err)
		}
		s.testFS = c
	})
	rc := dial(t, ts.addr)
	if r := rc.do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	if r := rc.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD: %q\n%s", r, ts.logs.String())
	}
	if r := rc.do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Fatalf("GET after DEBUG RELOAD: %q", r)
	}
}
