package aof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/manifest"
	"github.com/aofserver/aofserver/rstring"
)

// CheckOptions configure Check, the redis-check-aof of this package.
type CheckOptions struct {
	// Path is a manifest (multi-part AOF) or a single AOF file, told apart
	// as Redis does: a manifest is at least 30 bytes and starts with "file".
	Path string
	// Fix truncates the last file at the end of its last valid command.
	Fix bool
	// Confirm asks "Continue? [y/N]: " on Stdin before a Fix truncation, as
	// Redis does. Without it the truncation is made at once (the caller has
	// made a copy to repair).
	Confirm bool
	// TruncateToTimestamp, when not 0, truncates the last file before the
	// first "#TS:<t>" annotation with t greater than it.
	TruncateToTimestamp int64
	Stdin               io.Reader
	Out                 io.Writer
	// CheckRDB checks an RDB stream (a base file or an RDB preamble) read
	// from r, writing redis-check-rdb's report to out, and must stop right
	// after the checksum. (This package does not import rdb.) Required.
	CheckRDB func(r *bufio.Reader, name string, out io.Writer) RDBVerdict
	// Truncate, when set, replaces the in-place truncation of the file at
	// path (to size bytes), for example to repair a copy instead.
	Truncate func(path string, size int64) error
	// FS is what the files are opened, truncated and synced through
	// (fsx.OS() when nil).
	FS fsx.FS
	// Replayer, when set, receives every complete command of the valid
	// part of each file, for a semantic check.
	Replayer CheckReplayer
}

// RDBVerdict is CheckOptions.CheckRDB's answer.
type RDBVerdict int

// RDB verdicts.
const (
	RDBSane RDBVerdict = iota
	// RDBInvalid: Check prints "RDB preamble of AOF file is not sane,
	// aborting." and exits 1.
	RDBInvalid
	// RDBTerminated: Redis's loader ended the process inside the RDB
	// (corrupt content); Check exits 1 at once, printing nothing more.
	RDBTerminated
)

// CheckReplayer receives the commands of a checked AOF, in load order.
// BeginFile marks a new file, which Redis loads with a fresh client in DB 0.
// off is the byte offset of the command in the file. argv is only valid
// during the call.
type CheckReplayer interface {
	BeginFile(name string)
	Command(name string, off int64, argv [][]byte)
}

// CheckResult tells what Check did to the files.
type CheckResult struct {
	Truncations []Truncation
}

// Truncation is one file that Check cut short.
type Truncation struct {
	File      string // name as printed (a file name in manifest mode)
	Path      string
	Size, To  int64
	Timestamp bool // cut by TruncateToTimestamp rather than Fix
	// Commands counts the complete commands in the dropped tail (a torn
	// last one is counted in Torn); Keys counts the distinct keys they name,
	// taking the first argument after the command name as the key (a
	// heuristic: exact for the commands Redis propagates on one key).
	Commands int
	Torn     bool
	Keys     int
}

// checkExit is panicked to leave Check the way redis-check-aof calls
// exit(); Check recovers it and returns the code.
type checkExit int

// Redis's checkSingleAof outcomes.
const (
	aofCheckOK = iota
	aofCheckEmpty
	aofCheckTruncated
	aofCheckTimestampTruncated
)

// Check checks an AOF the way Redis 7.0.15's redis-check-aof does, with the
// same output on opt.Out and the same exit code (0 valid or repaired, 1
// otherwise): the manifest, then the base (its RDB part through
// opt.CheckRDB) and each incr file in manifest order, stopping at the first
// invalid file. Unlike the server's loader it requires "\r\n" after every
// bulk and rejects a nested MULTI or a lone EXEC. With Fix only the last file
// may be truncated; with TruncateToTimestamp the last file is cut at its
// first later "#TS:" line.
func Check(opt CheckOptions) (code int, res CheckResult) {
	if opt.FS == nil {
		opt.FS = fsx.OS()
	}
	c := &aofChecker{opt: opt, line: 1}
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(checkExit)
			if !ok {
				panic(r)
			}
			code, res = int(ce), c.res
		}
	}()
	switch c.inputType(opt.Path) {
	case inputManifest:
		c.checkMultiPart(filepath.Dir(opt.Path), opt.Path)
	case inputPreamble:
		c.checkOldStyle(opt.Path, true)
	default:
		c.checkOldStyle(opt.Path, false)
	}
	return 0, c.res
}

