//go:build unix && !linux

package fsx

import "golang.org/x/sys/unix"

// datasync is fsync(2).
func datasync(fd int) error {
	for {
		err := unix.Fsync(fd)
		if err != unix.EINTR {
			return err
		}
	}
}
