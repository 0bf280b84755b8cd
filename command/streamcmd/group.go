package streamcmd

import (
	"bytes"
	"math"
	"strconv"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/stream"
)

// Consumer groups: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM
// (Redis 7.0 t_stream.c), with the same propagation: delivered entries
// are logged as XCLAIM ... FORCE JUSTID LASTID, the group position as
// XGROUP SETID ... ENTRIESREAD.

func xreadgroupCommand(c command.Ctx, argv [][]byte) { xreadGeneric(c, argv, true) }

// propagateXCLAIM is streamPropagateXCLAIM.
func propagateXCLAIM(c command.Ctx, key []byte, g *stream.CG, id stream.ID, n *stream.NACK) {
	c.Propagate([][]byte{
		[]byte("XCLAIM"), bytes.Clone(key), bytes.Clone(g.Name), bytes.Clone(n.Consumer.Name), []byte("0"), id.Bytes(),
		[]byte("TIME"), strconv.AppendInt(nil, n.DeliveryTime, 10), []byte("RETRYCOUNT"), strconv.AppendInt(nil, int64(n.DeliveryCount), 10),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), g.LastID.Bytes(),
	})
}

// propagateGroupID is streamPropagateGroupID.
func propagateGroupID(c command.Ctx, key []byte, g *stream.CG) {
	c.Propagate([][]byte{
		[]byte("XGROUP"), []byte("SETID"), bytes.Clone(key), bytes.Clone(g.Name), g.LastID.Bytes(),
		[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10),
	})
}

// propagateConsumerCreation is streamPropagateConsumerCreation.
func propagateConsumerCreation(c command.Ctx, key, group, consumer []byte) {
	c.Propagate([][]byte{[]byte("XGROUP"), []byte("CREATECONSUMER"), bytes.Clone(key), bytes.Clone(group), bytes.Clone(consumer)})
}