type aofChecker struct {
	opt  CheckOptions
	res  CheckResult
	line int64  // global across files, as Redis's static counter
	err  string // Redis's static error buffer
	epos int64
	// readLong's fgets buffers, one per call path (readArgc, readString):
	// C's stale stack bytes after the NUL show in "Expected \r\n" messages.
	// The readString one is zeroed by each bulk read, approximating what
	// fread's frames leave on that part of the stack.
	argcBuf, bulkBuf [128]byte

	// current file
	br      *bufio.Reader
	cr      countingReader
	size    int64
	eof     bool // a read hit the end of the file (feof)
	argv    [][]byte
	replay  bool
	curName string
	wf      fsx.File // the file being checked, open for writing (truncate)
}

func (c *aofChecker) printf(format string, args ...any) {
	fmt.Fprintf(c.opt.Out, format, args...)
}

// logf writes a serverLog warning line as Redis's tools do.
func (c *aofChecker) logf(format string, args ...any) {
	c.printf("%d:C %s # %s\n", os.Getpid(), time.Now().Format("02 Jan 2006 15:04:05.000"), fmt.Sprintf(format, args...))
}

func (c *aofChecker) exit(code int) { panic(checkExit(code)) }

func (c *aofChecker) pos() int64 { return c.cr.n - int64(c.br.Buffered()) }

func (c *aofChecker) setErr(format string, args ...any) {
	c.err = fmt.Sprintf("0x%16x: %s", c.epos, fmt.Sprintf(format, args...))
}

const (
	inputRaw = iota
	inputPreamble
	inputManifest
)

func (c *aofChecker) inputType(path string) int {
	if c.startsWith(path, "file", 30) {
		return inputManifest
	}
	if c.startsWith(path, "REDIS", 8) {
		return inputPreamble
	}
	return inputRaw
}

// startsWith reports whether the file at path is at least min bytes long and
// starts with sig (Redis's fileIsManifest / fileIsRDB).
func (c *aofChecker) startsWith(path, sig string, min int64) bool {
	f, err := c.opt.FS.Open(path)
	if err != nil {
		c.printf("Cannot open file %s: %s\n", path, Strerror(err))
		c.exit(1)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		c.printf("Cannot stat file: %s\n", path)
		c.exit(1)
	}
	if size < min {
		return false
	}
	b := make([]byte, len(sig))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == sig
}

func (c *aofChecker) checkOldStyle(path string, preamble bool) {
	c.printf("Start checking Old-Style AOF\n")
	switch c.checkSingle(path, path, true, preamble) {
	case aofCheckOK:
		c.printf("AOF %s is valid\n", path)
	case aofCheckEmpty:
		c.printf("AOF %s is empty\n", path)
	case aofCheckTimestampTruncated:
		c.printf("Successfully truncated AOF %s to timestamp %d\n", path, c.opt.TruncateToTimestamp)
	case aofCheckTruncated:
		c.printf("Successfully truncated AOF %s\n", path)
	}
}

func (c *aofChecker) loadManifest(path string) *manifest.Manifest {
	f, err := c.opt.FS.Open(path)
	if err != nil {
		c.printf("Fatal error: can't open the AOF manifest file %s for reading: %s\n", path, Strerror(err))
		c.exit(1)
	}
	defer f.Close()
	m, err := manifest.Parse(f)
	if err != nil {
		// Redis 7.0.15's checker shares the server's manifest reader, which
		// reports through serverLog: "<pid>:C <date> # <msg>".
		for _, l := range manifestErrorLines(err) {
			c.logf("%s", l)
		}
		c.exit(1)
	}
	return m
}

func (c *aofChecker) checkMultiPart(dir, manifestPath string) {
	c.printf("Start checking Multi Part AOF\n")
	m := c.loadManifest(manifestPath)
	total := len(m.Incrs)
	if m.Base != nil {
		total++
	}
	n := 0
	if m.Base != nil {
		name := m.Base.Name
		path := dir + "/" + name
		n++
		preamble := c.startsWith(path, "REDIS", 8)
		if preamble {
			c.printf("Start to check BASE AOF (RDB format).\n")
		} else {
			c.printf("Start to check BASE AOF (RESP format).\n")
		}
		c.report("BASE", name, c.checkSingle(name, path, n == total, preamble))
	}
	if len(m.Incrs) > 0 {
		c.printf("Start to check INCR files.\n")
		for _, f := range m.Incrs {
			n++
			c.report("INCR", f.Name, c.checkSingle(f.Name, dir+"/"+f.Name, n == total, false))
		}
	}
	c.printf("All AOF files and manifest are valid\n")
}

