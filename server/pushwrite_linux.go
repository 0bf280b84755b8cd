package server

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

type pushIovec = unix.Iovec

// writeTaken writes the chunks the push writer took from pushQ. Each
// writev(2) is non-blocking and runs under pushMu together with releasing
// the chunks it completed from pushQ's in-flight count: a peer that got
// the bytes and asks CLIENT INFO about itself can no longer find them
// still counted in its omem (Redis's reply list loses a block in the same
// step as its write). It returns the bytes written and how many chunks it
// released; the caller's done releases the others.
func (c *client) writeTaken(bufs [][]byte, nb *net.Buffers) (int64, int, error) {
	sc, ok := c.conn.(syscall.Conn)
	if !ok {
		return c.writeTakenBlocking(bufs, nb)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c.writeTakenBlocking(bufs, nb)
	}
	var n int64
	released, off := 0, 0
	var werr error
	iov := c.pushIov[:0]
	err = rc.Write(func(fd uintptr) bool {
		for {
			c.pushMu.Lock()
			for released < len(bufs) && off == len(bufs[released]) {
				released++
				off = 0
				c.pushQ.inflight -= replyChunkSize
			}
			if released == len(bufs) {
				c.pushMu.Unlock()
				return true
			}
			iov = iov[:0]
			for i, b := range bufs[released:] {
				if i == 0 {
					b = b[off:]
				}
				if len(b) > 0 {
					iov = append(iov, unix.Iovec{Base: &b[0], Len: uint64(len(b))})
				}
			}
			k, _, e := unix.Syscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
			if e == 0 {
				n += int64(k)
				for k > 0 {
					rem := uintptr(len(bufs[released]) - off)
					if k < rem {
						off += int(k)
						break
					}
					k -= rem
					released++
					off = 0
					c.pushQ.inflight -= replyChunkSize
				}
			}
			c.pushMu.Unlock()
			switch e {
			case 0:
			case unix.EINTR:
			case unix.EAGAIN:
				return false // wait until writable (or the deadline)
			default:
				werr = e
				return true
			}
		}
	})
	clear(iov) // the chunks go back to their pool
	c.pushIov = iov[:0]
	if werr != nil {
		err = werr
	}
	return n, released, err
}
