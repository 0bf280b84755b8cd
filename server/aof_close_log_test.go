package server

import (
	"slices"
	"strings"
	"testing"
)

// CONFIG SET appendonly no logs nothing (Redis's stopAppendOnly), and
// SHUTDOWN logs "Calling fsync() on the AOF file." once (finishShutdown).
func TestAOFCloseLogLinesAsRedis(t *testing.T) {
	var got [][]string
	for _, tg := range loadingTargets(t, "--appendonly", "yes") {
		c := dial(t, tg.addr)
		c.do("SET", "a", "1")
		n := len(tg.log())
		if r := c.do("CONFIG", "SET", "appendonly", "no"); r != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET appendonly no: %q", tg.name, r)
		}
		c.do("SET", "b", "2")
		out := append([]string{"after appendonly no:"}, logTail(tg.log(), n)...)
		c.do("CONFIG", "SET", "appendonly", "yes")
		waitFor(t, tg.name+": the AOF rewrite", func() bool {
			return infoField(c, "persistence", "aof_rewrite_in_progress") == "0" &&
				infoField(c, "persistence", "aof_rewrite_scheduled") == "0" &&
				infoField(c, "persistence", "aof_enabled") == "1"
		})
		c.send("SHUTDOWN", "NOSAVE")
		waitFor(t, tg.name+": the shutdown", func() bool { return strings.Contains(tg.log(), "ready to exit") })
		out = append(out, "fsync lines: "+string(rune('0'+strings.Count(tg.log(), "Calling fsync() on the AOF file."))))
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}
