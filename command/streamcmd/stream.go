// Package streamcmd is the stream command group (Redis 7.0's t_stream.c):
// XADD XRANGE XREVRANGE XLEN XDEL XTRIM XSETID XREAD (here), the consumer
// groups' XGROUP XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM (group.go) and
// XINFO (info.go), on package stream's representation, written against the
// seam of package command. XREAD and XREADGROUP with BLOCK park the client
// through the seam's Blocker and are served from here when a key they
// wait on is signalled.
package streamcmd

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/stream"
)

// Group is the "stream" group, as the server registers it. XGROUP and
// XINFO are containers (no proc) for their subcommands.
var Group = command.Group{Name: "stream", Category: "@stream", Commands: []command.Spec{
	st("xadd", -5, w|command.FlagFast, 1, xaddCommand, "Appends a new entry to a stream", "5.0.0", "@write", "@fast"),
	st("xrange", -4, r, 1, xrangeCommand, "Return a range of elements in a stream, with IDs matching the specified IDs interval", "5.0.0", "@read", "@slow"),
	st("xrevrange", -4, r, 1, xrevrangeCommand, "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", "5.0.0", "@read", "@slow"),
	st("xlen", 2, r|command.FlagFast, 1, xlenCommand, "Return the number of entries in a stream", "5.0.0", "@read", "@fast"),
	st("xdel", -3, command.FlagWrite|command.FlagFast, 1, xdelCommand, "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", "5.0.0", "@write", "@fast"),
	st("xtrim", -4, command.FlagWrite, 1, xtrimCommand, "Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0", "@write", "@slow"),
	st("xsetid", -3, w|command.FlagFast, 1, xsetidCommand, "An internal command for replicating stream values", "5.0.0", "@write", "@fast"),
	st("xread", -4, r|command.FlagBlocking, 0, xreadCommand, "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", "5.0.0", "@read", "@slow", "@blocking"),

	st("xgroup", -2, 0, 0, nil, "A container for consumer groups commands", "5.0.0", "@slow"),
	st("xgroup|create", -5, w, 2, xgroupCommand, "Create a consumer group.", "5.0.0", "@write", "@slow"),
	st("xgroup|setid", -5, command.FlagWrite, 2, xgroupCommand, "Set a consumer group to an arbitrary last delivered ID value.", "5.0.0", "@write", "@slow"),
	st("xgroup|destroy", 4, command.FlagWrite, 2, xgroupCommand, "Destroy a consumer group.", "5.0.0", "@write", "@slow"),
	st("xgroup|createconsumer", 5, w, 2, xgroupCommand, "Create a consumer in a consumer group.", "6.2.0", "@write", "@slow"),
	st("xgroup|delconsumer", 5, command.FlagWrite, 2, xgroupCommand, "Delete a consumer from a consumer group.", "5.0.0", "@write", "@slow"),
	st("xgroup|help", 2, command.FlagLoading|command.FlagStale, 0, xgroupHelpCommand, "Show helpful text about the different subcommands", "5.0.0", "@slow"),
	st("xreadgroup", -7, command.FlagWrite|command.FlagBlocking, 0, xreadgroupCommand, "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", "5.0.0", "@write", "@slow", "@blocking"),
	st("xack", -4, command.FlagWrite|command.FlagFast, 1, xackCommand, "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", "5.0.0", "@write", "@fast"),
	st("xpending", -3, r, 1, xpendingCommand, "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", "5.0.0", "@read", "@slow"),
	st("xclaim", -6, command.FlagWrite|command.FlagFast, 1, xclaimCommand, "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", "5.0.0", "@write", "@fast"),
	st("xautoclaim", -6, command.FlagWrite|command.FlagFast, 1, xautoclaimCommand, "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", "6.2.0", "@write", "@fast"),

	st("xinfo", -2, 0, 0, nil, "A container for stream introspection commands", "5.0.0", "@slow"),
	st("xinfo|consumers", 4, r, 2, xinfoCommand, "List the consumers in a consumer group", "5.0.0", "@read", "@slow"),
	st("xinfo|groups", 3, r, 2, xinfoCommand, "List the consumer groups of a stream", "5.0.0", "@read", "@slow"),
	st("xinfo|stream", -3, r, 2, xinfoCommand, "Get information about a stream", "5.0.0", "@read", "@slow"),
	st("xinfo|help", 2, command.FlagLoading|command.FlagStale, 0, xinfoHelpCommand, "Show helpful text about the different subcommands", "5.0.0", "@slow"),
}}

