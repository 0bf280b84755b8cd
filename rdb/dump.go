package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// ParseDumpPayload parses a DUMP payload as RESTORE does. A version above
// 10 or a checksum mismatch gives an error whose text is Redis's reply
// "ERR DUMP payload version or checksum are wrong" (errors.Is
// ErrDumpVersionOrChecksum); a malformed or empty value gives "ERR Bad data
// format" (errors.Is ErrBadDataFormat, wrapping the *CorruptionError). A
// module value gives *UnsupportedTypeError. A stream, even an empty one,
// is a value (Redis restores empty streams). Like Redis, bytes
// left over after the value are ignored.
func ParseDumpPayload(p []byte) (*Value, error) {
	return ParseDumpPayloadWith(p, PayloadOptions{Deep: true})
}

// PayloadOptions say how RESTORE checks a payload.
type PayloadOptions struct {
	// Deep turns on the checks Redis makes only when sanitizing
	// (sanitize-dump-payload yes, or clients for a normal client): repeated
	// fields in a hash or members in a sorted set that stays a listpack.
	// Every other check is always made, including the ones Redis skips
	// without sanitizing (listpack and intset contents, stream entries):
	// a value that fails them cannot be held faithfully.
	Deep bool
	// Limits are the server's encoding limits, which decide whether a
	// hash or sorted set stays a listpack (LoadedEncoding); nil makes the
	// repeat checks unconditional.
	Limits *Limits
	// SkipChecksum accepts a payload whatever its CRC (DEBUG
	// SET-SKIP-CHECKSUM-VALIDATION 1); the version is checked all the same.
	SkipChecksum bool
}

// ParseDumpPayloadWith is ParseDumpPayload with explicit options.
func ParseDumpPayloadWith(p []byte, opt PayloadOptions) (*Value, error) {
	if len(p) < 10 {
		return nil, ErrDumpVersionOrChecksum
	}
	footer := p[len(p)-10:]
	if ver := binary.LittleEndian.Uint16(footer); ver > rdbVersion {
		return nil, ErrDumpVersionOrChecksum
	}
	if !opt.SkipChecksum && CRC64(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, ErrDumpVersionOrChecksum
	}
	body := p[:len(p)-10]
	if len(body) == 0 {
		return nil, &dumpError{reply: ErrBadDataFormat, cause: &CorruptionError{Err: errUnknownTyp}}
	}
	d := &decoder{src: bytes.NewReader(body[1:]), off: 1, ver: rdbVersion, deep: opt.Deep, lim: opt.Limits}
	t := body[0]
	if t >= opFunction2-1 {
		return nil, &dumpError{reply: ErrBadDataFormat, cause: &CorruptionError{Err: errUnknownTyp}}
	}
	v, err := d.readObject(t, 0)
	if err != nil {
		var ut *UnsupportedTypeError
		if errors.As(err, &ut) {
			return nil, err
		}
		return nil, &dumpError{reply: ErrBadDataFormat, cause: err}
	}
	if v == nil { // RESTORE refuses empty collections
		return nil, &dumpError{reply: ErrBadDataFormat, cause: &CorruptionError{Offset: d.off, Err: errEmptyKey}}
	}
	return v, nil
}

var errEmptyKey = errors.New("empty collection")
