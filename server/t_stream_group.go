package server

import (
	"math"

	"github.com/aofserver/aofserver/stream"
)

// Consumer groups: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM
// (Redis 7.0 t_stream.c), with the same propagation: delivered entries
// are logged as XCLAIM ... FORCE JUSTID LASTID, the group position as
// XGROUP SETID ... ENTRIESREAD.

func init() {
	st := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "stream", summary: summary, since: since, acl: streamACL(acl)}
	}
	w := cmdWrite | cmdDenyOOM
	register(
		st("xgroup", -2, 0, 0, 0, 0, nil, "A container for consumer groups commands", "5.0.0", "@slow"),
		st("xgroup|create", -5, w, 2, 2, 1, xgroupCommand, "Create a consumer group.", "5.0.0", "@write", "@slow"),
		st("xgroup|setid", -5, cmdWrite, 2, 2, 1, xgroupCommand, "Set a consumer group to an arbitrary last delivered ID value.", "5.0.0", "@write", "@slow"),
		st("xgroup|destroy", 4, cmdWrite, 2, 2, 1, xgroupCommand, "Destroy a consumer group.", "5.0.0", "@write", "@slow"),
		st("xgroup|createconsumer", 5, w, 2, 2, 1, xgroupCommand, "Create a consumer in a consumer group.", "6.2.0", "@write", "@slow"),
		st("xgroup|delconsumer", 5, cmdWrite, 2, 2, 1, xgroupCommand, "Delete a consumer from a consumer group.", "5.0.0", "@write", "@slow"),
		st("xgroup|help", 2, cmdLoading|cmdStale, 0, 0, 0, xgroupHelpCommand, "Show helpful text about the different subcommands", "5.0.0", "@stream", "@slow"),
		st("xreadgroup", -7, cmdWrite|cmdBlocking, 0, 0, 0, xreadgroupCommand, "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", "5.0.0", "@write", "@slow", "@blocking"),
		st("xack", -4, cmdWrite|cmdFast, 1, 1, 1, xackCommand, "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", "5.0.0", "@write", "@fast"),
		st("xpending", -3, cmdReadonly, 1, 1, 1, xpendingCommand, "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", "5.0.0", "@read", "@slow"),
		st("xclaim", -6, cmdWrite|cmdFast, 1, 1, 1, xclaimCommand, "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", "5.0.0", "@write", "@fast"),
		st("xautoclaim", -6, cmdWrite|cmdFast, 1, 1, 1, xautoclaimCommand, "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", "6.2.0", "@write", "@fast"),
	)
}

func xreadgroupCommand(c *client, argv [][]byte) { xreadGeneric(c, argv, true) }

// propagateXCLAIM is streamPropagateXCLAIM.
func (s *Server) propagateXCLAIM(c *client, key []byte, g *stream.CG, id stream.ID, n *stream.NACK) {
	s.propagate(c.db.id, [][]byte{
		[]byte("XCLAIM"), cloneBytes(key), cloneBytes(g.Name), cloneBytes(n.Consumer.Name), []byte("0"), id.Bytes(),
		[]byte("TIME"), formatInt(n.DeliveryTime), []byte("RETRYCOUNT"), formatInt(int64(n.DeliveryCount)),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), g.LastID.Bytes(),
	})
}

// propagateGroupID is streamPropagateGroupID.
func (s *Server) propagateGroupID(c *client, key []byte, g *stream.CG) {
	s.propagate(c.db.id, [][]byte{
		[]byte("XGROUP"), []byte("SETID"), cloneBytes(key), cloneBytes(g.Name), g.LastID.Bytes(),
		[]byte("ENTRIESREAD"), formatInt(g.EntriesRead),
	})
}

// propagateConsumerCreation is streamPropagateConsumerCreation.
func (s *Server) propagateConsumerCreation(c *client, key, group, consumer []byte) {
	s.propagate(c.db.id, [][]byte{[]byte("XGROUP"), []byte("CREATECONSUMER"), cloneBytes(key), cloneBytes(group), cloneBytes(consumer)})
}

