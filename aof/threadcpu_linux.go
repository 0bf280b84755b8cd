//go:build linux

package aof

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling thread has used (user and
// system), for the self-tuning group commit (tune.go); ok is false if the
// clock cannot be read. The caller keeps the goroutine on its thread
// (runtime.LockOSThread) between two readings.
func threadCPU() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