func (c *aofChecker) report(kind, name string, ret int) {
	switch ret {
	case aofCheckOK:
		c.printf("%s AOF %s is valid\n", kind, name)
	case aofCheckEmpty:
		c.printf("%s AOF %s is empty\n", kind, name)
	case aofCheckTimestampTruncated:
		c.printf("Successfully truncated AOF %s to timestamp %d\n", name, c.opt.TruncateToTimestamp)
	case aofCheckTruncated:
		c.printf("Successfully truncated AOF %s\n", name)
	}
}

// checkSingle is Redis's checkSingleAof: name is what messages print, path
// what is opened (in manifest mode "<dir>/<name>", which some of Redis's
// messages print instead).
func (c *aofChecker) checkSingle(name, path string, last, preamble bool) int {
	// Redis opens the file "r+" even to only check it: a file it may not
	// write fails here, as Redis's. The write handle is opened second so
	// that a missing file is reported, not created.
	f, err := c.opt.FS.Open(path)
	if err == nil {
		var wf fsx.File
		if wf, err = c.opt.FS.OpenWrite(path); err == nil {
			defer wf.Close()
			c.wf = wf
		}
		defer f.Close()
	}
	if err != nil {
		c.printf("Cannot open file %s: %s, aborting...\n", path, Strerror(err))
		c.exit(1)
	}
	size, err := f.Size()
	if err != nil {
		c.printf("Cannot stat file: %s, aborting...\n", name)
		c.exit(1)
	}
	c.size = size
	if c.size == 0 {
		return aofCheckEmpty
	}
	c.cr = countingReader{r: f}
	c.br = bufio.NewReaderSize(&c.cr, 1<<17)
	c.eof = false
	c.curName = name
	c.replay = c.opt.Replayer != nil
	if c.replay {
		c.opt.Replayer.BeginFile(name)
	}
	if preamble {
		switch c.opt.CheckRDB(c.br, name, c.opt.Out) {
		case RDBTerminated:
			c.exit(1)
		case RDBInvalid:
			c.printf("RDB preamble of AOF file is not sane, aborting.\n")
			c.exit(1)
		}
		c.printf("RDB preamble is OK, proceeding with AOF tail...\n")
	}

	var pos int64
	multi := 0
	for {
		if multi == 0 {
			pos = c.pos()
		}
		b, err := c.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				c.eof = true
				break
			}
			c.printf("Failed to read from AOF %s, aborting...\n", name)
			c.exit(1)
		}
		if b[0] == '#' {
			if !c.annotation(name, path, last) {
				return aofCheckTimestampTruncated
			}
		} else if b[0] == '*' {
			if !c.resp(path, &multi) {
				break
			}
		} else {
			c.printf("AOF %s format error\n", name)
			break
		}
	}
	if c.eof && multi != 0 && c.err == "" {
		c.setErr("Reached EOF before reading EXEC for MULTI")
	}
	if c.err != "" {
		c.printf("%s\n", c.err)
	}
	diff := c.size - pos
	if diff == 0 && c.opt.TruncateToTimestamp != 0 {
		c.printf("Truncate nothing in AOF %s to timestamp %d\n", name, c.opt.TruncateToTimestamp)
		return aofCheckOK
	}
	c.printf("AOF analyzed: filename=%s, size=%d, ok_up_to=%d, ok_up_to_line=%d, diff=%d\n", name, c.size, pos, c.line, diff)
	if diff > 0 {
		if !c.opt.Fix {
			c.printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", name)
			c.exit(1)
		}
		if !last {
			c.printf("Failed to truncate AOF %s because it is not the last file\n", name)
			c.exit(1)
		}
		if c.opt.Confirm {
			c.printf("This will shrink the AOF %s from %d bytes, with %d bytes, to %d bytes\n", name, c.size, diff, pos)
			c.printf("Continue? [y/N]: ")
			if !confirmed(c.opt.Stdin) {
				c.printf("Aborting...\n")
				c.exit(1)
			}
		}
		t := c.truncation(name, path, pos, false)
		if err := c.truncate(path, pos); err != nil {
			c.printf("Failed to truncate AOF %s\n", name)
			c.exit(1)
		}
		c.res.Truncations = append(c.res.Truncations, t)
		return aofCheckTruncated
	}
	return aofCheckOK
}

