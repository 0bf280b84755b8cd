package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/hdrhist"
	"github.com/aofserver/aofserver/sparkline"
)

// Latency monitor (Redis's latency.c): events whose duration reached
// latency-monitor-threshold milliseconds, one time series each, and the
// LATENCY command. The events recorded, where Redis 7.0 records them:
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

const latencyTSLen = 160 // LATENCY_TS_LEN

type latencySample struct {
	time int64 // unix seconds; 0 = empty slot
	ms   int64
}

// latencyTS is Redis's struct latencyTimeSeries: a ring of one sample per
// second (the worst of that second) and the all-time maximum.
type latencyTS struct {
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

type latencyMonitor struct {
	threshold atomic.Int64 // copy of latency-monitor-threshold for observe
	mu        sync.Mutex   // guards events: observe runs off the executor
	events    map[string]*latencyTS
}

func (l *latencyMonitor) init() {
	l.mu.Lock()
	l.events = map[string]*latencyTS{}
	l.mu.Unlock()
}

// maybeAdd is latencyAddSampleIfNeeded for callers holding the executor
// lock, which pass the configured threshold.
func (l *latencyMonitor) maybeAdd(event string, d time.Duration, thresholdMs int64) {
	if l.threshold.Load() != thresholdMs {
		l.threshold.Store(thresholdMs)
	}
	if thresholdMs <= 0 {
		return
	}
	if ms := d.Milliseconds(); ms >= thresholdMs {
		l.add(event, ms)
	}
}

// observe is latencyAddSampleIfNeeded for any goroutine.
func (l *latencyMonitor) observe(event string, d time.Duration) {
	thr := l.threshold.Load()
	if thr <= 0 {
		return
	}
	if ms := d.Milliseconds(); ms >= thr {
		l.add(event, ms)
	}
}

// add is latencyAddSample: a second already sampled keeps its worst value.
func (l *latencyMonitor) add(event string, ms int64) {
	now := time.Now().Unix()
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.events[event]
	if ts == nil {
		ts = &latencyTS{}
		l.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
	if prev.time == now {
		prev.ms = max(prev.ms, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// names returns the events in a stable order (Redis's is its dict's).
func (l *latencyMonitor) names() []string {
	names := make([]string, 0, len(l.events))
	for n := range l.events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ordered returns the samples oldest first.
func (ts *latencyTS) ordered() []latencySample {
	out := make([]latencySample, 0, latencyTSLen)
	for j := 0; j < latencyTSLen; j++ {
		if s := ts.samples[(ts.idx+j)%latencyTSLen]; s.time != 0 {
			out = append(out, s)
		}
	}
	return out
}

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
	l := &c.srv.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names()
	c.arrayLen(len(names))
	for _, n := range names {
		ts := l.events[n]
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		c.arrayLen(4)
		c.bulkString(n)
		c.integer(last.time)
		c.integer(last.ms)
		c.integer(ts.max)
	}
}

func latencyHistoryCommand(c *client, argv [][]byte) {
	l := &c.srv.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.events[string(argv[2])]
	if ts == nil {
		c.emptyArray()
		return
	}
	samples := ts.ordered()
	c.arrayLen(len(samples))
	for _, s := range samples {
		c.arrayLen(2)
		c.integer(s.time)
		c.integer(s.ms)
	}
}

// latencyResetCommand: names are matched case-insensitively, as Redis's
// latencyResetEvent (HISTORY and GRAPH match exactly).
func latencyResetCommand(c *client, argv [][]byte) {
	l := &c.srv.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	if len(argv) == 2 {
		n = len(l.events)
		l.events = map[string]*latencyTS{}
	} else {
		for _, a := range argv[2:] {
			for name := range l.events {
				if strings.EqualFold(name, string(a)) {
					delete(l.events, name)
					n++
				}
			}
		}
	}
	c.integer(int64(n))
}

func latencyGraphCommand(c *client, argv [][]byte) {
	l := &c.srv.latency
	l.mu.Lock()
	ts := l.events[string(argv[2])]
	var graph string
	if ts != nil {
		graph = latencyGraph(string(argv[2]), ts, time.Now().Unix())
	}
	l.mu.Unlock()
	if ts == nil {
		c.err("ERR No samples available for event '" + string(argv[2]) + "'")
		return
	}
	c.verbatim("txt", []byte(graph))
}

// latencyGraph is latencyCommandGenSparkeline: a header, 80 dashes, then
// the samples as a 4-row filled sparkline labelled with their age.
func latencyGraph(event string, ts *latencyTS, now int64) string {
	var seq sparkline.Sequence
	var lo, hi int64
	for i, s := range ts.ordered() {
		if i == 0 {
			lo, hi = s.ms, s.ms
		} else {
			lo, hi = min(lo, s.ms), max(hi, s.ms)
		}
		elapsed := now - s.time
		var label string
		switch {
		case elapsed < 60:
			label = strconv.FormatInt(elapsed, 10) + "s"
		case elapsed < 3600:
			label = strconv.FormatInt(elapsed/60, 10) + "m"
		case elapsed < 3600*24:
			label = strconv.FormatInt(elapsed/3600, 10) + "h"
		default:
			label = strconv.FormatInt(elapsed/(3600*24), 10) + "d"
		}
		seq.Add(float64(s.ms), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", 80) + "\n")
	seq.Render(&b, 80, 4)
	return b.String()
}

// latencyStats is Redis's struct latencyStats (analyzeLatencyForEvent).
type latencyStats struct {
	samples        int
	avg, mad       int64
	minMs, maxMs   int64
	period, allMax int64
}

func analyzeLatency(ts *latencyTS, now int64) latencyStats {
	ls := latencyStats{allMax: ts.max}
	var sum int64
	for _, s := range ts.samples {
		if s.time == 0 {
			continue
		}
		ls.samples++
		if ls.samples == 1 {
			ls.minMs, ls.maxMs = s.ms, s.ms
		} else {
			ls.minMs, ls.maxMs = min(ls.minMs, s.ms), max(ls.maxMs, s.ms)
		}
		sum += s.ms
		if ls.period == 0 || s.time < ls.period {
			ls.period = s.time // oldest so far
		}
	}
	if ls.samples == 0 {
		return ls
	}
	ls.avg = sum / int64(ls.samples)
	ls.period = max(now-ls.period, 1)
	var dev int64
	for _, s := range ts.samples {
		if s.time == 0 {
			continue
		}
		d := ls.avg - s.ms
		if d < 0 {
			d = -d
		}
		dev += d
	}
	ls.mad = dev / int64(ls.samples)
	return ls
}

func latencyDoctorCommand(c *client, argv [][]byte) {
	s := c.srv
	l := &s.latency
	l.mu.Lock()
	report := s.latencyReport()
	l.mu.Unlock()
	c.verbatim("txt", []byte(report))
}

// latencyReport is Redis 7.0's createLatencyReport, word for word (the
// caller holds latency.mu).
func (s *Server) latencyReport() string {
	l := &s.latency
	if len(l.events) == 0 && s.cfg.LatencyMonitorThreshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var (
		b                                                                          strings.Builder
		betterVM, slowlogEnabled, slowlogTuning, slowlogInspect, diskContention    bool
		scheduler, dataWriteback, noAppendfsync, localDisk, ssd, writeLoadInfo, hz bool
		largeObjects, massEviction, relaxFsync, disableTHP                         bool
		advices                                                                    int
	)
	now := time.Now().Unix()
	eventnum := 0
	for _, event := range l.names() {
		ts := l.events[event]
		eventnum++
		if eventnum == 1 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		ls := analyzeLatency(ts, now)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			eventnum, event, ls.samples, ls.avg, ls.mad, float64(ls.period)/float64(ls.samples), ts.max)
		switch strings.ToLower(event) {
		case "fork":
			rate := s.forkRate()
			var quality string
			switch {
			case rate < 10:
				quality, betterVM = "terrible", true
				advices++
			case rate < 25:
				quality, betterVM = "poor", true
				advices++
			case rate < 100:
				quality = "good"
			default:
				quality = "excellent"
			}
			rateText := strconv.FormatFloat(rate, 'f', 2, 64)
			if math.IsInf(rate, 1) {
				rateText = "inf" // glibc's %.2f of Redis's division by zero
			}
			fmt.Fprintf(&b, " Fork rate is %s GB/sec (%s).", rateText, quality)
		case "command":
			if s.cfg.SlowlogLogSlowerThan < 0 {
				slowlogEnabled = true
				advices++
			} else if s.cfg.SlowlogLogSlowerThan/1000 > s.cfg.LatencyMonitorThreshold {
				slowlogTuning = true
				advices++
			}
			slowlogInspect, largeObjects = true, true
			advices += 2
		case "fast-command":
			scheduler = true
			advices++
		case "aof-write-pending-fsync":
			localDisk, diskContention, ssd, dataWriteback = true, true, true, true
			advices += 4
		case "aof-write-active-child":
			noAppendfsync, dataWriteback, ssd = true, true, true
			advices += 3
		case "aof-write-alone":
			localDisk, dataWriteback, ssd = true, true, true
			advices += 3
		case "aof-fsync-always":
			relaxFsync = true
			advices++
		case "aof-fstat", "rdb-unlink-temp-file":
			diskContention, localDisk = true, true
			advices += 2
		case "aof-rewrite-diff-write", "aof-rename":
			writeLoadInfo, dataWriteback, ssd, localDisk = true, true, true, true
			advices += 4
		case "expire-cycle":
			hz, largeObjects = true, true
			advices += 2
		case "eviction-del":
			largeObjects = true
			advices++
		case "eviction-cycle":
			massEviction = true
			advices++
		}
		b.WriteByte('\n')
	}
	if anonHugePages() > 0 {
		disableTHP = true
		advices++
	}
	switch {
	case eventnum == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
		return b.String()
	case eventnum > 0 && advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
		return b.String()
	}
	thrUsec := uint64(s.cfg.LatencyMonitorThreshold) * 1000
	b.WriteString("\nI have a few advices for you:\n\n")
	if betterVM {
		b.WriteString("- If you are using a virtual machine, consider upgrading it with a faster one using a hypervisior that provides less latency during fork() calls. Xen is known to have poor fork() performance. Even in the context of the same VM provider, certain kinds of instances can execute fork faster than others.\n")
	}
	if slowlogEnabled {
		fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", thrUsec)
	}
	if slowlogTuning {
		fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", thrUsec)
	}
	if slowlogInspect {
		b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
	}
	if scheduler {
		b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
			"  1) Lower the system load.\n" +
			"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
			"  3) Check if you have a \"noisy neighbour\" problem.\n" +
			"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
			"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
	}
	if localDisk {
		b.WriteString("- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n")
	}
	if ssd {
		b.WriteString("- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n")
	}
	if dataWriteback {
		b.WriteString("- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n")
	}
	if diskContention {
		b.WriteString("- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n")
	}
	if noAppendfsync {
		b.WriteString("- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n")
	}
	if relaxFsync && s.cfg.AppendFsync == "always" {
		b.WriteString("- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n")
	}
	if writeLoadInfo {
		b.WriteString("- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n")
	}
	if hz && s.cfg.Hz < 100 {
		b.WriteString("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
	}
	if largeObjects {
		b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
	}
	if massEviction {
		b.WriteString("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n")
	}
	if disableTHP {
		b.WriteString("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n")
	}
	return b.String()
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
