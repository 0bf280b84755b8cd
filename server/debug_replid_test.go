package server

import (
	"strings"
	"testing"
)

// DEBUG CHANGE-REPL-ID gives a new replication ID and clears ID2, logged
// as Redis logs it, on ours and on real Redis.
func TestDebugChangeReplID(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind)
		c := dial(t, jt.addr)
		before := infoField(c, "replication", "master_replid")
		expectReply(t, jt, c, "+OK\r\n", "DEBUG", "CHANGE-REPL-ID")
		after := infoField(c, "replication", "master_replid")
		if len(after) != 40 || after == before {
			t.Fatalf("%s: master_replid %q -> %q", kind, before, after)
		}
		if id2 := infoField(c, "replication", "master_replid2"); id2 != strings.Repeat("0", 40) {
			t.Fatalf("%s: master_replid2 %q", kind, id2)
		}
		if n := jt.countLog("Changing replication IDs after receiving DEBUG change-repl-id"); n != 1 {
			t.Fatalf("%s: logged %d times", kind, n)
		}
	})
}
