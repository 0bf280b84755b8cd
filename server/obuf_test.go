package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Output buffer limits and accounting, from Redis 7.0's
// tests/unit/obuf-limits.tcl, each case run against our server and a real
// redis-server: the client is closed at the same point and the counters
// agree within the slack Redis's own tests allow.

// obufTarget is one server under test.
type obufTarget struct {
	name string
	addr string
	log  func() string
}

func obufTargets(t *testing.T, args ...string) []obufTarget {
	t.Helper()
	ours := startOurServer(t, args...)
	rr := startRealRedis(t, args...)
	return []obufTarget{
		{"aofserver", ours.addr, ours.logs.String},
		{"redis", rr.addr, func() string {
			b, _ := os.ReadFile(filepath.Join(rr.dir, "redis.log"))
			return string(b)
		}},
	}
}

// clientField returns field of the CLIENT LIST line of the client named
// name, and whether that client is listed.
func clientField(r *respConn, name, field string) (string, bool) {
	r.t.Helper()
	for _, line := range strings.Split(bulkText(r.do("CLIENT", "LIST")), "\n") {
		if !strings.Contains(line, " name="+name+" ") {
			continue
		}
		m := regexp.MustCompile(`\b` + field + `=(\S*)`).FindStringSubmatch(line)
		if m == nil {
			r.t.Fatalf("no %s in %q", field, line)
		}
		return m[1], true
	}
	return "", false
}

func clientInt(r *respConn, name, field string) (int64, bool) {
	r.t.Helper()
	v, ok := clientField(r, name, field)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.t.Fatalf("%s=%q", field, v)
	}
	return n, true
}

// subscriber connects a client named name subscribed to channel that
// reads nothing more (a small receive buffer, so that the server's output
// buffer grows soon).
func subscriber(t *testing.T, addr, name, channel string) *respConn {
	t.Helper()
	sub := dial(t, addr)
	if got := sub.do("CLIENT", "SETNAME", name); got != "+OK\r\n" {
		t.Fatalf("SETNAME: %q", got)
	}
	sub.send("SUBSCRIBE", channel)
	if got := sub.read(); !strings.Contains(got, "subscribe") {
		t.Fatalf("SUBSCRIBE: %q", got)
	}
	sub.nc.(*net.TCPConn).SetReadBuffer(4096)
	return sub
}

// publishAll pipelines n PUBLISH of msg to channel and reads the replies.
func publishAll(r *respConn, channel, msg string, n int) {
	r.t.Helper()
	var buf []byte
	for range n {
		buf = appendMultibulk(buf, "PUBLISH", channel, msg)
	}
	r.nc.SetWriteDeadline(time.Now().Add(20 * time.Second))
	if _, err := r.nc.Write(buf); err != nil {
		r.t.Fatal(err)
	}
	for range n {
		r.read()
	}
}

var obufLogRE = regexp.MustCompile(`Client id=\d+ addr=\S+ laddr=\S+ fd=\d+ name=(\S*) age=\d+ idle=\d+ flags=\S+ db=\d+ sub=\d+ psub=\d+ ssub=\d+ multi=-?\d+ qbuf=\d+ qbuf-free=\d+ argv-mem=\d+ multi-mem=\d+ rbs=\d+ rbp=\d+ obl=\d+ oll=\d+ omem=(\d+) tot-mem=\d+ events=\S+ cmd=\S+ user=\S+ redir=-?\d+ resp=\d (scheduled to be closed ASAP|closed) for overcoming of output buffer limits\.`)

// The two endings of that line: closed from a reply (freeClientAsync), or
// by clientsCron's recheck (freeClient).
const (
	obufASAP   = "scheduled to be closed ASAP"
	obufClosed = "closed"
)

