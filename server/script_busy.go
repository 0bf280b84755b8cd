package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/scripting"
)

// Busy scripts (Redis 7.0 script.c scriptInterrupt / processCommand's
// isInsideYieldingLongCommand branch).
//
// A script runs under the executor lock s.mu, so other clients simply wait
// for it. Once it has run longer than busy-reply-threshold, Redis answers
// other clients -BUSY instead, and lets SCRIPT KILL / FUNCTION KILL /
// FUNCTION STATS / SHUTDOWN NOSAVE through. Here the running script
// publishes a scriptRun; a connection goroutine about to take s.mu first
// loads scriptsRunning (one atomic load, zero on the normal path) and, when
// its server's script is past the threshold, answers the command itself
// without the lock (busyGate). Clients that were already waiting for s.mu
// when the script started are served too: past the threshold the script
// lends the executor every few milliseconds (busyCtx, called by the VM at
// every instruction, like Redis's Lua hook calling processEventsWhileBlocked)
// and processCommand answers them the same way. A kill cancels the Lua
// VM's context: the VM raises an error at its next instruction.

const (
	errSlowEval   = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errSlowScript = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	errNotBusy    = "NOTBUSY No scripts in execution right now."
	errUnkillable = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)

// scriptRun is a script in execution, shared with connection goroutines.
// Its fields are set before it is published and read-only afterwards,
// except the atomics and errs.
type scriptRun struct {
	start     time.Time
	threshold time.Duration
	isEval    bool
	name      string   // function name (FUNCTION STATS)
	argv      [][]byte // the caller's command (FUNCTION STATS)
	libs      int      // library and function counts at start (FUNCTION STATS)
	funcs     int
	noAuth    bool            // the default user needs a password
	ctx       context.Context // the VM's, cancelled by a kill
	cancel    context.CancelFunc
	s         *Server

	// owned by the script's goroutine (under s.mu)
	ticks    uint32
	lastLend time.Time
	slow     bool
	lending  bool // s.mu is lent to waiting clients (read under s.mu)

	killed atomic.Bool
	wrote  atomic.Bool
	ended  atomic.Bool

	mu   sync.Mutex
	errs []string // errors replied by busyGate, counted in the stats at the end
}

var (
	// scriptsRunning counts the scripts running with a busy threshold in
	// this process (tests run several servers): the gate's fast path.
	scriptsRunning atomic.Int32
	busyMu         sync.Mutex
	busyRuns       = map[*Server]*scriptRun{}
)

