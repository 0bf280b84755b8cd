package server

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Differential tests of blocked clients: each scenario runs against our
// server and a real redis-server 7.0.15 side by side. Every command's reply
// is compared, and after every command of the controlling connection the
// set of blocked clients is compared too; a client
// that Redis unblocked must have been answered the same by both. Each read
// from a blocked client is bounded by blockDeadline, so a client left
// waiting is a failure, not a hung test.

const blockDeadline = 10 * time.Second

// blockPair drives named connections to both servers; "ctl" is the
// controlling connection, "obs" (never named in scenarios) reads CLIENT
// LIST and INFO, so that it works while ctl is inside MULTI.
type blockPair struct {
	t       *testing.T
	p       *diffPair
	conns   map[string][2]*respConn // [ours, redis]
	ids     map[string][2]string    // CLIENT ID of each
	blocked map[string]bool         // named connections both count as blocked
}

func newBlockPair(t *testing.T, args ...string) *blockPair {
	t.Helper()
	p := newDiffPair(t, args...)
	b := &blockPair{t: t, p: p, conns: map[string][2]*respConn{}, ids: map[string][2]string{}, blocked: map[string]bool{}}
	b.conns["ctl"] = [2]*respConn{p.oc[0], p.rc[0]}
	b.conns["obs"] = [2]*respConn{dial(t, p.ours.addr), dial(t, p.real.addr)}
	return b
}

func (b *blockPair) conn(name string) [2]*respConn {
	b.t.Helper()
	cs, ok := b.conns[name]
	if !ok {
		cs = [2]*respConn{dial(b.t, b.p.ours.addr), dial(b.t, b.p.real.addr)}
		b.conns[name] = cs
		b.ids[name] = [2]string{strings.TrimSpace(strings.TrimPrefix(cs[0].do("CLIENT", "ID"), ":")),
			strings.TrimSpace(strings.TrimPrefix(cs[1].do("CLIENT", "ID"), ":"))}
	}
	return cs
}

// on runs a command on connection name of both servers, compares the
// replies and then the blocked clients (see sync). It returns Redis's
// reply.
func (b *blockPair) on(name string, args ...string) string {
	b.t.Helper()
	cs := b.conn(name)
	got, want := cs[0].do(args...), cs[1].do(args...)
	if got != want {
		b.t.Fatalf("%s: %q:\n ours:  %q\n redis: %q", name, args, got, want)
	}
	b.sync(fmt.Sprintf("after %q", args))
	return want
}

// do runs a command on the controlling connection (see on).
func (b *blockPair) do(args ...string) string {
	b.t.Helper()
	return b.on("ctl", args...)
}

// block sends a command that must block on both servers and waits until
// both count it as blocked.
func (b *blockPair) block(name string, args ...string) {
	b.t.Helper()
	cs := b.conn(name)
	cs[0].send(args...)
	cs[1].send(args...)
	deadline := time.Now().Add(blockDeadline)
	for {
		o, r := b.blockedSet(0), b.blockedSet(1)
		if o[name] && r[name] {
			break
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s %q did not block: ours blocked=%v, redis blocked=%v", name, args, o[name], r[name])
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.blocked[name] = true
}

// blockedSet maps the named connections server i counts as blocked: for
// Redis, those CLIENT LIST flags b; for ours, those flagged blocked (read
// under the lock: CLIENT LIST reads other connections' buffers unlocked,
// which the race detector reports while they come and go).
func (b *blockPair) blockedSet(i int) map[string]bool {
	b.t.Helper()
	ids := map[string]bool{}
	if i == 0 {
		s := b.p.ours.s
		s.mu.Lock()
		for id, c := range s.clients {
			if c.flags&flagBlocked != 0 {
				ids[strconv.FormatInt(id, 10)] = true
			}
		}
		s.mu.Unlock()
		return b.named(ids, i)
	}
	list := bulkText(b.conns["obs"][i].do("CLIENT", "LIST"))
	for _, line := range strings.Split(list, "\n") {
		var id, flags string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "id="); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(f, "flags="); ok {
				flags = v
			}
		}
		if strings.Contains(flags, "b") {
			ids[id] = true
		}
	}
	return b.named(ids, i)
}

