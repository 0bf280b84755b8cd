package server

import (
	"github.com/aofserver/aofserver/stream"
)

// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS (Redis 7.0).

func init() {
	st := func(name string, arity int, flags uint64, first, last int, proc cmdProc, summary string, acl ...string) *command {
		step := 0
		if first > 0 {
			step = 1
		}
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "stream", summary: summary, since: "5.0.0", acl: streamACL(acl)}
	}
	register(
		st("xinfo", -2, 0, 0, 0, nil, "A container for stream introspection commands", "@slow"),
		st("xinfo|consumers", 4, cmdReadonly, 2, 2, xinfoCommand, "List the consumers in a consumer group", "@read", "@slow"),
		st("xinfo|groups", 3, cmdReadonly, 2, 2, xinfoCommand, "List the consumer groups of a stream", "@read", "@slow"),
		st("xinfo|stream", -3, cmdReadonly, 2, 2, xinfoCommand, "Get information about a stream", "@read", "@slow"),
		st("xinfo|help", 2, cmdLoading|cmdStale, 0, 0, xinfoHelpCommand, "Show helpful text about the different subcommands", "@stream", "@slow"),
	)
}

func xinfoHelpCommand(c *client, argv [][]byte) {
	lines := []string{
		"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream.",
		"HELP",
		"    Prints this help.",
	}
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}

func xinfoCommand(c *client, argv [][]byte) {
	s := c.srv
	sub := argv[1]
	st, wrong := s.streamRead(c, argv[2])
	if wrong {
		return
	}
	if st == nil {
		c.err("ERR no such key")
		return
	}
	now := s.nowMs()
	switch {
	case eqFold(sub, "consumers"):
		g := st.LookupCG(argv[3])
		if g == nil {
			c.err("NOGROUP No such consumer group '" + string(argv[3]) + "' for key name '" + string(argv[2]) + "'")
			return
		}
		cs := g.SortedConsumers()
		c.arrayLen(len(cs))
		for _, cons := range cs {
			idle := now - cons.SeenTime
			if idle < 0 {
				idle = 0
			}
			c.mapLen(3)
			c.bulkString("name")
			c.bulk(cons.Name)
			c.bulkString("pending")
			c.integer(int64(cons.Pel.Len()))
			c.bulkString("idle")
			c.integer(idle)
		}
	case eqFold(sub, "groups"):
		gs := st.SortedGroups()
		c.arrayLen(len(gs))
		for _, g := range gs {
			c.mapLen(6)
			c.bulkString("name")
			c.bulk(g.Name)
			c.bulkString("consumers")
			c.integer(int64(len(g.Consumers)))
			c.bulkString("pending")
			c.integer(int64(g.Pel.Len()))
			c.bulkString("last-delivered-id")
			c.streamID(g.LastID)
			c.bulkString("entries-read")
			if g.EntriesRead != stream.InvalidEntriesRead {
				c.integer(g.EntriesRead)
			} else {
				c.nullBulk()
			}
			c.bulkString("lag")
			if lag, ok := st.Lag(g); ok {
				c.integer(lag)
			} else {
				c.nullBulk()
			}
		}
	case eqFold(sub, "stream"):
		full := false
		count := int64(10)
		if len(argv) > 3 {
			if !eqFold(argv[3], "full") || (len(argv) != 4 && len(argv) != 6) {
				c.err(subcommandSyntaxError(argv))
				return
			}
			full = true
			if len(argv) == 6 {
				if !eqFold(argv[4], "count") {
					c.err(subcommandSyntaxError(argv))
					return
				}
				v, ok := parseInt(argv[5])
				if !ok {
					c.errNotInt()
					return
				}
				if v < 0 {
					v = 10
				}
				count = v
			}
		}
		xinfoStream(c, st, full, count, now)
	default:
		c.err(subcommandSyntaxError(argv))
	}
}

func xinfoStream(c *client, st *stream.Stream, full bool, count int64, now int64) {
	if !full {
		c.mapLen(10)
	} else {
		c.mapLen(9)
	}
	c.bulkString("length")
	c.integer(int64(st.Length))
	c.bulkString("radix-tree-keys")
	c.integer(int64(len(st.Nodes)))
	c.bulkString("radix-tree-nodes")
	c.integer(int64(st.RadixTreeNodes()))
	c.bulkString("last-generated-id")
	c.streamID(st.LastID)
	c.bulkString("max-deleted-entry-id")
	c.streamID(st.MaxDeletedID)
	c.bulkString("entries-added")
	c.integer(int64(st.EntriesAdded))
	c.bulkString("recorded-first-entry-id")
	c.streamID(st.FirstID)
	if !full {
		c.bulkString("groups")
		c.integer(int64(len(st.Groups)))
		var first, last *stream.Entry
		var firstNode, lastNode *stream.Node
		st.RangeFwd(stream.ID{}, stream.MaxID, func(nd *stream.Node, e *stream.Entry) bool { firstNode, first = nd, e; return false })
		st.RangeRev(stream.ID{}, stream.MaxID, func(nd *stream.Node, e *stream.Entry) bool { lastNode, last = nd, e; return false })
		c.bulkString("first-entry")
		if first != nil {
			c.streamEntry(firstNode, first)
		} else {
			c.nullBulk()
		}
		c.bulkString("last-entry")
		if last != nil {
			c.streamEntry(lastNode, last)
		} else {
			c.nullBulk()
		}
		return
	}
	c.bulkString("entries")
	streamReplyRange(c, st, stream.ID{}, stream.MaxID, count, false)
	c.bulkString("groups")
	gs := st.SortedGroups()
	c.arrayLen(len(gs))
	for _, g := range gs {
		c.mapLen(7)
		c.bulkString("name")
		c.bulk(g.Name)
		c.bulkString("last-delivered-id")
		c.streamID(g.LastID)
		c.bulkString("entries-read")
		if g.EntriesRead != stream.InvalidEntriesRead {
			c.integer(g.EntriesRead)
		} else {
			c.nullBulk()
		}
		c.bulkString("lag")
		if lag, ok := st.Lag(g); ok {
			c.integer(lag)
		} else {
			c.nullBulk()
		}
		c.bulkString("pel-count")
		c.integer(int64(g.Pel.Len()))
		c.bulkString("pending")
		type pe struct {
			id stream.ID
			n  *stream.NACK
		}
		var pes []pe
		g.Pel.Each(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
			pes = append(pes, pe{id, n})
			return count == 0 || int64(len(pes)) < count
		})
		c.arrayLen(len(pes))
		for _, p := range pes {
			c.arrayLen(4)
			c.streamID(p.id)
			c.bulk(p.n.Consumer.Name)
			c.integer(p.n.DeliveryTime)
			c.integer(int64(p.n.DeliveryCount))
		}
		c.bulkString("consumers")
		cs := g.SortedConsumers()
		c.arrayLen(len(cs))
		for _, cons := range cs {
			c.mapLen(4)
			c.bulkString("name")
			c.bulk(cons.Name)
			c.bulkString("seen-time")
			c.integer(cons.SeenTime)
			c.bulkString("pel-count")
			c.integer(int64(cons.Pel.Len()))
			c.bulkString("pending")
			var cp []pe
			cons.Pel.Each(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
				cp = append(cp, pe{id, n})
				return count == 0 || int64(len(cp)) < count
			})
			c.arrayLen(len(cp))
			for _, p := range cp {
				c.arrayLen(3)
				c.streamID(p.id)
				c.integer(p.n.DeliveryTime)
				c.integer(int64(p.n.DeliveryCount))
			}
		}
	}
}
