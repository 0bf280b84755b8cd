package hash

import (
	"bytes"
	"math/rand/v2"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rdb"
)

// Hash is a hash in one of Redis 7.0's two encodings:
//
//   - listpack: lp holds field/value pairs in insertion order (an update
//     keeps the field's place, a delete closes the gap), which is the order
//     HGETALL/HKEYS/HVALS/HSCAN reply in Redis;
//   - hashtable: dict, used once the hash has more than
//     hash-max-listpack-entries fields or any field or value longer than
//     hash-max-listpack-value bytes, and never converted back.
type Hash struct {
	lp   [][2][]byte
	dict *dict.Dict[[]byte]
}

// NewListpack is an empty hash in the listpack encoding.
func NewListpack() *Hash { return &Hash{} }

// Encoding is OBJECT ENCODING's name of the hash's encoding.
func (h *Hash) Encoding() string {
	if h.dict != nil {
		return "hashtable"
	}
	return "listpack"
}

// Len is the number of fields.
func (h *Hash) Len() int {
	if h.dict != nil {
		return h.dict.Len()
	}
	return len(h.lp)
}

func (h *Hash) lpIndex(field []byte) int {
	for i := range h.lp {
		if bytes.Equal(h.lp[i][0], field) {
			return i
		}
	}
	return -1
}

// Get returns field's value (not a copy).
func (h *Hash) Get(field []byte) ([]byte, bool) {
	if h.dict != nil {
		return h.dict.Get(dict.View(field))
	}
	if i := h.lpIndex(field); i >= 0 {
		return h.lp[i][1], true
	}
	return nil, false
}

// ConvertToHashtable moves a listpack hash to the hashtable encoding.
func (h *Hash) ConvertToHashtable() {
	if h.dict != nil {
		return
	}
	d := dict.New[[]byte](len(h.lp))
	for _, p := range h.lp {
		d.Set(string(p[0]), p[1])
	}
	h.lp, h.dict = nil, d
}

// Set stores field=value (both copied) as hashTypeSet does, converting the
// encoding when a limit is passed. It reports whether the field is new.
func (h *Hash) Set(field, value []byte, lim Limits) bool {
	if h.dict == nil && (len(field) > lim.Value || len(value) > lim.Value) {
		h.ConvertToHashtable()
	}
	if h.dict != nil {
		if p := h.dict.GetPtr(dict.View(field)); p != nil {
			*p = clone(value)
			return false
		}
		h.dict.Set(string(field), clone(value))
		return true
	}
	if i := h.lpIndex(field); i >= 0 {
		h.lp[i][1] = clone(value)
		return false
	}
	h.lp = append(h.lp, [2][]byte{clone(field), clone(value)})
	if len(h.lp) > lim.Entries {
		h.ConvertToHashtable()
	}
	return true
}

// Remove deletes field; it reports whether it was present.
func (h *Hash) Remove(field []byte) bool {
	if h.dict != nil {
		_, ok := h.dict.Delete(dict.View(field))
		return ok
	}
	i := h.lpIndex(field)
	if i < 0 {
		return false
	}
	copy(h.lp[i:], h.lp[i+1:])
	h.lp[len(h.lp)-1] = [2][]byte{}
	h.lp = h.lp[:len(h.lp)-1]
	return true
}

// Each calls fn for every pair in HGETALL order.
func (h *Hash) Each(fn func(field, value []byte) bool) {
	if h.dict != nil {
		h.dict.Range(func(k string, v *[]byte) bool {
			return fn(unsafe.Slice(unsafe.StringData(k), len(k)), *v)
		})
		return
	}
	for _, p := range h.lp {
		if !fn(p[0], p[1]) {
			return
		}
	}
}

// Random returns a Random pair (not copies).
func (h *Hash) Random(r *rand.Rand) (field, value []byte) {
	if h.dict != nil {
		k, v, _ := h.dict.FairRandomKey(r)
		return []byte(k), *v
	}
	p := h.lp[r.IntN(len(h.lp))]
	return p[0], p[1]
}

// Clone is a deep copy in the same encoding.
func (h *Hash) Clone() *Hash {
	if h.dict == nil {
		out := &Hash{lp: make([][2][]byte, len(h.lp))}
		for i, p := range h.lp {
			out.lp[i] = [2][]byte{clone(p[0]), clone(p[1])}
		}
		return out
	}
	out := &Hash{dict: dict.New[[]byte](h.dict.Len())}
	h.dict.Range(func(k string, v *[]byte) bool {
		out.dict.Set(k, clone(*v))
		return true
	})
	return out
}

// MemUsage estimates the bytes the hash holds (MEMORY USAGE).
func (h *Hash) MemUsage() int64 {
	n := int64(unsafe.Sizeof(*h))
	if h.dict == nil {
		n += int64(cap(h.lp)) * 48
	} else {
		n += h.dict.MemoryUsage()
	}
	h.Each(func(f, v []byte) bool {
		n += int64(len(f) + len(v))
		return true
	})
	return n
}

// ToRDB is the hash as an RDB value, in its encoding.
func (h *Hash) ToRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindHash, Encoding: rdb.EncListpack, Hash: make([][2][]byte, 0, h.Len())}
	if h.dict != nil {
		v.Encoding = rdb.EncHashtable
	}
	h.Each(func(f, val []byte) bool {
		v.Hash = append(v.Hash, [2][]byte{f, val})
		return true
	})
	return v
}

// FromRDB builds a hash from a decoded value, in the hashtable encoding
// or the listpack one (what Redis 7.0's loader ends up with,
// rdb.LoadedEncoding); pairs keep the file's order in a listpack.
func FromRDB(v *rdb.Value, hashtable bool) *Hash {
	h := NewListpack()
	if hashtable {
		h.dict = dict.New[[]byte](len(v.Hash))
		for _, p := range v.Hash {
			h.dict.Set(string(p[0]), clone(p[1]))
		}
		return h
	}
	// The decoder refused repeated fields except where Redis keeps them
	// (a listpack loaded without sanitizing): keep them as Redis does.
	h.lp = make([][2][]byte, 0, len(v.Hash))
	for _, p := range v.Hash {
		h.lp = append(h.lp, [2][]byte{clone(p[0]), clone(p[1])})
	}
	return h
}

// Limits are the listpack limits: hash-max-listpack-entries and
// hash-max-listpack-value.
type Limits struct{ Entries, Value int }

// Hashtable reports the hashtable encoding (else a listpack).
func (h *Hash) Hashtable() bool { return h.dict != nil }

// Dict is the hashtable encoding's table (nil for a listpack).
func (h *Hash) Dict() *dict.Dict[[]byte] { return h.dict }

// clone is an owned copy of b (never nil).
func clone(b []byte) []byte { return append([]byte{}, b...) }