// truncate cuts the file being checked (c.wf) at size and fsyncs it, so
// that the repair is durable when "Successfully truncated" is printed
// (Redis's ftruncate is not followed by an fsync).
func (c *aofChecker) truncate(path string, size int64) error {
	if c.opt.Truncate != nil {
		return c.opt.Truncate(path, size)
	}
	if err := c.wf.Truncate(size); err != nil {
		return err
	}
	return c.wf.Sync()
}

// confirmed reads one answer like fgets(buf,2,stdin): yes if it starts with y/Y.
func confirmed(r io.Reader) bool {
	if r == nil {
		return false
	}
	var b [1]byte
	n, _ := r.Read(b[:])
	return n == 1 && (b[0] == 'y' || b[0] == 'Y')
}

// annotation is Redis's processAnnotations. It returns false when the file
// was truncated to the timestamp.
func (c *aofChecker) annotation(name, path string, last bool) bool {
	c.epos = c.pos()
	line, _ := c.fgets(1023)
	to := c.opt.TruncateToTimestamp
	if to == 0 || !bytes.HasPrefix(line, []byte("#TS:")) {
		return true
	}
	ts, _, _ := rstring.Strtoll(line[4:])
	if ts <= to {
		return true
	}
	if c.epos == 0 {
		c.printf("AOF %s has nothing before timestamp %d, aborting...\n", path, to)
		c.exit(1)
	}
	if !last {
		c.printf("Failed to truncate AOF %s to timestamp %d to offset %d because it is not the last file.\n", path, to, c.epos)
		c.printf("If you insist, please delete all files after this file according to the manifest file and delete the corresponding records in manifest file manually. Then re-run redis-check-aof.\n")
		c.exit(1)
	}
	t := c.truncation(name, path, c.epos, true)
	if err := c.truncate(path, c.epos); err != nil {
		c.printf("Failed to truncate AOF %s to timestamp %d\n", path, to)
		c.exit(1)
	}
	c.res.Truncations = append(c.res.Truncations, t)
	return false
}

// fgets reads like C's fgets into a buffer of max+1 bytes: up to max bytes,
// stopping after '\n'. It returns nil at EOF with nothing read.
func (c *aofChecker) fgets(max int) ([]byte, error) {
	var out []byte
	for len(out) < max {
		b, err := c.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				c.eof = true
			}
			if len(out) == 0 {
				return nil, err
			}
			return out, nil
		}
		out = append(out, b)
		if b == '\n' {
			break
		}
	}
	return out, nil
}

// readLong is Redis's readLong: a line "<prefix><number>\r\n".
func (c *aofChecker) readLong(prefix byte) (int64, bool) {
	buf := &c.argcBuf
	if prefix == '$' {
		buf = &c.bulkBuf
	}
	c.epos = c.pos()
	line, _ := c.fgets(len(buf) - 1)
	if line == nil {
		return 0, false
	}
	n := copy(buf[:], line)
	buf[n] = 0
	if buf[0] != prefix {
		c.setErr("Expected prefix '%c', got: '%s'", prefix, []byte{buf[0]})
		return 0, false
	}
	v, end, _ := rstring.Strtoll(buf[1:n])
	return v, c.consumeNewline(buf[1+end:])
}

// consumeNewline checks that b starts with "\r\n" as strncmp does (stopping
// at a NUL).
func (c *aofChecker) consumeNewline(b []byte) bool {
	var b0, b1 byte
	if len(b) > 0 {
		b0 = b[0]
	}
	if len(b) > 1 {
		b1 = b[1]
	}
	if b0 != '\r' || b1 != '\n' {
		c.setErr("Expected \\r\\n, got: %s%s", hexChar(b0), hexChar(b1))
		return false
	}
	c.line++
	return true
}

// hexChar prints a C char with %02x: signed, so bytes >= 0x80 sign-extend.
func hexChar(b byte) string {
	if b >= 0x80 {
		return fmt.Sprintf("ffffff%02x", b)
	}
	return fmt.Sprintf("%02x", b)
}