// named maps the client IDs of server i to connection names.
func (b *blockPair) named(ids map[string]bool, i int) map[string]bool {
	out := map[string]bool{}
	for name, id := range b.ids {
		if ids[id[i]] {
			out[name] = true
		}
	}
	return out
}

// sync compares which named clients each server still blocks, and reads
// and compares the replies of those both just unblocked.
func (b *blockPair) sync(when string) {
	b.t.Helper()
	o, r := b.blockedSet(0), b.blockedSet(1)
	var names []string
	for name := range b.blocked {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if o[name] != r[name] {
			b.t.Fatalf("%s: client %s blocked: ours %v, redis %v", when, name, o[name], r[name])
		}
		if !r[name] {
			b.served(name)
		}
	}
}

// served reads the reply of a client that was blocked from both servers,
// within blockDeadline, and compares them.
func (b *blockPair) served(name string) string {
	b.t.Helper()
	cs := b.conns[name]
	var replies [2]string
	for i, c := range cs {
		c.nc.SetReadDeadline(time.Now().Add(blockDeadline))
		raw, err := readRaw(c.br)
		if err != nil {
			b.t.Fatalf("%s (%s): no reply from the blocked client within %v: %v", name, [2]string{"ours", "redis"}[i], blockDeadline, err)
		}
		replies[i] = raw
	}
	if replies[0] != replies[1] {
		b.t.Fatalf("blocked client %s answered:\n ours:  %q\n redis: %q", name, replies[0], replies[1])
	}
	delete(b.blocked, name)
	return replies[1]
}

// still checks that both servers still block the named clients.
func (b *blockPair) still(names ...string) {
	b.t.Helper()
	o, r := b.blockedSet(0), b.blockedSet(1)
	for _, name := range names {
		if !o[name] || !r[name] {
			b.t.Fatalf("client %s should still be blocked: ours %v, redis %v", name, o[name], r[name])
		}
	}
}

// unblock runs CLIENT UNBLOCK <id of name> [how] on the controlling
// connection of each server and compares the replies.
func (b *blockPair) unblock(name string, how ...string) {
	b.t.Helper()
	b.perID("CLIENT UNBLOCK", name, func(id string) []string { return append([]string{"CLIENT", "UNBLOCK", id}, how...) })
}

// kill runs CLIENT KILL ID <id of name>; the killed connection must be
// closed by both servers.
func (b *blockPair) kill(name string) {
	b.t.Helper()
	delete(b.blocked, name)
	b.perID("CLIENT KILL", name, func(id string) []string { return []string{"CLIENT", "KILL", "ID", id} })
	for i, c := range b.conns[name] {
		c.nc.SetReadDeadline(time.Now().Add(blockDeadline))
		if raw, err := readRaw(c.br); err == nil {
			b.t.Fatalf("killed client %s (%s) got %q", name, [2]string{"ours", "redis"}[i], raw)
		}
	}
	delete(b.conns, name)
	delete(b.ids, name)
}

func (b *blockPair) perID(what, name string, argv func(id string) []string) {
	b.t.Helper()
	ctl := b.conns["ctl"]
	got, want := ctl[0].do(argv(b.ids[name][0])...), ctl[1].do(argv(b.ids[name][1])...)
	if got != want {
		b.t.Fatalf("%s %s:\n ours:  %q\n redis: %q", what, name, got, want)
	}
	b.sync(what + " " + name)
}

var usecFields = regexp.MustCompile(`usec=[^,]*,usec_per_call=[^,]*,`)

