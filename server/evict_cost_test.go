package server

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// allocSize charges what the Go heap really takes for an allocation, span
// descriptors and span tails included: measured here as the growth of
// HeapInuse+MSpanInuse per object over many objects kept alive.
func TestAllocSizeIsWhatTheHeapTakes(t *testing.T) {
	// No GC in the middle: it would free others' garbage meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, n := range []int{16, 1000, 1200, 3000, 9000, 40000} {
		count := 16 << 20 / allocSize(n) // 16 MB of objects: other goroutines' noise is far below 1 %
		keep := make([][]byte, count)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range keep {
			keep[i] = make([]byte, n)
		}
		runtime.ReadMemStats(&after)
		grew := float64(after.HeapInuse+after.MSpanInuse) - float64(before.HeapInuse+before.MSpanInuse)
		per := grew / float64(count)
		if got := float64(allocSize(n)); math.Abs(got-per) > max(1, per*0.01) { // a byte: rounding up
			t.Errorf("allocSize(%d) = %.0f, the heap takes %.1f an object", n, got, per)
		}
		runtime.KeepAlive(keep)
	}
}

// The runtime's limit leaves room, above a dataset of maxmemory, for the
// runtime's own memory (which does not shrink with maxmemory) and then
// some: with less the GC runs back to back. The runtime's own memory is
// this process's, as runtime/metrics counts it for the limit.
func TestMemLimitLeavesRoomForTheRuntime(t *testing.T) {
	names := []string{"/memory/classes/metadata/other:bytes", "/memory/classes/metadata/mcache/inuse:bytes",
		"/memory/classes/profiling/buckets:bytes", "/memory/classes/other:bytes",
		"/memory/classes/heap/stacks:bytes", "/memory/classes/os-stacks:bytes"}
	ss := make([]metrics.Sample, len(names))
	for i, n := range names {
		ss[i].Name = n
	}
	metrics.Read(ss)
	var own int64
	for _, s := range ss {
		own += int64(s.Value.Uint64())
	}
	for _, m := range []int64{1 << 20, 4 << 20, 16 << 20, 32 << 20, 64 << 20, 256 << 20, 4 << 30} {
		spans := m / 50 // mspans and span tails, ~2 % of the heap
		// Fragmentation: partly used spans (one a size class and P at
		// least), 1-2 MB whatever maxmemory in the benchmark.
		const frag = 3 << 19
		if room := memLimitFor(m) - m - spans - frag - own; room < 1<<20 {
			t.Errorf("maxmemory %d MB: limit %d leaves %d bytes above the dataset, its spans, fragmentation and the runtime's %d", m>>20, memLimitFor(m), room, own)
		}
	}
}
