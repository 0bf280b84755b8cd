package server

import "encoding/binary"

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

// radixTreeNodes is the node count of the rax Redis keeps the stream's
// listpacks in: keys are the 16-byte big-endian master IDs, and a rax node
// sits at the root, at each child of a branching point and at the end of
// each compressed chain (the canonical compressed form).
func (s *streamObj) radixTreeNodes() int {
	keys := make([][16]byte, len(s.nodes))
	for i, nd := range s.nodes {
		binary.BigEndian.PutUint64(keys[i][:8], nd.master.ms)
		binary.BigEndian.PutUint64(keys[i][8:], nd.master.seq)
	}
	if len(keys) == 0 {
		return 1
	}
	return raxNodes(keys, 0)
}

// raxNodes counts the nodes below (and including) the rax node at depth d
// shared by keys (sorted, distinct, all 16 bytes).
func raxNodes(keys [][16]byte, d int) int {
	if d == 16 {
		return 1
	}
	same := func(d int) bool { return keys[0][d] == keys[len(keys)-1][d] }
	if same(d) {
		e := d + 1
		for e < 16 && same(e) {
			e++
		}
		return 1 + raxNodes(keys, e)
	}
	n := 1
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][d] == keys[i][d] {
			j++
		}
		n += raxNodes(keys[i:j], d+1)
		i = j
	}
	return n
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
		g := st.lookupCG(argv[3])
		if g == nil {
			c.err("NOGROUP No such consumer group '" + string(argv[3]) + "' for key name '" + string(argv[2]) + "'")
			return
		}
		cs := g.sortedConsumers()
		c.arrayLen(len(cs))
		for _, cons := range cs {
			idle := now - cons.seenTime
			if idle < 0 {
				idle = 0
			}
			c.mapLen(3)
			c.bulkString("name")
			c.bulk(cons.name)
			c.bulkString("pending")
			c.integer(int64(cons.pel.len()))
			c.bulkString("idle")
			c.integer(idle)
		}
	case eqFold(sub, "groups"):
		gs := st.sortedGroups()
		c.arrayLen(len(gs))
		for _, g := range gs {
			c.mapLen(6)
			c.bulkString("name")
			c.bulk(g.name)
			c.bulkString("consumers")
			c.integer(int64(len(g.consumers)))
			c.bulkString("pending")
			c.integer(int64(g.pel.len()))
			c.bulkString("last-delivered-id")
			c.streamID(g.lastID)
			c.bulkString("entries-read")
			if g.entriesRead != scgInvalidEntriesRead {
				c.integer(g.entriesRead)
			} else {
				c.nullBulk()
			}
			c.bulkString("lag")
			if lag, ok := st.lag(g); ok {
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

func xinfoStream(c *client, st *streamObj, full bool, count int64, now int64) {
	if !full {
		c.mapLen(10)
	} else {
		c.mapLen(9)
	}
	c.bulkString("length")
	c.integer(int64(st.length))
	c.bulkString("radix-tree-keys")
	c.integer(int64(len(st.nodes)))
	c.bulkString("radix-tree-nodes")
	c.integer(int64(st.radixTreeNodes()))
	c.bulkString("last-generated-id")
	c.streamID(st.lastID)
	c.bulkString("max-deleted-entry-id")
	c.streamID(st.maxDeletedID)
	c.bulkString("entries-added")
	c.integer(int64(st.entriesAdded))
	c.bulkString("recorded-first-entry-id")
	c.streamID(st.firstID)
	if !full {
		c.bulkString("groups")
		c.integer(int64(len(st.groups)))
		var first, last *streamEntry
		var firstNode, lastNode *streamNode
		st.rangeFwd(streamID{}, streamIDMax, func(nd *streamNode, e *streamEntry) bool { firstNode, first = nd, e; return false })
		st.rangeRev(streamID{}, streamIDMax, func(nd *streamNode, e *streamEntry) bool { lastNode, last = nd, e; return false })
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
	streamReplyRange(c, st, streamID{}, streamIDMax, count, false)
	c.bulkString("groups")
	gs := st.sortedGroups()
	c.arrayLen(len(gs))
	for _, g := range gs {
		c.mapLen(7)
		c.bulkString("name")
		c.bulk(g.name)
		c.bulkString("last-delivered-id")
		c.streamID(g.lastID)
		c.bulkString("entries-read")
		if g.entriesRead != scgInvalidEntriesRead {
			c.integer(g.entriesRead)
		} else {
			c.nullBulk()
		}
		c.bulkString("lag")
		if lag, ok := st.lag(g); ok {
			c.integer(lag)
		} else {
			c.nullBulk()
		}
		c.bulkString("pel-count")
		c.integer(int64(g.pel.len()))
		c.bulkString("pending")
		type pe struct {
			id streamID
			n  *streamNACK
		}
		var pes []pe
		g.pel.each(streamID{}, func(id streamID, n *streamNACK) bool {
			pes = append(pes, pe{id, n})
			return count == 0 || int64(len(pes)) < count
		})
		c.arrayLen(len(pes))
		for _, p := range pes {
			c.arrayLen(4)
			c.streamID(p.id)
			c.bulk(p.n.consumer.name)
			c.integer(p.n.deliveryTime)
			c.integer(int64(p.n.deliveryCount))
		}
		c.bulkString("consumers")
		cs := g.sortedConsumers()
		c.arrayLen(len(cs))
		for _, cons := range cs {
			c.mapLen(4)
			c.bulkString("name")
			c.bulk(cons.name)
			c.bulkString("seen-time")
			c.integer(cons.seenTime)
			c.bulkString("pel-count")
			c.integer(int64(cons.pel.len()))
			c.bulkString("pending")
			var cp []pe
			cons.pel.each(streamID{}, func(id streamID, n *streamNACK) bool {
				cp = append(cp, pe{id, n})
				return count == 0 || int64(len(cp)) < count
			})
			c.arrayLen(len(cp))
			for _, p := range cp {
				c.arrayLen(3)
				c.streamID(p.id)
				c.integer(p.n.deliveryTime)
				c.integer(int64(p.n.deliveryCount))
			}
		}
	}
}