// readString is Redis's readString; it returns the bulk without its "\r\n".
func (c *aofChecker) readString() ([]byte, bool) {
	n, ok := c.readLong('$')
	if !ok {
		return nil, false
	}
	if n < 0 || n > (1<<63-1)-2 {
		c.setErr("Expected to read string of %d bytes, which is not in the suitable range", n)
		return nil, false
	}
	n += 2
	c.bulkBuf = [128]byte{}
	c.epos = c.pos()
	if rem := c.size - c.epos; n > rem {
		// A short fread: it consumes what is there.
		got, _ := c.br.Discard(int(max(rem, 0)))
		if _, err := c.br.Peek(1); err == io.EOF {
			c.eof = true
		}
		c.setErr("Expected to read %d bytes, got %d bytes", n, got)
		return nil, false
	}
	b := make([]byte, n)
	got, err := io.ReadFull(c.br, b)
	if err != nil {
		c.eof = true
		c.setErr("Expected to read %d bytes, got %d bytes", n, got)
		return nil, false
	}
	if !c.consumeNewline(b[n-2:]) {
		return nil, false
	}
	return b[:n-2], true
}

// resp is Redis's processRESP: one command, with the MULTI/EXEC balance.
func (c *aofChecker) resp(path string, multi *int) bool {
	off := c.pos()
	argc, ok := c.readLong('*')
	if !ok {
		return false
	}
	c.argv = c.argv[:0]
	for i := int64(0); i < argc; i++ {
		s, ok := c.readString()
		if !ok {
			return false
		}
		if i == 0 {
			name := cstr(s)
			if strings.EqualFold(name, "multi") {
				*multi++
				if *multi != 1 {
					c.setErr("Unexpected MULTI in AOF %s", path)
					return false
				}
			} else if strings.EqualFold(name, "exec") {
				*multi--
				if *multi != 0 {
					c.setErr("Unexpected EXEC in AOF %s", path)
					return false
				}
			}
		}
		if c.replay {
			c.argv = append(c.argv, s)
		}
	}
	if c.replay && len(c.argv) > 0 {
		c.opt.Replayer.Command(c.curName, off, c.argv)
	}
	return true
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// truncation describes cutting path at to, counting what the tail held.
func (c *aofChecker) truncation(name, path string, to int64, ts bool) Truncation {
	t := Truncation{File: name, Path: path, Size: c.size, To: to, Timestamp: ts}
	t.Commands, t.Torn, t.Keys = scanTail(c.opt.FS, path, to)
	return t
}

// scanTail counts the complete commands from offset from to the end of the
// file at path (skipping "#" lines), whether a torn one follows, and the
// distinct keys they name (argv[1], for commands other than MULTI, EXEC and
// SELECT).
func scanTail(fsys fsx.FS, path string, from int64) (cmds int, torn bool, keys int) {
	f, err := fsys.Open(path)
	if err != nil {
		return 0, false, 0
	}
	defer f.Close()
	br := bufio.NewReader(io.NewSectionReader(f, from, math.MaxInt64-from))
	seen := map[string]struct{}{}
	readLine := func() ([]byte, bool) {
		l, err := br.ReadSlice('\n')
		if err != nil || len(l) < 3 || l[len(l)-2] != '\r' {
			return nil, false
		}
		return l[:len(l)-2], true
	}
	for {
		b, err := br.Peek(1)
		if err != nil || len(b) == 0 {
			return cmds, false, len(seen)
		}
		if b[0] == '#' {
			if _, err := br.ReadSlice('\n'); err != nil {
				return cmds, false, len(seen)
			}
			continue
		}
		l, ok := readLine()
		if !ok || l[0] != '*' {
			return cmds, true, len(seen)
		}
		argc, end, _ := rstring.Strtoll(l[1:])
		if end == 0 || argc < 0 {
			return cmds, true, len(seen)
		}
		var name, key string
		for i := int64(0); i < argc; i++ {
			l, ok := readLine()
			if !ok || l[0] != '$' {
				return cmds, true, len(seen)
			}
			n, end, _ := rstring.Strtoll(l[1:])
			if end == 0 || n < 0 || n > 1<<32 {
				return cmds, true, len(seen)
			}
			arg := make([]byte, n+2)
			if _, err := io.ReadFull(br, arg); err != nil || arg[n] != '\r' || arg[n+1] != '\n' {
				return cmds, true, len(seen)
			}
			switch i {
			case 0:
				name = strings.ToLower(string(arg[:n]))
			case 1:
				key = string(arg[:n])
			}
		}
		cmds++
		if argc > 1 && name != "multi" && name != "exec" && name != "select" {
			seen[key] = struct{}{}
		}
	}
}
