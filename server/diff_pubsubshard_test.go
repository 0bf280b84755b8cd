package server

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Sharded pub/sub of a server without cluster (Redis 7.0.15's
// tests/unit/pubsubshard.tcl and pubsub.c): SSUBSCRIBE, SUNSUBSCRIBE,
// SPUBLISH, PUBSUB SHARDCHANNELS/SHARDNUMSUB, their counts beside
// (P)SUBSCRIBE's, CLIENT LIST ssub=, RESET and QUIT.

// psConns is n connections to each server of a pair.
type psConns struct {
	t          *testing.T
	ours, real []*respConn
	hist       []string
}

func newPSConns(t *testing.T, p *diffPair, n int) *psConns {
	pc := &psConns{t: t}
	for i := 0; i < n; i++ {
		pc.ours = append(pc.ours, dial(t, p.ours.addr))
		pc.real = append(pc.real, dial(t, p.real.addr))
	}
	return pc
}

// on sends args on connection i of both servers and compares the next k
// replies (a subscription command answers once per channel).
func (pc *psConns) on(i, k int, args ...string) {
	pc.t.Helper()
	pc.hist = append(pc.hist, strings.Join(args, " "))
	pc.ours[i].send(args...)
	pc.real[i].send(args...)
	for j := 0; j < k; j++ {
		pc.same(i, args)
	}
}

// push compares the next message delivered to connection i.
func (pc *psConns) push(i int) {
	pc.t.Helper()
	pc.same(i, []string{"(push)"})
}

func (pc *psConns) same(i int, what []string) {
	pc.t.Helper()
	got, want := pc.ours[i].read(), pc.real[i].read()
	if got != want {
		pc.t.Fatalf("conn %d %q:\n ours:  %q\n redis: %q\n after: %q", i, what, got, want, pc.hist)
	}
}

// field compares what re extracts from the reply of args on connection i
// (as a sorted list: INFO commandstats is in hash order).
func (pc *psConns) field(i int, re *regexp.Regexp, args ...string) {
	pc.t.Helper()
	got := re.FindAllString(pc.ours[i].do(args...), -1)
	want := re.FindAllString(pc.real[i].do(args...), -1)
	for _, l := range [][]string{got, want} {
		for j := range l {
			l[j] = cmdstatUsecRE.ReplaceAllString(l[j], "usec=x")
		}
		sort.Strings(l)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(want) == 0 {
		pc.t.Fatalf("conn %d %q:\n ours:  %q\n redis: %q\n after: %q", i, args, got, want, pc.hist)
	}
}

var clientSubFields = regexp.MustCompile(`flags=\S+ db=\d+ sub=\d+ psub=\d+ ssub=\d+ multi=-?\d+`)

func TestDiffShardPubSubBasics(t *testing.T) {
	p := newDiffPair(t)
	pc := newPSConns(t, p, 3)
	// SPUBLISH/SSUBSCRIBE basics
	pc.on(0, 1, "SSUBSCRIBE", "chan1")
	pc.on(0, 1, "SSUBSCRIBE", "chan2")
	pc.on(2, 1, "SPUBLISH", "chan1", "hello")
	pc.on(2, 1, "SPUBLISH", "chan2", "world")
	pc.push(0)
	pc.push(0)
	pc.on(0, 1, "SUNSUBSCRIBE", "chan1")
	pc.on(2, 1, "SPUBLISH", "chan1", "hello")
	pc.on(2, 1, "SPUBLISH", "chan2", "world")
	pc.push(0)
	pc.on(0, 1, "SUNSUBSCRIBE", "chan2")
	pc.on(2, 1, "SPUBLISH", "chan2", "world")
	pc.on(0, 1, "SUNSUBSCRIBE")
	pc.on(0, 1, "GET", "k") // out of pub/sub mode again
	// two clients, one channel subscribed more than once
	pc.on(0, 3, "SSUBSCRIBE", "chan1", "chan1", "chan1")
	pc.on(1, 1, "SSUBSCRIBE", "chan1")
	pc.on(2, 1, "SPUBLISH", "chan1", "hello")
	pc.push(0)
	pc.push(1)
	pc.on(2, 1, "PUBSUB", "SHARDNUMSUB", "chan1", "abc")
	pc.on(2, 1, "PUBSUB", "SHARDCHANNELS")
	pc.on(2, 1, "PUBSUB", "SHARDCHANNELS", "c*")
	pc.on(2, 1, "PUBSUB", "SHARDCHANNELS", "x*")
	pc.field(2, regexp.MustCompile(`pubsubshard_channels:\d+`), "INFO", "stats")
	pc.field(2, clientSubFields, "CLIENT", "LIST")
	// Shard channels are a namespace of their own: PUBLISH and patterns
	// do not reach them, SPUBLISH does not reach SUBSCRIBE.
	pc.on(2, 1, "PUBLISH", "chan1", "x")
	pc.on(2, 1, "PUBSUB", "NUMSUB", "chan1")
	pc.on(2, 1, "PUBSUB", "CHANNELS")
	pc.on(1, 1, "PSUBSCRIBE", "ch*")
	pc.on(1, 1, "SUBSCRIBE", "other")
	pc.on(2, 1, "SPUBLISH", "chan1", "only-shard")
	pc.push(0)
	pc.push(1)
	pc.on(2, 1, "SPUBLISH", "other", "nobody")
	pc.on(2, 1, "PUBLISH", "other", "global")
	pc.push(1)
	// counts: (P)SUBSCRIBE's count channels and patterns, the shard
	// commands' count shard channels
	pc.on(1, 2, "SSUBSCRIBE", "s2", "s3")
	pc.on(1, 1, "PSUBSCRIBE", "p*")
	pc.on(1, 1, "GET", "k")
	pc.on(1, 1, "PING")
	pc.field(2, clientSubFields, "CLIENT", "LIST")
	pc.on(1, 1, "SUNSUBSCRIBE", "s2")
	pc.on(1, 1, "UNSUBSCRIBE")
	pc.on(1, 2, "PUNSUBSCRIBE")
	pc.on(1, 1, "SUNSUBSCRIBE", "s3")
	pc.on(1, 1, "GET", "k") // still subscribed to chan1
	pc.on(1, 1, "SUNSUBSCRIBE", "nope")
	pc.on(1, 1, "SUNSUBSCRIBE")
	pc.on(1, 1, "SUNSUBSCRIBE")
	pc.on(1, 1, "GET", "k")
	pc.field(2, clientSubFields, "CLIENT", "LIST")
	// SUNSUBSCRIBE of channels never subscribed
	pc.on(2, 1, "SUNSUBSCRIBE", "foo")
	pc.on(2, 1, "SUNSUBSCRIBE", "bar")
	pc.on(2, 1, "GET", "k")
	// errors, scripts, transactions, introspection
	pc.on(2, 1, "PUBSUB", "SHARDCHANNELS", "a", "b")
	pc.on(2, 1, "PUBSUB", "SHARDNUMSUB")
	pc.on(2, 1, "PUBSUB", "HELP")
	pc.on(2, 1, "SPUBLISH", "a")
	pc.on(2, 1, "SSUBSCRIBE")
	pc.on(2, 1, "EVAL", "return redis.call('ssubscribe','x')", "0")
	pc.on(2, 1, "EVAL", "return redis.call('spublish','chan1','from-lua')", "0")
	pc.push(0)
	pc.on(2, 1, "MULTI")
	pc.on(2, 1, "SSUBSCRIBE", "z")
	pc.on(2, 1, "SPUBLISH", "chan1", "in-multi")
	pc.on(2, 1, "EXEC")
	pc.push(0)
	pc.on(2, 1, "COMMAND", "INFO", "ssubscribe", "sunsubscribe", "spublish")
	pc.on(2, 1, "COMMAND", "GETKEYS", "SPUBLISH", "a", "b")
	pc.on(2, 1, "COMMAND", "GETKEYS", "SSUBSCRIBE", "a", "b")
	pc.field(2, regexp.MustCompile(`cmdstat_(s[a-z]+|pubsub\|shard[a-z]+):calls=\d+,.*failed_calls=\d+`), "INFO", "commandstats")
}

func TestDiffShardPubSubRESP3AndReset(t *testing.T) {
	p := newDiffPair(t)
	pc := newPSConns(t, p, 3)
	pc.field(0, regexp.MustCompile(`proto\r\n:\d`), "HELLO", "3")
	pc.on(0, 2, "SSUBSCRIBE", "a", "b")
	pc.on(0, 1, "SET", "k", "v") // RESP3: any command in pub/sub mode
	pc.on(2, 1, "SPUBLISH", "a", "m")
	pc.push(0)
	pc.field(0, clientSubFields, "CLIENT", "INFO")
	pc.on(0, 1, "SUNSUBSCRIBE", "b")
	// PubSubShard with CLIENT REPLY OFF (pubsubshard.tcl): pushes still
	// arrive, the replies are skipped.
	pc.on(0, 0, "CLIENT", "REPLY", "OFF")
	pc.on(0, 0, "PING")
	pc.on(0, 1, "SSUBSCRIBE", "channel")
	pc.on(0, 0, "CLIENT", "REPLY", "OFF")
	pc.on(0, 0, "PING")
	pc.on(2, 1, "SPUBLISH", "channel", "hello")
	pc.push(0)
	pc.on(0, 0, "CLIENT", "REPLY", "OFF")
	pc.on(0, 0, "PING")
	pc.on(0, 1, "SUNSUBSCRIBE", "channel")
	pc.on(0, 1, "CLIENT", "REPLY", "ON")
	// RESET leaves every namespace.
	pc.on(1, 1, "SUBSCRIBE", "g")
	pc.on(1, 1, "SSUBSCRIBE", "s")
	pc.on(1, 1, "RESET")
	pc.on(1, 1, "GET", "k")
	pc.on(2, 1, "PUBSUB", "SHARDNUMSUB", "a", "s")
	pc.on(2, 1, "PUBSUB", "NUMSUB", "g")
	pc.field(2, clientSubFields, "CLIENT", "LIST")
	// QUIT and a closed connection leave them too.
	pc.on(1, 1, "SSUBSCRIBE", "q")
	pc.on(1, 1, "QUIT")
	pc.ours[0].nc.Close()
	pc.real[0].nc.Close()
	for _, c := range []*respConn{pc.ours[2], pc.real[2]} {
		waitFor(t, "no shard channel left after QUIT and close", func() bool {
			return c.do("PUBSUB", "SHARDCHANNELS") == "*0\r\n"
		})
	}
	pc.on(2, 1, "PUBSUB", "SHARDNUMSUB", "a", "q")
	pc.field(2, regexp.MustCompile(`pubsubshard_channels:\d+`), "INFO", "stats")
}

// pubsub.tcl's "PubSub messages with CLIENT REPLY OFF", in RESP2: the
// (un)subscription notifications are pushes, sent under REPLY OFF/SKIP.
func TestDiffPubSubReplyOff(t *testing.T) {
	p := newDiffPair(t)
	pc := newPSConns(t, p, 2)
	pc.on(0, 0, "CLIENT", "REPLY", "OFF")
	pc.on(0, 0, "PING")
	pc.on(0, 2, "SUBSCRIBE", "a", "b")
	pc.on(0, 1, "PSUBSCRIBE", "p*")
	pc.on(1, 1, "PUBLISH", "a", "m")
	pc.push(0)
	pc.on(0, 1, "UNSUBSCRIBE", "a")
	pc.on(0, 1, "PUNSUBSCRIBE")
	pc.on(0, 1, "UNSUBSCRIBE")
	pc.on(0, 0, "GET", "k")
	pc.on(0, 1, "CLIENT", "REPLY", "ON")
	pc.on(0, 0, "CLIENT", "REPLY", "SKIP")
	pc.on(0, 0, "PING")
	pc.on(0, 0, "CLIENT", "REPLY", "SKIP")
	pc.on(0, 1, "SSUBSCRIBE", "s")
	pc.on(0, 1, "PING")
}

// pubsub.tcl's "publish to self inside multi / inside script" and
// "unsubscribe inside multi, and publish to self" (RESP3), compared as
// the raw byte stream: Redis 7.0.15 writes the message where the publish
// runs, inside EXEC's array.
func TestDiffPublishToSelf(t *testing.T) {
	p := newDiffPair3(t)
	oc, rc := p.conn(0)
	// stream sends cmds and a PING marker, and returns everything read
	// up to the marker's reply.
	stream := func(c *respConn, cmds [][]string) string {
		for _, a := range cmds {
			c.send(a...)
		}
		c.send("PING", "end-of-case")
		var sb strings.Builder
		for {
			r := c.read()
			if r == "$11\r\nend-of-case\r\n" {
				return sb.String()
			}
			sb.WriteString(r)
		}
	}
	for _, tc := range []struct {
		cmds [][]string
	}{
		{[][]string{{"SUBSCRIBE", "foo"}, {"MULTI"}, {"PING", "abc"}, {"PUBLISH", "foo", "bar"},
			{"PUBLISH", "foo", "vaz"}, {"PING", "def"}, {"EXEC"}}},
		{[][]string{{"EVAL", "redis.call('ping','abc') redis.call('publish','foo','bar') " +
			"redis.call('publish','foo','vaz') redis.call('ping','def') return 'bla'", "0"}}},
		{[][]string{{"SUBSCRIBE", "bar", "baz"}, {"MULTI"}, {"PING", "abc"}, {"UNSUBSCRIBE", "bar"},
			{"UNSUBSCRIBE", "baz"}, {"PING", "def"}, {"EXEC"}, {"PUBLISH", "foo", "vaz"}}},
		// its own keyspace events, and a shard message, in EXEC
		{[][]string{{"CONFIG", "SET", "notify-keyspace-events", "KEA"}, {"PSUBSCRIBE", "__key*"},
			{"SSUBSCRIBE", "s"}, {"MULTI"}, {"SET", "k", "v"}, {"SPUBLISH", "s", "m"}, {"EXEC"}}},
		// under CLIENT REPLY OFF only the message is sent
		{[][]string{{"CLIENT", "REPLY", "OFF"}, {"PUBLISH", "foo", "off"}, {"CLIENT", "REPLY", "ON"}}},
	} {
		if got, want := stream(oc, tc.cmds), stream(rc, tc.cmds); got != want {
			t.Fatalf("%q:\n ours:  %q\n redis: %q", tc.cmds, got, want)
		}
	}
}
