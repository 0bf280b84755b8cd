package server

import (
	"math"
	"time"

	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/stream"
)

// XADD XRANGE XREVRANGE XLEN XDEL XTRIM XSETID XREAD (Redis 7.0
// t_stream.c).

func init() {
	st := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "stream", summary: summary, since: since, acl: streamACL(acl)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		st("xadd", -5, w|cmdFast, 1, 1, 1, xaddCommand, "Appends a new entry to a stream", "5.0.0", "@write", "@fast"),
		st("xrange", -4, r, 1, 1, 1, xrangeCommand, "Return a range of elements in a stream, with IDs matching the specified IDs interval", "5.0.0", "@read", "@slow"),
		st("xrevrange", -4, r, 1, 1, 1, xrevrangeCommand, "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", "5.0.0", "@read", "@slow"),
		st("xlen", 2, r|cmdFast, 1, 1, 1, xlenCommand, "Return the number of entries in a stream", "5.0.0", "@read", "@fast"),
		st("xdel", -3, cmdWrite|cmdFast, 1, 1, 1, xdelCommand, "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", "5.0.0", "@write", "@fast"),
		st("xtrim", -4, cmdWrite, 1, 1, 1, xtrimCommand, "Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0", "@write", "@slow"),
		st("xsetid", -3, w|cmdFast, 1, 1, 1, xsetidCommand, "An internal command for replicating stream values", "5.0.0", "@write", "@fast"),
		st("xread", -4, r|cmdBlocking, 0, 0, 0, xreadCommand, "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", "5.0.0", "@read", "@slow", "@blocking"),
	)
}

// streamACL orders ACL categories as Redis 7.0 lists them: @read/@write
// first, then @stream, then the rest; containers have only @slow.
func streamACL(acl []string) []string {
	if len(acl) == 1 && acl[0] == "@slow" {
		return acl // a container (XGROUP, XINFO)
	}
	for _, a := range acl {
		if a == "@stream" {
			return acl
		}
	}
	if len(acl) > 0 && (acl[0] == "@read" || acl[0] == "@write") {
		return append([]string{acl[0], "@stream"}, acl[1:]...)
	}
	return append([]string{"@stream"}, acl...)
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

func parseStreamIDOrReply(c *client, b []byte, missingSeq uint64, strict bool) (stream.ID, bool) {
	id, ok := parseStreamID(b, missingSeq, strict, nil)
	if !ok {
		c.err(errInvalidStreamID)
	}
	return id, ok
}

// parseIntervalID is streamParseIntervalIDOrReply: "(" makes the bound
// exclusive (and strict).
func parseIntervalID(c *client, b []byte, missingSeq uint64) (id stream.ID, exclude, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok = parseStreamIDOrReply(c, b[1:], missingSeq, true)
		return id, true, ok
	}
	id, ok = parseStreamIDOrReply(c, b, missingSeq, false)
	return id, false, ok
}

// ------------------------------------------------------------- lookups

// streamRead returns key's stream for a read; wrong=true after WRONGTYPE.
func (s *Server) streamRead(c *client, key []byte) (st *stream.Stream, wrong bool) {
	return lookupReadTyped[stream.Stream](s, c, key, typStream)
}

