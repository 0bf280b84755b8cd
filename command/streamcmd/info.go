package streamcmd

import (
	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/stream"
)

// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS (Redis 7.0).

func xinfoHelpCommand(c command.Ctx, argv [][]byte) {
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
	c.ArrayLen(len(lines))
	for _, l := range lines {
		c.Status(l)
	}
}

func xinfoCommand(c command.Ctx, argv [][]byte) {
	sub := argv[1]
	st, wrong := readStream(c, argv[2])
	if wrong {
		return
	}
	if st == nil {
		c.Err("ERR no such key")
		return
	}
	now := c.NowMs()
	switch {
	case rstring.EqualFold(sub, "consumers"):
		g := st.LookupCG(argv[3])
		if g == nil {
			c.Err("NOGROUP No such consumer group '" + string(argv[3]) + "' for key name '" + string(argv[2]) + "'")
			return
		}
		cs := g.SortedConsumers()
		c.ArrayLen(len(cs))
		for _, cons := range cs {
			idle := now - cons.SeenTime
			if idle < 0 {
				idle = 0
			}
			c.MapLen(3)
			c.BulkString("name")
			c.Bulk(cons.Name)
			c.BulkString("pending")
			c.Integer(int64(cons.Pel.Len()))
			c.BulkString("idle")
			c.Integer(idle)
		}
	case rstring.EqualFold(sub, "groups"):
		gs := st.SortedGroups()
		c.ArrayLen(len(gs))
		for _, g := range gs {
			c.MapLen(6)
			c.BulkString("name")
			c.Bulk(g.Name)
			c.BulkString("consumers")
			c.Integer(int64(len(g.Consumers)))
			c.BulkString("pending")
			c.Integer(int64(g.Pel.Len()))
			c.BulkString("last-delivered-id")
			replyID(c, g.LastID)
			c.BulkString("entries-read")
			if g.EntriesRead != stream.InvalidEntriesRead {
				c.Integer(g.EntriesRead)
			} else {
				c.Null()
			}
			c.BulkString("lag")
			if lag, ok := st.Lag(g); ok {
				c.Integer(lag)
			} else {
				c.Null()
			}
		}
	case rstring.EqualFold(sub, "stream"):
		full := false
		count := int64(10)
		if len(argv) > 3 {
			if !rstring.EqualFold(argv[3], "full") || (len(argv) != 4 && len(argv) != 6) {
				c.Err(command.SubcommandSyntaxError(argv))
				return
			}
			full = true
			if len(argv) == 6 {
				if !rstring.EqualFold(argv[4], "count") {
					c.Err(command.SubcommandSyntaxError(argv))
					return
				}
				v, ok := rstring.String2ll(argv[5])
				if !ok {
					c.Err(command.ErrNotInt)
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
		c.Err(command.SubcommandSyntaxError(argv))
	}
}

func xinfoStream(c command.Ctx, st *stream.Stream, full bool, count int64, now int64) {
	if !full {
		c.MapLen(10)
	} else {
		c.MapLen(9)
	}
	c.BulkString("length")
	c.Integer(int64(st.Length))
	c.BulkString("radix-tree-keys")
	c.Integer(int64(len(st.Nodes)))
	c.BulkString("radix-tree-nodes")
	c.Integer(int64(st.RadixTreeNodes()))
	c.BulkString("last-generated-id")
	replyID(c, st.LastID)
	c.BulkString("max-deleted-entry-id")
	replyID(c, st.MaxDeletedID)
	c.BulkString("entries-added")
	c.Integer(int64(st.EntriesAdded))
	c.BulkString("recorded-first-entry-id")
	replyID(c, st.FirstID)
	if !full {
		c.BulkString("groups")
		c.Integer(int64(len(st.Groups)))
		var first, last *stream.Entry
		var firstNode, lastNode *stream.Node
		st.RangeFwd(stream.ID{}, stream.MaxID, func(nd *stream.Node, e *stream.Entry) bool { firstNode, first = nd, e; return false })
		st.RangeRev(stream.ID{}, stream.MaxID, func(nd *stream.Node, e *stream.Entry) bool { lastNode, last = nd, e; return false })
		c.BulkString("first-entry")
		if first != nil {
			replyEntry(c, firstNode, first)
		} else {
			c.Null()
		}
		c.BulkString("last-entry")
		if last != nil {
			replyEntry(c, lastNode, last)
		} else {
			c.Null()
		}
		return
	}
	c.BulkString("entries")
	replyRange(c, st, stream.ID{}, stream.MaxID, count, false)
	c.BulkString("groups")
	gs := st.SortedGroups()
	c.ArrayLen(len(gs))
	for _, g := range gs {
		c.MapLen(7)
		c.BulkString("name")
		c.Bulk(g.Name)
		c.BulkString("last-delivered-id")
		replyID(c, g.LastID)
		c.BulkString("entries-read")
		if g.EntriesRead != stream.InvalidEntriesRead {
			c.Integer(g.EntriesRead)
		} else {
			c.Null()
		}
		c.BulkString("lag")
		if lag, ok := st.Lag(g); ok {
			c.Integer(lag)
		} else {
			c.Null()
		}
		c.BulkString("pel-count")
		c.Integer(int64(g.Pel.Len()))
		c.BulkString("pending")
		type pe struct {
			id stream.ID
			n  *stream.NACK
		}
		var pes []pe
		g.Pel.Each(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
			pes = append(pes, pe{id, n})
			return count == 0 || int64(len(pes)) < count
		})
		c.ArrayLen(len(pes))
		for _, p := range pes {
			c.ArrayLen(4)
			replyID(c, p.id)
			c.Bulk(p.n.Consumer.Name)
			c.Integer(p.n.DeliveryTime)
			c.Integer(int64(p.n.DeliveryCount))
		}
		c.BulkString("consumers")
		cs := g.SortedConsumers()
		c.ArrayLen(len(cs))
		for _, cons := range cs {
			c.MapLen(4)
			c.BulkString("name")
			c.Bulk(cons.Name)
			c.BulkString("seen-time")
			c.Integer(cons.SeenTime)
			c.BulkString("pel-count")
			c.Integer(int64(cons.Pel.Len()))
			c.BulkString("pending")
			var cp []pe
			cons.Pel.Each(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
				cp = append(cp, pe{id, n})
				return count == 0 || int64(len(cp)) < count
			})
			c.ArrayLen(len(cp))
			for _, p := range cp {
				c.ArrayLen(3)
				replyID(c, p.id)
				c.Integer(p.n.DeliveryTime)
				c.Integer(int64(p.n.DeliveryCount))
			}
		}
	}
}
