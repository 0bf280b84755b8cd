package hash

import (
	"strings"
	"testing"
)

func fields(h *Hash) string {
	var out []string
	h.Each(func(f, v []byte) bool {
		out = append(out, string(f)+"="+string(v))
		return true
	})
	return strings.Join(out, " ")
}

// A listpack keeps insertion order: an update keeps the field's place, a
// delete closes the gap; passing a limit converts for good.
func TestListpackOrderAndConversion(t *testing.T) {
	lim := Limits{Entries: 3, Value: 8}
	h := NewListpack()
	for _, p := range [][2]string{{"b", "1"}, {"a", "2"}, {"c", "3"}, {"a", "4"}} {
		h.Set([]byte(p[0]), []byte(p[1]), lim)
	}
	h.Remove([]byte("b"))
	if got := fields(h); got != "a=4 c=3" || h.Encoding() != "listpack" {
		t.Fatalf("%s: %q", h.Encoding(), got)
	}
	h.Set([]byte("d"), []byte("123456789"), lim) // value past hash-max-listpack-value
	if h.Encoding() != "hashtable" || h.Len() != 3 {
		t.Fatalf("after a long value: %s/%d", h.Encoding(), h.Len())
	}
	h.Remove([]byte("d"))
	if h.Encoding() != "hashtable" {
		t.Fatal("converted back")
	}
	if v, ok := h.Get([]byte("a")); !ok || string(v) != "4" {
		t.Fatalf("a = %q, %v", v, ok)
	}
}
