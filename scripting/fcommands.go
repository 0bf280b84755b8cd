package scripting

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"strings"

	seam "github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// FUNCTION and FCALL (Redis 7.0 functions.c). FUNCTION LOAD / DELETE /
// FLUSH / RESTORE change the dataset (dirty++) and are propagated as sent
// (by the server); FCALL, like EVAL, propagates the write commands its
// function runs.

// Fcall is FCALL and FCALL_RO (ro).
func (sc *Scripts) Fcall(c Caller, argv [][]byte, ro bool) {
	fe := sc.functions()
	f := fe.funcs[strings.ToLower(string(argv[1]))]
	if f == nil {
		c.Err("ERR Function not found")
		return
	}
	numkeys, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err("ERR Bad number of keys provided")
		return
	}
	if numkeys > int64(len(argv)-3) {
		c.Err("ERR Number of keys can't be greater than number of args")
		return
	}
	if numkeys < 0 {
		c.Err("ERR Number of keys can't be negative")
		return
	}
	// scriptPrepareForRun: a function without no-writes is a write command.
	if f.flags&scriptFlagNoWrites == 0 {
		if msg := fe.e.writeRefusal(ro); msg != "" {
			c.Err(msg)
			return
		}
		if f.flags&scriptFlagAllowOOM == 0 && sc.srv.FcallOOM(c) {
			c.Err("OOM command not allowed when used memory > 'maxmemory'.")
			return
		}
	}
	keys := argv[3 : 3+numkeys]
	args := argv[3+numkeys:]
	fe.call(c, f, argv, keys, args, ro)
}

// FunctionLoad is FUNCTION LOAD.
func (sc *Scripts) FunctionLoad(c Caller, argv [][]byte) {
	replace := false
	pos := 2
	for pos < len(argv)-1 {
		a := argv[pos]
		pos++
		if rstring.EqualFold(a, "replace") {
			replace = true
			continue
		}
		c.Err("ERR Unknown option given: " + string(rstring.CString(a)))
		return
	}
	if pos >= len(argv) {
		c.Err("ERR Function code is missing")
		return
	}
	timeout := funcLoadTimeout
	loading := sc.srv.Loading()
	if loading || c.Fake() {
		timeout = 0
	}
	fe := sc.functions()
	code := argv[pos]
	if loading && !replace {
		// Replaying an AOF over libraries that survived (DEBUG LOADAOF):
		// the same library again is not an error.
		if md, msg := parseLibMeta(code); msg == "" {
			if old := fe.libs[md.name]; old != nil && bytes.Equal(old.code, code) {
				c.BulkString(md.name)
				return
			}
		}
	}
	name, msg := fe.createLib(code, replace, timeout)
	if msg != "" {
		c.Err("ERR " + msg)
		return
	}
	c.AddDirty(1)
	c.BulkString(name)
}

// FunctionDelete is FUNCTION DELETE.
func (sc *Scripts) FunctionDelete(c Caller, argv [][]byte) {
	fe := sc.functions()
	lib := fe.libs[string(argv[2])]
	if lib == nil {
		c.Err("ERR Library not found")
		return
	}
	fe.unlink(lib)
	c.AddDirty(1)
	c.OK()
}

// FunctionFlush is FUNCTION FLUSH.
func (sc *Scripts) FunctionFlush(c Caller, argv [][]byte) {
	if len(argv) > 3 {
		c.Err(seam.SubcommandSyntaxError(argv))
		return
	}
	if len(argv) == 3 && !rstring.EqualFold(argv[2], "sync") && !rstring.EqualFold(argv[2], "async") {
		c.Err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	sc.FlushFunctions()
	c.AddDirty(1)
	c.OK()
}

// FunctionList is FUNCTION LIST.
func (sc *Scripts) FunctionList(c Caller, argv [][]byte) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		if !withCode && rstring.EqualFold(a, "withcode") {
			withCode = true
			continue
		}
		if pattern == nil && rstring.EqualFold(a, "libraryname") {
			if i >= len(argv)-1 {
				c.Err("ERR library name argument was not given")
				return
			}
			i++
			pattern = argv[i]
			continue
		}
		c.Err("ERR Unknown argument " + string(rstring.CString(a)))
		return
	}
	var libs []*funcLib
	for _, l := range sc.functions().sortedLibs() {
		if pattern == nil || rstring.Match(pattern, l.name, true) {
			libs = append(libs, l)
		}
	}
	c.ArrayLen(len(libs))
	for _, l := range libs {
		if withCode {
			c.MapLen(4)
		} else {
			c.MapLen(3)
		}
		c.BulkString("library_name")
		c.BulkString(l.name)
		c.BulkString("engine")
		c.BulkString("LUA")
		c.BulkString("functions")
		fns := l.sortedFuncs()
		c.ArrayLen(len(fns))
		for _, f := range fns {
			c.MapLen(3)
			c.BulkString("name")
			c.BulkString(f.name)
			c.BulkString("description")
			if f.desc != nil {
				c.BulkString(*f.desc)
			} else {
				c.Null()
			}
			c.BulkString("flags")
			n := 0
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					n++
				}
			}
			c.SetLen(n)
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					c.Status(fl.name)
				}
			}
		}
		if withCode {
			c.BulkString("library_code")
			c.Bulk(l.code)
		}
	}
}

// FunctionStats is FUNCTION STATS when no function is past its busy
// threshold (the server answers otherwise): nothing is running.
func (sc *Scripts) FunctionStats(c Caller) {
	c.MapLen(2)
	c.BulkString("running_script")
	c.Null()
	EngineStats(c, sc.NumLibraries(), sc.NumFunctions())
}

