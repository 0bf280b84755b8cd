package server

import (
	"context"

	seam "github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/scripting"
)

// The adapter package scripting runs on (EVAL, FCALL, SCRIPT, FUNCTION
// live there): the server's command table, ACL, write and memory rules,
// and the fake clients redis.call runs commands on. What stays here is
// the executor's: the busy-script state (script_busy.go), which answers
// other clients from the network loop and lends s.mu while a slow script
// runs, and the time keys expire against during a script (expireNow).

// scripts returns the server's scripting (created on first use; only
// touched under the executor lock).
func (s *Server) scripts() *scripting.Scripts {
	if s.scr == nil {
		s.scr = scripting.New(scriptHost{s}, Version)
	}
	return s.scr
}

// expireNow is the time keys expire against: while a script runs, its
// start (Redis 7.0 keyIsExpired uses scriptTimeSnapshot), so a key exists
// or not for the whole script, as the replicas and the AOF see it.
func (s *Server) expireNow() int64 {
	if s.scriptStartMs != 0 {
		return s.scriptStartMs
	}
	return s.nowMs()
}

// scriptStartOOM is the server's memory state as a script starts (Redis's
// pre_command_oom_state): past maxmemory with nothing to evict.
func (s *Server) scriptStartOOM() bool {
	if s.cfg.MaxMemory == 0 || s.loading {
		return false
	}
	s.refreshUsedMemory()
	return s.usedMemory() > s.cfg.MaxMemory && s.cfg.MaxMemoryPolicy == "noeviction"
}

// scriptHost is the server as package scripting sees it.
type scriptHost struct{ s *Server }

var _ scripting.Server = scriptHost{}

func (h scriptHost) NewClient(id int64) scripting.Client {
	f := h.s.newFakeClient()
	f.addr = "lua" // as MONITOR shows the commands scripts run
	f.id = id
	return &scriptClient{f: f}
}

func (h scriptHost) Lookup(argv [][]byte) (scripting.Command, bool) {
	cmd, _ := h.s.lookupCommand(argv)
	if cmd == nil {
		return nil, false // not a typed nil
	}
	return cmd, cmd.subs == nil && cmd.parent == nil
}

func (h scriptHost) Refused(cmd scripting.Command, errText string) {
	s := h.s
	s.countError(errText)
	// counted for this command, not for the EVAL running it (Redis
	// incrCommandStatsOnError moves prev_err_count)
	s.errMark = s.stats.totalErrorReplies
	if cmd != nil {
		cmd.(*command).rejected++
	}
}

func (h scriptHost) WriteRefusal() string { return h.s.writeRefusal() }
func (h scriptHost) NoReplicas() bool     { return h.s.replWriteRefusal() }
func (h scriptHost) Loading() bool        { return h.s.loading }

func (h scriptHost) StartOOM(caller scripting.Caller) bool {
	return caller.(*client).flags&flagFake == 0 && h.s.scriptStartOOM()
}

func (h scriptHost) FcallOOM(caller scripting.Caller) bool {
	s := h.s
	return s.cfg.MaxMemory > 0 && !s.loading && caller.(*client).flags&flagFake == 0 && s.ev.preCommandOOM
}

func (h scriptHost) Start(caller scripting.Caller, argv [][]byte, name string, isEval bool) context.Context {
	s, c := h.s, caller.(*client)
	if len(s.monitors) > 0 && argv != nil {
		// EVAL and FCALL skip the monitors in processCommand: they are fed
		// here, before the commands they run.
		s.feedMonitors(c, argv)
	}
	s.scriptStartMs = s.nowMs()
	run := s.beginScriptRun(c, argv, name, isEval)
	if run == nil {
		return nil
	}
	return &busyCtx{Context: run.ctx, run: run}
}

func (h scriptHost) Wrote() {
	if run := h.s.scriptRun; run != nil {
		run.wrote.Store(true)
	}
}

func (h scriptHost) Killed() bool {
	run := h.s.scriptRun
	return run != nil && run.killed.Load()
}

func (h scriptHost) End() {
	s := h.s
	s.endScriptRun()
	s.scriptStartMs = 0
}

func (h scriptHost) Log(level int, msg string) {
	switch level {
	case 0:
		h.s.log.Debug().Msg(msg)
	case 1, 2:
		h.s.log.Info().Msg(msg)
	default:
		h.s.log.Warn().Msg(msg)
	}
}

// scriptClient is a Lua engine's fake client; caller is the client
// running the script (its user is the fake client's): ACL LOG entries
// describe it.
type scriptClient struct {
	f      *client
	caller *client
}

func (sc *scriptClient) Prepare(caller scripting.Caller) {
	c := caller.(*client)
	sc.f.db = c.db
	sc.f.resp = 2
	sc.f.user, sc.caller = c.user, c
}

func (sc *scriptClient) Release()      { sc.caller = nil }
func (sc *scriptClient) SetRESP(v int) { sc.f.resp = v }

func (sc *scriptClient) ACLDenial(cmd scripting.Command, argv [][]byte) string {
	u := sc.f.user
	if u == nil || u.Open() {
		return ""
	}
	s, c := sc.f.srv, cmd.(*command)
	res, pos := s.aclCheck(u, c, argv)
	if res == aclOK {
		return ""
	}
	s.aclLogDenial(u, sc.caller, res, aclCtxLua, c, argv, pos)
	return aclScriptDenial(res)
}

func (sc *scriptClient) ACLAllowed(cmd scripting.Command, argv [][]byte) bool {
	res, _ := sc.f.srv.aclCheck(sc.f.user, cmd.(*command), argv)
	return res == aclOK
}

func (sc *scriptClient) Call(cmd scripting.Command, argv [][]byte) []byte {
	f := sc.f
	f.out = f.out[:0]
	f.srv.call(f, cmd.(*command), argv)
	return f.out
}

// aclScriptDenial is scriptVerifyACL's error for a denial.
func aclScriptDenial(res int) string {
	switch res {
	case aclDeniedCmd:
		return "The user executing the script can't run this command or subcommand"
	case aclDeniedKey:
		return "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	case aclDeniedChannel:
		return "The user executing the script can't publish to the channel mentioned in the command"
	}
	return "The user executing the script is lacking the permissions for the command"
}

// *command is scripting's Command.
func (cmd *command) Flags() seam.Flag      { return cmd.flags }
func (cmd *command) ArityOK(argc int) bool { return arityOK(cmd, argc) }

// *client is scripting's Caller.
var _ scripting.Caller = (*client)(nil)

func (c *client) Verbatim(format string, text []byte) { c.verbatim(format, text) }
func (c *client) Fake() bool                          { return c.flags&flagFake != 0 }

func (c *client) BigNumber(s string) {
	if c.resp == 3 {
		c.addReplyString("(" + s + "\r\n")
	} else {
		c.bulkString(s)
	}
}

// ErrCounted replies an error already counted in errorstats.
func (c *client) ErrCounted(msg string) {
	c.out = resp.AppendError(c.out, msg)
	c.srv.curCmdFailed = true
}
