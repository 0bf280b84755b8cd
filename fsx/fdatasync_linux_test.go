//go:build linux

package fsx

import (
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
	_ "unsafe" // go:linkname, for the comparison only

	"golang.org/x/sys/unix"
)

// blockingFdatasync is fdatasync entered the way the runtime enters calls
// it knows will block: the P is handed off at once instead of being
// retaken by sysmon later (the server did this before the benchmark below
// showed no gain).
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

// The process CPU an fdatasync costs while another goroutine sits in
// epoll_wait, as the network loop does beside the AOF writer: entered as
// an ordinary system call (Sync) or as one known to block (Blocking),
// at GOMAXPROCS 2 and 3 (the server's one more P than CPUs on 2 vCPUs).
// cpu-µs/op is user+system time of the whole process per fdatasync, the
// runtime's sysmon included.
func BenchmarkFdatasyncBesideEpollWait(b *testing.B) {
	for _, procs := range []int{2, 3} {
		for _, blocking := range []bool{false, true} {
			name := "procs=" + strconv.Itoa(procs) + "/Sync"
			if blocking {
				name = "procs=" + strconv.Itoa(procs) + "/Blocking"
			}
			b.Run(name, func(b *testing.B) { benchFdatasync(b, procs, blocking) })
		}
	}
}

func benchFdatasync(b *testing.B, procs int, blocking bool) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(ep)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(efd)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}); err != nil {
		b.Fatal(err)
	}
	waiting := make(chan struct{})
	done := make(chan struct{})
	go func() {
		var evs [1]unix.EpollEvent
		close(waiting)
		unix.EpollWait(ep, evs[:], -1) // until the eventfd is written
		close(done)
	}()
	<-waiting
	f, err := OS().Create(filepath.Join(b.TempDir(), "f"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fd := int(f.(osFile).f.Fd())
	line := []byte("*1\r\n$4\r\nPING\r\n")
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &r0)
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if blocking {
			if e := blockingFdatasync(fd); e != 0 {
				err = e
			}
		} else {
			err = f.Sync()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) + time.Duration(r1.Stime.Nano()-r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	unix.Write(efd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	<-done
}
