package command

import "time"

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
	// (XREADGROUP then answers an error). What serve propagates is one
	// execution unit, as a command's effects are.
	Block(argv, keys [][]byte, timeout time.Duration, serve Serve, serveGone bool)
	// SignalReady marks key as able to serve the clients blocked on it,
	// after a change AddKey does not announce (XADD to an existing
	// stream, XGROUP DESTROY).
	SignalReady(key []byte)
}

// Serve serves a blocked client from key, which was signalled ready; it
// reports whether it replied (see Blocker.Block).
type Serve func(c Ctx, argv [][]byte, key []byte) bool
