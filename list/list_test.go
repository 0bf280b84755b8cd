package list

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aofserver/aofserver/rdb"
)

func TestDequeAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	l := New()
	var m [][]byte
	for op := 0; op < 50000; op++ {
		v := []byte(fmt.Sprint(op))
		switch r.IntN(9) {
		case 0, 1:
			l.PushBack(v)
			m = append(m, v)
		case 2, 3:
			l.PushFront(v)
			m = append([][]byte{v}, m...)
		case 4:
			if len(m) > 0 {
				if got := l.PopFront(); !bytes.Equal(got, m[0]) {
					t.Fatalf("popFront %q want %q", got, m[0])
				}
				m = m[1:]
			}
		case 5:
			if len(m) > 0 {
				if got := l.PopBack(); !bytes.Equal(got, m[len(m)-1]) {
					t.Fatalf("popBack %q want %q", got, m[len(m)-1])
				}
				m = m[:len(m)-1]
			}
		case 6:
			i := r.IntN(len(m) + 1)
			l.InsertAt(i, v)
			m = append(m[:i], append([][]byte{v}, m[i:]...)...)
		case 7:
			if len(m) > 0 && r.IntN(20) == 0 {
				drop := r.IntN(3)
				var nm [][]byte
				for i, e := range m {
					if i%3 != drop {
						nm = append(nm, e)
					}
				}
				l.Filter(func(i int, _ []byte) bool { return i%3 != drop })
				m = nm
			}
		case 8:
			if len(m) > 0 {
				i := r.IntN(len(m))
				l.SetAt(i, v)
				m[i] = v
			}
		}
		if l.Len() != len(m) {
			t.Fatalf("op %d: length %d want %d", op, l.Len(), len(m))
		}
		if len(l.buf) != 0 && len(l.buf)&(len(l.buf)-1) != 0 {
			t.Fatalf("capacity %d not a power of two", len(l.buf))
		}
	}
	for i := range m {
		if !bytes.Equal(l.At(i), m[i]) {
			t.Fatalf("element %d = %q want %q", i, l.At(i), m[i])
		}
	}
	// Draining shrinks the buffer again.
	l.Trim(l.Len(), 0)
	if l.Len() != 0 || len(l.buf) > 128 {
		t.Fatalf("after trim: len %d cap %d", l.Len(), len(l.buf))
	}
}

func TestCloneAndRDB(t *testing.T) {
	l := New()
	for i := 0; i < 10; i++ {
		l.PushBack([]byte(fmt.Sprint(i)))
	}
	l.PopFront()
	l.PushFront([]byte("x"))
	cl := l.Clone()
	cl.SetAt(0, []byte("changed"))
	cl.At(1)[0] = 'Z'
	if string(l.At(0)) != "x" || string(l.At(1)) != "1" {
		t.Fatalf("clone shares storage with the original")
	}
	v := l.ToRDB()
	if v.Kind != rdb.KindList || v.Encoding != rdb.EncQuicklist || len(v.List) != 10 {
		t.Fatalf("toRDB = %+v", v)
	}
	back := FromRDB(v)
	for i := 0; i < l.Len(); i++ {
		if !bytes.Equal(back.At(i), l.At(i)) {
			t.Fatalf("round trip element %d", i)
		}
	}
	if l.Encoding() != "quicklist" {
		t.Fatalf("encoding %q", l.Encoding())
	}
}
