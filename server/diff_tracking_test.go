package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Differential tests of CLIENT TRACKING (tracking.tcl), CLIENT PAUSE
// (pause.tcl) and the connection commands of introspection.tcl against a
// real redis-server 7.0.15. Scenarios drive named connections to both
// servers; every reply, pushes included, must match once client IDs are
// replaced by the connection's name. Reads wait for a reply with a
// deadline (a missing invalidation fails, it does not hang).

type connPair struct {
	t     *testing.T
	p     *diffPair
	conns map[string][2]*respConn
	ids   map[string][2]string
	order []string
}

func newConnPair(t *testing.T, args ...string) *connPair {
	t.Helper()
	p := newDiffPair(t, args...)
	// Registered (its ID taken) before any named connection, so that
	// CLIENT LIST orders the clients alike.
	p.oc[0].do("PING")
	p.rc[0].do("PING")
	return &connPair{t: t, p: p, conns: map[string][2]*respConn{}, ids: map[string][2]string{}}
}

func (m *connPair) conn(name string) [2]*respConn {
	m.t.Helper()
	cs, ok := m.conns[name]
	if !ok {
		cs = [2]*respConn{dial(m.t, m.p.ours.addr), dial(m.t, m.p.real.addr)}
		m.conns[name] = cs
		m.ids[name] = [2]string{strings.TrimSpace(strings.TrimPrefix(cs[0].do("CLIENT", "ID"), ":")),
			strings.TrimSpace(strings.TrimPrefix(cs[1].do("CLIENT", "ID"), ":"))}
		m.order = append(m.order, name)
	}
	return cs
}

// norm replaces server i's client IDs by the connections' names.
func (m *connPair) norm(raw string, i int) string {
	for _, n := range m.order {
		id := m.ids[n][i]
		for _, before := range []string{"redirect\r\n", "tracking-redir-broken\r\n"} {
			raw = strings.ReplaceAll(raw, before+":"+id+"\r\n", before+":<"+n+">\r\n")
		}
		raw = strings.ReplaceAll(raw, "redir="+id+" ", "redir=<"+n+"> ")
	}
	return raw
}

func (m *connPair) compare(what string, got, want string) string {
	m.t.Helper()
	got, want = m.norm(got, 0), m.norm(want, 1)
	if got != want {
		m.t.Fatalf("%s:\n ours:  %q\n redis: %q", what, got, want)
	}
	return want
}

// on runs a command on connection name of both servers and compares.
func (m *connPair) on(name string, args ...string) string {
	m.t.Helper()
	cs := m.conn(name)
	return m.compare(name+" "+strings.Join(args, " "), cs[0].do(args...), cs[1].do(args...))
}

// onf runs a command built per server from the IDs of the connections
// (REDIRECT <id>, CLIENT UNBLOCK <id>).
func (m *connPair) onf(name string, build func(id func(string) string) []string) string {
	m.t.Helper()
	cs := m.conn(name)
	var out [2]string
	for i := 0; i < 2; i++ {
		argv := build(func(n string) string { m.conn(n); return m.ids[n][i] })
		out[i] = cs[i].do(argv...)
	}
	return m.compare(name+" (per-server command)", out[0], out[1])
}

func (m *connPair) send(name string, args ...string) {
	m.t.Helper()
	cs := m.conn(name)
	cs[0].send(args...)
	cs[1].send(args...)
}

// read reads one reply (or push) from both and compares.
func (m *connPair) read(name string) string {
	m.t.Helper()
	cs := m.conn(name)
	return m.compare(name+" read", cs[0].read(), cs[1].read())
}

// hello3 switches name to RESP3 on both (HELLO's reply holds the ID).
func (m *connPair) hello3(name string) {
	m.t.Helper()
	for _, c := range m.conn(name) {
		if got := c.do("HELLO", "3"); !strings.Contains(got, "proto\r\n:3\r\n") {
			m.t.Fatalf("HELLO 3: %q", got)
		}
	}
}

