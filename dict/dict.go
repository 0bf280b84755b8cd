// Package dict is the hash table of the keyspace and of hash, set and sorted
// set values: Redis 7.0's dict.c (incremental rehash, reverse-binary SCAN
// cursors, random sampling) over a slab arena.
package dict

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// Dict is a chained hash table with incremental rehashing modelled on
// Redis's Dict.c (7.0). It exists instead of a Go map because the keyspace
// needs what a map cannot give:
//
//   - SCAN's guarantee: an element present for the whole scan is returned at
//     least once, even if the table grows or shrinks between calls. Scan is
//     Redis's reverse-binary cursor walk (dictScan), so cursors are
//     interchangeable with what real Redis would hand out for the same sizes.
//   - O(1) RANDOMKEY (dictGetRandomKey).
//   - Bounded work per operation: resizing moves one bucket per
//     Get/Set/Delete (_dictRehashStep) plus whatever the server cron asks for
//     through RehashStep, never the whole table at once.
//
// Layout. Two tables, ht[0] and ht[1]; ht[1] is only in use while rehashing
// (rehashidx >= 0 is the next ht[0] bucket to move). Buckets are []uint32
// holding node index+1 (0 = empty). Nodes {key, val, next} live in slab
// pages of an arena and are referenced by uint32 index, so there is no heap
// object per entry and the GC scans a few large pages. Pages are never
// copied when the arena grows. Deleted slots go on a free list threaded
// through next.
//
// Resizing follows Redis: grow to the next power of two above used when
// used >= size; shrink to the next power of two >= max(used, 4) when size >
// 4 and used < size/10. Growing shares the arena between both tables (a
// rehash step only relinks). Shrinking gives ht[1] a fresh arena and copies
// nodes across as their buckets move, so memory of a table that has emptied
// out is returned once the rehash completes.
//
// Pointers returned by GetPtr, Scan, Range and RandomKey stay valid until
// the next Set, Delete, Clear or RehashStep. Get, GetPtr and RandomKey do
// rehash steps only while growing (which never moves a node); a shrinking
// rehash is driven by Set, Delete and RehashStep alone.
//
// A Dict is not safe for concurrent use; callers serialise access.
type Dict[V any] struct {
	ht [2]dictTable[V]
	// rehashidx is the next ht[0] bucket to move to ht[1], or -1 when not
	// rehashing.
	rehashidx int
}

type dictTable[V any] struct {
	buckets []uint32 // node index+1; len is 0 or a power of two
	used    int
	ar      *dictArena[V]
}

// Node is one entry, as SomeKeys hands them out.
type Node[V any] struct {
	Key string
	Val V
	// hash is the low 32 bits of the key's hash. It usually fits in padding
	// after next, lets lookups skip the key comparison (a cache miss) for
	// most other nodes of a chain, and lets rehash place a node without
	// reading or rehashing its key. Tables never exceed 2^31 buckets, so the
	// low bits are all a bucket index needs.
	hash uint32
	next uint32 // index+1 of the next node in the chain (or free list); 0 ends it
}

const (
	dictInitSize  = 4                     // DICT_HT_INITIAL_SIZE
	dictMinFill   = 10                    // HASHTABLE_MIN_FILL: shrink below 10% usage
	dictMaxExp    = 30 + bits.UintSize/64 // 2^31 buckets (uint32 refs); 2^30 where int is 32 bits
	dictEmptyMult = 10                    // empty buckets a rehash step may skip per bucket moved
)

// dictSeed is the per-process hash seed: bucket order (and so SCAN cursors
// and RANDOMKEY) differs between runs, like Redis's random siphash key.
var dictSeed = maphash.MakeSeed()

func dictHash(key string) uint64 { return maphash.String(dictSeed, key) }

// New returns an empty dict; sizeHint > 0 preallocates buckets for that
// many keys (as dictExpand before a bulk load).
func New[V any](sizeHint int) *Dict[V] {
	d := &Dict[V]{rehashidx: -1}
	d.ht[0].ar = &dictArena[V]{}
	if sizeHint > 0 {
		d.ht[0].buckets = make([]uint32, dictNextSize(sizeHint))
	}
	return d
}