// xreadgroupServe emits one stream's entries for XREADGROUP (the
// streamReplyWithRange / streamReplyWithRangeFromConsumerPEL part).
func (s *Server) xreadgroupServe(c *client, st *stream.Stream, key []byte, g *stream.CG, group, consumerName []byte, start stream.ID, count int64, noack, history, later bool) {
	now := s.nowMs()
	cons := g.LookupConsumer(consumerName, true, now)
	if cons == nil {
		cons = g.CreateConsumer(consumerName, now)
		s.dirty++
		s.notify(notifyStream, "xgroup-createconsumer", key, c.db.id)
		if noack {
			s.propagateConsumerCreation(c, key, group, consumerName)
		}
	}
	if history {
		type item struct {
			id stream.ID
			nd *stream.Node
			e  *stream.Entry
		}
		var items []item
		cons.Pel.Each(start, func(id stream.ID, n *stream.NACK) bool {
			if count > 0 && int64(len(items)) >= count {
				return false
			}
			nd, e := st.Lookup(id)
			if e != nil {
				n.DeliveryTime = now
				n.DeliveryCount++
			}
			items = append(items, item{id, nd, e})
			return true
		})
		c.arrayLen(len(items))
		for _, it := range items {
			if it.e == nil {
				c.arrayLen(2)
				c.streamID(it.id)
				c.nullArray()
			} else {
				c.streamEntry(it.nd, it.e)
			}
		}
		return
	}
	type ref struct {
		nd *stream.Node
		e  *stream.Entry
	}
	var list []ref
	propagateLastID := false
	st.RangeFwd(start, stream.MaxID, func(nd *stream.Node, e *stream.Entry) bool {
		if e.ID.Cmp(g.LastID) > 0 {
			if g.EntriesRead != stream.InvalidEntriesRead && !st.RangeHasTombstones(e.ID, nil) {
				g.EntriesRead++
			} else if st.EntriesAdded != 0 {
				g.EntriesRead = st.EstimateDistance(e.ID)
			}
			g.LastID = e.ID
			// Redis 7.0 logs the group position only with NOACK; otherwise
			// the XCLAIMs carry it (LASTID).
			propagateLastID = noack
		}
		list = append(list, ref{nd, e})
		if !noack {
			n := g.Pel.Get(e.ID)
			if n == nil {
				n = &stream.NACK{DeliveryTime: now, DeliveryCount: 1, Consumer: cons}
				g.Pel.Insert(e.ID, n)
				cons.Pel.Insert(e.ID, n)
			} else {
				n.Consumer.Pel.Remove(e.ID)
				n.Consumer = cons
				n.DeliveryTime = now
				n.DeliveryCount = 1
				cons.Pel.Insert(e.ID, n)
			}
			s.propagateXCLAIM(c, key, g, e.ID, n)
		}
		return count <= 0 || int64(len(list)) < count
	})
	if propagateLastID {
		s.propagateGroupID(c, key, g)
	}
	c.arrayLen(len(list))
	for _, r := range list {
		c.streamEntry(r.nd, r.e)
	}
}

// ------------------------------------------------------------------ XGROUP

func xgroupHelpCommand(c *client, argv [][]byte) {
	lines := []string{
		"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter.",
		"HELP",
		"    Prints this help.",
	}
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.status(l)
	}
}

