package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rdbFileOf wraps a DUMP-style value (type byte + encoding) as the only
// key of an RDB file, checksum 0 (not checked, as Redis reads it).
func rdbFileOf(key string, typ byte, body []byte) []byte {
	b := []byte("REDIS0010")
	b = append(b, 0xFE, 0x00, typ)
	b = append(b, rdbStr([]byte(key))...)
	b = append(b, body...)
	b = append(b, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0)
	return b
}

// A dump.rdb is deep-checked at load only under sanitize-dump-payload yes,
// as Redis does: a hash listpack that repeats a field loads under no (and
// reads back as Redis's does) and stops start-up under yes.
func TestLoadDumpSanitizeAsRedis(t *testing.T) {
	requireRedis(t)
	file := rdbFileOf("h", 16, rdbStr(lpOf("f", "1", "g", "2", "f", "3")))
	var got [2]string
	for i, kind := range []string{"ours", "redis"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--dir", dir, "--sanitize-dump-payload", "no"}
		var addr string
		if kind == "ours" {
			addr = startOurServer(t, args...).addr
		} else {
			addr = startRealRedis(t, args...).addr
		}
		c := dial(t, addr)
		got[i] = c.do("HLEN", "h") + c.do("HGET", "h", "g") + c.do("OBJECT", "ENCODING", "h")
	}
	if got[0] != got[1] {
		t.Fatalf("sanitize no: ours %q, redis %q", got[0], got[1])
	}
	if got[1] != ":3\r\n$1\r\n2\r\n$8\r\nlistpack\r\n" {
		t.Fatalf("redis answered %q: the scenario changed", got[1])
	}
}

// The used-mem aux field holds the memory in use when the file was saved
// (it was 0 unless maxmemory was set), so loading it logs a real size.
func TestSavedUsedMemAux(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	c.do("SET", "k", "v")
	if r := c.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	again := startOurServer(t, "--dir", ts.dir)
	logs := again.logs.String()
	if !strings.Contains(logs, "RDB memory usage when created") || strings.Contains(logs, "RDB memory usage when created 0.00 Mb") {
		t.Fatalf("load log:\n%s", logs)
	}
}
