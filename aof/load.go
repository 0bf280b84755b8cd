package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aofserver/aofserver/rstring"
)

// Loader is implemented by the server to replay AOF files.
type Loader interface {
	// LoadRDB decodes an RDB stream starting at the current position of r
	// (the "REDIS" magic was peeked, not consumed). It must stop right after
	// the RDB checksum; Load then reads a RESP tail from r.
	LoadRDB(r *bufio.Reader, file string) error
	// Command executes one command. argv and its elements are only valid
	// during the call: copy what you keep. Commands between MULTI and EXEC
	// are delivered only once EXEC has been read (MULTI, each command, EXEC),
	// so an incomplete transaction at EOF is never delivered. Return an error
	// wrapping ErrUnknownCommand for an unknown command (loading fails); any
	// other error is the server's to log (Redis's "== CRITICAL ==" line) and
	// loading continues.
	Command(argv [][]byte) error
}

// CommandChecker may be implemented by a Loader to reject unknown commands at
// the moment they are read, even inside MULTI (as Redis does), instead of when
// the transaction is delivered.
type CommandChecker interface {
	Known(argv [][]byte) bool
}

// LoadStats describes a finished Load.
type LoadStats struct {
	Files     int   // base and incr files replayed (empty ones included)
	Commands  int64 // RESP commands read (MULTI and EXEC included)
	Bytes     int64 // bytes read
	Truncated bool  // the last file had a torn tail and was truncated
	// TailEnd is where the data of the last file ends: its size unless
	// preallocation padding follows (prealloc.go). TailInteriorPad: padding
	// lines are followed by more data in it (someone appended after the
	// padding), so it must not be preallocated again.
	TailEnd         int64
	TailInteriorPad bool
	BaseSize        int64 // size of the base file
	TotalSize       int64 // sum of base and incr sizes before loading
}

// maxLine is fgets's limit in Redis's loader (AOF_ANNOTATION_LINE_MAX_LEN
// 1024 including the NUL): longer lines are split.
const maxLine = 1023

var selectZero = [][]byte{[]byte("SELECT"), []byte("0")}

// Load replays the base and then every incr file in manifest order (spec §2).
// Each file starts with a synthetic SELECT 0 delivered to l, since Redis uses
// a fresh client per file. A torn tail is truncated (on disk, through
// FS.Truncate) only when LoadTruncated is set; it is fatal unless it is in the
// last file. Every failure is a *LoadError carrying Redis's message.
// progress(loaded, total) is called about every 1024 commands and at the end
// of each file; it may be nil.
func (a *AOF) Load(l Loader, progress func(loaded, total int64)) (LoadStats, error) {
	a.manMu.Lock()
	m := a.man
	a.manMu.Unlock()
	var st LoadStats
	if m.Empty() {
		return st, nil
	}
	type entry struct {
		name string
		size int64
	}
	var files []entry
	if m.Base != nil {
		files = append(files, entry{name: m.Base.Name})
	}
	for _, f := range m.Incrs {
		files = append(files, entry{name: f.Name})
	}
	for i := range files {
		sz, err := a.fsys.Stat(a.path(files[i].name))
		if err != nil {
			msg := fmt.Sprintf("Unable to obtain the AOF file %s length. stat: %s", files[i].name, Strerror(err))
			a.log.Warn().Msg(msg)
			return st, &LoadError{File: files[i].name, Msg: msg, Err: err}
		}
		files[i].size = sz
		st.TotalSize += sz
	}
	if m.Base != nil {
		st.BaseSize = files[0].size
	}
	lt := a.knobsSnapshot().LoadTruncated
	for i, f := range files {
		last := i == len(files)-1
		t0 := time.Now()
		ld := fileLoader{a: a, l: l, name: f.name, size: f.size, last: last, loadTruncated: lt, progress: progress, base: st.Bytes, total: st.TotalSize}
		truncated, err := ld.run()
		st.Files++
		st.Commands += ld.cmds
		st.Bytes += ld.read
		if err != nil {
			return st, err
		}
		if truncated && !last {
			msg := "Fatal error: the truncated file is not the last file"
			a.log.Warn().Msg(msg)
			return st, &LoadError{File: f.name, Offset: ld.validUpTo, Msg: msg, Err: corruptf("torn tail in %s, which is not the last file", f.name)}
		}
		st.Truncated = st.Truncated || truncated
		if last {
			st.TailEnd, st.TailInteriorPad = ld.dataEnd, ld.interiorPad
			a.tailName, a.tailEnd, a.tailInteriorPad = f.name, ld.dataEnd, ld.interiorPad
		}
		if f.size > 0 {
			kind := "incr"
			if i == 0 && m.Base != nil {
				kind = "base"
			}
			a.log.Info().Msgf("DB loaded from %s file %s: %.3f seconds", kind, f.name, time.Since(t0).Seconds())
		}
		if progress != nil {
			progress(st.Bytes, st.TotalSize)
		}
	}
	// "DB loaded from append only file" is the caller's (Redis's
	// loadDataFromDisk logs it, DEBUG LOADAOF does not).
	// As Redis: sizes as found at startup (before any truncation).
	a.currentSize.Store(st.TotalSize)
	a.baseSize.Store(st.BaseSize)
	a.mu.Lock()
	a.loaded = true
	a.mu.Unlock()
	return st, nil
}

