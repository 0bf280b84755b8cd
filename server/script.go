package server

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// EVAL / EVALSHA / EVAL_RO / EVALSHA_RO and SCRIPT (Redis 7.0 eval.c).
// Scripts replicate their effects: EVAL itself is never propagated, the
// write commands it runs are, grouped in MULTI/EXEC by call().

func init() {
	sc := func(name string, arity int, flags uint64, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "scripting", summary: summary, since: since, acl: append([]string{"@slow", "@scripting"}, acl...)}
	}
	ev := cmdNoScript | cmdSkipMonitor | cmdMayReplicate | cmdStale | cmdNoPropagate
	register(
		sc("eval", -3, ev, evalCommand, "Execute a Lua script server side", "2.6.0"),
		sc("evalsha", -3, ev, evalShaCommand, "Execute a Lua script server side", "2.6.0"),
		sc("eval_ro", -3, ev|cmdReadonly, evalRoCommand, "Execute a read-only Lua script server side", "7.0.0"),
		sc("evalsha_ro", -3, ev|cmdReadonly, evalShaRoCommand, "Execute a read-only Lua script server side", "7.0.0"),
		sc("script", -2, 0, nil, "A container for Lua scripts management commands", "2.6.0"),
		sc("script|load", 3, cmdNoScript|cmdStale, scriptLoadCommand, "Load the specified Lua script into the script cache.", "2.6.0"),
		sc("script|exists", -3, cmdNoScript, scriptExistsCommand, "Check existence of scripts in the script cache.", "2.6.0"),
		sc("script|flush", -2, cmdNoScript, scriptFlushCommand, "Remove all the scripts from the script cache.", "2.6.0"),
		sc("script|kill", 2, cmdNoScript|cmdAllowBusy, scriptKillCommand, "Kill the script currently in execution.", "2.6.0"),
		sc("script|help", 2, cmdLoading|cmdStale, scriptHelpCommand, "Show helpful text about the different subcommands", "5.0.0"),
	)
}

func sha1hex(b []byte) string {
	h := sha1.Sum(b)
	return hex.EncodeToString(h[:])
}

func evalCommand(c *client, argv [][]byte)      { evalGeneric(c, argv, false, false) }
func evalShaCommand(c *client, argv [][]byte)   { evalGeneric(c, argv, true, false) }
func evalRoCommand(c *client, argv [][]byte)    { evalGeneric(c, argv, false, true) }
func evalShaRoCommand(c *client, argv [][]byte) { evalGeneric(c, argv, true, true) }

func evalGeneric(c *client, argv [][]byte, bySha, ro bool) {
	s := c.srv
	numkeys, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
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
	eng := s.scriptEngine()
	var sha string
	if bySha {
		sha = strings.ToLower(string(argv[1]))
		if len(sha) != 40 || eng.funcs[sha] == nil {
			c.err("NOSCRIPT No matching script. Please use EVAL.")
			return
		}
	} else {
		sha = sha1hex(argv[1])
		if eng.funcs[sha] == nil {
			if msg := eng.compile(sha, argv[1]); msg != "" {
				c.err(msg)
				return
			}
		}
	}
	keys := argv[3 : 3+numkeys]
	args := argv[3+numkeys:]
	eng.argv = argv
	eng.run(c, sha, keys, args, ro)
	eng.argv = nil
}

func scriptLoadCommand(c *client, argv [][]byte) {
	eng := c.srv.scriptEngine()
	sha := sha1hex(argv[2])
	if eng.funcs[sha] == nil {
		if msg := eng.compile(sha, argv[2]); msg != "" {
			c.err(msg)
			return
		}
	}
	c.bulkString(sha)
}

func scriptExistsCommand(c *client, argv [][]byte) {
	eng := c.srv.scriptEngine()
	c.arrayLen(len(argv) - 2)
	for _, a := range argv[2:] {
		if eng.funcs[strings.ToLower(string(a))] != nil {
			c.integer(1)
		} else {
			c.integer(0)
		}
	}
}

func scriptFlushCommand(c *client, argv [][]byte) {
	if len(argv) > 3 {
		c.err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if len(argv) == 3 && !eqFold(lowerASCII(argv[2]), "sync") && !eqFold(lowerASCII(argv[2]), "async") {
		c.err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	c.srv.resetScriptEngine()
	c.ok()
}

func scriptHelpCommand(c *client, argv [][]byte) {
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
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}
