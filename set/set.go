package set

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// Set is a set in one of Redis 7.0's two encodings:
//
//   - intset: ints is sorted ascending; used while every member is a
//     canonical integer (string2ll) and there are at most
//     set-max-intset-entries of them. SMEMBERS then replies in ascending
//     order, exactly like Redis;
//   - hashtable: dict, never converted back.
type Set struct {
	ints []int64
	dict *dict.Dict[struct{}]
}

// NewIntset is an empty set in the intset encoding.
func NewIntset() *Set { return &Set{} }

// NewHashtable is an empty set in the hashtable encoding, with room for
// hint members.
func NewHashtable(hint int) *Set { return &Set{dict: dict.New[struct{}](hint)} }

// NewFor is setTypeCreate: intset if the first member is an integer.
func NewFor(first []byte) *Set {
	if _, ok := rstring.String2ll(first); ok {
		return NewIntset()
	}
	return NewHashtable(0)
}

// Encoding is OBJECT ENCODING's name of the set's encoding.
func (o *Set) Encoding() string {
	if o.dict != nil {
		return "hashtable"
	}
	return "intset"
}

// Len is the number of members.
func (o *Set) Len() int {
	if o.dict != nil {
		return o.dict.Len()
	}
	return len(o.ints)
}

func (o *Set) intIndex(v int64) (int, bool) {
	return slices.BinarySearch(o.ints, v)
}

// Contains reports whether m is a member.
func (o *Set) Contains(m []byte) bool {
	if o.dict != nil {
		_, ok := o.dict.Get(dict.View(m))
		return ok
	}
	v, ok := rstring.String2ll(m)
	if !ok {
		return false
	}
	_, found := o.intIndex(v)
	return found
}

// ConvertToHashtable moves an intset to the hashtable encoding.
func (o *Set) ConvertToHashtable() {
	if o.dict != nil {
		return
	}
	d := dict.New[struct{}](len(o.ints))
	var buf [20]byte
	for _, v := range o.ints {
		d.Set(string(strconv.AppendInt(buf[:0], v, 10)), struct{}{})
	}
	o.ints, o.dict = nil, d
}

// Add inserts m (copied); it reports whether it was new. An intset
// longer than maxIntsetEntries (set-max-intset-entries) converts.
func (o *Set) Add(m []byte, maxIntsetEntries int) bool {
	if o.dict == nil {
		if v, ok := rstring.String2ll(m); ok {
			i, found := o.intIndex(v)
			if found {
				return false
			}
			o.ints = slices.Insert(o.ints, i, v)
			if len(o.ints) > maxIntsetEntries {
				o.ConvertToHashtable()
			}
			return true
		}
		o.ConvertToHashtable()
	}
	if _, ok := o.dict.Get(dict.View(m)); ok {
		return false
	}
	o.dict.Set(string(m), struct{}{})
	return true
}

// Remove deletes m; it reports whether it was present.
func (o *Set) Remove(m []byte) bool {
	if o.dict != nil {
		_, ok := o.dict.Delete(dict.View(m))
		return ok
	}
	v, ok := rstring.String2ll(m)
	if !ok {
		return false
	}
	i, found := o.intIndex(v)
	if !found {
		return false
	}
	o.ints = slices.Delete(o.ints, i, i+1)
	return true
}

// Each calls fn for every member: ascending for an intset, table order for
// a hashtable. The slice passed is only valid during the call.
func (o *Set) Each(fn func(m []byte) bool) {
	if o.dict != nil {
		o.dict.Range(func(k string, _ *struct{}) bool {
			return fn(unsafe.Slice(unsafe.StringData(k), len(k)))
		})
		return
	}
	var buf [20]byte
	for _, v := range o.ints {
		if !fn(strconv.AppendInt(buf[:0], v, 10)) {
			return
		}
	}
}

// Random returns a Random member as an owned copy (setTypeRandomElement).
func (o *Set) Random(r *rand.Rand) []byte {
	if o.dict != nil {
		k, _, _ := o.dict.FairRandomKey(r)
		return []byte(k)
	}
	return strconv.AppendInt(nil, o.ints[r.IntN(len(o.ints))], 10)
}

// Clone is a deep copy in the same encoding.
func (o *Set) Clone() *Set {
	if o.dict == nil {
		return &Set{ints: slices.Clone(o.ints)}
	}
	out := NewHashtable(o.dict.Len())
	o.dict.Range(func(k string, _ *struct{}) bool {
		out.dict.Set(k, struct{}{})
		return true
	})
	return out
}

// MemUsage estimates the bytes the set holds (MEMORY USAGE).
func (o *Set) MemUsage() int64 {
	n := int64(unsafe.Sizeof(*o))
	if o.dict == nil {
		return n + 8*int64(cap(o.ints))
	}
	n += o.dict.MemoryUsage()
	o.dict.Range(func(k string, _ *struct{}) bool {
		n += int64(len(k))
		return true
	})
	return n
}

// ToRDB is the set as an RDB value, in its encoding.
func (o *Set) ToRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindSet, Encoding: rdb.EncIntset, Set: make([][]byte, 0, o.Len())}
	if o.dict != nil {
		v.Encoding = rdb.EncHashtable
		o.dict.Range(func(k string, _ *struct{}) bool {
			v.Set = append(v.Set, []byte(k))
			return true
		})
		return v
	}
	o.Each(func(m []byte) bool {
		v.Set = append(v.Set, clone(m))
		return true
	})
	return v
}

// FromRDB builds a set from a decoded value: an intset when intset is
// set (the encoding Redis's loader chooses, rdb.LoadedEncoding) and every
// member is an integer, else a hashtable.
func FromRDB(v *rdb.Value, intset bool) *Set {
	if intset {
		o := &Set{ints: make([]int64, 0, len(v.Set))}
		for _, m := range v.Set {
			if x, ok := rstring.String2ll(m); ok {
				o.ints = append(o.ints, x)
			}
		}
		if len(o.ints) == len(v.Set) {
			slices.Sort(o.ints)
			o.ints = slices.Compact(o.ints)
			return o
		}
	}
	o := NewHashtable(len(v.Set))
	for _, m := range v.Set {
		o.dict.Set(string(m), struct{}{})
	}
	return o
}

// Dict is the hashtable encoding's table (nil for an intset).
func (o *Set) Dict() *dict.Dict[struct{}] { return o.dict }

// clone is an owned copy of b (never nil).
func clone(b []byte) []byte { return append([]byte{}, b...) }
