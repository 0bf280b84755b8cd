package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// redis-cli --functions-rdb asks (REPLCONF rdb-filter-only functions) for
// an RDB with the function libraries and no keys: from ours as from real
// Redis, and real Redis loads the file to the libraries alone.
func TestRedisCliFunctionsRdb(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind)
		c := dial(t, jt.addr)
		c.do("SET", "k", "v")
		lib := "#!lua name=mylib\nredis.register_function('f', function() return 1 end)"
		expectReply(t, jt, c, "$5\r\nmylib\r\n", "FUNCTION", "LOAD", lib)
		file := filepath.Join(t.TempDir(), "f.rdb")
		_, port, _ := strings.Cut(jt.addr, ":")
		if out, err := exec.Command("redis-cli", "-p", port, "--functions-rdb", file).CombinedOutput(); err != nil {
			t.Fatalf("%s: redis-cli --functions-rdb: %v\n%s", kind, err, out)
		}
		dir := t.TempDir()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "dump.rdb"), b, 0o644)
		rc := dial(t, startRealRedis(t, "--dir", dir).addr)
		if n := rc.do("DBSIZE"); n != ":0\r\n" {
			t.Fatalf("%s: the functions RDB holds keys: DBSIZE %q", kind, n)
		}
		if r := rc.do("FCALL", "f", "0"); r != ":1\r\n" {
			t.Fatalf("%s: the functions RDB lacks the library: FCALL %q", kind, r)
		}
	})
}
