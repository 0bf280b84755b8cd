package server

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Differential testing: the same command sequence runs against our server
// and a real redis-server 7.0.15; replies must be byte-identical and the
// final DEBUG DIGEST equal. Set DIFF_CONTINUE=1 to log every mismatch
// instead of stopping at the first (useful to survey bugs), DIFF_RESP3=1 to
// run every differential table after HELLO 3.
//
// A command may carry leading markers (never sent to the servers):
//
//	sorted(...)  compare the top-level array elements as a sorted multiset
//	pairs(...)   same, keeping field/value (or member/score) pairs together
//	scanAll(...) iterate a SCAN-family command to cursor 0, compare the
//	             sorted, de-duplicated union (cursors differ legitimately)
//	nocmp(...)   run on both, do not compare (ids, timings)
//	shape(...)   compare only the reply's type and aggregate lengths
//	conn2(...)   run on a second connection to each server
//	pause(ms)    sleep between steps (not a command)
//
// Markers are explicit per command: by default replies are compared byte
// for byte.
const (
	mSorted = "\x00sorted"
	mPairs  = "\x00pairs"
	mScan   = "\x00scan"
	mNoCmp  = "\x00nocmp"
	mShape  = "\x00shape"
	mConn2  = "\x00conn2"
	mSleep  = "\x00sleep"
)

func cmd(args ...string) []string     { return args }
func sorted(args ...string) []string  { return append([]string{mSorted}, args...) }
func pairs(args ...string) []string   { return append([]string{mPairs}, args...) }
func scanAll(args ...string) []string { return append([]string{mScan}, args...) }
func nocmp(args ...string) []string   { return append([]string{mNoCmp}, args...) }
func shape(args ...string) []string   { return append([]string{mShape}, args...) }
func conn2(args ...string) []string   { return append([]string{mConn2}, args...) }

// pause sleeps between two steps (for TTLs set up to expire).
func pause(ms int) []string { return []string{mSleep, strconv.Itoa(ms)} }

// diffPair is our server and real Redis side by side, with up to two
// connections to each.
type diffPair struct {
	t     testing.TB
	ours  *testServer
	real  *realRedis
	oc    [2]*respConn
	rc    [2]*respConn
	fails int
	hist  []string // recent commands, for mismatch reports
	// per connection: inside MULTI, and the compare mode of each queued
	// command, applied to the matching element of EXEC's reply
	inMulti [2]bool
	queued  [2][]string
	// resp3: every connection starts with HELLO 3
	resp3 bool
}

// newDiffPair starts both servers with the same extra arguments.
func newDiffPair(t testing.TB, args ...string) *diffPair {
	t.Helper()
	real := startRealRedis(t, args...) // skips first when Redis is absent
	ours := startOurServer(t, args...)
	p := &diffPair{t: t, ours: ours, real: real}
	p.oc[0], p.rc[0] = dial(t, ours.addr), dial(t, real.addr)
	if os.Getenv("DIFF_RESP3") == "1" {
		// survey mode: every table spoken in RESP3
		p.resp3 = true
		p.hello3(0)
	}
	return p
}

func (p *diffPair) conn(i int) (*respConn, *respConn) {
	if p.oc[i] == nil {
		p.oc[i], p.rc[i] = dial(p.t, p.ours.addr), dial(p.t, p.real.addr)
		if p.resp3 {
			p.hello3(i)
		}
	}
	return p.oc[i], p.rc[i]
}

// hello3 switches connection i of both servers to RESP3.
func (p *diffPair) hello3(i int) {
	p.t.Helper()
	for _, rc := range []*respConn{p.oc[i], p.rc[i]} {
		if got := rc.do("HELLO", "3"); !strings.HasPrefix(got, "%7\r\n") {
			p.t.Fatalf("HELLO 3 replied %q", got)
		}
	}
}

// newDiffPair3 is newDiffPair with every connection in RESP3.
func newDiffPair3(t testing.TB, args ...string) *diffPair {
	t.Helper()
	p := newDiffPair(t, args...)
	p.resp3 = true
	p.hello3(0)
	return p
}

