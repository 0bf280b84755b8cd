package server

// Redis 7.0.15's per-client static reply buffer, as CLIENT LIST (rbs=,
// rbp=) and INFO (reply_buffer_shrinks/expands) show it. Our replies are
// built in c.out, so the buffer is a model fed by the same events: each
// command's reply adds to what waits for the next write (bufpos, capped at
// the buffer's size: the rest would go to the reply list), and
// clientsCronResizeOutputBuffer shrinks or doubles the buffer from its
// recent peak. All under s.mu.

import "github.com/aofserver/aofserver/memsize"

const (
	protoReplyChunkBytes  = 16 * 1024 // PROTO_REPLY_CHUNK_BYTES: a new client's buffer
	protoReplyMinBytes    = 1024      // PROTO_REPLY_MIN_BYTES: the smallest it shrinks to
	replyBufPeakResetTime = 5000      // REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME, ms
)

// replyBuf is a client's buffer: usable size, peak since the last reset,
// and when (ms) the peak was last reset (0: never; the first cron does).
type replyBuf struct {
	usable, peak int64
	resetAt      int64
}

func newReplyBuf() replyBuf {
	// createClient: buf_peak starts at the buffer's size.
	return replyBuf{usable: protoReplyChunkBytes, peak: protoReplyChunkBytes}
}

// noteReply is _addReplyToBuffer's peak: pending is the reply bytes
// waiting for the client's next write.
func (b *replyBuf) noteReply(pending int) {
	b.peak = max(b.peak, min(int64(pending), b.usable))
}

// cronResize is clientsCronResizeOutputBuffer: bufpos is what waits in the
// buffer now.
func (s *Server) cronResizeReplyBuf(b *replyBuf, bufpos int64, nowMs int64) {
	if !s.dbg.replyBufNoResize {
		var size int64
		switch {
		case b.usable/2 >= protoReplyMinBytes && b.peak < b.usable/2:
			size = max(protoReplyMinBytes, b.peak+1)
			s.stats.replyBufShrinks++
		case b.usable*2 < protoReplyChunkBytes*2 && b.peak == b.usable:
			size = min(protoReplyChunkBytes, b.usable*2)
			s.stats.replyBufExpands++
		}
		// The peak is reset every reply-buffer peak reset time, so that
		// an idle client's buffer shrinks.
		if reset := s.dbg.replyBufPeakReset; reset >= 0 && nowMs-b.resetAt >= reset {
			b.peak = min(bufpos, b.usable)
			b.resetAt = nowMs
		}
		if size > 0 {
			b.usable = memsize.Jemalloc(size) // zmalloc_usable
		}
	}
}

// debugReplyBuffer is DEBUG REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|ms>
// and DEBUG REPLYBUFFER RESIZING <0|1>.
func debugReplyBuffer(c *client, argv [][]byte) {
	s := c.srv
	switch {
	case eqFold(argv[2], "peak-reset-time"):
		switch {
		case eqFold(argv[3], "never"):
			s.dbg.replyBufPeakReset = -1
		case eqFold(argv[3], "reset"):
			s.dbg.replyBufPeakReset = replyBufPeakResetTime
		default:
			v, ok := parseInt(argv[3])
			if !ok {
				c.err(errNotInt)
				return
			}
			s.dbg.replyBufPeakReset = v
		}
	case eqFold(argv[2], "resizing"):
		s.dbg.replyBufNoResize = cAtoi(argv[3]) == 0
	default:
		c.err(subcommandSyntaxError(argv))
		return
	}
	c.ok()
}
