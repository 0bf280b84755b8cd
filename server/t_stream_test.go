package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/stream"
)

// deliveryTimes masks the delivery times (unix ms) that the two servers
// log a few ms apart.
var deliveryTimes = regexp.MustCompile(`TIME\r\n\$1[0-9]\r\n[0-9]{10,19}`)

func maskTimes(b []byte) []byte { return deliveryTimes.ReplaceAll(b, []byte("TIME")) }

// streamTraffic exercises every stream write path with deterministic IDs.
// (A consumer created by a history read, XREADGROUP ... 0, is not
// propagated by Redis 7.0 either; TestDiffStreamGroups covers it.)
func streamTraffic() [][]string {
	var cmds [][]string
	for i := 1; i <= 250; i++ {
		cmds = append(cmds, cmd("XADD", "s", strconv.Itoa(i)+"-1", "f", strconv.Itoa(i), "g", "x"))
	}
	return append(cmds,
		cmd("XADD", "s", "260-*", "f", "v"), cmd("XADD", "s", "260-*", "f", "v"),
		cmd("XADD", "s", "MAXLEN", "~", "120", "261-0", "f", "v"), cmd("XADD", "s", "MINID", "~", "140", "262-0", "f", "v"),
		cmd("XADD", "s", "MAXLEN", "=", "500", "263-0", "f", "v"), cmd("XADD", "s", "MAXLEN", "~", "100", "LIMIT", "50", "264-0", "f", "v"),
		cmd("XDEL", "s", "150-1", "201-1", "999-0"), cmd("XTRIM", "s", "MINID", "~", "210"), cmd("XTRIM", "s", "MAXLEN", "~", "1"),
		cmd("XTRIM", "s", "MAXLEN", "55"), cmd("XTRIM", "s", "MINID", "212-1"), cmd("XTRIM", "s", "MINID", "~", "2"),
		cmd("XGROUP", "CREATE", "s", "g1", "0"), cmd("XGROUP", "CREATE", "s", "g2", "$"), cmd("XGROUP", "CREATE", "e", "g", "$", "MKSTREAM"),
		cmd("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "3", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "2", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g1", "carol", "NOACK", "COUNT", "2", "STREAMS", "s", ">"),
		cmd("XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "s", "0"),
		cmd("XREADGROUP", "GROUP", "g2", "x", "STREAMS", "s", ">"),
		cmd("XACK", "s", "g1", "220-1", "999-0"),
		cmd("XCLAIM", "s", "g1", "erin", "0", "221-1", "222-1", "JUSTID"),
		cmd("XCLAIM", "s", "g1", "erin", "0", "223-1", "TIME", "1700000000000", "RETRYCOUNT", "5"),
		cmd("XCLAIM", "s", "g1", "erin", "0", "230-1", "FORCE", "JUSTID"),
		cmd("XCLAIM", "s", "g1", "erin", "0", "999-0", "LASTID", "240-1"),
		cmd("XDEL", "s", "224-1"), cmd("XCLAIM", "s", "g1", "frank", "0", "224-1"),
		cmd("XAUTOCLAIM", "s", "g1", "gina", "0", "0", "COUNT", "2"),
		cmd("XDEL", "s", "225-1"), cmd("XAUTOCLAIM", "s", "g1", "gina", "0", "0", "JUSTID"),
		cmd("XGROUP", "CREATECONSUMER", "s", "g1", "hank"), cmd("XGROUP", "CREATECONSUMER", "s", "g1", "hank"),
		cmd("XGROUP", "DELCONSUMER", "s", "g1", "bob"), cmd("XGROUP", "SETID", "s", "g2", "230-1", "ENTRIESREAD", "7"),
		cmd("XGROUP", "CREATE", "s", "g3", "0"), cmd("XGROUP", "DESTROY", "s", "g3"),
		cmd("XSETID", "s", "900-0", "ENTRIESADDED", "1000", "MAXDELETEDID", "800-0"),
		cmd("XADD", "s2", "1-1", "a", "b"), cmd("XDEL", "s2", "1-1"),
		cmd("MULTI"), cmd("XADD", "m", "1-1", "a", "b"), cmd("XGROUP", "CREATE", "m", "g", "0"),
		cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "m", ">"), cmd("EXEC"),
	)
}

