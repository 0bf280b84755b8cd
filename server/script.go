package server

import "github.com/aofserver/aofserver/scripting"

// EVAL / EVALSHA / EVAL_RO / EVALSHA_RO and SCRIPT (Redis 7.0 eval.c):
// their table entries; package scripting runs them. Scripts replicate
// their effects: EVAL itself is never propagated, the write commands it
// runs are, grouped in MULTI/EXEC by call(). SCRIPT KILL is the busy
// state's (script_busy.go).

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

func evalCommand(c *client, argv [][]byte)      { c.srv.scripts().Eval(c, argv, false, false) }
func evalShaCommand(c *client, argv [][]byte)   { c.srv.scripts().Eval(c, argv, true, false) }
func evalRoCommand(c *client, argv [][]byte)    { c.srv.scripts().Eval(c, argv, false, true) }
func evalShaRoCommand(c *client, argv [][]byte) { c.srv.scripts().Eval(c, argv, true, true) }

func scriptLoadCommand(c *client, argv [][]byte)   { c.srv.scripts().ScriptLoad(c, argv) }
func scriptExistsCommand(c *client, argv [][]byte) { c.srv.scripts().ScriptExists(c, argv) }
func scriptFlushCommand(c *client, argv [][]byte)  { c.srv.scripts().ScriptFlush(c, argv) }
func scriptHelpCommand(c *client, argv [][]byte)   { scripting.ScriptHelp(c) }