// dictNextSize is the smallest power of two >= n, at least dictInitSize.
func dictNextSize(n int) int {
	if n <= dictInitSize {
		return dictInitSize
	}
	if n >= 1<<dictMaxExp {
		return 1 << dictMaxExp
	}
	return 1 << bits.Len(uint(n-1))
}

// Reserve makes room for n keys at once (Redis's dictExpand on an RDB
// RESIZEDB hint), so that loading does not grow the table step by step.
func (d *Dict[V]) Reserve(n int) {
	if d.rehashidx >= 0 || n <= len(d.ht[0].buckets) {
		return
	}
	if d.Len() == 0 {
		d.ht[0].buckets = make([]uint32, dictNextSize(n))
		return
	}
	d.resize(n, false)
}

// Len returns the number of keys.
func (d *Dict[V]) Len() int { return d.ht[0].used + d.ht[1].used }

// Slots is dictSlots: the buckets of both tables.
func (d *Dict[V]) Slots() int64 { return int64(len(d.ht[0].buckets) + len(d.ht[1].buckets)) }

func (d *Dict[V]) Rehashing() bool { return d.rehashidx >= 0 }

// relocating reports whether the running rehash copies nodes into a fresh
// arena (a shrink). Lookups must then not step, or they would invalidate
// pointers they handed out.
func (d *Dict[V]) relocating() bool { return d.ht[0].ar != d.ht[1].ar }

// lookupStep is the rehash step taken by read-only operations.
func (d *Dict[V]) lookupStep() {
	if d.rehashidx >= 0 && !d.relocating() {
		d.rehash(1)
	}
}

// Get returns the value stored under key. It does not allocate.
func (d *Dict[V]) Get(key string) (V, bool) {
	if p := d.GetPtr(key); p != nil {
		return *p, true
	}
	var zero V
	return zero, false
}

// GetPtr returns a pointer to the value stored under key, or nil. The
// pointer is valid until the next Set, Delete, Clear or RehashStep.
func (d *Dict[V]) GetPtr(key string) *V {
	if d.Len() == 0 {
		return nil
	}
	d.lookupStep()
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		ht := &d.ht[t]
		if len(ht.buckets) > 0 {
			for ref := ht.buckets[h&uint64(len(ht.buckets)-1)]; ref != 0; {
				n := ht.ar.node(ref)
				if n.hash == uint32(h) && n.Key == key {
					return &n.Val
				}
				ref = n.next
			}
		}
		if d.rehashidx < 0 {
			break
		}
	}
	return nil
}

// Set stores v under key and reports whether the key is new. An existing
// key keeps its stored key string; a new one stores key itself, so the
// caller must pass a string it owns.
func (d *Dict[V]) Set(key string, v V) (added bool) {
	if d.rehashidx >= 0 {
		d.rehash(1)
	}
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		ht := &d.ht[t]
		if len(ht.buckets) > 0 {
			for ref := ht.buckets[h&uint64(len(ht.buckets)-1)]; ref != 0; {
				n := ht.ar.node(ref)
				if n.hash == uint32(h) && n.Key == key {
					n.Val = v
					return false
				}
				ref = n.next
			}
		}
		if d.rehashidx < 0 {
			break
		}
	}
	d.expandIfNeeded()
	ht := &d.ht[0]
	if d.rehashidx >= 0 {
		ht = &d.ht[1]
	}
	ref, n := ht.ar.alloc()
	n.Key, n.Val, n.hash = key, v, uint32(h)
	// New entries go to the head of the chain, as in Redis: recently added
	// keys tend to be accessed more.
	b := &ht.buckets[h&uint64(len(ht.buckets)-1)]
	n.next = *b
	*b = ref
	ht.used++
	return true
}