// TestDiffStreamPropagation: both servers log the same AOF for the same
// traffic (delivery times masked).
func TestDiffStreamPropagation(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run(streamTraffic())
	p.checkDigest()
	oc, rc := p.conn(0)
	for _, f := range []string{"rdb_changes_since_last_save", "keyspace_hits", "keyspace_misses"} {
		if got, want := infoField(oc, "all", f), infoField(rc, "all", f); got != want {
			t.Errorf("%s: ours %s, redis %s", f, got, want)
		}
	}
	// (a preallocated AOF tail is padding, not commands)
	got := stripPadding(maskTimes(incrAOF(t, p.ours.dir)))
	want := maskTimes(incrAOF(t, p.real.dir))
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\r\n"), strings.Split(string(want), "\r\n")
		for i := range gl {
			if i >= len(wl) || gl[i] != wl[i] {
				lo := max(0, i-30)
				t.Fatalf("AOF differs at line %d:\n ours:  %q\n redis: %q", i, strings.Join(gl[lo:min(len(gl), i+10)], " "), strings.Join(wl[lo:min(len(wl), i+10)], " "))
			}
		}
		t.Fatalf("AOF differs: ours %d bytes, redis %d", len(got), len(want))
	}
}

// stripPadding drops a preallocated AOF tail ('#' filler lines).
func stripPadding(b []byte) []byte {
	if i := bytes.Index(b, []byte("\r\n#")); i >= 0 && len(bytes.Trim(b[i+2:], "#\n\x00")) == 0 {
		return b[:i+2]
	}
	return b
}

// firstDiff shows where two long replies diverge.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d:\n got:  %q\n want: %q", i, a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// stableInfo is XINFO STREAM FULL without what legitimately changes on a
// reload: consumer seen-times and the node layout.
var unstableInfo = regexp.MustCompile(`(seen-time|radix-tree-keys|radix-tree-nodes)\r\n:[0-9]+`)

// readCounters: Redis 7.0 does not log a group's entries-read when
// XREADGROUP delivers without NOACK (the XCLAIMs carry only LASTID), so a
// replay may know less (nil) than the original.
var readCounters = regexp.MustCompile(`(entries-read|lag)\r\n(:[0-9]+|\$-1)`)

func stableInfo(c *respConn, key string) string {
	return unstableInfo.ReplaceAllString(c.do("XINFO", "STREAM", key, "FULL", "COUNT", "0"), "$1")
}

