package set

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestIntsetAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	o := NewIntset()
	model := map[int64]bool{}
	for op := 0; op < 5000; op++ {
		v := int64(r.IntN(400)) - 200
		m := []byte(strconv.FormatInt(v, 10))
		if r.IntN(3) == 0 {
			if o.Remove(m) != model[v] {
				t.Fatalf("remove(%d) disagrees", v)
			}
			delete(model, v)
		} else {
			if o.Add(m, 512) == model[v] {
				t.Fatalf("add(%d) disagrees", v)
			}
			model[v] = true
		}
	}
	if o.Encoding() != "intset" || o.Len() != len(model) {
		t.Fatalf("encoding %s len %d, model %d", o.Encoding(), o.Len(), len(model))
	}
	if !slices.IsSorted(o.ints) {
		t.Fatalf("intset not sorted")
	}
	for v := range model {
		if !o.Contains([]byte(strconv.FormatInt(v, 10))) {
			t.Fatalf("missing %d", v)
		}
	}
	// Non-canonical spellings are other strings, not the same integer.
	if o.Contains([]byte("+1")) || o.Contains([]byte("01")) || o.Contains([]byte("-0")) {
		t.Fatalf("non-canonical integer matched")
	}
}