// Delete removes key and returns its value.
func (d *Dict[V]) Delete(key string) (old V, ok bool) {
	if d.Len() == 0 {
		return old, false
	}
	if d.rehashidx >= 0 {
		d.rehash(1)
	}
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		ht := &d.ht[t]
		if len(ht.buckets) > 0 {
			link := &ht.buckets[h&uint64(len(ht.buckets)-1)]
			for ref := *link; ref != 0; ref = *link {
				n := ht.ar.node(ref)
				if n.hash == uint32(h) && n.Key == key {
					*link = n.next
					old = n.Val
					ht.used--
					ht.ar.release(ref, n)
					d.shrinkIfNeeded()
					return old, true
				}
				link = &n.next
			}
		}
		if d.rehashidx < 0 {
			break
		}
	}
	return old, false
}

// expandIfNeeded is _dictExpandIfNeeded: allocate the first table, or start
// growing when ht[0] is full (load factor 1). Never while rehashing.
func (d *Dict[V]) expandIfNeeded() {
	if d.rehashidx >= 0 {
		return
	}
	ht := &d.ht[0]
	if len(ht.buckets) == 0 {
		ht.buckets = make([]uint32, dictInitSize)
		return
	}
	if ht.used >= len(ht.buckets) {
		d.resize(ht.used+1, false)
	}
}

// shrinkIfNeeded starts a shrinking rehash when ht[0] is under 10% full
// (Redis's htNeedsResize + dictResize, done here on delete instead of only
// in the cron so a table never stays sparse).
func (d *Dict[V]) shrinkIfNeeded() {
	if d.rehashidx >= 0 {
		return
	}
	ht := &d.ht[0]
	size := len(ht.buckets)
	if size <= dictInitSize || ht.used*100/size >= dictMinFill {
		return
	}
	if ht.used == 0 {
		// Nothing to move: drop everything at once.
		*ht = dictTable[V]{buckets: make([]uint32, dictInitSize), ar: &dictArena[V]{}}
		return
	}
	d.resize(ht.used, true)
}

// resize starts rehashing ht[0] into a new table sized for n keys. A shrink
// gets a fresh arena so the old one can be dropped when the rehash ends.
func (d *Dict[V]) resize(n int, shrink bool) {
	size := dictNextSize(n)
	if size == len(d.ht[0].buckets) {
		return
	}
	ar := d.ht[0].ar
	if shrink {
		ar = &dictArena[V]{}
	}
	d.ht[1] = dictTable[V]{buckets: make([]uint32, size), ar: ar}
	d.rehashidx = 0
}

// RehashStep moves up to n buckets from the old table to the new one (the
// server cron's incrementallyRehash) and reports whether rehashing remains.
// When no rehash is running it first checks whether the table should
// shrink.
func (d *Dict[V]) RehashStep(n int) bool {
	if d.rehashidx < 0 {
		d.shrinkIfNeeded()
		if d.rehashidx < 0 {
			return false
		}
	}
	return d.rehash(n)
}

// rehash is dictRehash: move up to n non-empty buckets, visiting at most
// n*10 empty ones, and finish the rehash when ht[0] is empty. It reports
// whether rehashing remains.
func (d *Dict[V]) rehash(n int) bool {
	if d.rehashidx < 0 {
		return false
	}
	empty := n * dictEmptyMult
	src, dst := &d.ht[0], &d.ht[1]
	relocate := src.ar != dst.ar
	dmask := uint64(len(dst.buckets) - 1)
	for ; n > 0 && src.used != 0; n-- {
		for src.buckets[d.rehashidx] == 0 {
			d.rehashidx++
			if empty--; empty == 0 {
				return true
			}
		}
		ref := src.buckets[d.rehashidx]
		for ref != 0 {
			e := src.ar.node(ref)
			next := e.next
			b := &dst.buckets[uint64(e.hash)&dmask]
			if relocate {
				// The whole source arena is dropped when the rehash ends, so
				// the old slot is not put on a free list.
				nref, ne := dst.ar.alloc()
				ne.Key, ne.Val, ne.hash, ne.next = e.Key, e.Val, e.hash, *b
				*b = nref
			} else {
				e.next = *b
				*b = ref
			}
			src.used--
			dst.used++
			ref = next
		}
		src.buckets[d.rehashidx] = 0
		d.rehashidx++
	}
	if src.used != 0 {
		return true
	}
	d.ht[0] = d.ht[1]
	d.ht[1] = dictTable[V]{}
	d.rehashidx = -1
	// Deletes during a grow can leave the new table sparse.
	d.shrinkIfNeeded()
	return d.rehashidx >= 0
}

