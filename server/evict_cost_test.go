package server

import "testing"

// The runtime's limit leaves room, above a dataset of maxmemory, for the
// runtime's own memory (which does not shrink with maxmemory) and span
// fragmentation: with less the GC runs back to back. The figures are the
// server's at the end of TestEvictZipfCacheBench (runtime/metrics, what
// the limit counts; a test binary's own vary with the tests run before):
// metadata 2.9 MB, the profiling bucket table 1.45, other 0.75, stacks
// 0.55; heap/unused 1-2 MB. With them the benchmark fell over the cliff
// where this room was below zero (64 MB with + 1.5 MB, -0.5 MB; every size
// of 32 MB or less with a tenth + 2.5 MB) and not above it.
func TestMemLimitLeavesRoomForTheRuntime(t *testing.T) {
	const own = 2900<<10 + 1450<<10 + 750<<10 + 550<<10
	const frag = 3 << 19
	for _, m := range []int64{1 << 20, 4 << 20, 16 << 20, 32 << 20, 64 << 20, 256 << 20, 4 << 30} {
		spans := m / 50 // mspans and span tails, ~2 % of the heap
		if room := memLimitFor(m) - m - spans - frag - own; room < 256<<10 {
			t.Errorf("maxmemory %d MB: limit %d leaves %d bytes above the dataset, its spans, fragmentation and the runtime's %d", m>>20, memLimitFor(m), room, own)
		}
	}
}
