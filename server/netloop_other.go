//go:build !linux

package server

import (
	"errors"
	"net"

	"github.com/aofserver/aofserver/aof"
)

// Without epoll every connection is served on its own goroutine.

type netLoop struct{}

type loopConn struct{}

func (s *Server) startNetLoops()                  {}
func (s *Server) stopNetLoops()                   {}
func (s *Server) walkOnLoop(*snapshot) bool       { return false }
func (s *Server) installAckHook(*aof.AOF)         {}
func (l *netLoop) adopt(*client, net.Conn) bool   { return false }
func (c *client) detachLocked()                   {}
func (c *client) requestAsync()                   {}
func (lc *loopConn) writeNow([]byte) (int, error) { return 0, errors.New("no network loop") }
