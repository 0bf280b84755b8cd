package server

import (
	"context"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rstring"
)

func init() {
	sv := func(name string, arity int, flags uint64, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "server", summary: summary, since: since, acl: acl}
	}
	ls := cmdLoading | cmdStale
	adm := cmdAdmin | cmdNoScript
	register(
		sv("time", 1, ls|cmdFast, timeCommand, "Return the current server time", "2.6.0", "@fast"),
		sv("info", -1, ls, infoCommand, "Get information and statistics about the server", "1.0.0", "@slow", "@dangerous"),
		sv("shutdown", -1, adm|ls|cmdNoMulti|cmdAllowBusy, shutdownCommand, "Synchronously save the dataset to disk and then shut down the server", "1.0.0", "@admin", "@slow", "@dangerous"),
		sv("monitor", 1, adm|ls, monitorCommand, "Listen for all requests received by the server in real time", "1.0.0", "@admin", "@slow", "@dangerous"),
		sv("command", -1, ls, commandCommand, "Get array of Redis command details", "2.8.13", "@slow", "@connection"),
		sv("command|count", 2, ls, commandCountCommand, "Get total number of Redis commands", "2.8.13", "@slow", "@connection"),
		sv("command|info", -2, ls, commandInfoCommand, "Get array of specific Redis command details, or all when no argument is given.", "2.8.13", "@slow", "@connection"),
		sv("command|docs", -2, ls, commandDocsCommand, "Get array of specific Redis command documentation", "7.0.0", "@slow", "@connection"),
		sv("command|list", -2, ls, commandListCommand, "Get an array of Redis command names", "7.0.0", "@slow", "@connection"),
		sv("command|getkeys", -3, ls, commandGetkeysCommand, "Extract keys given a full Redis command", "2.8.13", "@slow", "@connection"),
		sv("command|getkeysandflags", -4, ls, commandGetkeysandflagsCommand, "Extract keys and access flags given a full Redis command", "7.0.0", "@slow", "@connection"),
		sv("command|help", 2, ls, commandHelpCommand, "Show helpful text about the different subcommands", "5.0.0", "@slow", "@connection"),
		sv("slowlog", -2, 0, nil, "A container for slow log commands", "2.2.12", "@slow"),
		sv("slowlog|get", -2, cmdAdmin|ls, slowlogGetCommand, "Get the slow log's entries", "2.2.12", "@admin", "@slow", "@dangerous"),
		sv("slowlog|len", 2, cmdAdmin|ls, slowlogLenCommand, "Get the slow log's length", "2.2.12", "@admin", "@slow", "@dangerous"),
		sv("slowlog|reset", 2, cmdAdmin|ls, slowlogResetCommand, "Clear all entries from the slow log", "2.2.12", "@admin", "@slow", "@dangerous"),
		sv("slowlog|help", 2, ls, slowlogHelpCommand, "Show helpful text about the different subcommands", "6.2.0", "@slow"),
		sv("latency", -2, 0, nil, "A container for latency diagnostics commands", "2.8.13", "@slow"),
		sv("latency|latest", 2, adm|ls, latencyLatestCommand, "Return the latest latency samples for all events.", "2.8.13", "@admin", "@slow", "@dangerous"),
		sv("latency|history", 3, adm|ls, latencyHistoryCommand, "Return timestamp-latency samples for the event.", "2.8.13", "@admin", "@slow", "@dangerous"),
		sv("latency|reset", -2, adm|ls, latencyResetCommand, "Reset latency data for one or more events.", "2.8.13", "@admin", "@slow", "@dangerous"),
		sv("latency|doctor", 2, adm|ls, latencyDoctorCommand, "Return a human readable latency analysis report.", "2.8.13", "@admin", "@slow", "@dangerous"),
		sv("latency|graph", 3, adm|ls, latencyGraphCommand, "Return a latency graph for the event.", "2.8.13", "@admin", "@slow", "@dangerous"),
		sv("latency|histogram", -2, adm|ls, latencyHistogramCommand, "Return the cumulative distribution of latencies of a subset of commands or all commands.", "7.0.0", "@admin", "@slow", "@dangerous"),
		sv("latency|help", 2, ls, latencyHelpCommand, "Show helpful text about the different subcommands.", "2.8.13", "@slow"),
		sv("memory", -2, 0, nil, "A container for memory diagnostics commands", "4.0.0", "@slow"),
		sv("memory|purge", 2, 0, memoryPurgeCommand, "Ask the allocator to release memory", "4.0.0", "@slow"),
		sv("memory|doctor", 2, 0, memoryDoctorCommand, "Outputs memory problems report", "4.0.0", "@slow"),
		sv("memory|help", 2, 0, memoryHelpCommand, "Show helpful text about the different subcommands", "4.0.0", "@slow"),
		&command{name: "memory|usage", arity: -3, flags: cmdReadonly, firstKey: 2, lastKey: 2, step: 1, proc: memoryUsageCommand, group: "server", summary: "Estimate the memory usage of a key", since: "4.0.0", acl: []string{"@read", "@slow"}},
	)
}

