package server

import (
	"bufio"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aofserver/aofserver/hdrhist"
)

// respDecode turns a raw reply into Go values: strings (simple, bulk,
// verbatim without its format, errors prefixed "ERR!"), int64, and []any
// for every aggregate (maps flattened), so tests can walk replies.
func respDecode(t testing.TB, raw string) any {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(raw))
	v, err := respDecodeValue(br)
	if err != nil {
		t.Fatalf("decoding %q: %v", raw, err)
	}
	return v
}

func respDecodeValue(br *bufio.Reader) (any, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return "ERR!" + body, nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$', '=':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		s := string(buf[:n])
		if line[0] == '=' {
			s = s[4:]
		}
		return s, nil
	case '*', '%', '~':
		n, _ := strconv.Atoi(body)
		if line[0] == '%' {
			n *= 2
		}
		out := make([]any, 0, max(n, 0))
		for i := 0; i < n; i++ {
			v, err := respDecodeValue(br)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, strconv.ErrSyntax
}

// latencyHistograms decodes LATENCY HISTOGRAM: command -> calls and the
// (bucket µs, cumulative count) pairs.
type latencyCDF struct {
	calls   int64
	buckets [][2]int64
}

func decodeHistograms(t testing.TB, raw string) map[string]latencyCDF {
	t.Helper()
	out := map[string]latencyCDF{}
	top := respDecode(t, raw).([]any)
	for i := 0; i+1 < len(top); i += 2 {
		name := top[i].(string)
		fields := top[i+1].([]any)
		var h latencyCDF
		for j := 0; j+1 < len(fields); j += 2 {
			switch fields[j].(string) {
			case "calls":
				h.calls = fields[j+1].(int64)
			case "histogram_usec":
				kv := fields[j+1].([]any)
				for k := 0; k+1 < len(kv); k += 2 {
					h.buckets = append(h.buckets, [2]int64{kv[k].(int64), kv[k+1].(int64)})
				}
			}
		}
		if _, dup := out[name]; dup {
			t.Fatalf("histogram of %s replied twice: %q", name, raw)
		}
		out[name] = h
	}
	return out
}

// cdfBounds is every bucket bound LATENCY HISTOGRAM may reply, from our
// histogram's layout: the highest value equivalent to each reporting level
// 1024 ns * 2^k, in µs, and the last bucket's for values past the last level.
func cdfBounds() map[int64]bool {
	b := map[int64]bool{}
	for level := int64(1024); level <= hdrhist.Highest; level *= 2 {
		b[hdrhist.HighestEquivalent(level)/1000] = true
	}
	b[hdrhist.LastBound()/1000] = true
	return b
}

// checkCDF requires a histogram reply that our layout could have produced:
// known bounds, increasing, ending at the number of calls.
func checkCDF(t *testing.T, who, name string, h latencyCDF) {
	t.Helper()
	bounds := cdfBounds()
	var prevB, prevC int64 = -1, 0
	for _, bc := range h.buckets {
		if !bounds[bc[0]] {
			t.Errorf("%s: %s histogram bucket %d µs is not a bound of our layout (%v)", who, name, bc[0], h.buckets)
		}
		if bc[0] <= prevB || bc[1] <= prevC {
			t.Errorf("%s: %s histogram not increasing: %v", who, name, h.buckets)
		}
		prevB, prevC = bc[0], bc[1]
	}
	if prevC != h.calls {
		t.Errorf("%s: %s histogram ends at %d, calls=%d", who, name, prevC, h.calls)
	}
}

// latencyPair drives our server and redis-server side by side.
type latencyPair struct {
	t      *testing.T
	p      *diffPair
	oc, rc *respConn
}

func newLatencyPair(t *testing.T) *latencyPair {
	p := newDiffPair(t)
	return &latencyPair{t: t, p: p, oc: p.oc[0], rc: p.rc[0]}
}

// both runs one command on each server at once (a DEBUG SLEEP costs its
// time once) and returns our reply and Redis's.
func (lp *latencyPair) both(args ...string) (string, string) {
	lp.t.Helper()
	var ours string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ours = lp.oc.do(args...) }()
	real := lp.rc.do(args...)
	wg.Wait()
	return ours, real
}

