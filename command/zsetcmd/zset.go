// Package zsetcmd is the sorted-set command group (Redis's t_zset.c) and
// the geo group built on it (geo.c: a geo index is a sorted set whose
// scores are 52-bit geohashes), on package zset's values, written against
// the seam of package command, with the blocking pops (BZPOPMIN/BZPOPMAX,
// BZMPOP: blocking.go).
package zsetcmd

import (
	"bytes"
	"math"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"
)

// Group is the "sorted-set" group, as the server registers it.
var Group = command.Group{Name: "sorted-set", Category: "@sortedset", Commands: []command.Spec{
	sp("zadd", -4, w|command.FlagFast, 1, 1, 1, zaddCommand, "Add one or more members to a sorted set, or update its score if it already exists", "1.2.0", "@write", "@fast"),
	sp("zincrby", 4, w|command.FlagFast, 1, 1, 1, zincrbyCommand, "Increment the score of a member in a sorted set", "1.2.0", "@write", "@fast"),
	sp("zrem", -3, command.FlagWrite|command.FlagFast, 1, 1, 1, zremCommand, "Remove one or more members from a sorted set", "1.2.0", "@write", "@fast"),
	sp("zscore", 3, r|command.FlagFast, 1, 1, 1, zscoreCommand, "Get the score associated with the given member in a sorted set", "1.2.0", "@read", "@fast"),
	sp("zmscore", -3, r|command.FlagFast, 1, 1, 1, zmscoreCommand, "Get the score associated with the given members in a sorted set", "6.2.0", "@read", "@fast"),
	sp("zcard", 2, r|command.FlagFast, 1, 1, 1, zcardCommand, "Get the number of members in a sorted set", "1.2.0", "@read", "@fast"),
	sp("zcount", 4, r|command.FlagFast, 1, 1, 1, zcountCommand, "Count the members in a sorted set with scores within the given values", "2.0.0", "@read", "@fast"),
	sp("zlexcount", 4, r|command.FlagFast, 1, 1, 1, zlexcountCommand, "Count the number of members in a sorted set between a given lexicographical range", "2.8.9", "@read", "@fast"),
	sp("zrank", 3, r|command.FlagFast, 1, 1, 1, zrankCommand, "Determine the index of a member in a sorted set", "2.0.0", "@read", "@fast"),
	sp("zrevrank", 3, r|command.FlagFast, 1, 1, 1, zrevrankCommand, "Determine the index of a member in a sorted set, with scores ordered from high to low", "2.0.0", "@read", "@fast"),
	sp("zrange", -4, r, 1, 1, 1, zrangeCommand, "Return a range of members in a sorted set", "1.2.0", "@read", "@slow"),
	sp("zrangestore", -5, w, 1, 2, 1, zrangestoreCommand, "Store a range of members from sorted set into another key", "6.2.0", "@write", "@slow"),
	sp("zrevrange", -4, r, 1, 1, 1, zrevrangeCommand, "Return a range of members in a sorted set, by index, with scores ordered from high to low", "1.2.0", "@read", "@slow"),
	sp("zrangebyscore", -4, r, 1, 1, 1, zrangebyscoreCommand, "Return a range of members in a sorted set, by score", "1.0.5", "@read", "@slow"),
	sp("zrevrangebyscore", -4, r, 1, 1, 1, zrevrangebyscoreCommand, "Return a range of members in a sorted set, by score, with scores ordered from high to low", "2.2.0", "@read", "@slow"),
	sp("zrangebylex", -4, r, 1, 1, 1, zrangebylexCommand, "Return a range of members in a sorted set, by lexicographical range", "2.8.9", "@read", "@slow"),
	sp("zrevrangebylex", -4, r, 1, 1, 1, zrevrangebylexCommand, "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "2.8.9", "@read", "@slow"),
	sp("zpopmin", -2, command.FlagWrite|command.FlagFast, 1, 1, 1, zpopminCommand, "Remove and return members with the lowest scores in a sorted set", "5.0.0", "@write", "@fast"),
	sp("zpopmax", -2, command.FlagWrite|command.FlagFast, 1, 1, 1, zpopmaxCommand, "Remove and return members with the highest scores in a sorted set", "5.0.0", "@write", "@fast"),
	sp("zremrangebyscore", 4, command.FlagWrite, 1, 1, 1, zremrangebyscoreCommand, "Remove all members in a sorted set within the given scores", "1.2.0", "@write", "@slow"),
	sp("zremrangebyrank", 4, command.FlagWrite, 1, 1, 1, zremrangebyrankCommand, "Remove all members in a sorted set within the given indexes", "2.0.0", "@write", "@slow"),
	sp("zremrangebylex", 4, command.FlagWrite, 1, 1, 1, zremrangebylexCommand, "Remove all members in a sorted set between the given lexicographical range", "2.8.9", "@write", "@slow"),
	sp("zscan", -3, r, 1, 1, 1, zscanCommand, "Incrementally iterate sorted sets elements and associated scores", "2.8.0", "@read", "@slow"),
	sp("zunionstore", -4, w, 1, 1, 1, zunionstoreCommand, "Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "@write", "@slow"),
	sp("zinterstore", -4, w, 1, 1, 1, zinterstoreCommand, "Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "@write", "@slow"),
	sp("zdiffstore", -4, w, 1, 1, 1, zdiffstoreCommand, "Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0", "@write", "@slow"),
	sp("zunion", -3, r, 2, 2, 1, zunionCommand, "Add multiple sorted sets", "6.2.0", "@read", "@slow"),
	sp("zinter", -3, r, 2, 2, 1, zinterCommand, "Intersect multiple sorted sets", "6.2.0", "@read", "@slow"),
	sp("zdiff", -3, r, 2, 2, 1, zdiffCommand, "Subtract multiple sorted sets", "6.2.0", "@read", "@slow"),
	sp("zintercard", -3, r, 2, 2, 1, zintercardCommand, "Intersect multiple sorted sets and return the cardinality of the result", "7.0.0", "@read", "@slow"),
	sp("zrandmember", -2, r, 1, 1, 1, zrandmemberCommand, "Get one or multiple random elements from a sorted set", "6.2.0", "@read", "@slow"),
	sp("zmpop", -4, command.FlagWrite, 2, 2, 1, zmpopCommand, "Remove and return members with scores in a sorted set", "7.0.0", "@write", "@slow"),
	sp("bzpopmin", -3, bl|command.FlagFast, 1, -2, 1, bzpopminCommand, "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", "5.0.0", "@write", "@fast", "@blocking"),
	sp("bzpopmax", -3, bl|command.FlagFast, 1, -2, 1, bzpopmaxCommand, "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", "5.0.0", "@write", "@fast", "@blocking"),
	sp("bzmpop", -5, bl, 3, 3, 1, bzmpopCommand, "Remove and return members with scores in a sorted set or block until one is available", "7.0.0", "@write", "@slow", "@blocking"),
}}

const (
	w  = command.FlagWrite | command.FlagDenyOOM
	r  = command.FlagReadonly
	bl = command.FlagWrite | command.FlagBlocking | command.FlagNoScript
)

func sp(name string, arity int, flags command.Flag, first, last, step int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// limits are the listpack limits of the configuration.
func limits(c command.Ctx) zset.Limits {
	cfg := c.Config()
	return zset.Limits{Entries: cfg.ZSetMaxListpackEntries, Value: cfg.ZSetMaxListpackValue}
}

// read returns key's sorted set (nil if absent); wrong reports that
// a WRONGTYPE error was replied.
func read(c command.Ctx, key []byte) (*zset.Set, bool) {
	return command.ReadTyped[zset.Set](c, key, command.TypeZSet)
}

func write(c command.Ctx, key []byte) (*zset.Set, bool) {
	return command.WriteTyped[zset.Set](c, key, command.TypeZSet)
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
func zaddOne(lim zset.Limits, z *zset.Set, flags int, score float64, member []byte) (newScore float64, added, updated, nop, ok bool) {
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
	z.Insert(bytes.Clone(member), score, lim)
	return score, true, false, false, true
}

func zaddCommand(c command.Ctx, argv [][]byte)    { zaddGeneric(c, argv, 0) }
func zincrbyCommand(c command.Ctx, argv [][]byte) { zaddGeneric(c, argv, zaddINCR) }

func zaddGeneric(c command.Ctx, argv [][]byte, flags int) {
	idx := 2
	for ; idx < len(argv); idx++ {
		a := argv[idx]
		switch {
		case rstring.EqualFold(a, "nx"):
			flags |= zaddNX
		case rstring.EqualFold(a, "xx"):
			flags |= zaddXX
		case rstring.EqualFold(a, "ch"):
			flags |= zaddCH
		case rstring.EqualFold(a, "incr"):
			flags |= zaddINCR
		case rstring.EqualFold(a, "gt"):
			flags |= zaddGT
		case rstring.EqualFold(a, "lt"):
			flags |= zaddLT
		default:
			goto done
		}
	}
done:
	elems := len(argv) - idx
	if elems%2 != 0 || elems == 0 {
		c.Err(command.ErrSyntax)
		return
	}
	elems /= 2
	nx, xx, gt, lt := flags&zaddNX != 0, flags&zaddXX != 0, flags&zaddGT != 0, flags&zaddLT != 0
	if nx && xx {
		c.Err("ERR XX and NX options at the same time are not compatible")
		return
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		c.Err("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	}
	if flags&zaddINCR != 0 && elems > 1 {
		c.Err("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, elems)
	for i := range scores {
		v, ok := zset.ParseScore(argv[idx+2*i])
		if !ok {
			c.Err(command.ErrNotFloat)
			return
		}
		scores[i] = v
	}
	key := argv[1]
	z, wrong := write(c, key)
	if wrong {
		return
	}
	var added, updated, processed int
	failed := false
	lim := limits(c)
	var score float64
	if z == nil {
		if xx {
			goto reply
		}
		if c.Config().ZSetMaxListpackEntries == 0 || c.Config().ZSetMaxListpackValue < len(argv[idx+1]) {
			z = zset.NewSkiplist(elems)
		} else {
			z = zset.NewListpack(0)
		}
		c.AddKey(key, command.Obj(command.TypeZSet, z))
	}
	for i := 0; i < elems; i++ {
		ns, a, u, nop, ok := zaddOne(lim, z, flags, scores[i], argv[idx+2*i+1])
		if !ok {
			c.Err("ERR resulting score is not a number (NaN)")
			failed = true
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
		c.DeleteKey(key)
	}
	if added+updated > 0 {
		c.AddDirty(int64(added + updated))
		c.SignalModifiedKey(key)
		if flags&zaddINCR != 0 {
			c.Notify(command.NotifyZset, "zincr", key)
		} else {
			c.Notify(command.NotifyZset, "zadd", key)
		}
	}
	if failed {
		return
	}
reply:
	if flags&zaddINCR != 0 {
		if processed > 0 {
			c.Double(score)
		} else {
			c.Null()
		}
		return
	}
	if flags&zaddCH != 0 {
		c.Integer(int64(added + updated))
	} else {
		c.Integer(int64(added))
	}
}

func zremCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	z, wrong := write(c, key)
	if wrong {
		return
	}
	if z == nil {
		c.Integer(0)
		return
	}
	command.RemoveMembers(c, key, z, argv[2:], command.NotifyZset, "zrem")
}

func zscoreCommand(c command.Ctx, argv [][]byte) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Null()
		return
	}
	if sc, ok := z.Score(argv[2]); ok {
		c.Double(sc)
	} else {
		c.Null()
	}
}

func zmscoreCommand(c command.Ctx, argv [][]byte) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	c.ArrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		if z == nil {
			c.Null()
			continue
		}
		if sc, ok := z.Score(m); ok {
			c.Double(sc)
		} else {
			c.Null()
		}
	}
}

func zcardCommand(c command.Ctx, argv [][]byte) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Integer(0)
		return
	}
	c.Integer(int64(z.Len()))
}

func zcountCommand(c command.Ctx, argv [][]byte) {
	r, ok := zset.ParseScoreRange(argv[2], argv[3])
	if !ok {
		c.Err("ERR min or max is not a float")
		return
	}
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Integer(0)
		return
	}
	first := z.FirstInScore(&r)
	if first < 0 {
		c.Integer(0)
		return
	}
	if z.Skiplist() {
		last := z.LastInScore(&r)
		c.Integer(int64(last - first + 1))
		return
	}
	n := 0
	for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
		if _, sc := cur.Get(); !r.LteMax(sc) {
			break
		}
		n++
	}
	c.Integer(int64(n))
}

func zlexcountCommand(c command.Ctx, argv [][]byte) {
	r, ok := zset.ParseLexRange(argv[2], argv[3])
	if !ok {
		c.Err("ERR min or max not valid string range item")
		return
	}
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Integer(0)
		return
	}
	first := z.FirstInLex(&r)
	if first < 0 {
		c.Integer(0)
		return
	}
	if z.Skiplist() {
		last := z.LastInLex(&r)
		n := 0
		if last >= 0 {
			n = last - first + 1
		}
		c.Integer(int64(n))
		return
	}
	n := 0
	for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
		if m, _ := cur.Get(); !r.LteMax(m) {
			break
		}
		n++
	}
	c.Integer(int64(n))
}