const (
	w = command.FlagWrite | command.FlagDenyOOM
	r = command.FlagReadonly
)

// st is a command with one key at argument first (0: none, or found by
// the command itself: XREAD and XREADGROUP's after STREAMS).
func st(name string, arity int, flags command.Flag, first int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	step := 0
	if first > 0 {
		step = 1
	}
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: first, Step: step, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// NodeLimits are stream-node-max-entries and stream-node-max-bytes as
// configured (the server builds loaded streams with them too).
func NodeLimits(cfg *config.Config) stream.NodeLimits {
	return stream.NodeLimits{MaxEntries: cfg.StreamNodeMaxEntries, MaxBytes: cfg.StreamNodeMaxBytes}
}

// replyID replies id as a bulk string, "<ms>-<seq>".
func replyID(c command.Replier, id stream.ID) {
	c.Bulk(stream.AppendID(c.Scratch(), id))
}

// replyEntry replies [id, [field, value, ...]].
func replyEntry(c command.Replier, nd *stream.Node, e *stream.Entry) {
	c.ArrayLen(2)
	replyID(c, e.ID)
	c.ArrayLen(2 * nd.NumFields(e))
	nd.EachField(e, func(f, v []byte) {
		c.Bulk(f)
		c.Bulk(v)
	})
}

// -------------------------------------------------------------- ID parsing

const errInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"

// parseStreamID is streamGenericParseIDOrReply without the reply. With
// seqGiven non-nil the "<ms>-*" form is accepted (XADD) and *seqGiven
// reports whether the sequence was explicit.
func parseStreamID(b []byte, missingSeq uint64, strict bool, seqGiven *bool) (stream.ID, bool) {
	if seqGiven != nil {
		*seqGiven = true
	}
	if len(b) > 127 {
		return stream.ID{}, false
	}
	// C string semantics: an embedded NUL ends the argument.
	for i, ch := range b {
		if ch == 0 {
			b = b[:i]
			break
		}
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return stream.ID{}, false
		}
		if b[0] == '-' {
			return stream.ID{}, true
		}
		return stream.MaxID, true
	}
	dot := -1
	for i, ch := range b {
		if ch == '-' {
			dot = i
			break
		}
	}
	msPart := b
	if dot >= 0 {
		msPart = b[:dot]
	}
	ms, ok := rstring.String2ull(msPart)
	if !ok {
		return stream.ID{}, false
	}
	seq := missingSeq
	if dot >= 0 {
		rest := b[dot+1:]
		if seqGiven != nil && len(rest) == 1 && rest[0] == '*' {
			seq = 0
			*seqGiven = false
		} else if seq, ok = rstring.String2ull(rest); !ok {
			return stream.ID{}, false
		}
	}
	return stream.ID{Ms: ms, Seq: seq}, true
}

func parseStreamIDOrReply(c command.Replier, b []byte, missingSeq uint64, strict bool) (stream.ID, bool) {
	id, ok := parseStreamID(b, missingSeq, strict, nil)
	if !ok {
		c.Err(errInvalidStreamID)
	}
	return id, ok
}

// parseIntervalID is streamParseIntervalIDOrReply: "(" makes the bound
// exclusive (and strict).
func parseIntervalID(c command.Replier, b []byte, missingSeq uint64) (id stream.ID, exclude, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok = parseStreamIDOrReply(c, b[1:], missingSeq, true)
		return id, true, ok
	}
	id, ok = parseStreamIDOrReply(c, b, missingSeq, false)
	return id, false, ok
}

// ------------------------------------------------------------- lookups