// same requires byte-identical replies.
func (lp *latencyPair) same(args ...string) string {
	lp.t.Helper()
	o, r := lp.both(args...)
	if o != r {
		lp.t.Fatalf("%v:\n ours  %q\n redis %q", args, o, r)
	}
	return o
}

var (
	digitsRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	usecRE   = regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`)
)

// sameDigitless requires identical replies once every number is replaced
// (durations, timestamps, ages) and, for INFO, its lines sorted (Redis
// lists commands in its dict's order).
func (lp *latencyPair) sameDigitless(args ...string) (string, string) {
	lp.t.Helper()
	o, r := lp.both(args...)
	norm := func(raw string) string {
		raw = digitsRE.ReplaceAllString(raw, "N")
		if strings.EqualFold(args[0], "info") {
			lines := strings.Split(raw, "\r\n")
			sort.Strings(lines)
			raw = strings.Join(lines, "\r\n")
		}
		return raw
	}
	if norm(o) != norm(r) {
		lp.t.Fatalf("%v:\n ours  %q\n redis %q", args, o, r)
	}
	return o, r
}

// histograms compares LATENCY HISTOGRAM args...: the same commands with the
// same calls, and each side's buckets valid for Redis's layout.
func (lp *latencyPair) histograms(args ...string) map[string]latencyCDF {
	lp.t.Helper()
	o, r := lp.both(append([]string{"LATENCY", "HISTOGRAM"}, args...)...)
	oh, rh := decodeHistograms(lp.t, o), decodeHistograms(lp.t, r)
	if len(oh) != len(rh) {
		lp.t.Fatalf("LATENCY HISTOGRAM %v: ours has %d commands, redis %d:\n ours  %q\n redis %q", args, len(oh), len(rh), o, r)
	}
	for name, h := range rh {
		if oh[name].calls != h.calls {
			lp.t.Fatalf("LATENCY HISTOGRAM %v: %s calls ours %d, redis %d", args, name, oh[name].calls, h.calls)
		}
		checkCDF(lp.t, "redis", name, h)
		checkCDF(lp.t, "ours", name, oh[name])
	}
	return oh
}

// The LATENCY HISTOGRAM cases of Redis's tests/unit/latency-monitor.tcl,
// and INFO latencystats, against redis-server: the same commands and call
// counts; the durations differ, but every bucket bound and percentile value
// either server reports must be a bound of our histogram layout (Redis's
// numbers checked against our bucket arithmetic).
func TestLatencyHistogramMatchesRedis(t *testing.T) {
	lp := newLatencyPair(t)
	lp.same("CONFIG", "SET", "latency-monitor-threshold", "200")
	lp.same("LATENCY", "RESET")

	// with empty histogram: CONFIG RESETSTAT itself is recorded
	lp.same("CONFIG", "RESETSTAT")
	if h := lp.histograms(); len(h) != 1 || h["config|resetstat"].calls != 1 {
		t.Fatalf("after RESETSTAT: %v", h)
	}
	// all commands
	lp.same("CONFIG", "RESETSTAT")
	lp.same("SET", "a", "b")
	lp.same("SET", "c", "d")
	if h := lp.histograms(); h["set"].calls != 2 {
		t.Fatalf("set: %v", h)
	}
	// subcommands: the container brings them, or one is asked for
	lp.same("CONFIG", "RESETSTAT")
	lp.both("CLIENT", "ID")
	lp.both("CLIENT", "LIST")
	if h := lp.histograms("client"); len(h) != 2 {
		t.Fatalf("client: %v", h)
	}
	if h := lp.histograms("client|id"); len(h) != 1 {
		t.Fatalf("client|id: %v", h)
	}
	// a subset, unknown names skipped, case-insensitive names
	lp.same("CONFIG", "RESETSTAT")
	lp.same("SET", "a", "b")
	lp.same("SET", "c", "d")
	lp.same("GET", "a")
	lp.same("HSET", "f", "k", "v")
	lp.same("HGETALL", "f")
	lp.histograms("set", "hset")
	lp.histograms("hgetall", "get", "zadd")
	lp.histograms("blabla", "blabla2", "SET", "Get")
	lp.same("LATENCY", "HISTOGRAM", "blabla")

	// A spread of durations, then every percentile INFO reports.
	lp.same("CONFIG", "RESETSTAT")
	for _, d := range []string{"0", "0.0002", "0.001", "0.003", "0.02"} {
		lp.same("DEBUG", "SLEEP", d)
	}
	for i := 0; i < 50; i++ {
		lp.same("INCR", "n")
	}
	lp.histograms()
	lp.same("CONFIG", "SET", "latency-tracking-info-percentiles", "0 25 50.5 99 99.9 100")
	o, r := lp.both("INFO", "latencystats")
	lines := func(who, raw string) map[string][]string {
		out := map[string][]string{}
		for _, l := range strings.Split(bulkText(raw), "\r\n") {
			name, vals, ok := strings.Cut(l, ":")
			if !ok || !strings.HasPrefix(name, "latency_percentiles_usec_") {
				continue
			}
			var labels []string
			for _, kv := range strings.Split(vals, ",") {
				label, v, _ := strings.Cut(kv, "=")
				labels = append(labels, label)
				us, err := strconv.ParseFloat(v, 64)
				ns := int64(math.Round(us * 1000))
				bound := hdrhist.HighestEquivalent(ns)
				if label == "p0" {
					bound = hdrhist.LowestEquivalent(ns)
				}
				if err != nil || ns != bound || !usecRE.MatchString(v) {
					t.Errorf("%s: %s %s=%s is not a bucket bound of our layout (%d)", who, name, label, v, bound)
				}
			}
			out[name] = labels
		}
		return out
	}
	ol, rl := lines("ours", o), lines("redis", r)
	if len(ol) != len(rl) || len(rl) < 3 {
		t.Fatalf("INFO latencystats:\n ours  %q\n redis %q", o, r)
	}
	for name, labels := range rl {
		if strings.Join(ol[name], ",") != strings.Join(labels, ",") {
			t.Fatalf("INFO latencystats %s: ours %v, redis %v", name, ol[name], labels)
		}
	}
	// One call: every percentile is that call's bucket, p0 its low end.
	lp.same("CONFIG", "RESETSTAT")
	lp.same("CONFIG", "SET", "latency-tracking-info-percentiles", "50")
	lp.sameDigitless("INFO", "latencystats")

	// latency-tracking no: nothing recorded, INFO has the header only.
	lp.same("CONFIG", "SET", "latency-tracking", "no")
	lp.same("CONFIG", "RESETSTAT")
	lp.same("SET", "a", "b")
	lp.same("LATENCY", "HISTOGRAM", "set")
	lp.same("INFO", "latencystats")
	lp.same("CONFIG", "SET", "latency-tracking", "yes")

	// RESP3: maps all the way down.
	lp.p.hello3(0)
	lp.same("CONFIG", "RESETSTAT")
	lp.same("SET", "a", "b")
	lp.sameDigitless("LATENCY", "HISTOGRAM", "set", "nosuch")
	lp.same("LATENCY", "HISTOGRAM", "nosuch")
}

// A blocked command's histogram entry is recorded when its wait ends, with
// the time it ran, not the time it waited (Redis's updateStatsOnUnblock),
// when served or unblocked by CLIENT UNBLOCK; Redis 7.0 records nothing for
// a wait that timed out.
func TestLatencyHistogramBlockedCommands(t *testing.T) {
	lp := newLatencyPair(t)
	lp.same("CONFIG", "RESETSTAT")
	lp.same("BLPOP", "k", "0.05") // times out
	lp.same("LATENCY", "HISTOGRAM", "blpop")
	o2, r2 := lp.p.conn(1)
	lp.oc.send("BLPOP", "k2", "0")
	lp.rc.send("BLPOP", "k2", "0")
	// Push once each waiter is blocked (seen in CLIENT LIST).
	for _, c := range []*respConn{o2, r2} {
		blockedClientID(t, c)
		c.do("RPUSH", "k2", "v")
	}
	if o, r := lp.oc.read(), lp.rc.read(); o != r {
		t.Fatalf("served BLPOP: ours %q, redis %q", o, r)
	}
	h := lp.histograms("blpop")
	for _, bc := range h["blpop"].buckets {
		if bc[0] >= 50000 {
			t.Fatalf("blpop histogram counts the wait: %v", h["blpop"].buckets)
		}
	}
	if h["blpop"].calls != 1 {
		t.Fatalf("blpop calls %d, want 1", h["blpop"].calls)
	}
	// CLIENT UNBLOCK, both forms
	for _, form := range []string{"TIMEOUT", "ERROR"} {
		lp.oc.send("BLPOP", "k3", "0")
		lp.rc.send("BLPOP", "k3", "0")
		for _, c := range []*respConn{o2, r2} {
			id := blockedClientID(t, c)
			if got := c.do("CLIENT", "UNBLOCK", id, form); got != ":1\r\n" {
				t.Fatalf("CLIENT UNBLOCK %s %s: %q", id, form, got)
			}
		}
		if o, r := lp.oc.read(), lp.rc.read(); o != r {
			t.Fatalf("unblocked BLPOP: ours %q, redis %q", o, r)
		}
	}
	if h := lp.histograms("blpop"); h["blpop"].calls != 3 {
		t.Fatalf("blpop calls %d, want 3", h["blpop"].calls)
	}
}

// blockedClientID waits (10 s at most) until CLIENT LIST on c shows a
// client blocked in BLPOP (flags=b: cmd= alone also names a finished
// command) and returns its id.
func blockedClientID(t *testing.T, c *respConn) string {
	t.Helper()
	re := regexp.MustCompile(`id=([0-9]+) [^\n]* flags=b [^\n]*cmd=blpop`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(bulkText(c.do("CLIENT", "LIST"))); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
	}
}

// The latency-monitor.tcl event cases against redis-server: DEBUG SLEEP
// spikes recorded as "command" once per second, LATEST, HISTORY, GRAPH,
// DOCTOR, RESET, and CONFIG RESETSTAT leaving events alone.
func TestLatencyMonitorMatchesRedis(t *testing.T) {
	// redis-server holds no huge pages (jemalloc never asks for them);
	// this test binary may (the race detector's shadow memory), and ours
	// runs inside it. TestLatencyDoctorAdvisesTHP covers the advice.
	zero := func() int64 { return 0 }
	hugePagesOverride.Store(&zero)
	defer hugePagesOverride.Store(nil)
	lp := newLatencyPair(t)
	lp.same("LATENCY", "HELP")
	lp.same("LATENCY", "HELP", "xxx")
	lp.same("LATENCY")
	lp.same("LATENCY", "foo")
	lp.same("LATENCY", "GRAPH", "command")
	lp.same("LATENCY", "HISTORY")
	// disabled, never enabled
	lp.same("LATENCY", "DOCTOR")
	lp.same("CONFIG", "SET", "latency-monitor-threshold", "200")
	lp.same("LATENCY", "DOCTOR") // enabled, nothing seen
	lp.same("LATENCY", "LATEST")

	// Two spikes in different seconds: the second sleep outlasts a second.
	lp.same("DEBUG", "SLEEP", "0.25")
	lp.same("DEBUG", "SLEEP", "1.01")
	o, r := lp.both("LATENCY", "HISTORY", "command")
	for who, raw := range map[string]string{"ours": o, "redis": r} {
		hist := respDecode(t, raw).([]any)
		if len(hist) != 2 {
			t.Fatalf("%s: HISTORY command = %q", who, raw)
		}
		first, second := hist[0].([]any), hist[1].([]any)
		if ms := first[1].(int64); ms < 250 || ms > 450 {
			t.Errorf("%s: first spike %d ms", who, ms)
		}
		if ms := second[1].(int64); ms < 1010 || ms > 1300 {
			t.Errorf("%s: second spike %d ms", who, ms)
		}
		if second[0].(int64) <= first[0].(int64) {
			t.Errorf("%s: samples not in time order: %q", who, raw)
		}
	}
	o, r = lp.both("LATENCY", "LATEST")
	for who, raw := range map[string]string{"ours": o, "redis": r} {
		latest := respDecode(t, raw).([]any)
		if len(latest) != 1 {
			t.Fatalf("%s: LATEST = %q", who, raw)
		}
		ev := latest[0].([]any)
		if ev[0] != "command" || ev[2].(int64) != ev[3].(int64) || ev[3].(int64) < 1010 {
			t.Errorf("%s: LATEST = %q", who, raw)
		}
	}
	lp.sameDigitless("LATENCY", "GRAPH", "command")
	lp.sameDigitless("LATENCY", "DOCTOR")
	// CONFIG RESETSTAT clears histograms, not events.
	lp.same("CONFIG", "RESETSTAT")
	lp.sameDigitless("LATENCY", "LATEST")
	// wrong event names are fine; RESET names match case-insensitively
	lp.same("LATENCY", "HISTORY", "blabla")
	lp.same("LATENCY", "RESET", "blabla")
	lp.same("LATENCY", "GRAPH", "COMMAND")
	lp.same("LATENCY", "RESET", "COMMAND", "command")
	lp.same("LATENCY", "LATEST")
	lp.same("DEBUG", "SLEEP", "0.25")
	lp.same("LATENCY", "RESET")
	lp.same("LATENCY", "LATEST")
	lp.same("LATENCY", "RESET")
	// An unrelated threshold turns DOCTOR's slowlog advice on.
	lp.same("CONFIG", "SET", "slowlog-log-slower-than", "-1")
	lp.same("DEBUG", "SLEEP", "0.25")
	lp.sameDigitless("LATENCY", "DOCTOR")
	lp.same("CONFIG", "SET", "slowlog-log-slower-than", "900000")
	lp.sameDigitless("LATENCY", "DOCTOR")
}

// Events outside commands: fast commands, the AOF writer's (through
// aof.Options.OnLatency, off the executor) and the threshold they see.
func TestLatencyEventsOutsideCommands(t *testing.T) {
	ts := startOurServer(t)
	s := ts.s
	c := dial(t, ts.addr)
	if got := c.do("CONFIG", "SET", "latency-monitor-threshold", "5"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	s.mu.Lock()
	ping := s.commands["ping"]
	fc := &client{srv: s}
	s.afterCallLatency(fc, ping, 7*time.Millisecond)
	s.afterCallLatency(fc, s.commands["debug"], 4*time.Millisecond) // below the threshold
	onLatency := s.aofOptions().OnLatency
	s.mu.Unlock()
	// an AOF writer goroutine's report sees the threshold CONFIG SET gave
	done := make(chan struct{})
	go func() {
		onLatency("aof-write-alone", 9*time.Millisecond)
		s.latency.observe("aof-fsync-always", 4*time.Millisecond)
		close(done)
	}()
	<-done
	latest := respDecode(t, c.do("LATENCY", "LATEST")).([]any)
	var names []string
	for _, e := range latest {
		names = append(names, e.([]any)[0].(string))
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "aof-write-alone,fast-command" {
		t.Fatalf("events %v", names)
	}
	doctor := bulkText(c.do("LATENCY", "DOCTOR"))
	for _, want := range []string{"fast-command: 1 latency spikes (average 7ms", "aof-write-alone: 1 latency spikes",
		"- The system is slow to execute Redis code paths", "- It is strongly advised to use local disks"} {
		if !strings.Contains(doctor, want) {
			t.Errorf("DOCTOR lacks %q:\n%s", want, doctor)
		}
	}
}

// With huge pages in the process, DOCTOR advises disabling THP even when no
// event was seen (createLatencyReport's non-event advice).
func TestLatencyDoctorAdvisesTHP(t *testing.T) {
	some := func() int64 { return 2 << 20 }
	hugePagesOverride.Store(&some)
	defer hugePagesOverride.Store(nil)
	c := newDiffPair(t).oc[0]
	c.do("CONFIG", "SET", "latency-monitor-threshold", "200")
	want := "\nI have a few advices for you:\n\n- I detected a non zero amount of anonymous huge pages used by your process."
	if got := bulkText(c.do("LATENCY", "DOCTOR")); !strings.HasPrefix(got, want) {
		t.Fatalf("LATENCY DOCTOR with huge pages:\n%q\nwant it to start %q", got, want)
	}
}