// stats compares INFO commandstats of the named commands, INFO errorstats
// and total_error_replies.
func (b *blockPair) stats(cmds ...string) {
	b.t.Helper()
	ctl := b.conns["obs"]
	var got, want []string
	for i, out := range []*[]string{&got, &want} {
		cs := bulkText(ctl[i].do("INFO", "commandstats"))
		for _, line := range strings.Split(cs, "\r\n") {
			for _, name := range cmds {
				if strings.HasPrefix(line, "cmdstat_"+name+":") {
					*out = append(*out, usecFields.ReplaceAllString(line, ""))
				}
			}
		}
		for _, line := range strings.Split(bulkText(ctl[i].do("INFO", "errorstats")), "\r\n") {
			if strings.HasPrefix(line, "errorstat_") {
				*out = append(*out, line)
			}
		}
		for _, line := range strings.Split(bulkText(ctl[i].do("INFO", "stats")), "\r\n") {
			if strings.HasPrefix(line, "total_error_replies:") {
				*out = append(*out, line)
			}
		}
		sort.Strings(*out)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		b.t.Fatalf("stats differ:\n ours:\n  %s\n redis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// finish checks no client is left blocked on one server only and compares
// the datasets.
func (b *blockPair) finish() {
	b.t.Helper()
	b.sync("at the end")
	if len(b.blocked) == 0 {
		// Nobody waits any more: nothing may be left of the waiters
		// (killed, timed out, unblocked or served).
		s := b.p.ours.s
		s.mu.Lock()
		n, ready, queued := s.blocking.n, len(s.blocking.ready), len(s.blocking.queued)
		keys := 0
		for _, m := range s.blocking.byKey {
			keys += len(m)
		}
		s.mu.Unlock()
		if n != 0 || ready != 0 || queued != 0 || keys != 0 {
			b.t.Fatalf("waiters left behind: %d blocked, %d keys waited on, %d ready, %d queued", n, keys, ready, queued)
		}
	}
	b.p.checkDigest()
}

// scenarios runs each scenario as a subtest on fresh servers.
func runBlockScenarios(t *testing.T, scenarios []blockScenario) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			b := newBlockPair(t)
			sc.run(b)
			b.finish()
		})
	}
}

type blockScenario struct {
	name string
	run  func(b *blockPair)
}