// getredir compares CLIENT GETREDIR, an ID or 0 / -1.
func (m *connPair) getredir(name string) {
	m.t.Helper()
	cs := m.conn(name)
	var got [2]string
	for i := range cs {
		got[i] = cs[i].do("CLIENT", "GETREDIR")
		for _, n := range m.order {
			if got[i] == ":"+m.ids[n][i]+"\r\n" {
				got[i] = "<" + n + ">"
			}
		}
	}
	if got[0] != got[1] {
		m.t.Fatalf("CLIENT GETREDIR: ours %q, redis %q", got[0], got[1])
	}
}

// quiet checks that nothing is waiting on name's connection: the next
// reply is the PING's.
func (m *connPair) quiet(name string) {
	m.t.Helper()
	m.on(name, "PING", "quiet")
}

// waitGone waits until key has expired on both servers.
func (m *connPair) waitGone(name, key string) {
	m.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i, c := range m.conn(name) {
		for c.do("EXISTS", key) != ":0\r\n" {
			if time.Now().After(deadline) {
				m.t.Fatalf("server %d: %s never expired", i, key)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// quit sends QUIT on name and waits until both servers freed the client
// (ours may write +OK a moment before it unregisters the connection).
func (m *connPair) quit(name string) {
	m.t.Helper()
	m.on(name, "QUIT")
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 2; i++ {
		for strings.Contains(m.conn("info")[i].do("CLIENT", "LIST", "ID", m.ids[name][i]), "id=") {
			if time.Now().After(deadline) {
				m.t.Fatalf("server %d: %s still connected after QUIT", i, name)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// waitBlocked waits until both servers report n blocked clients.
func (m *connPair) waitBlocked(obs string, n int) {
	m.t.Helper()
	want := "blocked_clients:" + itoa(int64(n)) + "\r\n"
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 2; i++ {
		for !strings.Contains(m.conn(obs)[i].do("INFO", "clients"), want) {
			if time.Now().After(deadline) {
				m.t.Fatalf("server %d never reached %q", i, want)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func (m *connPair) info(field string) {
	m.t.Helper()
	re := regexp.MustCompile(field + `:(\d+)`)
	var got [2]string
	for i := 0; i < 2; i++ {
		got[i] = re.FindString(m.conn("info")[i].do("INFO"))
	}
	if got[0] != got[1] || got[1] == "" {
		m.t.Fatalf("INFO %s: ours %q, redis %q", field, got[0], got[1])
	}
}

// trackingRedirect is tracking.tcl's set-up: "redir" subscribed to
// __redis__:invalidate, "r" tracking, "sg" modifying keys.
func trackingRedirect(m *connPair) {
	m.conn("redir")
	m.on("redir", "SUBSCRIBE", "__redis__:invalidate")
}

func TestDiffTrackingRedirectRESP2(t *testing.T) {
	m := newConnPair(t)
	trackingRedirect(m)
	redirect := func(opts ...string) func(id func(string) string) []string {
		return func(id func(string) string) []string {
			return append([]string{"CLIENT", "TRACKING", "on", "REDIRECT", id("redir")}, opts...)
		}
	}
	m.onf("r", redirect())
	m.on("r", "SET", "a{t}", "1")
	m.on("r", "SET", "b{t}", "1")
	m.on("r", "GET", "a{t}")
	m.on("r", "INCR", "b{t}")
	m.on("r", "INCR", "a{t}")
	m.read("redir")
	m.on("r", "MGET", "a{t}", "b{t}", "c{t}", "d{t}")
	m.on("r", "CLIENT", "TRACKING", "off")
	// BCAST with the empty prefix, then with prefixes (one message per prefix)
	m.onf("r", redirect("BCAST"))
	m.on("r", "MSET", "a{t}", "1", "b{t}", "2", "c{t}", "3")
	m.read("redir")
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect("BCAST", "PREFIX", "a:", "PREFIX", "b:"))
	m.on("r", "MULTI")
	for _, k := range []string{"a:1{t}", "a:2{t}", "b:1{t}", "b:2{t}", "c:1{t}"} {
		m.on("r", "INCR", k)
	}
	m.on("r", "EXEC")
	m.read("redir")
	m.read("redir")
	m.onf("r", redirect("BCAST", "PREFIX", "c:"))
	m.on("r", "INCR", "c:1234")
	m.read("redir")
	// NOLOOP, normal and BCAST
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect("NOLOOP"))
	m.on("r", "MGET", "otherkey1{t}", "loopkey{t}", "otherkey2{t}")
	m.on("sg", "SET", "otherkey1{t}", "1")
	m.on("r", "SET", "loopkey{t}", "1")
	m.on("sg", "SET", "otherkey2{t}", "1")
	m.read("redir")
	m.read("redir")
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect("BCAST", "NOLOOP"))
	m.on("sg", "SET", "otherkey1", "1")
	m.on("r", "SET", "loopkey", "1")
	m.on("sg", "SET", "otherkey2", "1")
	m.read("redir")
	m.read("redir")
	// lazy expiry in a transaction: NOLOOP filters the SET, not the expiry
	m.on("r", "SET", "mykey{t}", "myval", "PX", "1")
	m.on("r", "SET", "mykeyotherkey{t}", "myval")
	m.waitGone("r", "mykey{t}")
	m.read("redir")
	// OPTIN / OPTOUT with CLIENT CACHING
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect("OPTIN"))
	m.on("sg", "SET", "key1", "1")
	m.on("r", "GET", "key1")
	m.on("sg", "SET", "key1", "2")
	m.on("r", "CLIENT", "CACHING", "yes")
	m.on("r", "GET", "key1")
	m.on("sg", "SET", "key1", "3")
	m.read("redir")
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect("OPTOUT"))
	m.on("r", "CLIENT", "CACHING", "no")
	m.on("r", "GET", "key2")
	m.on("r", "GET", "key1")
	m.on("sg", "MSET", "key2", "1", "key1", "4")
	m.read("redir")
	// FLUSHALL / FLUSHDB: a null for everything
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect())
	m.on("r", "GET", "key1")
	m.on("sg", "FLUSHALL")
	m.read("redir")
	m.on("sg", "FLUSHDB")
	m.read("redir")
	// scripts: the declared keys, once the script read something
	m.on("sg", "MSET", "key1", "1", "key2", "1")
	m.on("r", "EVAL", "redis.call('set', 'key3', 'bar')", "2", "key1", "key2")
	m.on("sg", "MSET", "key2", "2", "key1", "2")
	m.on("r", "EVAL", "redis.call('get', 'key3')", "2", "key1", "key2")
	m.on("sg", "MSET", "key2", "2", "key1", "2")
	m.read("redir")
	m.read("redir")
	m.on("r", "EVAL_RO", "redis.call('ping')", "2", "key1", "key2")
	m.on("sg", "MSET", "key2", "2", "key1", "2")
	m.on("r", "EVAL_RO", "redis.call('get', 'key1')", "2", "key1", "key2")
	m.on("sg", "MSET", "key2", "3", "key1", "3")
	m.read("redir")
	m.read("redir")
	m.quiet("redir")
	// the tracking table's limit: keys are dropped and announced
	m.on("r", "CLIENT", "TRACKING", "off")
	m.onf("r", redirect())
	m.on("r", "FLUSHALL")
	m.read("redir")
	for _, k := range []string{"k1", "k2", "k3", "k4"} {
		m.on("r", "GET", k)
	}
	m.info("tracking_total_keys")
	m.info("tracking_total_items")
	m.on("r", "CONFIG", "SET", "tracking-table-max-keys", "1")
	for i := 0; i < 3; i++ {
		for _, cs := range [][2]*respConn{m.conn("redir")} {
			o, r := cs[0].read(), cs[1].read()
			if !strings.HasPrefix(o, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$2\r\nk") ||
				!strings.HasPrefix(r, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$2\r\nk") {
				t.Fatalf("table limit: ours %q, redis %q", o, r)
			}
		}
	}
	m.quiet("redir")
	m.info("tracking_total_keys")
	m.info("tracking_clients")
	// the redirection client goes away: broken_redirect
	m.on("r", "CONFIG", "SET", "tracking-table-max-keys", "1000000")
	m.on("r", "GET", "key1")
	m.quit("redir")
	m.on("sg", "SET", "key1", "5")
	m.on("r", "CLIENT", "TRACKINGINFO")
	m.on("r", "CLIENT", "LIST", "TYPE", "pubsub")
}

func TestDiffTrackingRESP3(t *testing.T) {
	m := newConnPair(t)
	m.conn("r")
	m.conn("sg")
	m.hello3("r")
	m.on("r", "CLIENT", "TRACKING", "on")
	m.on("sg", "SET", "key1", "1")
	m.on("r", "GET", "key1")
	m.on("sg", "SET", "key1", "2")
	m.read("r") // the push, with no request
	// the client's own change: the push follows the reply
	m.on("r", "HSET", "myhash", "f", "1")
	m.on("r", "HGET", "myhash", "f")
	m.on("r", "HDEL", "myhash", "f")
	m.read("r")
	m.on("r", "MSET", "a{t}", "1", "b{t}", "2")
	m.on("r", "GET", "a{t}")
	m.on("r", "MULTI")
	m.on("r", "INCR", "a{t}")
	m.on("r", "GET", "b{t}")
	m.on("r", "EXEC")
	m.read("r")
	m.on("r", "GET", "a{t}")
	m.on("r", "MULTI")
	m.on("r", "FLUSHDB")
	m.on("r", "EXEC")
	m.read("r")
	m.on("sg", "FLUSHALL")
	m.read("r")
	// switching to BCAST: no invalidation of keys read before
	m.on("sg", "SET", "key1", "1")
	m.on("r", "GET", "key1")
	m.on("r", "CLIENT", "TRACKING", "off")
	m.on("r", "CLIENT", "TRACKING", "on", "BCAST")
	m.on("sg", "INCR", "key1")
	m.read("r")
	m.on("r", "SET", "x", "1") // BCAST's own change: after the reply
	m.read("r")
	m.quiet("r")
	// a blocked BLMOVE into a tracked key: the push follows the reply
	m.on("r", "CLIENT", "TRACKING", "off")
	m.hello3("b")
	m.on("b", "CLIENT", "TRACKING", "on")
	m.on("r", "RPUSH", "list2{t}", "a")
	m.on("b", "LRANGE", "list2{t}", "0", "-1")
	m.send("b", "BLMOVE", "list1{t}", "list2{t}", "left", "left", "0")
	m.waitBlocked("r", 1)
	m.on("r", "RPUSH", "list1{t}", "foo")
	m.read("b")
	m.read("b")
	m.quiet("b")
	// a RESP3 redirection target and a broken redirection
	m.hello3("redir")
	m.onf("r", func(id func(string) string) []string {
		return []string{"CLIENT", "TRACKING", "on", "REDIRECT", id("redir")}
	})
	m.on("r", "GET", "key1")
	m.on("sg", "INCR", "key1")
	m.read("redir")
	m.on("r", "GET", "key1")
	m.quit("redir")
	m.on("sg", "INCR", "key1")
	m.read("r")
	m.on("r", "CLIENT", "TRACKINGINFO")
	m.getredir("r")
}

func TestDiffTrackingOptions(t *testing.T) {
	m := newConnPair(t)
	for _, c := range [][]string{
		{"CLIENT", "TRACKINGINFO"}, {"CLIENT", "GETREDIR"}, {"CLIENT", "CACHING", "yes"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOOBAR", "PREFIX", "FOO"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOO", "PREFIX", "FOOBAR"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOO", "PREFIX", "BAR"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FO"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "BARB"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "on"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "on", "PREFIX", "a"},
		{"CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"},
		{"CLIENT", "TRACKING", "on", "OPTIN", "BCAST"},
		{"CLIENT", "TRACKING", "on", "REDIRECT", "999999"},
		{"CLIENT", "TRACKING", "on", "REDIRECT", "abc"},
		{"CLIENT", "TRACKING", "on", "foo"},
		{"CLIENT", "TRACKING", "maybe"},
		{"CLIENT", "TRACKING", "on", "OPTIN", "NOLOOP"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "CACHING", "no"},
		{"CLIENT", "CACHING", "maybe"},
		{"CLIENT", "CACHING", "yes"},
		{"CLIENT", "TRACKINGINFO"},
		{"GET", "k"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "on", "OPTOUT"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "on", "OPTOUT"},
		{"CLIENT", "CACHING", "no"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "PREFIX", "a", "PREFIX", "ab"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "on", "BCAST"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKING", "off", "PREFIX", "a"},
		{"CLIENT", "TRACKING"}, {"CLIENT", "GETREDIR", "x"}, {"CLIENT", "TRACKINGINFO", "x"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "foo", "PREFIX", "bar"},
		{"CLIENT", "TRACKINGINFO"},
	} {
		m.on("r", c...)
	}
	m.on("b", "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "prefix:")
	m.on("sg", "SET", "prefix:key1", "1")
	for _, f := range []string{"tracking_clients", "tracking_total_keys", "tracking_total_items", "tracking_total_prefixes"} {
		m.info(f)
	}
	m.on("r", "RESET")
	m.on("r", "CLIENT", "TRACKINGINFO")
	m.info("tracking_clients")
	m.info("tracking_total_prefixes")
}

// clientListNorm keeps the fields of a CLIENT LIST/INFO line that do not
// depend on addresses, timing or allocation sizes.
func clientListNorm(raw string) string {
	re := regexp.MustCompile(`\b(id|addr|laddr|fd|age|idle|qbuf-free|rbs|rbp|tot-mem|argv-mem|multi-mem|qbuf)=\S*`)
	return re.ReplaceAllString(raw, "$1=*")
}

func TestDiffClientReplyListReset(t *testing.T) {
	m := newConnPair(t)
	m.conn("r")
	cs := m.conn("r")
	// CLIENT REPLY: nothing comes back for OFF, SKIP, or the skipped one
	for _, c := range [][]string{
		{"CLIENT", "REPLY", "OFF"}, {"PING", "1"}, {"SET"}, {"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "ON"},
		{"CLIENT", "REPLY", "SKIP"}, {"PING", "2"}, {"PING", "3"}, {"CLIENT", "REPLY", "foo"},
		{"CLIENT", "REPLY", "OFF"}, {"RESET"}, {"PING", "4"},
		{"CLIENT", "REPLY", "SKIP"}, {"RESET"}, {"PING", "5"},
	} {
		cs[0].send(c...)
		cs[1].send(c...)
	}
	for i := 0; i < 6; i++ {
		m.read("r")
	}
	m.quiet("r")
	m.on("r", "INFO", "errorstats")
	// CLIENT LIST / INFO fields and flags
	m.on("o", "CLIENT", "SETNAME", "other")
	m.on("o", "CLIENT", "TRACKING", "on", "BCAST")
	m.on("x", "MULTI")
	m.on("x", "SET", "a", "b")
	m.on("p", "SUBSCRIBE", "ch")
	list := func() {
		t.Helper()
		o, r := cs[0].do("CLIENT", "LIST"), cs[1].do("CLIENT", "LIST")
		_, o, _ = strings.Cut(o, "\r\n") // the verbatim length differs
		_, r, _ = strings.Cut(r, "\r\n")
		if clientListNorm(m.norm(o, 0)) != clientListNorm(m.norm(r, 1)) {
			t.Fatalf("CLIENT LIST:\n ours:  %s\n redis: %s", clientListNorm(o), clientListNorm(r))
		}
		o, r = cs[0].do("CLIENT", "INFO"), cs[1].do("CLIENT", "INFO")
		_, o, _ = strings.Cut(o, "\r\n")
		_, r, _ = strings.Cut(r, "\r\n")
		if clientListNorm(o) != clientListNorm(r) {
			t.Fatalf("CLIENT INFO:\n ours:  %s\n redis: %s", o, r)
		}
	}
	list()
	// RESET: tracking, transaction, subscriptions, name, db, protocol
	m.on("r", "SELECT", "3")
	m.on("r", "CLIENT", "SETNAME", "me")
	m.hello3("r")
	m.on("r", "CLIENT", "TRACKING", "on", "OPTIN")
	m.on("r", "MULTI")
	m.on("r", "RESET")
	list()
	m.on("o", "RESET")
	m.on("x", "RESET")
	m.on("p", "RESET")
	list()
	m.info("tracking_clients")
}

func TestDiffClientPause(t *testing.T) {
	m := newConnPair(t)
	m.on("r", "CLIENT", "PAUSE", "abc")
	m.on("r", "CLIENT", "PAUSE", "-1")
	m.on("r", "CLIENT", "PAUSE", "10", "foo")
	m.on("r", "CLIENT", "PAUSE", "10", "write", "x")
	// reads go on under WRITE; writes, PFCOUNT, PUBLISH, write scripts and
	// EXECs of writes wait, counted as blocked, and run in order
	m.on("r", "PFADD", "hll", "a")
	m.on("r", "SET", "FOO", "BAR")
	m.on("m", "MULTI")
	m.on("m", "SET", "FOO", "BAR2")
	m.on("r", "CLIENT", "PAUSE", "100000", "WRITE")
	m.on("r", "CLIENT", "PAUSE", "10", "WRITE") // a shorter pause keeps the longer
	m.on("rd", "GET", "FOO")
	m.on("rd", "MULTI")
	m.on("rd", "GET", "FOO")
	m.on("rd", "PING")
	m.on("rd", "EXEC")
	m.on("rd", "EVAL", "#!lua flags=no-writes\nreturn 'ro'", "0")
	m.on("rd", "EVAL_RO", "return redis.call('get', 'FOO')", "0")
	m.send("w1", "SET", "FOO", "1")
	m.waitBlocked("r", 1)
	m.send("w2", "SETNX", "hll", "x")
	m.waitBlocked("r", 2)
	m.send("w3", "PUBLISH", "ch", "x")
	m.waitBlocked("r", 3)
	m.send("w4", "EVAL", "return 1", "0")
	m.waitBlocked("r", 4)
	m.send("m", "EXEC")
	m.waitBlocked("r", 5)
	m.send("w5", "INCR", "n")
	m.waitBlocked("r", 6)
	m.on("r", "GET", "FOO")
	m.on("r", "SET")
	m.on("r", "CLIENT", "UNPAUSE")
	for _, n := range []string{"w1", "w2", "w3", "w4", "m", "w5"} {
		m.read(n)
	}
	m.on("r", "GET", "FOO")
	m.on("r", "GET", "n")
	// ALL holds everything, even from the client that paused and even
	// CLIENT UNPAUSE, until it times out; then they run in arrival order
	m.send("r", "CLIENT", "PAUSE", "300", "ALL")
	m.read("r")
	m.send("r", "CLIENT", "PAUSE", "20", "WRITE")
	m.send("rd", "GET", "FOO")
	m.send("w1", "CLIENT", "UNPAUSE")
	ours := m.p.ours.s
	for deadline := time.Now().Add(10 * time.Second); ; {
		ours.mu.Lock()
		n := ours.pausedClients()
		ours.mu.Unlock()
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("our server postponed %d clients, want 3", n)
		}
		time.Sleep(time.Millisecond)
	}
	m.read("r")
	m.read("rd")
	m.read("w1")
	// expiry waits for the end of the pause; the pause starts after EXEC
	m.on("r", "MULTI")
	m.on("r", "SET", "foo{t}", "bar", "PX", "10")
	m.on("r", "SET", "bar{t}", "foo", "PX", "10")
	m.on("r", "CLIENT", "PAUSE", "50000", "WRITE")
	m.on("r", "SET", "baz{t}", "1")
	m.on("r", "EXEC")
	// Each server's clock decides on its own when the 10 ms have passed:
	// poll each until the key reads as gone, then compare.
	for i, c := range m.conn("r") {
		testsrv.WaitFor(t, 10*time.Second, fmt.Sprintf("foo{t} to expire logically on server %d", i),
			func() bool { return c.do("GET", "foo{t}") == "$-1\r\n" })
	}
	m.on("r", "GET", "foo{t}")
	m.on("r", "GET", "bar{t}")
	m.info("expired_keys")
	m.on("r", "DBSIZE")
	m.on("r", "CLIENT", "UNPAUSE")
	m.on("r", "GET", "foo{t}")
	m.on("r", "GET", "bar{t}")
	m.info("expired_keys")
	m.on("r", "DBSIZE")
}
