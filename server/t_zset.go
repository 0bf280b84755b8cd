package server

import (
	"math"
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"

	seam "github.com/aofserver/aofserver/command"
)

// zsetFromRDB builds a sorted set from a decoded value with the encoding
// Redis 7.0's loader ends up with (rdb.LoadedEncoding).
func zsetFromRDB(v *rdb.Value, s *Server) *zset.Set {
	return zset.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) == rdb.EncSkiplist)
}

// zsetLimits are the listpack limits of the configuration.
func (s *Server) zsetLimits() zset.Limits {
	return zset.Limits{Entries: s.cfg.ZSetMaxListpackEntries, Value: s.cfg.ZSetMaxListpackValue}
}

// serverLimits returns the encoding limits of the current configuration.
func serverLimits(s *Server) rdb.Limits {
	l := rdb.DefaultLimits()
	if s == nil || s.cfg == nil {
		return l
	}
	l.HashMaxListpackEntries = s.cfg.HashMaxListpackEntries
	l.HashMaxListpackValue = s.cfg.HashMaxListpackValue
	l.ZSetMaxListpackEntries = s.cfg.ZSetMaxListpackEntries
	l.ZSetMaxListpackValue = s.cfg.ZSetMaxListpackValue
	l.SetMaxIntsetEntries = s.cfg.SetMaxIntsetEntries
	l.ListMaxListpackSize = s.cfg.ListMaxListpackSize
	l.ListCompressDepth = s.cfg.ListCompressDepth
	l.ListPackedThreshold = s.listPackedThreshold
	return l
}

