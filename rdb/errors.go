package rdb

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/listpack"
)

// ErrCorrupt is the sentinel for any malformed RDB content: bad lengths,
// bad encodings, truncated input, checksum mismatches. Test with errors.Is.
var ErrCorrupt = errors.New("rdb: corrupt data")

// ErrUnsupportedType is the sentinel for value types (and module opcodes)
// that are valid RDB but that this package cannot turn into a Value:
// modules and types introduced after RDB 10 (streams of RDB 11's type 21
// are decoded).
var ErrUnsupportedType = errors.New("rdb: unsupported value type")

// ErrUnsupportedVersion is returned for an RDB version outside 1..10.
var ErrUnsupportedVersion = errors.New("rdb: unsupported RDB version")

// ErrInvalidValue is returned by the encoder for a Value it cannot write
// (nil, unknown Kind, or an explicit encoding its contents do not fit).
var ErrInvalidValue = errors.New("rdb: invalid value")

// Redis's RESTORE replies, returned (wrapped) by ParseDumpPayload.
var (
	ErrDumpVersionOrChecksum = errors.New("ERR DUMP payload version or checksum are wrong")
	ErrBadDataFormat         = errors.New("ERR Bad data format")
)

// CorruptionError locates corrupt input. Offset is the byte offset in the
// stream (or payload) where the problem was detected; Key is set when the
// problem is inside a key's value.
type CorruptionError struct {
	Offset int64
	Key    string
	Err    error
}

func (e *CorruptionError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("rdb: corrupt data at offset %d (key %q): %v", e.Offset, e.Key, e.Err)
	}
	return fmt.Sprintf("rdb: corrupt data at offset %d: %v", e.Offset, e.Err)
}

