package list

import (
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
)

// List is a list: a ring buffer deque of owned element copies, so that
// pushes and pops at both ends are amortized O(1) and LINDEX/LSET are O(1).
// Redis 7.0 always reports the "quicklist" encoding for lists, and the RDB
// encoder packs nodes from the config limits, so nothing here depends on
// list-max-listpack-size.
type List struct {
	buf  [][]byte // len is 0 or a power of two
	head int
	n    int
}

const minCap = 4

// New is an empty list.
func New() *List { return &List{} }

// Encoding is OBJECT ENCODING's name: Redis 7.0 reports "quicklist".
func (l *List) Encoding() string { return "quicklist" }

// Len is the number of elements.
func (l *List) Len() int { return l.n }

// slot is element i's index in buf.
func (l *List) slot(i int) int { return (l.head + i) & (len(l.buf) - 1) }

// At returns element i (0 = head); i must be valid.
func (l *List) At(i int) []byte { return l.buf[l.slot(i)] }

// SetAt replaces element i (0 = head); i must be valid.
func (l *List) SetAt(i int, v []byte) { l.buf[l.slot(i)] = v }

// resize copies the elements into a buffer of capacity c (a power of two
// >= l.n), head first.
func (l *List) resize(c int) {
	nb := make([][]byte, c)
	if l.n > 0 {
		if l.head+l.n <= len(l.buf) {
			copy(nb, l.buf[l.head:l.head+l.n])
		} else {
			k := copy(nb, l.buf[l.head:])
			copy(nb[k:], l.buf[:l.n-k])
		}
	}
	l.buf, l.head = nb, 0
}

// grow makes room for one more element.
func (l *List) grow() {
	if l.n < len(l.buf) {
		return
	}
	c := len(l.buf) * 2
	if c < minCap {
		c = minCap
	}
	l.resize(c)
}

// shrink releases memory once the list is a quarter full.
func (l *List) shrink() {
	if len(l.buf) > 64 && l.n < len(l.buf)/4 {
		l.resize(len(l.buf) / 2)
	}
	if l.n == 0 {
		l.head = 0
	}
}

// PushBack appends v (owned) at the tail.
func (l *List) PushBack(v []byte) {
	l.grow()
	l.buf[l.slot(l.n)] = v
	l.n++
}

// PushFront inserts v (owned) at the head.
func (l *List) PushFront(v []byte) {
	l.grow()
	l.head = (l.head - 1) & (len(l.buf) - 1)
	l.buf[l.head] = v
	l.n++
}

// PopFront removes and returns the head; the list must not be empty.
func (l *List) PopFront() []byte {
	v := l.buf[l.head]
	l.buf[l.head] = nil
	l.head = (l.head + 1) & (len(l.buf) - 1)
	l.n--
	l.shrink()
	return v
}

// PopBack removes and returns the tail; the list must not be empty.
func (l *List) PopBack() []byte {
	i := l.slot(l.n - 1)
	v := l.buf[i]
	l.buf[i] = nil
	l.n--
	l.shrink()
	return v
}

// InsertAt inserts v before element i (i == n appends).
func (l *List) InsertAt(i int, v []byte) {
	if i == 0 {
		l.PushFront(v)
		return
	}
	l.PushBack(nil)
	for j := l.n - 1; j > i; j-- {
		l.SetAt(j, l.At(j-1))
	}
	l.SetAt(i, v)
}

// Filter keeps the elements for which keep returns true, in order.
func (l *List) Filter(keep func(i int, v []byte) bool) {
	w := 0
	for r := 0; r < l.n; r++ {
		v := l.At(r)
		if keep(r, v) {
			l.SetAt(w, v)
			w++
		}
	}
	for j := w; j < l.n; j++ {
		l.SetAt(j, nil)
	}
	l.n = w
	l.shrink()
}

// Trim removes left elements from the head and right from the tail.
func (l *List) Trim(left, right int) {
	for ; left > 0; left-- {
		l.PopFront()
	}
	for ; right > 0; right-- {
		l.PopBack()
	}
}

// Each calls fn for every element from the head while it returns true.
func (l *List) Each(fn func(elem []byte) bool) {
	for i := 0; i < l.n; i++ {
		if !fn(l.At(i)) {
			return
		}
	}
}

// Clone is a deep copy.
func (l *List) Clone() *List {
	out := &List{}
	c := minCap
	for c < l.n {
		c *= 2
	}
	out.buf = make([][]byte, c)
	for i := 0; i < l.n; i++ {
		out.buf[i] = clone(l.At(i))
	}
	out.n = l.n
	return out
}

// MemUsage estimates the bytes the list holds (MEMORY USAGE).
func (l *List) MemUsage() int64 {
	n := int64(unsafe.Sizeof(*l)) + 24*int64(len(l.buf))
	l.Each(func(e []byte) bool {
		n += int64(len(e))
		return true
	})
	return n
}

// ToRDB is the list as an RDB value.
func (l *List) ToRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindList, Encoding: rdb.EncQuicklist, List: make([][]byte, 0, l.n)}
	l.Each(func(e []byte) bool {
		v.List = append(v.List, e)
		return true
	})
	return v
}

// FromRDB builds a list from a decoded value.
func FromRDB(v *rdb.Value) *List {
	l := New()
	for _, e := range v.List {
		l.PushBack(clone(e))
	}
	return l
}

// clone is an owned copy of b (never nil).
func clone(b []byte) []byte { return append([]byte{}, b...) }