// TestStreamAOFRestartAndRealRedisLoads: our server replays its own AOF
// (incr only, then after a RESP-base rewrite) to the same digest and
// stream state, and real Redis loads the same directory to the same
// digest and state; both rewrite it to the same base.
func TestStreamAOFRestartAndRealRedisLoads(t *testing.T) {
	requireRedis(t)
	ts := startOurServer(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--appendfsync", "always")
	c := dial(t, ts.addr)
	for _, a := range streamTraffic() {
		c.do(a...)
	}
	keys := []string{"s", "e", "s2", "m"}
	info := func(c *respConn) string {
		var sb strings.Builder
		for _, k := range keys {
			sb.WriteString(stableInfo(c, k))
		}
		sb.WriteString(c.do("XPENDING", "s", "g1"))
		return sb.String()
	}
	want, wantInfo := c.do("DEBUG", "DIGEST"), info(c)
	check := func(stage string) {
		t.Helper()
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		ours := startOurServer(t, "--appendonly", "yes", "--dir", cp, "--aof-use-rdb-preamble", "no")
		oc := dial(t, ours.addr)
		if got := oc.do("DEBUG", "DIGEST"); got != want {
			t.Fatalf("%s: our replay digest %q, want %q", stage, got, want)
		}
		if got := readCounters.ReplaceAllString(info(oc), "$1"); got != readCounters.ReplaceAllString(wantInfo, "$1") {
			t.Fatalf("%s: our replay state %s", stage, firstDiff(got, wantInfo))
		}
		cp2 := t.TempDir()
		copyDir(t, ts.dir, cp2)
		rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp2, "--aof-use-rdb-preamble", "no")
		rc := dial(t, rr.addr)
		if got := rc.do("DEBUG", "DIGEST"); got != want {
			log, _ := os.ReadFile(filepath.Join(cp2, "redis.log"))
			t.Fatalf("%s: real redis digest %q, want %q\n%s", stage, got, want, log)
		}
		if got, ourInfo := info(rc), info(oc); got != ourInfo {
			t.Fatalf("%s: real redis state differs from our replay %s", stage, firstDiff(ourInfo, got))
		}
		// Both rewrite the same dataset to the same RESP base.
		for _, x := range []*respConn{oc, rc} {
			x.do("BGREWRITEAOF")
			waitInfo(t, x, "aof_rewrite_in_progress", "0")
		}
		ob, rb := byKey(t, baseAOF(t, cp)), byKey(t, baseAOF(t, cp2))
		if ob != rb {
			t.Fatalf("%s: rewritten base differs %s", stage, firstDiff(ob, rb))
		}
	}
	check("incr only")
	if r := c.do("BGREWRITEAOF"); !strings.HasPrefix(r, "+Background") {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
	// more traffic on top of the RESP base
	for _, a := range [][]string{
		cmd("XADD", "s", "1000-0", "f", "v"), cmd("XREADGROUP", "GROUP", "g2", "y", "COUNT", "1", "STREAMS", "s", ">"),
		cmd("XCLAIM", "s", "g1", "ivy", "0", "221-1"), cmd("XADD", "e", "5-5", "k", "v"), cmd("XDEL", "e", "5-5"),
	} {
		c.do(a...)
	}
	want, wantInfo = c.do("DEBUG", "DIGEST"), info(c)
	check("RESP base + incr")
}

// byKey parses a RESP AOF and regroups its commands by key (key order in
// a rewrite follows each server's hash table), keeping each key's
// commands in order.
func byKey(t *testing.T, b []byte) string {
	t.Helper()
	groups := map[string][]string{}
	br := bufio.NewReader(bytes.NewReader(b))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		argv := make([]string, n)
		for i := range argv {
			l, _ := br.ReadString('\n')
			sz, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
			buf := make([]byte, sz+2)
			if _, err := io.ReadFull(br, buf); err != nil {
				t.Fatalf("bad AOF: %v", err)
			}
			argv[i] = string(buf[:sz])
		}
		key := ""
		switch {
		case len(argv) > 2 && strings.EqualFold(argv[0], "XGROUP"):
			key = argv[2]
		case len(argv) > 1 && !strings.EqualFold(argv[0], "SELECT"):
			key = argv[1]
		}
		groups[key] = append(groups[key], strings.Join(argv, " "))
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(strings.Join(groups[k], "\n") + "\n")
	}
	return sb.String()
}

