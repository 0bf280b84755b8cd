package scripting

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

// Scripts is a server's scripting: EVAL's Lua engine and script cache,
// the function libraries and their engine. Both engines are created on
// first use (a Lua state costs memory and time to build).
type Scripts struct {
	srv     Server
	version string
	eval    *luaEngine // nil until first used, dropped by SCRIPT FLUSH
	fn      *funcEngine
	// denyScriptsOff: DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets scripts run
	// no-script commands (kept across SCRIPT FLUSH)
	denyScriptsOff bool
}

// New returns the scripting of srv; version is the Redis version scripts
// see (redis.REDIS_VERSION).
func New(srv Server, version string) *Scripts { return &Scripts{srv: srv, version: version} }

func (sc *Scripts) evalEngine() *luaEngine {
	if sc.eval == nil {
		sc.eval = newLuaEngine(sc, 1)
	}
	return sc.eval
}

func (sc *Scripts) functions() *funcEngine {
	if sc.fn == nil {
		sc.fn = newFuncEngine(sc)
	}
	return sc.fn
}

// SetDenyScriptsOff is DEBUG SET-DISABLE-DENY-SCRIPTS.
func (sc *Scripts) SetDenyScriptsOff(off bool) { sc.denyScriptsOff = off }

// FlushScripts is SCRIPT FLUSH: a new EVAL engine, an empty cache.
func (sc *Scripts) FlushScripts() {
	if sc.eval != nil {
		sc.eval.L.Close()
		sc.eval = nil
	}
}

// FlushFunctions drops every library and the functions' Lua state.
func (sc *Scripts) FlushFunctions() {
	if sc.fn != nil {
		sc.fn.e.L.Close()
		sc.fn = nil
	}
}

// NumScripts is INFO's number_of_cached_scripts.
func (sc *Scripts) NumScripts() int {
	if sc.eval == nil {
		return 0
	}
	return len(sc.eval.funcs)
}

// NumLibraries and NumFunctions are INFO's number_of_libraries and
// number_of_functions (and FUNCTION STATS's counts).
func (sc *Scripts) NumLibraries() int {
	if sc.fn == nil {
		return 0
	}
	return len(sc.fn.libs)
}

func (sc *Scripts) NumFunctions() int {
	if sc.fn == nil {
		return 0
	}
	return len(sc.fn.funcs)
}

// MayWrite is Redis's evalGetCommandFlags / fcallGetCommandFlags for
// CLIENT PAUSE WRITE: whether EVAL, EVALSHA or FCALL (cmd, lower case)
// of arg (the body, sha or function name) may write, by the flags the
// script or function declares. known is false where those do not decide
// (no shebang, a script not cached, an unknown function): the command's
// own flags do.
func (sc *Scripts) MayWrite(cmd string, arg []byte) (write, known bool) {
	switch cmd {
	case "eval":
		if flags, ok := shebangFlags(arg); ok {
			return !strings.Contains(" "+flags+" ", " no-writes "), true
		}
	case "evalsha":
		if sc.eval != nil && sc.eval.noWrites[strings.ToLower(string(arg))] {
			return false, true
		}
	case "fcall":
		if sc.fn != nil {
			if f := sc.fn.funcs[strings.ToLower(string(arg))]; f != nil {
				return f.flags&scriptFlagNoWrites == 0, true
			}
		}
	}
	return false, false
}

// shebangFlags returns the flags of a "#!lua flags=a,b" first line
// (space separated), ok=false without a shebang. Unlike compile, it
// judges nothing: an invalid shebang fails later, when the script runs.
func shebangFlags(body []byte) (string, bool) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return "", false
	}
	line := body
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		line = body[:i]
	}
	for _, part := range strings.Fields(string(line)) {
		if v, ok := strings.CutPrefix(part, "flags="); ok {
			return strings.ReplaceAll(v, ",", " "), true
		}
	}
	return "", true
}

func sha1hex(b []byte) string {
	h := sha1.Sum(b)
	return hex.EncodeToString(h[:])
}

// Eval is EVAL, EVALSHA (bySha), EVAL_RO and EVALSHA_RO (ro).
func (sc *Scripts) Eval(c Caller, argv [][]byte, bySha, ro bool) {
	numkeys, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err("ERR value is not an integer or out of range")
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
	eng := sc.evalEngine()
	var sha string
	if bySha {
		sha = strings.ToLower(string(argv[1]))
		if len(sha) != 40 || eng.funcs[sha] == nil {
			c.Err("NOSCRIPT No matching script. Please use EVAL.")
			return
		}
	} else {
		sha = sha1hex(argv[1])
		if eng.funcs[sha] == nil {
			if msg := eng.compile(sha, argv[1]); msg != "" {
				c.Err(msg)
				return
			}
		}
	}
	eng.run(c, sha, argv, argv[3:3+numkeys], argv[3+numkeys:], ro)
}

// ScriptLoad is SCRIPT LOAD.
func (sc *Scripts) ScriptLoad(c Caller, argv [][]byte) {
	eng := sc.evalEngine()
	sha := sha1hex(argv[2])
	if eng.funcs[sha] == nil {
		if msg := eng.compile(sha, argv[2]); msg != "" {
			c.Err(msg)
			return
		}
	}
	c.BulkString(sha)
}

// ScriptExists is SCRIPT EXISTS.
func (sc *Scripts) ScriptExists(c Caller, argv [][]byte) {
	eng := sc.evalEngine()
	c.ArrayLen(len(argv) - 2)
	for _, a := range argv[2:] {
		if eng.funcs[strings.ToLower(string(a))] != nil {
			c.Integer(1)
		} else {
			c.Integer(0)
		}
	}
}

// ScriptFlush is SCRIPT FLUSH.
func (sc *Scripts) ScriptFlush(c Caller, argv [][]byte) {
	if len(argv) > 3 || len(argv) == 3 && !rstring.EqualFold(argv[2], "sync") && !rstring.EqualFold(argv[2], "async") {
		c.Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	sc.FlushScripts()
	c.OK()
}

// ScriptHelp is SCRIPT HELP.
func ScriptHelp(c Caller) {
	lines := []string{
		"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DEBUG (YES|SYNC|NO)",
		"    Set the debug mode for subsequent scripts executed.",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.",
		"HELP",
		"    Prints this help.",
	}
	c.ArrayLen(len(lines))
	for _, l := range lines {
		c.Status(l)
	}
}