// diff3 is diff with both servers spoken to in RESP3 (HELLO 3).
func diff3(t *testing.T, cmds [][]string) {
	t.Helper()
	p := newDiffPair3(t)
	p.run(cmds)
	p.checkDigest()
}

// diff runs cmds on fresh servers and requires identical replies and an
// identical DEBUG DIGEST at the end.
func diff(t *testing.T, cmds [][]string) {
	t.Helper()
	p := newDiffPair(t)
	p.run(cmds)
	p.checkDigest()
}

// run executes each command on both servers and compares the replies.
func (p *diffPair) run(cmds [][]string) {
	p.t.Helper()
	for i, c := range cmds {
		p.step(i, c)
	}
}

func (p *diffPair) step(i int, c []string) {
	p.t.Helper()
	modes := map[string]bool{}
	for len(c) > 0 && strings.HasPrefix(c[0], "\x00") {
		modes[c[0]] = true
		c = c[1:]
	}
	if modes[mSleep] {
		ms, _ := strconv.Atoi(c[0])
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return
	}
	conn := 0
	if modes[mConn2] {
		conn = 1
	}
	oc, rc := p.conn(conn)
	p.hist = append(p.hist, strings.Join(c, " "))
	if len(p.hist) > 8 {
		p.hist = p.hist[1:]
	}
	var got, want string
	if modes[mScan] {
		got, want = scanUnion(oc, c), scanUnion(rc, c)
	} else {
		got, want = oc.do(c...), rc.do(c...)
	}
	mode := ""
	for _, m := range []string{mNoCmp, mSorted, mPairs, mShape} {
		if modes[m] {
			mode = m
		}
	}
	name := strings.ToLower(c[0])
	switch {
	case name == "multi" && want == "+OK\r\n":
		p.inMulti[conn], p.queued[conn] = true, nil
	case p.inMulti[conn] && (name == "exec" || name == "discard") && len(c) == 1:
		if name == "exec" && mode == "" {
			got, want = execNormalize(got, p.queued[conn]), execNormalize(want, p.queued[conn])
		}
		p.inMulti[conn], p.queued[conn] = false, nil
	case p.inMulti[conn] && want == "+QUEUED\r\n":
		p.queued[conn] = append(p.queued[conn], mode)
		mode = ""
	}
	if mode == mNoCmp {
		return
	}
	got, want = normalize(got, mode), normalize(want, mode)
	if got != want {
		p.mismatch("#%d %q:\n ours:  %q\n redis: %q\n after: %q", i, c, got, want, p.hist)
	}
}

func (p *diffPair) mismatch(format string, args ...any) {
	p.t.Helper()
	p.fails++
	if os.Getenv("DIFF_CONTINUE") == "1" {
		p.t.Errorf(format, args...)
		return
	}
	p.t.Fatalf(format, args...)
}

// checkDigest compares DEBUG DIGEST of both datasets.
func (p *diffPair) checkDigest() {
	p.t.Helper()
	oc, rc := p.conn(0)
	got, want := oc.do("DEBUG", "DIGEST"), rc.do("DEBUG", "DIGEST")
	if got != want || len(got) != 43 {
		p.mismatch("DEBUG DIGEST: ours %q, redis %q", got, want)
	}
}

// normalize applies a compare mode to a raw reply.
func normalize(raw, mode string) string {
	switch mode {
	case mSorted:
		return sortedReply(raw, 1)
	case mPairs:
		return sortedReply(raw, 2)
	case mShape:
		return replyShape(raw)
	case mNoCmp:
		return "(not compared)"
	}
	return raw
}

// execNormalize applies each queued command's mode to its element of an
// EXEC reply.
func execNormalize(raw string, modes []string) string {
	header, elems, ok := splitRaw(raw)
	if !ok || len(elems) != len(modes) {
		return raw
	}
	for i := range elems {
		elems[i] = normalize(elems[i], modes[i])
	}
	return header + strings.Join(elems, "")
}