// xreadgroupServe emits one stream's entries for XREADGROUP (the
// streamReplyWithRange / streamReplyWithRangeFromConsumerPEL part).
func xreadgroupServe(c command.Ctx, st *stream.Stream, key []byte, g *stream.CG, group, consumerName []byte, start stream.ID, count int64, noack, history bool) {
	now := c.NowMs()
	cons := g.LookupConsumer(consumerName, true, now)
	if cons == nil {
		cons = g.CreateConsumer(consumerName, now)
		c.AddDirty(1)
		c.Notify(command.NotifyStream, "xgroup-createconsumer", key)
		if noack {
			propagateConsumerCreation(c, key, group, consumerName)
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
		c.ArrayLen(len(items))
		for _, it := range items {
			if it.e == nil {
				c.ArrayLen(2)
				replyID(c, it.id)
				c.NullArray()
			} else {
				replyEntry(c, it.nd, it.e)
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
			propagateXCLAIM(c, key, g, e.ID, n)
		}
		return count <= 0 || int64(len(list)) < count
	})
	if propagateLastID {
		propagateGroupID(c, key, g)
	}
	c.ArrayLen(len(list))
	for _, r := range list {
		replyEntry(c, r.nd, r.e)
	}
}

// ------------------------------------------------------------------ XGROUP

func xgroupHelpCommand(c command.Ctx, argv [][]byte) {
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
	c.ArrayLen(len(lines))
	for _, l := range lines {
		c.Status(l)
	}
}

func xgroupCommand(c command.Ctx, argv [][]byte) {
	opt := argv[1]
	mkstream := false
	entriesRead := int64(stream.InvalidEntriesRead)
	var st *stream.Stream
	var cg *stream.CG
	isCreate := rstring.EqualFold(opt, "create")
	if len(argv) >= 4 {
		if isCreate || rstring.EqualFold(opt, "setid") {
			for i := 5; i < len(argv); {
				switch {
				case isCreate && rstring.EqualFold(argv[i], "mkstream"):
					mkstream = true
					i++
				case rstring.EqualFold(argv[i], "entriesread") && i+1 < len(argv):
					v, ok := rstring.String2ll(argv[i+1])
					if !ok {
						c.Err(command.ErrNotInt)
						return
					}
					if v < 0 && v != stream.InvalidEntriesRead {
						c.Err("ERR value for ENTRIESREAD must be positive or -1")
						return
					}
					entriesRead = v
					i += 2
				default:
					c.Err(command.SubcommandSyntaxError(argv))
					return
				}
			}
		}
		var wrong bool
		st, wrong = writeStream(c, argv[2])
		if wrong {
			return
		}
		if !mkstream {
			if st == nil {
				c.Err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
				return
			}
			cg = st.LookupCG(argv[3])
			if cg == nil && (rstring.EqualFold(opt, "setid") || rstring.EqualFold(opt, "createconsumer") || rstring.EqualFold(opt, "delconsumer")) {
				c.Err("NOGROUP No such consumer group '" + string(argv[3]) + "' for key name '" + string(argv[2]) + "'")
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
			c.AddKey(key, command.Obj(command.TypeStream, st))
			c.SignalModifiedKey(key)
		}
		if st.CreateCG(argv[3], id, entriesRead) != nil {
			c.OK()
			c.AddDirty(1)
			c.Notify(command.NotifyStream, "xgroup-create", key)
		} else {
			c.Err("BUSYGROUP Consumer Group name already exists")
		}
	case rstring.EqualFold(opt, "setid") && (len(argv) == 5 || len(argv) == 7):
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
		c.OK()
		c.AddDirty(1)
		c.Notify(command.NotifyStream, "xgroup-setid", key)
	case rstring.EqualFold(opt, "destroy") && len(argv) == 4:
		if cg != nil {
			delete(st.Groups, string(argv[3]))
			c.Integer(1)
			c.AddDirty(1)
			c.Notify(command.NotifyStream, "xgroup-destroy", key)
			// Blocked XREADGROUP clients get -NOGROUP.
			c.SignalReady(key)
		} else {
			c.Integer(0)
		}
	case rstring.EqualFold(opt, "createconsumer") && len(argv) == 5:
		if cg.CreateConsumer(argv[4], c.NowMs()) != nil {
			c.AddDirty(1)
			c.Notify(command.NotifyStream, "xgroup-createconsumer", key)
			c.Integer(1)
		} else {
			c.Integer(0)
		}
	case rstring.EqualFold(opt, "delconsumer") && len(argv) == 5:
		pending := 0
		if cg.LookupConsumer(argv[4], false, 0) != nil {
			pending = cg.DelConsumer(argv[4])
			c.AddDirty(1)
			c.Notify(command.NotifyStream, "xgroup-delconsumer", key)
		}
		c.Integer(int64(pending))
	default:
		c.Err(command.SubcommandSyntaxError(argv))
	}
}

// -------------------------------------------------------------------- XACK

func xackCommand(c command.Ctx, argv [][]byte) {
	_, g, wrong := streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.Integer(0)
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
	if _, ok := c.LookupWrite(argv[1]); !ok {
		c.Integer(0)
		return
	}
	acked := 0
	for _, id := range ids {
		if n := g.Pel.Get(id); n != nil {
			g.Pel.Remove(id)
			n.Consumer.Pel.Remove(id)
			acked++
			c.AddDirty(1)
		}
	}
	c.Integer(int64(acked))
}

// ---------------------------------------------------------------- XPENDING

func xpendingCommand(c command.Ctx, argv [][]byte) {
	justInfo := len(argv) == 3
	if len(argv) != 3 && (len(argv) < 6 || len(argv) > 9) {
		c.Err(command.ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumerName []byte
	if len(argv) >= 6 {
		startIdx := 3
		if rstring.EqualFold(argv[3], "idle") {
			v, ok := rstring.String2ll(argv[4])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			minIdle = v
			if len(argv) < 8 {
				c.Err(command.ErrSyntax)
				return
			}
			startIdx += 2
		}
		v, ok := rstring.String2ll(argv[startIdx+2])
		if !ok {
			c.Err(command.ErrNotInt)
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
				c.Err("ERR invalid start ID for the interval")
				return
			}
		}
		if end, ex, ok = parseIntervalID(c, argv[startIdx+1], math.MaxUint64); !ok {
			return
		}
		if ex {
			if end, ok = end.Decr(); !ok {
				c.Err("ERR invalid end ID for the interval")
				return
			}
		}
		if startIdx+3 < len(argv) {
			consumerName = argv[startIdx+3]
		}
	}
	_, g, wrong := streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.Err(noGroupErr(argv[1], argv[2]))
		return
	}
	if justInfo {
		c.ArrayLen(4)
		c.Integer(int64(g.Pel.Len()))
		if g.Pel.Len() == 0 {
			c.Null()
			c.Null()
			c.NullArray()
			return
		}
		first, _ := g.Pel.First()
		last, _ := g.Pel.Last()
		replyID(c, first)
		replyID(c, last)
		var cs []*stream.Consumer
		for _, cons := range g.SortedConsumers() {
			if cons.Pel.Len() > 0 {
				cs = append(cs, cons)
			}
		}
		c.ArrayLen(len(cs))
		for _, cons := range cs {
			c.ArrayLen(2)
			c.Bulk(cons.Name)
			c.Bulk(strconv.AppendInt(c.Scratch(), int64(cons.Pel.Len()), 10))
		}
		return
	}
	pel := g.Pel
	if consumerName != nil {
		cons := g.LookupConsumer(consumerName, false, 0)
		if cons == nil {
			c.EmptyArray()
			return
		}
		pel = cons.Pel
	}
	now := c.NowMs()
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
	c.ArrayLen(len(items))
	for _, it := range items {
		c.ArrayLen(4)
		replyID(c, it.id)
		c.Bulk(it.n.Consumer.Name)
		elapsed := now - it.n.DeliveryTime
		if elapsed < 0 {
			elapsed = 0
		}
		c.Integer(elapsed)
		c.Integer(int64(it.n.DeliveryCount))
	}
}

// ------------------------------------------------------------------ XCLAIM

func xclaimCommand(c command.Ctx, argv [][]byte) {
	st, g, wrong := streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.Err(noGroupErr(argv[1], argv[2]))
		return
	}
	minIdle, ok := rstring.String2ll(argv[4])
	if !ok {
		c.Err("ERR Invalid min-idle-time argument for XCLAIM")
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
	now := c.NowMs()
	retryCount := int64(-1)
	deliveryTime := int64(-1)
	force, justID := false, false
	var lastID stream.ID
	propagateLastID := false
	for ; j < len(argv); j++ {
		more := len(argv) - 1 - j
		opt := argv[j]
		switch {
		case rstring.EqualFold(opt, "force"):
			force = true
		case rstring.EqualFold(opt, "justid"):
			justID = true
		case rstring.EqualFold(opt, "idle") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok {
				c.Err("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			deliveryTime = now - v
		case rstring.EqualFold(opt, "time") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok {
				c.Err("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			deliveryTime = v
		case rstring.EqualFold(opt, "retrycount") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok {
				c.Err("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			retryCount = v
		case rstring.EqualFold(opt, "lastid") && more > 0:
			j++
			id, ok := parseStreamIDOrReply(c, argv[j], 0, true)
			if !ok {
				return
			}
			if id.Cmp(g.LastID) > 0 {
				lastID = id
			}
		default:
			c.Err("ERR Unrecognized XCLAIM option '" + string(rstring.CString(opt)) + "'")
			return
		}
	}
	if _, ok := c.LookupWrite(argv[1]); !ok {
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
	c.PreventPropagation()
	var cons *stream.Consumer
	at := c.DeferLen()
	replied := 0
	for _, id := range ids {
		n := g.Pel.Get(id)
		nd, e := st.Lookup(id)
		if e == nil {
			if n != nil {
				dropPending(c, argv[1], g, id, n)
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
		cons = claimPending(c, argv[1], g, cons, argv[3], id, n, now, deliveryTime, retryCount, justID)
		if justID {
			replyID(c, id)
		} else {
			replyEntry(c, nd, e)
		}
		replied++
		propagateXCLAIM(c, argv[1], g, id, n)
		propagateLastID = false
		c.AddDirty(1)
	}
	if propagateLastID {
		propagateGroupID(c, argv[1], g)
		c.AddDirty(1)
	}
	c.SetArrayLen(at, replied)
}

// -------------------------------------------------------------- XAUTOCLAIM

func xautoclaimCommand(c command.Ctx, argv [][]byte) {
	minIdle, ok := rstring.String2ll(argv[4])
	if !ok {
		c.Err("ERR Invalid min-idle-time argument for XAUTOCLAIM")
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
			c.Err("ERR invalid start ID for the interval")
			return
		}
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case rstring.EqualFold(argv[j], "count") && more > 0:
			v, ok := rstring.String2ll(argv[j+1])
			if !ok || v < 1 || v > math.MaxInt64/16 {
				c.Err("ERR COUNT must be > 0")
				return
			}
			count = v
			j++
		case rstring.EqualFold(argv[j], "justid"):
			justID = true
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	st, g, wrong := streamGroup(c, argv[1], argv[2])
	if wrong {
		return
	}
	if g == nil {
		c.Err(noGroupErr(argv[1], argv[2]))
		return
	}
	c.LookupWrite(argv[1])
	c.PreventPropagation()
	attempts := count * 10
	now := c.NowMs()
	var cons *stream.Consumer
	var deleted []stream.ID
	type claim struct {
		id stream.ID
		nd *stream.Node
		e  *stream.Entry
	}
	var claimed []claim
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
			dropPending(c, argv[1], g, id, n)
			deleted = append(deleted, id)
			count--
			continue
		}
		if minIdle != 0 && now-n.DeliveryTime < minIdle {
			continue
		}
		cons = claimPending(c, argv[1], g, cons, argv[3], id, n, now, now, -1, justID)
		claimed = append(claimed, claim{id, nd, e})
		count--
		propagateXCLAIM(c, argv[1], g, id, n)
		c.AddDirty(1)
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
	c.ArrayLen(3)
	replyID(c, endID)
	c.ArrayLen(len(claimed))
	for _, cl := range claimed {
		if justID {
			replyID(c, cl.id)
		} else {
			replyEntry(c, cl.nd, cl.e)
		}
	}
	c.ArrayLen(len(deleted))
	for _, id := range deleted {
		replyID(c, id)
	}
}

// dropPending removes a pending entry whose stream entry was deleted, and
// logs that as Redis does (an XCLAIM that the replica/AOF applies as a
// removal).
func dropPending(c command.Ctx, key []byte, g *stream.CG, id stream.ID, n *stream.NACK) {
	propagateXCLAIM(c, key, g, id, n)
	c.AddDirty(1)
	g.Pel.Remove(id)
	n.Consumer.Pel.Remove(id)
}

// claimPending moves pending entry n to consumer name (created on first
// use; cons caches it across a command) with a new delivery time, and a
// delivery count set to retryCount, or incremented unless justID. It
// returns the consumer.
func claimPending(c command.Ctx, key []byte, g *stream.CG, cons *stream.Consumer, name []byte, id stream.ID, n *stream.NACK, now, deliveryTime, retryCount int64, justID bool) *stream.Consumer {
	if cons == nil {
		if cons = g.LookupConsumer(name, true, now); cons == nil {
			cons = g.CreateConsumer(name, now)
			c.AddDirty(1)
			c.Notify(command.NotifyStream, "xgroup-createconsumer", key)
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
func streamGroup(c command.Ctx, key, group []byte) (st *stream.Stream, g *stream.CG, wrong bool) {
	st, wrong = readStream(c, key)
	if st != nil {
		g = st.LookupCG(group)
	}
	return st, g, wrong
}

func noGroupErr(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}
