package server

import (
	"strconv"
	"testing"
)

// CONFIG SET maxmemory below the memory in use logs Redis's warning once
// and evicts at once (updateMaxmemory), on ours and on real Redis.
func TestConfigSetMaxmemoryWarnsAndEvicts(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, "--maxmemory-policy", "allkeys-random")
		c := dial(t, jt.addr)
		val := make([]byte, 1000)
		for i := 0; i < 5000; i++ {
			c.send("SET", "k"+strconv.Itoa(i), string(val))
		}
		for i := 0; i < 5000; i++ {
			c.read()
		}
		expectReply(t, jt, c, "+OK\r\n", "CONFIG", "SET", "maxmemory", "2mb")
		const warn = "WARNING: the new maxmemory value set via CONFIG SET (2097152) is smaller than the current memory usage"
		if n := jt.countLog(warn); n != 1 {
			t.Fatalf("%s: warning logged %d times:\n%s", kind, n, jt.logs())
		}
		if ev, _ := strconv.Atoi(infoField(c, "stats", "evicted_keys")); ev == 0 {
			t.Fatalf("%s: nothing evicted", kind)
		}
	})
}
