package aof

import (
	"errors"
	"fmt"

	"github.com/aofserver/aofserver/rstring"
)

// Errors returned by the AOF. Load errors are *LoadError values; corruption
// (bad format, unexpected end of file) wraps ErrCorrupt.
var (
	// ErrCorrupt marks an AOF file whose content cannot be replayed: a format
	// error, or a torn tail that may not (or could not) be truncated.
	ErrCorrupt = errors.New("aof: corrupt file")
	// ErrUnknownCommand is returned (wrapped) by a Loader for a command name it
	// does not know. Loading then fails, as in Redis.
	ErrUnknownCommand = errors.New("unknown command")
	// ErrClosed is returned by Wait and StartRewrite after Close.
	ErrClosed = errors.New("aof: closed")
	// ErrFatal is wrapped by Wait's error after a write or fsync failed under
	// the always policy (the server is expected to exit).
	ErrFatal = errors.New("aof: fatal write error")
	// ErrRewriteInProgress is returned by StartRewrite while a rewrite runs.
	ErrRewriteInProgress = errors.New("aof: background append only file rewriting already in progress")
	// ErrNotStarted is returned by operations that need Start first.
	ErrNotStarted = errors.New("aof: not started")
)

// LoadError describes why Load failed. Msg is Redis's log message for the
// case, word for word; File is the AOF file name (no directory) and Offset the
// byte offset in it where the problem was found (for a torn tail: the offset of
// the last complete command, where the file would be truncated).
type LoadError struct {
	File   string
	Offset int64
	Msg    string
	Err    error
}

func (e *LoadError) Error() string {
	s := fmt.Sprintf("aof: %s at offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *LoadError) Unwrap() error { return e.Err }

// Strerror is rstring.Strerror (C's strerror text for an errno), under the
// name aof's many log and error lines call.
func Strerror(err error) string { return rstring.Strerror(err) }

// corruptf returns an error wrapping ErrCorrupt with a detail message.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
