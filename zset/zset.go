package zset

import (
	"bytes"
	"sort"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/skiplist"
)

// Set is a sorted set in one of Redis's two encodings:
//
//   - listpack: lp is a slice ordered by (score, member), searched linearly
//     by member like Redis's listpack (it is small by definition);
//   - skiplist: zsl orders the elements with spans for ranks, and dict maps
//     a member to its node (whose score is the member's score).
//
// The conversion listpack -> skiplist happens when an insert would pass
// zset-max-listpack-entries or add a member longer than
// zset-max-listpack-value, and is never undone, as in Redis 7.0.
type Set struct {
	lp   []Entry
	zsl  *skiplist.List
	dict *dict.Dict[*skiplist.Node]
}

// Entry is one member and its score.
type Entry struct {
	Member []byte
	Score  float64
}

// NewListpack is an empty set in the listpack encoding, with room for
// hint members.
func NewListpack(hint int) *Set { return &Set{lp: make([]Entry, 0, hint)} }

func NewSkiplist(hint int) *Set {
	return &Set{zsl: skiplist.New(), dict: dict.New[*skiplist.Node](hint)}
}

// Encoding is OBJECT ENCODING's name of the set's encoding.
func (z *Set) Encoding() string {
	if z.zsl != nil {
		return "skiplist"
	}
	return "listpack"
}

// Len is the number of members.
func (z *Set) Len() int {
	if z.zsl != nil {
		return z.zsl.Length
	}
	return len(z.lp)
}

func (z *Set) lpIndex(member []byte) int {
	for i := range z.lp {
		if bytes.Equal(z.lp[i].Member, member) {
			return i
		}
	}
	return -1
}

// Score returns member's Score.
func (z *Set) Score(member []byte) (float64, bool) {
	if z.zsl != nil {
		n, ok := z.dict.Get(dict.View(member))
		if !ok {
			return 0, false
		}
		return n.Score, true
	}
	if i := z.lpIndex(member); i >= 0 {
		return z.lp[i].Score, true
	}
	return 0, false
}

// ConvertToSkiplist moves a listpack set to the skiplist encoding.
func (z *Set) ConvertToSkiplist() {
	if z.zsl != nil {
		return
	}
	zsl := skiplist.New()
	d := dict.New[*skiplist.Node](len(z.lp))
	for _, e := range z.lp {
		n := zsl.Insert(e.Score, e.Member)
		d.Set(dict.View(e.Member), n)
	}
	z.lp, z.zsl, z.dict = nil, zsl, d
}

// Insert adds an absent member (an owned copy) with score, converting the
// encoding first if the listpack would outgrow its limits.
func (z *Set) Insert(member []byte, score float64, lim Limits) {
	if z.zsl == nil && (len(z.lp)+1 > lim.Entries || len(member) > lim.Value) {
		z.ConvertToSkiplist()
	}
	z.InsertRaw(member, score)
}

// InsertRaw adds an absent member (an owned copy) with score, in the
// encoding the set has.
func (z *Set) InsertRaw(member []byte, score float64) {
	if z.zsl != nil {
		n := z.zsl.Insert(score, member)
		z.dict.Set(string(member), n)
		return
	}
	if score == 0 {
		score = 0 // the listpack stores scores as text via d2string: -0 becomes 0
	}
	i := sort.Search(len(z.lp), func(i int) bool {
		return skiplist.Less(score, member, z.lp[i].Score, z.lp[i].Member)
	})
	z.lp = append(z.lp, Entry{})
	copy(z.lp[i+1:], z.lp[i:])
	z.lp[i] = Entry{Member: member, Score: score}
}

// SetScore changes an existing member's score.
func (z *Set) SetScore(member []byte, cur, score float64) {
	if z.zsl != nil {
		n := z.zsl.UpdateScore(cur, member, score)
		z.dict.Set(dict.View(member), n)
		return
	}
	i := z.lpIndex(member)
	m := z.lp[i].Member
	z.lp = append(z.lp[:i], z.lp[i+1:]...)
	z.InsertRaw(m, score)
}

// Remove deletes member; it reports whether it was present.
func (z *Set) Remove(member []byte) bool {
	if z.zsl != nil {
		n, ok := z.dict.Delete(dict.View(member))
		if !ok {
			return false
		}
		z.zsl.Delete(n.Score, n.Member)
		return true
	}
	i := z.lpIndex(member)
	if i < 0 {
		return false
	}
	z.lp[len(z.lp)-1], z.lp = Entry{}, append(z.lp[:i], z.lp[i+1:]...)
	return true
}