func TestDiffBlockingListKeyChanges(t *testing.T) {
	runBlockScenarios(t, []blockScenario{
		{"brpoplpush-dst-wrongtype", func(b *blockPair) {
			b.do("SET", "dst", "x")
			b.block("c1", "BRPOPLPUSH", "src", "dst", "0")
			b.do("RPUSH", "src", "a")
			b.do("LRANGE", "src", "0", "-1")
			b.stats("brpoplpush", "rpush")
		}},
		{"blmove-dst-wrongtype", func(b *blockPair) {
			b.do("SET", "dst", "x")
			b.block("c1", "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
			b.block("c2", "BLPOP", "src", "0")
			b.do("RPUSH", "src", "a")
			b.do("EXISTS", "src")
			b.stats("blmove", "blpop")
		}},
		{"set-over-awaited-key", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			b.block("c2", "BLMOVE", "l", "d", "LEFT", "LEFT", "0")
			b.do("SET", "l", "x")
			b.still("c1", "c2")
			b.do("DEL", "l")
			b.do("RPUSH", "l", "a", "b")
			b.do("LRANGE", "d", "0", "-1")
		}},
		{"multi-push-then-pop", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			b.do("MULTI")
			b.do("RPUSH", "l", "a", "b")
			b.do("LPOP", "l")
			b.do("EXEC")
			b.do("EXISTS", "l")
		}},
		{"multi-push-then-delete", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			b.do("MULTI")
			b.do("RPUSH", "l", "a")
			b.do("DEL", "l")
			b.do("SET", "l", "s")
			b.do("EXEC")
			b.still("c1")
			b.unblock("c1", "TIMEOUT")
			b.stats("blpop")
		}},
		{"list-and-zset-waiters", func(b *blockPair) {
			b.block("c1", "BLPOP", "k", "0")
			b.block("c2", "BZPOPMIN", "k", "0")
			b.block("c3", "BLMPOP", "0", "1", "k", "LEFT")
			b.do("ZADD", "k", "1", "m")
			b.still("c1", "c3")
			b.do("RPUSH", "k", "a", "b")
		}},
		{"flush", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			b.do("FLUSHALL")
			b.do("FLUSHDB")
			b.still("c1")
			b.do("RPUSH", "l", "a")
		}},
		{"swapdb", func(b *blockPair) {
			b.do("SELECT", "1")
			b.do("RPUSH", "l", "a", "b")
			b.do("ZADD", "z", "1", "m")
			b.do("SELECT", "0")
			b.block("c1", "BLPOP", "l", "0")
			b.block("c2", "BZPOPMAX", "z", "0")
			b.block("c3", "BLPOP", "none", "0")
			b.do("SWAPDB", "0", "1")
			b.still("c3")
			b.do("DBSIZE")
			b.do("SWAPDB", "0", "1")
			b.unblock("c3")
		}},
		{"rename-move-copy", func(b *blockPair) {
			b.block("c1", "BLPOP", "l1", "0")
			b.block("c2", "BLPOP", "l2", "0")
			b.block("c3", "BLPOP", "l3", "0")
			b.block("c4", "BZPOPMIN", "z", "0")
			b.do("RPUSH", "tmp", "a")
			b.do("RENAME", "tmp", "l1")
			b.do("SELECT", "3")
			b.do("RPUSH", "l2", "b")
			b.do("MOVE", "l2", "0")
			b.do("SELECT", "0")
			b.do("RPUSH", "src", "c", "d")
			b.do("COPY", "src", "l3")
			b.do("ZADD", "zz", "2", "n")
			b.do("RENAME", "zz", "z")
		}},
		{"restore-sort-store", func(b *blockPair) {
			b.block("c1", "BLPOP", "l1", "0")
			b.block("c2", "BLPOP", "l2", "0")
			b.block("c3", "BZPOPMIN", "z", "0")
			b.do("RPUSH", "t", "a")
			dump := bulkText(b.do("DUMP", "t"))
			b.do("RESTORE", "l1", "0", dump)
			b.do("RPUSH", "nums", "3", "1", "2")
			b.do("SORT", "nums", "STORE", "l2")
			b.do("ZADD", "z1", "1", "a")
			b.do("ZUNIONSTORE", "z", "1", "z1")
		}},
		{"script-push", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			b.do("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b') return 1", "1", "l")
			b.do("LRANGE", "l", "0", "-1")
		}},
		{"blmove-chain", func(b *blockPair) {
			b.block("c1", "BLMOVE", "a", "b", "RIGHT", "LEFT", "0")
			b.block("c2", "BRPOPLPUSH", "b", "c", "0")
			b.block("c3", "BLPOP", "c", "0")
			b.do("RPUSH", "a", "x")
			b.do("EXISTS", "a", "b", "c")
		}},
		{"blmove-same-key", func(b *blockPair) {
			b.block("c1", "BLMOVE", "l", "l", "RIGHT", "LEFT", "0")
			b.do("RPUSH", "l", "a", "b")
			b.do("LRANGE", "l", "0", "-1")
		}},
		{"circular-brpoplpush", func(b *blockPair) {
			b.block("c1", "BRPOPLPUSH", "l1", "l2", "0")
			b.block("c2", "BRPOPLPUSH", "l2", "l1", "0")
			b.do("RPUSH", "l1", "foo")
			b.do("LRANGE", "l1", "0", "-1")
			b.do("EXISTS", "l2")
		}},
		{"served-move-touches-watch", func(b *blockPair) {
			b.do("SET", "somekey", "v")
			b.block("c1", "BRPOPLPUSH", "src", "dst", "0")
			b.on("w", "WATCH", "dst")
			b.on("w", "MULTI")
			b.on("w", "GET", "somekey")
			b.do("LPUSH", "src", "e")
			b.on("w", "EXEC")
		}},
		{"pipelined-push-then-block-keeps-fifo", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0")
			cs := b.conn("c2")
			for _, c := range cs {
				c.nc.Write(appendMultibulk(appendMultibulk(nil, "LPUSH", "l", "1"), "BLPOP", "l", "0"))
			}
			b.blocked["c2"] = true
			b.served("c1")
			if o, r := cs[0].read(), cs[1].read(); o != r {
				b.t.Fatalf("LPUSH: ours %q, redis %q", o, r)
			}
			b.still("c2")
			b.do("LPUSH", "l", "2")
		}},
		{"nested-unblock-order", func(b *blockPair) {
			b.block("c1", "BLMPOP", "0", "2", "l1", "l2", "LEFT", "COUNT", "1")
			b.block("c2", "BLPOP", "l2", "0")
			b.block("c3", "BLMPOP", "0", "2", "l2", "l3", "LEFT", "COUNT", "1")
			b.do("MULTI")
			b.do("LPUSH", "l1", "1")
			b.do("LPUSH", "l2", "2")
			b.do("LPUSH", "l3", "3")
			b.do("EXEC")
		}},
		{"swapdb-key-expired", func(b *blockPair) {
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
			b.do("SELECT", "1")
			b.do("RPUSH", "k", "hello")
			b.do("PEXPIRE", "k", "1")
			b.on("c1", "SELECT", "9")
			b.block("c1", "BRPOP", "k", "0")
			b.do("DEBUG", "SLEEP", "0.01")
			b.do("SWAPDB", "1", "9")
			b.still("c1")
			b.unblock("c1")
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
		}},
		{"multi-push-expired-key", func(b *blockPair) {
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
			b.block("c1", "BRPOP", "k", "0")
			b.do("MULTI")
			b.do("RPUSH", "k", "hello")
			b.do("PEXPIRE", "k", "1")
			b.do("DEBUG", "SLEEP", "0.01")
			b.do("EXEC")
			b.still("c1")
			b.unblock("c1")
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
		}},
		{"blmpop-skips-wrongtype", func(b *blockPair) {
			b.block("c1", "BLMPOP", "0", "2", "x", "y", "LEFT", "COUNT", "5")
			b.do("SET", "x", "str")
			b.still("c1")
			b.do("RPUSH", "y", "1", "2")
		}},
	})
}