// Scan calls fn for the entries of one cursor position and returns the next
// cursor; 0 means the scan is complete. It is Redis's dictScan: the cursor is
// incremented with its bits reversed, so that after the table grows or
// shrinks the buckets already visited map onto a prefix of the new order.
// While rehashing it visits the smaller table's bucket and then every bucket
// of the larger table that expands from it. Keys present for the whole scan
// are returned at least once; some may be returned more than once. fn must
// not modify d.
func (d *Dict[V]) Scan(cursor uint64, fn func(key string, v *V)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	v := cursor
	if d.rehashidx < 0 {
		t0 := &d.ht[0]
		m0 := uint64(len(t0.buckets) - 1)
		t0.emit(t0.buckets[v&m0], fn)
		v |= ^m0
		return dictRevIncr(v)
	}
	t0, t1 := &d.ht[0], &d.ht[1]
	if len(t0.buckets) > len(t1.buckets) {
		t0, t1 = t1, t0
	}
	m0 := uint64(len(t0.buckets) - 1)
	m1 := uint64(len(t1.buckets) - 1)
	t0.emit(t0.buckets[v&m0], fn)
	// Visit the expansions of the small table's bucket in the big table.
	for {
		t1.emit(t1.buckets[v&m1], fn)
		v |= ^m1
		v = dictRevIncr(v)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// ScanAhead is a Scan cursor's successors, for PrefetchScan: far, 2k
// cursors ahead, and near, k ahead, under the table mask they were
// computed with.
type ScanAhead struct {
	near, far, mask uint64
}

// scanAheadK is how many buckets ahead a node is fetched (and twice that,
// its bucket): enough misses in flight to overlap, few enough that the
// lines are still cached when Scan reaches them.
const scanAheadK = 8

// PrefetchScan asks the CPU for what Scan will touch scanAheadK and
// 2*scanAheadK cursors after cursor: the far bucket, and the first node
// of the near one (whose bucket was asked for earlier). A walk of a table
// larger than the caches otherwise waits for both misses at every
// bucket. Hints only; nothing while rehashing.
func (d *Dict[V]) PrefetchScan(cursor uint64, a *ScanAhead) {
	if d.rehashidx >= 0 || len(d.ht[0].buckets) == 0 {
		return
	}
	t := &d.ht[0]
	m := uint64(len(t.buckets) - 1)
	next := func(v uint64) uint64 { return dictRevIncr(v | ^m) }
	if a.mask != m {
		a.mask, a.near = m, cursor
		for i := 0; i < scanAheadK; i++ {
			a.near = next(a.near)
		}
		a.far = a.near
		for i := 0; i < scanAheadK; i++ {
			a.far = next(a.far)
		}
	}
	prefetch(uintptr(unsafe.Pointer(&t.buckets[a.far&m])))
	if ref := t.buckets[a.near&m]; ref != 0 {
		prefetch(uintptr(unsafe.Pointer(t.ar.node(ref))))
	}
	a.near, a.far = next(a.near), next(a.far)
}

// dictRevIncr increments v as if its bits were reversed.
func dictRevIncr(v uint64) uint64 {
	return bits.Reverse64(bits.Reverse64(v) + 1)
}

func (ht *dictTable[V]) emit(ref uint32, fn func(string, *V)) {
	for ref != 0 {
		n := ht.ar.node(ref)
		ref = n.next // read before fn, which must not mutate anyway
		fn(n.Key, &n.Val)
	}
}

// RandomKey returns a random entry (dictGetRandomKey: a random non-empty
// bucket, then a random element of its chain, so keys in long chains are
// slightly less likely). r may be nil to use the global source.
func (d *Dict[V]) RandomKey(r *rand.Rand) (key string, v *V, ok bool) {
	if d.Len() == 0 {
		return "", nil, false
	}
	d.lookupStep()
	rnd := rand.Uint64
	if r != nil {
		rnd = r.Uint64
	}
	var ht *dictTable[V]
	var ref uint32
	if d.rehashidx >= 0 {
		// Buckets of ht[0] below rehashidx are empty: skip them.
		s0 := uint64(len(d.ht[0].buckets))
		span := s0 + uint64(len(d.ht[1].buckets)) - uint64(d.rehashidx)
		for ref == 0 {
			i := uint64(d.rehashidx) + rnd()%span
			if i >= s0 {
				ht = &d.ht[1]
				ref = ht.buckets[i-s0]
			} else {
				ht = &d.ht[0]
				ref = ht.buckets[i]
			}
		}
	} else {
		ht = &d.ht[0]
		m := uint64(len(ht.buckets) - 1)
		for ref == 0 {
			ref = ht.buckets[rnd()&m]
		}
	}
	chain := 0
	for r := ref; r != 0; r = ht.ar.node(r).next {
		chain++
	}
	for i := rnd() % uint64(chain); i > 0; i-- {
		ref = ht.ar.node(ref).next
	}
	n := ht.ar.node(ref)
	return n.Key, &n.Val, true
}

// dictFairSample is GETFAIR_NUM_ENTRIES: how many entries FairRandomKey
// gathers to pick one from.
const dictFairSample = 15

// FairRandomKey is dictGetFairRandomKey, what Redis 7.0 samples sets,
// hashes (SRANDMEMBER, SPOP, HRANDFIELD) and the keyspace with: a random
// entry among up to 15 gathered from consecutive buckets (dictGetSomeKeys),
// so that a key's chance does not depend on the length of its chain as
// with RandomKey. r may be nil to use the global source.
func (d *Dict[V]) FairRandomKey(r *rand.Rand) (key string, v *V, ok bool) {
	if d.Len() == 0 {
		return "", nil, false
	}
	rnd := rand.Uint64
	if r != nil {
		rnd = r.Uint64
	}
	var picked [dictFairSample]*Node[V]
	n := d.SomeKeys(picked[:], rnd)
	if n == 0 {
		return d.RandomKey(r)
	}
	e := picked[rnd()%uint64(n)]
	return e.Key, &e.Val, true
}

// SomeKeys is dictGetSomeKeys: it fills out with entries of consecutive
// buckets from a random point of the larger table, jumping elsewhere
// after a run of empty buckets, in at most 10 steps per wanted entry; it
// may return fewer (even none).
func (d *Dict[V]) SomeKeys(out []*Node[V], rnd func() uint64) int {
	count := min(len(out), d.Len())
	for j := 0; j < count && d.Rehashing(); j++ {
		d.lookupStep()
		if d.relocating() {
			break
		}
	}
	tables := 1
	maxMask := uint64(len(d.ht[0].buckets) - 1)
	if d.Rehashing() {
		tables = 2
		maxMask = max(maxMask, uint64(len(d.ht[1].buckets)-1))
	}
	stored, emptyLen := 0, 0
	i := rnd() & maxMask
	for steps := count * 10; stored < count && steps > 0; steps-- {
		for j := 0; j < tables; j++ {
			// ht[0] buckets below rehashidx are empty (already moved).
			if tables == 2 && j == 0 && i < uint64(d.rehashidx) {
				if i >= uint64(len(d.ht[1].buckets)) {
					i = uint64(d.rehashidx)
				} else {
					continue
				}
			}
			ht := &d.ht[j]
			if i >= uint64(len(ht.buckets)) {
				continue
			}
			ref := ht.buckets[i]
			if ref == 0 {
				emptyLen++
				if emptyLen >= 5 && emptyLen > count {
					i = rnd() & maxMask
					emptyLen = 0
				}
				continue
			}
			emptyLen = 0
			for ; ref != 0; ref = ht.ar.node(ref).next {
				out[stored] = ht.ar.node(ref)
				stored++
				if stored == count {
					return stored
				}
			}
		}
		i = (i + 1) & maxMask
	}
	return stored
}

// Range calls fn for every entry until fn returns false. fn must not modify
// d.
func (d *Dict[V]) Range(fn func(key string, v *V) bool) {
	for t := 0; t < 2; t++ {
		ht := &d.ht[t]
		for _, ref := range ht.buckets {
			for ref != 0 {
				n := ht.ar.node(ref)
				ref = n.next
				if !fn(n.Key, &n.Val) {
					return
				}
			}
		}
		if d.rehashidx < 0 {
			return
		}
	}
}

// Clear removes every entry and releases the table's memory.
func (d *Dict[V]) Clear() {
	*d = Dict[V]{rehashidx: -1}
	d.ht[0].ar = &dictArena[V]{}
}

// MemoryUsage approximates the bytes held by the table itself: bucket arrays
// and node pages, excluding what keys and values point to.
func (d *Dict[V]) MemoryUsage() int64 {
	total := int64(unsafe.Sizeof(*d))
	for t := 0; t < 2; t++ {
		total += 4 * int64(cap(d.ht[t].buckets))
	}
	total += d.ht[0].ar.memoryUsage()
	if d.ht[1].ar != nil && d.ht[1].ar != d.ht[0].ar {
		total += d.ht[1].ar.memoryUsage()
	}
	return total
}

// dictArena stores nodes in pages that are never copied or moved. Page
// sizes double from dictPageMin up to dictPageMax nodes, so small dicts stay
// small and big ones have few pages:
//
//	page 0: refs [0, 16)        page 1: [16, 32)     page 2: [32, 64) ...
//	page 9: [4096, 8192)        page 10+: 4096 refs each
type dictArena[V any] struct {
	pages [][]Node[V]
	n     uint32 // slots handed out so far (high-water mark)
	free  uint32 // head of the free list, index+1; 0 = empty
}

const (
	dictPageMinShift = 4
	dictPageMaxShift = 12
	dictGeoEnd       = 1 << (dictPageMaxShift + 1) // first index of the fixed-size pages
	dictGeoPages     = dictPageMaxShift - dictPageMinShift + 2
	dictMaxNodes     = 1<<32 - 2 // refs are index+1 in a uint32
)

// dictLocate maps a node index to its page and offset.
func dictLocate(i uint32) (page, off uint32) {
	if i < dictGeoEnd {
		if i < 1<<dictPageMinShift {
			return 0, i
		}
		l := uint32(bits.Len32(i))
		return l - dictPageMinShift, i &^ (1 << (l - 1))
	}
	i -= dictGeoEnd
	return dictGeoPages + i>>dictPageMaxShift, i & (1<<dictPageMaxShift - 1)
}

// dictPageSize is the number of nodes in page p.
func dictPageSize(p int) int {
	switch {
	case p == 0:
		return 1 << dictPageMinShift
	case p < dictGeoPages:
		return 1 << (dictPageMinShift + p - 1)
	default:
		return 1 << dictPageMaxShift
	}
}

// node returns the node for ref (index+1), which must be live.
func (a *dictArena[V]) node(ref uint32) *Node[V] {
	p, o := dictLocate(ref - 1)
	return &a.pages[p][o]
}

// alloc returns a zeroed slot, reusing freed ones first.
func (a *dictArena[V]) alloc() (uint32, *Node[V]) {
	if ref := a.free; ref != 0 {
		n := a.node(ref)
		a.free = n.next
		n.next = 0
		return ref, n
	}
	if a.n >= dictMaxNodes {
		panic("dict: more than 2^32-2 entries")
	}
	p, o := dictLocate(a.n)
	if int(p) == len(a.pages) {
		a.pages = append(a.pages, make([]Node[V], dictPageSize(int(p))))
	}
	a.n++
	return a.n, &a.pages[p][o]
}

// release zeroes a slot (so the GC can free what it referenced) and puts it
// on the free list.
func (a *dictArena[V]) release(ref uint32, n *Node[V]) {
	*n = Node[V]{next: a.free}
	a.free = ref
}

func (a *dictArena[V]) memoryUsage() int64 {
	var node Node[V]
	total := int64(0)
	for _, p := range a.pages {
		total += int64(cap(p)) * int64(unsafe.Sizeof(node))
	}
	return total + 24*int64(cap(a.pages))
}

// View is b as a key for Get, GetPtr or Delete, without copying: the
// result must never be stored (Set needs a string of its own).
func View(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
