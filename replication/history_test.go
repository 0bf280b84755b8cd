package replication

import (
	"testing"

	"github.com/aofserver/aofserver/aof"
)

// AppendOps selects only where the DB changes and wraps two or more ops in
// MULTI/EXEC when asked; CanContinue accepts our ID, or ID2 up to where
// it ends, at an offset the backlog holds.
func TestHistoryFeedAndContinue(t *testing.T) {
	var h History
	h.Init()
	h.CreateBacklog(64)
	set := func(k string) [][]byte { return [][]byte{[]byte("SET"), []byte(k), []byte("v")} }
	buf := h.AppendOps(nil, []aof.Op{{DB: 0, Argv: set("a")}, {DB: 1, Argv: set("b")}}, true)
	want := string(AppendSelect(nil, 0)) + "*1\r\n$5\r\nMULTI\r\n" + string(aof.AppendCommand(nil, set("a"))) +
		string(AppendSelect(nil, 1)) + string(aof.AppendCommand(nil, set("b"))) + "*1\r\n$4\r\nEXEC\r\n"
	if string(buf) != want {
		t.Fatalf("got %q\nwant %q", buf, want)
	}
	h.Append(buf)
	if h.SelDB != 1 || h.Offset != int64(len(buf)) {
		t.Fatalf("SelDB %d Offset %d", h.SelDB, h.Offset)
	}
	if got := h.AppendOps(nil, []aof.Op{{DB: 1, Argv: set("c")}}, true); string(got) != string(aof.AppendCommand(nil, set("c"))) {
		t.Fatalf("same DB, one op: %q", got)
	}
	if r := h.CanContinue(h.ID, h.Offset+1); r != Continue {
		t.Fatalf("our ID at the end: %d", r)
	}
	if r := h.CanContinue("?", -1); r != AskedFull {
		t.Fatalf("?: %d", r)
	}
	old := h.ID
	h.Shift()
	if r := h.CanContinue(old, h.SecondOffset+1); r != SecondIDTooFar {
		t.Fatalf("ID2 past its end: %d", r)
	}
	if r := h.CanContinue(RandomID(), 1); r != IDMismatch {
		t.Fatalf("unknown ID: %d", r)
	}
	if r := h.CanContinue(h.ID, 0); r != NoBacklog {
		t.Fatalf("before the backlog: %d", r)
	}
}
