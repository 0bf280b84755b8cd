package persist

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe enlarges the pipe to the snapshot writer to 1 MB. With the
// default 64 KB the feeder and the child take turns every 64 KB: for a 1M
// key rewrite that was about 30,000 context switches against 5,000 (with
// feedBatch), on a machine the save already keeps busy. Best effort: an
// unprivileged process gets at most fs.pipe-max-size (1 MB by default).
func growPipe(w *os.File) {
	if rc, err := w.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}