func (s *Server) streamWrite(c *client, key []byte) (st *stream.Stream, wrong bool) {
	return lookupWriteTyped[stream.Stream](s, c, key, typStream)
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
func parseAddOrTrimArgs(c *client, argv [][]byte, a *streamAddArgs, xadd bool) int {
	i := 2
	limitGiven := false
	for ; i < len(argv); i++ {
		more := len(argv) - 1 - i
		opt := argv[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			goto done
		case eqFold(opt, "maxlen") && more > 0:
			if a.Strategy != stream.TrimNone {
				c.err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
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
			v, ok := parseInt(argv[i+1])
			if !ok {
				c.errNotInt()
				return -1
			}
			if v < 0 {
				c.err("ERR The MAXLEN argument must be >= 0.")
				return -1
			}
			a.Maxlen = v
			i++
			a.Strategy = stream.TrimMaxlen
			a.ArgIdx = i
		case eqFold(opt, "minid") && more > 0:
			if a.Strategy != stream.TrimNone {
				c.err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
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
		case eqFold(opt, "limit") && more > 0:
			v, ok := parseInt(argv[i+1])
			if !ok {
				c.errNotInt()
				return -1
			}
			if v < 0 {
				c.err("ERR The LIMIT argument must be >= 0.")
				return -1
			}
			a.Limit = v
			limitGiven = true
			i++
		case xadd && eqFold(opt, "nomkstream"):
			a.noMkCreate = true
		case xadd:
			id, ok := parseStreamID(argv[i], 0, true, &a.seqGiven)
			if !ok {
				c.err(errInvalidStreamID)
				return -1
			}
			a.id = id
			a.idGiven = true
			goto done
		default:
			c.errSyntax()
			return -1
		}
	}
done:
	if a.Limit != 0 && a.Strategy == stream.TrimNone {
		c.err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return -1
	}
	if !xadd && a.Strategy == stream.TrimNone {
		c.err("ERR syntax error, XTRIM must be called with a trimming strategy")
		return -1
	}
	if c.srv.loading {
		a.Limit = 0 // the AOF carries the exact threshold
	} else if limitGiven {
		if !a.Approx {
			c.err("ERR syntax error, LIMIT cannot be used without the special ~ option")
			return -1
		}
	} else if a.Approx {
		// 100 nodes' worth, within Redis's bounds
		a.Limit = min(max(100*c.srv.cfg.StreamNodeMaxEntries, 0), 1000000)
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
		pa[a.ArgIdx] = formatInt(int64(st.Length))
	} else {
		pa[a.ArgIdx] = st.EdgeID(true, false).Bytes()
	}
}

func xaddCommand(c *client, argv [][]byte) {
	s := c.srv
	var a streamAddArgs
	idpos := parseAddOrTrimArgs(c, argv, &a, true)
	if idpos < 0 {
		return
	}
	fieldPos := idpos + 1
	if n := len(argv) - fieldPos; n < 2 || n%2 == 1 {
		c.err("ERR wrong number of arguments for 'xadd' command")
		return
	}
	if a.idGiven && a.seqGiven && a.id.IsZero() {
		c.err("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	key := argv[1]
	st, wrong := s.streamWrite(c, key)
	if wrong {
		return
	}
	if st == nil {
		if a.noMkCreate {
			c.nullBulk()
			return
		}
		st = stream.New()
		s.addKey(c.db, key, newStreamEntry(st))
	}
	if st.LastID == stream.MaxID {
		c.err("ERR The stream has exhausted the last possible ID, unable to add more items")
		return
	}
	var id stream.ID
	switch {
	case !a.idGiven:
		ms := uint64(s.nowMs())
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
				c.err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
				return
			}
			id = stream.ID{Ms: a.id.Ms, Seq: st.LastID.Seq + 1}
		} else {
			id = a.id
		}
	}
	if id.Cmp(st.LastID) <= 0 {
		c.err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		return
	}
	tot := 0
	for _, b := range argv[fieldPos:] {
		tot += len(b)
	}
	if tot > stream.ListpackMax {
		c.err("ERR Elements are too large to be stored")
		return
	}
	st.AppendItem(id, argv[fieldPos:], s.streamNodeLimits())
	c.streamID(id)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyStream, "xadd", key, c.db.id)
	s.dirty++
	pa := rstring.CloneArgv(argv)
	if a.Strategy != stream.TrimNone {
		if st.Trim(&a.TrimArgs) > 0 {
			s.notify(notifyStream, "xtrim", key, c.db.id)
		}
		if a.Approx {
			trimRewrite(pa, st, &a.TrimArgs)
		}
	}
	if !a.idGiven || !a.seqGiven {
		pa[idpos] = id.Bytes()
	}
	c.rewriteArgv(pa...)
	s.signalKeyAsReady(c.db, key)
}

func xtrimCommand(c *client, argv [][]byte) {
	s := c.srv
	var a streamAddArgs
	if parseAddOrTrimArgs(c, argv, &a, false) < 0 {
		return
	}
	st, wrong := s.streamWrite(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.integer(0)
		return
	}
	deleted := st.Trim(&a.TrimArgs)
	if deleted > 0 {
		s.notify(notifyStream, "xtrim", argv[1], c.db.id)
		if a.Approx {
			pa := rstring.CloneArgv(argv)
			trimRewrite(pa, st, &a.TrimArgs)
			c.rewriteArgv(pa...)
		}
		s.signalModifiedKey(c.db, argv[1])
		s.dirty += deleted
	}
	c.integer(deleted)
}

// ------------------------------------------------------------ XRANGE etc.

// replyEntry emits [id, [f, v, ...]].
func (c *client) streamEntry(nd *stream.Node, e *stream.Entry) {
	c.arrayLen(2)
	c.streamID(e.ID)
	c.arrayLen(2 * nd.NumFields(e))
	nd.EachField(e, func(f, v []byte) {
		c.bulk(f)
		c.bulk(v)
	})
}

func xrangeCommand(c *client, argv [][]byte)    { xrangeGeneric(c, argv, false) }
func xrevrangeCommand(c *client, argv [][]byte) { xrangeGeneric(c, argv, true) }

func xrangeGeneric(c *client, argv [][]byte, rev bool) {
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
			c.err("ERR invalid start ID for the interval")
			return
		}
	}
	end, endEx, ok := parseIntervalID(c, endArg, math.MaxUint64)
	if !ok {
		return
	}
	if endEx {
		if end, ok = end.Decr(); !ok {
			c.err("ERR invalid end ID for the interval")
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(argv); j++ {
		if eqFold(argv[j], "count") && j+1 < len(argv) {
			v, ok := parseInt(argv[j+1])
			if !ok {
				c.errNotInt()
				return
			}
			if v < 0 {
				v = 0
			}
			count = v
			j++
			continue
		}
		c.errSyntax()
		return
	}
	st, wrong := c.srv.streamRead(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.emptyArray()
		return
	}
	if count == 0 {
		c.nullArray()
		return
	}
	streamReplyRange(c, st, start, end, count, rev)
}

// streamReplyRange emits the entries in [start,end] (count <= 0: all).
func streamReplyRange(c *client, st *stream.Stream, start, end stream.ID, count int64, rev bool) int {
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
	c.arrayLen(len(list))
	for _, r := range list {
		c.streamEntry(r.nd, r.e)
	}
	return len(list)
}

func xlenCommand(c *client, argv [][]byte) {
	st, wrong := c.srv.streamRead(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.integer(0)
		return
	}
	c.integer(int64(st.Length))
}

func xdelCommand(c *client, argv [][]byte) {
	s := c.srv
	st, wrong := s.streamWrite(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.integer(0)
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
		s.signalModifiedKey(c.db, argv[1])
		s.notify(notifyStream, "xdel", argv[1], c.db.id)
		s.dirty += int64(deleted)
	}
	c.integer(int64(deleted))
}

func xsetidCommand(c *client, argv [][]byte) {
	s := c.srv
	id, ok := parseStreamIDOrReply(c, argv[2], 0, true)
	if !ok {
		return
	}
	var maxXdel stream.ID
	entriesAdded := int64(-1)
	for i := 3; i < len(argv); {
		more := len(argv) - 1 - i
		switch {
		case eqFold(argv[i], "entriesadded") && more > 0:
			v, ok := parseInt(argv[i+1])
			if !ok {
				c.errNotInt()
				return
			}
			if v < 0 {
				c.err("ERR entries_added must be positive")
				return
			}
			entriesAdded = v
			i += 2
		case eqFold(argv[i], "maxdeletedid") && more > 0:
			v, ok := parseStreamIDOrReply(c, argv[i+1], 0, true)
			if !ok {
				return
			}
			if id.Cmp(v) < 0 {
				c.err("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			maxXdel = v
			i += 2
		default:
			c.errSyntax()
			return
		}
	}
	st, wrong := s.streamWrite(c, argv[1])
	if wrong {
		return
	}
	if st == nil {
		c.err("ERR no such key")
		return
	}
	if st.Length > 0 {
		if id.Cmp(st.LastValidID()) < 0 {
			c.err("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if entriesAdded != -1 && st.Length > uint64(entriesAdded) {
			c.err("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	if id.Cmp(st.MaxDeletedID) < 0 {
		c.err("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")
		return
	}
	st.LastID = id
	if entriesAdded != -1 {
		st.EntriesAdded = uint64(entriesAdded)
	}
	if !maxXdel.IsZero() {
		st.MaxDeletedID = maxXdel
	}
	c.ok()
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyStream, "xsetid", argv[1], c.db.id)
	s.dirty++
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
func parseXreadMs(c *client, b []byte) (int64, bool) {
	v, ok := parseInt(b)
	if !ok {
		c.err("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if v < 0 {
		c.err("ERR timeout is negative")
		return 0, false
	}
	if v > 0 && v > math.MaxInt64-c.srv.nowMs() {
		c.err("ERR timeout is out of range")
		return 0, false
	}
	return v, true
}

func parseXread(c *client, argv [][]byte, xreadgroup bool) (a xreadArgs, ok bool) {
	a.timeout = -1
	for i := 1; i < len(argv); i++ {
		more := len(argv) - i - 1
		o := argv[i]
		switch {
		case eqFold(o, "block") && more > 0:
			if c.flags&flagFake != 0 && !c.srv.loading {
				c.err("ERR " + string(argv[0]) + " command is not allowed with BLOCK option from scripts")
				return a, false
			}
			i++
			if a.timeout, ok = parseXreadMs(c, argv[i]); !ok {
				return a, false
			}
		case eqFold(o, "count") && more > 0:
			i++
			v, vok := parseInt(argv[i])
			if !vok {
				c.errNotInt()
				return a, false
			}
			if v < 0 {
				v = 0
			}
			a.count = v
		case eqFold(o, "streams") && more > 0:
			a.streamsArg = i + 1
			n := len(argv) - a.streamsArg
			if n%2 != 0 {
				c.err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return a, false
			}
			a.nstreams = n / 2
			goto done
		case eqFold(o, "group") && more >= 2:
			if !xreadgroup {
				c.err("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group = argv[i+1]
			a.consumer = argv[i+2]
			i += 2
		case eqFold(o, "noack"):
			if !xreadgroup {
				c.err("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noack = true
		default:
			c.errSyntax()
			return a, false
		}
	}
done:
	if a.streamsArg == 0 {
		c.errSyntax()
		return a, false
	}
	if xreadgroup && a.group == nil {
		c.err("ERR Missing GROUP option for XREADGROUP")
		return a, false
	}
	return a, true
}

func xreadCommand(c *client, argv [][]byte) { xreadGeneric(c, argv, false) }

// xreadGeneric implements XREAD and XREADGROUP (xreadCommand).
func xreadGeneric(c *client, argv [][]byte, xreadgroup bool) {
	s := c.srv
	a, ok := parseXread(c, argv, xreadgroup)
	if !ok {
		return
	}
	if xreadgroup {
		// Everything is propagated as XCLAIM / XGROUP forms.
		c.preventPropagation()
	}
	keys := argv[a.streamsArg : a.streamsArg+a.nstreams]
	ids := make([]stream.ID, a.nstreams)
	for i := 0; i < a.nstreams; i++ {
		key := keys[i]
		idArg := argv[a.streamsArg+a.nstreams+i]
		st, wrong := s.streamRead(c, key)
		if wrong {
			return
		}
		if a.group != nil {
			if st == nil || st.LookupCG(a.group) == nil {
				c.err("NOGROUP No such key '" + string(key) + "' or consumer group '" + string(a.group) + "' in XREADGROUP with GROUP option")
				return
			}
		}
		if len(idArg) == 1 && idArg[0] == '$' {
			if xreadgroup {
				c.err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if st != nil {
				ids[i] = st.LastID
			}
			continue
		}
		if len(idArg) == 1 && idArg[0] == '>' {
			if !xreadgroup {
				c.err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
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
	var body []byte
	out := c.out
	c.out = nil
	for i := 0; i < a.nstreams; i++ {
		st, _ := s.streamRead(c, keys[i])
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
		if c.resp == 2 {
			c.arrayLen(2)
		}
		c.bulk(keys[i])
		if g != nil {
			s.lookupWrite(c, keys[i]) // snapshot hook before the group changes
			s.xreadgroupServe(c, st, keys[i], g, a.group, a.consumer, start, a.count, a.noack, history, false)
			s.dirty++
		} else {
			streamReplyRange(c, st, start, stream.MaxID, a.count, false)
		}
	}
	body = c.out
	c.out = out
	if served > 0 {
		if c.resp == 2 {
			c.arrayLen(served)
		} else {
			c.addReplyString("%" + string(formatInt(int64(served))) + "\r\n")
		}
		c.addReplyRaw(body)
		return
	}
	if a.timeout == -1 || !s.canBlock(c) {
		c.nullArray()
		return
	}
	count := a.count
	if count == 0 {
		count = xreadBlockedDefaultCount
	}
	group := cloneBytes(a.group)
	consumer := cloneBytes(a.consumer)
	if a.group == nil {
		group = nil
	}
	noack := a.noack
	serve := func(c *client, argv [][]byte, later bool) bool {
		return s.serveBlockedStream(c, argv, later, ids, group, consumer, count, noack)
	}
	s.blockClient(c, keys, argv, time.Duration(a.timeout)*time.Millisecond, serve)
	// Redis 7.0 unblocks XREADGROUP with an error when its stream is
	// deleted or replaced (serveBlockedStream).
	c.block.unblockOnNoKey = group != nil
}

// serveBlockedStream is serveClientsBlockedOnStreamKey for one client: it
// serves the key that became ready, if it has data for the client.
func (s *Server) serveBlockedStream(c *client, argv [][]byte, later bool, ids []stream.ID, group, consumer []byte, count int64, noack bool) bool {
	bs := c.block
	if !later || bs == nil {
		return false
	}
	key := []byte(bs.readyKey)
	idx := -1
	nstreams := len(ids)
	keys := argv[len(argv)-2*nstreams : len(argv)-nstreams]
	for i, k := range keys {
		if string(k) == bs.readyKey {
			idx = i
			break
		}
	}
	if idx < 0 {
		return false
	}
	e, found := s.lookupReadNoStats(c, key)
	if !found || e.typ() != typStream {
		if group != nil {
			// Redis 7.0 unblocks XREADGROUP clients of a deleted stream.
			c.err("UNBLOCKED the stream key no longer exists")
			return true
		}
		return false
	}
	st := (*stream.Stream)(e.ptr)
	gt := ids[idx]
	var g *stream.CG
	if group != nil {
		g = st.LookupCG(group)
		if g == nil {
			c.err("NOGROUP the consumer group this client was blocked on no longer exists")
			return true
		}
		gt = g.LastID
	}
	if st.LastID.Cmp(gt) <= 0 {
		return false
	}
	start, _ := gt.Incr()
	if c.resp == 2 {
		c.arrayLen(1)
		c.arrayLen(2)
	} else {
		c.addReplyString("%1\r\n")
	}
	c.bulk(key)
	if g != nil {
		s.lookupWriteDB(c.db, key)
		s.execDepth++
		s.xreadgroupServe(c, st, key, g, group, consumer, start, count, noack, false, true)
		s.execDepth--
		s.flushPropagation(true)
		s.dirty++
	} else {
		streamReplyRange(c, st, start, stream.MaxID, count, false)
	}
	return true
}