func init() {
	z := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "sorted-set", summary: summary, since: since, acl: append([]string{"@sortedset"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		z("zadd", -4, w|cmdFast, 1, 1, 1, zaddCommand, "Add one or more members to a sorted set, or update its score if it already exists", "1.2.0", "@write", "@fast"),
		z("zincrby", 4, w|cmdFast, 1, 1, 1, zincrbyCommand, "Increment the score of a member in a sorted set", "1.2.0", "@write", "@fast"),
		z("zrem", -3, cmdWrite|cmdFast, 1, 1, 1, zremCommand, "Remove one or more members from a sorted set", "1.2.0", "@write", "@fast"),
		z("zscore", 3, r|cmdFast, 1, 1, 1, zscoreCommand, "Get the score associated with the given member in a sorted set", "1.2.0", "@read", "@fast"),
		z("zmscore", -3, r|cmdFast, 1, 1, 1, zmscoreCommand, "Get the score associated with the given members in a sorted set", "6.2.0", "@read", "@fast"),
		z("zcard", 2, r|cmdFast, 1, 1, 1, zcardCommand, "Get the number of members in a sorted set", "1.2.0", "@read", "@fast"),
		z("zcount", 4, r|cmdFast, 1, 1, 1, zcountCommand, "Count the members in a sorted set with scores within the given values", "2.0.0", "@read", "@fast"),
		z("zlexcount", 4, r|cmdFast, 1, 1, 1, zlexcountCommand, "Count the number of members in a sorted set between a given lexicographical range", "2.8.9", "@read", "@fast"),
		z("zrank", 3, r|cmdFast, 1, 1, 1, zrankCommand, "Determine the index of a member in a sorted set", "2.0.0", "@read", "@fast"),
		z("zrevrank", 3, r|cmdFast, 1, 1, 1, zrevrankCommand, "Determine the index of a member in a sorted set, with scores ordered from high to low", "2.0.0", "@read", "@fast"),
		z("zrange", -4, r, 1, 1, 1, zrangeCommand, "Return a range of members in a sorted set", "1.2.0", "@read", "@slow"),
		z("zrangestore", -5, w, 1, 2, 1, zrangestoreCommand, "Store a range of members from sorted set into another key", "6.2.0", "@write", "@slow"),
		z("zrevrange", -4, r, 1, 1, 1, zrevrangeCommand, "Return a range of members in a sorted set, by index, with scores ordered from high to low", "1.2.0", "@read", "@slow"),
		z("zrangebyscore", -4, r, 1, 1, 1, zrangebyscoreCommand, "Return a range of members in a sorted set, by score", "1.0.5", "@read", "@slow"),
		z("zrevrangebyscore", -4, r, 1, 1, 1, zrevrangebyscoreCommand, "Return a range of members in a sorted set, by score, with scores ordered from high to low", "2.2.0", "@read", "@slow"),
		z("zrangebylex", -4, r, 1, 1, 1, zrangebylexCommand, "Return a range of members in a sorted set, by lexicographical range", "2.8.9", "@read", "@slow"),
		z("zrevrangebylex", -4, r, 1, 1, 1, zrevrangebylexCommand, "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "2.8.9", "@read", "@slow"),
		z("zpopmin", -2, cmdWrite|cmdFast, 1, 1, 1, zpopminCommand, "Remove and return members with the lowest scores in a sorted set", "5.0.0", "@write", "@fast"),
		z("zpopmax", -2, cmdWrite|cmdFast, 1, 1, 1, zpopmaxCommand, "Remove and return members with the highest scores in a sorted set", "5.0.0", "@write", "@fast"),
		z("zremrangebyscore", 4, cmdWrite, 1, 1, 1, zremrangebyscoreCommand, "Remove all members in a sorted set within the given scores", "1.2.0", "@write", "@slow"),
		z("zremrangebyrank", 4, cmdWrite, 1, 1, 1, zremrangebyrankCommand, "Remove all members in a sorted set within the given indexes", "2.0.0", "@write", "@slow"),
		z("zremrangebylex", 4, cmdWrite, 1, 1, 1, zremrangebylexCommand, "Remove all members in a sorted set between the given lexicographical range", "2.8.9", "@write", "@slow"),
		z("zscan", -3, r, 1, 1, 1, zscanCommand, "Incrementally iterate sorted sets elements and associated scores", "2.8.0", "@read", "@slow"),
	)
}

// zsetRead returns key's sorted set (nil if absent); wrong reports that
// a WRONGTYPE error was replied.
func (s *Server) zsetRead(c *client, key []byte) (*zset.Set, bool) {
	return lookupReadTyped[zset.Set](s, c, key, typZSet)
}

func (s *Server) zsetWrite(c *client, key []byte) (*zset.Set, bool) {
	return lookupWriteTyped[zset.Set](s, c, key, typZSet)
}

const (
	zaddNX = 1 << iota
	zaddXX
	zaddGT
	zaddLT
	zaddCH
	zaddINCR
)

// zaddOne applies one score/member pair as zsetAdd does. It returns the new
// score, whether the member was added, updated, or left alone (nop), and
// ok=false if an increment produced NaN.
func zaddOne(s *Server, z *zset.Set, flags int, score float64, member []byte) (newScore float64, added, updated, nop, ok bool) {
	cur, exists := z.Score(member)
	if exists {
		if flags&zaddNX != 0 {
			return cur, false, false, true, true
		}
		if flags&zaddINCR != 0 {
			score += cur
			if math.IsNaN(score) {
				return 0, false, false, false, false
			}
		}
		if (flags&zaddLT != 0 && score >= cur) || (flags&zaddGT != 0 && score <= cur) {
			return cur, false, false, true, true
		}
		if score != cur {
			z.SetScore(member, cur, score)
			updated = true
		}
		return score, false, updated, false, true
	}
	if flags&zaddXX != 0 {
		return 0, false, false, true, true
	}
	z.Insert(cloneBytes(member), score, s.zsetLimits())
	return score, true, false, false, true
}

func zaddCommand(c *client, argv [][]byte)    { zaddGeneric(c, argv, 0) }
func zincrbyCommand(c *client, argv [][]byte) { zaddGeneric(c, argv, zaddINCR) }

func zaddGeneric(c *client, argv [][]byte, flags int) {
	s := c.srv
	idx := 2
	for ; idx < len(argv); idx++ {
		a := argv[idx]
		switch {
		case eqFold(a, "nx"):
			flags |= zaddNX
		case eqFold(a, "xx"):
			flags |= zaddXX
		case eqFold(a, "ch"):
			flags |= zaddCH
		case eqFold(a, "incr"):
			flags |= zaddINCR
		case eqFold(a, "gt"):
			flags |= zaddGT
		case eqFold(a, "lt"):
			flags |= zaddLT
		default:
			goto done
		}
	}
done:
	elems := len(argv) - idx
	if elems%2 != 0 || elems == 0 {
		c.errSyntax()
		return
	}
	elems /= 2
	nx, xx, gt, lt := flags&zaddNX != 0, flags&zaddXX != 0, flags&zaddGT != 0, flags&zaddLT != 0
	if nx && xx {
		c.err("ERR XX and NX options at the same time are not compatible")
		return
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		c.err("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	}
	if flags&zaddINCR != 0 && elems > 1 {
		c.err("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, elems)
	for i := range scores {
		v, ok := zset.ParseScore(argv[idx+2*i])
		if !ok {
			c.err(errNotFloat)
			return
		}
		scores[i] = v
	}
	key := argv[1]
	z, wrong := s.zsetWrite(c, key)
	if wrong {
		return
	}
	var added, updated, processed int
	var score float64
	if z == nil {
		if xx {
			goto reply
		}
		if s.cfg.ZSetMaxListpackEntries == 0 || s.cfg.ZSetMaxListpackValue < len(argv[idx+1]) {
			z = zset.NewSkiplist(elems)
		} else {
			z = zset.NewListpack(0)
		}
		s.addKey(c.db, key, newObjEntry(typZSet, unsafe.Pointer(z)))
	}
	for i := 0; i < elems; i++ {
		ns, a, u, nop, ok := zaddOne(s, z, flags, scores[i], argv[idx+2*i+1])
		if !ok {
			c.err("ERR resulting score is not a number (NaN)")
			break
		}
		if a {
			added++
		}
		if u {
			updated++
		}
		if !nop {
			processed++
		}
		score = ns
	}
	if z.Len() == 0 {
		// Only possible when INCR produced NaN on a new key: Redis would
		// have created nothing either.
		s.deleteKey(c.db, key)
	}
	if added+updated > 0 {
		s.dirty += int64(added + updated)
		s.signalModifiedKey(c.db, key)
		if flags&zaddINCR != 0 {
			s.notify(notifyZset, "zincr", key, c.db.id)
		} else {
			s.notify(notifyZset, "zadd", key, c.db.id)
		}
	}
	if s.curCmdFailed {
		return
	}
reply:
	if flags&zaddINCR != 0 {
		if processed > 0 {
			c.double(score)
		} else {
			c.nullBulk()
		}
		return
	}
	if flags&zaddCH != 0 {
		c.integer(int64(added + updated))
	} else {
		c.integer(int64(added))
	}
}

func zremCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	z, wrong := s.zsetWrite(c, key)
	if wrong {
		return
	}
	if z == nil {
		c.integer(0)
		return
	}
	seam.RemoveMembers(c, key, z, argv[2:], notifyZset, "zrem")
}

func zscoreCommand(c *client, argv [][]byte) {
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.nullBulk()
		return
	}
	if sc, ok := z.Score(argv[2]); ok {
		c.double(sc)
	} else {
		c.nullBulk()
	}
}

func zmscoreCommand(c *client, argv [][]byte) {
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	c.arrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		if z == nil {
			c.nullBulk()
			continue
		}
		if sc, ok := z.Score(m); ok {
			c.double(sc)
		} else {
			c.nullBulk()
		}
	}
}

func zcardCommand(c *client, argv [][]byte) {
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.integer(0)
		return
	}
	c.integer(int64(z.Len()))
}

func zcountCommand(c *client, argv [][]byte) {
	r, ok := zset.ParseScoreRange(argv[2], argv[3])
	if !ok {
		c.err("ERR min or max is not a float")
		return
	}
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.integer(0)
		return
	}
	first := z.FirstInScore(&r)
	if first < 0 {
		c.integer(0)
		return
	}
	if z.Skiplist() {
		last := z.LastInScore(&r)
		c.integer(int64(last - first + 1))
		return
	}
	n := 0
	for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
		if _, sc := cur.Get(); !r.LteMax(sc) {
			break
		}
		n++
	}
	c.integer(int64(n))
}

