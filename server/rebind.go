package server

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"syscall"

	"github.com/aofserver/aofserver/config"
)

// listenError is a listener that could not be opened, logged as Redis's
// listenToPort does.
type listenError struct {
	addr string
	port int
	err  error
}

func (e *listenError) Error() string {
	reason := e.err.Error()
	var errno syscall.Errno
	if errors.As(e.err, &errno) {
		reason = "bind: " + errnoText(errno) // anetTcpServer's "bind: %s"
	}
	return fmt.Sprintf("Could not create server TCP listening socket %s:%d: %s", e.addr, e.port, reason)
}

func (e *listenError) Unwrap() error { return e.err }

// rebind is the apply step of CONFIG SET port and bind (Redis's
// changeListenPort and changeBindAddr): the old listeners close first (the
// new addresses may share their port), then the new ones open; port 0
// stops TCP listening. When one cannot open, the old ones are opened
// again and the error names the directive, whose value CONFIG SET then
// restores. Called under the executor lock with the names that changed.
func (s *Server) rebind(changed []string) error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	select {
	case <-s.closing:
		return nil // shutting down: no new listeners
	default:
	}
	if !s.serving {
		return nil // before Serve: Listen opens what is configured
	}
	for _, ln := range s.listeners {
		ln.Close()
	}
	s.listeners = nil
	if s.cfg.Port == 0 {
		s.lnBinds, s.lnPort = s.cfg.Bind, 0
		return nil
	}
	lns, _, err := openListeners(s.cfg.Bind, s.cfg.Port)
	if err != nil {
		s.log.Warn().Msgf("Warning: %v", err)
		if s.lnPort != 0 {
			old, _, rerr := openListeners(s.lnBinds, s.lnPort)
			if rerr != nil {
				s.log.Warn().Msgf("Failed to restore old listening sockets: %v", rerr)
			}
			s.adoptListeners(old)
		}
		// Redis applies bind before port when both change in one call
		// only if bind comes first; either way one error is reported.
		if slices.Contains(changed, "bind") && (!slices.Contains(changed, "port") || slices.Index(changed, "bind") < slices.Index(changed, "port")) {
			return &config.ApplyError{Name: "bind", Err: errors.New("Failed to bind to specified addresses.")}
		}
		return &config.ApplyError{Name: "port", Err: errors.New("Unable to listen on this port. Check server logs.")}
	}
	s.adoptListeners(lns)
	s.lnBinds, s.lnPort = s.cfg.Bind, s.cfg.Port
	return nil
}

// adoptListeners makes lns the listeners and accepts on them (lnMu held).
func (s *Server) adoptListeners(lns []net.Listener) {
	s.listeners = lns
	for _, ln := range lns {
		s.startAccept(ln)
	}
}
