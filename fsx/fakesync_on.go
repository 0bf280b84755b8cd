//go:build linux && fakesync

package fsx

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// A build with -tags fakesync replaces every fdatasync by a sleep of
// AOFSERVER_FAKE_FSYNC_USEC µs (unset: a real fdatasync). It exists for
// scripts/bench_fsync_model.sh, which compares the two servers' designs on
// a disk of a chosen latency that costs no CPU. Nothing such a build
// writes is durable; it says so on stderr at start.
var fakeSyncUsec = func() int {
	v := os.Getenv("AOFSERVER_FAKE_FSYNC_USEC")
	if v == "" {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "AOFSERVER_FAKE_FSYNC_USEC=%q: not a number of µs\n", v)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "WARNING: fakesync build: fdatasync is a %d µs sleep, nothing is durable\n", n)
	return n
}()

func fakeDatasync() error {
	if fakeSyncUsec > 0 {
		// A system call that blocks the thread, as fdatasync does.
		ts := unix.NsecToTimespec(int64(fakeSyncUsec) * 1000)
		for unix.Nanosleep(&ts, &ts) == unix.EINTR {
		}
	}
	return nil
}
