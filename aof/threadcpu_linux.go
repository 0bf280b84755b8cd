//go:build linux

package aof

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuClock names the CPU clock of the calling thread (user and system
// time), for the self-tuning group commit (tune.go): the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED). Unlike CLOCK_THREAD_CPUTIME_ID
// it names that thread even when read from another, so the goroutine need
// not be locked to its thread (runtime.LockOSThread) across an fsync:
// locked, a goroutine that comes back from a blocking system call without
// a P must wait for its own thread to be handed one, a wake-up more per
// fsync. Threads of the Go runtime never exit, so the clock stays valid.
func cpuClock() (clock int32, ok bool) {
	return int32(^uint32(unix.Gettid())<<3 | 6), true
}

// readCPU reads a clock named by cpuClock.
func readCPU(clock int32) (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(clock, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