func zlexcountCommand(c *client, argv [][]byte) {
	r, ok := zset.ParseLexRange(argv[2], argv[3])
	if !ok {
		c.err("ERR min or max not valid string range item")
		return
	}
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.integer(0)
		return
	}
	first := z.FirstInLex(&r)
	if first < 0 {
		c.integer(0)
		return
	}
	if z.Skiplist() {
		last := z.LastInLex(&r)
		n := 0
		if last >= 0 {
			n = last - first + 1
		}
		c.integer(int64(n))
		return
	}
	n := 0
	for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
		if m, _ := cur.Get(); !r.LteMax(m) {
			break
		}
		n++
	}
	c.integer(int64(n))
}

func zrankCommand(c *client, argv [][]byte)    { zrankGeneric(c, argv, false) }
func zrevrankCommand(c *client, argv [][]byte) { zrankGeneric(c, argv, true) }

func zrankGeneric(c *client, argv [][]byte, rev bool) {
	z, wrong := c.srv.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.nullBulk()
		return
	}
	rk, _, ok := z.Rank(argv[2])
	if !ok {
		c.nullBulk()
		return
	}
	if rev {
		rk = z.Len() - 1 - rk
	}
	c.integer(int64(rk))
}

const (
	zrangeAuto = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

// zrangeSink receives the elements of a ZRANGE-family result: replied to the
// client or collected for ZRANGESTORE.
type zrangeSink struct {
	c          *client
	store      bool
	withScores bool
	members    [][]byte
	scores     []float64
	// reply mode: number of elements written after the placeholder.
	n int
}

func (k *zrangeSink) emit(m []byte, sc float64) {
	if k.store {
		k.members = append(k.members, m)
		k.scores = append(k.scores, sc)
		return
	}
	k.n++
	if k.withScores {
		k.c.pairStart()
	}
	k.c.bulk(m)
	if k.withScores {
		k.c.double(sc)
	}
}

func zrangeCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeAuto, false)
}
func zrangestoreCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 2, true, zrangeAuto, false)
}
func zrevrangeCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeRank, true)
}
func zrangebyscoreCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeScore, false)
}
func zrevrangebyscoreCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeScore, true)
}
func zrangebylexCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeLex, false)
}
func zrevrangebylexCommand(c *client, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeLex, true)
}

