// Package memsize models allocation sizes. Redis 7.0.15's, which its
// memory figures report (CLIENT LIST, INFO, MEMORY USAGE, DEBUG SDSLEN):
// jemalloc 5's x86-64 size classes, as zmalloc_usable_size returns them,
// and the header and allocation of sds strings. And the Go heap's
// (goheap.go), which the eviction cost model charges for our own values.
// It holds no state.
package memsize

import "math/bits"

// Jemalloc is the usable size of a jemalloc allocation of n bytes (x86-64
// size classes: 8, then 16-byte quanta up to 128, then four classes per
// doubling), as Redis's zmalloc_usable_size reports it.
func Jemalloc(n int64) int64 {
	switch {
	case n <= 8:
		return 8
	case n <= 16:
		return 16
	}
	step := int64(1) << max(bits.Len64(uint64(n-1))-3, 4)
	return (n + step - 1) &^ (step - 1)
}

// SdsHdrSize is the header size of the sds type sdsReqType picks for a
// string of n bytes, sdshdr5 counted as sdshdr8 (Redis makes an sds it
// will grow, such as the query buffer, at least sdshdr8).
func SdsHdrSize(n int64) int64 {
	switch {
	case n < 1<<8:
		return 3
	case n < 1<<16:
		return 5
	case n < 1<<32:
		return 9
	}
	return 17
}

// SdsUsableAlloc is the alloc field of an sds made for newlen bytes by
// sdsMakeRoomFor/sdsnewlen: the allocator's usable size minus the header
// and the terminator.
func SdsUsableAlloc(newlen int64) int64 {
	hdr := SdsHdrSize(newlen)
	return Jemalloc(hdr+newlen+1) - hdr - 1
}

// SdsNewLen is Redis 7.0's _sdsnewlen for an n-byte string: the header
// type fitting n, the allocation's usable size (jemalloc's class) and so
// the spare room recorded in alloc (none for sdshdr5, which has no alloc
// field).
func SdsNewLen(n int) (avail, zmalloc int) {
	hdr, maxAlloc := 17, -1
	switch {
	case n < 1<<5 && n > 0: // an empty sds is made sdshdr8 for appends
		hdr, maxAlloc = 1, 0
	case n < 1<<8:
		hdr, maxAlloc = 3, 1<<8-1
	case n < 1<<16:
		hdr, maxAlloc = 5, 1<<16-1
	case int64(n) < 1<<32:
		hdr, maxAlloc = 9, 1<<32-1
	}
	zmalloc = int(Jemalloc(int64(hdr + n + 1)))
	usable := zmalloc - hdr - 1
	if maxAlloc >= 0 && usable > maxAlloc {
		usable = maxAlloc
	}
	if hdr == 1 {
		usable = n
	}
	return usable - n, zmalloc
}
