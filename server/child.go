package server

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

// Snapshots are written to disk by a child process, as Redis does with
// fork: a fresh exec of this binary receives the stream on stdin and owns
// the write, the fsync and the close of the temp file. It can be seen with
// `pgrep -P <pid>`, and killed: the save then fails cleanly.

// ChildFlag is the hidden argument that runs the binary as a snapshot
// writer; cmd/server dispatches it to RunSnapshotWriter.
const ChildFlag = "--internal-snapshot-writer"

// RunSnapshotWriter copies stdin into path and fsyncs it. It exits non-zero
// on any error, and removes the file.
func RunSnapshotWriter(path string) int {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Failed opening the temp file %s for saving: %v\n", path, err)
		return 1
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "Write error saving DB on disk: %v\n", err)
		f.Close()
		os.Remove(path)
		return 1
	}
	w := bufio.NewWriterSize(f, 1<<20)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var written int64
	buf := make([]byte, 1<<20)
	for {
		n, rerr := in.Read(buf)
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
		os.Remove(path)
		return 1
	}
	return 0
}

// childProc is a running snapshot writer.
type childProc struct {
	proc  atomic.Pointer[os.Process] // nil until it started
	done  chan struct{}
	err   error // exit status, after done
	start time.Time
	path  string
	// killed: the server stopped it on purpose (SIGUSR1, as Redis): the
	// save is not an error.
	killed atomic.Bool
}

// spawnChild starts the writer for path and feeds it from q. The process
// is started by a goroutine, not by the caller (the executor): exec of a
// fresh process took 0.5-1.3 ms here, and every client waited that long at
// each BGSAVE and BGREWRITEAOF (Redis's fork stalls it too, 4-6 ms here).
// The walk needs no child: what it stages waits in q, and walkHighWater
// holds it back. startedMsg is logged with " by pid N" once it runs; a
// failed start ends the child with that error, like a child that died.
func (s *Server) spawnChild(path string, q *snapQueue, startedMsg string) (*childProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cp := &childProc{done: make(chan struct{}), start: time.Now(), path: path}
	go s.runChild(cp, exe, q, startedMsg)
	return cp, nil
}

func (s *Server) runChild(cp *childProc, exe string, q *snapQueue, startedMsg string) {
	cmd := exec.Command(exe, ChildFlag, cp.path)
	cmd.Stdout = nil
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	fail := func(err error) {
		s.log.Warn().Msgf("Can't start the snapshot writer: %v", err)
		q.fail(err)
		cp.err = err
		close(cp.done)
	}
	pr, stdin, err := os.Pipe()
	if err != nil {
		fail(err)
		return
	}
	growPipe(stdin)
	cmd.Stdin = pr
	t0 := time.Now()
	err = cmd.Start()
	pr.Close()
	if err != nil {
		stdin.Close()
		fail(err)
		return
	}
	s.persist.latestForkUsec.Store(time.Since(t0).Microseconds())
	s.persist.totalForks.Add(1)
	cp.proc.Store(cmd.Process)
	if cp.killed.Load() {
		cp.signal() // killed before it ran
	}
	s.log.Info().Msgf("%s by pid %d", startedMsg, cmd.Process.Pid)
	feedDone := make(chan error, 1)
	go func() {
		ferr := q.feed(stdin)
		if ferr != nil {
			q.fail(ferr)
		}
		q.mu.Lock()
		if q.err != nil && ferr == nil {
			ferr = q.err
		}
		q.mu.Unlock()
		stdin.Close()
		feedDone <- ferr
	}()
	werr := cmd.Wait()
	if werr != nil {
		// The feeder may be asleep until a batch gathers: wake it,
		// and stop the walk, now.
		q.fail(fmt.Errorf("snapshot writer exited: %w", werr))
	}
	ferr := <-feedDone
	if werr == nil && ferr != nil {
		werr = ferr
	}
	cp.err = werr
	close(cp.done)
}

// whenChildDone runs fn once the child has exited; Shutdown waits for it.
func (s *Server) whenChildDone(cp *childProc, fn func()) {
	s.children.Add(1)
	go func() {
		defer s.children.Done()
		<-cp.done
		fn()
	}()
}

// kill stops the child (SIGUSR1, then SIGKILL a second later). One not
// started yet is stopped as soon as it is.
func (cp *childProc) kill() {
	cp.killed.Store(true)
	cp.signal()
}

func (cp *childProc) signal() {
	if p := cp.proc.Load(); p != nil {
		p.Signal(syscall.SIGUSR1)
		time.AfterFunc(time.Second, func() { p.Kill() })
	}
}

// pidOf is the child's pid for log lines (0 before it started).
func (cp *childProc) pidOf() int {
	if p := cp.proc.Load(); p != nil {
		return p.Pid
	}
	return 0
}

func absPath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
