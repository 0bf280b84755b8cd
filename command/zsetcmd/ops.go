package zsetcmd

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"
)

// Sorted-set algebra (ZUNION/ZINTER/ZDIFF and their STORE forms,
// ZINTERCARD), ZRANDMEMBER and ZMPOP, following Redis 7.0's t_zset.c.

const (
	zopUnion = iota
	zopInter
	zopDiff
)

const (
	zaggSum = iota
	zaggMin
	zaggMax
)

// zopSrc is one input of a set operation: a sorted set, a plain set
// (every member scores 1) or a missing key.
type zopSrc struct {
	z      *zset.Set
	set    *set.Set
	weight float64
}

func (src *zopSrc) length() int {
	switch {
	case src.z != nil:
		return src.z.Len()
	case src.set != nil:
		return src.set.Len()
	}
	return 0
}

func (src *zopSrc) each(fn func(m []byte, score float64)) {
	switch {
	case src.z != nil:
		src.z.Each(func(m []byte, sc float64) bool {
			fn(m, sc)
			return true
		})
	case src.set != nil:
		src.set.Each(func(m []byte) bool {
			fn(m, 1)
			return true
		})
	}
}

// elements copies the input's elements: lookups during a dict's Range
// would run rehash steps under it (Redis uses a safe iterator).
func (src *zopSrc) elements() []zset.Entry {
	out := make([]zset.Entry, 0, src.length())
	src.each(func(m []byte, sc float64) {
		out = append(out, zset.Entry{Member: bytes.Clone(m), Score: sc})
	})
	return out
}

func (src *zopSrc) find(m []byte) (float64, bool) {
	switch {
	case src.z != nil:
		return src.z.Score(m)
	case src.set != nil:
		return 1, src.set.Contains(m)
	}
	return 0, false
}

// zunionInterAggregate folds val into *target; a NaN sum becomes 0.
func zunionInterAggregate(target *float64, val float64, agg int) {
	switch agg {
	case zaggSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case zaggMin:
		if val < *target {
			*target = val
		}
	case zaggMax:
		if val > *target {
			*target = val
		}
	}
}

// zopStoreEvents are the Z*STORE events by operation.
var zopStoreEvents = [...]string{zopUnion: "zunionstore", zopInter: "zinterstore", zopDiff: "zdiffstore"}

func zunionstoreCommand(c command.Ctx, argv [][]byte) {
	zsetOpGeneric(c, argv, argv[1], 2, zopUnion, false)
}
func zinterstoreCommand(c command.Ctx, argv [][]byte) {
	zsetOpGeneric(c, argv, argv[1], 2, zopInter, false)
}
func zdiffstoreCommand(c command.Ctx, argv [][]byte) {
	zsetOpGeneric(c, argv, argv[1], 2, zopDiff, false)
}
func zunionCommand(c command.Ctx, argv [][]byte)     { zsetOpGeneric(c, argv, nil, 1, zopUnion, false) }
func zinterCommand(c command.Ctx, argv [][]byte)     { zsetOpGeneric(c, argv, nil, 1, zopInter, false) }
func zdiffCommand(c command.Ctx, argv [][]byte)      { zsetOpGeneric(c, argv, nil, 1, zopDiff, false) }
func zintercardCommand(c command.Ctx, argv [][]byte) { zsetOpGeneric(c, argv, nil, 1, zopInter, true) }

