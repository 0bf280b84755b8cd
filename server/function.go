package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"strings"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// FUNCTION and FCALL (Redis 7.0 functions.c). FUNCTION LOAD / DELETE /
// FLUSH / RESTORE change the dataset (dirty++) and are propagated as sent;
// FCALL, like EVAL, propagates the write commands its function runs.

func init() {
	fn := func(name string, arity int, flags uint64, proc cmdProc, summary, since string, acl ...string) *command {
		if acl == nil {
			acl = []string{"@slow", "@scripting"}
		}
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "scripting", summary: summary, since: since, acl: acl}
	}
	w := []string{"@write", "@slow", "@scripting"}
	// may_replicate (which Redis's FCALL does not list: it derives write
	// from the function's flags at run time) keeps a writing FCALL behind
	// CLIENT PAUSE WRITE.
	ev := cmdNoScript | cmdSkipMonitor | cmdMayReplicate | cmdStale | cmdNoPropagate
	register(
		fn("fcall", -3, ev, fcallCommand, "Invoke a function", "7.0.0"),
		fn("fcall_ro", -3, ev|cmdReadonly, fcallRoCommand, "Invoke a read-only function", "7.0.0"),
		fn("function", -2, 0, nil, "A container for function commands", "7.0.0", "@slow"),
		fn("function|load", -3, cmdWrite|cmdDenyOOM|cmdNoScript, functionLoadCommand, "Create a function with the given arguments (name, code, description)", "7.0.0", w...),
		fn("function|delete", 3, cmdWrite|cmdNoScript, functionDeleteCommand, "Delete a function by name", "7.0.0", w...),
		fn("function|flush", -2, cmdWrite|cmdNoScript, functionFlushCommand, "Deleting all functions", "7.0.0", w...),
		fn("function|restore", -3, cmdWrite|cmdDenyOOM|cmdNoScript, functionRestoreCommand, "Restore all the functions on the given payload", "7.0.0", w...),
		fn("function|dump", 2, cmdNoScript, functionDumpCommand, "Dump all functions into a serialized binary payload", "7.0.0"),
		fn("function|list", -2, cmdNoScript, functionListCommand, "List information about all the functions", "7.0.0"),
		fn("function|stats", 2, cmdNoScript|cmdAllowBusy, functionStatsCommand, "Return information about the function currently running (name, description, duration)", "7.0.0"),
		fn("function|kill", 2, cmdNoScript|cmdAllowBusy, scriptKillCommand, "Kill the function currently in execution.", "7.0.0"),
		fn("function|help", 2, cmdLoading|cmdStale, functionHelpCommand, "Show helpful text about the different subcommands", "7.0.0"),
	)
}

func fcallCommand(c *client, argv [][]byte)   { fcallGeneric(c, argv, false) }
func fcallRoCommand(c *client, argv [][]byte) { fcallGeneric(c, argv, true) }

func fcallGeneric(c *client, argv [][]byte, ro bool) {
	s := c.srv
	fe := s.functions()
	f := fe.funcs[strings.ToLower(string(argv[1]))]
	if f == nil {
		c.err("ERR Function not found")
		return
	}
	numkeys, ok := parseInt(argv[2])
	if !ok {
		c.err("ERR Bad number of keys provided")
		return
	}
	if numkeys > int64(len(argv)-3) {
		c.err("ERR Number of keys can't be greater than number of args")
		return
	}
	if numkeys < 0 {
		c.err("ERR Number of keys can't be negative")
		return
	}
	// scriptPrepareForRun: a function without no-writes is a write command.
	if f.flags&scriptFlagNoWrites == 0 {
		if msg := s.scriptWriteRefusal(ro); msg != "" {
			c.err(msg)
			return
		}
		if f.flags&scriptFlagAllowOOM == 0 && s.cfg.MaxMemory > 0 && !s.loading && c.flags&flagFake == 0 && s.ev.preCommandOOM {
			c.err("OOM command not allowed when used memory > 'maxmemory'.")
			return
		}
	}
	keys := argv[3 : 3+numkeys]
	args := argv[3+numkeys:]
	fe.call(c, f, argv, keys, args, ro)
}