// Unwrap lets errors.Is match both ErrCorrupt and the cause (for example
// io.ErrUnexpectedEOF for truncated input).
func (e *CorruptionError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// UnsupportedTypeError reports a value type this package does not decode.
// Decoding stops at that key; everything before it was already delivered.
// Decode skips MODULE_2 values and goes on, so the visitor sees
// every other key; it then returns the first such error, with Keys naming
// every skipped key in file order. Types it cannot step over (module v1,
// types from later RDB versions) stop the decode at once.
type UnsupportedTypeError struct {
	Offset int64  // offset of the type byte (or opcode)
	Key    string // empty for MODULE_AUX
	Type   byte
	Name   string   // "stream", "module", ...
	Keys   []string // all keys Decode could not load, in file order
}

func (e *UnsupportedTypeError) Error() string {
	var msg string
	if e.Key == "" {
		msg = fmt.Sprintf("rdb: opcode %d (%s) at offset %d is not supported by this server", e.Type, e.Name, e.Offset)
	} else {
		msg = fmt.Sprintf("rdb: key %q at offset %d has type %d (%s), which this server cannot load",
			e.Key, e.Offset, e.Type, e.Name)
	}
	if len(e.Keys) > 1 {
		msg += fmt.Sprintf(" (%d keys not loaded: %s)", len(e.Keys), quoteList(e.Keys, 10))
	}
	return msg
}

func quoteList(keys []string, max int) string {
	var b strings.Builder
	for i, k := range keys {
		if i == max {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(k))
	}
	return b.String()
}

func (e *UnsupportedTypeError) Unwrap() error { return ErrUnsupportedType }

// VersionError reports an RDB version this package (like Redis 7.0) refuses.
type VersionError struct{ Version int }

func (e *VersionError) Error() string {
	return "rdb: Can't handle RDB format version " + strconv.Itoa(e.Version)
}

func (e *VersionError) Unwrap() error { return ErrUnsupportedVersion }

// dumpError carries the exact Redis reply text while still exposing the
// sentinel and the underlying cause to errors.Is/As.
type dumpError struct {
	reply error
	cause error
}

func (e *dumpError) Error() string   { return e.reply.Error() }
func (e *dumpError) Unwrap() []error { return []error{e.reply, e.cause} }

// Causes used inside CorruptionError.
var (
	errBadSignature = errors.New("Wrong signature trying to load DB from file")
	errBadLength    = errors.New("unknown length encoding")
	errBadStringEnc = errors.New("unknown RDB string encoding type")
	errBadLZF       = errors.New("invalid LZF compressed string")
	errTooLarge     = errors.New("length out of range")
)

// Causes of corrupt collection values. Where Redis's loader reports the
// same problem, the text is its rdbReportCorruptRDB message.
var (
	errLPHeader       = listpack.ErrHeader
	errLPEntry        = listpack.ErrEntry
	errLPCount        = listpack.ErrCount
	errLPBacklen      = listpack.ErrBacklen
	errZiplistHeader  = errors.New("ziplist header does not match blob size")
	errZiplistEntry   = errors.New("ziplist entry is malformed")
	errZiplistPrevlen = errors.New("ziplist prevlen does not match the entry before")
	errZiplistTail    = errors.New("ziplist tail offset does not point at the last entry")
	errZiplistCount   = errors.New("ziplist element count does not match header")
	errZipmapBad      = errors.New("zipmap is malformed")
	errIntset         = errors.New("Intset integrity check failed.")

	errQuicklist    = errors.New("Quicklist integrity check failed.")
	errQLZiplist    = errors.New("Ziplist integrity check failed.")
	errQLListpack   = errors.New("Listpack integrity check failed.")
	errQLEmptyNode  = errors.New("quicklist node is an empty string")
	errListZiplist  = errors.New("List ziplist integrity check failed.")
	errZipmap       = errors.New("Zipmap integrity check failed.")
	errZipmapDup    = errors.New("Hash zipmap with dup elements")
	errZsetZiplist  = errors.New("Zset ziplist integrity check failed.")
	errZsetListpack = errors.New("Zset listpack integrity check failed.")
	errHashZiplist  = errors.New("Hash ziplist integrity check failed.")
	errHashListpack = errors.New("Hash listpack integrity check failed.")
	errDupSet       = errors.New("Duplicate set members detected")
	errDupZset      = errors.New("Duplicate zset fields detected")
	errZsetNaN      = errors.New("Zset with NAN score detected")
	errDupHash      = errors.New("Duplicate hash fields detected")
	errDupHashDeep  = errors.New("Hash with dup elements")
	errOddPairs     = errors.New("odd number of elements in a pair encoding")
	errBadScore     = errors.New("invalid sorted set score")
)

// typeName names value types for UnsupportedTypeError.
func typeName(t byte) string {
	switch t {
	case typeModule, typeModule2:
		return "module"
	case typeStreamListpacks, typeStreamListpacks2, 21:
		return "stream"
	case 20:
		return "set listpack (RDB 11)"
	case 22, 23, 24, 25:
		return "hash with field TTLs (RDB 12)"
	case opModuleAux:
		return "module aux"
	}
	return "unknown"
}

// checksumError is a file whose CRC-64 does not match its content.
type checksumError struct{ want, got uint64 }

func (e *checksumError) Error() string {
	return fmt.Sprintf("Wrong RDB checksum expected: (%x) but got (%x)", e.want, e.got)
}

// LoadFailureLines returns the lines Redis 7.0.15 logs when err stops the
// load of an RDB file and it then runs redis-check-rdb on the file and
// exits (rdbReportError): a short read, a checksum mismatch or corrupt
// content. ok is false for other errors (signature, version, the
// visitor's own), which Redis reports without the check.
func LoadFailureLines(err error) (lines []string, ok bool) {
	const frame = "Internal error in RDB reading offset 0, function at rdb.c -> "
	var ce *CorruptionError
	if !errors.As(err, &ce) || errors.Is(ce.Err, errBadSignature) {
		return nil, false
	}
	var sre *streamReadError
	var cse *checksumError
	switch {
	case errors.As(err, &sre):
		return []string{frame + sre.msg}, true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return []string{"Short read or OOM loading DB. Unrecoverable error, aborting now.",
			frame + "Unexpected EOF reading RDB file"}, true
	case errors.As(err, &cse):
		return []string{cse.Error() + ". Aborting now.", frame + "RDB CRC error"}, true
	}
	return []string{frame + ce.Err.Error()}, true
}
