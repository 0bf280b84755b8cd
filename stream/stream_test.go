package stream

import (
	"fmt"
	"testing"
)

// Nodes close at stream-node-max-entries, "~" trimming removes whole nodes
// only, exact trimming tombstones inside the first node, and a range walk
// sees the live entries in order.
func TestNodesAndTrim(t *testing.T) {
	s := New()
	lim := NodeLimits{MaxEntries: 100, MaxBytes: 1 << 20}
	for i := 1; i <= 250; i++ {
		s.AppendItem(ID{Ms: uint64(i), Seq: 0}, [][]byte{[]byte("f"), []byte(fmt.Sprint(i))}, lim)
	}
	if s.LengthInt() != 250 || len(s.Nodes) != 3 {
		t.Fatalf("length %d, %d nodes; want 250 in 3", s.LengthInt(), len(s.Nodes))
	}
	if n := s.Trim(&TrimArgs{Strategy: TrimMaxlen, Maxlen: 120, Approx: true}); n != 100 || s.LengthInt() != 150 {
		t.Fatalf("MAXLEN ~ 120 removed %d, left %d; want 100, 150", n, s.LengthInt())
	}
	if n := s.Trim(&TrimArgs{Strategy: TrimMaxlen, Maxlen: 120}); n != 30 || s.FirstID != (ID{Ms: 131}) {
		t.Fatalf("MAXLEN 120 removed %d, first %v; want 30, 131-0", n, s.FirstID)
	}
	if !s.DeleteItem(ID{Ms: 140}) || s.DeleteItem(ID{Ms: 140}) {
		t.Fatal("XDEL of 140-0: deleted twice or not at all")
	}
	var got []string
	s.RangeFwd(ID{Ms: 138}, ID{Ms: 142}, func(nd *Node, e *Entry) bool {
		got = append(got, e.ID.String())
		return true
	})
	if fmt.Sprint(got) != "[138-0 139-0 141-0 142-0]" {
		t.Fatalf("range 138..142: %v", got)
	}
}
