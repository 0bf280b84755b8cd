package server

import (
	"fmt"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Redis's crash report (debug.c bugReportStart/printCrashReport/
// bugReportEnd) for DEBUG SEGFAULT and DEBUG PANIC: the same opening and
// closing blocks, Redis's lines about the cause, a Go stack trace in
// place of the C one, then death by the signal Redis dies of (SIGSEGV,
// SIGABRT for a panic), so that a supervisor sees the same exit.

const (
	bugReportStart = "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n"
	bugReportEnd   = "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n" +
		"       Please report the crash by opening an issue on github:\n\n" +
		"           http://github.com/redis/redis/issues\n\n" +
		"  If a Redis module was involved, please open in the module's repo instead.\n\n" +
		"  Suspect RAM error? Use redis-server --test-memory to verify it.\n\n" +
		"  Some other issues could be detected by redis-server --check-system\n"
)

// logRaw writes text without the line prefix (Redis's serverLogRaw).
func logRaw(l zerolog.Logger, text string) {
	l.WithLevel(zerolog.WarnLevel).Bool("raw", true).Msg(text)
}

// crash writes the report and ends the process by sig; cause are the
// warning lines that follow the opening block.
func (s *Server) crash(sig syscall.Signal, cause ...string) {
	logRaw(s.log, bugReportStart)
	for _, l := range cause {
		s.log.Warn().Msg(l)
	}
	logRaw(s.log, "\n------ STACK TRACE ------\n"+string(debug.Stack()))
	logRaw(s.log, bugReportEnd)
	dieBySignal(sig)
}

// debugSegfault is DEBUG SEGFAULT.
func (s *Server) debugSegfault() {
	s.crash(syscall.SIGSEGV,
		fmt.Sprintf("Redis %s crashed by signal: %d, si_code: %d", Version, syscall.SIGSEGV, 2),
		"Accessing address: 0x0",
		"Crashed running the instruction at: 0x0")
}

// debugPanic is DEBUG PANIC (serverPanic).
func (s *Server) debugPanic() {
	s.crash(syscall.SIGABRT,
		"------------------------------------------------",
		"!!! Software Failure. Press left mouse button to continue",
		fmt.Sprintf("Guru Meditation: DEBUG PANIC called at Unix time %d #debug.c:510", time.Now().Unix()))
}
