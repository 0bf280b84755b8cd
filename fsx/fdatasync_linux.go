//go:build linux

package fsx

import "golang.org/x/sys/unix"

// datasync is Redis's redis_fsync on Linux: fdatasync flushes the data and the
// metadata needed to read it back (the size), not timestamps.
//
// It is an ordinary system call. Entering it as one known to block
// (runtime.entersyscallblock through go:linkname, handing the P off at once
// instead of letting sysmon retake it) was meant to spare sysmon's polling
// while the network loop sits in epoll_wait; BenchmarkFdatasyncBesideEpollWait
// measures the process CPU per fdatasync in that setting and finds no gain
// (2-vCPU VM, ext4, Go 1.26; median cpu-µs/op of two -count=5 sets:
// GOMAXPROCS 2: plain 67 and 67, blocking 79 and 65; GOMAXPROCS 3: plain
// 71 and 68, blocking 79 and 76), so the linkname is gone.
func datasync(fd int) error {
	if fakeSyncUsec >= 0 {
		return fakeDatasync()
	}
	for {
		err := unix.Fdatasync(fd)
		if err != unix.EINTR {
			return err
		}
	}
}
