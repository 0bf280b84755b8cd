package server

import (
	"math/rand/v2"
	"time"

	"golang.org/x/sys/unix"
)

// debugDelay sleeps as Redis's debugDelay does for rdb-key-save-delay: d,
// with nanosleep as usleep (a Go timer sleeps to the next runtime timer
// tick, about 1 ms here, five times the 200 us Redis's tests set); a
// negative d sleeps 1 us with a probability of 1 in -d (in us).
func debugDelay(d time.Duration) {
	if d < 0 {
		if rand.Int64N(max(1, int64(-d/time.Microsecond))) != 0 {
			return
		}
		d = time.Microsecond
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
