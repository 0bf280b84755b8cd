package server

import (
	"testing"
	"time"
	_ "unsafe" // go:linkname, for the comparison only
)

//go:linkname runtimeNanotime runtime.nanotime
func runtimeNanotime() int64

// The clock call() reads twice per command (monoNow: time.Since of a fixed
// instant, one nanotime since Go 1.22) against the runtime's nanotime
// through go:linkname and time.Now, which reads the wall clock too.
func BenchmarkMonoClock(b *testing.B) {
	var sink int64
	b.Run("linkname-nanotime", func(b *testing.B) {
		for b.Loop() {
			sink += runtimeNanotime()
		}
	})
	b.Run("monoNow", func(b *testing.B) {
		for b.Loop() {
			sink += monoNow()
		}
	})
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			sink += time.Now().UnixNano()
		}
	})
	_ = sink
}
