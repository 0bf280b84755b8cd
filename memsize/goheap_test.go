package memsize

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// GoAlloc charges what the Go heap really takes for an allocation, span
// descriptors and span tails included: measured here as the growth of
// HeapInuse+MSpanInuse per object over many objects kept alive.
func TestGoAllocIsWhatTheHeapTakes(t *testing.T) {
	// No GC in the middle: it would free others' garbage meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, n := range []int{16, 1000, 1200, 3000, 9000, 40000} {
		count := 16 << 20 / GoAlloc(n) // 16 MB of objects: other goroutines' noise is far below 1 %
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
		if got := float64(GoAlloc(n)); math.Abs(got-per) > max(1, per*0.01) { // a byte: rounding up
			t.Errorf("GoAlloc(%d) = %.0f, the heap takes %.1f an object", n, got, per)
		}
		runtime.KeepAlive(keep)
	}
}
