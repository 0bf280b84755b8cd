package server

import (
	"strings"
	"testing"
)

// FLUSHALL reaches the AOF even when it changed nothing, and even when
// save points make it save dump.rdb (which resets the dirty counter), as
// Redis's forceCommandPropagation does: the incr files of ours and of
// redis-server hold the same FLUSHALLs.
func TestFlushallAlwaysPropagated(t *testing.T) {
	requireRedis(t)
	var got [2]string
	for i, kind := range []string{"ours", "redis"} {
		args := []string{"--appendonly", "yes", "--save", "3600 1"}
		jt := startJobTarget(t, kind, args...)
		c := dial(t, jt.addr)
		for _, cmd := range [][]string{{"SET", "k", "v"}, {"FLUSHALL"}, {"FLUSHALL"}, {"SET", "j", "v"}, {"FLUSHALL", "SYNC"}, {"FLUSHALL"}} {
			if r := c.do(cmd...); r != "+OK\r\n" {
				t.Fatalf("%s: %v: %q", kind, cmd, r)
			}
		}
		got[i] = string(incrAOF(t, jt.dir))
	}
	if got[0] != got[1] {
		t.Fatalf("incr AOF differs:\nours:  %q\nredis: %q", got[0], got[1])
	}
	if n := strings.Count(got[1], "FLUSHALL"); n != 4 {
		t.Fatalf("redis logged %d FLUSHALLs: the scenario changed", n)
	}
}