func zrankCommand(c command.Ctx, argv [][]byte)    { zrankGeneric(c, argv, false) }
func zrevrankCommand(c command.Ctx, argv [][]byte) { zrankGeneric(c, argv, true) }

func zrankGeneric(c command.Ctx, argv [][]byte, rev bool) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Null()
		return
	}
	rk, _, ok := z.Rank(argv[2])
	if !ok {
		c.Null()
		return
	}
	if rev {
		rk = z.Len() - 1 - rk
	}
	c.Integer(int64(rk))
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
	c          command.Ctx
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
		k.c.PairStart()
	}
	k.c.Bulk(m)
	if k.withScores {
		k.c.Double(sc)
	}
}

func zrangeCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeAuto, false)
}
func zrangestoreCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 2, true, zrangeAuto, false)
}
func zrevrangeCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeRank, true)
}
func zrangebyscoreCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeScore, false)
}
func zrevrangebyscoreCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeScore, true)
}
func zrangebylexCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeLex, false)
}
func zrevrangebylexCommand(c command.Ctx, argv [][]byte) {
	zrangeGeneric(c, argv, 1, false, zrangeLex, true)
}

// zrangeGeneric is zrangeGenericCommand: argStart is the index of the
// source key; a fixed rangeType/rev (legacy commands) refuses the
// BYSCORE/BYLEX/REV tokens.
func zrangeGeneric(c command.Ctx, argv [][]byte, argStart int, store bool, rangeType int, rev bool) {
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
		case !store && rstring.EqualFold(a, "withscores"):
			withScores = true
		case rstring.EqualFold(a, "limit") && left >= 2:
			o, ok1 := rstring.String2ll(argv[j+1])
			if !ok1 {
				c.Err(command.ErrNotInt)
				return
			}
			l, ok2 := rstring.String2ll(argv[j+2])
			if !ok2 {
				c.Err(command.ErrNotInt)
				return
			}
			offset, limit = o, l
			j += 2
		case !dirSet && rstring.EqualFold(a, "rev"):
			rev, dirSet = true, true
		case rangeType == zrangeAuto && rstring.EqualFold(a, "bylex"):
			rangeType = zrangeLex
		case rangeType == zrangeAuto && rstring.EqualFold(a, "byscore"):
			rangeType = zrangeScore
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	if rangeType == zrangeAuto {
		rangeType = zrangeRank
	}
	if limit != -1 && rangeType == zrangeRank {
		c.Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if withScores && rangeType == zrangeLex {
		c.Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
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
		start, ok1 = rstring.String2ll(argv[minIdx])
		if !ok1 {
			c.Err(command.ErrNotInt)
			return
		}
		end, ok2 = rstring.String2ll(argv[maxIdx])
		if !ok2 {
			c.Err(command.ErrNotInt)
			return
		}
	case zrangeScore:
		var ok bool
		if sr, ok = zset.ParseScoreRange(argv[minIdx], argv[maxIdx]); !ok {
			c.Err("ERR min or max is not a float")
			return
		}
	case zrangeLex:
		var ok bool
		if lr, ok = zset.ParseLexRange(argv[minIdx], argv[maxIdx]); !ok {
			c.Err("ERR min or max not valid string range item")
			return
		}
	}
	sink := &zrangeSink{c: c, store: store, withScores: withScores}
	z, wrong := read(c, key)
	if wrong {
		return
	}
	if z == nil {
		if store {
			zrangeStoreResult(c, argv[1], sink)
		} else {
			c.EmptyArray()
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
			c.PairsLen(out.n)
		} else {
			c.ArrayLen(out.n)
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
func zrangeStoreResult(c command.Ctx, dst []byte, sink *zrangeSink) {
	n := len(sink.members)
	if n == 0 {
		if c.DeleteKey(dst) {
			c.AddDirty(1)
			c.SignalModifiedKey(dst)
			c.Notify(command.NotifyGeneric, "del", dst)
		}
		c.Integer(0)
		return
	}
	maxLen := 0
	for _, m := range sink.members {
		if len(m) > maxLen {
			maxLen = len(m)
		}
	}
	var z *zset.Set
	if n <= c.Config().ZSetMaxListpackEntries && maxLen <= c.Config().ZSetMaxListpackValue {
		z = zset.NewListpack(0)
	} else {
		z = zset.NewSkiplist(n)
	}
	for i, m := range sink.members {
		m = bytes.Clone(m)
		if _, ok := z.Score(m); ok {
			continue
		}
		z.InsertRaw(m, sink.scores[i])
	}
	c.SetKey(dst, command.Obj(command.TypeZSet, z))
	c.AddDirty(1)
	c.SignalModifiedKey(dst)
	c.Notify(command.NotifyZset, "zrangestore", dst)
	c.Integer(int64(n))
}

func zpopminCommand(c command.Ctx, argv [][]byte) { zpopGeneric(c, argv, false) }

// zpopEvent names the event of a ZPOPMIN/ZPOPMAX-like pop.
func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}
func zpopmaxCommand(c command.Ctx, argv [][]byte) { zpopGeneric(c, argv, true) }

func zpopGeneric(c command.Ctx, argv [][]byte, max bool) {
	if len(argv) > 3 {
		c.Err(command.ErrSyntax)
		return
	}
	count := int64(1)
	if len(argv) == 3 {
		v, ok := rstring.String2ll(argv[2])
		if !ok || v < 0 {
			c.Err("ERR value is out of range, must be positive")
			return
		}
		count = v
	}
	key := argv[1]
	z, wrong := write(c, key)
	if wrong {
		return
	}
	if z == nil || count == 0 {
		c.EmptyArray()
		return
	}
	n := int(count)
	if count > int64(z.Len()) {
		n = z.Len()
	}
	// Redis nests the pairs in RESP3 only when a count was given.
	nested := c.RESP() == 3 && len(argv) == 3
	if nested {
		c.ArrayLen(n)
	} else {
		c.ArrayLen(n * 2)
	}
	for i := 0; i < n; i++ {
		rk := 0
		if max {
			rk = z.Len() - 1
		}
		cur := z.Cursor(rk)
		m, sc := cur.Get()
		if nested {
			c.ArrayLen(2)
		}
		c.Bulk(m)
		c.Double(sc)
		z.DeleteRankRange(rk, rk)
	}
	c.Notify(command.NotifyZset, zpopEvent(max), key)
	if z.Len() == 0 {
		c.DeleteKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
	}
	c.AddDirty(int64(n))
	c.SignalModifiedKey(key)
}

const (
	zremRank = iota
	zremScore
	zremLex
)

// zremEvents are the ZREMRANGEBY* events by kind.
var zremEvents = [...]string{zremRank: "zremrangebyrank", zremScore: "zremrangebyscore", zremLex: "zremrangebylex"}

func zremrangebyrankCommand(c command.Ctx, argv [][]byte)  { zremrangeGeneric(c, argv, zremRank) }
func zremrangebyscoreCommand(c command.Ctx, argv [][]byte) { zremrangeGeneric(c, argv, zremScore) }
func zremrangebylexCommand(c command.Ctx, argv [][]byte)   { zremrangeGeneric(c, argv, zremLex) }

func zremrangeGeneric(c command.Ctx, argv [][]byte, kind int) {
	key := argv[1]
	var start, end int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	switch kind {
	case zremRank:
		var ok1, ok2 bool
		start, ok1 = rstring.String2ll(argv[2])
		end, ok2 = rstring.String2ll(argv[3])
		if !ok1 || !ok2 {
			c.Err(command.ErrNotInt)
			return
		}
	case zremScore:
		var ok bool
		if sr, ok = zset.ParseScoreRange(argv[2], argv[3]); !ok {
			c.Err("ERR min or max is not a float")
			return
		}
	case zremLex:
		var ok bool
		if lr, ok = zset.ParseLexRange(argv[2], argv[3]); !ok {
			c.Err("ERR min or max not valid string range item")
			return
		}
	}
	z, wrong := write(c, key)
	if wrong {
		return
	}
	if z == nil {
		c.Integer(0)
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
			c.Integer(0)
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
			c.DeleteKey(key)
		}
		c.AddDirty(int64(n))
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyZset, zremEvents[kind], key)
		if removed {
			c.Notify(command.NotifyGeneric, "del", key)
		}
	}
	c.Integer(int64(n))
}

func zscanCommand(c command.Ctx, argv [][]byte) {
	command.ScanCollection(c, argv, command.TypeZSet, 2, func(z *zset.Set, cursor uint64, count int64) ([][]byte, uint64) {
		if z.Skiplist() {
			return command.ScanDict(z.Dict(), cursor, count*2, func(out [][]byte, _ string, n **skiplist.Node) [][]byte {
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
