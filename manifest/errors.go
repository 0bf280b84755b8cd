package manifest

import (
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every *ParseError.
var ErrCorrupt = errors.New("manifest: corrupt")

// Redis's messages for a bad manifest (aof.c aofLoadManifestFromFile).
const (
	msgEmpty        = "Found an empty AOF manifest"
	msgTooLong      = "The AOF manifest file contains too long line"
	msgInvalid      = "Invalid AOF manifest file format"
	msgPath         = "File can't be a path, just a filename"
	msgDuplicate    = "Found duplicate base file information"
	msgNonMonotonic = "Found a non-monotonic sequence number"
	msgUnknownType  = "Unknown AOF file type"
	msgReadFailed   = "Read AOF manifest failed"
)

// ParseError reports a manifest Redis would refuse. Msg is exactly Redis's
// message; Line is the 1-based physical line (0 when Redis prints none) and
// Text the trimmed line, as Redis logs them.
type ParseError struct {
	Line int
	Text string
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "manifest: " + e.Msg
	}
	return fmt.Sprintf("manifest: line %d: %s: %q", e.Line, e.Msg, e.Text)
}

// Unwrap returns ErrCorrupt.
func (e *ParseError) Unwrap() error { return ErrCorrupt }
