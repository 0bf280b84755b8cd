//go:build linux

package aof

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func newTestRing(tb testing.TB) *uringFsync {
	r, err := newURingFsync(8)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		tb.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		tb.Fatalf("newURingFsync: %v", err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// tempIncr is a file holding one logged command, closed at the end.
func tempIncr(t *testing.T) *os.File {
	f, err := os.Create(filepath.Join(t.TempDir(), "incr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	return f
}

// waitRing waits for the ring's eventfd and returns the completions.
func waitRing(tb testing.TB, r *uringFsync, want int) map[uint64]int32 {
	got := map[uint64]int32{}
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < want {
		if time.Now().After(deadline) {
			tb.Fatalf("only %d of %d completions", len(got), want)
		}
		fds := []unix.PollFd{{Fd: int32(r.EventFD()), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, 1000); err != nil && err != unix.EINTR {
			tb.Fatalf("poll: %v", err)
		}
		var b [8]byte
		unix.Read(r.EventFD(), b[:])
		r.Reap(func(ud uint64, res int32) { got[ud] = res })
	}
	return got
}

// TestFsyncRingDatasync: completions come back on the eventfd with their
// user data; a successful fdatasync reports 0 and a failed one its errno
// (here EBADF), which the write path must treat like a failed inline fsync.
func TestFsyncRingDatasync(t *testing.T) {
	r := newTestRing(t)
	f := tempIncr(t)
	if err := r.SubmitDatasync(int(f.Fd()), 7); err != nil {
		t.Fatalf("submit: %v", err)
	}
	if err := r.SubmitDatasync(-1, 8); err != nil {
		t.Fatalf("submit on a bad descriptor: %v", err)
	}
	got := waitRing(t, r, 2)
	if got[7] != 0 {
		t.Fatalf("fdatasync of the file: res %d", got[7])
	}
	if got[8] != -int32(syscall.EBADF) {
		t.Fatalf("fdatasync of fd -1: res %d, want -EBADF", got[8])
	}
}

// TestFsyncRingRounds: the ring keeps working across rounds that use every
// slot (reaping frees completion slots for reuse).
func TestFsyncRingRounds(t *testing.T) {
	r := newTestRing(t)
	f := tempIncr(t)
	for round := 0; round < 3; round++ {
		for i := uint32(0); i < r.entries; i++ {
			if err := r.SubmitDatasync(int(f.Fd()), uint64(i)); err != nil {
				t.Fatalf("round %d submit %d: %v", round, i, err)
			}
		}
		got := waitRing(t, r, int(r.entries))
		for ud, res := range got {
			if res != 0 {
				t.Fatalf("round %d request %d: res %d", round, ud, res)
			}
		}
	}
}

// BenchmarkFsyncHandOff compares three ways for an event loop to get an
// appended record fdatasynced (cpu-us/op is the process's CPU time):
// inline (the loop blocks, as Redis's does), goroutine (another goroutine
// syncs and wakes the loop's epoll through an eventfd, as the writer and
// the syncer do), and uring (io_uring, its eventfd in the loop's epoll).
func BenchmarkFsyncHandOff(b *testing.B) {
	for _, mode := range []string{"inline", "goroutine", "uring"} {
		b.Run(mode, func(b *testing.B) {
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "incr"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			fd := int(f.Fd())
			efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
			if err != nil {
				b.Fatal(err)
			}
			defer unix.Close(efd)
			var r *uringFsync
			if mode == "uring" {
				r = newTestRing(b)
				efd = r.EventFD()
			}
			ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
			if err != nil {
				b.Fatal(err)
			}
			defer unix.Close(ep)
			unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)})
			evs := make([]unix.EpollEvent, 1)
			rec := []byte("*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$10\r\n0123456789\r\n")
			one := [8]byte{1}
			wait := func() {
				for {
					if n, _ := unix.EpollWait(ep, evs, -1); n > 0 {
						break
					}
				}
				var c [8]byte
				unix.Read(efd, c[:])
			}
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := unix.Write(fd, rec); err != nil {
					b.Fatal(err)
				}
				switch mode {
				case "inline":
					if err := unix.Fdatasync(fd); err != nil {
						b.Fatal(err)
					}
				case "goroutine":
					go func() {
						unix.Fdatasync(fd)
						unix.Write(efd, one[:])
					}()
					wait()
				case "uring":
					if err := r.SubmitDatasync(fd, uint64(i)); err != nil {
						b.Fatal(err)
					}
					for done := 0; done == 0; {
						wait()
						done = r.Reap(func(_ uint64, res int32) {
							if res != 0 {
								b.Fatalf("fdatasync: res %d", res)
							}
						})
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
