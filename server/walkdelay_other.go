//go:build !linux

package server

import (
	"math/rand/v2"
	"time"
)

// debugDelay is Redis's debugDelay (walkdelay_linux.go) with Go's timer.
func debugDelay(d time.Duration) {
	if d < 0 {
		if rand.Int64N(max(1, int64(-d/time.Microsecond))) != 0 {
			return
		}
		d = time.Microsecond
	}
	time.Sleep(d)
}
