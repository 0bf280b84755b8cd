package server

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/hdrhist"
	"github.com/aofserver/aofserver/latency"
)

// The latency monitor's side in the server (package latency holds the
// monitor: events whose duration reached latency-monitor-threshold
// milliseconds, one time series each, and DOCTOR's report): the LATENCY
// command, the commands' latency histograms and INFO latencystats. The
// events recorded, where Redis 7.0 records them:
//
//	command, fast-command   every call (dispatch.go, afterCallLatency)
//	command-unblocking      the reply that ends a blocked command's wait
//	aof-write, aof-write-alone, aof-write-active-child,
//	aof-write-pending-fsync, aof-fsync-always, aof-fstat, aof-rename
//	                        the AOF writer (aof.Options.OnLatency)
//	fork                    starting a snapshot child (child.go)
//	rdb-unlink-temp-file    removing a killed BGSAVE's temp file
//	expire-cycle            the active expire cycle (cron.go)
//	eviction-del, eviction-cycle
//	                        evictions (evict.go)
//	snapshot-step           ours: the executor's share of a snapshot
//
// Redis 7.0 no longer records aof-rewrite-diff-write (multi-part AOF has no
// rewrite buffer to flush); DOCTOR still knows the name, as Redis's does.
//
// Executor callers use maybeAdd with the threshold read from the config
// under the lock; other goroutines (the AOF writer, job clean-up) use
// observe, which reads the copy maybeAdd keeps current: every command passes
// through maybeAdd, CONFIG SET latency-monitor-threshold included.

// latencyMonitor is the server's latency.Monitor under the names its
// call sites use.
type latencyMonitor struct{ latency.Monitor }

// maybeAdd is Monitor.MaybeAdd: executor callers pass the threshold.
func (l *latencyMonitor) maybeAdd(event string, d time.Duration, thresholdMs int64) {
	l.MaybeAdd(event, d, thresholdMs)
}

// observe is Monitor.Observe, for any goroutine.
func (l *latencyMonitor) observe(event string, d time.Duration) { l.Observe(event, d) }

// afterCallLatency is the latency part of Redis 7.0's call(): the
// "fast-command" or "command" event, and the command's latency histogram
// unless it blocked (unblockedLatency records it when the wait ends). Commands
// replayed from the AOF are not counted, as Redis runs them without call().
func (s *Server) afterCallLatency(c *client, cmd *command, dur time.Duration) {
	if s.loading && c.flags&flagFake != 0 {
		return
	}
	ev := "command"
	if cmd.flags&cmdFast != 0 {
		ev = "fast-command"
	}
	s.latency.maybeAdd(ev, dur, s.cfg.LatencyMonitorThreshold)
	if c.block == nil && s.cfg.LatencyTracking {
		cmd.recordLatency(dur)
	}
}

// unblockedLatency is the latency part of Redis 7.0's updateStatsOnUnblock,
// for a wait ended by its key being served (reply: the time serving took)
// or by CLIENT UNBLOCK (no reply time); a timeout records nothing, as in
// 7.0. The command's whole run goes to its histogram, the reply's own time
// to "command-unblocking".
func (s *Server) unblockedLatency(bs *blockState, reply time.Duration) {
	if bs == nil || bs.cmd == nil {
		return
	}
	if s.cfg.LatencyTracking {
		bs.cmd.recordLatency(bs.dur + reply)
	}
	s.latency.maybeAdd("command-unblocking", reply, s.cfg.LatencyMonitorThreshold)
}

// recordLatency is updateCommandLatencyHistogram (the histogram is made on
// the first call: 24 KB per command ever called, as Redis's).
func (cmd *command) recordLatency(d time.Duration) {
	if cmd.hist == nil {
		cmd.hist = new(hdrhist.Hist)
	}
	cmd.hist.Record(d.Nanoseconds())
}

// resetLatencyHistograms drops every command's histogram (CONFIG RESETSTAT,
// Redis's resetCommandTableStats). The latency events stay, as in Redis.
func (s *Server) resetLatencyHistograms() {
	for _, cmd := range s.commands {
		cmd.hist = nil
		for _, sub := range cmd.subs {
			sub.hist = nil
		}
	}
}

// commandsWithHistograms lists cmd and its subcommands that have one, in a
// stable order (Redis's is its command dicts').
func commandsWithHistograms(cmd *command, out []*command) []*command {
	if cmd.hist != nil {
		out = append(out, cmd)
	}
	if len(cmd.subs) > 0 {
		names := make([]string, 0, len(cmd.subs))
		for n := range cmd.subs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if sub := cmd.subs[n]; sub.hist != nil {
				out = append(out, sub)
			}
		}
	}
	return out
}

