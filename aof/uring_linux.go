//go:build linux

package aof

import (
	"errors"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uringFsync submits fdatasync through io_uring and reports completions on
// an eventfd, so an event loop can have a file synced without blocking in
// the system call and without handing the call to another thread.
//
// Why (BenchmarkFsyncHandOff, 2-vCPU VM, ext4, append a record then
// fdatasync; CPU per op, the disk's speed drifting between runs): blocking
// inline 103-180 µs, io_uring with its eventfd in the caller's epoll
// 120-170 µs (within a few percent of inline in every run, and the caller
// stays free), handing the fdatasync to another goroutine that wakes the
// caller's epoll through an eventfd 173-195 µs (two thread wake-ups per
// op; what the network loop's syncer and the AOF writer pay today).
// Not wired into the write path: an experiment that had the loop submit
// through it under appendfsync always (instead of the syncer) served one
// client no faster (1250-1480 against 1410-1540 SET/s, Redis 2770-3030),
// so the hand-off is not what costs the most there.
//
// Durability: a completion with res == 0 means the file's data written
// before the submission is on stable storage (fdatasync's promise); res < 0
// is the negated errno of the failed fdatasync, which under appendfsync
// always must stop the server like a failed inline fsync.
//
// Not safe for concurrent use: one goroutine submits and reaps.
type uringFsync struct {
	fd   int
	sq   []byte // submission ring (head, tail, mask, index array)
	cq   []byte // completion ring; the same mapping as sq with IORING_FEAT_SINGLE_MMAP
	sqes []byte // submission queue entries, 64 bytes each
	efd  int    // eventfd registered for completions

	sqHead, sqTail, sqMask, sqArray uint32 // offsets into sq
	cqHead, cqTail, cqMask, cqCQEs  uint32 // offsets into cq
	entries                         uint32
}

// ioUringParams is struct io_uring_params.
type ioUringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

const (
	ioringOffSQRing       = 0
	ioringOffCQRing       = 0x8000000
	ioringOffSQEs         = 0x10000000
	ioringFeatSingleMmap  = 1 << 0
	ioringOpFsync         = 3
	ioringFsyncDatasync   = 1 << 0
	ioringRegisterEventFD = 4
	sqeSize               = 64
	cqeSize               = 16
)

// errRingFull: every submission slot holds an fsync not yet taken by the
// kernel; reap and retry.
var errRingFull = errors.New("io_uring submission queue full")

// newURingFsync sets up a ring of entries slots (a power of two) and its
// completion eventfd. It fails with ENOSYS or EPERM where io_uring is
// missing or disabled (kernel.io_uring_disabled).
func newURingFsync(entries uint32) (*uringFsync, error) {
	var p ioUringParams
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, e
	}
	r := &uringFsync{fd: int(fd), efd: -1, entries: p.sqEntries}
	fail := func(err error) (*uringFsync, error) {
		r.Close()
		return nil, err
	}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*cqeSize)
	single := p.features&ioringFeatSingleMmap != 0
	if single && cqSize > sqSize {
		sqSize = cqSize
	}
	var err error
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	if r.sq, err = unix.Mmap(r.fd, ioringOffSQRing, sqSize, prot, flags); err != nil {
		return fail(err)
	}
	if single {
		r.cq = r.sq
	} else if r.cq, err = unix.Mmap(r.fd, ioringOffCQRing, cqSize, prot, flags); err != nil {
		return fail(err)
	}
	if r.sqes, err = unix.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries*sqeSize), prot, flags); err != nil {
		return fail(err)
	}
	r.sqHead, r.sqTail, r.sqMask, r.sqArray = p.sqOff.head, p.sqOff.tail, p.sqOff.ringMask, p.sqOff.array
	r.cqHead, r.cqTail, r.cqMask, r.cqCQEs = p.cqOff.head, p.cqOff.tail, p.cqOff.ringMask, p.cqOff.cqes
	if r.efd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		r.efd = -1
		return fail(err)
	}
	efd := int32(r.efd)
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegisterEventFD,
		uintptr(unsafe.Pointer(&efd)), 1, 0, 0); e != 0 {
		return fail(e)
	}
	return r, nil
}

// EventFD is readable (and counts) once completions are waiting: add it to
// an epoll set, read it to clear it, then Reap.
func (r *uringFsync) EventFD() int { return r.efd }

func (r *uringFsync) word(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }

// SubmitDatasync asks the kernel to fdatasync fd; userData comes back with
// the completion. It returns once the kernel has taken the request.
func (r *uringFsync) SubmitDatasync(fd int, userData uint64) error {
	head := atomic.LoadUint32(r.word(r.sq, r.sqHead))
	tail := *r.word(r.sq, r.sqTail) // only we write it
	if tail-head >= r.entries {
		return errRingFull
	}
	idx := tail & *r.word(r.sq, r.sqMask)
	sqe := r.sqes[idx*sqeSize : (idx+1)*sqeSize]
	clear(sqe)
	sqe[0] = ioringOpFsync
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(fd)
	*(*uint32)(unsafe.Pointer(&sqe[28])) = ioringFsyncDatasync
	*(*uint64)(unsafe.Pointer(&sqe[32])) = userData
	*r.word(r.sq, r.sqArray+idx*4) = idx
	atomic.StoreUint32(r.word(r.sq, r.sqTail), tail+1) // publishes the entry
	for {
		_, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 1, 0, 0, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		default:
			return e
		}
	}
}

// Reap calls fn for every completion waiting (res: 0, or a negated errno)
// and returns how many there were.
func (r *uringFsync) Reap(fn func(userData uint64, res int32)) int {
	n := 0
	for {
		head := *r.word(r.cq, r.cqHead) // only we write it
		if head == atomic.LoadUint32(r.word(r.cq, r.cqTail)) {
			return n
		}
		off := r.cqCQEs + (head&*r.word(r.cq, r.cqMask))*cqeSize
		ud := *(*uint64)(unsafe.Pointer(&r.cq[off]))
		res := *(*int32)(unsafe.Pointer(&r.cq[off+8]))
		atomic.StoreUint32(r.word(r.cq, r.cqHead), head+1) // frees the slot
		fn(ud, res)
		n++
	}
}

// Close unmaps the rings and closes the ring and the eventfd. Requests in
// flight still complete in the kernel.
func (r *uringFsync) Close() error {
	if r.sqes != nil {
		unix.Munmap(r.sqes)
	}
	if r.cq != nil && len(r.sq) > 0 && &r.cq[0] != &r.sq[0] {
		unix.Munmap(r.cq)
	}
	if r.sq != nil {
		unix.Munmap(r.sq)
	}
	r.sq, r.cq, r.sqes = nil, nil, nil
	if r.efd >= 0 {
		unix.Close(r.efd)
		r.efd = -1
	}
	return unix.Close(r.fd)
}
