package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// INFO's I/O counters and the client buffers CLIENT LIST shows, as Redis
// 7.0.15 counts and sizes them: total_reads_processed and
// total_writes_processed per read and write event, the reply buffer model
// (rbs=, rbp=, reply_buffer_shrinks/expands, DEBUG REPLYBUFFER; Redis's
// tests/unit/replybufsize.tcl), client_recent_max_input_buffer sampled by
// clientsCronTrackExpansiveClients, and argv-mem.

// ioStats reads the counters on connection c.
func ioStats(t *testing.T, c *respConn) (reads, writes int64) {
	t.Helper()
	info := bulkText(c.do("INFO", "stats"))
	get := func(f string) int64 {
		m := regexp.MustCompile(f + `:(\d+)`).FindStringSubmatch(info)
		if m == nil {
			t.Fatalf("INFO stats has no %s", f)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	return get("total_reads_processed"), get("total_writes_processed")
}

func TestDiffReadsWritesProcessed(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	type step struct {
		name string
		run  func(c *respConn, addr string) int64 // extra INFO polls made
	}
	steps := []step{
		{"five commands", func(c *respConn, _ string) int64 {
			for i := 0; i < 5; i++ {
				c.do("PING")
			}
			return 0
		}},
		{"a pipeline of three, one read and one write", func(c *respConn, _ string) int64 {
			c.nc.Write([]byte("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n"))
			got := ""
			for len(got) < 21 {
				got += c.read()
			}
			return 0
		}},
		{"a connection that sends nothing, then closes (the EOF is a read)", func(c *respConn, addr string) int64 {
			d := dial(t, addr)
			polls := int64(0)
			waitFor(t, "the connection to be accepted", func() bool {
				polls++
				return strings.Contains(c.do("INFO", "clients"), "connected_clients:2\r\n")
			})
			d.nc.Close()
			waitFor(t, "the connection to be closed", func() bool {
				polls++
				return strings.Contains(c.do("INFO", "clients"), "connected_clients:1\r\n")
			})
			return polls
		}},
		{"an error reply and a transaction", func(c *respConn, _ string) int64 {
			c.do("NOSUCH")
			c.do("MULTI")
			c.do("SET", "k", "v")
			c.do("EXEC")
			return 0
		}},
	}
	for _, c := range []*respConn{oc, rc} {
		c.do("CONFIG", "RESETSTAT")
	}
	for _, st := range steps {
		var got, want [2]int64
		for i, c := range []*respConn{oc, rc} {
			addr := p.ours.addr
			if c == rc {
				addr = p.real.addr
			}
			r0, w0 := ioStats(t, c)
			polls := st.run(c, addr)
			r1, w1 := ioStats(t, c)
			d := [2]int64{r1 - r0 - polls, w1 - w0 - polls}
			if i == 0 {
				got = d
			} else {
				want = d
			}
		}
		if got != want {
			t.Fatalf("%s: ours %d reads %d writes, redis %d reads %d writes", st.name, got[0], got[1], want[0], want[1])
		}
	}
}

var rbsRE = regexp.MustCompile(`rbs=(\d+) rbp=(\d+)`)

// replyBuf returns rbs and rbp of the client named name.
func replyBufOf(t *testing.T, c *respConn, name string) (rbs, rbp int64) {
	t.Helper()
	for _, line := range strings.Split(bulkText(c.do("CLIENT", "LIST")), "\n") {
		if strings.Contains(line, " name="+name+" ") {
			m := rbsRE.FindStringSubmatch(line)
			rbs, _ = strconv.ParseInt(m[1], 10, 64)
			rbp, _ = strconv.ParseInt(m[2], 10, 64)
			return rbs, rbp
		}
	}
	t.Fatalf("no client named %s", name)
	return 0, 0
}

func TestDiffReplyBufferSize(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100"),
		cmd("DEBUG", "REPLYBUFFER", "peak-reset-time", "abc"),
		cmd("DEBUG", "REPLYBUFFER", "nosuch", "1"),
		cmd("DEBUG", "REPLYBUFFER", "RESIZING"),
		cmd("SET", "bigval", strings.Repeat("x", 32768)),
		cmd("SET", "mid", strings.Repeat("y", 3000)),
	})
	oc, rc := p.conn(0)
	for _, side := range []struct {
		name       string
		ctl, tc    *respConn
		rbs1, rbs2 int64
	}{{"ours", oc, dial(t, p.ours.addr), 0, 0}, {"redis", rc, dial(t, p.real.addr), 0, 0}} {
		side.tc.do("CLIENT", "SETNAME", "test_client")
		// An idle client's buffer shrinks to PROTO_REPLY_MIN_BYTES.
		waitFor(t, side.name+": the idle client's reply buffer to shrink", func() bool {
			rbs, _ := replyBufOf(t, side.ctl, "test_client")
			return rbs == 1024
		})
		// Replies that fill it double it at each cron, up to 16 KB.
		side.ctl.do("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "never")
		for _, want := range []int64{2048, 4096} {
			waitFor(t, side.name+": the buffer to grow", func() bool {
				side.tc.do("GET", "mid")
				rbs, _ := replyBufOf(t, side.ctl, "test_client")
				return rbs == want
			})
		}
		// A 3000-byte reply fits in 4 KB: the peak is the reply's size.
		side.tc.do("GET", "mid")
		if rbs, rbp := replyBufOf(t, side.ctl, "test_client"); rbs != 4096 || rbp != 3009 {
			t.Fatalf("%s: rbs=%d rbp=%d after GET mid, want 4096 and 3009", side.name, rbs, rbp)
		}
		waitFor(t, side.name+": the busy client's buffer to reach 16 KB", func() bool {
			side.tc.do("GET", "bigval")
			rbs, rbp := replyBufOf(t, side.ctl, "test_client")
			return rbs == 16384 && rbp == 16384
		})
		// Without resizing the buffer stays.
		side.ctl.do("DEBUG", "REPLYBUFFER", "RESIZING", "0")
		side.ctl.do("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "RESET")
		side.ctl.do("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "1")
		if rbs, _ := replyBufOf(t, side.ctl, "test_client"); rbs != 16384 {
			t.Fatalf("%s: rbs=%d with resizing off", side.name, rbs)
		}
	}
	// Counters moved on both.
	for _, c := range []*respConn{oc, rc} {
		info := bulkText(c.do("INFO", "stats"))
		if strings.Contains(info, "reply_buffer_shrinks:0\r\n") || strings.Contains(info, "reply_buffer_expands:0\r\n") {
			t.Fatalf("reply buffer counters did not move: %s", info)
		}
	}
}

// client_recent_max_input_buffer is the query buffer clientsCron saw (not
// what the INFO's own client holds now), and argv-mem the arguments of
// the command running or blocked.
func TestDiffRecentMaxInputBufferAndArgvMem(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	// Until the cron samples a client that has read a command, the value
	// is 0 or the 8 bytes of an empty query buffer (sdsempty).
	for _, c := range []*respConn{oc, rc} {
		waitFor(t, "the cron to sample the client", func() bool {
			n, _ := strconv.Atoi(infoField(c, "clients", "client_recent_max_input_buffer"))
			return n > 8
		})
	}
	p.sameInfo("clients", "client_recent_max_input_buffer")
	argvMem := regexp.MustCompile(`argv-mem=\d+ multi-mem=\d+`)
	p.run([][]string{conn2("CLIENT", "SETNAME", "blocked")})
	o2, r2 := p.conn(1)
	o2.send("BLPOP", "nolist", "0")
	r2.send("BLPOP", "nolist", "0")
	for _, c := range []*respConn{oc, rc} {
		waitFor(t, "BLPOP to block", func() bool {
			return strings.Contains(c.do("INFO", "clients"), "blocked_clients:1\r\n")
		})
	}
	for _, args := range [][]string{{"CLIENT", "INFO"}, {"CLIENT", "LIST"}, {"client", "list", "type", "normal"}} {
		got := argvMem.FindAllString(oc.do(args...), -1)
		want := argvMem.FindAllString(rc.do(args...), -1)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%q: ours %q, redis %q", args, got, want)
		}
	}
	p.run([][]string{cmd("RPUSH", "nolist", "a")})
	if got, want := o2.read(), r2.read(); got != want {
		t.Fatalf("BLPOP: ours %q, redis %q", got, want)
	}
}

// A subscriber's messages wait in the same reply buffer as replies: its
// peak (rbp=) is the message's size.
func TestDiffReplyBufferPeakOfMessages(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	for _, side := range []struct {
		name     string
		ctl, sub *respConn
	}{{"ours", oc, dial(t, p.ours.addr)}, {"redis", rc, dial(t, p.real.addr)}} {
		side.sub.do("CLIENT", "SETNAME", "subscriber")
		side.sub.do("SUBSCRIBE", "ch")
		waitFor(t, side.name+": the subscriber's reply buffer to shrink", func() bool {
			rbs, rbp := replyBufOf(t, side.ctl, "subscriber")
			return rbs == 1024 && rbp < 1024
		})
		side.ctl.do("PUBLISH", "ch", strings.Repeat("m", 100))
		side.sub.read()
		if _, rbp := replyBufOf(t, side.ctl, "subscriber"); rbp != 133 {
			t.Fatalf("%s: rbp=%d after a 133-byte message", side.name, rbp)
		}
	}
}

// tot-mem and multi-mem are Redis's getClientMemoryUsage and
// mstate.argv_len_sums: query and reply buffers, the client struct, the
// running or blocked command's arguments, the MULTI state with its
// watched keys, the pub/sub dictionaries.
func TestDiffClientTotMem(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	mem := regexp.MustCompile(`multi-mem=\d+ rbs=\d+ rbp=\d+ obl=0 oll=0 omem=\d+ tot-mem=\d+`)
	for _, side := range []struct {
		name string
		ctl  *respConn
		addr string
	}{{"ours", oc, p.ours.addr}, {"redis", rc, p.real.addr}} {
		sub, mx, blk := dial(t, side.addr), dial(t, side.addr), dial(t, side.addr)
		sub.do("CLIENT", "SETNAME", "sub")
		// (four: a fifth grows the dict, which Redis then rehashes
		// step by step, counting both tables meanwhile)
		sub.do("SUBSCRIBE", "a", "b", "c", "d")
		for i := 0; i < 3; i++ {
			sub.read()
		}
		sub.do("PSUBSCRIBE", "p*")
		sub.do("SSUBSCRIBE", "s1", "s2")
		sub.read()
		mx.do("CLIENT", "SETNAME", "mx")
		mx.do("WATCH", "w1", "w2")
		mx.do("MULTI")
		for i := 0; i < 3; i++ {
			mx.do("SET", "k", "v")
		}
		blk.do("CLIENT", "SETNAME", "blk")
		blk.send("BLPOP", "nolist", "0")
		// Let every buffer settle (the cron shrinks idle reply buffers).
		waitFor(t, side.name+": reply buffers to shrink", func() bool {
			for _, n := range []string{"sub", "mx", "blk"} {
				if rbs, rbp := replyBufOf(t, side.ctl, n); rbs != 1024 || rbp >= 1024 {
					return false
				}
			}
			return true
		})
	}
	for _, name := range []string{"sub", "mx", "blk"} {
		line := func(c *respConn) string {
			for _, l := range strings.Split(bulkText(c.do("CLIENT", "LIST")), "\n") {
				if strings.Contains(l, " name="+name+" ") {
					return mem.FindString(l)
				}
			}
			return ""
		}
		if got, want := line(oc), line(rc); got != want || want == "" {
			t.Fatalf("%s: ours %q, redis %q", name, got, want)
		}
	}
}
