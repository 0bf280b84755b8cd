package server

import (
	"strings"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rstring"
)

// processCommand runs one request with Redis's checks in Redis's order
// (server.c processCommand). Called with s.mu held.
func (s *Server) processCommand(c *client, argv [][]byte) {
	s.curClient, s.curArgv = c, argv
	defer func() { s.curClient, s.curArgv = nil, nil }()
	if len(argv) == 0 {
		return
	}
	// Busy script (script_busy.go): a client let in while a script past
	// busy-reply-threshold lends the executor gets BUSY & co.
	if scriptsRunning.Load() != 0 {
		if run := s.lendingRun(); run != nil && run.answer(s, c, argv, true) {
			return
		}
	}
	cmd, container := s.lookupCommand(argv)
	if cmd == nil {
		if container != nil {
			c.err(unknownSubcommandError(container, argv[1]))
		} else {
			c.err(unknownCommandError(argv))
		}
		c.flagTransaction()
		return
	}
	c.lastCmd = cmd.fullName()
	if !arityOK(cmd, len(argv)) {
		c.reject(cmd, arityError(cmd))
		return
	}
	// Protected commands (CMD_PROTECTED) are refused before
	// authentication, as a rejected call.
	if msg := protectedRefusal(c, cmd); msg != "" {
		c.reject(cmd, msg)
		return
	}
	if !c.authed && cmd.flags&cmdNoAuth == 0 && s.aclDefaultNeedsAuth() {
		c.reject(cmd, "NOAUTH Authentication required.")
		return
	}
	if c.flags&flagMulti != 0 && cmd.flags&cmdNoMulti != 0 {
		c.reject(cmd, "ERR Command not allowed inside a transaction")
		return
	}
	// ACL: a user allowed everything (the default one, usually) costs
	// one flag test.
	if u := c.user; u != nil && !u.Open() {
		if res, pos := s.aclCheck(u, cmd, argv); res != aclOK {
			ctx := aclCtxToplevel
			if c.flags&flagMulti != 0 {
				ctx = aclCtxMulti
			}
			s.aclLogDenial(u, c, res, ctx, cmd, argv, pos)
			c.reject(cmd, aclDenial(res, cmd))
			return
		}
	}
	// EXEC is judged by the commands it would run (Redis mstate.cmd_flags
	// and cmd_inv_flags): a state change since they were queued (OOM,
	// MISCONF, loading) aborts it with EXECABORT.
	isWrite := cmd.flags&cmdWrite != 0
	denyOOM := cmd.flags&cmdDenyOOM != 0
	denyLoading := cmd.flags&cmdLoading == 0
	if c.flags&flagMulti != 0 && isExecLike(cmd) {
		all, inv := c.multiFlags()
		isWrite, denyOOM, denyLoading = all&cmdWrite != 0, all&cmdDenyOOM != 0, inv&cmdLoading != 0
	}
	// Inside MULTI anything queued may use memory without limit: under OOM
	// only EXEC (unless denyOOM above), DISCARD, QUIT and RESET pass.
	if c.flags&flagMulti != 0 && !oomExemptInMulti(cmd) {
		denyOOM = true
	}
	if s.cfg.MaxMemory > 0 || s.ev.memLimit != 0 {
		oom := s.performEvictions() == evictFail
		s.ev.preCommandOOM = oom
		if oom && denyOOM {
			c.reject(cmd, "OOM command not allowed when used memory > 'maxmemory'.")
			return
		}
	}
	if isWrite || cmd.name == "ping" {
		if msg := s.writeRefusal(); msg != "" {
			c.reject(cmd, msg)
			return
		}
	}
	// min-replicas-to-write: too few good replicas refuse writes (Redis
	// checkGoodReplicasStatus).
	if isWrite && s.replWriteRefusal() {
		c.reject(cmd, "NOREPLICAS Not enough good replicas to write.")
		return
	}
	if msg := s.replicaRefusal(c, cmd, isWrite); msg != "" {
		c.reject(cmd, msg)
		return
	}
	if c.flags&flagPubSub != 0 && c.resp == 2 && !pubsubAllowed(cmd) {
		cmd.rejected++
		c.err("ERR Can't execute '" + cmd.fullName() + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		return
	}
	if s.loading && denyLoading {
		c.reject(cmd, "LOADING Redis is loading the dataset in memory")
		return
	}
	// The network loop never parks: a client it owns that would (CLIENT
	// PAUSE, a script that may turn busy, DEBUG LOADAOF/RELOAD lending the
	// executor to -LOADING replies) continues on a goroutine of its own,
	// from this command.
	if c.lc != nil && (s.pausedFor(c, cmd, argv) || s.runsScript(c, cmd) || cmd.name == "debug") {
		c.yield = true
		return
	}
	// CLIENT PAUSE: the client waits (off the executor) until the pause ends.
	if s.pausedFor(c, cmd, argv) && !s.waitPause(c, cmd, argv) {
		return
	}
	if c.flags&flagMulti != 0 && !isMultiControl(cmd) {
		c.queueMulti(cmd, argv)
		c.addReplyString("+QUEUED\r\n")
		return
	}
	s.call(c, cmd, argv)
}

// runsScript reports whether cmd runs Lua now (EVAL & co., FCALL & co., or
// an EXEC with one of them queued).
func (s *Server) runsScript(c *client, cmd *command) bool {
	if c.flags&flagMulti != 0 {
		if !isExecLike(cmd) {
			return false
		}
		for _, q := range c.mstate {
			if isScriptRun(q.cmd) {
				return true
			}
		}
		return false
	}
	return isScriptRun(cmd)
}

func isScriptRun(cmd *command) bool {
	switch cmd.name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return cmd.parent == nil
	}
	return false
}

