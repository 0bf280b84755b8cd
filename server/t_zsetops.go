package server

import (
	"math"
	"sort"
	"unsafe"

	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"

	seam "github.com/aofserver/aofserver/command"
)

// Sorted-set algebra (ZUNION/ZINTER/ZDIFF and their STORE forms,
// ZINTERCARD), ZRANDMEMBER and ZMPOP, following Redis 7.0's t_zset.c.

func init() {
	z := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "sorted-set", summary: summary, since: since, acl: append([]string{"@sortedset"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		z("zunionstore", -4, w, 1, 1, 1, zunionstoreCommand, "Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "@write", "@slow"),
		z("zinterstore", -4, w, 1, 1, 1, zinterstoreCommand, "Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "@write", "@slow"),
		z("zdiffstore", -4, w, 1, 1, 1, zdiffstoreCommand, "Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0", "@write", "@slow"),
		z("zunion", -3, r, 2, 2, 1, zunionCommand, "Add multiple sorted sets", "6.2.0", "@read", "@slow"),
		z("zinter", -3, r, 2, 2, 1, zinterCommand, "Intersect multiple sorted sets", "6.2.0", "@read", "@slow"),
		z("zdiff", -3, r, 2, 2, 1, zdiffCommand, "Subtract multiple sorted sets", "6.2.0", "@read", "@slow"),
		z("zintercard", -3, r, 2, 2, 1, zintercardCommand, "Intersect multiple sorted sets and return the cardinality of the result", "7.0.0", "@read", "@slow"),
		z("zrandmember", -2, r, 1, 1, 1, zrandmemberCommand, "Get one or multiple random elements from a sorted set", "6.2.0", "@read", "@slow"),
		z("zmpop", -4, cmdWrite, 2, 2, 1, zmpopCommand, "Remove and return members with scores in a sorted set", "7.0.0", "@write", "@slow"),
	)
}

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
		out = append(out, zset.Entry{Member: cloneBytes(m), Score: sc})
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

func zunionstoreCommand(c *client, argv [][]byte) {
	zsetOpGeneric(c, argv, argv[1], 2, zopUnion, false)
}
func zinterstoreCommand(c *client, argv [][]byte) {
	zsetOpGeneric(c, argv, argv[1], 2, zopInter, false)
}
func zdiffstoreCommand(c *client, argv [][]byte) { zsetOpGeneric(c, argv, argv[1], 2, zopDiff, false) }
func zunionCommand(c *client, argv [][]byte)     { zsetOpGeneric(c, argv, nil, 1, zopUnion, false) }
func zinterCommand(c *client, argv [][]byte)     { zsetOpGeneric(c, argv, nil, 1, zopInter, false) }
func zdiffCommand(c *client, argv [][]byte)      { zsetOpGeneric(c, argv, nil, 1, zopDiff, false) }
func zintercardCommand(c *client, argv [][]byte) { zsetOpGeneric(c, argv, nil, 1, zopInter, true) }

// zsetOpGeneric is zunionInterDiffGenericCommand.
func zsetOpGeneric(c *client, argv [][]byte, dst []byte, numkeysIdx int, op int, cardOnly bool) {
	s := c.srv
	setnum, ok := parseInt(argv[numkeysIdx])
	if !ok {
		c.errNotInt()
		return
	}
	if setnum < 1 {
		c.err("ERR at least 1 input key is needed for '" + string(lowerASCII(argv[0])) + "' command")
		return
	}
	if setnum > int64(len(argv)-(numkeysIdx+1)) {
		c.errSyntax()
		return
	}
	srcs := make([]zopSrc, setnum)
	j := numkeysIdx + 1
	for i := range srcs {
		// Redis 7.0 reads the inputs with lookupKeyRead even for STORE.
		e, found := s.lookupRead(c, argv[j])
		j++
		srcs[i].weight = 1
		if !found {
			continue
		}
		switch e.typ() {
		case typZSet:
			srcs[i].z = (*zset.Set)(e.ptr)
		case typSet:
			srcs[i].set = (*set.Set)(e.ptr)
		default:
			c.errWrongType()
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
		case op != zopDiff && !cardOnly && remaining >= int(setnum)+1 && eqFold(a, "weights"):
			j++
			for i := range srcs {
				w, ok := zset.ParseScore(argv[j])
				if !ok {
					c.err("ERR weight value is not a float")
					return
				}
				srcs[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && eqFold(a, "aggregate"):
			switch v := argv[j+1]; {
			case eqFold(v, "sum"):
				agg = zaggSum
			case eqFold(v, "min"):
				agg = zaggMin
			case eqFold(v, "max"):
				agg = zaggMax
			default:
				c.errSyntax()
				return
			}
			j += 2
		case dst == nil && !cardOnly && eqFold(a, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && eqFold(a, "limit"):
			v, ok := parseInt(argv[j+1])
			if !ok || v < 0 {
				c.err("ERR LIMIT can't be negative")
				return
			}
			limit = v
			j += 2
		default:
			c.errSyntax()
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
				res = append(res, zset.Entry{Member: cloneBytes(m), Score: score})
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
		c.integer(card)
		return
	}
	sort.Slice(res, func(a, b int) bool {
		return skiplist.Less(res[a].Score, res[a].Member, res[b].Score, res[b].Member)
	})
	if dst != nil {
		if len(res) == 0 {
			c.integer(0)
			if s.deleteKey(c.db, dst) {
				s.signalModifiedKey(c.db, dst)
				s.notify(notifyGeneric, "del", dst, c.db.id)
				s.dirty++
			}
			return
		}
		s.setKey(c.db, dst, newObjEntry(typZSet, unsafe.Pointer(zsetFromSorted(s, res))), false)
		c.integer(int64(len(res)))
		s.signalModifiedKey(c.db, dst)
		s.notify(notifyZset, zopStoreEvents[op], dst, c.db.id)
		s.dirty++
		return
	}
	if withScores {
		c.pairsLen(len(res))
	} else {
		c.arrayLen(len(res))
	}
	for _, e := range res {
		if withScores {
			c.pairStart()
		}
		c.bulk(e.Member)
		if withScores {
			c.double(e.Score)
		}
	}
}

// zsetFromSorted builds a sorted set from distinct, ordered, owned entries
// with the encoding zsetConvertToListpackIfNeeded would leave.
func zsetFromSorted(s *Server, res []zset.Entry) *zset.Set {
	maxLen := 0
	for _, e := range res {
		maxLen = max(maxLen, len(e.Member))
	}
	var z *zset.Set
	if len(res) <= s.cfg.ZSetMaxListpackEntries && maxLen <= s.cfg.ZSetMaxListpackValue {
		z = zset.NewListpack(len(res))
	} else {
		z = zset.NewSkiplist(len(res))
	}
	for _, e := range res {
		z.InsertRaw(e.Member, e.Score)
	}
	return z
}

func zrandmemberCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) >= 3 {
		if l, with, ok := seam.ParseRandCount(c, argv, "withscores"); ok {
			zrandmemberWithCount(c, argv[1], l, with)
		}
		return
	}
	z, wrong := s.zsetRead(c, argv[1])
	if wrong {
		return
	}
	if z == nil {
		c.nullBulk()
		return
	}
	cur := z.Cursor(s.rnd.IntN(z.Len()))
	m, _ := cur.Get()
	c.bulk(m)
}

// zrandmemberWithCount: a negative count allows repeats and returns
// exactly -count members; a positive one min(count, size) distinct
// members, the whole set in order when count >= size.
func zrandmemberWithCount(c *client, key []byte, l int64, withScores bool) {
	s := c.srv
	z, wrong := s.zsetRead(c, key)
	if wrong {
		return
	}
	if z == nil || l == 0 {
		c.emptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	per := 1
	if withScores && c.resp == 2 {
		per = 2
	}
	size := int64(z.Len())
	emit := func(m []byte, sc float64) {
		if withScores {
			c.pairStart()
		}
		c.bulk(m)
		if withScores {
			c.double(sc)
		}
	}
	at := func(rk int) ([]byte, float64) {
		cur := z.Cursor(rk)
		return cur.Get()
	}
	if !uniq || count == 1 {
		c.arrayLen(int(count) * per)
		for i := int64(0); i < count; i++ {
			emit(at(s.rnd.IntN(int(size))))
		}
		return
	}
	if count >= size {
		// zuiNext walks a sorted set from its tail.
		c.arrayLen(int(size) * per)
		for cur := z.Cursor(int(size) - 1); cur.Valid(); cur.Step(true) {
			emit(cur.Get())
		}
		return
	}
	c.arrayLen(int(count) * per)
	all := make([]zset.Entry, 0, size)
	z.Each(func(m []byte, sc float64) bool {
		all = append(all, zset.Entry{Member: m, Score: sc})
		return true
	})
	for i := 0; i < int(count); i++ {
		j := i + s.rnd.IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
		emit(all[i].Member, all[i].Score)
	}
}

func zmpopCommand(c *client, argv [][]byte) {
	keys, max, count, ok := parseMpop(c, argv, 1, "min", "max")
	if !ok {
		return
	}
	if !serveZmpop(c, keys, max, count, false) {
		c.nullArray()
	}
}

// serveZmpop is serveLmpop for sorted sets (ZMPOP, BZMPOP).
func serveZmpop(c *client, keys [][]byte, max bool, count int64, later bool) bool {
	s := c.srv
	for _, key := range keys {
		if e, found := s.lookupReadNoStats(c, key); !found {
			continue
		} else if e.typ() != typZSet {
			if later {
				continue
			}
			c.errWrongType()
			return true
		}
		z, _ := s.zsetWrite(c, key)
		n := int(min(count, int64(z.Len())))
		c.arrayLen(2)
		c.bulk(key)
		c.arrayLen(n)
		for i := 0; i < n; i++ {
			rk := 0
			if max {
				rk = z.Len() - 1
			}
			cur := z.Cursor(rk)
			m, sc := cur.Get()
			c.arrayLen(2)
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
		name := "ZPOPMIN"
		if max {
			name = "ZPOPMAX"
		}
		s.propagateServed(c, later, []byte(name), cloneBytes(key), formatInt(int64(n)))
		return true
	}
	return false
}