func TestDiffBlockingUnblockAndTimeout(t *testing.T) {
	cmds := [][]string{
		{"BLPOP", "l", "0"},
		{"BRPOPLPUSH", "l", "d", "0"},
		{"BLMOVE", "l", "d", "LEFT", "RIGHT", "0"},
		{"BLMPOP", "0", "1", "l", "LEFT"},
		{"BZPOPMIN", "z", "0"},
		{"BZMPOP", "0", "1", "z", "MAX"},
		{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"},
		{"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"},
		{"WAIT", "1", "0"},
	}
	var scenarios []blockScenario
	for _, how := range [][]string{nil, {"TIMEOUT"}, {"ERROR"}} {
		scenarios = append(scenarios, blockScenario{"client-unblock" + strings.Join(how, ""), func(b *blockPair) {
			b.do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
			for _, c := range cmds {
				b.block("c", c...)
				b.unblock("c", how...)
			}
			b.stats("blpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzmpop", "xread", "xreadgroup", "wait")
		}})
	}
	scenarios = append(scenarios,
		blockScenario{"timeouts", func(b *blockPair) {
			b.do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
			for _, c := range cmds {
				c = append([]string(nil), c...)
				switch c[0] {
				case "BLMPOP", "BZMPOP":
					c[1] = "0.05"
				case "XREAD", "XREADGROUP":
					c[len(c)-4] = "50"
				case "WAIT":
					c[2] = "50"
				default:
					c[len(c)-1] = "0.05"
				}
				cs := b.conn("c")
				cs[0].send(c...)
				cs[1].send(c...)
				b.blocked["c"] = true
				b.served("c")
			}
			b.stats("blpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzmpop", "xread", "xreadgroup", "wait")
		}},
		blockScenario{"timeout-while-paused", func(b *blockPair) {
			b.block("c1", "BLPOP", "l", "0.2")
			b.block("c2", "XREAD", "BLOCK", "200", "STREAMS", "s", "$")
			b.do("CLIENT", "PAUSE", "60000", "WRITE")
			b.served("c1")
			b.served("c2")
			b.do("CLIENT", "UNPAUSE")
			// Under PAUSE ALL no command of ctl runs: only the reply
			// of the blocked client is checked.
			b.block("c3", "BZPOPMIN", "z", "0.2")
			ctl := b.conns["ctl"]
			for _, c := range ctl {
				c.send("CLIENT", "PAUSE", "1500", "ALL")
			}
			b.served("c3")
			for i, c := range ctl {
				if r := c.read(); r != "+OK\r\n" {
					b.t.Fatalf("CLIENT PAUSE (%d): %q", i, r)
				}
			}
			b.do("PING")
		}},
		blockScenario{"client-kill", func(b *blockPair) {
			b.do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
			for i, c := range cmds {
				name := fmt.Sprintf("k%d", i)
				b.block(name, c...)
				b.kill(name)
			}
			b.do("RPUSH", "l", "a")
			b.do("ZADD", "z", "1", "m")
			b.do("XADD", "s", "1-1", "f", "v")
			b.do("LLEN", "l")
			b.do("ZCARD", "z")
			b.do("XPENDING", "s", "g")
			b.do("EXISTS", "d")
			b.stats("blpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzmpop", "xread", "xreadgroup", "wait")
		}},
		blockScenario{"kill-then-push-at-once", func(b *blockPair) {
			// The push right after CLIENT KILL must not be handed to the
			// killed client.
			for i := 0; i < 20; i++ {
				l := fmt.Sprintf("l%d", i)
				b.block("k", "BLPOP", l, "0")
				b.kill("k")
				b.do("RPUSH", l, "a")
				b.do("LLEN", l)
			}
		}},
	)
	runBlockScenarios(t, scenarios)
}

func TestDiffBlockingStreamKeyChanges(t *testing.T) {
	group := func(b *blockPair, keys ...string) {
		for _, k := range keys {
			b.do("XGROUP", "CREATE", k, "g", "$", "MKSTREAM")
		}
	}
	xrg := []string{"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"}
	xr := []string{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}
	runBlockScenarios(t, []blockScenario{
		{"xgroup-destroy", func(b *blockPair) {
			b.do("CONFIG", "RESETSTAT")
			group(b, "s")
			b.block("c1", xrg...)
			b.do("XGROUP", "DESTROY", "s", "g")
			b.stats("xreadgroup", "xgroup|destroy")
		}},
		{"xgroup-destroy-other-stream", func(b *blockPair) {
			group(b, "s", "t")
			b.block("c1", "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "t", "s", ">", ">")
			b.do("XGROUP", "DESTROY", "s", "g")
			b.stats("xreadgroup")
		}},
		{"del", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.block("c2", xr...)
			b.do("DEL", "s")
			b.still("c2")
			b.do("XADD", "s", "5-1", "f", "v")
			b.stats("xreadgroup", "xread")
		}},
		{"set-over-stream", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.block("c2", xr...)
			b.do("SET", "s", "x")
			b.still("c2")
			b.do("DEL", "s")
			b.do("XADD", "s", "5-1", "f", "v")
		}},
		{"type-change-in-multi", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("MULTI")
			b.do("DEL", "s")
			b.do("SADD", "s", "e")
			b.do("EXEC")
		}},
		{"recreated-in-multi", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("MULTI")
			b.do("DEL", "s")
			b.do("XADD", "s", "1-1", "f", "v")
			b.do("EXEC")
		}},
		{"flushall", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.block("c2", xr...)
			b.do("FLUSHALL")
			b.still("c2")
			b.unblock("c2")
		}},
		{"flushdb", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("FLUSHDB")
		}},
		{"swapdb-no-key", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("SWAPDB", "0", "9")
		}},
		{"swapdb-not-stream", func(b *blockPair) {
			group(b, "s")
			b.do("SELECT", "9")
			b.do("SET", "s", "x")
			b.do("SELECT", "0")
			b.block("c1", xrg...)
			b.do("SWAPDB", "0", "9")
		}},
		{"swapdb-stream-with-data", func(b *blockPair) {
			group(b, "s")
			b.do("SELECT", "9")
			b.do("XADD", "s", "1-1", "f", "v")
			b.do("XGROUP", "CREATE", "s", "g", "0")
			b.do("XADD", "s2", "1-1", "f", "v")
			b.do("SELECT", "0")
			b.block("c1", xrg...)
			b.block("c2", "XREAD", "BLOCK", "0", "STREAMS", "s2", "0-0")
			b.do("SWAPDB", "0", "9")
		}},
		{"swapdb-stream-no-group", func(b *blockPair) {
			group(b, "s")
			b.do("SELECT", "9")
			b.do("XADD", "s", "1-1", "f", "v")
			b.do("SELECT", "0")
			b.block("c1", xrg...)
			b.do("SWAPDB", "0", "9")
		}},
		{"rename-and-move", func(b *blockPair) {
			group(b, "s", "t")
			b.block("c1", xrg...)
			b.block("c2", "XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "STREAMS", "t", ">")
			b.do("RENAME", "s", "s2")
			b.do("MOVE", "t", "1")
		}},
		{"rename-onto-awaited", func(b *blockPair) {
			b.block("c1", "XREAD", "BLOCK", "0", "STREAMS", "s", "0-0")
			b.do("XADD", "other", "1-1", "f", "v")
			b.do("RENAME", "other", "s")
		}},
		{"expired", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
			// 100 ms, not 1: a PEXPIRE whose own run passes its time
			// deletes the key at once (checkAlreadyExpired), and on a
			// loaded machine ours was once held off its CPU for 1 ms.
			b.do("PEXPIRE", "s", "100")
			b.do("DEBUG", "SLEEP", "0.2")
			b.do("EXISTS", "s") // expires s
			b.do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
		}},
		{"active-expired", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.block("c2", "BLPOP", "l", "0")
			// Not b.do: its comparison of the blocked clients would race
			// with either server's cron deleting s.
			for _, c := range b.conn("ctl") {
				if r := c.do("PEXPIRE", "s", "1"); r != ":1\r\n" {
					b.t.Fatalf("PEXPIRE: %q", r)
				}
			}
			// The cron deletes s, outside any command: c1 must be
			// answered all the same.
			deadline := time.Now().Add(blockDeadline)
			for {
				o, r := b.blockedSet(0), b.blockedSet(1)
				if !o["c1"] && !r["c1"] {
					break
				}
				if time.Now().After(deadline) {
					b.t.Fatalf("c1 still blocked after its stream expired: ours %v, redis %v", o["c1"], r["c1"])
				}
				time.Sleep(5 * time.Millisecond)
			}
			b.served("c1")
			b.do("RPUSH", "l", "a")
		}},
		{"setid-and-delconsumer", func(b *blockPair) {
			group(b, "s")
			b.do("XADD", "s", "1-1", "f", "v")
			b.do("XREADGROUP", "GROUP", "g", "x", "STREAMS", "s", ">")
			b.block("c1", xrg...)
			b.do("XGROUP", "SETID", "s", "g", "0")
			b.do("XGROUP", "DELCONSUMER", "s", "g", "alice")
			b.still("c1")
			b.do("XADD", "s", "2-1", "f", "v")
			b.do("XPENDING", "s", "g")
		}},
		{"served-in-multi", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.block("c2", xr...)
			b.do("MULTI")
			b.do("XADD", "s", "1-1", "a", "1")
			b.do("XADD", "s", "2-1", "b", "2")
			b.do("EXEC")
			b.stats("xreadgroup", "xread")
		}},
		{"rename-with-group-and-data", func(b *blockPair) {
			group(b, "s", "s2")
			b.block("c1", xrg...)
			b.do("XADD", "s2", "100", "f1", "v1")
			b.do("RENAME", "s2", "s")
		}},
		{"rename-without-group", func(b *blockPair) {
			group(b, "s")
			b.block("c1", xrg...)
			b.do("XADD", "s2", "100", "f1", "v1")
			b.do("RENAME", "s2", "s")
		}},
		{"ran-dry", func(b *blockPair) {
			group(b, "s")
			b.do("XADD", "s", "666", "k", "v")
			b.do("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
			b.do("XADD", "s", "667", "k", "v")
			b.do("XDEL", "s", "667")
			b.block("c1", xrg...)
			b.do("XADD", "s", "668", "k", "v")
		}},
		{"xread-add-del-in-multi", func(b *blockPair) {
			b.block("c1", xr...)
			b.do("MULTI")
			b.do("XADD", "s", "1-1", "old", "x")
			b.do("DEL", "s")
			b.do("LPUSH", "s", "foo")
			b.do("EXEC")
			b.still("c1")
			b.do("DEL", "s")
			b.do("XADD", "s", "2-1", "new", "x")
		}},
		{"xread-id-edge", func(b *blockPair) {
			b.block("c1", "XREAD", "BLOCK", "0", "STREAMS", "x1", "1-18446744073709551615")
			b.do("XADD", "x1", "1-1", "f", "v")
			b.still("c1")
			b.do("XADD", "x1", "2-1", "f", "v")
		}},
		{"two-groups-one-destroyed", func(b *blockPair) {
			group(b, "s")
			b.do("XGROUP", "CREATE", "s", "h", "$")
			b.block("c1", xrg...)
			b.block("c2", "XREADGROUP", "GROUP", "h", "bob", "BLOCK", "0", "STREAMS", "s", ">")
			b.block("c3", xrg...)
			b.do("XGROUP", "DESTROY", "s", "g")
			b.still("c2")
			b.do("XADD", "s", "1-1", "f", "v")
		}},
	})
}

