package server

import "strings"

// Commands Redis 7.0.15 has whose feature aofserver does not have (cluster,
// modules, failover) answer as Redis does with that feature disabled or
// unused. applyRedisMeta registers them from absentProcs only when no file
// registered the command itself, so an implementation elsewhere always
// wins; a Redis command with neither answers absentCommand's error, so
// that COMMAND COUNT and COMMAND LIST stay Redis's.

const errClusterDisabled = "ERR This instance has cluster support disabled"

var absentProcs = map[string]cmdProc{
	"asking":         clusterDisabledCommand,
	"readonly":       clusterDisabledCommand,
	"readwrite":      clusterDisabledCommand,
	"cluster":        nil, // container: its subcommands answer
	"replicaof":      replicaofCommand,
	"slaveof":        replicaofCommand,
	"lolwut":         lolwutCommand,
	"module":         nil,
	"module|help":    moduleHelpCommand,
	"module|list":    moduleListCommand,
	"module|load":    moduleLoadCommand,
	"module|loadex":  moduleLoadCommand,
	"module|unload":  moduleUnloadCommand,
	"restore-asking": restoreCommand, // RESTORE with the asking flag, as in Redis
	"script|debug":   scriptDebugCommand,
	"memory|malloc-stats": func(c *client, argv [][]byte) {
		c.verbatim("txt", []byte("Stats not supported for the current allocator"))
	},
}

// absentProc returns the procedure of Redis command name when no file
// registered it.
func absentProc(name string) cmdProc {
	if p, ok := absentProcs[name]; ok {
		return p
	}
	if strings.HasPrefix(name, "cluster|") {
		return clusterDisabledCommand
	}
	return absentCommand
}

func clusterDisabledCommand(c *client, argv [][]byte) { c.err(errClusterDisabled) }

// absentCommand answers a Redis command aofserver does not implement.
func absentCommand(c *client, argv [][]byte) {
	name := strings.ToUpper(string(argv[0]))
	if c.srv.commands[strings.ToLower(string(argv[0]))].subs != nil && len(argv) > 1 {
		name += " " + strings.ToUpper(string(argv[1]))
	}
	c.err("ERR " + name + " is not supported by aofserver")
}

// replicaofCommand is REPLICAOF/SLAVEOF for a server that stays a master:
// NO ONE is accepted (it is one already), a master address is refused
// after Redis's own checks.
func replicaofCommand(c *client, argv [][]byte) {
	if eqFold(argv[1], "no") && eqFold(argv[2], "one") {
		c.ok()
		return
	}
	if port, ok := parseInt(argv[2]); !ok || port < 0 || port > 65535 {
		c.err("ERR Invalid master port")
		return
	}
	c.err("ERR " + strings.ToUpper(string(argv[0])) + " is not supported by aofserver: it does not replicate from a master")
}

// lolwutCommand is LOLWUT; aofserver draws no art (Redis's versions 5 and
// 6 draw random pictures), only the version line of the default.
func lolwutCommand(c *client, argv [][]byte) {
	if len(argv) >= 3 && eqFold(argv[1], "version") {
		if _, ok := parseInt(argv[2]); !ok {
			c.errNotInt()
			return
		}
	}
	c.verbatim("txt", []byte("Redis ver. "+Version+"\n"))
}

func moduleHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LIST",
		"    Return a list of loaded modules.",
		"LOAD <path> [<arg> ...]",
		"    Load a module library from <path>, passing to it any optional arguments.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
		"    Load a module library from <path>, while passing it module configurations and optional arguments.",
		"UNLOAD <name>",
		"    Unload a module.",
		"HELP",
		"    Prints this help.",
	})
}

func moduleListCommand(c *client, argv [][]byte) { c.arrayLen(0) }

// moduleAllowed applies enable-module-command (Redis allowProtectedAction).
func moduleAllowed(c *client) bool {
	for _, kv := range c.srv.cfg.Get("enable-module-command") {
		switch kv[1] {
		case "yes":
			return true
		case "local":
			return c.isLocal()
		}
	}
	return false
}

const errModuleNotAllowed = "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// moduleLoadCommand is MODULE LOAD/LOADEX: aofserver cannot load Redis
// modules (C shared objects), so every load fails as a failed dlopen does.
// enable-module-command is checked by processCommand (protectedRefusal).
func moduleLoadCommand(c *client, argv [][]byte) {
	c.srv.log.Warn().Msgf("Module %s failed to load: aofserver cannot load Redis modules", argv[2])
	c.err("ERR Error loading the extension. Please check the server logs.")
}

func moduleUnloadCommand(c *client, argv [][]byte) {
	c.err("ERR Error unloading module: no such module with that name")
}

// scriptDebugCommand is SCRIPT DEBUG: NO is accepted (debugging is off);
// aofserver has no Lua debugger for YES and SYNC.
func scriptDebugCommand(c *client, argv [][]byte) {
	switch {
	case eqFold(argv[2], "no"):
		c.ok()
	case eqFold(argv[2], "yes"), eqFold(argv[2], "sync"):
		c.err("ERR SCRIPT DEBUG is not supported by aofserver: it has no Lua debugger")
	default:
		c.err("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}
