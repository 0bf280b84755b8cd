package persist

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
)

// Snapshots are written to disk by a child process, as Redis does with
// fork: a fresh exec of this binary receives the stream on stdin and owns
// the write, the fsync and the close of the temp file. It can be seen with
// `pgrep -P <pid>`, and killed: the save then fails cleanly.

// ChildFlag is the hidden argument that runs the binary as a snapshot
// writer: ChildFlag path [final].
const ChildFlag = "--internal-snapshot-writer"

// RunChild runs the snapshot writer when args (without the program name)
// ask for it; cmd/server and the tests' TestMain call it first.
func RunChild(args []string) (code int, ok bool) {
	if (len(args) != 2 && len(args) != 3) || args[0] != ChildFlag {
		return 0, false
	}
	final := ""
	if len(args) == 3 {
		final = args[2]
	}
	return runSnapshotWriter(args[1], final), true
}

// runSnapshotWriter copies stdin into path and fsyncs it, then renames it
// to final if one is given (Redis's rewrite child writes
// temp-rewriteaof-<pid>.aof and renames it temp-rewriteaof-bg-<pid>.aof
// once complete). It exits non-zero on any error, and removes the file.
// SIGUSR1 (the server stopping it on purpose) ends it at once with
// childExitKilled, as Redis's child: a Go program ignores SIGUSR1 unless
// it asks for it.
func runSnapshotWriter(path, final string) int {
	pid := os.Getpid()
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		<-usr1
		os.Exit(childExitKilled)
	}()
	if final != "" {
		final = childPath(final, pid)
	}
	// The child is another process: the parent's FS cannot be handed
	// over, so it writes through the operating system's (tests that
	// substitute the parent's run the writer in process: spawnInProc).
	if err := writeSnapshot(fsx.OS(), os.Stdin, childPath(path, pid), final); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeSnapshot is the snapshot writer's work: copy in into path through
// fsys with an fsync every 4 MB and at the end, close, and rename to final
// if set. On error path is removed and the error is the line Redis's child
// logs for the failed step: rdbSave's for BGSAVE, rewriteAppendOnlyFile's
// for a rewrite (the one job that names a final file).
func writeSnapshot(fsys fsx.FS, in io.Reader, path, final string) error {
	rewrite := final != ""
	f, err := fsys.Create(path)
	if err != nil {
		if rewrite {
			return fmt.Errorf("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s", rstring.Strerror(err))
		}
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %s",
			filepath.Base(path), filepath.Dir(path), rstring.Strerror(err))
	}
	fail := func(err error) error {
		f.Close()
		fsys.Remove(path)
		if rewrite {
			return fmt.Errorf("Write error writing append only file on disk: %s", rstring.Strerror(err))
		}
		return fmt.Errorf("Write error saving DB on disk: %s", rstring.Strerror(err))
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rd := bufio.NewReaderSize(in, 1<<20)
	var written int64
	buf := make([]byte, 1<<20)
	for {
		n, rerr := rd.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return fail(err)
			}
			written += int64(n)
			// Incremental fsync every 4 MB, like aof-rewrite-incremental-fsync.
			if written >= 4<<20 {
				if err := w.Flush(); err != nil {
					return fail(err)
				}
				if err := f.Sync(); err != nil {
					return fail(err)
				}
				written = 0
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fail(rerr)
		}
	}
	// The parent closes stdin only after the complete stream; a killed
	// parent also closes it, so the stream must end with a marker we check
	// in the parent (the parent only installs a file after a clean child
	// exit AND a completed stream).
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if final != "" {
		if err := fsys.Rename(path, final); err != nil {
			fsys.Remove(path)
			return fmt.Errorf("Error moving temp append only file on the final destination: %s", rstring.Strerror(err))
		}
	}
	return nil
}

// pidPlaceholder in the paths given to Jobs.start stands for the child's
// pid: Redis names temp files after the child (temp-<pid>.rdb,
// temp-rewriteaof-bg-<pid>.aof), and its tests look for them so.
const pidPlaceholder = "{pid}"

func childPath(template string, pid int) string {
	return strings.ReplaceAll(template, pidPlaceholder, strconv.Itoa(pid))
}

// child is a running snapshot writer.
type child struct {
	proc  *os.Process
	done  chan struct{}
	err   error            // why the stream or the child failed, after done
	state *os.ProcessState // how the child ended, after done (nil: never ran)
	start time.Time
	path  string // the file it writes
	// inproc: the writer is a goroutine of this process writing through
	// the server's FS (tests that substitute it: spawnInProc); exit is its
	// exit code, stop ends it.
	inproc bool
	pid    int
	exit   int
	stop   func()
	// killed: the server stopped it on purpose (SIGUSR1, as Redis): the
	// save is not an error.
	killed atomic.Bool
}