// sortedReply sorts an aggregate's elements in groups of n (a non-aggregate
// is returned as is).
func sortedReply(raw string, n int) string {
	header, elems, ok := splitRaw(raw)
	if !ok || len(elems)%n != 0 {
		return raw
	}
	groups := make([]string, 0, len(elems)/n)
	for i := 0; i < len(elems); i += n {
		groups = append(groups, strings.Join(elems[i:i+n], ""))
	}
	sort.Strings(groups)
	return header + strings.Join(groups, "")
}

// replyShape keeps the reply type and aggregate sizes, nothing else.
func replyShape(raw string) string {
	header, elems, ok := splitRaw(raw)
	if !ok {
		if raw == "" {
			return ""
		}
		return raw[:1]
	}
	var sb strings.Builder
	sb.WriteString(header)
	for _, e := range elems {
		sb.WriteString(replyShape(e))
	}
	return sb.String()
}

// scanUnion runs a SCAN-family command (SCAN cursor ... / xSCAN key cursor
// ...) until the cursor is 0 and returns the sorted, de-duplicated
// elements as a raw array, or the first error reply.
func scanUnion(rc *respConn, args []string) string {
	ci := 1
	if !eqFold([]byte(args[0]), "scan") {
		ci = 2
	}
	group := 1
	if eqFold([]byte(args[0]), "hscan") || eqFold([]byte(args[0]), "zscan") {
		group = 2
	}
	a := append([]string(nil), args...)
	seen := map[string]bool{}
	for iter := 0; iter < 100000; iter++ {
		raw := rc.do(a...)
		_, parts, ok := splitRaw(raw)
		if !ok || len(parts) != 2 {
			return raw
		}
		_, elems, ok := splitRaw(parts[1])
		if !ok || len(elems)%group != 0 {
			return raw
		}
		for i := 0; i < len(elems); i += group {
			seen[strings.Join(elems[i:i+group], "")] = true
		}
		cur := bulkText(parts[0])
		if cur == "0" {
			break
		}
		a[ci] = cur
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "scan:" + strings.Join(keys, "")
}

// hasCommand reports whether our server implements name (families other
// engineers add over time).
func (p *diffPair) hasCommand(name string) bool {
	_, ok := p.ours.s.commands[name]
	return ok
}

func TestDiffHarnessDetectsMismatch(t *testing.T) {
	// The harness must notice a difference: compare a server against
	// itself after changing the data on one side only.
	p := newDiffPair(t)
	oc, _ := p.conn(0)
	oc.do("SET", "only-ours", "1")
	sub := &recordingTB{TB: t}
	p.t = sub
	p.step(0, cmd("GET", "only-ours"))
	if !sub.failed {
		t.Fatal("a reply mismatch was not reported")
	}
	sub.failed = false
	p.checkDigest()
	if !sub.failed {
		t.Fatal("a digest mismatch was not reported")
	}
	// Sorted comparison is order-insensitive but content-sensitive.
	if sortedReply("*2\r\n$1\r\nb\r\n$1\r\na\r\n", 1) != sortedReply("*2\r\n$1\r\na\r\n$1\r\nb\r\n", 1) {
		t.Fatal("sorted compare depends on order")
	}
	if sortedReply("*2\r\n$1\r\nb\r\n$1\r\na\r\n", 1) == sortedReply("*2\r\n$1\r\na\r\n$1\r\nc\r\n", 1) {
		t.Fatal("sorted compare ignores content")
	}
	if sortedReply("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", 2) == sortedReply("*4\r\n$1\r\na\r\n$1\r\n2\r\n$1\r\nb\r\n$1\r\n1\r\n", 2) {
		t.Fatal("pair compare lost the pairing")
	}
}

// recordingTB turns Fatalf/Errorf into a recorded failure.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Fatalf(format string, args ...any) { r.failed = true }
func (r *recordingTB) Errorf(format string, args ...any) { r.failed = true }
func (r *recordingTB) Helper()                           {}

// ---------------------------------------------------------------- DEBUG

// digestDataset fills every type in every encoding, in two databases, with
// and without TTLs.
func digestDataset(p *diffPair) [][]string {
	cmds := [][]string{
		cmd("SET", "str", "hello"),
		cmd("SET", "int", "12345"),
		cmd("SET", "neg", "-7"),
		cmd("SET", "empty", ""),
		cmd("SET", "big", strings.Repeat("x", 100)),
		cmd("APPEND", "raw", "abc"),
		cmd("SET", "ttl", "v", "EX", "100000"),
		cmd("SELECT", "3"),
		cmd("SET", "str", "hello"), // same key and value, other DB
		cmd("SELECT", "0"),
	}
	if p.hasCommand("rpush") {
		cmds = append(cmds,
			cmd("RPUSH", "list", "a", "1", "b", "-2", "c"),
			cmd("RPUSH", "list2", "c", "b", "-2", "1", "a"),
			cmd("RPUSH", "biglist", strings.Repeat("y", 70), "2", "3"),
			cmd("EXPIRE", "biglist", "100000"),
		)
		for i := 0; i < 300; i++ {
			cmds = append(cmds, cmd("RPUSH", "longlist", strings.Repeat("e", i%20)+string(rune('a'+i%26))))
		}
	}
	if p.hasCommand("sadd") {
		cmds = append(cmds,
			cmd("SADD", "intset", "3", "1", "2", "-100", "9223372036854775807"),
			cmd("SADD", "hset", "a", "b", "c", "1"),
		)
		for i := 0; i < 600; i++ {
			cmds = append(cmds, cmd("SADD", "bigintset", strconv.Itoa(i*7)))
		}
	}
	if p.hasCommand("zadd") {
		cmds = append(cmds,
			cmd("ZADD", "zlp", "0.1", "a", "1", "b", "-2.5", "c", "1e300", "d", "inf", "e", "-inf", "f", "-0", "g", "3", "12"),
			cmd("ZADD", "zsl", "0.1", "a", "1", "b", "-2.5", "c", "1.7976931348623157e308", "d", "5e-324", "e", "123456789012345678", "f"),
			cmd("ZADD", "zsl", "1", strings.Repeat("m", 80)),
		)
	}
	if p.hasCommand("hset") {
		cmds = append(cmds,
			cmd("HSET", "hlp", "f1", "v1", "f2", "2", "3", "v3"),
			cmd("HSET", "hht", "f1", strings.Repeat("v", 80), "f2", "2"),
		)
		for i := 0; i < 600; i++ {
			cmds = append(cmds, cmd("HSET", "bighash", "f"+strconv.Itoa(i), strconv.Itoa(i)))
		}
	}
	return cmds
}

func TestDebugDigestMatchesRedis(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	if got := oc.do("DEBUG", "DIGEST"); got != "+"+strings.Repeat("0", 40)+"\r\n" {
		t.Fatalf("empty dataset digest: %q", got)
	}
	p.checkDigest()
	cmds := digestDataset(p)
	p.run(cmds)
	p.checkDigest()
	// Every key's value digest, including a missing key (all zeros).
	for db := 0; db < 4; db += 3 {
		p.step(0, cmd("SELECT", strconv.Itoa(db)))
		keys := bulkText(rc.do("KEYS", "*"))
		_, elems, _ := splitRaw(rc.do("KEYS", "*"))
		if len(elems) == 0 {
			t.Fatalf("no keys in db %d: %s", db, keys)
		}
		args := []string{"DEBUG", "DIGEST-VALUE", "missing"}
		for _, e := range elems {
			args = append(args, bulkText(e))
			p.step(0, cmd("DEBUG", "DIGEST-VALUE", bulkText(e)))
		}
		p.step(0, args)
	}
	p.step(0, cmd("SELECT", "0"))
	// The digest follows the content: a change on one key changes it, the
	// same change on both servers keeps them equal.
	before := oc.do("DEBUG", "DIGEST")
	p.run([][]string{cmd("SET", "str", "hellp")})
	if oc.do("DEBUG", "DIGEST") == before {
		t.Fatal("digest did not change with the data")
	}
	p.checkDigest()
	// A TTL is part of the digest (its value is not).
	p.run([][]string{cmd("EXPIRE", "str", "5000000")})
	p.checkDigest()
	p.run([][]string{cmd("EXPIRE", "str", "6000000")})
	p.checkDigest()
}

// Encoding changes must not change digests: an intset turned hashtable,
// a listpack zset turned skiplist and back through DEBUG RELOAD.
func TestDebugDigestIndependentOfEncoding(t *testing.T) {
	p := newDiffPair(t)
	oc, _ := p.conn(0)
	if !p.hasCommand("sadd") || !p.hasCommand("zadd") || !p.hasCommand("hset") {
		t.Skip("collection commands not available yet")
	}
	p.run([][]string{
		cmd("SADD", "s", "1", "2", "x"), cmd("SREM", "s", "x"), // hashtable holding 1, 2
		cmd("SADD", "s2", "1", "2"), // intset holding 1, 2
		cmd("ZADD", "z", "1", "a", "2", strings.Repeat("b", 100)), cmd("ZREM", "z", strings.Repeat("b", 100)),
		cmd("ZADD", "z2", "1", "a"),
		cmd("OBJECT", "ENCODING", "s"), cmd("OBJECT", "ENCODING", "s2"),
		cmd("OBJECT", "ENCODING", "z"), cmd("OBJECT", "ENCODING", "z2"),
		cmd("DEBUG", "DIGEST-VALUE", "s", "s2", "z", "z2"),
	})
	_, el, _ := splitRaw(oc.do("DEBUG", "DIGEST-VALUE", "s", "s2", "z", "z2"))
	if len(el) != 4 || el[0] != el[1] || el[2] != el[3] {
		t.Fatalf("digest depends on encoding: %q", el)
	}
	p.run([][]string{cmd("DEBUG", "RELOAD"), cmd("OBJECT", "ENCODING", "s"), cmd("OBJECT", "ENCODING", "z")})
	p.checkDigest()
}

func TestDebugRepliesMatchRedis(t *testing.T) {
	p := newDiffPair(t)
	cmds := [][]string{
		cmd("DEBUG"),
		cmd("DEBUG", "HELP"),
		cmd("debug", "help"),
		cmd("DEBUG", "HELP", "x"),
		cmd("DEBUG", "nosuch"),
		cmd("DEBUG", "object"),
		cmd("DEBUG", "object", "nokey"),
		cmd("DEBUG", "sleep"),
		cmd("DEBUG", "sleep", "abc"),
		cmd("DEBUG", "sleep", "0"),
		cmd("DEBUG", "sleep", "-1"),
		cmd("DEBUG", "sleep", "0.01"),
		cmd("DEBUG", "digest", "x"),
		cmd("DEBUG", "digest-value"),
		cmd("DEBUG", "digest-value", "nokey"),
		cmd("DEBUG", "set-active-expire"),
		cmd("DEBUG", "set-active-expire", "1"),
		cmd("DEBUG", "log", "hello from the test"),
		cmd("DEBUG", "log"),
		cmd("DEBUG", "reload", "foo"),
		cmd("DEBUG", "reload"),
		cmd("DEBUG", "error", "MYERR some text"),
		cmd("DEBUG", "populate", "-1"),
		cmd("DEBUG", "populate", "x"),
		cmd("DEBUG", "populate", "5"),
		cmd("DEBUG", "populate", "3", "pfx", "2"),
		cmd("DEBUG", "populate", "3", "pfx2", "12"),
		cmd("DEBUG", "populate", "10"), // existing keys are kept
		cmd("DBSIZE"),
		sorted("KEYS", "*"),
		cmd("GET", "key:4"), cmd("GET", "pfx:1"), cmd("GET", "pfx2:2"),
		cmd("DEBUG", strings.Repeat("z", 200)),
		cmd("MULTI"), cmd("DEBUG", "DIGEST"), cmd("DEBUG", "nosuch"), cmd("EXEC"),
	}
	p.run(cmds)
	p.checkDigest()
	if !strings.Contains(p.ours.logs.String(), "DEBUG LOG: hello from the test") {
		t.Fatalf("DEBUG LOG line missing from the log:\n%s", p.ours.logs.String())
	}
}

func TestDebugObjectMatchesRedis(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	cmds := [][]string{cmd("SET", "s", "hello"), cmd("SET", "i", "123"), cmd("SET", "bigi", "123456"),
		cmd("SET", "raw", strings.Repeat("r", 50)), cmd("SET", "e", "")}
	keys := []string{"s", "i", "bigi", "raw", "e"}
	if p.hasCommand("rpush") {
		cmds = append(cmds, cmd("RPUSH", "l", "a", "b", "c"))
		keys = append(keys, "l")
		for i := 0; i < 1000; i++ {
			cmds = append(cmds, cmd("RPUSH", "bigl", "element-"+strconv.Itoa(i)))
		}
		keys = append(keys, "bigl")
	}
	if p.hasCommand("sadd") {
		cmds = append(cmds, cmd("SADD", "st", "1", "2", "3"), cmd("SADD", "sh", "a", "b"))
		keys = append(keys, "st", "sh")
	}
	if p.hasCommand("zadd") {
		cmds = append(cmds, cmd("ZADD", "z", "1", "a", "2.5", "b"))
		keys = append(keys, "z")
	}
	if p.hasCommand("hset") {
		cmds = append(cmds, cmd("HSET", "h", "a", "1", "b", "2"))
		keys = append(keys, "h")
	}
	p.run(cmds)
	// Pointers and LRU clocks differ; everything else must match.
	mask := func(s string) string {
		var out []string
		for _, f := range strings.Fields(bulkText(s)) {
			switch {
			case strings.HasPrefix(f, "at:"), strings.HasPrefix(f, "lru:"), strings.HasPrefix(f, "lru_seconds_idle:"):
				out = append(out, f[:strings.IndexByte(f, ':')+1])
			default:
				out = append(out, f)
			}
		}
		return strings.Join(out, " ")
	}
	for _, k := range keys {
		got, want := oc.do("DEBUG", "OBJECT", k), rc.do("DEBUG", "OBJECT", k)
		if mask(got) != mask(want) {
			t.Errorf("DEBUG OBJECT %s:\n ours:  %s\n redis: %s", k, got, want)
		}
		if !strings.HasPrefix(got, "+Value at:0x") {
			t.Errorf("DEBUG OBJECT %s: %q", k, got)
		}
	}
}

func TestDebugNotAllowed(t *testing.T) {
	for _, mode := range []string{"no", "local", "yes"} {
		t.Run(mode, func(t *testing.T) {
			p := newDiffPair(t, "--enable-debug-command", mode)
			// Our test connections are local, so "local" allows them.
			p.run([][]string{cmd("DEBUG", "DIGEST"), cmd("DEBUG", "nosuch"), cmd("DEBUG", "HELP", "x")})
		})
	}
}

func TestDebugSetActiveExpire(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "k", "v", "PX", "20"),
	})
	time.Sleep(300 * time.Millisecond) // well past several active-expire cycles
	// Not accessed and not actively expired: still counted.
	p.run([][]string{cmd("DBSIZE"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")})
	oc, _ := p.conn(0)
	deadline := time.Now().Add(3 * time.Second)
	for oc.do("DBSIZE") != ":0\r\n" {
		if time.Now().After(deadline) {
			t.Fatal("active expiry did not resume")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDebugSleepBlocksOtherClients(t *testing.T) {
	ts := startOurServer(t)
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.send("DEBUG", "SLEEP", "0.3")
	time.Sleep(50 * time.Millisecond) // let the sleep start
	start := time.Now()
	if got := b.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("PING answered after %v during DEBUG SLEEP", d)
	}
	if got := a.read(); got != "+OK\r\n" {
		t.Fatalf("DEBUG SLEEP: %q", got)
	}
}

func TestDebugReloadKeepsData(t *testing.T) {
	p := newDiffPair(t)
	oc, _ := p.conn(0)
	p.run(digestDataset(p))
	before := oc.do("DEBUG", "DIGEST")
	p.run([][]string{cmd("DEBUG", "RELOAD"), cmd("DBSIZE")})
	if after := oc.do("DEBUG", "DIGEST"); after != before {
		t.Fatalf("digest changed by DEBUG RELOAD: %s -> %s", before, after)
	}
	p.checkDigest()
	// NOSAVE loads the file saved above; NOFLUSH MERGE lets it win.
	p.run([][]string{
		cmd("SET", "str", "changed"), cmd("SET", "newkey", "1"),
		cmd("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"),
		cmd("GET", "str"), cmd("GET", "newkey"),
		cmd("DEBUG", "RELOAD", "NOSAVE"),
		cmd("GET", "newkey"),
	})
	p.checkDigest()
}

func TestDebugLoadAOF(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes")
	oc, _ := p.conn(0)
	p.run(digestDataset(p))
	p.run([][]string{cmd("INCR", "counter"), cmd("INCR", "counter")})
	before := oc.do("DEBUG", "DIGEST")
	p.run([][]string{cmd("DEBUG", "LOADAOF"), cmd("GET", "counter"), cmd("DBSIZE")})
	if after := oc.do("DEBUG", "DIGEST"); after != before {
		t.Fatalf("digest changed by DEBUG LOADAOF: %s -> %s", before, after)
	}
	p.checkDigest()
	// Loading did not log the replayed commands again.
	p.run([][]string{cmd("DEBUG", "LOADAOF"), cmd("GET", "counter")})
	p.checkDigest()
}

// With appendonly no and no AOF on disk, Redis 7.0.15 exits with code 1
// (cmd/server's TestDebugLoadAOFAppendOnlyNoAsRedis compares the processes).
func TestDebugLoadAOFWithAOFOff(t *testing.T) {
	ts := startOurServer(t)
	code := make(chan int, 1)
	ts.s.mu.Lock()
	ts.s.exitFn = func(c int) { code <- c }
	ts.s.mu.Unlock()
	c := dial(t, ts.addr)
	c.do("SET", "k", "v")
	c.send("DEBUG", "LOADAOF")
	if got := <-code; got != 1 {
		t.Fatalf("DEBUG LOADAOF without AOF: exit code %d, want 1", got)
	}
	if raw, err := readRaw(c.br); err == nil {
		t.Fatalf("DEBUG LOADAOF without AOF replied %q, want the connection closed", raw)
	}
}

func TestCStrtodAtoi(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{{"1.5", 1.5}, {"abc", 0}, {" 2", 2}, {"3abc", 3}, {"0x10", 0}, {"1_0", 1}, {"-0.5", -0.5}, {"1e3", 1000}, {"", 0}, {"inf", math.Inf(1)}} {
		if got := cStrtod([]byte(c.in)); got != c.want {
			t.Errorf("cStrtod(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want int64
	}{{"1", 1}, {"0", 0}, {"x", 0}, {"12x", 12}, {"-3", -3}, {" 7", 7}, {"", 0}} {
		if got := cAtoi([]byte(c.in)); got != c.want {
			t.Errorf("cAtoi(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzDebugParsers: the DEBUG argument parsers and the quicklist payload
// reader never panic, and the RESP reader of the harness never panics.
func FuzzDebugParsers(f *testing.F) {
	f.Add([]byte("1.5"))
	f.Add([]byte("-0x10"))
	f.Add([]byte{18, 1, 2, 5, 1, 2, 3, 4, 5})
	f.Add([]byte{18, 0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{18, 2, 2, 0xC3, 3, 10, 1, 2, 3, 2, 1, 9})
	f.Add([]byte("*2\r\n$1\r\na\r\n%1\r\n:1\r\n_\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cStrtod(b)
		cAtoi(b)
		info := quicklistInfo(b, 3, -2, 0)
		if info != "" && !strings.HasPrefix(info, " ql_nodes:") {
			t.Fatalf("bad quicklist info %q", info)
		}
		raw, err := readRaw(bufio.NewReader(bytes.NewReader(b)))
		if err == nil && !bytes.HasPrefix(b, []byte(raw)) {
			t.Fatalf("raw reply %q is not a prefix of the input", raw)
		}
	})
}