func TestDiffBlockingZsetKeyChanges(t *testing.T) {
	runBlockScenarios(t, []blockScenario{
		{"set-over-awaited-key", func(b *blockPair) {
			b.block("c1", "BZPOPMIN", "z", "0")
			b.block("c2", "BZMPOP", "0", "1", "z", "MIN", "COUNT", "3")
			b.do("SET", "z", "x")
			b.still("c1", "c2")
			b.do("DEL", "z")
			b.do("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d")
			b.do("ZRANGE", "z", "0", "-1")
		}},
		{"multi-add-then-remove", func(b *blockPair) {
			b.block("c1", "BZPOPMAX", "z", "0")
			b.do("MULTI")
			b.do("ZADD", "z", "1", "a")
			b.do("ZREM", "z", "a")
			b.do("EXEC")
			b.still("c1")
			b.do("MULTI")
			b.do("ZADD", "z", "1", "a", "2", "b")
			b.do("ZPOPMAX", "z")
			b.do("EXEC")
		}},
		{"geo-store", func(b *blockPair) {
			b.block("c1", "BZPOPMIN", "g", "0")
			b.do("GEOADD", "src", "13.361389", "38.115556", "Palermo")
			b.do("GEOSEARCHSTORE", "g", "src", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km")
		}},
		{"bzmpop-non-key-arguments", func(b *blockPair) {
			b.block("c1", "BZMPOP", "0", "1", "z", "MIN", "COUNT", "10")
			b.block("c2", "BZMPOP", "0", "2", "z2", "z3", "MAX", "COUNT", "10")
			for _, k := range []string{"0", "1", "2", "min", "max", "count", "10"} {
				b.do("ZADD", k, "100", "v")
			}
			b.still("c1", "c2")
			b.do("ZADD", "z", "1", "a")
			b.do("ZADD", "z3", "1", "b")
		}},
		{"more-waiters-than-members", func(b *blockPair) {
			b.block("c1", "BZPOPMIN", "z", "0")
			b.block("c2", "BZMPOP", "0", "1", "z", "MAX", "COUNT", "2")
			b.block("c3", "BZPOPMAX", "z", "0")
			b.do("ZADD", "z", "1", "a", "2", "b")
			b.still("c3")
			b.unblock("c3", "ERROR")
			b.stats("bzpopmin", "bzpopmax", "bzmpop")
		}},
	})
}

// The blocked-client checks above must notice a client one server leaves
// blocked.
func TestDiffBlockingHarnessDetectsStuckClient(t *testing.T) {
	b := newBlockPair(t)
	b.block("c1", "BLPOP", "l", "0")
	// Unblock only on real Redis.
	b.conns["ctl"][1].do("RPUSH", "l", "a")
	o, r := b.blockedSet(0), b.blockedSet(1)
	if !o["c1"] || r["c1"] {
		t.Fatalf("blocked sets: ours %v, redis %v", o, r)
	}
	b.conns["ctl"][0].do("RPUSH", "l", "a")
	b.served("c1")
}