// zrangeGeneric is zrangeGenericCommand: argStart is the index of the
// source key; a fixed rangeType/rev (legacy commands) refuses the
// BYSCORE/BYLEX/REV tokens.
func zrangeGeneric(c *client, argv [][]byte, argStart int, store bool, rangeType int, rev bool) {
	s := c.srv
	key := argv[argStart]
	minIdx, maxIdx := argStart+1, argStart+2
	// The legacy commands fix the direction: REV is a syntax error there.
	dirSet := rangeType != zrangeAuto
	withScores := false
	var offset, limit int64 = 0, -1
	for j := argStart + 3; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case !store && eqFold(a, "withscores"):
			withScores = true
		case eqFold(a, "limit") && left >= 2:
			o, ok1 := parseInt(argv[j+1])
			if !ok1 {
				c.errNotInt()
				return
			}
			l, ok2 := parseInt(argv[j+2])
			if !ok2 {
				c.errNotInt()
				return
			}
			offset, limit = o, l
			j += 2
		case !dirSet && eqFold(a, "rev"):
			rev, dirSet = true, true
		case rangeType == zrangeAuto && eqFold(a, "bylex"):
			rangeType = zrangeLex
		case rangeType == zrangeAuto && eqFold(a, "byscore"):
			rangeType = zrangeScore
		default:
			c.errSyntax()
			return
		}
	}
	if rangeType == zrangeAuto {
		rangeType = zrangeRank
	}
	if limit != -1 && rangeType == zrangeRank {
		c.err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if withScores && rangeType == zrangeLex {
		c.err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return
	}
	if rev && (rangeType == zrangeScore || rangeType == zrangeLex) {
		minIdx, maxIdx = maxIdx, minIdx
	}
	var start, end int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	switch rangeType {
	case zrangeRank:
		var ok1, ok2 bool
		start, ok1 = parseInt(argv[minIdx])
		if !ok1 {
			c.errNotInt()
			return
		}
		end, ok2 = parseInt(argv[maxIdx])
		if !ok2 {
			c.errNotInt()
			return
		}
	case zrangeScore:
		var ok bool
		if sr, ok = zset.ParseScoreRange(argv[minIdx], argv[maxIdx]); !ok {
			c.err("ERR min or max is not a float")
			return
		}
	case zrangeLex:
		var ok bool
		if lr, ok = zset.ParseLexRange(argv[minIdx], argv[maxIdx]); !ok {
			c.err("ERR min or max not valid string range item")
			return
		}
	}
	sink := &zrangeSink{c: c, store: store, withScores: withScores}
	z, wrong := s.zsetRead(c, key)
	if wrong {
		return
	}
	if z == nil {
		if store {
			zrangeStoreResult(c, argv[1], sink)
		} else {
			c.emptyArray()
		}
		return
	}
	// Replies need the element count first: compute the result, then
	// write it (a placeholder header would need patching otherwise).
	var out struct {
		first int
		n     int
	}
	out.first = -1
	switch rangeType {
	case zrangeRank:
		llen := int64(z.Len())
		if start < 0 {
			start += llen
		}
		if end < 0 {
			end += llen
		}
		if start < 0 {
			start = 0
		}
		if !(start > end || start >= llen) {
			if end >= llen {
				end = llen - 1
			}
			out.n = int(end - start + 1)
			if rev {
				out.first = int(llen - 1 - start)
			} else {
				out.first = int(start)
			}
		}
	case zrangeScore, zrangeLex:
		var first int
		inRange := func(cur *zset.Cursor) bool {
			m, sc := cur.Get()
			if rangeType == zrangeScore {
				if rev {
					return sr.GteMin(sc)
				}
				return sr.LteMax(sc)
			}
			if rev {
				return lr.GteMin(m)
			}
			return lr.LteMax(m)
		}
		switch {
		case rangeType == zrangeScore && rev:
			first = z.LastInScore(&sr)
		case rangeType == zrangeScore:
			first = z.FirstInScore(&sr)
		case rev:
			first = z.LastInLex(&lr)
		default:
			first = z.FirstInLex(&lr)
		}
		if first >= 0 {
			cur := z.Cursor(first)
			for ; cur.Valid() && offset != 0; offset-- {
				cur.Step(rev)
			}
			if cur.Valid() {
				out.first = cur.Rank()
				n := 0
				for ; cur.Valid() && limit != 0; limit-- {
					if !inRange(&cur) {
						break
					}
					n++
					cur.Step(rev)
				}
				out.n = n
			}
		}
	}
	if !store {
		if withScores {
			c.pairsLen(out.n)
		} else {
			c.arrayLen(out.n)
		}
	}
	if out.n > 0 {
		cur := z.Cursor(out.first)
		for i := 0; i < out.n && cur.Valid(); i++ {
			m, sc := cur.Get()
			sink.emit(m, sc)
			cur.Step(rev)
		}
	}
	if store {
		zrangeStoreResult(c, argv[1], sink)
	}
}

