package server

import (
	"sort"
	"strconv"

	"github.com/aofserver/aofserver/rstring"
	"github.com/tidwall/redcon"
)

type pubsubState struct {
	channels map[string]map[*client]struct{}
	patterns map[string]map[*client]struct{}
	// notifyFlags caches notify-keyspace-events as NOTIFY_* bits
	// (notifyUnknown until first used; see notify.go).
	notifyFlags int
}

func (p *pubsubState) init() {
	p.channels = map[string]map[*client]struct{}{}
	p.patterns = map[string]map[*client]struct{}{}
	p.notifyFlags = notifyUnknown
}

func init() {
	ps := func(name string, arity int, first, last int, proc cmdProc, summary, since string) *command {
		return &command{name: name, arity: arity, flags: cmdPubSub | cmdNoScript | cmdLoading | cmdStale, firstKey: first, lastKey: last, step: 1, proc: proc, group: "pubsub", summary: summary, since: since, acl: []string{"@pubsub", "@slow"}}
	}
	register(
		ps("subscribe", -2, 0, 0, subscribeCommand, "Listen for messages published to the given channels", "2.0.0"),
		ps("unsubscribe", -1, 0, 0, unsubscribeCommand, "Stop listening for messages posted to the given channels", "2.0.0"),
		ps("psubscribe", -2, 0, 0, psubscribeCommand, "Listen for messages published to channels matching the given patterns", "2.0.0"),
		ps("punsubscribe", -1, 0, 0, punsubscribeCommand, "Stop listening for messages posted to channels matching the given patterns", "2.0.0"),
		&command{name: "publish", arity: 3, flags: cmdPubSub | cmdLoading | cmdStale | cmdFast | cmdMayReplicate, proc: publishCommand, group: "pubsub", summary: "Post a message to a channel", since: "2.0.0", acl: []string{"@pubsub", "@fast"}},
		&command{name: "pubsub", arity: -2, group: "pubsub", summary: "A container for Pub/Sub commands", since: "2.8.0", acl: []string{"@slow"}},
		&command{name: "pubsub|channels", arity: -2, flags: cmdPubSub | cmdLoading | cmdStale, proc: pubsubChannelsCommand, group: "pubsub", summary: "List active channels", since: "2.8.0", acl: []string{"@pubsub", "@slow"}},
		&command{name: "pubsub|numsub", arity: -2, flags: cmdPubSub | cmdLoading | cmdStale, proc: pubsubNumsubCommand, group: "pubsub", summary: "Get the count of subscribers for channels", since: "2.8.0", acl: []string{"@pubsub", "@slow"}},
		&command{name: "pubsub|numpat", arity: 2, flags: cmdPubSub | cmdLoading | cmdStale, proc: pubsubNumpatCommand, group: "pubsub", summary: "Get the count of unique patterns pattern subscriptions", since: "2.8.0", acl: []string{"@pubsub", "@slow"}},
		&command{name: "pubsub|help", arity: 2, flags: cmdLoading | cmdStale, proc: pubsubHelpCommand, group: "pubsub", summary: "Show helpful text about the different subcommands", since: "6.2.0", acl: []string{"@slow"}},
	)
}

func (c *client) subCount() int { return len(c.channels) + len(c.patterns) }

func (c *client) enterPubSub() {
	if c.flags&flagPubSub == 0 {
		c.flags |= flagPubSub
		c.setPubSubOut(true)
		c.goAsync()
	}
}

func (c *client) pubsubReply(kind string, name []byte, count int) {
	c.pushLen(3)
	c.bulkString(kind)
	if name == nil {
		c.nullBulk()
	} else {
		c.bulk(name)
	}
	c.integer(int64(count))
}

func subscribeCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti != 0 {
		c.err("ERR SUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	s := c.srv
	if c.channels == nil {
		c.channels = map[string]struct{}{}
	}
	for _, ch := range argv[1:] {
		name := string(ch)
		if _, ok := c.channels[name]; !ok {
			c.channels[name] = struct{}{}
			m := s.pubsub.channels[name]
			if m == nil {
				m = map[*client]struct{}{}
				s.pubsub.channels[name] = m
			}
			m[c] = struct{}{}
		}
		c.pubsubReply("subscribe", ch, c.subCount())
	}
	c.enterPubSub()
}

func psubscribeCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti != 0 {
		c.err("ERR PSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	s := c.srv
	if c.patterns == nil {
		c.patterns = map[string]struct{}{}
	}
	for _, p := range argv[1:] {
		name := string(p)
		if _, ok := c.patterns[name]; !ok {
			c.patterns[name] = struct{}{}
			c.patOrder = append(c.patOrder, name)
			m := s.pubsub.patterns[name]
			if m == nil {
				m = map[*client]struct{}{}
				s.pubsub.patterns[name] = m
			}
			m[c] = struct{}{}
		}
		c.pubsubReply("psubscribe", p, c.subCount())
	}
	c.enterPubSub()
}

func (s *Server) unsubscribeOne(c *client, name string, pattern bool) bool {
	set, reg := c.channels, s.pubsub.channels
	if pattern {
		set, reg = c.patterns, s.pubsub.patterns
	}
	if _, ok := set[name]; !ok {
		return false
	}
	delete(set, name)
	if pattern {
		for i, p := range c.patOrder {
			if p == name {
				c.patOrder = append(c.patOrder[:i:i], c.patOrder[i+1:]...)
				break
			}
		}
	}
	if m := reg[name]; m != nil {
		delete(m, c)
		if len(m) == 0 {
			delete(reg, name)
		}
	}
	return true
}

func unsubscribeGeneric(c *client, argv [][]byte, pattern bool) {
	s := c.srv
	kind := "unsubscribe"
	set := c.channels
	if pattern {
		kind = "punsubscribe"
		set = c.patterns
	}
	if len(argv) == 1 {
		names := make([]string, 0, len(set))
		if pattern {
			names = append(names, c.patOrder...)
		} else {
			for n := range set {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		if len(names) == 0 {
			c.pubsubReply(kind, nil, c.subCount())
		}
		for _, n := range names {
			s.unsubscribeOne(c, n, pattern)
			c.pubsubReply(kind, []byte(n), c.subCount())
		}
	} else {
		for _, n := range argv[1:] {
			s.unsubscribeOne(c, string(n), pattern)
			c.pubsubReply(kind, n, c.subCount())
		}
	}
	if c.subCount() == 0 && c.flags&flagPubSub != 0 {
		c.flags &^= flagPubSub
		c.setPubSubOut(false)
	}
}

func unsubscribeCommand(c *client, argv [][]byte)  { unsubscribeGeneric(c, argv, false) }
func punsubscribeCommand(c *client, argv [][]byte) { unsubscribeGeneric(c, argv, true) }

// pubsubUnsubscribeAll drops c's subscriptions (RESET, freeClient).
func (s *Server) pubsubUnsubscribeAll(c *client) {
	for n := range c.channels {
		s.unsubscribeOne(c, n, false)
	}
	for n := range c.patterns {
		s.unsubscribeOne(c, n, true)
	}
	if c.pubsubOut {
		c.setPubSubOut(false)
	}
}

// publish delivers a message and returns the number of receivers. Each
// subscriber's queue gets the header and the payload itself: no message is
// assembled (a big payload would be copied once more, as garbage, per
// PUBLISH).
func (s *Server) publish(channel, msg []byte) int {
	n := 0
	tail := []byte("\r\n")
	if m := s.pubsub.channels[bstr(channel)]; m != nil {
		var h [4][]byte
		for c := range m {
			if h[c.resp] == nil {
				h[c.resp] = appendPushLen(nil, c.resp, 3)
				h[c.resp] = redcon.AppendBulkString(h[c.resp], "message")
				h[c.resp] = redcon.AppendBulk(h[c.resp], channel)
				h[c.resp] = appendBulkHeader(h[c.resp], len(msg))
			}
			c.pushParts(h[c.resp], msg, tail)
			n++
		}
	}
	for pat, m := range s.pubsub.patterns {
		if !rstring.Match(pat, channel, false) {
			continue
		}
		var h [4][]byte
		for c := range m {
			if h[c.resp] == nil {
				h[c.resp] = appendPushLen(nil, c.resp, 4)
				h[c.resp] = redcon.AppendBulkString(h[c.resp], "pmessage")
				h[c.resp] = redcon.AppendBulkString(h[c.resp], pat)
				h[c.resp] = redcon.AppendBulk(h[c.resp], channel)
				h[c.resp] = appendBulkHeader(h[c.resp], len(msg))
			}
			c.pushParts(h[c.resp], msg, tail)
			n++
		}
	}
	return n
}

// appendBulkHeader appends "$<n>\r\n", a bulk string's header.
func appendBulkHeader(b []byte, n int) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func publishCommand(c *client, argv [][]byte) {
	c.integer(int64(c.srv.publish(argv[1], argv[2])))
}

func pubsubChannelsCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 3 {
		c.err(subcommandSyntaxError(argv)) // addReplySubcommandSyntaxError
		return
	}
	var out []string
	for n := range s.pubsub.channels {
		if len(argv) == 3 && !rstring.Match(argv[2], n, false) {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	c.arrayLen(len(out))
	for _, n := range out {
		c.bulkString(n)
	}
}

func pubsubNumsubCommand(c *client, argv [][]byte) {
	s := c.srv
	c.arrayLen((len(argv) - 2) * 2)
	for _, n := range argv[2:] {
		c.bulk(n)
		c.integer(int64(len(s.pubsub.channels[bstr(n)])))
	}
}

func pubsubNumpatCommand(c *client, argv [][]byte) {
	c.integer(int64(len(c.srv.pubsub.patterns)))
}

func pubsubHelpCommand(c *client, argv [][]byte) {
	lines := []string{
		"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
		"HELP",
		"    Prints this help.",
	}
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}

// appendPushLen appends the header of a push message: ">n" in RESP3, an
// array in RESP2.
func appendPushLen(b []byte, resp, n int) []byte {
	if resp == 3 {
		b = append(b, '>')
		b = strconv.AppendInt(b, int64(n), 10)
		return append(b, '\r', '\n')
	}
	return redcon.AppendArray(b, n)
}
