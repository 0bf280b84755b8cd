package replication

import (
	"bytes"
	"testing"
)

// The backlog keeps the newest bytes across wrap-arounds and resizes, with
// the offsets INFO and PSYNC read.
func TestBacklogWrapAndResize(t *testing.T) {
	b := NewBacklog(8, 1)
	b.Write([]byte("abcdef"))
	if got := b.From(1); string(got) != "abcdef" || b.HistLen() != 6 || b.FirstOffset() != 1 {
		t.Fatalf("got %q histlen %d first %d", got, b.HistLen(), b.FirstOffset())
	}
	b.Write([]byte("ghijk")) // wraps: holds "defghijk"
	if got := b.From(b.FirstOffset()); string(got) != "defghijk" || b.FirstOffset() != 4 {
		t.Fatalf("got %q first %d", got, b.FirstOffset())
	}
	if !b.Holds(12) || b.Holds(3) || b.Holds(13) {
		t.Fatalf("Holds wrong at first %d histlen %d", b.FirstOffset(), b.HistLen())
	}
	if got := b.From(10); string(got) != "jk" {
		t.Fatalf("From(10) = %q", got)
	}
	b.Write(bytes.Repeat([]byte("x"), 20)) // longer than the buffer
	if got := b.From(b.FirstOffset()); string(got) != "xxxxxxxx" || b.FirstOffset() != 24 {
		t.Fatalf("got %q first %d", got, b.FirstOffset())
	}
	b.Write([]byte("yz"))
	b.Resize(4)
	if got := b.From(b.FirstOffset()); string(got) != "xxyz" || b.Size() != 4 || b.FirstOffset() != 30 {
		t.Fatalf("after resize got %q size %d first %d", got, b.Size(), b.FirstOffset())
	}
	b.Resize(16)
	b.Write([]byte("12"))
	if got := b.From(30); string(got) != "xxyz12" {
		t.Fatalf("after growing got %q", got)
	}
}
