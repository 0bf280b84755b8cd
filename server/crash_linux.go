//go:build linux

package server

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dieBySignal ends the process by sig with the kernel's default action, as
// a C program dies of it. The Go runtime ignores a SIGSEGV that was sent
// rather than caused and turns SIGABRT into its own crash dump, so the
// disposition is put back to SIG_DFL first.
func dieBySignal(sig syscall.Signal) {
	// struct kernel_sigaction on linux: handler, flags, restorer, mask.
	var act struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	var set unix.Sigset_t
	set.Val[0] = 1 << (uint(sig) - 1)
	unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	unix.Kill(os.Getpid(), sig)
	select {} // the signal is on its way
}