// Rank returns member's 0-based ascending Rank.
func (z *Set) Rank(member []byte) (int, float64, bool) {
	if z.zsl != nil {
		n, ok := z.dict.Get(dict.View(member))
		if !ok {
			return 0, 0, false
		}
		return z.zsl.Rank(n.Score, n.Member) - 1, n.Score, true
	}
	i := z.lpIndex(member)
	if i < 0 {
		return 0, 0, false
	}
	return i, z.lp[i].Score, true
}

// DeleteRankRange removes ranks [start, end] (0-based, valid).
func (z *Set) DeleteRankRange(start, end int) {
	if z.zsl == nil {
		n := copy(z.lp[start:], z.lp[end+1:])
		clear(z.lp[start+n:])
		z.lp = z.lp[:start+n]
		return
	}
	x := z.zsl.ByRank(start + 1)
	for i := start; i <= end && x != nil; i++ {
		next := x.Level[0].Forward
		z.dict.Delete(dict.View(x.Member))
		z.zsl.Delete(x.Score, x.Member)
		x = next
	}
}

// Cursor walks the set in rank order from a starting rank.
type Cursor struct {
	z *Set
	i int
	n *skiplist.Node
}

// Cursor starts a walk at rank.
func (z *Set) Cursor(rank int) Cursor {
	cur := Cursor{z: z, i: rank}
	if z.zsl != nil {
		cur.n = z.zsl.ByRank(rank + 1)
	}
	return cur
}

// Valid reports whether the cursor is on an element.
func (cur *Cursor) Valid() bool {
	if cur.z.zsl != nil {
		return cur.n != nil
	}
	return cur.i >= 0 && cur.i < len(cur.z.lp)
}

// Get is the element the cursor is on.
func (cur *Cursor) Get() ([]byte, float64) {
	if cur.z.zsl != nil {
		return cur.n.Member, cur.n.Score
	}
	e := &cur.z.lp[cur.i]
	return e.Member, e.Score
}

// Step moves to the next element (the previous one with rev).
func (cur *Cursor) Step(rev bool) {
	if rev {
		cur.i--
		if cur.n != nil {
			cur.n = cur.n.Backward
		}
		return
	}
	cur.i++
	if cur.n != nil {
		cur.n = cur.n.Level[0].Forward
	}
}

// FirstInScore returns the rank of the first element in r, or -1.
func (z *Set) FirstInScore(r *ScoreRange) int {
	var i int
	if z.zsl != nil {
		_, i = z.zsl.CountWhile(func(n *skiplist.Node) bool { return !r.GteMin(n.Score) })
	} else {
		i = sort.Search(len(z.lp), func(i int) bool { return r.GteMin(z.lp[i].Score) })
	}
	if i >= z.Len() {
		return -1
	}
	cur := z.Cursor(i)
	if _, sc := cur.Get(); !r.LteMax(sc) {
		return -1
	}
	return i
}

// LastInScore returns the rank of the last element in r, or -1.
func (z *Set) LastInScore(r *ScoreRange) int {
	var i int
	if z.zsl != nil {
		_, i = z.zsl.CountWhile(func(n *skiplist.Node) bool { return r.LteMax(n.Score) })
	} else {
		i = sort.Search(len(z.lp), func(i int) bool { return !r.LteMax(z.lp[i].Score) })
	}
	i--
	if i < 0 {
		return -1
	}
	cur := z.Cursor(i)
	if _, sc := cur.Get(); !r.GteMin(sc) {
		return -1
	}
	return i
}

// lexInRange is zslIsInLexRange / zzlLexIsInRange: a quick rejection on the
// first and last members.
func (z *Set) lexInRange(r *LexRange) bool {
	n := z.Len()
	if r.Empty() || n == 0 {
		return false
	}
	last := z.Cursor(n - 1)
	if m, _ := last.Get(); !r.GteMin(m) {
		return false
	}
	first := z.Cursor(0)
	m, _ := first.Get()
	return r.LteMax(m)
}

// FirstInLex returns the rank of the first element in r, or -1. The
// listpack is scanned linearly and the skiplist descended, as Redis does,
// so sets with mixed scores give Redis's (unspecified but fixed) answer.
func (z *Set) FirstInLex(r *LexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	if z.zsl != nil {
		n, i := z.zsl.CountWhile(func(n *skiplist.Node) bool { return !r.GteMin(n.Member) })
		if n == nil {
			n = z.zsl.Header
		}
		if x := n.Level[0].Forward; x == nil || !r.LteMax(x.Member) {
			return -1
		}
		return i
	}
	for i := range z.lp {
		if r.GteMin(z.lp[i].Member) {
			if r.LteMax(z.lp[i].Member) {
				return i
			}
			return -1
		}
	}
	return -1
}

