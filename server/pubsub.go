package server

import (
	"github.com/aofserver/aofserver/pubsub"
	"github.com/aofserver/aofserver/tracking"
)

// pubsubHost is the Server as package pubsub's Host.
type pubsubHost Server

func (h *pubsubHost) Deliver(to pubsub.Subscriber, header, payload, tail []byte) {
	(*Server)(h).deliverMessage(to.(*client), header, payload, tail)
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
	k, kind := pubsub.Channel, "subscribe"
	if shard {
		k, kind = pubsub.Shard, "ssubscribe"
	}
	for _, ch := range names {
		c.srv.pubsub.Subscribe(c, &c.subs, k, ch)
		count := c.subs.Count()
		if shard {
			count = c.subs.Len(pubsub.Shard)
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
	for _, p := range argv[1:] {
		c.srv.pubsub.Subscribe(c, &c.subs, pubsub.Pattern, p)
		c.pubsubReply("psubscribe", p, c.subs.Count())
	}
	c.enterPubSub()
}

var unsubscribeKinds = [...]string{pubsub.Channel: "unsubscribe", pubsub.Pattern: "punsubscribe", pubsub.Shard: "sunsubscribe"}

func unsubscribeGeneric(c *client, argv [][]byte, kind pubsub.Kind) {
	reg := c.srv.pubsub
	// Each reply counts the subscriptions of its own kind: shard channels
	// apart, channels and patterns together.
	count := func() int {
		if kind == pubsub.Shard {
			return c.subs.Len(pubsub.Shard)
		}
		return c.subs.Count()
	}
	name := unsubscribeKinds[kind]
	if len(argv) == 1 {
		names := c.subs.Names(kind)
		if len(names) == 0 {
			c.pubsubReply(name, nil, count())
		}
		for _, n := range names {
			reg.Unsubscribe(c, &c.subs, kind, n)
			c.pubsubReply(name, []byte(n), count())
		}
	} else {
		for _, n := range argv[1:] {
			reg.Unsubscribe(c, &c.subs, kind, string(n))
			c.pubsubReply(name, n, count())
		}
	}
	if c.subs.Total() == 0 && c.flags&flagPubSub != 0 {
		c.flags &^= flagPubSub
		c.setPubSubOut(false)
	}
}

func unsubscribeCommand(c *client, argv [][]byte)  { unsubscribeGeneric(c, argv, pubsub.Channel) }
func punsubscribeCommand(c *client, argv [][]byte) { unsubscribeGeneric(c, argv, pubsub.Pattern) }
func sunsubscribeCommand(c *client, argv [][]byte) { unsubscribeGeneric(c, argv, pubsub.Shard) }

// pubsubUnsubscribeAll drops c's subscriptions (RESET, freeClient).
func (s *Server) pubsubUnsubscribeAll(c *client) {
	s.pubsub.UnsubscribeAll(c, &c.subs)
	if c.pubsubOut {
		c.setPubSubOut(false)
	}
}

// publish delivers a message (PUBLISH, keyspace events) and returns the
// number of receivers.
func (s *Server) publish(channel, msg []byte) int { return s.pubsub.Publish(channel, msg) }

// deliverMessage hands a message to subscriber c. To the client whose
// command publishes it (a PUBLISH to self in EXEC or a script, its own
// keyspace events), it goes behind the reply being built, where Redis
// writes it into the same buffer: between EXEC's elements, before a
// script's result. Like every push it survives CLIENT REPLY OFF/SKIP.
func (s *Server) deliverMessage(c *client, h, msg, tail []byte) {
	if c != s.curClient && s.tracking.Out() != tracking.Peer(c) {
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

func spublishCommand(c *client, argv [][]byte) {
	c.srv.forceReplProp = true
	c.integer(int64(c.srv.pubsub.SPublish(argv[1], argv[2])))
}

func pubsubChannelsCommand(c *client, argv [][]byte) { channelList(c, argv, pubsub.Channel) }

func pubsubShardChannelsCommand(c *client, argv [][]byte) { channelList(c, argv, pubsub.Shard) }

// channelList answers PUBSUB CHANNELS / SHARDCHANNELS [pattern].
func channelList(c *client, argv [][]byte, k pubsub.Kind) {
	if len(argv) > 3 {
		c.err(subcommandSyntaxError(argv)) // addReplySubcommandSyntaxError
		return
	}
	var pat []byte
	if len(argv) == 3 {
		pat = argv[2]
	}
	out := c.srv.pubsub.Channels(k, pat)
	c.arrayLen(len(out))
	for _, n := range out {
		c.bulkString(n)
	}
}

func pubsubNumsubCommand(c *client, argv [][]byte) { numsub(c, argv, pubsub.Channel) }

func pubsubShardNumsubCommand(c *client, argv [][]byte) { numsub(c, argv, pubsub.Shard) }

// numsub answers PUBSUB NUMSUB / SHARDNUMSUB [channel ...].
func numsub(c *client, argv [][]byte, k pubsub.Kind) {
	c.arrayLen((len(argv) - 2) * 2)
	for _, n := range argv[2:] {
		c.bulk(n)
		c.integer(int64(c.srv.pubsub.NumSub(k, n)))
	}
}

func pubsubNumpatCommand(c *client, argv [][]byte) {
	c.integer(int64(c.srv.pubsub.Count(pubsub.Pattern)))
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