func xgroupCommand(c *client, argv [][]byte) {
	s := c.srv
	opt := argv[1]
	mkstream := false
	entriesRead := int64(stream.InvalidEntriesRead)
	var st *stream.Stream
	var cg *stream.CG
	isCreate := eqFold(opt, "create")
	if len(argv) >= 4 {
		if isCreate || eqFold(opt, "setid") {
			for i := 5; i < len(argv); {
				switch {
				case isCreate && eqFold(argv[i], "mkstream"):
					mkstream = true
					i++
				case eqFold(argv[i], "entriesread") && i+1 < len(argv):
					v, ok := parseInt(argv[i+1])
					if !ok {
						c.errNotInt()
						return
					}
					if v < 0 && v != stream.InvalidEntriesRead {
						c.err("ERR value for ENTRIESREAD must be positive or -1")
						return
					}
					entriesRead = v
					i += 2
				default:
					c.err(subcommandSyntaxError(argv))
					return
				}
			}
		}
		var wrong bool
		st, wrong = s.streamWrite(c, argv[2])
		if wrong {
			return
		}
		if !mkstream {
			if st == nil {
				c.err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
				return
			}
			cg = st.LookupCG(argv[3])
			if cg == nil && (eqFold(opt, "setid") || eqFold(opt, "createconsumer") || eqFold(opt, "delconsumer")) {
				c.err("NOGROUP No such consumer group '" + string(argv[3]) + "' for key name '" + string(argv[2]) + "'")
				return
			}
		}
	}
	key := argv[2]
	switch {
	case isCreate && len(argv) >= 5 && len(argv) <= 8:
		var id stream.ID
		if len(argv[4]) == 1 && argv[4][0] == '$' {
			if st != nil {
				id = st.LastID
			}
		} else {
			var ok bool
			if id, ok = parseStreamIDOrReply(c, argv[4], 0, true); !ok {
				return
			}
		}
		if st == nil {
			st = stream.New()
			s.addKey(c.db, key, newStreamEntry(st))
			s.signalModifiedKey(c.db, key)
		}
		if st.CreateCG(argv[3], id, entriesRead) != nil {
			c.ok()
			s.dirty++
			s.notify(notifyStream, "xgroup-create", key, c.db.id)
		} else {
			c.err("BUSYGROUP Consumer Group name already exists")
		}
	case eqFold(opt, "setid") && (len(argv) == 5 || len(argv) == 7):
		var id stream.ID
		if len(argv[4]) == 1 && argv[4][0] == '$' {
			id = st.LastID
		} else {
			var ok bool
			if id, ok = parseStreamIDOrReply(c, argv[4], 0, false); !ok {
				return
			}
		}
		cg.LastID = id
		cg.EntriesRead = entriesRead
		c.ok()
		s.dirty++
		s.notify(notifyStream, "xgroup-setid", key, c.db.id)
	case eqFold(opt, "destroy") && len(argv) == 4:
		if cg != nil {
			delete(st.Groups, string(argv[3]))
			c.integer(1)
			s.dirty++
			s.notify(notifyStream, "xgroup-destroy", key, c.db.id)
			// Blocked XREADGROUP clients get -NOGROUP.
			s.signalKeyAsReady(c.db, key)
		} else {
			c.integer(0)
		}
	case eqFold(opt, "createconsumer") && len(argv) == 5:
		if cg.CreateConsumer(argv[4], s.nowMs()) != nil {
			s.dirty++
			s.notify(notifyStream, "xgroup-createconsumer", key, c.db.id)
			c.integer(1)
		} else {
			c.integer(0)
		}
	case eqFold(opt, "delconsumer") && len(argv) == 5:
		pending := 0
		if cg.LookupConsumer(argv[4], false, 0) != nil {
			pending = cg.DelConsumer(argv[4])
			s.dirty++
			s.notify(notifyStream, "xgroup-delconsumer", key, c.db.id)
		}
		c.integer(int64(pending))
	default:
		c.err(subcommandSyntaxError(argv))
	}
}

// -------------------------------------------------------------------- XACK