// zsetOpGeneric is zunionInterDiffGenericCommand.
func zsetOpGeneric(c command.Ctx, argv [][]byte, dst []byte, numkeysIdx int, op int, cardOnly bool) {
	setnum, ok := rstring.String2ll(argv[numkeysIdx])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if setnum < 1 {
		c.Err("ERR at least 1 input key is needed for '" + strings.ToLower(string(argv[0])) + "' command")
		return
	}
	if setnum > int64(len(argv)-(numkeysIdx+1)) {
		c.Err(command.ErrSyntax)
		return
	}
	srcs := make([]zopSrc, setnum)
	j := numkeysIdx + 1
	for i := range srcs {
		// Redis 7.0 reads the inputs with lookupKeyRead even for STORE.
		e, found := c.LookupRead(argv[j])
		j++
		srcs[i].weight = 1
		if !found {
			continue
		}
		switch e.Type {
		case command.TypeZSet:
			srcs[i].z = (*zset.Set)(e.Ptr)
		case command.TypeSet:
			srcs[i].set = (*set.Set)(e.Ptr)
		default:
			c.Err(command.ErrWrongType)
			return
		}
	}
	agg := zaggSum
	withScores := false
	var limit int64
	for j < len(argv) {
		remaining := len(argv) - j
		a := argv[j]
		switch {
		case op != zopDiff && !cardOnly && remaining >= int(setnum)+1 && rstring.EqualFold(a, "weights"):
			j++
			for i := range srcs {
				w, ok := zset.ParseScore(argv[j])
				if !ok {
					c.Err("ERR weight value is not a float")
					return
				}
				srcs[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && rstring.EqualFold(a, "aggregate"):
			switch v := argv[j+1]; {
			case rstring.EqualFold(v, "sum"):
				agg = zaggSum
			case rstring.EqualFold(v, "min"):
				agg = zaggMin
			case rstring.EqualFold(v, "max"):
				agg = zaggMax
			default:
				c.Err(command.ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && rstring.EqualFold(a, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && rstring.EqualFold(a, "limit"):
			v, ok := rstring.String2ll(argv[j+1])
			if !ok || v < 0 {
				c.Err("ERR LIMIT can't be negative")
				return
			}
			limit = v
			j += 2
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	if op != zopDiff {
		sort.SliceStable(srcs, func(a, b int) bool { return srcs[a].length() < srcs[b].length() })
	}

	var res []zset.Entry
	var card int64
	switch op {
	case zopInter:
		if srcs[0].length() == 0 {
			break
		}
		for _, e := range srcs[0].elements() {
			m, sc := e.Member, e.Score
			score := srcs[0].weight * sc
			if math.IsNaN(score) {
				score = 0
			}
			k := 1
			for ; k < len(srcs); k++ {
				v, ok := srcs[k].find(m)
				if !ok {
					break
				}
				zunionInterAggregate(&score, v*srcs[k].weight, agg)
			}
			if k < len(srcs) {
				continue
			}
			if cardOnly {
				card++
				if limit > 0 && card >= limit {
					break
				}
				continue
			}
			res = append(res, zset.Entry{Member: m, Score: score})
		}
	case zopUnion:
		idx := map[string]int{}
		for k := range srcs {
			srcs[k].each(func(m []byte, sc float64) {
				score := srcs[k].weight * sc
				if math.IsNaN(score) {
					score = 0
				}
				if i, ok := idx[string(m)]; ok {
					zunionInterAggregate(&res[i].Score, score, agg)
					return
				}
				idx[string(m)] = len(res)
				res = append(res, zset.Entry{Member: bytes.Clone(m), Score: score})
			})
		}
	case zopDiff:
	next:
		for _, e := range srcs[0].elements() {
			for k := 1; k < len(srcs); k++ {
				if _, ok := srcs[k].find(e.Member); ok {
					continue next
				}
			}
			res = append(res, e)
		}
	}
	if cardOnly {
		c.Integer(card)
		return
	}
	sort.Slice(res, func(a, b int) bool {
		return skiplist.Less(res[a].Score, res[a].Member, res[b].Score, res[b].Member)
	})
	if dst != nil {
		if len(res) == 0 {
			c.Integer(0)
			if c.DeleteKey(dst) {
				c.SignalModifiedKey(dst)
				c.Notify(command.NotifyGeneric, "del", dst)
				c.AddDirty(1)
			}
			return
		}
		c.SetKey(dst, command.Obj(command.TypeZSet, zsetFromSorted(c, res)))
		c.Integer(int64(len(res)))
		c.SignalModifiedKey(dst)
		c.Notify(command.NotifyZset, zopStoreEvents[op], dst)
		c.AddDirty(1)
		return
	}
	if withScores {
		c.PairsLen(len(res))
	} else {
		c.ArrayLen(len(res))
	}
	for _, e := range res {
		if withScores {
			c.PairStart()
		}
		c.Bulk(e.Member)
		if withScores {
			c.Double(e.Score)
		}
	}
}

// zsetFromSorted builds a sorted set from distinct, ordered, owned entries
// with the encoding zsetConvertToListpackIfNeeded would leave.
func zsetFromSorted(c command.Ctx, res []zset.Entry) *zset.Set {
	cfg := c.Config()
	maxLen := 0
	for _, e := range res {
		maxLen = max(maxLen, len(e.Member))
	}
	var z *zset.Set
	if len(res) <= cfg.ZSetMaxListpackEntries && maxLen <= cfg.ZSetMaxListpackValue {
		z = zset.NewListpack(len(res))
	} else {
		z = zset.NewSkiplist(len(res))
	}
	for _, e := range res {
		z.InsertRaw(e.Member, e.Score)
	}
	return z
}

func zrandmemberCommand(c command.Ctx, argv [][]byte) {
	if len(argv) >= 3 {
		if l, with, ok := command.ParseRandCount(c, argv, "withscores"); ok {
			zrandmemberWithCount(c, argv[1], l, with)
		}
		return
	}
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.Null()
		return
	}
	cur := z.Cursor(c.Rand().IntN(z.Len()))
	m, _ := cur.Get()
	c.Bulk(m)
}

// zrandmemberWithCount: a negative count allows repeats and returns
// exactly -count members; a positive one min(count, size) distinct
// members, the whole set in order when count >= size.
func zrandmemberWithCount(c command.Ctx, key []byte, l int64, withScores bool) {
	z, wrong := read(c, key)
	if wrong {
		return
	}
	if z == nil || l == 0 {
		c.EmptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	per := 1
	if withScores && c.RESP() == 2 {
		per = 2
	}
	size := int64(z.Len())
	emit := func(m []byte, sc float64) {
		if withScores {
			c.PairStart()
		}
		c.Bulk(m)
		if withScores {
			c.Double(sc)
		}
	}
	at := func(rk int) ([]byte, float64) {
		cur := z.Cursor(rk)
		return cur.Get()
	}
	if !uniq || count == 1 {
		c.ArrayLen(int(count) * per)
		for i := int64(0); i < count; i++ {
			emit(at(c.Rand().IntN(int(size))))
		}
		return
	}
	if count >= size {
		// zuiNext walks a sorted set from its tail.
		c.ArrayLen(int(size) * per)
		for cur := z.Cursor(int(size) - 1); cur.Valid(); cur.Step(true) {
			emit(cur.Get())
		}
		return
	}
	c.ArrayLen(int(count) * per)
	all := make([]zset.Entry, 0, size)
	z.Each(func(m []byte, sc float64) bool {
		all = append(all, zset.Entry{Member: m, Score: sc})
		return true
	})
	for i := 0; i < int(count); i++ {
		j := i + c.Rand().IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
		emit(all[i].Member, all[i].Score)
	}
}

func zmpopCommand(c command.Ctx, argv [][]byte) {
	keys, max, count, ok := command.ParseMpop(c, argv, 1, "min", "max")
	if !ok {
		return
	}
	if !serveZmpop(c, keys, max, count, false) {
		c.NullArray()
	}
}

// serveZmpop is serveLmpop for sorted sets (ZMPOP and BZMPOP):
// it pops from the first non-empty sorted set of keys; later is set when
// it serves a blocked client. It reports whether it replied.
func serveZmpop(c command.Ctx, keys [][]byte, max bool, count int64, later bool) bool {
	for _, key := range keys {
		if e, found := c.LookupNoStats(key); !found {
			continue
		} else if e.Type != command.TypeZSet {
			if later {
				continue
			}
			c.Err(command.ErrWrongType)
			return true
		}
		z, _ := write(c, key)
		n := int(min(count, int64(z.Len())))
		c.ArrayLen(2)
		c.Bulk(key)
		c.ArrayLen(n)
		for i := 0; i < n; i++ {
			rk := 0
			if max {
				rk = z.Len() - 1
			}
			cur := z.Cursor(rk)
			m, sc := cur.Get()
			c.ArrayLen(2)
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
		name := "ZPOPMIN"
		if max {
			name = "ZPOPMAX"
		}
		command.PropagateServed(c, later, []byte(name), bytes.Clone(key), strconv.AppendInt(nil, int64(n), 10))
		return true
	}
	return false
}

// serveBzpop serves BZPOPMIN/BZPOPMAX from the first
// non-empty sorted set of keys, logged as ZPOPMIN/ZPOPMAX key; later is
// set when it serves a blocked client, which skips keys of another type.
// It reports whether it replied.
func serveBzpop(c command.Ctx, keys [][]byte, max, later bool) bool {
	for _, key := range keys {
		e, found := c.LookupNoStats(key)
		if !found {
			continue
		}
		if e.Type != command.TypeZSet {
			if later {
				continue
			}
			c.Err(command.ErrWrongType)
			return true
		}
		z, _ := write(c, key)
		rk := 0
		pop, ev := "ZPOPMIN", "zpopmin"
		if max {
			rk = z.Len() - 1
			pop, ev = "ZPOPMAX", "zpopmax"
		}
		cur := z.Cursor(rk)
		m, sc := cur.Get()
		c.ArrayLen(3)
		c.Bulk(key)
		c.Bulk(m)
		c.Double(sc)
		z.DeleteRankRange(rk, rk)
		c.Notify(command.NotifyZset, ev, key)
		if z.Len() == 0 {
			c.DeleteKey(key)
			c.Notify(command.NotifyGeneric, "del", key)
		}
		c.AddDirty(1)
		c.SignalModifiedKey(key)
		command.PropagateServed(c, later, []byte(pop), bytes.Clone(key))
		return true
	}
	return false
}