func baseAOF(t *testing.T, dir string) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.aof"))
	if len(files) != 1 {
		t.Fatalf("base files in %s: %v", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStreamPropagatedForms checks the logged forms in-process.
func TestStreamPropagatedForms(t *testing.T) {
	d := newDSServer(t, nil)
	for i := 1; i <= 250; i++ {
		d.do("XADD", "s", strconv.Itoa(i)+"-0", "f", "v")
		d.do("XADD", "t", strconv.Itoa(i)+"-0", "f", "v")
	}
	d.ops()
	step := func(reply string, ops []string, args ...string) {
		t.Helper()
		d.expect(t, reply, args...)
		if got := d.ops(); strings.Join(got, "|") != strings.Join(ops, "|") {
			t.Fatalf("%q propagated %q, want %q", args, got, ops)
		}
	}
	// 100-entry nodes: "~" removes whole nodes and logs the exact result.
	step("$5\r\n251-0\r\n", []string{"XADD s MAXLEN = 51 251-0 f v"}, "XADD", "s", "MAXLEN", "~", "10", "251-*", "f", "v")
	step(":0\r\n", nil, "XTRIM", "s", "MAXLEN", "~", "10")
	step(":100\r\n", []string{"XTRIM t MINID = 101-0"}, "XTRIM", "t", "MINID", "~", "150")
	step(":0\r\n", nil, "XTRIM", "t", "MINID", "~", "150")
	step(":1\r\n", []string{"XTRIM t MINID 102"}, "XTRIM", "t", "MINID", "102")
	step("+OK\r\n", []string{"XGROUP CREATE s g 0"}, "XGROUP", "CREATE", "s", "g", "0")
	r := d.do("XREADGROUP", "GROUP", "g", "c", "NOACK", "COUNT", "1", "STREAMS", "s", ">")
	if !strings.HasPrefix(r, "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$5\r\n201-0\r\n") {
		t.Fatalf("XREADGROUP: %q", r)
	}
	want := []string{"XGROUP CREATECONSUMER s g c", "XGROUP SETID s g 201-0 ENTRIESREAD 201"}
	if got := d.ops(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("XREADGROUP NOACK propagated %q, want %q", got, want)
	}
	d.do("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">")
	got := d.ops()
	if len(got) != 1 || !regexp.MustCompile(`^XCLAIM s g c 0 202-0 TIME [0-9]+ RETRYCOUNT 1 FORCE JUSTID LASTID 202-0$`).MatchString(got[0]) {
		t.Fatalf("XREADGROUP propagated %q", got)
	}
	step("*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$5\r\n202-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n", nil,
		"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0-0") // history: not logged
	step(":1\r\n", []string{"XACK s g 202-0"}, "XACK", "s", "g", "202-0")
}

// TestStreamPipelinedXADD is redis-benchmark's XADD traffic.
func TestStreamPipelinedXADD(t *testing.T) {
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	const n = 5000
	var buf []byte
	for i := 0; i < n; i++ {
		buf = appendMultibulk(buf, "XADD", "mystream", "*", "myfield", strings.Repeat("x", 3))
	}
	c.nc.Write(buf)
	last := ""
	for i := 0; i < n; i++ {
		r := c.read()
		if !strings.HasPrefix(r, "$") || r <= last && len(r) == len(last) {
			t.Fatalf("reply %d: %q after %q", i, r, last)
		}
		last = r
	}
	if r := c.do("XLEN", "mystream"); r != fmt.Sprintf(":%d\r\n", n) {
		t.Fatalf("XLEN %q", r)
	}
}

func TestStreamBlocking(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes", "--appendfsync", "always")
	c := dial(t, ts.addr)
	c.do("XADD", "s", "1-0", "f", "v")
	// $ means entries after the current last ID; served in arrival order.
	a := asyncDo(t, ts.addr, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
	noReply(t, a, "XREAD BLOCK $")
	b := asyncDo(t, ts.addr, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "other", "s", "0", "1-0")
	noReply(t, b, "XREAD BLOCK")
	c.do("XADD", "s", "2-0", "f", "w")
	entry := "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nw\r\n"
	if r := reply(t, a); r != entry {
		t.Fatalf("XREAD $: %q", r)
	}
	if r := reply(t, b); r != entry {
		t.Fatalf("XREAD 1-0: %q", r)
	}
	// timeout
	start := time.Now()
	if r := c.do("XREAD", "BLOCK", "50", "STREAMS", "s", "$"); r != "*-1\r\n" {
		t.Fatalf("XREAD timeout: %q", r)
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatal("XREAD BLOCK 50 returned early")
	}
	// CLIENT UNBLOCK, both forms
	for _, how := range []string{"TIMEOUT", "ERROR"} {
		u := dial(t, ts.addr)
		id := strings.TrimSuffix(strings.TrimPrefix(u.do("CLIENT", "ID"), ":"), "\r\n")
		u.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		waitBlockedClients(t, c, 1)
		if r := c.do("CLIENT", "UNBLOCK", id, how); r != ":1\r\n" {
			t.Fatalf("CLIENT UNBLOCK: %q", r)
		}
		want := "*-1\r\n"
		if how == "ERROR" {
			want = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"
		}
		if r := u.read(); r != want {
			t.Fatalf("unblocked %s: %q", how, r)
		}
	}
	// XREADGROUP: served by XADD and logged as MULTI/XCLAIM/EXEC; errors when
	// the group is destroyed or the key deleted.
	c.do("XGROUP", "CREATE", "s", "g", "$")
	g := asyncDo(t, ts.addr, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
	noReply(t, g, "XREADGROUP BLOCK")
	c.do("XADD", "s", "3-0", "f", "x")
	if r := reply(t, g); r != "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n3-0\r\n*2\r\n$1\r\nf\r\n$1\r\nx\r\n" {
		t.Fatalf("XREADGROUP served: %q", r)
	}
	if r := c.do("XPENDING", "s", "g"); r != "*4\r\n:1\r\n$3\r\n3-0\r\n$3\r\n3-0\r\n*1\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n" {
		t.Fatalf("XPENDING: %q", r)
	}
	aofText := string(maskTimes(incrAOF(t, ts.dir)))
	if !strings.Contains(aofText, "XCLAIM\r\n$1\r\ns\r\n$1\r\ng\r\n$5\r\nalice\r\n$1\r\n0\r\n$3\r\n3-0\r\n$4\r\nTIME\r\n$10\r\nRETRYCOUNT") {
		t.Fatalf("served XREADGROUP not logged as XCLAIM:\n%q", aofText)
	}
	g = asyncDo(t, ts.addr, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
	noReply(t, g, "XREADGROUP BLOCK")
	c.do("XGROUP", "DESTROY", "s", "g")
	if r := reply(t, g); r != "-NOGROUP the consumer group this client was blocked on no longer exists\r\n" {
		t.Fatalf("XREADGROUP after DESTROY: %q", r)
	}
	for _, kill := range [][]string{{"DEL", "s"}, {"SET", "s", "x"}} {
		c.do("DEL", "s")
		c.do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		g = asyncDo(t, ts.addr, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
		noReply(t, g, "XREADGROUP BLOCK")
		c.do(kill...)
		if r := reply(t, g); r != "-UNBLOCKED the stream key no longer exists\r\n" {
			t.Fatalf("XREADGROUP after %v: %q", kill, r)
		}
	}
	// XREAD survives a DEL and is served by the re-created stream.
	c.do("DEL", "s")
	c.do("XADD", "s", "5-0", "f", "v")
	x := asyncDo(t, ts.addr, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
	noReply(t, x, "XREAD BLOCK")
	c.do("DEL", "s")
	noReply(t, x, "XREAD BLOCK after DEL")
	c.do("XADD", "s", "6-0", "f", "v")
	if r := reply(t, x); !strings.Contains(r, "6-0") {
		t.Fatalf("XREAD after re-create: %q", r)
	}
	if r := c.do("INFO", "clients"); !strings.Contains(r, "blocked_clients:0") {
		t.Fatalf("blocked clients left: %s", r)
	}
}

// TestDiffStreamRandomPropagation: random traffic logs the same AOF as
// real Redis (the deletion/claim/trim paths included).
func TestDiffStreamRandomPropagation(t *testing.T) {
	for seed := uint64(11); seed <= 12; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "no")
			p.run(randStreamCmds(seed, 1200))
			p.checkDigest()
			oc, rc := p.conn(0)
			for _, f := range []string{"rdb_changes_since_last_save", "keyspace_hits", "keyspace_misses"} {
				if got, want := infoField(oc, "all", f), infoField(rc, "all", f); got != want {
					t.Errorf("%s: ours %s, redis %s", f, got, want)
				}
			}
			got := stripPadding(maskTimes(incrAOF(t, p.ours.dir)))
			want := maskTimes(incrAOF(t, p.real.dir))
			if !bytes.Equal(got, want) {
				t.Fatalf("AOF differs %s", firstDiff(string(got), string(want)))
			}
		})
	}
}

// rdbSupportsStreams probes the RDB codec (developed alongside): a stream
// must survive an encode/decode round trip.
func rdbSupportsStreams() bool {
	st := stream.New()
	st.AppendItem(stream.ID{Ms: 1, Seq: 1}, [][]byte{[]byte("f"), []byte("v")}, stream.DefaultNodeLimits)
	p, err := rdb.AppendDumpPayload(nil, st.ToRDB(), rdb.EncoderOptions{Checksum: true})
	if err != nil {
		return false
	}
	v, err := rdb.ParseDumpPayload(p)
	return err == nil && v.Kind == rdb.KindStream && v.Stream != nil && len(v.Stream.Entries) == 1
}

// TestStreamRDBInterop: SAVE/DEBUG RELOAD/DUMP/RESTORE and the RDB
// preamble keep streams, and real Redis and we read each other's files.
func TestStreamRDBInterop(t *testing.T) {
	if !rdbSupportsStreams() {
		t.Skip("the RDB codec does not encode streams yet")
	}
	requireRedis(t)
	ts := startOurServer(t)
	c := dial(t, ts.addr)
	for _, a := range streamTraffic() {
		c.do(a...)
	}
	keys := []string{"s", "e", "s2", "m"}
	info := func(c *respConn) string {
		var sb strings.Builder
		for _, k := range keys {
			sb.WriteString(stableInfo(c, k))
		}
		return sb.String()
	}
	want, wantInfo := c.do("DEBUG", "DIGEST"), info(c)
	if r := c.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD: %q", r)
	}
	if got := c.do("DEBUG", "DIGEST"); got != want {
		t.Fatalf("digest after DEBUG RELOAD %q, want %q", got, want)
	}
	if got := info(c); got != wantInfo {
		t.Fatalf("state after DEBUG RELOAD %s", firstDiff(got, wantInfo))
	}
	if r := c.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	cp := t.TempDir()
	copyDir(t, ts.dir, cp)
	rr := startRealRedis(t, "--dir", cp)
	rc := dial(t, rr.addr)
	if got := rc.do("DEBUG", "DIGEST"); got != want {
		log, _ := os.ReadFile(filepath.Join(cp, "redis.log"))
		t.Fatalf("real redis digest %q, want %q\n%s", got, want, log)
	}
	if got := info(rc); got != wantInfo {
		t.Fatalf("real redis state %s", firstDiff(got, wantInfo))
	}
	// DUMP/RESTORE both ways.
	for _, k := range keys {
		ours, real := c.do("DUMP", k), rc.do("DUMP", k)
		if r := rc.do("RESTORE", k+"-ours", "0", bulkText(ours)); r != "+OK\r\n" {
			t.Fatalf("real RESTORE of our DUMP %s: %q", k, r)
		}
		if r := c.do("RESTORE", k+"-real", "0", bulkText(real)); r != "+OK\r\n" {
			t.Fatalf("our RESTORE of real DUMP %s: %q", k, r)
		}
		if a, b := stableInfo(rc, k+"-ours"), stableInfo(c, k+"-real"); a != b {
			t.Fatalf("RESTORE %s: %s", k, firstDiff(a, b))
		}
	}
	// We load real Redis's RDB.
	if r := rc.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("real SAVE: %q", r)
	}
	cp2 := t.TempDir()
	copyDir(t, cp, cp2)
	ts2 := startOurServer(t, "--dir", cp2)
	c2 := dial(t, ts2.addr)
	if got, want := c2.do("DEBUG", "DIGEST"), rc.do("DEBUG", "DIGEST"); got != want {
		t.Fatalf("our digest of real RDB %q, want %q\n%s", got, want, ts2.logs.String())
	}
	if got := info(c2); got != wantInfo {
		t.Fatalf("our state from real RDB %s", firstDiff(got, wantInfo))
	}
}

// TestDiffStreamBlockingPropagation: blocked XREADGROUP clients served
// after a MULTI of XADDs reply and log (MULTI/XCLAIM.../EXEC, and the
// NOACK forms) as real Redis does.
func TestDiffStreamBlockingPropagation(t *testing.T) {
	requireRedis(t)
	run := func(addr string) []string {
		c := dial(t, addr)
		c.do("XGROUP", "CREATE", "q", "g", "$", "MKSTREAM")
		c.do("XGROUP", "CREATE", "q", "g2", "$")
		a := asyncDo(t, addr, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "q", ">")
		noReply(t, a, "XREADGROUP")
		b := asyncDo(t, addr, "XREADGROUP", "GROUP", "g2", "n", "NOACK", "COUNT", "1", "BLOCK", "0", "STREAMS", "q", ">")
		noReply(t, b, "XREADGROUP NOACK")
		x := asyncDo(t, addr, "XREAD", "BLOCK", "0", "STREAMS", "other", "q", "0", "$")
		noReply(t, x, "XREAD")
		c.do("MULTI")
		c.do("XADD", "q", "1-1", "a", "1")
		c.do("XADD", "q", "1-2", "b", "2")
		exec := c.do("EXEC")
		return []string{exec, reply(t, a), reply(t, b), reply(t, x), c.do("XINFO", "GROUPS", "q"), c.do("DEBUG", "DIGEST")}
	}
	ts := startOurServer(t, "--appendonly", "yes", "--appendfsync", "always")
	rr := startRealRedis(t, "--appendonly", "yes", "--appendfsync", "always")
	got, want := run(ts.addr), run(rr.addr)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("reply %d: ours %q, redis %q", i, got[i], want[i])
		}
	}
	ga := stripPadding(maskTimes(incrAOF(t, ts.dir)))
	wa := maskTimes(incrAOF(t, rr.dir))
	if !bytes.Equal(ga, wa) {
		t.Fatalf("AOF differs %s", firstDiff(string(ga), string(wa)))
	}
}