// obufLogOmem waits for the line logged when the client named name was
// closed for its output buffer (how: obufASAP, obufClosed, or "" for
// either) and returns the omem it shows.
func obufLogOmem(t *testing.T, tg obufTarget, name, how string) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // failure bound only
	for {
		for _, m := range obufLogRE.FindAllStringSubmatch(tg.log(), -1) {
			if m[1] == name && (m[3] == how || how == "") {
				n, _ := strconv.ParseInt(m[2], 10, 64)
				return n
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no output buffer limit line (%s) for %s in the log:\n%s", tg.name, how, name, tg.log())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDiffObufConfigSet(t *testing.T) {
	diff(t, [][]string{
		cmd("CONFIG", "SET", "client-output-buffer-limit", "wrong number"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "invalid_class 10mb 10mb 60"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "master 10mb 10mb 60"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 10mbs 10mb 60"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "replica 10mb 10mbs 60"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "pubsub 10mb 10mb 60s"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 2mb 60 replica 3mb 4mb 70 pubsub 5mb 6mb 80"),
		cmd("CONFIG", "GET", "client-output-buffer-limit"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60"),
		cmd("CONFIG", "GET", "client-output-buffer-limit"),
	})
}

// "Client output buffer hard limit is enforced": the last omem seen before
// the subscriber is closed is near the limit, and the log line shows the
// omem that closed it.
func TestDiffObufHardLimit(t *testing.T) {
	for _, tg := range obufTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			r := dial(t, tg.addr)
			if got := r.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 100000 0 0"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			subscriber(t, tg.addr, "hardsub", "foo")
			var omem int64
			for i := 0; ; i++ {
				publishAll(r, "foo", "bar", 32)
				n, ok := clientInt(r, "hardsub", "omem")
				if !ok || n > 200000 {
					break
				}
				omem = n
				if i > 100000 {
					t.Fatalf("never closed (omem=%d)", omem)
				}
			}
			if omem < 70000 || omem >= 200000 {
				t.Fatalf("omem %d before the close, want [70000, 200000)", omem)
			}
			if logged := obufLogOmem(t, tg, "hardsub", obufASAP); logged < 100000 || logged >= 200000 {
				t.Fatalf("logged omem=%d, want the limit reached (100000) and < 200000", logged)
			}
		})
	}
}

// The two soft-limit cases of obuf-limits.tcl: closed once over the soft
// limit for more than its seconds, and not before.
func TestDiffObufSoftLimit(t *testing.T) {
	for _, tg := range obufTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for _, wait := range []bool{true, false} {
				obufSoftLimitCase(t, tg, 3, wait)
			}
		})
	}
}

func obufSoftLimitCase(t *testing.T, tg obufTarget, secs int, waitForTimeout bool) {
	r := dial(t, tg.addr)
	if got := r.do("CONFIG", "SET", "client-output-buffer-limit", fmt.Sprintf("pubsub 0 100000 %d", secs)); got != "+OK\r\n" {
		t.Fatal(got)
	}
	name := fmt.Sprintf("soft%v", waitForTimeout)
	subscriber(t, tg.addr, name, "foo")
	soft := time.Duration(secs) * time.Second
	payload := strings.Repeat("x", 1000)
	var omem int64
	var start time.Time
	var elapsed time.Duration
	lastUnder := time.Now()
	for {
		publishAll(r, "foo", payload, 1)
		n, listed := clientInt(r, name, "omem")
		if !start.IsZero() {
			elapsed = time.Since(start)
			if elapsed > soft+3*time.Second {
				t.Fatalf("still connected %v after the soft limit was reached (omem=%d)", elapsed, n)
			}
		}
		if !listed {
			if !waitForTimeout {
				t.Fatalf("closed %v after reaching the soft limit of %v", elapsed, soft)
			}
			if omem < 100000 || elapsed < soft {
				t.Fatalf("closed at omem=%d after %v, want >= 100000 after >= %v", omem, elapsed, soft)
			}
			// Usually a PUBLISH finds it over the limit; clientsCron may
			// come first (Redis too, once in a while).
			if logged := obufLogOmem(t, tg, name, ""); logged < 100000 {
				t.Fatalf("logged omem=%d", logged)
			}
			return
		}
		omem = n
		if omem > 100000 {
			if start.IsZero() {
				start = lastUnder
			}
			if !waitForTimeout && elapsed >= soft-time.Second {
				break
			}
			time.Sleep(10 * time.Millisecond) // pace the traffic (the test's "after 10")
		} else {
			// The socket buffers swallowed what was queued: start again.
			start = time.Time{}
			lastUnder = time.Now()
		}
	}
	// No more traffic: the soft limit still closes it (clientsCron).
	deadline := start.Add(soft + 1500*time.Millisecond)
	for {
		if _, listed := clientInt(r, name, "omem"); !listed {
			if logged := obufLogOmem(t, tg, name, obufClosed); logged < 100000 {
				t.Fatalf("logged omem=%d", logged)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("soft limit timed out but the client is still connected")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readsNothing waits for the server to close nc and reports what it read.
func readsNothing(t *testing.T, nc net.Conn) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second)) // failure bound only
	b, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("not closed: %v (read %d bytes)", err, len(b))
	}
	if len(b) != 0 {
		t.Fatalf("read %d bytes (%.40q) from a client closed for its output buffer", len(b), b)
	}
}

// waitGone waits until the client named name is no longer listed.
func waitGone(t *testing.T, r *respConn, name string) {
	t.Helper()
	testsrv.WaitFor(t, 10*time.Second, "client "+name+" to leave CLIENT LIST", func() bool {
		_, listed := clientField(r, name, "omem")
		return !listed
	})
}