// fileLoader replays one file.
type fileLoader struct {
	a             *AOF
	l             Loader
	name          string
	size          int64
	last          bool
	loadTruncated bool
	progress      func(loaded, total int64)
	base, total   int64 // bytes of earlier files, all files

	cr        countingReader
	br        *bufio.Reader
	line      []byte
	args      []byte
	argv      [][]byte
	ends      []int
	cmds      int64
	read      int64
	validUpTo int64

	inMulti          bool
	validBeforeMulti int64

	// Preallocation padding (prealloc.go).
	padded      bool  // the file ends in padding
	dataEnd     int64 // end of the last command or non-padding annotation
	inPad       bool  // the last line read was padding
	interiorPad bool  // data follows padding
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (ld *fileLoader) pos() int64 { return ld.cr.n - int64(ld.br.Buffered()) }

// queued is one command held back until EXEC.
type queued struct {
	argv [][]byte
	off  int64
}

// run replays the file. It returns truncated=true when a torn tail was cut
// off (only possible with loadTruncated).
func (ld *fileLoader) run() (truncated bool, err error) {
	a := ld.a
	if ld.size == 0 {
		return false, nil
	}
	f, err := a.fsys.Open(a.path(ld.name))
	if err != nil {
		msg := fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %s", ld.name, Strerror(err))
		a.log.Warn().Msg(msg)
		return false, &LoadError{File: ld.name, Msg: msg, Err: err}
	}
	defer f.Close()
	if sz, err := f.Size(); err == nil {
		ld.size = sz // bounds bulk lengths below
	}
	if ld.size > 0 {
		tail := make([]byte, min(ld.size, padLineLen))
		if n, _ := f.ReadAt(tail, ld.size-int64(len(tail))); n == len(tail) {
			ld.padded = isPadding(tail)
		}
	}
	defer func() { ld.read = ld.pos() }()
	ld.cr.r = f
	ld.br = bufio.NewReaderSize(&ld.cr, 64<<10)

	if err := ld.l.Command(selectZero); errors.Is(err, ErrUnknownCommand) {
		return false, &LoadError{File: ld.name, Msg: "SELECT is unknown to the loader", Err: err}
	}

	if sig, _ := ld.br.Peek(5); string(sig) == "REDIS" {
		oldStyle := ld.name == a.opt.FileName
		if oldStyle {
			a.log.Info().Msg("Reading RDB preamble from AOF file...")
		} else {
			a.log.Info().Msg("Reading RDB base file on AOF loading...")
		}
		if err := ld.l.LoadRDB(ld.br, ld.name); err != nil {
			var msg string
			if oldStyle {
				msg = fmt.Sprintf("Error reading the RDB preamble of the AOF file %s, AOF loading aborted", ld.name)
			} else {
				msg = fmt.Sprintf("Error reading the RDB base file %s, AOF loading aborted", ld.name)
			}
			a.log.Warn().Msg(msg)
			return false, &LoadError{File: ld.name, Offset: ld.pos(), Msg: msg, Err: err}
		}
		// Redis leaves valid_up_to at 0 here, so a torn first tail command
		// would truncate the whole RDB away; we keep the RDB.
		ld.validUpTo = ld.pos()
		ld.dataEnd = ld.validUpTo
		if oldStyle {
			a.log.Info().Msg("Reading the remaining AOF tail...")
		}
		if ld.progress != nil {
			ld.progress(ld.base+ld.pos(), ld.total)
		}
	}

	checker, _ := ld.l.(CommandChecker)
	ld.inMulti = false
	var multiArgv [][]byte
	var multiOff int64
	var queue []queued
	for {
		if ld.cmds > 0 && ld.cmds%1024 == 0 && ld.progress != nil {
			ld.progress(ld.base+ld.pos(), ld.total)
		}
		lineOff := ld.pos()
		line, err := ld.fgets()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, ld.readErr(err)
		}
		if line[0] == '#' {
			if isPadLine(line) {
				ld.inPad = true
			} else {
				ld.dataEnd = ld.pos()
			}
			continue
		}
		if ld.inPad {
			if ld.last && ld.padded {
				// Data between padding lines in a file that ends in padding:
				// part of a batch that was written but never fdatasync'ed
				// reached the disk without the part before it. Never
				// acknowledged; replaying it would skip what preceded it.
				return ld.torn()
			}
			ld.inPad, ld.interiorPad = false, true
		}
		if line[0] != '*' {
			return ld.badFormat(lineOff, "expected '*', got %q", clip(line))
		}
		if len(line) == 1 || line[1] == 0 {
			// A bare "*" at EOF: Redis's read error, which at EOF is a short read.
			if ld.atEOF() {
				return ld.torn()
			}
			return ld.badFormat(lineOff, "empty multibulk count")
		}
		argc := rstring.Atoll(line[1:])
		if argc < 1 {
			return ld.badFormat(lineOff, "bad multibulk count %q", clip(line))
		}
		ld.args = ld.args[:0]
		ld.argv = ld.argv[:0]
		ld.ends = ld.ends[:0] // argument end offsets into ld.args (args may move while growing)
		for j := int64(0); j < argc; j++ {
			argOff := ld.pos()
			line, err := ld.fgets()
			if err == io.EOF {
				return ld.torn()
			}
			if err != nil {
				return false, ld.readErr(err)
			}
			if line[0] != '$' {
				return ld.badFormat(argOff, "expected '$', got %q", clip(line))
			}
			n := rstring.Atoll(line[1:])
			if n < 0 {
				// Redis would try to allocate ~2^64 bytes; refuse instead.
				return ld.badFormat(argOff, "negative bulk length %d", n)
			}
			// Bound the allocation by what the file can still hold: a longer
			// bulk can only end in EOF, which is a short read.
			if n > ld.size-ld.pos()-2 {
				return ld.torn()
			}
			startArg := len(ld.args)
			ld.args = grow(ld.args, int(n))
			if _, err := io.ReadFull(ld.br, ld.args[startArg:startArg+int(n)]); err != nil {
				if err == io.ErrUnexpectedEOF || err == io.EOF {
					return ld.torn()
				}
				return false, ld.readErr(err)
			}
			// The two bytes after the bulk are discarded unchecked, as Redis does.
			if _, err := ld.br.Discard(2); err != nil {
				if err == io.EOF {
					return ld.torn()
				}
				return false, ld.readErr(err)
			}
			ld.ends = append(ld.ends, len(ld.args))
		}
		prev := 0
		for _, e := range ld.ends {
			ld.argv = append(ld.argv, ld.args[prev:e:e])
			prev = e
		}
		ld.cmds++
		argv := ld.argv
		if checker != nil && !checker.Known(argv) {
			return false, ld.unknown(argv, lineOff, ErrUnknownCommand)
		}
		isMulti := bytes.EqualFold(argv[0], []byte("multi"))
		isExec := bytes.EqualFold(argv[0], []byte("exec"))
		if isMulti {
			ld.validBeforeMulti = ld.validUpTo
		}
		switch {
		case ld.inMulti && !isExec:
			queue = append(queue, queued{argv: rstring.CloneArgv(argv), off: lineOff})
		case ld.inMulti && isExec:
			if err := ld.deliver(multiArgv, multiOff); err != nil {
				return false, err
			}
			for _, q := range queue {
				if err := ld.deliver(q.argv, q.off); err != nil {
					return false, err
				}
			}
			if err := ld.deliver(argv, lineOff); err != nil {
				return false, err
			}
			ld.inMulti, queue, multiArgv = false, queue[:0], nil
		case isMulti:
			ld.inMulti, multiArgv, multiOff = true, rstring.CloneArgv(argv), lineOff
		default:
			if err := ld.deliver(argv, lineOff); err != nil {
				return false, err
			}
		}
		ld.validUpTo = ld.pos()
		if !ld.inMulti {
			ld.dataEnd = ld.validUpTo
		}
	}
	if ld.inMulti {
		ld.a.log.Warn().Msgf("Revert incomplete MULTI/EXEC transaction in AOF file %s", ld.name)
		return ld.uxeof(ld.validBeforeMulti)
	}
	return false, nil
}

