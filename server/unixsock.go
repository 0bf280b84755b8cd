package server

import (
	"errors"
	"net"
	"os"
	"syscall"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
)

// The unixsocket directive: clients are accepted on a Unix socket too, as
// Redis 7.0.15's initServer/anetUnixServer and finishShutdown do it.

// UnixSocketError is a Unix socket that could not be opened; Redis logs it
// as "Failed opening Unix socket: <reason>" and exits.
type UnixSocketError struct{ Err error }

func (e *UnixSocketError) Error() string {
	reason := e.Err.Error()
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		// anetUnixServer's "bind: %s": bind is where a path fails (Go
		// reports the whole net.Listen as "listen").
		reason = "bind: " + rstring.Strerror(errno)
	}
	return "Failed opening Unix socket: " + reason
}

func (e *UnixSocketError) Unwrap() error { return e.Err }

// openUnixSocket listens on path as Redis does: a file left there goes
// first (unlink, its error ignored), the socket gets perm when non-zero.
func openUnixSocket(path string, perm int) (net.Listener, error) {
	fsx.OS().Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, &UnixSocketError{Err: err}
	}
	// finishShutdown removes the file, with its log line; a listener
	// closed otherwise (a failed start) leaves it as Redis does.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if perm != 0 {
		if err := os.Chmod(path, os.FileMode(perm)); err != nil {
			ln.Close()
			return nil, &UnixSocketError{Err: err}
		}
	}
	return ln, nil
}

// isUnixConn reports a connection accepted on the Unix socket.
func isUnixConn(nc net.Conn) bool {
	_, ok := nc.LocalAddr().(*net.UnixAddr)
	return ok
}

// FinishShutdown is the end of Redis's finishShutdown, once persistence is
// done: the pid file and the Unix socket file are removed, each with
// Redis's log line.
func (s *Server) FinishShutdown() {
	if s.cfg.Pidfile != "" {
		s.log.Info().Msg("Removing the pid file.")
		fsx.OS().Remove(s.cfg.Pidfile)
	}
	s.lnMu.Lock()
	ln := s.unixLn
	s.unixLn = nil
	s.lnMu.Unlock()
	if ln != nil {
		ln.Close()
		s.log.Info().Msg("Removing the unix socket file.")
		if err := fsx.OS().Remove(s.cfg.UnixSocket); err != nil {
			s.log.Warn().Msgf("Error removing the unix socket file: %s", rstring.Strerror(err))
		}
	}
}