func functionLoadCommand(c *client, argv [][]byte) {
	s := c.srv
	replace := false
	pos := 2
	for pos < len(argv)-1 {
		a := argv[pos]
		pos++
		if eqFold(a, "replace") {
			replace = true
			continue
		}
		c.err("ERR Unknown option given: " + string(cString(a)))
		return
	}
	if pos >= len(argv) {
		c.err("ERR Function code is missing")
		return
	}
	timeout := funcLoadTimeout
	if s.loading || c.flags&flagFake != 0 {
		timeout = 0
	}
	fe := s.functions()
	code := argv[pos]
	if s.loading && !replace {
		// Replaying an AOF over libraries that survived (DEBUG LOADAOF):
		// the same library again is not an error.
		if md, msg := parseLibMeta(code); msg == "" {
			if old := fe.libs[md.name]; old != nil && bytes.Equal(old.code, code) {
				c.bulkString(md.name)
				return
			}
		}
	}
	name, msg := fe.createLib(code, replace, timeout)
	if msg != "" {
		c.err("ERR " + msg)
		return
	}
	s.dirty++
	c.bulkString(name)
}

func functionDeleteCommand(c *client, argv [][]byte) {
	s := c.srv
	fe := s.functions()
	lib := fe.libs[string(argv[2])]
	if lib == nil {
		c.err("ERR Library not found")
		return
	}
	fe.unlink(lib)
	s.dirty++
	c.ok()
}

func functionFlushCommand(c *client, argv [][]byte) {
	if len(argv) > 3 {
		c.err(subcommandSyntaxError(argv))
		return
	}
	if len(argv) == 3 && !eqFold(argv[2], "sync") && !eqFold(argv[2], "async") {
		c.err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	s := c.srv
	s.flushFunctions()
	s.dirty++
	c.ok()
}

// flushFunctions drops every library and the functions' Lua state.
func (s *Server) flushFunctions() {
	eng := s.scriptEngine()
	if eng.fnReg != nil {
		eng.fnReg.e.L.Close()
		eng.fnReg = nil
	}
}

// subcommandSyntaxError is addReplySubcommandSyntaxError.
func subcommandSyntaxError(argv [][]byte) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + string(cString(argv[1])) + "'. Try " + strings.ToUpper(string(argv[0])) + " HELP."
}

func functionListCommand(c *client, argv [][]byte) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		if !withCode && eqFold(a, "withcode") {
			withCode = true
			continue
		}
		if pattern == nil && eqFold(a, "libraryname") {
			if i >= len(argv)-1 {
				c.err("ERR library name argument was not given")
				return
			}
			i++
			pattern = argv[i]
			continue
		}
		c.err("ERR Unknown argument " + string(cString(a)))
		return
	}
	var libs []*funcLib
	for _, l := range c.srv.functions().sortedLibs() {
		if pattern == nil || rstring.Match(pattern, l.name, true) {
			libs = append(libs, l)
		}
	}
	c.arrayLen(len(libs))
	for _, l := range libs {
		if withCode {
			c.mapLen(4)
		} else {
			c.mapLen(3)
		}
		c.bulkString("library_name")
		c.bulkString(l.name)
		c.bulkString("engine")
		c.bulkString("LUA")
		c.bulkString("functions")
		fns := l.sortedFuncs()
		c.arrayLen(len(fns))
		for _, f := range fns {
			c.mapLen(3)
			c.bulkString("name")
			c.bulkString(f.name)
			c.bulkString("description")
			if f.desc != nil {
				c.bulkString(*f.desc)
			} else {
				c.nullBulk()
			}
			c.bulkString("flags")
			n := 0
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					n++
				}
			}
			c.setLen(n)
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					c.status(fl.name)
				}
			}
		}
		if withCode {
			c.bulkString("library_code")
			c.bulk(l.code)
		}
	}
}