// EngineStats writes FUNCTION STATS's engines part.
func EngineStats(c seam.Replier, libs, funcs int) {
	c.BulkString("engines")
	c.MapLen(1)
	c.BulkString("LUA")
	c.MapLen(2)
	c.BulkString("libraries_count")
	c.Integer(int64(libs))
	c.BulkString("functions_count")
	c.Integer(int64(funcs))
}

// functionsPayload is FUNCTION DUMP: each library as an RDB FUNCTION2
// opcode, then the RDB version and a CRC64, like DUMP.
// compress: rdbcompression.
func (sc *Scripts) functionsPayload(compress bool) []byte {
	var buf bytes.Buffer
	enc := rdb.NewEncoder(&buf, rdb.EncoderOptions{Compression: compress})
	for _, l := range sc.functions().sortedLibs() {
		enc.Function(l.code)
	}
	p := buf.Bytes()
	p = binary.LittleEndian.AppendUint16(p, rdbVersion)
	return binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
}

// rdbVersion is the RDB format version Redis 7.0 writes.
const rdbVersion = 10

// FunctionDump is FUNCTION DUMP; compress: rdbcompression.
func (sc *Scripts) FunctionDump(c Caller, compress bool) { c.Bulk(sc.functionsPayload(compress)) }

// parseFunctionsPayload checks a FUNCTION DUMP payload and returns the
// library codes in it, or the error reply.
func parseFunctionsPayload(p []byte) ([][]byte, string) {
	if len(p) < 10 {
		return nil, "ERR DUMP payload version or checksum are wrong"
	}
	footer := p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > rdbVersion || rdb.CRC64(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, "ERR DUMP payload version or checksum are wrong"
	}
	body := p[:len(p)-10]
	if len(body) > 0 && body[0] == 0xf6 {
		return nil, "ERR Pre-GA function format not supported"
	}
	// Only FUNCTION2 opcodes may appear: the RDB decoder reads them (it
	// handles the length and LZF encodings) from a stream wrapped around
	// the body, and the visitor refuses anything else.
	v := &funcCollector{}
	stream := make([]byte, 0, len(body)+18)
	stream = append(stream, "REDIS0010"...)
	stream = append(stream, body...)
	stream = append(stream, 0xff, 0, 0, 0, 0, 0, 0, 0, 0)
	n, err := rdb.Decode(bufio.NewReader(bytes.NewReader(stream)), v, rdb.DecodeOptions{})
	if err != nil || n != int64(len(stream)) {
		return nil, "ERR given type is not a function"
	}
	return v.codes, ""
}

// funcCollector is an rdb.Visitor that accepts only function libraries.
type funcCollector struct{ codes [][]byte }

var errNotFunction = errors.New("given type is not a function")

func (v *funcCollector) Aux(key, val []byte) error             { return errNotFunction }
func (v *funcCollector) SelectDB(db int) error                 { return errNotFunction }
func (v *funcCollector) ResizeDB(dbSize, expires uint64) error { return errNotFunction }
func (v *funcCollector) Key(db int, key []byte, val *rdb.Value, expireMs int64) error {
	return errNotFunction
}
func (v *funcCollector) Function(code []byte) error {
	v.codes = append(v.codes, code)
	return nil
}

// FunctionRestore is FUNCTION RESTORE.
func (sc *Scripts) FunctionRestore(c Caller, argv [][]byte) {
	if len(argv) > 4 {
		c.Err(seam.SubcommandSyntaxError(argv))
		return
	}
	policy := "append"
	if len(argv) == 4 {
		switch {
		case rstring.EqualFold(argv[3], "append"):
		case rstring.EqualFold(argv[3], "replace"):
			policy = "replace"
		case rstring.EqualFold(argv[3], "flush"):
			policy = "flush"
		default:
			c.Err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, msg := parseFunctionsPayload(argv[2])
	if msg != "" {
		c.Err(msg)
		return
	}
	fe := sc.functions()
	libs, err := fe.compilePayloads(codes)
	if err != nil {
		c.Err("ERR " + err.Error())
		return
	}
	if policy == "flush" {
		fe.libs, fe.funcs = map[string]*funcLib{}, map[string]*funcInfo{}
		for _, l := range libs {
			fe.link(l)
		}
	} else if msg := fe.join(libs, policy == "replace"); msg != "" {
		c.Err("ERR " + msg)
		return
	}
	c.AddDirty(1)
	c.OK()
}

// FunctionHelp is FUNCTION HELP.
func FunctionHelp(c Caller) {
	lines := []string{
		"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).",
		"HELP",
		"    Prints this help.",
	}
	c.ArrayLen(len(lines))
	for _, l := range lines {
		c.Status(l)
	}
}

// WriteFunctions writes every library to a snapshot encoder (RDB:
// FUNCTION2 opcodes; RESP base: FUNCTION LOAD commands), before the keys.
func (sc *Scripts) WriteFunctions(enc any) {
	fw, ok := enc.(interface{ Function(code []byte) error })
	if !ok || sc.fn == nil {
		return
	}
	for _, l := range sc.fn.sortedLibs() {
		fw.Function(l.code)
	}
}

// LoadLibrary is the RDB loader's FUNCTION2: FUNCTION LOAD, with REPLACE
// only for DEBUG RELOAD MERGE (Redis's RDBFLAGS_ALLOW_DUP): a library that
// already exists fails the load (DEBUG RELOAD NOFLUSH).
func (sc *Scripts) LoadLibrary(code []byte, replace bool) error {
	_, msg := sc.functions().createLib(code, replace, 0)
	if msg != "" {
		return &LibLoadError{msg}
	}
	return nil
}

// LibLoadError is a library of an RDB that could not be created.
type LibLoadError struct{ Reason string }

func (e *LibLoadError) Error() string { return "Failed loading library: " + e.Reason }
