package server

import "github.com/aofserver/aofserver/config"

// outputLimit returns client-output-buffer-limit for a class (0 normal,
// 2 pubsub).
func (s *Server) outputLimit(class int) config.OutputBufferLimit {
	return s.cfg.ClientOutputBufferLimit[class]
}

// Blocking commands (BLPOP & co.) arrive with the rest of Redis 7.0's data
// commands; until then no client is ever blocked.
func (s *Server) blockedCount() int { return 0 }

func (s *Server) unblockClientOnClose(c *client) {}
