package server

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/rstring"

	seam "github.com/aofserver/aofserver/command"
)

// Value types, as TYPE reports them: the seam's numbers.
const (
	typString = uint8(seam.TypeString)
	typList   = uint8(seam.TypeList)
	typSet    = uint8(seam.TypeSet)
	typZSet   = uint8(seam.TypeZSet)
	typHash   = uint8(seam.TypeHash)
	typStream = uint8(seam.TypeStream)
)

// entry is one key's value, 16 bytes so that the keyspace stays compact.
//
// For strings ptr points at the bytes (immutable once stored) or, when the
// raw flag is set, at a *rawString that APPEND/SETRANGE may grow in place.
// For collections ptr points at *list.List, *set.Set, *zset.Set or *hash.Hash.
//
// meta layout (bits): [0,31) string length (a collection's cost: [0,32));
// 31 unshared flag (strings); [32,36) type; 36 snapshot mark;
// 37 raw-string flag; 38 no-int flag; 39 owned-buffer flag; [40,64) LRU
// clock in seconds (24 bits, as Redis).
type entry struct {
	ptr  unsafe.Pointer
	meta uint64
}

const (
	metaLenMask = 1<<32 - 1 // a collection's cost and measured length (evict.go)
	strLenMask  = 1<<31 - 1 // a string's length; longer strings are raw
	// metaUnsharedBit: a small integer (0..9999) that is not one of
	// Redis's shared integer objects but a copy with a refcount of its
	// own (COPY's dupStringObject): OBJECT REFCOUNT says 1.
	metaUnsharedBit = 1 << 31
	metaTypShift    = 32
	metaSnapBit     = 1 << 36
	metaRawBit      = 1 << 37
	metaNoIntBit    = 1 << 38 // a number stored as "embstr" (INCRBYFLOAT results)
	// metaOwnBit: ptr is the start of a buffer of at least the length that
	// newStringEntry allocated for this entry alone (not a slice of a
	// loaded or parsed buffer), so that an evicted value may be recycled
	// (valuePool). Entries are never shared between keys (COPY clones).
	metaOwnBit   = 1 << 39
	metaLRUShift = 40
	lruMask      = 1<<24 - 1
)

// rawString is a string that has been modified in place (Redis's "raw"
// encoding); it keeps spare capacity so that APPEND loops are amortized O(1).
type rawString struct{ b []byte }

func (e entry) typ() uint8 { return uint8(e.meta>>metaTypShift) & 0xf }

func (e entry) lru() uint32 { return uint32(e.meta>>metaLRUShift) & lruMask }

func (e *entry) setLRU(clock uint32) {
	e.meta = e.meta&^(lruMask<<metaLRUShift) | uint64(clock&lruMask)<<metaLRUShift
}

func (e entry) snapMark() bool { return e.meta&metaSnapBit != 0 }

func (e *entry) setSnapMark(v bool) {
	if v {
		e.meta |= metaSnapBit
	} else {
		e.meta &^= metaSnapBit
	}
}

// str returns the bytes of a string value. The caller must not modify them.
func (e entry) str() []byte {
	if e.meta&metaRawBit != 0 {
		return (*rawString)(e.ptr).b
	}
	n := int(e.meta & strLenMask)
	if n == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(e.ptr), n)
}

// newStringEntry copies v into a new immutable string value.
func newStringEntry(v []byte) entry {
	if len(v) > strLenMask {
		return newRawStringEntry(cloneBytes(v))
	}
	var p unsafe.Pointer
	if len(v) > 0 {
		b := make([]byte, len(v))
		copy(b, v)
		p = unsafe.Pointer(unsafe.SliceData(b))
	}
	return entry{ptr: p, meta: uint64(len(v)) | uint64(typString)<<metaTypShift | metaOwnBit}
}

// newStringEntryOwned stores b without copying; b must not be used afterwards.
func newStringEntryOwned(b []byte) entry {
	if len(b) > strLenMask {
		return newRawStringEntry(b)
	}
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(unsafe.SliceData(b))
	}
	return entry{ptr: p, meta: uint64(len(b)) | uint64(typString)<<metaTypShift}
}

// newRawStringEntry stores b as a growable raw string (APPEND, SETRANGE).
func newRawStringEntry(b []byte) entry {
	return entry{ptr: unsafe.Pointer(&rawString{b: b}), meta: uint64(typString)<<metaTypShift | metaRawBit}
}

func (e entry) rawString() *rawString {
	if e.meta&metaRawBit != 0 {
		return (*rawString)(e.ptr)
	}
	return nil
}

func newObjEntry(t uint8, p unsafe.Pointer) entry {
	return entry{ptr: p, meta: uint64(t) << metaTypShift}
}

// stringEncoding is OBJECT ENCODING for strings: Redis keeps integers that
// fit a long as "int", short strings as "embstr" and the rest as "raw".
func stringEncoding(e entry) string {
	if e.meta&metaRawBit != 0 {
		return "raw"
	}
	b := e.str()
	if len(b) <= 20 && e.meta&metaNoIntBit == 0 {
		if _, ok := rstring.String2ll(b); ok {
			return "int"
		}
	}
	if len(b) <= 44 {
		return "embstr"
	}
	return "raw"
}

// parseInt parses a command argument as Redis's getLongLongFromObject does
// (same rules as string2ll).
func parseInt(b []byte) (int64, bool) { return rstring.String2ll(b) }

func formatInt(v int64) []byte { return strconv.AppendInt(nil, v, 10) }

// unshareString makes the string at p a raw (modifiable) string, as
// Redis's dbUnshareStringValue, keeping LRU and snapshot mark.
func unshareString(p *entry) *rawString {
	if rs := p.rawString(); rs != nil {
		return rs
	}
	cur := p.str()
	b := make([]byte, len(cur), len(cur)+8)
	copy(b, cur)
	lru, mark := p.lru(), p.snapMark()
	*p = newRawStringEntry(b)
	p.setLRU(lru)
	p.setSnapMark(mark)
	return p.rawString()
}

// growString makes the string at p a raw string at least need bytes long,
// zero filled, as Redis's lookupStringForBitCommand: a raw string grows in
// place, another is copied into one of exactly max(len, need) bytes,
// keeping LRU and snapshot mark. grown is the number of bytes added.
func growString(p *entry, need int) (rs *rawString, grown int) {
	if rs := p.rawString(); rs != nil {
		if n := len(rs.b); need > n {
			grown = need - n
			rs.b = slices.Grow(rs.b, grown)[:need]
			clear(rs.b[n:])
		}
		return rs, grown
	}
	cur := p.str()
	n := len(cur)
	if need > n {
		grown = need - n
		n = need
	}
	b := make([]byte, n)
	copy(b, cur)
	lru, mark := p.lru(), p.snapMark()
	*p = newRawStringEntry(b)
	p.setLRU(lru)
	p.setSnapMark(mark)
	return p.rawString(), grown
}