// "No response for single command if client output buffer hard limit is
// enforced", "No response for multi commands in pipeline ..." and "Execute
// transactions completely even if client output buffer limit is enforced".
func TestDiffObufNormalLimit(t *testing.T) {
	for _, tg := range obufTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			r := dial(t, tg.addr)
			r.do("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0")
			item := strings.Repeat("x", 1000)
			for range 150 {
				r.do("LPUSH", "mylist", item)
			}
			rd := dial(t, tg.addr)
			rd.do("CLIENT", "SETNAME", "mybiglist")
			rd.send("LRANGE", "mylist", "0", "-1")
			readsNothing(t, rd.nc)
			waitGone(t, r, "mybiglist")
			if logged := obufLogOmem(t, tg, "mybiglist", obufASAP); logged < 100000 {
				t.Fatalf("logged omem=%d", logged)
			}

			r.do("SET", "bigkey", strings.Repeat("x", 10000))
			rd2 := dial(t, tg.addr)
			rd2.do("CLIENT", "SETNAME", "multicommands")
			var buf []byte
			for i := range 15 {
				k := strconv.Itoa(i)
				buf = appendMultibulk(buf, "SET", k, k)
				buf = appendMultibulk(buf, "GET", k)
				buf = appendMultibulk(buf, "DEL", k)
				buf = appendMultibulk(buf, "GET", "bigkey")
			}
			if _, err := rd2.nc.Write(buf); err != nil {
				t.Fatal(err)
			}
			readsNothing(t, rd2.nc)
			if got := r.do("PING"); got != "+PONG\r\n" {
				t.Fatal(got)
			}
			waitGone(t, r, "multicommands")

			for range 150 {
				r.do("LPUSH", "mylist2", item)
			}
			tx := dial(t, tg.addr)
			tx.do("CLIENT", "SETNAME", "transactionclient")
			tx.do("SET", "k1", "v1")
			tx.do("MULTI")
			tx.do("SET", "k2", "v2")
			tx.do("GET", "k2")
			tx.do("LRANGE", "mylist2", "0", "-1")
			tx.do("SET", "k3", "v3")
			tx.do("DEL", "k1")
			tx.send("EXEC")
			readsNothing(t, tx.nc)
			waitGone(t, r, "transactionclient")
			for k, want := range map[string]string{"k1": "$-1\r\n", "k2": "$2\r\nv2\r\n", "k3": "$2\r\nv3\r\n"} {
				if got := r.do("GET", k); got != want {
					t.Fatalf("GET %s = %q, want %q: the transaction ran completely", k, got, want)
				}
			}
		})
	}
}

// Pub/sub bytes count in total_net_output_bytes once written, as replies
// do.
func TestDiffObufNetOutputCountsPubSub(t *testing.T) {
	for _, tg := range obufTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			r := dial(t, tg.addr)
			sub := dial(t, tg.addr)
			sub.send("SUBSCRIBE", "ch")
			sub.read()
			const n, size = 200, 1000
			msg := strings.Repeat("m", size)
			before := r.do("INFO", "stats")
			b0 := infoInt(t, r, "stats", "total_net_output_bytes")
			publishAll(r, "ch", msg, n)
			want := 0
			for range n {
				want += len(sub.read())
			}
			b1 := infoInt(t, r, "stats", "total_net_output_bytes")
			// Between the two INFOs: the messages, the PUBLISH replies and
			// the first INFO's reply (an INFO stats is about that size).
			low := int64(want + n*len(":1\r\n"))
			high := low + int64(2*len(before))
			if d := b1 - b0; d < low || d > high {
				t.Fatalf("total_net_output_bytes grew by %d, want [%d, %d] (%d bytes of messages)", d, low, high, want)
			}
		})
	}
}