// LastInLex returns the rank of the last element in r, or -1.
func (z *Set) LastInLex(r *LexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	if z.zsl != nil {
		n, i := z.zsl.CountWhile(func(n *skiplist.Node) bool { return r.LteMax(n.Member) })
		if n == nil || !r.GteMin(n.Member) {
			return -1
		}
		return i - 1
	}
	for i := len(z.lp) - 1; i >= 0; i-- {
		if r.LteMax(z.lp[i].Member) {
			if r.GteMin(z.lp[i].Member) {
				return i
			}
			return -1
		}
	}
	return -1
}

// Each calls fn for every element in ascending order.
func (z *Set) Each(fn func(member []byte, score float64) bool) {
	if z.zsl != nil {
		for x := z.zsl.Header.Level[0].Forward; x != nil; x = x.Level[0].Forward {
			if !fn(x.Member, x.Score) {
				return
			}
		}
		return
	}
	for _, e := range z.lp {
		if !fn(e.Member, e.Score) {
			return
		}
	}
}

// Clone is a deep copy in the same encoding.
func (z *Set) Clone() *Set {
	if z.zsl == nil {
		out := &Set{lp: make([]Entry, len(z.lp))}
		for i, e := range z.lp {
			out.lp[i] = Entry{Member: clone(e.Member), Score: e.Score}
		}
		return out
	}
	out := NewSkiplist(z.Len())
	z.Each(func(m []byte, sc float64) bool {
		out.InsertRaw(clone(m), sc)
		return true
	})
	return out
}

// MemUsage estimates the bytes the set holds (MEMORY USAGE).
func (z *Set) MemUsage() int64 {
	var n int64 = int64(unsafe.Sizeof(*z))
	if z.zsl == nil {
		n += int64(cap(z.lp)) * int64(unsafe.Sizeof(Entry{}))
		for _, e := range z.lp {
			n += int64(len(e.Member))
		}
		return n
	}
	n += z.dict.MemoryUsage()
	z.Each(func(m []byte, _ float64) bool {
		n += int64(len(m)) + 64
		return true
	})
	return n
}

// ToRDB is the set as an RDB value, in its encoding.
func (z *Set) ToRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncListpack, ZSet: make([]rdb.ZMember, 0, z.Len())}
	if z.zsl != nil {
		v.Encoding = rdb.EncSkiplist
	}
	z.Each(func(m []byte, sc float64) bool {
		v.ZSet = append(v.ZSet, rdb.ZMember{Member: m, Score: sc})
		return true
	})
	return v
}

// FromRDB builds a sorted set from a decoded value, in the skiplist
// encoding or the listpack one (what Redis 7.0's loader ends up with,
// rdb.LoadedEncoding).
func FromRDB(v *rdb.Value, skiplist bool) *Set {
	var z *Set
	if skiplist {
		z = NewSkiplist(len(v.ZSet))
	} else {
		z = NewListpack(len(v.ZSet))
	}
	for _, m := range v.ZSet {
		// The decoder refuses NaN scores and repeated members, except in a
		// listpack loaded without sanitizing, which Redis keeps as it is.
		if z.zsl != nil {
			if cur, ok := z.Score(m.Member); ok {
				z.SetScore(m.Member, cur, m.Score)
				continue
			}
		}
		z.InsertRaw(clone(m.Member), m.Score)
	}
	return z
}

// Limits are the listpack limits: zset-max-listpack-entries and
// zset-max-listpack-value.
type Limits struct{ Entries, Value int }

// DeleteByLexStart is the rank ZREMRANGEBYLEX starts deleting at, or -1:
// zslDeleteRangeByLex descends the skiplist without FirstInLex's range
// pre-check.
func (z *Set) DeleteByLexStart(r *LexRange) int {
	if z.zsl != nil {
		_, first := z.zsl.CountWhile(func(x *skiplist.Node) bool { return !r.GteMin(x.Member) })
		return first
	}
	return z.FirstInLex(r)
}

// Skiplist reports the skiplist encoding (else a listpack).
func (z *Set) Skiplist() bool { return z.zsl != nil }

// Rank is the 0-based rank the cursor is at.
func (cur *Cursor) Rank() int { return cur.i }

// Dict is the member index of the skiplist encoding (nil in a listpack).
func (z *Set) Dict() *dict.Dict[*skiplist.Node] { return z.dict }

// clone is an owned copy of b (never nil).
func clone(b []byte) []byte { return append([]byte{}, b...) }
