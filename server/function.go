package server

import (
	seam "github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/scripting"
)

// FUNCTION and FCALL (Redis 7.0 functions.c): their table entries;
// package scripting runs them. FUNCTION LOAD / DELETE / FLUSH / RESTORE
// change the dataset (dirty++) and are propagated as sent; FCALL, like
// EVAL, propagates the write commands its function runs. FUNCTION KILL
// and a busy FUNCTION STATS are the busy state's (script_busy.go).

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

func fcallCommand(c *client, argv [][]byte)   { c.srv.scripts().Fcall(c, argv, false) }
func fcallRoCommand(c *client, argv [][]byte) { c.srv.scripts().Fcall(c, argv, true) }

func functionLoadCommand(c *client, argv [][]byte)    { c.srv.scripts().FunctionLoad(c, argv) }
func functionDeleteCommand(c *client, argv [][]byte)  { c.srv.scripts().FunctionDelete(c, argv) }
func functionFlushCommand(c *client, argv [][]byte)   { c.srv.scripts().FunctionFlush(c, argv) }
func functionListCommand(c *client, argv [][]byte)    { c.srv.scripts().FunctionList(c, argv) }
func functionRestoreCommand(c *client, argv [][]byte) { c.srv.scripts().FunctionRestore(c, argv) }
func functionHelpCommand(c *client, argv [][]byte)    { scripting.FunctionHelp(c) }
func functionDumpCommand(c *client, argv [][]byte) {
	c.srv.scripts().FunctionDump(c, c.srv.cfg.RDBCompression)
}

// functionStatsCommand runs when no function is past its busy threshold
// (busyGate answers otherwise).
func functionStatsCommand(c *client, argv [][]byte) { c.srv.scripts().FunctionStats(c) }

// subcommandSyntaxError is addReplySubcommandSyntaxError.
func subcommandSyntaxError(argv [][]byte) string { return seam.SubcommandSyntaxError(argv) }