// protectedRefusal is the error for DEBUG and MODULE LOAD/LOADEX/UNLOAD
// when enable-debug-command / enable-module-command do not allow c.
func protectedRefusal(c *client, cmd *command) string {
	switch {
	case cmd.name == "debug" && cmd.parent == nil:
		if !c.srv.debugAllowed(c) {
			return errDebugNotAllowed
		}
	case cmd.parent != nil && cmd.parent.name == "module" && (cmd.name == "load" || cmd.name == "loadex" || cmd.name == "unload"):
		if !moduleAllowed(c) {
			return errModuleNotAllowed
		}
	}
	return ""
}

func isExecLike(cmd *command) bool { return cmd.name == "exec" }

func isMultiControl(cmd *command) bool {
	switch cmd.name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return cmd.parent == nil
	}
	return false
}

func oomExemptInMulti(cmd *command) bool {
	switch cmd.name {
	case "exec", "discard", "quit", "reset":
		return cmd.parent == nil
	}
	return false
}

func pubsubAllowed(cmd *command) bool {
	switch cmd.name {
	case "ping", "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe", "quit", "reset":
		return cmd.parent == nil
	}
	return false
}

// writeRefusal returns the MISCONF error that refuses writes, if any.
func (s *Server) writeRefusal() string {
	if s.cfg.StopWritesOnBGSaveError && len(s.cfg.Save) > 0 && !s.persist.LastBgsaveOK {
		return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
	}
	if s.aof != nil {
		if err := s.aof.WriteErr(); err != nil {
			return "MISCONF Errors writing to the AOF file: " + errnoText(err)
		}
	}
	return ""
}