// functionStatsCommand runs when no function is past its busy threshold
// (busyGate answers otherwise): nothing is running.
func functionStatsCommand(c *client, argv [][]byte) {
	fe := c.srv.functions()
	c.mapLen(2)
	c.bulkString("running_script")
	c.nullBulk()
	writeEngineStats(c, len(fe.libs), len(fe.funcs))
}

// functionsPayload is FUNCTION DUMP: each library as an RDB FUNCTION2
// opcode, then the RDB version and a CRC64, like DUMP.
func (s *Server) functionsPayload() []byte {
	var buf bytes.Buffer
	enc := rdb.NewEncoder(&buf, rdb.EncoderOptions{Compression: s.cfg.RDBCompression})
	for _, l := range s.functions().sortedLibs() {
		enc.Function(l.code)
	}
	p := buf.Bytes()
	p = binary.LittleEndian.AppendUint16(p, rdbVersion)
	return binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
}

// rdbVersion is the RDB format version Redis 7.0 writes.
const rdbVersion = 10

func functionDumpCommand(c *client, argv [][]byte) { c.bulk(c.srv.functionsPayload()) }

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

func functionRestoreCommand(c *client, argv [][]byte) {
	if len(argv) > 4 {
		c.err(subcommandSyntaxError(argv))
		return
	}
	policy := "append"
	if len(argv) == 4 {
		switch {
		case eqFold(argv[3], "append"):
		case eqFold(argv[3], "replace"):
			policy = "replace"
		case eqFold(argv[3], "flush"):
			policy = "flush"
		default:
			c.err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, msg := parseFunctionsPayload(argv[2])
	if msg != "" {
		c.err(msg)
		return
	}
	s := c.srv
	fe := s.functions()
	libs, err := fe.compilePayloads(codes)
	if err != nil {
		c.err("ERR " + err.Error())
		return
	}
	if policy == "flush" {
		fe.libs, fe.funcs = map[string]*funcLib{}, map[string]*funcInfo{}
		for _, l := range libs {
			fe.link(l)
		}
	} else if msg := fe.join(libs, policy == "replace"); msg != "" {
		c.err("ERR " + msg)
		return
	}
	s.dirty++
	c.ok()
}

func functionHelpCommand(c *client, argv [][]byte) {
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
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}

// writeFunctions writes every library to a snapshot encoder (RDB: FUNCTION2
// opcodes; RESP base: FUNCTION LOAD commands), before the keys.
func (s *Server) writeFunctions(enc any) {
	fw, ok := enc.(interface{ Function(code []byte) error })
	if !ok || s.lua == nil || s.lua.fnReg == nil {
		return
	}
	for _, l := range s.lua.fnReg.sortedLibs() {
		fw.Function(l.code)
	}
}

// loadFunctionLib is the RDB loader's FUNCTION2: FUNCTION LOAD, with
// REPLACE only for DEBUG RELOAD MERGE (Redis's RDBFLAGS_ALLOW_DUP): a
// library that already exists fails the load (DEBUG RELOAD NOFLUSH).
func (s *Server) loadFunctionLib(code []byte, replace bool) error {
	_, msg := s.functions().createLib(code, replace, 0)
	if msg != "" {
		return &libLoadError{msg}
	}
	return nil
}

// libLoadError is a library of an RDB that could not be created.
type libLoadError struct{ reason string }

func (e *libLoadError) Error() string { return "Failed loading library: " + e.reason }

// numFunctions is INFO's number_of_functions.
func (s *Server) numFunctions() int {
	if s.lua == nil || s.lua.fnReg == nil {
		return 0
	}
	return len(s.lua.fnReg.funcs)
}