// zrangeStoreResult writes ZRANGESTORE's destination (or deletes it when
// the result is empty) and replies the count.
func zrangeStoreResult(c *client, dst []byte, sink *zrangeSink) {
	s := c.srv
	n := len(sink.members)
	if n == 0 {
		if s.deleteKey(c.db, dst) {
			s.dirty++
			s.signalModifiedKey(c.db, dst)
			s.notify(notifyGeneric, "del", dst, c.db.id)
		}
		c.integer(0)
		return
	}
	maxLen := 0
	for _, m := range sink.members {
		if len(m) > maxLen {
			maxLen = len(m)
		}
	}
	var z *zset.Set
	if n <= s.cfg.ZSetMaxListpackEntries && maxLen <= s.cfg.ZSetMaxListpackValue {
		z = zset.NewListpack(0)
	} else {
		z = zset.NewSkiplist(n)
	}
	for i, m := range sink.members {
		m = cloneBytes(m)
		if _, ok := z.Score(m); ok {
			continue
		}
		z.InsertRaw(m, sink.scores[i])
	}
	s.setKey(c.db, dst, newObjEntry(typZSet, unsafe.Pointer(z)), false)
	s.dirty++
	s.signalModifiedKey(c.db, dst)
	s.notify(notifyZset, "zrangestore", dst, c.db.id)
	c.integer(int64(n))
}

func zpopminCommand(c *client, argv [][]byte) { zpopGeneric(c, argv, false) }

// zpopEvent names the event of a ZPOPMIN/ZPOPMAX-like pop.
func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}
func zpopmaxCommand(c *client, argv [][]byte) { zpopGeneric(c, argv, true) }