// spawn starts the writer for path and feeds it from q. The process is
// started here, on the executor, as Redis forks: a client that has the
// reply to BGSAVE finds the child with `pgrep -P` (Redis's tests kill it
// so), and a kill reaches a child that exists. The exec takes 0.5-1.3 ms
// of the executor here; Redis's fork took 4-6 ms on the same machine.
// Feeding and reaping run on their own goroutine. The child writes path
// and, if final is set, renames it so once complete; either may hold
// pidPlaceholder. cp.path is the real name of the file the child leaves.
func (js *Jobs) spawn(path, final string, q *Pipe, startedMsg string) (*child, error) {
	if js.InProc {
		return js.spawnInProc(path, final, q, startedMsg)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cp := &child{done: make(chan struct{}), start: time.Now()}
	args := []string{ChildFlag, path}
	if final != "" {
		args = append(args, final)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout = nil
	// What the writer prints is the line Redis's child logs for its
	// failure: it goes to the log (exec's copier ends before Wait returns).
	cmd.Stderr = &childLog{log: js.log}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	growPipe(stdin)
	cmd.Stdin = pr
	t0 := time.Now()
	err = cmd.Start()
	pr.Close()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	js.LatestForkUsec.Store(time.Since(t0).Microseconds())
	if js.onFork != nil {
		js.onFork(time.Since(t0))
	}
	js.TotalForks.Add(1)
	cp.proc = cmd.Process
	cp.pid = cmd.Process.Pid
	cp.path = childPath(path, cmd.Process.Pid)
	if final != "" {
		cp.path = childPath(final, cmd.Process.Pid)
	}
	js.log.Notice(fmt.Sprintf("%s by pid %d", startedMsg, cmd.Process.Pid))
	go cp.run(cmd, stdin, q)
	return cp, nil
}

// childLog logs each line a child process prints, as a warning.
type childLog struct {
	log Log
	buf []byte
}

func (l *childLog) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.log.Warning(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}

// inProcPids numbers in-process writers as a child's pid names its temp
// files; they start above any real pid (pid_max is at most 2^22).
var inProcPids atomic.Int64

// spawnInProc is spawn for tests that substitute the server's FS
// (fsx.CrashFS): a child process could not write through it, so the writer
// runs as a goroutine fed through a pipe, under a made-up pid. Killing it
// closes the pipe's read end, which fails its read as a killed child's
// file is left incomplete; its exit code is then childExitKilled.
func (js *Jobs) spawnInProc(path, final string, q *Pipe, startedMsg string) (*child, error) {
	pid := int(1<<22 + inProcPids.Add(1))
	cp := &child{done: make(chan struct{}), start: time.Now(), inproc: true, pid: pid}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cp.path = childPath(path, pid)
	if final != "" {
		final = childPath(final, pid)
		cp.path = final
	}
	cp.stop = func() { pr.Close() }
	js.TotalForks.Add(1)
	js.log.Notice(fmt.Sprintf("%s by pid %d", startedMsg, pid))
	fsys := js.fs()
	tmp := childPath(path, pid)
	go func() {
		feedDone := make(chan error, 1)
		go func() { feedDone <- q.feedAll(pw) }()
		werr := writeSnapshot(fsys, pr, tmp, final)
		pr.Close()
		switch {
		case werr == nil:
		case cp.killed.Load():
			cp.exit = childExitKilled
		default:
			// The line a child process prints (Redis's child logs it).
			js.log.Warning(werr.Error())
			cp.exit = 1
			q.Fail(fmt.Errorf("snapshot writer exited: %w", werr))
		}
		cp.err = firstErr(werr, <-feedDone)
		close(cp.done)
	}()
	return cp, nil
}

// run feeds the started child from q and reaps it.
func (cp *child) run(cmd *exec.Cmd, stdin *os.File, q *Pipe) {
	feedDone := make(chan error, 1)
	go func() { feedDone <- q.feedAll(stdin) }()
	werr := cmd.Wait()
	if werr != nil {
		// The feeder may be asleep until a batch gathers: wake it,
		// and stop the walk, now.
		q.Fail(fmt.Errorf("snapshot writer exited: %w", werr))
	}
	ferr := <-feedDone
	if werr == nil && ferr != nil {
		werr = ferr
	}
	cp.err = werr
	cp.state = cmd.ProcessState
	close(cp.done)
}

// exitStatus is how the child ended, as Redis's checkChildrenDone reads
// waitpid: the signal that killed it (0 if it exited) and its exit code
// (-1 if signalled). A writer that exits with childExitKilled was stopped
// with SIGUSR1, and counts as killed by it, as Redis's child that exits
// with SERVER_CHILD_NOERROR_RETVAL.
func (cp *child) exitStatus() (signal, code int) {
	if cp.inproc {
		if cp.exit == childExitKilled {
			return sigUSR1, 1
		}
		return 0, cp.exit
	}
	st := cp.state
	if st == nil {
		return 0, 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if ws.Signal() == syscall.SIGKILL && cp.killed.Load() {
			return sigUSR1, -1 // kill's stand-in for SIGUSR1
		}
		return int(ws.Signal()), -1
	}
	code = st.ExitCode()
	if code == childExitKilled {
		return sigUSR1, 1
	}
	return 0, code
}

// sigUSR1 is the signal that stops a child on purpose.
const sigUSR1 = int(syscall.SIGUSR1)

// childExitKilled is the writer's exit code when SIGUSR1 stopped it
// (Redis's SERVER_CHILD_NOERROR_RETVAL).
const childExitKilled = 255

// kill stops the child on purpose, as Redis's killRDBChild and
// killAppendOnlyChild, which send SIGUSR1: the job then ends as killed by
// SIGUSR1, which is not a failure. The signal sent is SIGKILL: a child
// that has not yet reached runSnapshotWriter's handler would ignore
// SIGUSR1 (the Go runtime does, unless asked), and a synchronous kill
// must not wait on it.
func (cp *child) kill() {
	cp.killed.Store(true)
	if cp.inproc {
		cp.stop()
		return
	}
	cp.proc.Kill()
}