func (ld *fileLoader) atEOF() bool {
	_, err := ld.br.Peek(1)
	return err == io.EOF
}

func (ld *fileLoader) deliver(argv [][]byte, off int64) error {
	err := ld.l.Command(argv)
	if err != nil && errors.Is(err, ErrUnknownCommand) {
		return ld.unknown(argv, off, err)
	}
	return nil
}

func (ld *fileLoader) unknown(argv [][]byte, off int64, err error) error {
	msg := fmt.Sprintf("Unknown command '%s' reading the append only file %s", argv[0], ld.name)
	ld.a.log.Warn().Msg(msg)
	return &LoadError{File: ld.name, Offset: off, Msg: msg, Err: err}
}

func (ld *fileLoader) fmtErr(off int64, format string, args ...any) error {
	msg := fmt.Sprintf("Bad file format reading the append only file %s: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", ld.name)
	ld.a.log.Warn().Msg(msg)
	return &LoadError{File: ld.name, Offset: off, Msg: msg, Err: corruptf(format, args...)}
}

// badFormat is a format error, except in a last file that ends in
// preallocation padding: there a damaged command after the last valid one is
// a batch that was written but never fdatasync'ed, cut like a torn tail.
func (ld *fileLoader) badFormat(off int64, format string, args ...any) (bool, error) {
	if ld.last && ld.padded && off >= ld.validUpTo {
		return ld.torn()
	}
	return false, ld.fmtErr(off, format, args...)
}

