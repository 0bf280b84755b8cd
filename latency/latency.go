package latency

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/sparkline"
)

// TSLen is LATENCY_TS_LEN: the seconds an event's series keeps.
const TSLen = 160

// Sample is the worst latency of one second.
type Sample struct {
	Time int64 // unix seconds; 0 = empty slot
	Ms   int64
}

// series is Redis's struct latencyTimeSeries: a ring of one sample per
// second (the worst of that second) and the all-time maximum.
type series struct {
	idx     int
	max     int64
	samples [TSLen]Sample
}

// Monitor is the events of one server; the zero value has none.
type Monitor struct {
	threshold atomic.Int64 // copy of latency-monitor-threshold for Observe
	mu        sync.Mutex   // guards events: Observe runs off the executor
	events    map[string]*series
}

// MaybeAdd is latencyAddSampleIfNeeded for the executor, which passes the
// configured threshold; Observe then uses it too.
func (m *Monitor) MaybeAdd(event string, d time.Duration, thresholdMs int64) {
	if m.threshold.Load() != thresholdMs {
		m.threshold.Store(thresholdMs)
	}
	if thresholdMs <= 0 {
		return
	}
	if ms := d.Milliseconds(); ms >= thresholdMs {
		m.add(event, ms, time.Now().Unix())
	}
}

// Observe is latencyAddSampleIfNeeded for any goroutine, with the
// threshold MaybeAdd last saw.
func (m *Monitor) Observe(event string, d time.Duration) {
	thr := m.threshold.Load()
	if thr <= 0 {
		return
	}
	if ms := d.Milliseconds(); ms >= thr {
		m.add(event, ms, time.Now().Unix())
	}
}

// add is latencyAddSample: a second already sampled keeps its worst value.
func (m *Monitor) add(event string, ms, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		if m.events == nil {
			m.events = map[string]*series{}
		}
		ts = &series{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+TSLen-1)%TSLen]
	if prev.Time == now {
		prev.Ms = max(prev.Ms, ms)
		return
	}
	ts.samples[ts.idx] = Sample{now, ms}
	ts.idx = (ts.idx + 1) % TSLen
}

// names returns the events in a stable order (Redis's is its dict's).
func (m *Monitor) names() []string {
	names := make([]string, 0, len(m.events))
	for n := range m.events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ordered returns the samples oldest first.
func (ts *series) ordered() []Sample {
	out := make([]Sample, 0, TSLen)
	for j := 0; j < TSLen; j++ {
		if s := ts.samples[(ts.idx+j)%TSLen]; s.Time != 0 {
			out = append(out, s)
		}
	}
	return out
}

// Latest is one row of LATENCY LATEST.
type Latest struct {
	Event        string
	Time, Ms     int64 // the latest sample
	AllTimeMaxMs int64
}

// Latest is LATENCY LATEST: each event's latest sample, by name.
func (m *Monitor) Latest() []Latest {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := m.names()
	out := make([]Latest, len(names))
	for i, n := range names {
		ts := m.events[n]
		last := ts.samples[(ts.idx+TSLen-1)%TSLen]
		out[i] = Latest{n, last.Time, last.Ms, ts.max}
	}
	return out
}

// History is LATENCY HISTORY: event's samples, oldest first (none for an
// unknown event).
func (m *Monitor) History(event string) []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ts := m.events[event]; ts != nil {
		return ts.ordered()
	}
	return nil
}

// Reset is LATENCY RESET: it drops the events named (case-insensitively,
// as latencyResetEvent; HISTORY and GRAPH match exactly), or all with no
// name, and returns how many it dropped.
func (m *Monitor) Reset(names [][]byte) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(names) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, a := range names {
		for name := range m.events {
			if strings.EqualFold(name, string(a)) {
				delete(m.events, name)
				n++
			}
		}
	}
	return n
}

// Graph is LATENCY GRAPH: event's samples drawn at unix time now; ok is
// false for an event without samples.
func (m *Monitor) Graph(event string, now int64) (text string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		return "", false
	}
	return graph(event, ts, now), true
}

// graph is latencyCommandGenSparkeline: a header, 80 dashes, then
// the samples as a 4-row filled sparkline labelled with their age.
func graph(event string, ts *series, now int64) string {
	var seq sparkline.Sequence
	var lo, hi int64
	for i, s := range ts.ordered() {
		if i == 0 {
			lo, hi = s.Ms, s.Ms
		} else {
			lo, hi = min(lo, s.Ms), max(hi, s.Ms)
		}
		elapsed := now - s.Time
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
		seq.Add(float64(s.Ms), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", 80) + "\n")
	seq.Render(&b, 80, 4)
	return b.String()
}

// stats is Redis's struct stats (analyzeLatencyForEvent).
type stats struct {
	samples        int
	avg, mad       int64
	minMs, maxMs   int64
	period, allMax int64
}

// analyze is analyzeLatencyForEvent.
func analyze(ts *series, now int64) stats {
	ls := stats{allMax: ts.max}
	var sum int64
	for _, s := range ts.samples {
		if s.Time == 0 {
			continue
		}
		ls.samples++
		if ls.samples == 1 {
			ls.minMs, ls.maxMs = s.Ms, s.Ms
		} else {
			ls.minMs, ls.maxMs = min(ls.minMs, s.Ms), max(ls.maxMs, s.Ms)
		}
		sum += s.Ms
		if ls.period == 0 || s.Time < ls.period {
			ls.period = s.Time // oldest so far
		}
	}
	if ls.samples == 0 {
		return ls
	}
	ls.avg = sum / int64(ls.samples)
	ls.period = max(now-ls.period, 1)
	var dev int64
	for _, s := range ts.samples {
		if s.Time == 0 {
			continue
		}
		d := ls.avg - s.Ms
		if d < 0 {
			d = -d
		}
		dev += d
	}
	ls.mad = dev / int64(ls.samples)
	return ls
}

// Settings are what LATENCY DOCTOR's advice depends on besides the events.
type Settings struct {
	ThresholdMs         int64 // latency-monitor-threshold
	SlowlogSlowerThanUs int64 // slowlog-log-slower-than
	FsyncAlways         bool  // appendfsync always
	Hz                  int
	ForkRate            float64 // GB/s of the last fork (stat_fork_rate; +Inf before any)
	AnonHugePages       int64   // bytes of the process's anonymous huge pages
}

// Doctor is Redis 7.0's createLatencyReport, word for word.
func (m *Monitor) Doctor(st Settings) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.events) == 0 && st.ThresholdMs == 0 {
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
	for _, event := range m.names() {
		ts := m.events[event]
		eventnum++
		if eventnum == 1 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		ls := analyze(ts, now)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			eventnum, event, ls.samples, ls.avg, ls.mad, float64(ls.period)/float64(ls.samples), ts.max)
		switch strings.ToLower(event) {
		case "fork":
			rate := st.ForkRate
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
			if st.SlowlogSlowerThanUs < 0 {
				slowlogEnabled = true
				advices++
			} else if st.SlowlogSlowerThanUs/1000 > st.ThresholdMs {
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
	if st.AnonHugePages > 0 {
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
	thrUsec := uint64(st.ThresholdMs) * 1000
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
	if relaxFsync && st.FsyncAlways {
		b.WriteString("- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n")
	}
	if writeLoadInfo {
		b.WriteString("- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n")
	}
	if hz && st.Hz < 100 {
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
