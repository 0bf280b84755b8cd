package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/aofserver/aofserver/rstring"
)

// maxLine is Redis's MANIFEST_MAX_LINE: fgets reads at most this many bytes.
const maxLine = 1024

// Parse reads a manifest exactly as Redis 7.0 does. Bad content gives a
// *ParseError (wrapping ErrCorrupt) carrying Redis's message; an error from r
// is returned wrapped, without ErrCorrupt.
func Parse(r io.Reader) (*Manifest, error) {
	br := bufio.NewReader(r)
	var buf [maxLine]byte
	m := &Manifest{}
	var maxSeq int64
	lineNum := 0
	for {
		n, err := readChunk(br, buf[:])
		if err != nil {
			return nil, fmt.Errorf("manifest: %s: %w", msgReadFailed, err)
		}
		if n == 0 {
			if lineNum == 0 {
				return nil, &ParseError{Msg: msgEmpty}
			}
			return m, nil
		}
		lineNum++
		chunk := buf[:n]
		if chunk[0] == '#' {
			continue
		}
		// strchr(buf, '\n') stops at the first NUL: a NUL before the newline
		// hides it, exactly like a missing one.
		if i := bytes.IndexAny(chunk, "\n\x00"); i < 0 || chunk[i] == 0 {
			return nil, &ParseError{Msg: msgTooLong}
		}
		line := bytes.Trim(chunk, " \t\r\n")
		fail := func(msg string) error {
			return &ParseError{Line: lineNum, Text: string(line), Msg: msg}
		}
		if len(line) == 0 {
			return nil, fail(msgInvalid)
		}
		args, ok := rstring.SplitArgs(line)
		if !ok || len(args) < 6 || len(args)%2 != 0 {
			return nil, fail(msgInvalid)
		}
		var (
			name     []byte
			haveName bool
			f        File
		)
		for i := 0; i < len(args); i += 2 {
			key, val := cstr(args[i]), args[i+1]
			switch {
			case rstring.EqualFold(key, "file"):
				name, haveName = cstr(val), true
				if bytes.ContainsAny(name, `/\`) {
					return nil, fail(msgPath)
				}
			case rstring.EqualFold(key, "seq"):
				f.Seq = rstring.Atoll(val)
			case rstring.EqualFold(key, "type"):
				f.Type = 0
				if len(val) > 0 {
					f.Type = Type(val[0])
				}
			}
		}
		if !haveName || f.Seq == 0 || f.Type == 0 {
			return nil, fail(msgInvalid)
		}
		f.Name = string(name)
		switch f.Type {
		case Base:
			if m.Base != nil {
				return nil, fail(msgDuplicate)
			}
			m.Base = &f
			m.CurrBaseSeq = f.Seq
		case History:
			m.History = append(m.History, f)
		case Incr:
			if f.Seq <= maxSeq {
				return nil, fail(msgNonMonotonic)
			}
			m.Incrs = append(m.Incrs, f)
			m.CurrIncrSeq = f.Seq
			maxSeq = f.Seq
		default:
			return nil, fail(msgUnknownType)
		}
	}
}

// readChunk behaves like fgets(buf, len(buf)+1, fp): it reads bytes up to and
// including '\n', or until buf is full. n == 0 means end of input.
func readChunk(br *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		buf[n] = c
		n++
		if c == '\n' {
			break
		}
	}
	return n, nil
}

// cstr cuts b at its first NUL, as C string functions (sdsnew, strcasecmp) see it.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