// TestStreamBlockingEachClientOwnID: a blocked reader waiting past the new
// entry does not hold back the others (also on a key a BLPOP waits on).
func TestStreamBlockingEachClientOwnID(t *testing.T) {
	requireRedis(t)
	run := func(addr string) []string {
		c := dial(t, addr)
		l := asyncDo(t, addr, "BLPOP", "s", "0")
		noReply(t, l, "BLPOP")
		a := asyncDo(t, addr, "XREAD", "BLOCK", "0", "STREAMS", "s", "9-0")
		noReply(t, a, "XREAD 9-0")
		b := asyncDo(t, addr, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		noReply(t, b, "XREAD $")
		c.do("XADD", "s", "2-0", "f", "w")
		rb := reply(t, b)
		noReply(t, a, "XREAD 9-0")
		c.do("XADD", "s", "10-0", "f", "x")
		ra := reply(t, a)
		c.do("DEL", "s")
		c.do("RPUSH", "s", "e")
		return []string{rb, ra, reply(t, l)}
	}
	ts := startOurServer(t)
	rr := startRealRedis(t)
	got, want := run(ts.addr), run(rr.addr)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ours %q, redis %q", got, want)
	}
}

// TestStreamAOFPreamble: an RDB-preamble rewrite plus incr traffic
// replays to the same digest here and in real Redis.
func TestStreamAOFPreamble(t *testing.T) {
	if !rdbSupportsStreams() {
		t.Skip("the RDB codec does not encode streams yet")
	}
	requireRedis(t)
	ts := startOurServer(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "yes")
	c := dial(t, ts.addr)
	for _, a := range streamTraffic() {
		c.do(a...)
	}
	c.do("BGREWRITEAOF")
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
	c.do("XADD", "s", "2000-0", "f", "v")
	c.do("XREADGROUP", "GROUP", "g1", "zed", "STREAMS", "s", ">")
	want := c.do("DEBUG", "DIGEST")
	wantPending := c.do("XPENDING", "s", "g1")
	for _, real := range []bool{false, true} {
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		var addr string
		if real {
			addr = startRealRedis(t, "--appendonly", "yes", "--dir", cp).addr
		} else {
			addr = startOurServer(t, "--appendonly", "yes", "--dir", cp).addr
		}
		rc := dial(t, addr)
		if got := rc.do("DEBUG", "DIGEST"); got != want {
			t.Fatalf("real=%v: digest %q, want %q", real, got, want)
		}
		if got := rc.do("XPENDING", "s", "g1"); got != wantPending {
			t.Fatalf("real=%v: XPENDING %q, want %q", real, got, wantPending)
		}
	}
}