func (ld *fileLoader) readErr(err error) error {
	msg := fmt.Sprintf("Unrecoverable error reading the append only file %s: %s", ld.name, Strerror(err))
	ld.a.log.Warn().Msg(msg)
	return &LoadError{File: ld.name, Offset: ld.pos(), Msg: msg, Err: err}
}

// torn handles a short read in the middle of a command. Inside a transaction
// Redis truncates after the last queued command, leaving a dangling MULTI that
// makes the next load drop every command appended after it; we cut before the
// MULTI instead, which is what that next load would have done anyway.
func (ld *fileLoader) torn() (bool, error) {
	if ld.inMulti {
		return ld.uxeof(ld.validBeforeMulti)
	}
	return ld.uxeof(ld.validUpTo)
}

// uxeof handles an unexpected end of file: truncate at validUpTo when allowed
// (Redis's AOF_TRUNCATED), else fail.
func (ld *fileLoader) uxeof(validUpTo int64) (bool, error) {
	a := ld.a
	ld.validUpTo = validUpTo
	ld.dataEnd = validUpTo
	if ld.loadTruncated {
		a.log.Warn().Msgf("!!! Warning: short read while loading the AOF file %s!!!", ld.name)
		a.log.Warn().Msgf("!!! Truncating the AOF %s at offset %d !!!", ld.name, validUpTo)
		if err := a.fsys.Truncate(a.path(ld.name), validUpTo); err != nil {
			a.log.Warn().Msgf("Error truncating the AOF file %s: %s", ld.name, Strerror(err))
		} else {
			a.log.Warn().Msgf("AOF %s loaded anyway because aof-load-truncated is enabled", ld.name)
			return true, nil
		}
	}
	msg := fmt.Sprintf("Unexpected end of file reading the append only file %s. You can: "+
		"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
		"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", ld.name)
	a.log.Warn().Msg(msg)
	return false, &LoadError{File: ld.name, Offset: validUpTo, Msg: msg, Err: corruptf("unexpected end of file")}
}

// fgets reads one line like C's fgets with Redis's 1024-byte buffer: up to
// and including '\n', at most maxLine bytes. It returns io.EOF only when no
// byte could be read; a final line without '\n' is returned as is.
func (ld *fileLoader) fgets() ([]byte, error) {
	ld.line = ld.line[:0]
	for len(ld.line) < maxLine {
		c, err := ld.br.ReadByte()
		if err != nil {
			if err == io.EOF && len(ld.line) > 0 {
				return ld.line, nil
			}
			return nil, err
		}
		ld.line = append(ld.line, c)
		if c == '\n' {
			break
		}
	}
	return ld.line, nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, 2*cap(b)+n)
	copy(nb, b)
	return nb
}

func clip(b []byte) []byte {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 32 {
		return b[:32]
	}
	return b
}