// call executes cmd and propagates its effect. Nested calls (EXEC, scripts)
// collect their ops into one execution unit, wrapped in MULTI/EXEC when it
// produced two or more, as Redis 7.0 does.
func (s *Server) call(c *client, cmd *command, argv [][]byte) {
	dirtyBefore := s.dirty
	prevForce, prevForceRepl := s.forceProp, s.forceReplProp
	s.forceProp, s.forceReplProp = false, false
	prevArgv, prevPrevent := c.propArgv, c.preventProp
	c.propArgv, c.preventProp, s.curCmdFailed = nil, false, false
	s.errMark = s.stats.totalErrorReplies
	s.execDepth++
	prevLog := c.logArgv
	c.logArgv = nil
	// AOF loading records no time (no stats, slowlog nor latency): the
	// clock reads were a quarter of a redis.call('ping') replayed
	timed := !s.aofLoadingContext(c)
	var start int64
	if timed {
		start = monoNow()
	}
	cmd.proc(c, argv)
	if len(s.ev.touched) > 0 {
		s.memSettle() // values lookupWrite handed out
	}
	var dur time.Duration
	if timed {
		dur = time.Duration(monoNow() - start)
	}
	s.execDepth--
	if s.tracking.Active() {
		s.trackingAfterCall(c, cmd, argv)
	}
	// total_commands_processed and the command's stats count what call()
	// ran, nested calls included, not what processCommand rejected. AOF
	// loading runs the procs without call() in Redis; the commands they
	// run through call() (a script's, EXEC's) count in
	// total_commands_processed and failed_calls but not in calls, usec,
	// latency or the slowlog (call's update_command_stats).
	// curCmdFailed also covers errors replied without being counted (a
	// script re-raising a redis.call error).
	failed := s.curCmdFailed || s.stats.totalErrorReplies > s.errMark
	if !s.aofLoadingContext(c) {
		s.stats.totalCommands++
		cmd.calls++
		cmd.usec += dur.Microseconds()
		if failed {
			cmd.failed++
		}
	} else if !c.aofDirect {
		s.stats.totalCommands++
		if failed {
			cmd.failed++
		}
	}
	s.errMark = s.stats.totalErrorReplies
	c.totalCmds++
	if bs := c.block; bs != nil && bs.cmd == nil {
		// It blocked: the reply that ends the wait completes its stats
		// and slowlog entry (unblockReplied).
		bs.cmd, bs.dur = cmd, dur
	} else if cmd.flags&cmdSkipSlowlog == 0 {
		s.slowlog.maybeAdd(s, c, c.loggedArgv(argv), dur)
	}
	// MONITOR sees a command once it ran, as the client sent it (secrets
	// redacted), in the DB it left selected (Redis call()).
	if len(s.monitors) > 0 && cmd.flags&(cmdSkipMonitor|cmdAdmin) == 0 && !s.aofLoadingContext(c) {
		s.feedMonitors(c, c.loggedArgv(argv))
	}
	c.logArgv = prevLog
	s.afterCallLatency(c, cmd, dur)
	changed := s.dirty != dirtyBefore || s.forceProp
	// A replicas-only op exists only while there is a stream to feed
	// (Redis's shouldPropagate): without one it is not even counted for
	// the MULTI/EXEC around the unit in the AOF.
	replOnly := !changed && s.forceReplProp && s.repl.Backlog != nil && s.repl.link == nil
	changed = changed || replOnly
	s.forceProp, s.forceReplProp = prevForce, prevForceRepl
	if changed && cmd.flags&cmdNoPropagate == 0 && !c.preventProp && !s.loading && s.propagating() {
		pa := c.propArgv
		if pa == nil {
			pa = argv
			// argv points into the client's read buffer: ops that outlive
			// this call (inside EXEC or a script, or kept with the AOF
			// off) need their own copy; the outermost call's op is fed
			// (copied into the AOF buffer) just below.
			if s.execDepth > 0 || s.aof == nil {
				pa = rstring.CloneArgv(argv)
			}
		}
		if replOnly {
			s.replOnlyOps = append(s.replOnlyOps, len(s.pendingOps))
		}
		s.pendingOps = append(s.pendingOps, aof.Op{DB: c.db.id, Argv: pa})
	}
	// The caller's errors before this nested call are forgotten, as
	// Redis's call() resets prev_err_count when it starts.
	c.propArgv, c.preventProp, s.curCmdFailed = prevArgv, prevPrevent, false
	if s.execDepth == 0 {
		s.flushPropagation(cmd.flags&cmdTouchesArbitraryKeys == 0)
		if len(s.blocking.ready) > 0 {
			s.handleReadyKeys()
		}
	}
}

