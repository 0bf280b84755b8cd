package server

import "github.com/aofserver/aofserver/config"

// outputLimit returns client-output-buffer-limit for a class (0 normal,
// 2 pubsub).
func (s *Server) outputLimit(class int) config.OutputBufferLimit {
	return s.cfg.ClientOutputBufferLimit[class]
}
