package server

import (
	"math/rand/v2"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// growPipe enlarges the pipe to the snapshot writer to 1 MB. With the
// default 64 KB the feeder and the child take turns every 64 KB: for a 1M
// key rewrite that was about 30,000 context switches against 5,000 (with
// snapFeedBatch), on a machine the save already keeps busy. Best effort:
// an unprivileged process gets at most fs.pipe-max-size (1 MB by default).
func growPipe(w *os.File) {
	if rc, err := w.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}

// debugDelay sleeps as Redis's debugDelay does for rdb-key-save-delay: d,
// with nanosleep as usleep (a Go timer sleeps to the next runtime timer
// tick, about 1 ms here, five times the 200 us Redis's tests set); a
// negative d sleeps 1 us with a probability of 1 in -d (in us).
func debugDelay(d time.Duration) {
	if d < 0 {
		if rand.Int64N(max(1, int64(-d/time.Microsecond))) != 0 {
			return
		}
		d = time.Microsecond
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
