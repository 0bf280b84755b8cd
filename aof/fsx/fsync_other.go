//go:build unix && !linux

package fsx

import "golang.org/x/sys/unix"

// datasync is fsync(2); blocking makes no difference here.
func datasync(fd int, blocking bool) error {
	for {
		err := unix.Fsync(fd)
		if err != unix.EINTR {
			return err
		}
	}
}