// readStream returns key's stream for a read; wrong=true after WRONGTYPE.
func readStream(c command.Ctx, key []byte) (st *stream.Stream, wrong bool) {
	return command.ReadTyped[stream.Stream](c, key, command.TypeStream)
}

func writeStream(c command.Ctx, key []byte) (st *stream.Stream, wrong bool) {
	return command.WriteTyped[stream.Stream](c, key, command.TypeStream)
}

// -------------------------------------------------------------- XADD/XTRIM

type streamAddArgs struct {
	stream.TrimArgs
	id         stream.ID
	idGiven    bool
	seqGiven   bool
	noMkCreate bool
}

// parseAddOrTrimArgs is streamParseAddOrTrimArgsOrReply; it returns the
// index of the ID argument (XADD) or -1 after an error reply.
func parseAddOrTrimArgs(c command.Ctx, argv [][]byte, a *streamAddArgs, xadd bool) int {
	i := 2
	limitGiven := false
	for ; i < len(argv); i++ {
		more := len(argv) - 1 - i
		opt := argv[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			goto done
		case rstring.EqualFold(opt, "maxlen") && more > 0:
			if a.Strategy != stream.TrimNone {
				c.Err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return -1
			}
			a.Approx = false
			next := argv[i+1]
			if more >= 2 && len(next) == 1 && next[0] == '~' {
				a.Approx = true
				i++
			} else if more >= 2 && len(next) == 1 && next[0] == '=' {
				i++
			}
			v, ok := rstring.String2ll(argv[i+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return -1
			}
			if v < 0 {
				c.Err("ERR The MAXLEN argument must be >= 0.")
				return -1
			}
			a.Maxlen = v
			i++
			a.Strategy = stream.TrimMaxlen
			a.ArgIdx = i
		case rstring.EqualFold(opt, "minid") && more > 0:
			if a.Strategy != stream.TrimNone {
				c.Err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return -1
			}
			a.Approx = false
			next := argv[i+1]
			if more >= 2 && len(next) == 1 && next[0] == '~' {
				a.Approx = true
				i++
			} else if more >= 2 && len(next) == 1 && next[0] == '=' {
				i++
			}
			id, ok := parseStreamIDOrReply(c, argv[i+1], 0, true)
			if !ok {
				return -1
			}
			a.MinID = id
			i++
			a.Strategy = stream.TrimMinID
			a.ArgIdx = i
		case rstring.EqualFold(opt, "limit") && more > 0:
			v, ok := rstring.String2ll(argv[i+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return -1
			}
			if v < 0 {
				c.Err("ERR The LIMIT argument must be >= 0.")
				return -1
			}
			a.Limit = v
			limitGiven = true
			i++
		case xadd && rstring.EqualFold(opt, "nomkstream"):
			a.noMkCreate = true
		case xadd:
			id, ok := parseStreamID(argv[i], 0, true, &a.seqGiven)
			if !ok {
				c.Err(errInvalidStreamID)
				return -1
			}
			a.id = id
			a.idGiven = true
			goto done
		default:
			c.Err(command.ErrSyntax)
			return -1
		}
	}
done:
	if a.Limit != 0 && a.Strategy == stream.TrimNone {
		c.Err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return -1
	}
	if !xadd && a.Strategy == stream.TrimNone {
		c.Err("ERR syntax error, XTRIM must be called with a trimming strategy")
		return -1
	}
	if c.Loading() {
		a.Limit = 0 // the AOF carries the exact threshold
	} else if limitGiven {
		if !a.Approx {
			c.Err("ERR syntax error, LIMIT cannot be used without the special ~ option")
			return -1
		}
	} else if a.Approx {
		// 100 nodes' worth, within Redis's bounds
		a.Limit = min(max(100*c.Config().StreamNodeMaxEntries, 0), 1000000)
		if a.Limit <= 0 {
			a.Limit = 10000
		}
	} else {
		a.Limit = 0
	}
	return i
}

// trimRewrite makes the propagated form carry "=" and the exact resulting
// threshold (streamRewriteApproxSpecifier + streamRewriteTrimArgument).
func trimRewrite(pa [][]byte, st *stream.Stream, a *stream.TrimArgs) {
	pa[a.ArgIdx-1] = []byte("=")
	if a.Strategy == stream.TrimMaxlen {
		pa[a.ArgIdx] = strconv.AppendInt(nil, int64(st.Length), 10)
	} else {
		pa[a.ArgIdx] = st.EdgeID(true, false).Bytes()
	}
}

func xaddCommand(c command.Ctx, argv [][]byte) {
	var a streamAddArgs
	idpos := parseAddOrTrimArgs(c, argv, &a, true)
	if idpos < 0 {
		return
	}
	fieldPos := idpos + 1
	if n := len(argv) - fieldPos; n < 2 || n%2 == 1 {
		c.Err("ERR wrong number of arguments for 'xadd' command")
		return
	}
	if a.idGiven && a.seqGiven && a.id.IsZero() {
		c.Err("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	key := argv[1]
	st, wrong := writeStream(c, key)
	if wrong {
		return
	}
	if st == nil {
		if a.noMkCreate {
			c.Null()
			return
		}
		st = stream.New()
		c.AddKey(key, command.Obj(command.TypeStream, st))
	}
	if st.LastID == stream.MaxID {
		c.Err("ERR The stream has exhausted the last possible ID, unable to add more items")
		return
	}
	var id stream.ID
	switch {
	case !a.idGiven:
		ms := uint64(c.NowMs())
		if ms > st.LastID.Ms {
			id = stream.ID{Ms: ms, Seq: 0}
		} else {
			id, _ = st.LastID.Incr()
		}
	case a.seqGiven:
		id = a.id
	default:
		if st.LastID.Ms == a.id.Ms {
			if st.LastID.Seq == math.MaxUint64 {
				c.Err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
				return
			}
			id = stream.ID{Ms: a.id.Ms, Seq: st.LastID.Seq + 1}
		} else {
			id = a.id
		}
	}
	if id.Cmp(st.LastID) <= 0 {
		c.Err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		return
	}
	tot := 0
	for _, b := range argv[fieldPos:] {
		tot += len(b)
	}
	if tot > stream.ListpackMax {
		c.Err("ERR Elements are too large to be stored")
		return
	}
	st.AppendItem(id, argv[fieldPos:], NodeLimits(c.Config()))
	replyID(c, id)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyStream, "xadd", key)
	c.AddDirty(1)
	pa := rstring.CloneArgv(argv)
	if a.Strategy != stream.TrimNone {
		if st.Trim(&a.TrimArgs) > 0 {
			c.Notify(command.NotifyStream, "xtrim", key)
		}
		if a.Approx {
			trimRewrite(pa, st, &a.TrimArgs)
		}
	}
	if !a.idGiven || !a.seqGiven {
		pa[idpos] = id.Bytes()
	}
	c.RewriteArgv(pa...)
	c.SignalReady(key)
}

func xtrimCommand(c command.Ctx, argv [][]byte) {
	var a streamAddArgs
	if parseAddOrTrimArgs(c, argv, &a, false) < 0 {
		return
	}
	st, wrong := writeStream(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.Integer(0)
		return
	}
	deleted := st.Trim(&a.TrimArgs)
	if deleted > 0 {
		c.Notify(command.NotifyStream, "xtrim", argv[1])
		if a.Approx {
			pa := rstring.CloneArgv(argv)
			trimRewrite(pa, st, &a.TrimArgs)
			c.RewriteArgv(pa...)
		}
		c.SignalModifiedKey(argv[1])
		c.AddDirty(deleted)
	}
	c.Integer(deleted)
}

// ------------------------------------------------------------ XRANGE etc.

func xrangeCommand(c command.Ctx, argv [][]byte)    { xrangeGeneric(c, argv, false) }
func xrevrangeCommand(c command.Ctx, argv [][]byte) { xrangeGeneric(c, argv, true) }

func xrangeGeneric(c command.Ctx, argv [][]byte, rev bool) {
	startArg, endArg := argv[2], argv[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, startEx, ok := parseIntervalID(c, startArg, 0)
	if !ok {
		return
	}
	if startEx {
		if start, ok = start.Incr(); !ok {
			c.Err("ERR invalid start ID for the interval")
			return
		}
	}
	end, endEx, ok := parseIntervalID(c, endArg, math.MaxUint64)
	if !ok {
		return
	}
	if endEx {
		if end, ok = end.Decr(); !ok {
			c.Err("ERR invalid end ID for the interval")
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(argv); j++ {
		if rstring.EqualFold(argv[j], "count") && j+1 < len(argv) {
			v, ok := rstring.String2ll(argv[j+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			if v < 0 {
				v = 0
			}
			count = v
			j++
			continue
		}
		c.Err(command.ErrSyntax)
		return
	}
	st, wrong := readStream(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.EmptyArray()
		return
	}
	if count == 0 {
		c.NullArray()
		return
	}
	replyRange(c, st, start, end, count, rev)
}

// replyRange emits the entries in [start,end] (count <= 0: all).
func replyRange(c command.Ctx, st *stream.Stream, start, end stream.ID, count int64, rev bool) int {
	type ref struct {
		nd *stream.Node
		e  *stream.Entry
	}
	var list []ref
	fn := func(nd *stream.Node, e *stream.Entry) bool {
		list = append(list, ref{nd, e})
		return count <= 0 || int64(len(list)) < count
	}
	if start.Cmp(end) <= 0 || rev {
		if rev {
			st.RangeRev(start, end, fn)
		} else {
			st.RangeFwd(start, end, fn)
		}
	}
	c.ArrayLen(len(list))
	for _, r := range list {
		replyEntry(c, r.nd, r.e)
	}
	return len(list)
}

func xlenCommand(c command.Ctx, argv [][]byte) {
	st, wrong := readStream(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.Integer(0)
		return
	}
	c.Integer(int64(st.Length))
}

func xdelCommand(c command.Ctx, argv [][]byte) {
	st, wrong := writeStream(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.Integer(0)
		return
	}
	ids := make([]stream.ID, 0, len(argv)-2)
	for _, a := range argv[2:] {
		id, ok := parseStreamIDOrReply(c, a, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	deleted := 0
	firstEntry := false
	for _, id := range ids {
		if st.DeleteItem(id) {
			if id == st.FirstID {
				firstEntry = true
			}
			if id.Cmp(st.MaxDeletedID) > 0 {
				st.MaxDeletedID = id
			}
			deleted++
		}
	}
	if deleted > 0 {
		if st.Length == 0 {
			st.FirstID = stream.ID{}
		} else if firstEntry {
			st.FirstID = st.EdgeID(true, true)
		}
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyStream, "xdel", argv[1])
		c.AddDirty(int64(deleted))
	}
	c.Integer(int64(deleted))
}

func xsetidCommand(c command.Ctx, argv [][]byte) {
	id, ok := parseStreamIDOrReply(c, argv[2], 0, true)
	if !ok {
		return
	}
	var maxXdel stream.ID
	entriesAdded := int64(-1)
	for i := 3; i < len(argv); {
		more := len(argv) - 1 - i
		switch {
		case rstring.EqualFold(argv[i], "entriesadded") && more > 0:
			v, ok := rstring.String2ll(argv[i+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			if v < 0 {
				c.Err("ERR entries_added must be positive")
				return
			}
			entriesAdded = v
			i += 2
		case rstring.EqualFold(argv[i], "maxdeletedid") && more > 0:
			v, ok := parseStreamIDOrReply(c, argv[i+1], 0, true)
			if !ok {
				return
			}
			if id.Cmp(v) < 0 {
				c.Err("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			maxXdel = v
			i += 2
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	st, wrong := writeStream(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.Err("ERR no such key")
		return
	}
	if st.Length > 0 {
		if id.Cmp(st.LastValidID()) < 0 {
			c.Err("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if entriesAdded != -1 && st.Length > uint64(entriesAdded) {
			c.Err("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	if id.Cmp(st.MaxDeletedID) < 0 {
		c.Err("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")
		return
	}
	st.LastID = id
	if entriesAdded != -1 {
		st.EntriesAdded = uint64(entriesAdded)
	}
	if !maxXdel.IsZero() {
		st.MaxDeletedID = maxXdel
	}
	c.OK()
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyStream, "xsetid", argv[1])
	c.AddDirty(1)
}

// ------------------------------------------------------------------ XREAD

const xreadBlockedDefaultCount = 1000

type xreadArgs struct {
	timeout    int64 // ms; -1 without BLOCK
	count      int64
	streamsArg int
	nstreams   int
	group      []byte
	consumer   []byte
	noack      bool
}

// parseXreadMs is getTimeoutFromObjectOrReply with UNIT_MILLISECONDS.
func parseXreadMs(c command.Ctx, b []byte) (int64, bool) {
	v, ok := rstring.String2ll(b)
	if !ok {
		c.Err("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if v < 0 {
		c.Err("ERR timeout is negative")
		return 0, false
	}
	if v > 0 && v > math.MaxInt64-c.NowMs() {
		c.Err("ERR timeout is out of range")
		return 0, false
	}
	return v, true
}

func parseXread(c command.Ctx, argv [][]byte, xreadgroup bool) (a xreadArgs, ok bool) {
	a.timeout = -1
	for i := 1; i < len(argv); i++ {
		more := len(argv) - i - 1
		o := argv[i]
		switch {
		case rstring.EqualFold(o, "block") && more > 0:
			if c.InScript() {
				c.Err("ERR " + string(argv[0]) + " command is not allowed with BLOCK option from scripts")
				return a, false
			}
			i++
			if a.timeout, ok = parseXreadMs(c, argv[i]); !ok {
				return a, false
			}
		case rstring.EqualFold(o, "count") && more > 0:
			i++
			v, vok := rstring.String2ll(argv[i])
			if !vok {
				c.Err(command.ErrNotInt)
				return a, false
			}
			if v < 0 {
				v = 0
			}
			a.count = v
		case rstring.EqualFold(o, "streams") && more > 0:
			a.streamsArg = i + 1
			n := len(argv) - a.streamsArg
			if n%2 != 0 {
				c.Err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return a, false
			}
			a.nstreams = n / 2
			goto done
		case rstring.EqualFold(o, "group") && more >= 2:
			if !xreadgroup {
				c.Err("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group = argv[i+1]
			a.consumer = argv[i+2]
			i += 2
		case rstring.EqualFold(o, "noack"):
			if !xreadgroup {
				c.Err("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noack = true
		default:
			c.Err(command.ErrSyntax)
			return a, false
		}
	}
done:
	if a.streamsArg == 0 {
		c.Err(command.ErrSyntax)
		return a, false
	}
	if xreadgroup && a.group == nil {
		c.Err("ERR Missing GROUP option for XREADGROUP")
		return a, false
	}
	return a, true
}

func xreadCommand(c command.Ctx, argv [][]byte) { xreadGeneric(c, argv, false) }

// xreadGeneric implements XREAD and XREADGROUP (xreadCommand).
func xreadGeneric(c command.Ctx, argv [][]byte, xreadgroup bool) {
	a, ok := parseXread(c, argv, xreadgroup)
	if !ok {
		return
	}
	if xreadgroup {
		// Everything is propagated as XCLAIM / XGROUP forms.
		c.PreventPropagation()
	}
	keys := argv[a.streamsArg : a.streamsArg+a.nstreams]
	ids := make([]stream.ID, a.nstreams)
	for i := 0; i < a.nstreams; i++ {
		key := keys[i]
		idArg := argv[a.streamsArg+a.nstreams+i]
		st, wrong := readStream(c, key)
		if wrong {
			return
		}
		if a.group != nil {
			if st == nil || st.LookupCG(a.group) == nil {
				c.Err("NOGROUP No such key '" + string(key) + "' or consumer group '" + string(a.group) + "' in XREADGROUP with GROUP option")
				return
			}
		}
		if len(idArg) == 1 && idArg[0] == '$' {
			if xreadgroup {
				c.Err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if st != nil {
				ids[i] = st.LastID
			}
			continue
		}
		if len(idArg) == 1 && idArg[0] == '>' {
			if !xreadgroup {
				c.Err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			ids[i] = stream.MaxID
			continue
		}
		id, ok := parseStreamIDOrReply(c, idArg, 0, true)
		if !ok {
			return
		}
		ids[i] = id
	}

	// Try to serve synchronously.
	served := 0
	resp2 := c.RESP() == 2
	at := c.DeferLen()
	for i := 0; i < a.nstreams; i++ {
		st, _ := readStream(c, keys[i])
		if st == nil {
			continue
		}
		gt := ids[i]
		var g *stream.CG
		sync, history := false, false
		if a.group != nil {
			g = st.LookupCG(a.group)
			if gt != stream.MaxID {
				sync, history = true, true
			} else if st.Length > 0 {
				if st.LastValidID().Cmp(g.LastID) > 0 {
					sync = true
					gt = g.LastID
				}
			}
		} else if st.Length > 0 {
			if st.LastValidID().Cmp(gt) > 0 {
				sync = true
			}
		}
		if !sync {
			continue
		}
		served++
		start, _ := gt.Incr()
		if resp2 {
			c.ArrayLen(2)
		}
		c.Bulk(keys[i])
		if g != nil {
			c.LookupWrite(keys[i]) // snapshot hook before the group changes
			xreadgroupServe(c, st, keys[i], g, a.group, a.consumer, start, a.count, a.noack, history)
			c.AddDirty(1)
		} else {
			replyRange(c, st, start, stream.MaxID, a.count, false)
		}
	}
	if served > 0 {
		if resp2 {
			c.SetArrayLen(at, served)
		} else {
			c.SetMapLen(at, served)
		}
		return
	}
	if a.timeout == -1 || !c.CanBlock() {
		c.NullArray()
		return
	}
	count := a.count
	if count == 0 {
		count = xreadBlockedDefaultCount
	}
	group := bytes.Clone(a.group)
	consumer := bytes.Clone(a.consumer)
	noack := a.noack
	serve := func(c command.Ctx, argv [][]byte, key []byte) bool {
		return serveBlocked(c, argv, key, ids, group, consumer, count, noack)
	}
	// Redis 7.0 unblocks XREADGROUP with an error when its stream is
	// deleted or replaced (serveBlocked).
	c.Block(argv, keys, time.Duration(a.timeout)*time.Millisecond, serve, group != nil)
}

// serveBlocked is serveClientsBlockedOnStreamKey for one client: it serves
// key, which became ready, if it has data for the client.
func serveBlocked(c command.Ctx, argv [][]byte, key []byte, ids []stream.ID, group, consumer []byte, count int64, noack bool) bool {
	idx := -1
	nstreams := len(ids)
	keys := argv[len(argv)-2*nstreams : len(argv)-nstreams]
	for i, k := range keys {
		if bytes.Equal(k, key) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return false
	}
	v, found := c.LookupNoStats(key)
	if !found || v.Type != command.TypeStream {
		if group != nil {
			// Redis 7.0 unblocks XREADGROUP clients of a deleted stream.
			c.Err("UNBLOCKED the stream key no longer exists")
			return true
		}
		return false
	}
	st := (*stream.Stream)(v.Ptr)
	gt := ids[idx]
	var g *stream.CG
	if group != nil {
		g = st.LookupCG(group)
		if g == nil {
			c.Err("NOGROUP the consumer group this client was blocked on no longer exists")
			return true
		}
		gt = g.LastID
	}
	if st.LastID.Cmp(gt) <= 0 {
		return false
	}
	start, _ := gt.Incr()
	if c.RESP() == 2 {
		c.ArrayLen(1)
		c.ArrayLen(2)
	} else {
		c.MapLen(1)
	}
	c.Bulk(key)
	if g != nil {
		c.LookupWrite(key) // snapshot hook before the group changes
		c.BeginUnit()
		xreadgroupServe(c, st, key, g, group, consumer, start, count, noack, false)
		c.EndUnit()
		c.AddDirty(1)
	} else {
		replyRange(c, st, start, stream.MaxID, count, false)
	}
	return true
}
