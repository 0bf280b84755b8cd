package server

import (
	"sort"

	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/rstring"
	"github.com/tidwall/redcon"
)

type pubsubState struct {
	channels map[string]map[*client]struct{}
	patterns map[string]map[*client]struct{}
	// shardChannels: SSUBSCRIBE's channels (Redis pubsubshard_channels),
	// a namespace of their own that patterns never match.
	shardChannels map[string]map[*client]struct{}
	// notifyFlags caches notify-keyspace-events as NOTIFY_* bits
	// (notifyUnknown until first used; see notify.go).
	notifyFlags int
}

func (p *pubsubState) init() {
	p.channels = map[string]map[*client]struct{}{}
	p.patterns = map[string]map[*client]struct{}{}
	p.shardChannels = map[string]map[*client]struct{}{}
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
		&command{name: "pubsub|shardchannels", arity: -2, flags: cmdPubSub | cmdLoading | cmdStale, proc: pubsubShardChannelsCommand, group: "pubsub", summary: "List active shard channels", since: "7.0.0", acl: []string{"@pubsub", "@slow"}},
		&command{name: "pubsub|shardnumsub", arity: -2, flags: cmdPubSub | cmdLoading | cmdStale, proc: pubsubShardNumsubCommand, group: "pubsub", summary: "Get the count of subscribers for shard channels", since: "7.0.0", acl: []string{"@pubsub", "@slow"}},
		ps("ssubscribe", -2, 1, -1, ssubscribeCommand, "Listen for messages published to the given shard channels", "7.0.0"),
		ps("sunsubscribe", -1, 1, -1, sunsubscribeCommand, "Stop listening for messages posted to the given shard channels", "7.0.0"),
		// SPUBLISH of a server without cluster is PUBLISH to the shard
		// namespace (Redis spublishCommand).
		&command{name: "spublish", arity: 3, flags: cmdPubSub | cmdLoading | cmdStale | cmdFast | cmdMayReplicate, firstKey: 1, lastKey: 1, step: 1, proc: spublishCommand, group: "pubsub", summary: "Post a message to a shard channel", since: "7.0.0", acl: []string{"@pubsub", "@fast"}},
		&command{name: "pubsub|help", arity: 2, flags: cmdLoading | cmdStale, proc: pubsubHelpCommand, group: "pubsub", summary: "Show helpful text about the different subcommands", since: "6.2.0", acl: []string{"@slow"}},
	)
}

// subCount is Redis's clientSubscriptionsCount: the count (P)SUBSCRIBE
// and (P)UNSUBSCRIBE reply, which leaves shard channels out.
func (c *client) subCount() int { return len(c.channels) + len(c.patterns) }

// totalSubCount counts shard channels too: the client stays in pub/sub
// mode while it is not zero (clientTotalPubSubSubscriptionCount).
func (c *client) totalSubCount() int { return c.subCount() + len(c.shardChannels) }

func (c *client) enterPubSub() {
	if c.flags&flagPubSub == 0 {
		c.flags |= flagPubSub
		c.setPubSubOut(true)
		c.goAsync()
		c.keepOut = c.keepOut[:0] // what they marked has left c.out
	}
}

// pubsubReply is a (un)subscription notification: a push, which CLIENT
// REPLY OFF/SKIP do not silence (Redis's CLIENT_PUSHING), so under them
// applyReplyMode is told to keep it.
func (c *client) pubsubReply(kind string, name []byte, count int) {
	start := len(c.out)
	c.pushLen(3)
	c.bulkString(kind)
	if name == nil {
		c.nullBulk()
	} else {
		c.bulk(name)
	}
	c.integer(int64(count))
	if c.flags&(flagReplyOff|flagReplySkip) != 0 {
		c.keepOut = append(c.keepOut, [2]int{start, len(c.out)})
	}
}

func subscribeCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti != 0 {
		c.err("ERR SUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	subscribeChannels(c, argv[1:], false)
}

// ssubscribeCommand: unlike SUBSCRIBE, Redis 7.0 makes no exception for
// a transaction: inside EXEC it is refused.
func ssubscribeCommand(c *client, argv [][]byte) {
	if !c.srv.canBlock(c) {
		c.err("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	subscribeChannels(c, argv[1:], true)
}

// subscribeChannels is pubsubSubscribeChannel for each name, in the
// global or the shard namespace, each acknowledged with the count of its
// own kind.
func subscribeChannels(c *client, names [][]byte, shard bool) {
	s := c.srv
	set, reg, kind := &c.channels, s.pubsub.channels, "subscribe"
	if shard {
		set, reg, kind = &c.shardChannels, s.pubsub.shardChannels, "ssubscribe"
	}
	if *set == nil {
		*set = map[string]struct{}{}
	}
	for _, ch := range names {
		name := string(ch)
		if _, ok := (*set)[name]; !ok {
			(*set)[name] = struct{}{}
			m := reg[name]
			if m == nil {
				m = map[*client]struct{}{}
				reg[name] = m
			}
			m[c] = struct{}{}
		}
		count := c.subCount()
		if shard {
			count = len(c.shardChannels)
		}
		c.pubsubReply(kind, ch, count)
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

// The three subscription namespaces.
const (
	subChannel = iota
	subPattern
	subShard
)

func (s *Server) unsubscribeOne(c *client, name string, kind int) bool {
	set, reg := c.channels, s.pubsub.channels
	switch kind {
	case subPattern:
		set, reg = c.patterns, s.pubsub.patterns
	case subShard:
		set, reg = c.shardChannels, s.pubsub.shardChannels
	}
	if _, ok := set[name]; !ok {
		return false
	}
	delete(set, name)
	if kind == subPattern {
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

var unsubscribeKinds = [...]string{subChannel: "unsubscribe", subPattern: "punsubscribe", subShard: "sunsubscribe"}

func unsubscribeGeneric(c *client, argv [][]byte, kind int) {
	s := c.srv
	set := c.channels
	switch kind {
	case subPattern:
		set = c.patterns
	case subShard:
		set = c.shardChannels
	}
	// Each reply counts the subscriptions of its own kind: shard channels
	// apart, channels and patterns together.
	count := func() int {
		if kind == subShard {
			return len(c.shardChannels)
		}
		return c.subCount()
	}
	name := unsubscribeKinds[kind]
	if len(argv) == 1 {
		names := make([]string, 0, len(set))
		if kind == subPattern {
			names = append(names, c.patOrder...)
		} else {
			for n := range set {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		if len(names) == 0 {
			c.pubsubReply(name, nil, count())
		}
		for _, n := range names {
			s.unsubscribeOne(c, n, kind)
			c.pubsubReply(name, []byte(n), count())
		}
	} else {
		for _, n := range argv[1:] {
			s.unsubscribeOne(c, string(n), kind)
			c.pubsubReply(name, n, count())
		}
	}
	if c.totalSubCount() == 0 && c.flags&flagPubSub != 0 {
		c.flags &^= flagPubSub
		c.setPubSubOut(false)
	}
}

func unsubscribeCommand(c *client, argv [][]byte)  { unsubscribeGeneric(c, argv, subChannel) }
func punsubscribeCommand(c *client, argv [][]byte) { unsubscribeGeneric(c, argv, subPattern) }
func sunsubscribeCommand(c *client, argv [][]byte) { unsubscribeGeneric(c, argv, subShard) }

// pubsubUnsubscribeAll drops c's subscriptions (RESET, freeClient).
func (s *Server) pubsubUnsubscribeAll(c *client) {
	for n := range c.channels {
		s.unsubscribeOne(c, n, subChannel)
	}
	for n := range c.patterns {
		s.unsubscribeOne(c, n, subPattern)
	}
	for n := range c.shardChannels {
		s.unsubscribeOne(c, n, subShard)
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
				h[c.resp] = resp.AppendPushLen(nil, c.resp, 3)
				h[c.resp] = redcon.AppendBulkString(h[c.resp], "message")
				h[c.resp] = redcon.AppendBulk(h[c.resp], channel)
				h[c.resp] = resp.AppendBulkHeader(h[c.resp], len(msg))
			}
			s.deliverMessage(c, h[c.resp], msg, tail)
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
				h[c.resp] = resp.AppendPushLen(nil, c.resp, 4)
				h[c.resp] = redcon.AppendBulkString(h[c.resp], "pmessage")
				h[c.resp] = redcon.AppendBulkString(h[c.resp], pat)
				h[c.resp] = redcon.AppendBulk(h[c.resp], channel)
				h[c.resp] = resp.AppendBulkHeader(h[c.resp], len(msg))
			}
			s.deliverMessage(c, h[c.resp], msg, tail)
			n++
		}
	}
	return n
}

// deliverMessage hands a message to subscriber c. To the client whose
// command publishes it (a PUBLISH to self in EXEC or a script, its own
// keyspace events), it goes behind the reply being built, where Redis
// writes it into the same buffer: between EXEC's elements, before a
// script's result. Like every push it survives CLIENT REPLY OFF/SKIP.
func (s *Server) deliverMessage(c *client, h, msg, tail []byte) {
	if c != s.curClient && c != s.tracking.outClient {
		c.pushParts(h, msg, tail)
		return
	}
	start := len(c.out)
	c.out = append(append(append(c.out, h...), msg...), tail...)
	if c.flags&(flagReplyOff|flagReplySkip) != 0 {
		c.keepOut = append(c.keepOut, [2]int{start, len(c.out)})
	}
}

// publishCommand: replicas get every PUBLISH, the AOF none
// (forceCommandPropagation(c, PROPAGATE_REPL) of a server without
// cluster).
func publishCommand(c *client, argv [][]byte) {
	c.srv.forceReplProp = true
	c.integer(int64(c.srv.publish(argv[1], argv[2])))
}

// spublish delivers a message to the subscribers of a shard channel
// ("smessage"; patterns do not see shard channels).
func (s *Server) spublish(channel, msg []byte) int {
	m := s.pubsub.shardChannels[bstr(channel)]
	if m == nil {
		return 0
	}
	tail := []byte("\r\n")
	var h [4][]byte
	for c := range m {
		if h[c.resp] == nil {
			h[c.resp] = resp.AppendPushLen(nil, c.resp, 3)
			h[c.resp] = redcon.AppendBulkString(h[c.resp], "smessage")
			h[c.resp] = redcon.AppendBulk(h[c.resp], channel)
			h[c.resp] = resp.AppendBulkHeader(h[c.resp], len(msg))
		}
		s.deliverMessage(c, h[c.resp], msg, tail)
	}
	return len(m)
}

func spublishCommand(c *client, argv [][]byte) {
	c.srv.forceReplProp = true
	c.integer(int64(c.srv.spublish(argv[1], argv[2])))
}

func pubsubChannelsCommand(c *client, argv [][]byte) {
	channelList(c, argv, c.srv.pubsub.channels)
}

func pubsubShardChannelsCommand(c *client, argv [][]byte) {
	channelList(c, argv, c.srv.pubsub.shardChannels)
}

// channelList answers PUBSUB CHANNELS / SHARDCHANNELS [pattern].
func channelList(c *client, argv [][]byte, reg map[string]map[*client]struct{}) {
	if len(argv) > 3 {
		c.err(subcommandSyntaxError(argv)) // addReplySubcommandSyntaxError
		return
	}
	var out []string
	for n := range reg {
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
	numsub(c, argv, c.srv.pubsub.channels)
}

func pubsubShardNumsubCommand(c *client, argv [][]byte) {
	numsub(c, argv, c.srv.pubsub.shardChannels)
}

// numsub answers PUBSUB NUMSUB / SHARDNUMSUB [channel ...].
func numsub(c *client, argv [][]byte, reg map[string]map[*client]struct{}) {
	c.arrayLen((len(argv) - 2) * 2)
	for _, n := range argv[2:] {
		c.bulk(n)
		c.integer(int64(len(reg[bstr(n)])))
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
