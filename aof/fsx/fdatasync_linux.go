//go:build linux

package fsx

import (
	_ "unsafe" // go:linkname

	"golang.org/x/sys/unix"
)

// datasync is Redis's redis_fsync on Linux: fdatasync flushes the data and the
// metadata needed to read it back (the size), not timestamps.
func datasync(fd int, blocking bool) error {
	if fakeSyncUsec >= 0 {
		return fakeDatasync()
	}
	for {
		var err error
		if blocking {
			if e := blockingFdatasync(fd); e != 0 {
				err = e
			}
		} else {
			err = unix.Fdatasync(fd)
		}
		if err != unix.EINTR {
			return err
		}
	}
}

// blockingFdatasync is syscall.Syscall(SYS_FDATASYNC) entered the way the
// runtime enters calls it knows will block: the P is handed off at once
// instead of being retaken by sysmon later. An fdatasync always blocks for
// a disk round trip (0.3-1 ms here); entered as an ordinary syscall by the
// AOF writer while the network loop sat in epoll_wait on the other P,
// sysmon found no idle P, retook this one after 20 µs and went on polling
// every 20 µs: a sixth of the server's CPU under appendfsync always at
// -P 16. Not for a goroutine that is alone in the process at the time (the
// loop's own fsync at one client): handing its P off then starts another
// thread to poll the network, a wake-up per fsync. (The runtime exports
// these two for this use; gVisor's rawfile does the same.)
//
//go:nosplit
func blockingFdatasync(fd int) unix.Errno {
	entersyscallblock()
	_, _, e := unix.RawSyscall(unix.SYS_FDATASYNC, uintptr(fd), 0, 0)
	exitsyscall()
	return e
}

//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()
