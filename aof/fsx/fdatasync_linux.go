//go:build linux

package fsx

import "golang.org/x/sys/unix"

// datasync is Redis's redis_fsync on Linux: fdatasync flushes the data and the
// metadata needed to read it back (the size), not timestamps.
func datasync(fd int) error {
	for {
		err := unix.Fdatasync(fd)
		if err != unix.EINTR {
			return err
		}
	}
}