func timeCommand(c *client, argv [][]byte) {
	now := time.Now()
	c.arrayLen(2)
	c.bulkString(strconv.FormatInt(now.Unix(), 10))
	c.bulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

func shutdownCommand(c *client, argv [][]byte) {
	s := c.srv
	var f persist.ShutdownFlags
	abort, now := false, false
	for _, a := range argv[1:] {
		switch {
		case eqFold(a, "save"):
			f.Save = true
		case eqFold(a, "nosave"):
			f.NoSave = true
		case eqFold(a, "now"):
			now = true
		case eqFold(a, "force"):
			f.Force = true
		case eqFold(a, "abort"):
			abort = true
		default:
			c.errSyntax()
			return
		}
	}
	if (abort && (f.Save || f.NoSave || f.Force || now)) || (f.Save && f.NoSave) {
		c.errSyntax()
		return
	}
	if abort {
		// Only a shutdown waiting for replicas can be aborted; there
		// are none here.
		c.err("ERR No shutdown in progress.")
		return
	}
	s.log.Warn().Msg("User requested shutdown...")
	if err := s.prepareShutdown(f); err != nil {
		c.err("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	s.FinishShutdown()
	s.log.Warn().Msg("Redis is now ready to exit, bye bye...")
	c.flags |= flagCloseASAP
	s.exitAfterShutdown()
}

func monitorCommand(c *client, argv [][]byte) {
	if !c.srv.canBlock(c) { // inside EXEC: a reply per command is expected
		c.err("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return
	}
	if c.flags&flagMonitor != 0 {
		return // already monitoring: Redis does not reply
	}
	c.flags |= flagMonitor
	c.srv.monitors[c] = struct{}{}
	c.ok()
	c.goAsync()
}

// feedMonitors sends a command line to MONITOR clients, as Redis
// replicationFeedMonitors formats it.
func (s *Server) feedMonitors(c *client, argv [][]byte) {
	now := time.Now()
	var sb strings.Builder
	sb.WriteByte('+')
	sb.WriteString(strconv.FormatInt(now.Unix(), 10))
	sb.WriteByte('.')
	us := strconv.Itoa(now.Nanosecond() / 1000)
	sb.WriteString(strings.Repeat("0", 6-len(us)) + us)
	sb.WriteString(" [")
	sb.WriteString(strconv.Itoa(c.db.id))
	sb.WriteByte(' ')
	sb.WriteString(c.addr)
	sb.WriteString("]")
	for _, a := range argv {
		sb.WriteByte(' ')
		sb.WriteString(rstring.Repr(a))
	}
	sb.WriteString("\r\n")
	line := []byte(sb.String())
	for m := range s.monitors {
		m.push(line)
	}
}

func helpLines(c *client, lines []string) {
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}

func memoryUsageCommand(c *client, argv [][]byte) {
	s := c.srv
	// SAMPLES may repeat; each count is checked before the key is looked
	// up (the estimate itself does not sample).
	for j := 3; j < len(argv); j += 2 {
		if !eqFold(argv[j], "samples") || j+1 >= len(argv) {
			c.errSyntax()
			return
		}
		n, ok := parseInt(argv[j+1])
		if !ok {
			c.errNotInt()
			return
		}
		if n < 0 {
			c.errSyntax()
			return
		}
	}
	e, ok := s.lookupReadNoTouch(c, argv[2])
	if !ok {
		c.nullBulk()
		return
	}
	c.integer(objMemUsage(e) + int64(len(argv[2])) + 40)
}

// exitAfterShutdown ends the process after SHUTDOWN (tests replace exitFn).
func (s *Server) exitAfterShutdown() {
	go func() {
		s.Shutdown(context.Background())
		s.exitFn(0)
	}()
}

// MEMORY PURGE runs a garbage collection and returns freed pages to the OS
// (the Go counterpart of jemalloc's purge).
func memoryPurgeCommand(c *client, argv [][]byte) {
	debug.FreeOSMemory()
	c.ok()
}

// memoryDoctorCommand is getMemoryDoctorReport's verdicts that our memory
// figures support: an instance under 5 MB is too empty to judge.
func memoryDoctorCommand(c *client, argv [][]byte) {
	if c.srv.usedMemory() < 5<<20 {
		c.verbatim("txt", []byte("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"))
		return
	}
	c.verbatim("txt", []byte("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"))
}

func memoryHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DOCTOR",
		"    Return memory problems reports.",
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).",
		"HELP",
		"    Prints this help.",
	})
}
