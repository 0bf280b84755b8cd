package command

import (
	"math"
	"strconv"
	"time"

	"github.com/aofserver/aofserver/rstring"
)

// Blocker is for a command that blocks on keys itself and for the
// commands that wake it. The blocking list and sorted-set pops stay in
// server, which owns blocking, and call their group's serve function; a
// stream read (XREAD, XREADGROUP with BLOCK) knows whether it must wait
// only after reading its streams, so it asks the server to park it.
type Blocker interface {
	// CanBlock reports whether the client may block: not inside MULTI,
	// a script or the AOF loader (Redis's CLIENT_DENY_BLOCKING).
	CanBlock() bool
	// InScript reports that the command runs from a script (EVAL,
	// FCALL), where some options are refused rather than ignored.
	InScript() bool
	// Block parks the client on keys until timeout passes (0: never) with
	// argv, the command as sent. Each time one of the keys is signalled
	// ready, serve is called with argv and that key: it replies and
	// returns true when it served the client, false to keep it waiting.
	// With serveGone it is called also when the key no longer exists
	// (XREADGROUP then answers an error).
	Block(argv, keys [][]byte, timeout time.Duration, serve Serve, serveGone bool)
	// BeginUnit and EndUnit make what a serve propagates between them one
	// execution unit, wrapped in MULTI/EXEC if there are two ops or more,
	// as Redis serves XREADGROUP inside a call(). Outside a command only:
	// a command's effects are one unit already.
	BeginUnit()
	EndUnit()
	// SignalReady marks key as able to serve the clients blocked on it,
	// after a change AddKey does not announce (XADD to an existing
	// stream, XGROUP DESTROY).
	SignalReady(key []byte)
}

// Serve serves a blocked client from key, which was signalled ready; it
// reports whether it replied (see Blocker.Block).
type Serve func(c Ctx, argv [][]byte, key []byte) bool

// ParseBlockTimeout parses a blocking pop's timeout in seconds (a double,
// 0 = forever) as Redis 7.0's getTimeoutFromObjectOrReply; ok=false after
// replying an error.
func ParseBlockTimeout(c Replier, b []byte) (time.Duration, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || len(b) == 0 || rstring.IsSpace(b[0]) {
		c.Err("ERR timeout is not a float or out of range")
		return 0, false
	}
	if f < 0 {
		c.Err("ERR timeout is negative")
		return 0, false
	}
	if f*1000 > float64(math.MaxInt64/int64(time.Millisecond)) {
		c.Err("ERR timeout is out of range")
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// ServeOrBlock is a blocking pop (BLPOP, BLMOVE, BZPOPMIN, ...): serve
// runs at once (later false); if it served nothing the client blocks on
// keys and serve runs again (later true) each time one of them is ready,
// or, where the client may not block, it gets a null reply: a null array,
// or a null bulk string if nullBulk (BLMOVE, BRPOPLPUSH).
func ServeOrBlock(c Ctx, argv, keys [][]byte, timeout time.Duration, nullBulk bool, serve func(c Ctx, argv [][]byte, later bool) bool) {
	if serve(c, argv, false) {
		return
	}
	if !c.CanBlock() {
		if nullBulk {
			c.Null()
		} else {
			c.NullArray()
		}
		return
	}
	c.Block(argv, keys, timeout, func(c Ctx, argv [][]byte, _ []byte) bool { return serve(c, argv, true) }, false)
}