// appendLatencyStats writes INFO latencystats' lines (Redis's
// genRedisInfoStringLatencyStats): one per command with a histogram, the
// configured percentiles in µs with three decimals.
func (s *Server) appendLatencyStats(b *strings.Builder) {
	if !s.cfg.LatencyTracking {
		return
	}
	// The stored value is each percentile as Redis prints it ("%f" with
	// trailing zeros trimmed), which is also the name INFO gives it.
	var pcts []string
	if v := s.cfg.Get("latency-tracking-info-percentiles"); len(v) == 1 {
		pcts = strings.Fields(v[0][1])
	}
	vals := make([]float64, len(pcts))
	for i, p := range pcts {
		vals[i], _ = strconv.ParseFloat(p, 64)
	}
	var cmds []*command
	for _, n := range s.commands.sortedNames() {
		cmds = commandsWithHistograms(s.commands[n], cmds)
	}
	for _, cmd := range cmds {
		b.WriteString("latency_percentiles_usec_")
		b.WriteString(infoSafeName(cmd.fullName()))
		b.WriteByte(':')
		for i, p := range pcts {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("p" + p + "=")
			b.WriteString(strconv.FormatFloat(float64(cmd.hist.ValueAtPercentile(vals[i]))/1000.0, 'f', 3, 64))
		}
		b.WriteString("\r\n")
	}
}

// infoSafeName is Redis's getSafeInfoString: ':', '\r' and '\n' would break
// the INFO line format, so they become '_'.
func infoSafeName(s string) string {
	if !strings.ContainsAny(s, ":\r\n") {
		return s
	}
	return strings.NewReplacer(":", "_", "\r", "_", "\n", "_").Replace(s)
}

// LATENCY subcommands.

func latencyLatestCommand(c *client, argv [][]byte) {
	rows := c.srv.latency.Latest()
	c.arrayLen(len(rows))
	for _, r := range rows {
		c.arrayLen(4)
		c.bulkString(r.Event)
		c.integer(r.Time)
		c.integer(r.Ms)
		c.integer(r.AllTimeMaxMs)
	}
}

func latencyHistoryCommand(c *client, argv [][]byte) {
	samples := c.srv.latency.History(string(argv[2]))
	c.arrayLen(len(samples))
	for _, s := range samples {
		c.arrayLen(2)
		c.integer(s.Time)
		c.integer(s.Ms)
	}
}

func latencyResetCommand(c *client, argv [][]byte) {
	c.integer(int64(c.srv.latency.Reset(argv[2:])))
}

func latencyGraphCommand(c *client, argv [][]byte) {
	graph, ok := c.srv.latency.Graph(string(argv[2]), time.Now().Unix())
	if !ok {
		c.err("ERR No samples available for event '" + string(argv[2]) + "'")
		return
	}
	c.verbatim("txt", []byte(graph))
}

func latencyDoctorCommand(c *client, argv [][]byte) {
	s := c.srv
	c.verbatim("txt", []byte(s.latency.Doctor(latency.Settings{
		ThresholdMs:         s.cfg.LatencyMonitorThreshold,
		SlowlogSlowerThanUs: s.cfg.SlowlogLogSlowerThan,
		FsyncAlways:         s.cfg.AppendFsync == "always",
		Hz:                  s.cfg.Hz,
		ForkRate:            s.forkRate(),
		AnonHugePages:       anonHugePages(),
	})))
}

// forkRate is Redis's stat_fork_rate: used memory copied per second of the
// last child start, in GB/s (+Inf before any, as Redis's division by 0).
func (s *Server) forkRate() float64 {
	usec := s.persist.Jobs.LatestForkUsec.Load()
	if usec == 0 {
		return math.Inf(1)
	}
	return float64(s.usedMemory()) * 1000000 / float64(usec) / (1024 * 1024 * 1024)
}

// anonHugePages is the process's huge pages, as DOCTOR sees them.
// hugePagesOverride lets the differential test compare the server's
// report, not its host's (a test binary under -race holds huge pages of
// its own); atomic, as the test sets it while a server runs.
func anonHugePages() int64 {
	if f := hugePagesOverride.Load(); f != nil {
		return (*f)()
	}
	return anonHugePagesBytes()
}

var hugePagesOverride atomic.Pointer[func() int64]

// anonHugePagesBytes is THPGetAnonHugePagesSize: the process's
// AnonHugePages from /proc/self/smaps_rollup (the sum Redis adds up from
// smaps), 0 where unavailable.
func anonHugePagesBytes() int64 {
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "AnonHugePages:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb * 1024
		}
	}
	return total
}

func latencyHistogramCommand(c *client, argv [][]byte) {
	s := c.srv
	var cmds []*command
	if len(argv) == 2 {
		for _, n := range s.commands.sortedNames() {
			cmds = commandsWithHistograms(s.commands[n], cmds)
		}
	} else {
		// Unknown names are skipped; a container brings its subcommands
		// (latencySpecificCommandsFillCDF). A name given twice is
		// replied twice, as Redis's.
		for _, a := range argv[2:] {
			if cmd := s.findCommandByName(a); cmd != nil {
				cmds = commandsWithHistograms(cmd, cmds)
			}
		}
	}
	c.mapLen(len(cmds))
	var pairs [][2]int64
	for _, cmd := range cmds {
		c.bulkString(cmd.fullName())
		c.mapLen(2)
		c.bulkString("calls")
		c.integer(cmd.hist.Total())
		c.bulkString("histogram_usec")
		pairs = pairs[:0]
		cmd.hist.CDF(func(usec, cum int64) { pairs = append(pairs, [2]int64{usec, cum}) })
		c.mapLen(len(pairs))
		for _, p := range pairs {
			c.integer(p[0])
			c.integer(p[1])
		}
	}
}

func latencyHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
		"HELP",
		"    Prints this help.",
	})
}