// A subscriber that does not read: its queued messages show in CLIENT
// LIST omem and tot-mem, INFO mem_clients_normal and
// client_recent_max_output_buffer.
func TestDiffObufCountersNonReadingSubscriber(t *testing.T) {
	for _, tg := range obufTargets(t, "--client-output-buffer-limit", "pubsub 0 0 0") {
		t.Run(tg.name, func(t *testing.T) {
			r := dial(t, tg.addr)
			subscriber(t, tg.addr, "slowsub", "ch")
			msg := strings.Repeat("m", 10000)
			const want = 1 << 20
			var omem int64
			for i := 0; omem < want; i++ {
				publishAll(r, "ch", msg, 16)
				var ok bool
				if omem, ok = clientInt(r, "slowsub", "omem"); !ok {
					t.Fatal("subscriber closed with no limit set")
				}
				if i > 10000 {
					t.Fatalf("omem stays at %d", omem)
				}
			}
			tot, _ := clientInt(r, "slowsub", "tot-mem")
			if tot < omem {
				t.Fatalf("tot-mem %d < omem %d", tot, omem)
			}
			deadline := time.Now().Add(10 * time.Second) // Redis's clientsCron updates them
			for {
				maxOut := infoInt(t, r, "clients", "client_recent_max_output_buffer")
				memNormal := infoInt(t, r, "memory", "mem_clients_normal")
				if maxOut >= want && memNormal >= want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("client_recent_max_output_buffer=%d mem_clients_normal=%d with omem=%d", maxOut, memNormal, omem)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// procStatusKB reads a field (VmRSS, VmHWM) of /proc/<pid>/status in kB.
func procStatusKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q", field, rest)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// obufRSSBound is what our process may hold beyond the pubsub hard limit
// (32 MB) while a subscriber that does not read is sent 100 MB in 1 MB
// messages. The output buffer is counted as allocated, in flight
// included, and closed at the first message past the limit: one message
// (1 MB) over it. Beyond: the publisher's query buffer with one message
// (1 MB, reused), the kernel-side copy is not ours, and the Go heap's
// free pages not returned yet plus runtime metadata for 32 MB of 16 KB
// chunks (a few MB). 16 MB covers these with room for the GC pacer
// letting the heap pass its live size by a few MB between cycles; Redis
// itself takes about 15 MB over the limit in the same run (jemalloc
// classes, its query buffer, the 16 KB-block overhead).
const obufRSSBound = 16 << 20

// TestObufRSSNonReadingSubscriber runs our real binary and redis-server,
// publishes 100 MB to a subscriber that never reads, and compares the
// peak RSS (VmHWM) of both with the limit.
func TestObufRSSNonReadingSubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	requireRedis(t)
	bin := ourBinary(t)
	const limit = 32 << 20
	peaks := map[string]int64{}
	for _, srv := range []struct{ name, path string }{{"redis", redisServerPath}, {"aofserver", bin}} {
		dir := t.TempDir()
		p := testsrv.LaunchOnPort(t, freePort(t), srv.path, "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--client-output-buffer-limit", "pubsub 32mb 8mb 60")
		addr := p.Addr()
		if err := waitPing(addr, p.Done); err != nil {
			t.Fatalf("%s: %v\n%s", srv.name, err, p.Out.String())
		}
		pid := p.Cmd.Process.Pid
		r := dial(t, addr)
		subscriber(t, addr, "rsssub", "big")
		base := procStatusKB(t, pid, "VmRSS") << 10
		msg := strings.Repeat("p", 1<<20)
		for i := 0; i < 100; i++ {
			r.do("PUBLISH", "big", msg)
		}
		if _, listed := clientField(r, "rsssub", "omem"); listed {
			t.Fatalf("%s: the subscriber was not closed after 100 MB", srv.name)
		}
		peak := procStatusKB(t, pid, "VmHWM") << 10
		peaks[srv.name] = peak - base
		t.Logf("%s: RSS %d MB before, peak %d MB (+%d MB for a %d MB limit)", srv.name, base>>20, peak>>20, (peak-base)>>20, limit>>20)
		if !strings.Contains(p.Out.String(), "scheduled to be closed ASAP for overcoming of output buffer limits") {
			t.Fatalf("%s: no output buffer limit line:\n%s", srv.name, p.Out.String())
		}
	}
	if g := peaks["aofserver"]; g > limit+obufRSSBound {
		t.Fatalf("our RSS grew by %d MB, want at most %d MB (limit) + %d MB; redis-server's grew by %d MB",
			g>>20, limit>>20, obufRSSBound>>20, peaks["redis"]>>20)
	}
}

// Replies held at the AOF barrier (appendfsync always, fsync stuck) count
// in omem and mem_clients_normal until they leave.
func TestObufCountsRepliesHeldAtBarrier(t *testing.T) {
	g := newGateFS()
	s := startGatedServer(t, g, "--appendfsync", "always")
	addr := s.Addr().String()
	held := dial(t, addr)
	held.do("CLIENT", "SETNAME", "held")
	g.closeGate()
	value := strings.Repeat("v", 20000)
	var buf []byte
	buf = appendMultibulk(buf, "SET", "k", value)
	buf = appendMultibulk(buf, "GET", "k")
	if _, err := held.nc.Write(buf); err != nil {
		t.Fatal(err)
	}
	omem := func() (n, mem int64) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.clients {
			if c.name == "held" {
				n = c.outputMemory()
			}
		}
		return n, s.normalClientsMemory()
	}
	waitFor(t, "the held replies to show in omem", func() bool {
		n, mem := omem()
		return n >= int64(len(value)) && mem >= n
	})
	g.openGate()
	if r := held.read(); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	if r := held.read(); r != "$20000\r\n"+value+"\r\n" {
		t.Fatalf("GET: %.40q", r)
	}
	waitFor(t, "omem back to 0 once written", func() bool { n, _ := omem(); return n == 0 })
}
