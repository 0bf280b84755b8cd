package memsize

import "sort"

// The Go heap's side: what our own allocations take, which the eviction
// cost model charges (used_memory), as the Go runtime sizes them.

// GoAlloc is what the Go heap takes for an allocation of n bytes: its
// size class up to 32 KB (whole 8 KB pages above), plus its share of its
// span, the tail the span's objects leave unused and the span's 160-byte
// descriptor (mspan), which the runtime keeps outside the heap but which
// is resident all the same. Charging that rather than n keeps used_memory
// (and so eviction) close to the memory the keys really hold: a 1000-byte
// value takes 1024 bytes in an 8 KB span of 8, 1044 with its share.
func GoAlloc(n int) int64 {
	if n <= 0 {
		return 0
	}
	if n > 32768 {
		return int64(n+8191)&^8191 + mspanSize
	}
	return goClassCost[GoClassIndex(n)]
}

// mspanSize is the runtime's span descriptor (unsafe.Sizeof(mspan{}) in Go
// 1.26, as MemStats.MSpanInuse grows a span).
const mspanSize = 160

// goClassCost is GoAlloc by size class.
var goClassCost = func() (c [len(GoClasses)]int64) {
	for i, size := range GoClasses {
		span := goSizeClassPages[i] * 8192
		objs := span / size
		c[i] = int64((span + mspanSize + objs - 1) / objs)
	}
	return c
}()

// GoClasses are the Go runtime's small-object size classes
// (runtime/sizeclasses.go).
var GoClasses = [...]int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
	240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280,
	1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784,
	6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480,
	21760, 24576, 27264, 28672, 32768}

// goSizeClassPages is the span size of each class in 8 KB pages
// (class_to_allocnpages).
var goSizeClassPages = [len(GoClasses)]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	2, 1, 2, 1, 2, 1, 3, 2, 3, 1, 3, 2, 3, 4, 5,
	6, 1, 7, 6, 5, 4, 3, 5, 7, 2, 9, 7, 5,
	8, 3, 10, 7, 4}

// GoClassIndex is the index in GoClasses of the class an allocation of n
// bytes (at most 32 KB) takes.
func GoClassIndex(n int) int { return sort.SearchInts(GoClasses[:], n) }