// propagate adds an op to the current execution unit (Redis alsoPropagate)
// or, outside any command (active expiry), logs it on its own.
func (s *Server) propagate(db int, argv [][]byte) {
	if s.loading || !s.propagating() {
		return
	}
	s.pendingOps = append(s.pendingOps, aof.Op{DB: db, Argv: argv})
	if s.execDepth == 0 {
		s.flushPropagation(false)
	}
}

var (
	multiArgv = [][]byte{[]byte("MULTI")}
	execArgv  = [][]byte{[]byte("EXEC")}
)

func (s *Server) flushPropagation(wrap bool) {
	ops := s.pendingOps
	if len(ops) == 0 {
		return
	}
	if s.aof != nil {
		var off aof.Ticket
		aofOps := ops
		if len(s.replOnlyOps) > 0 {
			// The replicas' ops count for the MULTI/EXEC around the
			// unit, as in Redis's propagatePendingCommands.
			aofOps = make([]aof.Op, 0, len(ops))
			for i, j := 0, 0; i < len(ops); i++ {
				if j < len(s.replOnlyOps) && s.replOnlyOps[j] == i {
					j++
					continue
				}
				aofOps = append(aofOps, ops[i])
			}
		}
		if wrap && len(ops) >= 2 {
			all := make([]aof.Op, 0, len(aofOps)+2)
			all = append(all, aof.Op{DB: ops[0].DB, Argv: multiArgv})
			all = append(all, aofOps...)
			all = append(all, aof.Op{DB: ops[len(ops)-1].DB, Argv: execArgv})
			off = s.aof.Feed(all...)
		} else if len(aofOps) > 0 {
			off = s.aof.Feed(aofOps...)
		}
		if s.curClient != nil {
			s.curClient.fedOff = off
		}
	}
	// Replicas and the backlog get the same stream (replication.go).
	s.replFeedOps(ops, wrap)
	for i := range s.pendingOps {
		s.pendingOps[i] = aof.Op{}
	}
	s.pendingOps = s.pendingOps[:0]
	s.replOnlyOps = s.replOnlyOps[:0]
}

// rewriteArgv makes the current command propagate as argv instead of what
// the client sent (Redis rewriteClientCommandVector).
func (c *client) rewriteArgv(argv ...[]byte) { c.propArgv = argv }

// preventPropagation stops the current command from being logged itself.
func (c *client) preventPropagation() { c.preventProp = true }

func (s *Server) countError(msg string) {
	code := msg
	if i := strings.IndexByte(msg, ' '); i >= 0 {
		code = msg[:i]
	}
	if len(s.stats.errorCounts) < 128 || s.stats.errorCounts[code] > 0 {
		s.stats.errorCounts[code]++
	}
	s.stats.totalErrorReplies++
}

func (c *client) flagTransaction() {
	if c.flags&flagMulti != 0 {
		c.flags |= flagDirtyExec
	}
}

// reject refuses cmd before it runs (Redis rejectCommand): the error flags
// the transaction, and a refused EXEC aborts it with EXECABORT.
func (c *client) reject(cmd *command, msg string) {
	if cmd != nil {
		cmd.rejected++
	}
	c.flagTransaction()
	if cmd != nil && cmd.name == "exec" && cmd.parent == nil {
		c.discardTransaction()
		c.err("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR "))
		// It never runs, yet MONITOR shows it (Redis execCommandAbort).
		if s := c.srv; len(s.monitors) > 0 && s.curClient == c && !s.loading {
			s.feedMonitors(c, s.curArgv)
		}
		return
	}
	c.err(msg)
}
