package server

import (
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/stream"
)

// The stream value is package stream; here are the server's ties to it.

// streamNodeLimits are stream-node-max-entries and stream-node-max-bytes
// as configured.
func (s *Server) streamNodeLimits() stream.NodeLimits {
	return stream.NodeLimits{MaxEntries: s.cfg.StreamNodeMaxEntries, MaxBytes: s.cfg.StreamNodeMaxBytes}
}

// streamID replies id as a bulk string, "<ms>-<seq>".
func (c *client) streamID(id stream.ID) {
	var buf [48]byte
	c.bulk(stream.AppendID(buf[:0], id))
}

// newStreamEntry is a stream as a keyspace value.
func newStreamEntry(s *stream.Stream) entry { return newObjEntry(typStream, unsafe.Pointer(s)) }

// streamFromRDBValue builds a stream from a decoded value with the node
// limits of s (Redis's defaults without a server).
func streamFromRDBValue(v *rdb.Value, s *Server) *stream.Stream {
	lim := stream.DefaultNodeLimits
	if s != nil && s.cfg != nil {
		lim = s.streamNodeLimits()
	}
	return stream.FromRDB(v, lim)
}