// beginScriptRun publishes the script about to run (under s.mu). It
// returns nil when no busy handling applies (threshold 0, a fake client's
// script outside loading). A script replayed from the AOF is timed too: as
// in Redis, it logs "Slow script detected" and lends the executor, and
// the clients let in are answered -LOADING (answer).
func (s *Server) beginScriptRun(c *client, argv [][]byte, name string, isEval bool) *scriptRun {
	th := s.cfg.BusyReplyThreshold
	if th <= 0 || c.flags&flagFake != 0 && !s.loading {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &scriptRun{
		s:         s,
		start:     time.Now(),
		threshold: time.Duration(th) * time.Millisecond,
		isEval:    isEval,
		name:      name,
		argv:      rstring.CloneArgv(argv),
		noAuth:    s.aclDefaultNeedsAuth(),
		ctx:       ctx,
		cancel:    cancel,
	}
	if !isEval {
		sc := s.scripts()
		run.libs, run.funcs = sc.NumLibraries(), sc.NumFunctions()
	}
	s.scriptRun = run
	busyMu.Lock()
	busyRuns[s] = run
	busyMu.Unlock()
	scriptsRunning.Add(1)
	return run
}

// endScriptRun withdraws the running script (under s.mu) and counts the
// errors the gate replied meanwhile.
func (s *Server) endScriptRun() {
	run := s.scriptRun
	if run == nil {
		return
	}
	busyMu.Lock()
	delete(busyRuns, s)
	busyMu.Unlock()
	run.ended.Store(true)
	scriptsRunning.Add(-1)
	run.cancel()
	s.scriptRun = nil
	run.mu.Lock()
	errs := run.errs
	run.errs = nil
	run.mu.Unlock()
	for _, m := range errs {
		s.countError(m)
	}
}

// busyCtx is the Lua VM's context: gopher-lua calls Done before every
// instruction, which makes it the script's interrupt hook.
type busyCtx struct {
	context.Context
	run *scriptRun
}

func (b *busyCtx) Done() <-chan struct{} {
	if b.run.ticks++; b.run.ticks&0x3fff == 0 {
		b.run.tick()
	}
	if !b.run.killed.Load() {
		return nil // never ready: the VM's select falls through cheaply
	}
	return b.Context.Done()
}

// lendInterval is how often a script past its threshold lets the clients
// waiting for the executor in.
const lendInterval = 10 * time.Millisecond

// tick runs on the script's goroutine, under s.mu.
func (run *scriptRun) tick() {
	now := time.Now()
	if now.Sub(run.start) < run.threshold || now.Sub(run.lastLend) < lendInterval {
		return
	}
	s := run.s
	if !run.slow {
		run.slow = true
		kill := "FUNCTION KILL"
		if run.isEval {
			kill = "SCRIPT KILL"
		}
		s.log.Warn().Msgf("Slow script detected: still in execution after %d milliseconds. You can try killing the script using the %s command. Script name is: %s.",
			now.Sub(run.start).Milliseconds(), kill, run.name)
	}
	run.lastLend = now
	curClient, failed := s.curClient, s.curCmdFailed
	run.lending = true
	s.mu.Unlock()
	time.Sleep(200 * time.Microsecond)
	s.mu.Lock()
	run.lending = false
	s.curClient, s.curCmdFailed = curClient, failed
}

// lendingRun returns the script that lent the executor to the caller
// (under s.mu).
func (s *Server) lendingRun() *scriptRun {
	busyMu.Lock()
	run := busyRuns[s]
	busyMu.Unlock()
	if run == nil || !run.lending {
		return nil
	}
	return run
}

// timedOutRun returns s's running script if it is past the threshold.
func (s *Server) timedOutRun() *scriptRun {
	busyMu.Lock()
	run := busyRuns[s]
	busyMu.Unlock()
	if run == nil || time.Since(run.start) < run.threshold {
		return nil
	}
	return run
}

// busyGate answers, without the executor lock, the commands [i, n) of c
// that arrive while a script of this server is past its threshold. It
// returns the index of the first command it left for the normal path
// (i when the server is not busy).
func (s *Server) busyGate(c *client, i, n int) int {
	run := s.timedOutRun()
	if run == nil {
		return i
	}
	for ; i < n && !run.ended.Load(); i++ {
		if !run.answer(s, c, c.rd.ArgsOf(i), false) {
			break
		}
	}
	return i
}

// answer replies argv during a busy script; false leaves it to the normal
// path (it then waits for the executor). locked: called under s.mu (from
// processCommand, while the script lends the executor), where a refused
// command also flags the client's transaction.
func (run *scriptRun) answer(s *Server, c *client, argv [][]byte, locked bool) bool {
	if len(argv) == 0 {
		return true
	}
	if !locked && c.connFlags&flagMulti != 0 {
		// A refusal flags the transaction (EXEC gets EXECABORT): that
		// needs the executor, lent shortly.
		return false
	}
	cmd, container := s.lookupCommand(argv)
	reply := func(msg string) bool {
		if locked {
			c.reject(cmd, msg)
			return true
		}
		run.mu.Lock()
		run.errs = append(run.errs, msg)
		run.mu.Unlock()
		c.out = append(c.out, '-')
		c.out = append(c.out, msg...)
		c.out = append(c.out, '\r', '\n')
		return true
	}
	switch {
	case cmd == nil && container != nil:
		return reply(unknownSubcommandError(container, argv[1]))
	case cmd == nil:
		return reply(unknownCommandError(argv))
	case !arityOK(cmd, len(argv)):
		return reply(arityError(cmd))
	case run.noAuth && !c.authed && cmd.flags&cmdNoAuth == 0:
		return reply("NOAUTH Authentication required.")
	}
	// processCommand's ACL check comes before BUSY too; it reads the
	// users, which wants the executor
	if u := c.user; u != nil && !u.Open() {
		if !locked {
			return false
		}
		if res, pos := s.aclCheck(u, cmd, argv); res != aclOK {
			ctx := aclCtxToplevel
			if c.flags&flagMulti != 0 {
				ctx = aclCtxMulti
			}
			s.aclLogDenial(u, c, res, ctx, cmd, argv, pos)
			return reply(aclDenial(res, cmd))
		}
	}
	if cmd.flags&cmdLoading == 0 && s.loadingA.Load() {
		// processCommand's -LOADING comes before BUSY: the normal path
		// gives it, once the executor is lent.
		return false
	}
	busyErr := errSlowScript
	if run.isEval {
		busyErr = errSlowEval
	}
	if cmd.flags&cmdAllowBusy == 0 {
		return reply(busyErr)
	}
	switch cmd.fullName() {
	case "script|kill", "function|kill":
		switch {
		case run.wrote.Load():
			return reply(errUnkillable)
		case cmd.parent.name == "script" && !run.isEval:
			return reply(errSlowScript)
		case cmd.parent.name == "function" && run.isEval:
			return reply(errSlowEval)
		}
		run.killed.Store(true)
		run.cancel()
		c.out = append(c.out, "+OK\r\n"...)
		return true
	case "function|stats":
		if run.isEval {
			return reply(errSlowEval)
		}
		run.stats(c)
		return true
	case "shutdown":
		nosave := false
		for _, a := range argv[1:] {
			if eqFold(a, "nosave") {
				nosave = true
			}
		}
		if !nosave {
			return reply(busyErr)
		}
		// SHUTDOWN NOSAVE stops the script whatever it wrote, then runs
		// normally once the executor is free.
		run.killed.Store(true)
		run.cancel()
		return false
	}
	// MULTI, WATCH, AUTH, HELLO...: they touch the client's state under the
	// executor, so they wait for the script.
	return false
}

// stats writes FUNCTION STATS for a running function.
func (run *scriptRun) stats(c *client) {
	c.mapLen(2)
	c.bulkString("running_script")
	c.mapLen(3)
	c.bulkString("name")
	c.bulkString(run.name)
	c.bulkString("command")
	c.arrayLen(len(run.argv))
	for _, a := range run.argv {
		c.bulk(a)
	}
	c.bulkString("duration_ms")
	c.integer(time.Since(run.start).Milliseconds())
	scripting.EngineStats(c, run.libs, run.funcs)
}

// scriptKillCommand / functionKillCommand run when no script is past its
// threshold (otherwise busyGate answers them): nothing to kill.
func scriptKillCommand(c *client, argv [][]byte) { c.err(errNotBusy) }