func xackCommand(c *client, argv [][]byte) {
	s := c.srv
	_, g, wrong := s.streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.integer(0)
		return
	}
	ids := make([]stream.ID, 0, len(argv)-3)
	for _, a := range argv[3:] {
		id, ok := parseStreamIDOrReply(c, a, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	if p := s.lookupWrite(c, argv[1]); p == nil {
		c.integer(0)
		return
	}
	acked := 0
	for _, id := range ids {
		if n := g.Pel.Get(id); n != nil {
			g.Pel.Remove(id)
			n.Consumer.Pel.Remove(id)
			acked++
			s.dirty++
		}
	}
	c.integer(int64(acked))
}

// ---------------------------------------------------------------- XPENDING

func xpendingCommand(c *client, argv [][]byte) {
	s := c.srv
	justInfo := len(argv) == 3
	if len(argv) != 3 && (len(argv) < 6 || len(argv) > 9) {
		c.errSyntax()
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumerName []byte
	if len(argv) >= 6 {
		startIdx := 3
		if eqFold(argv[3], "idle") {
			v, ok := parseInt(argv[4])
			if !ok {
				c.errNotInt()
				return
			}
			minIdle = v
			if len(argv) < 8 {
				c.errSyntax()
				return
			}
			startIdx += 2
		}
		v, ok := parseInt(argv[startIdx+2])
		if !ok {
			c.errNotInt()
			return
		}
		if v < 0 {
			v = 0
		}
		count = v
		var ex bool
		if start, ex, ok = parseIntervalID(c, argv[startIdx], 0); !ok {
			return
		}
		if ex {
			if start, ok = start.Incr(); !ok {
				c.err("ERR invalid start ID for the interval")
				return
			}
		}
		if end, ex, ok = parseIntervalID(c, argv[startIdx+1], math.MaxUint64); !ok {
			return
		}
		if ex {
			if end, ok = end.Decr(); !ok {
				c.err("ERR invalid end ID for the interval")
				return
			}
		}
		if startIdx+3 < len(argv) {
			consumerName = argv[startIdx+3]
		}
	}
	_, g, wrong := s.streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.err(noGroupErr(argv[1], argv[2]))
		return
	}
	if justInfo {
		c.arrayLen(4)
		c.integer(int64(g.Pel.Len()))
		if g.Pel.Len() == 0 {
			c.nullBulk()
			c.nullBulk()
			c.nullArray()
			return
		}
		first, _ := g.Pel.First()
		last, _ := g.Pel.Last()
		c.streamID(first)
		c.streamID(last)
		var cs []*stream.Consumer
		for _, cons := range g.SortedConsumers() {
			if cons.Pel.Len() > 0 {
				cs = append(cs, cons)
			}
		}
		c.arrayLen(len(cs))
		for _, cons := range cs {
			c.arrayLen(2)
			c.bulk(cons.Name)
			c.bulkInt(int64(cons.Pel.Len()))
		}
		return
	}
	pel := g.Pel
	if consumerName != nil {
		cons := g.LookupConsumer(consumerName, false, 0)
		if cons == nil {
			c.emptyArray()
			return
		}
		pel = cons.Pel
	}
	now := s.nowMs()
	type item struct {
		id stream.ID
		n  *stream.NACK
	}
	var items []item
	if count > 0 {
		pel.Each(start, func(id stream.ID, n *stream.NACK) bool {
			if id.Cmp(end) > 0 {
				return false
			}
			if minIdle != 0 && now-n.DeliveryTime < minIdle {
				return true
			}
			items = append(items, item{id, n})
			return int64(len(items)) < count
		})
	}
	c.arrayLen(len(items))
	for _, it := range items {
		c.arrayLen(4)
		c.streamID(it.id)
		c.bulk(it.n.Consumer.Name)
		elapsed := now - it.n.DeliveryTime
		if elapsed < 0 {
			elapsed = 0
		}
		c.integer(elapsed)
		c.integer(int64(it.n.DeliveryCount))
	}
}

// ------------------------------------------------------------------ XCLAIM

func xclaimCommand(c *client, argv [][]byte) {
	s := c.srv
	st, g, wrong := s.streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.err(noGroupErr(argv[1], argv[2]))
		return
	}
	minIdle, ok := parseInt(argv[4])
	if !ok {
		c.err("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	if minIdle < 0 {
		minIdle = 0
	}
	var ids []stream.ID
	j := 5
	for ; j < len(argv); j++ {
		id, ok := parseStreamID(argv[j], 0, true, nil)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := s.nowMs()
	retryCount := int64(-1)
	deliveryTime := int64(-1)
	force, justID := false, false
	var lastID stream.ID
	propagateLastID := false
	for ; j < len(argv); j++ {
		more := len(argv) - 1 - j
		opt := argv[j]
		switch {
		case eqFold(opt, "force"):
			force = true
		case eqFold(opt, "justid"):
			justID = true
		case eqFold(opt, "idle") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok {
				c.err("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			deliveryTime = now - v
		case eqFold(opt, "time") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok {
				c.err("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			deliveryTime = v
		case eqFold(opt, "retrycount") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok {
				c.err("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			retryCount = v
		case eqFold(opt, "lastid") && more > 0:
			j++
			id, ok := parseStreamIDOrReply(c, argv[j], 0, true)
			if !ok {
				return
			}
			if id.Cmp(g.LastID) > 0 {
				lastID = id
			}
		default:
			c.err("ERR Unrecognized XCLAIM option '" + string(cString(opt)) + "'")
			return
		}
	}
	if p := s.lookupWrite(c, argv[1]); p == nil {
		return
	}
	if lastID.Cmp(g.LastID) > 0 {
		g.LastID = lastID
		propagateLastID = true
	}
	if deliveryTime != -1 {
		if deliveryTime < 0 || deliveryTime > now {
			deliveryTime = now
		}
	} else {
		deliveryTime = now
	}
	c.preventPropagation()
	var cons *stream.Consumer
	var replies [][]byte
	out := c.out
	for _, id := range ids {
		n := g.Pel.Get(id)
		nd, e := st.Lookup(id)
		if e == nil {
			if n != nil {
				s.dropPending(c, argv[1], g, id, n)
				propagateLastID = false
			}
			continue
		}
		if force && n == nil {
			n = &stream.NACK{DeliveryTime: now, DeliveryCount: 1}
			g.Pel.Insert(id, n)
		}
		if n == nil {
			continue
		}
		if n.Consumer != nil && minIdle != 0 && now-n.DeliveryTime < minIdle {
			continue
		}
		cons = s.claimPending(c, argv[1], g, cons, argv[3], id, n, now, deliveryTime, retryCount, justID)
		c.out = nil
		if justID {
			c.streamID(id)
		} else {
			c.streamEntry(nd, e)
		}
		replies = append(replies, c.out)
		c.out = out
		s.propagateXCLAIM(c, argv[1], g, id, n)
		propagateLastID = false
		s.dirty++
	}
	c.out = out
	if propagateLastID {
		s.propagateGroupID(c, argv[1], g)
		s.dirty++
	}
	c.arrayLen(len(replies))
	for _, r := range replies {
		c.addReplyRaw(r)
	}
}

// -------------------------------------------------------------- XAUTOCLAIM

func xautoclaimCommand(c *client, argv [][]byte) {
	s := c.srv
	minIdle, ok := parseInt(argv[4])
	if !ok {
		c.err("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	if minIdle < 0 {
		minIdle = 0
	}
	start, ex, ok := parseIntervalID(c, argv[5], 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Incr(); !ok {
			c.err("ERR invalid start ID for the interval")
			return
		}
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case eqFold(argv[j], "count") && more > 0:
			v, ok := parseInt(argv[j+1])
			if !ok || v < 1 || v > math.MaxInt64/16 {
				c.err("ERR COUNT must be > 0")
				return
			}
			count = v
			j++
		case eqFold(argv[j], "justid"):
			justID = true
		default:
			c.errSyntax()
			return
		}
	}
	st, g, wrong := s.streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.err(noGroupErr(argv[1], argv[2]))
		return
	}
	s.lookupWrite(c, argv[1])
	c.preventPropagation()
	attempts := count * 10
	now := s.nowMs()
	var cons *stream.Consumer
	var deleted []stream.ID
	out := c.out
	c.out = nil
	claimed := 0
	cur := start
	var endID stream.ID
	exhausted := false
	for {
		if attempts == 0 || count == 0 {
			break
		}
		attempts--
		id, n, found := g.Pel.Ceil(cur)
		if !found {
			exhausted = true
			break
		}
		cur, _ = id.Incr()
		nd, e := st.Lookup(id)
		if e == nil {
			s.dropPending(c, argv[1], g, id, n)
			deleted = append(deleted, id)
			count--
			continue
		}
		if minIdle != 0 && now-n.DeliveryTime < minIdle {
			continue
		}
		cons = s.claimPending(c, argv[1], g, cons, argv[3], id, n, now, now, -1, justID)
		if justID {
			c.streamID(id)
		} else {
			c.streamEntry(nd, e)
		}
		claimed++
		count--
		s.propagateXCLAIM(c, argv[1], g, id, n)
		s.dirty++
		if id == stream.MaxID {
			exhausted = true
			break
		}
	}
	if !exhausted {
		if id, _, found := g.Pel.Ceil(cur); found {
			endID = id
		}
	}
	body := c.out
	c.out = out
	c.arrayLen(3)
	c.streamID(endID)
	c.arrayLen(claimed)
	c.addReplyRaw(body)
	c.arrayLen(len(deleted))
	for _, id := range deleted {
		c.streamID(id)
	}
}

// dropPending removes a pending entry whose stream entry was deleted, and
// logs that as Redis does (an XCLAIM that the replica/AOF applies as a
// removal).
func (s *Server) dropPending(c *client, key []byte, g *stream.CG, id stream.ID, n *stream.NACK) {
	s.propagateXCLAIM(c, key, g, id, n)
	s.dirty++
	g.Pel.Remove(id)
	n.Consumer.Pel.Remove(id)
}

// claimPending moves pending entry n to consumer name (created on first
// use; cons caches it across a command) with a new delivery time, and a
// delivery count set to retryCount, or incremented unless justID. It
// returns the consumer.
func (s *Server) claimPending(c *client, key []byte, g *stream.CG, cons *stream.Consumer, name []byte, id stream.ID, n *stream.NACK, now, deliveryTime, retryCount int64, justID bool) *stream.Consumer {
	if cons == nil {
		if cons = g.LookupConsumer(name, true, now); cons == nil {
			cons = g.CreateConsumer(name, now)
			s.dirty++
			s.notify(notifyStream, "xgroup-createconsumer", key, c.db.id)
		}
	}
	if n.Consumer != cons && n.Consumer != nil {
		n.Consumer.Pel.Remove(id)
	}
	n.DeliveryTime = deliveryTime
	if retryCount >= 0 {
		n.DeliveryCount = uint64(retryCount)
	} else if !justID {
		n.DeliveryCount++
	}
	if n.Consumer != cons {
		cons.Pel.Insert(id, n)
		n.Consumer = cons
	}
	return cons
}

// streamGroup looks up the stream at key (wrong: a wrong-type reply was
// sent) and its consumer group; g is nil when either is missing.
func (s *Server) streamGroup(c *client, key, group []byte) (st *stream.Stream, g *stream.CG, wrong bool) {
	st, wrong = s.streamRead(c, key)
	if st != nil {
		g = st.LookupCG(group)
	}
	return st, g, wrong
}

func noGroupErr(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}