func zpopGeneric(c *client, argv [][]byte, max bool) {
	s := c.srv
	if len(argv) > 3 {
		c.errSyntax()
		return
	}
	count := int64(1)
	if len(argv) == 3 {
		v, ok := parseInt(argv[2])
		if !ok || v < 0 {
			c.err("ERR value is out of range, must be positive")
			return
		}
		count = v
	}
	key := argv[1]
	z, wrong := s.zsetWrite(c, key)
	if wrong {
		return
	}
	if z == nil || count == 0 {
		c.emptyArray()
		return
	}
	n := int(count)
	if count > int64(z.Len()) {
		n = z.Len()
	}
	// Redis nests the pairs in RESP3 only when a count was given.
	nested := c.resp == 3 && len(argv) == 3
	if nested {
		c.arrayLen(n)
	} else {
		c.arrayLen(n * 2)
	}
	for i := 0; i < n; i++ {
		rk := 0
		if max {
			rk = z.Len() - 1
		}
		cur := z.Cursor(rk)
		m, sc := cur.Get()
		if nested {
			c.arrayLen(2)
		}
		c.bulk(m)
		c.double(sc)
		z.DeleteRankRange(rk, rk)
	}
	s.notify(notifyZset, zpopEvent(max), key, c.db.id)
	if z.Len() == 0 {
		s.deleteKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
	}
	s.dirty += int64(n)
	s.signalModifiedKey(c.db, key)
}

const (
	zremRank = iota
	zremScore
	zremLex
)

// zremEvents are the ZREMRANGEBY* events by kind.
var zremEvents = [...]string{zremRank: "zremrangebyrank", zremScore: "zremrangebyscore", zremLex: "zremrangebylex"}

func zremrangebyrankCommand(c *client, argv [][]byte)  { zremrangeGeneric(c, argv, zremRank) }
func zremrangebyscoreCommand(c *client, argv [][]byte) { zremrangeGeneric(c, argv, zremScore) }
func zremrangebylexCommand(c *client, argv [][]byte)   { zremrangeGeneric(c, argv, zremLex) }

func zremrangeGeneric(c *client, argv [][]byte, kind int) {
	s := c.srv
	key := argv[1]
	var start, end int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	switch kind {
	case zremRank:
		var ok1, ok2 bool
		start, ok1 = parseInt(argv[2])
		end, ok2 = parseInt(argv[3])
		if !ok1 || !ok2 {
			c.errNotInt()
			return
		}
	case zremScore:
		var ok bool
		if sr, ok = zset.ParseScoreRange(argv[2], argv[3]); !ok {
			c.err("ERR min or max is not a float")
			return
		}
	case zremLex:
		var ok bool
		if lr, ok = zset.ParseLexRange(argv[2], argv[3]); !ok {
			c.err("ERR min or max not valid string range item")
			return
		}
	}
	z, wrong := s.zsetWrite(c, key)
	if wrong {
		return
	}
	if z == nil {
		c.integer(0)
		return
	}
	first, n := -1, 0
	switch kind {
	case zremRank:
		llen := int64(z.Len())
		if start < 0 {
			start += llen
		}
		if end < 0 {
			end += llen
		}
		if start < 0 {
			start = 0
		}
		if start > end || start >= llen {
			c.integer(0)
			return
		}
		if end >= llen {
			end = llen - 1
		}
		first, n = int(start), int(end-start+1)
	case zremScore:
		first = z.FirstInScore(&sr)
		if first >= 0 {
			for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
				if _, sc := cur.Get(); !sr.LteMax(sc) {
					break
				}
				n++
			}
		}
	case zremLex:
		first = z.DeleteByLexStart(&lr)
		if first >= 0 {
			for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
				if m, _ := cur.Get(); !lr.LteMax(m) {
					break
				}
				n++
			}
		}
	}
	if n > 0 {
		z.DeleteRankRange(first, first+n-1)
		removed := z.Len() == 0
		if removed {
			s.deleteKey(c.db, key)
		}
		s.dirty += int64(n)
		s.signalModifiedKey(c.db, key)
		s.notify(notifyZset, zremEvents[kind], key, c.db.id)
		if removed {
			s.notify(notifyGeneric, "del", key, c.db.id)
		}
	}
	c.integer(int64(n))
}

func zscanCommand(c *client, argv [][]byte) {
	seam.ScanCollection(c, argv, seam.TypeZSet, 2, func(z *zset.Set, cursor uint64, count int64) ([][]byte, uint64) {
		if z.Skiplist() {
			return seam.ScanDict(z.Dict(), cursor, count*2, func(out [][]byte, _ string, n **skiplist.Node) [][]byte {
				return append(out, (*n).Member, resp.FormatDouble((*n).Score))
			})
		}
		var items [][]byte
		z.Each(func(m []byte, sc float64) bool {
			items = append(items, m, resp.FormatDouble(sc))
			return true
		})
		return items, 0
	})
}
