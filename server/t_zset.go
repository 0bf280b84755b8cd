package server

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/skiplist"
)

// zsetObj is a sorted set in one of Redis's two encodings:
//
//   - listpack: lp is a slice ordered by (score, member), searched linearly
//     by member like Redis's listpack (it is small by definition);
//   - skiplist: zsl orders the elements with spans for ranks, and dict maps
//     a member to its node (whose score is the member's score).
//
// The conversion listpack -> skiplist happens when an insert would pass
// zset-max-listpack-entries or add a member longer than
// zset-max-listpack-value, and is never undone, as in Redis 7.0.
type zsetObj struct {
	lp   []zEntry
	zsl  *skiplist.List
	dict *dict.Dict[*skiplist.Node]
}

type zEntry struct {
	member []byte
	score  float64
}

func newZsetListpack() *zsetObj { return &zsetObj{} }

func newZsetSkiplist(hint int) *zsetObj {
	return &zsetObj{zsl: skiplist.New(), dict: dict.New[*skiplist.Node](hint)}
}

func (z *zsetObj) encoding() string {
	if z.zsl != nil {
		return "skiplist"
	}
	return "listpack"
}

func (z *zsetObj) length() int {
	if z.zsl != nil {
		return z.zsl.Length
	}
	return len(z.lp)
}

func (z *zsetObj) lpIndex(member []byte) int {
	for i := range z.lp {
		if bytes.Equal(z.lp[i].member, member) {
			return i
		}
	}
	return -1
}

// score returns member's score.
func (z *zsetObj) score(member []byte) (float64, bool) {
	if z.zsl != nil {
		n, ok := z.dict.Get(bstr(member))
		if !ok {
			return 0, false
		}
		return n.Score, true
	}
	if i := z.lpIndex(member); i >= 0 {
		return z.lp[i].score, true
	}
	return 0, false
}

func (z *zsetObj) convertToSkiplist() {
	if z.zsl != nil {
		return
	}
	zsl := skiplist.New()
	d := dict.New[*skiplist.Node](len(z.lp))
	for _, e := range z.lp {
		n := zsl.Insert(e.score, e.member)
		d.Set(bstr(e.member), n)
	}
	z.lp, z.zsl, z.dict = nil, zsl, d
}

// insert adds an absent member (an owned copy) with score, converting the
// encoding first if the listpack would outgrow its limits.
func (z *zsetObj) insert(s *Server, member []byte, score float64) {
	if z.zsl == nil && (len(z.lp)+1 > s.cfg.ZSetMaxListpackEntries || len(member) > s.cfg.ZSetMaxListpackValue) {
		z.convertToSkiplist()
	}
	z.insertRaw(member, score)
}

func (z *zsetObj) insertRaw(member []byte, score float64) {
	if z.zsl != nil {
		n := z.zsl.Insert(score, member)
		z.dict.Set(string(member), n)
		return
	}
	if score == 0 {
		score = 0 // the listpack stores scores as text via d2string: -0 becomes 0
	}
	i := sort.Search(len(z.lp), func(i int) bool {
		return skiplist.Less(score, member, z.lp[i].score, z.lp[i].member)
	})
	z.lp = append(z.lp, zEntry{})
	copy(z.lp[i+1:], z.lp[i:])
	z.lp[i] = zEntry{member: member, score: score}
}

// setScore changes an existing member's score.
func (z *zsetObj) setScore(member []byte, cur, score float64) {
	if z.zsl != nil {
		n := z.zsl.UpdateScore(cur, member, score)
		z.dict.Set(bstr(member), n)
		return
	}
	i := z.lpIndex(member)
	m := z.lp[i].member
	z.lp = append(z.lp[:i], z.lp[i+1:]...)
	z.insertRaw(m, score)
}

// remove deletes member; it reports whether it was present.
func (z *zsetObj) remove(member []byte) bool {
	if z.zsl != nil {
		n, ok := z.dict.Delete(bstr(member))
		if !ok {
			return false
		}
		z.zsl.Delete(n.Score, n.Member)
		return true
	}
	i := z.lpIndex(member)
	if i < 0 {
		return false
	}
	z.lp[len(z.lp)-1], z.lp = zEntry{}, append(z.lp[:i], z.lp[i+1:]...)
	return true
}

// rank returns member's 0-based ascending rank.
func (z *zsetObj) rank(member []byte) (int, float64, bool) {
	if z.zsl != nil {
		n, ok := z.dict.Get(bstr(member))
		if !ok {
			return 0, 0, false
		}
		return z.zsl.Rank(n.Score, n.Member) - 1, n.Score, true
	}
	i := z.lpIndex(member)
	if i < 0 {
		return 0, 0, false
	}
	return i, z.lp[i].score, true
}

// deleteRankRange removes ranks [start, end] (0-based, valid).
func (z *zsetObj) deleteRankRange(start, end int) {
	if z.zsl == nil {
		n := copy(z.lp[start:], z.lp[end+1:])
		clear(z.lp[start+n:])
		z.lp = z.lp[:start+n]
		return
	}
	x := z.zsl.ByRank(start + 1)
	for i := start; i <= end && x != nil; i++ {
		next := x.Level[0].Forward
		z.dict.Delete(bstr(x.Member))
		z.zsl.Delete(x.Score, x.Member)
		x = next
	}
}

// zCursor walks the set in rank order from a starting rank.
type zCursor struct {
	z *zsetObj
	i int
	n *skiplist.Node
}

func (z *zsetObj) cursor(rank int) zCursor {
	cur := zCursor{z: z, i: rank}
	if z.zsl != nil {
		cur.n = z.zsl.ByRank(rank + 1)
	}
	return cur
}

func (cur *zCursor) valid() bool {
	if cur.z.zsl != nil {
		return cur.n != nil
	}
	return cur.i >= 0 && cur.i < len(cur.z.lp)
}

func (cur *zCursor) get() ([]byte, float64) {
	if cur.z.zsl != nil {
		return cur.n.Member, cur.n.Score
	}
	e := &cur.z.lp[cur.i]
	return e.member, e.score
}

func (cur *zCursor) step(rev bool) {
	if rev {
		cur.i--
		if cur.n != nil {
			cur.n = cur.n.Backward
		}
		return
	}
	cur.i++
	if cur.n != nil {
		cur.n = cur.n.Level[0].Forward
	}
}

// Score ranges (zslParseRange).
type zScoreRange struct {
	min, max     float64
	minex, maxex bool
}

func (r *zScoreRange) gteMin(v float64) bool {
	if r.minex {
		return v > r.min
	}
	return v >= r.min
}

func (r *zScoreRange) lteMax(v float64) bool {
	if r.maxex {
		return v < r.max
	}
	return v <= r.max
}

// zParseRangeItem parses like zslParseRange: strtod on the text after an
// optional '(' (leading spaces and an empty string are accepted, as strtod
// does; NaN is not).
func zParseRangeItem(b []byte) (v float64, ex bool, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	for len(b) > 0 && isCSpace(b[0]) {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, ex, true
	}
	v, _, ok = zStrtod(b)
	return v, ex, ok
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// zStrtod parses a whole string as C's strtod would: it reports the value,
// whether strtod would have set ERANGE (overflow to +/-inf, or underflow
// to zero) and whether the text is a valid number at all. NaN is refused.
func zStrtod(b []byte) (f float64, erange bool, ok bool) {
	if len(b) == 0 || bytes.IndexByte(b, '_') >= 0 {
		return 0, false, false
	}
	s := string(b)
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if hex && !strings.ContainsAny(body, "pP") {
		s += "p0" // strtod takes hex floats without a binary exponent
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		ne, isNum := err.(*strconv.NumError)
		if !isNum || ne.Err != strconv.ErrRange {
			return 0, false, false
		}
		erange = true
	}
	if math.IsNaN(f) {
		return 0, false, false
	}
	if f == 0 && !erange {
		// Underflow to zero: strtod reports ERANGE when the digits were
		// not all zero.
		mant := body
		if hex {
			mant = body[2:]
			if i := strings.IndexAny(mant, "pP"); i >= 0 {
				mant = mant[:i]
			}
			erange = strings.ContainsAny(mant, "123456789abcdefABCDEF")
		} else {
			if i := strings.IndexAny(mant, "eE"); i >= 0 {
				mant = mant[:i]
			}
			erange = strings.ContainsAny(mant, "123456789")
		}
	}
	return f, erange, true
}

// zParseScore parses a score argument like getDoubleFromObject: no
// leading space, no trailing garbage, no NaN, no ERANGE.
func zParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || isCSpace(b[0]) {
		return 0, false
	}
	f, erange, ok := zStrtod(b)
	if !ok || erange {
		return 0, false
	}
	return f, true
}

func zParseScoreRange(min, max []byte) (zScoreRange, bool) {
	var r zScoreRange
	var ok1, ok2 bool
	r.min, r.minex, ok1 = zParseRangeItem(min)
	r.max, r.maxex, ok2 = zParseRangeItem(max)
	return r, ok1 && ok2
}

// Lexicographic ranges (zslParseLexRange). kind: -1 is "-", +1 is "+".
type zLexBound struct {
	kind int8
	val  []byte
	ex   bool
}

type zLexRange struct{ min, max zLexBound }

func zParseLexItem(b []byte) (zLexBound, bool) {
	if len(b) == 0 {
		return zLexBound{}, false
	}
	switch b[0] {
	case '+':
		return zLexBound{kind: 1, ex: true}, len(b) == 1
	case '-':
		return zLexBound{kind: -1, ex: true}, len(b) == 1
	case '(':
		return zLexBound{val: b[1:], ex: true}, true
	case '[':
		return zLexBound{val: b[1:]}, true
	}
	return zLexBound{}, false
}

func zParseLexRange(min, max []byte) (zLexRange, bool) {
	a, ok1 := zParseLexItem(min)
	b, ok2 := zParseLexItem(max)
	return zLexRange{a, b}, ok1 && ok2
}

// zLexCmpBound compares a member with a bound (sdscmplex).
func zLexCmpBound(v []byte, b *zLexBound) int {
	switch b.kind {
	case -1:
		return 1
	case 1:
		return -1
	}
	return bytes.Compare(v, b.val)
}

func (r *zLexRange) gteMin(v []byte) bool {
	c := zLexCmpBound(v, &r.min)
	if r.min.ex {
		return c > 0
	}
	return c >= 0
}

func (r *zLexRange) lteMax(v []byte) bool {
	c := zLexCmpBound(v, &r.max)
	if r.max.ex {
		return c < 0
	}
	return c <= 0
}

// empty reports a range that can hold nothing (min > max, or min == max
// with an exclusive end).
func (r *zLexRange) empty() bool {
	var c int
	switch {
	case r.min.kind == r.max.kind && r.min.kind != 0:
		c = 0
	case r.min.kind == -1 || r.max.kind == 1:
		c = -1
	case r.min.kind == 1 || r.max.kind == -1:
		c = 1
	default:
		c = bytes.Compare(r.min.val, r.max.val)
	}
	return c > 0 || (c == 0 && (r.min.ex || r.max.ex))
}

// firstInScore returns the rank of the first element in r, or -1.
func (z *zsetObj) firstInScore(r *zScoreRange) int {
	var i int
	if z.zsl != nil {
		_, i = z.zsl.CountWhile(func(n *skiplist.Node) bool { return !r.gteMin(n.Score) })
	} else {
		i = sort.Search(len(z.lp), func(i int) bool { return r.gteMin(z.lp[i].score) })
	}
	if i >= z.length() {
		return -1
	}
	cur := z.cursor(i)
	if _, sc := cur.get(); !r.lteMax(sc) {
		return -1
	}
	return i
}

// lastInScore returns the rank of the last element in r, or -1.
func (z *zsetObj) lastInScore(r *zScoreRange) int {
	var i int
	if z.zsl != nil {
		_, i = z.zsl.CountWhile(func(n *skiplist.Node) bool { return r.lteMax(n.Score) })
	} else {
		i = sort.Search(len(z.lp), func(i int) bool { return !r.lteMax(z.lp[i].score) })
	}
	i--
	if i < 0 {
		return -1
	}
	cur := z.cursor(i)
	if _, sc := cur.get(); !r.gteMin(sc) {
		return -1
	}
	return i
}

// lexInRange is zslIsInLexRange / zzlLexIsInRange: a quick rejection on the
// first and last members.
func (z *zsetObj) lexInRange(r *zLexRange) bool {
	n := z.length()
	if r.empty() || n == 0 {
		return false
	}
	last := z.cursor(n - 1)
	if m, _ := last.get(); !r.gteMin(m) {
		return false
	}
	first := z.cursor(0)
	m, _ := first.get()
	return r.lteMax(m)
}

// firstInLex returns the rank of the first element in r, or -1. The
// listpack is scanned linearly and the skiplist descended, as Redis does,
// so sets with mixed scores give Redis's (unspecified but fixed) answer.
func (z *zsetObj) firstInLex(r *zLexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	if z.zsl != nil {
		n, i := z.zsl.CountWhile(func(n *skiplist.Node) bool { return !r.gteMin(n.Member) })
		if n == nil {
			n = z.zsl.Header
		}
		if x := n.Level[0].Forward; x == nil || !r.lteMax(x.Member) {
			return -1
		}
		return i
	}
	for i := range z.lp {
		if r.gteMin(z.lp[i].member) {
			if r.lteMax(z.lp[i].member) {
				return i
			}
			return -1
		}
	}
	return -1
}

func (z *zsetObj) lastInLex(r *zLexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	if z.zsl != nil {
		n, i := z.zsl.CountWhile(func(n *skiplist.Node) bool { return r.lteMax(n.Member) })
		if n == nil || !r.gteMin(n.Member) {
			return -1
		}
		return i - 1
	}
	for i := len(z.lp) - 1; i >= 0; i-- {
		if r.lteMax(z.lp[i].member) {
			if r.gteMin(z.lp[i].member) {
				return i
			}
			return -1
		}
	}
	return -1
}

// each calls fn for every element in ascending order.
func (z *zsetObj) each(fn func(member []byte, score float64) bool) {
	if z.zsl != nil {
		for x := z.zsl.Header.Level[0].Forward; x != nil; x = x.Level[0].Forward {
			if !fn(x.Member, x.Score) {
				return
			}
		}
		return
	}
	for _, e := range z.lp {
		if !fn(e.member, e.score) {
			return
		}
	}
}

func (z *zsetObj) clone() *zsetObj {
	if z.zsl == nil {
		out := &zsetObj{lp: make([]zEntry, len(z.lp))}
		for i, e := range z.lp {
			out.lp[i] = zEntry{member: cloneBytes(e.member), score: e.score}
		}
		return out
	}
	out := newZsetSkiplist(z.length())
	z.each(func(m []byte, sc float64) bool {
		out.insertRaw(cloneBytes(m), sc)
		return true
	})
	return out
}

func (z *zsetObj) memUsage() int64 {
	var n int64 = int64(unsafe.Sizeof(*z))
	if z.zsl == nil {
		n += int64(cap(z.lp)) * int64(unsafe.Sizeof(zEntry{}))
		for _, e := range z.lp {
			n += int64(len(e.member))
		}
		return n
	}
	n += z.dict.MemoryUsage()
	z.each(func(m []byte, _ float64) bool {
		n += int64(len(m)) + 64
		return true
	})
	return n
}

func (z *zsetObj) toRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncListpack, ZSet: make([]rdb.ZMember, 0, z.length())}
	if z.zsl != nil {
		v.Encoding = rdb.EncSkiplist
	}
	z.each(func(m []byte, sc float64) bool {
		v.ZSet = append(v.ZSet, rdb.ZMember{Member: m, Score: sc})
		return true
	})
	return v
}

// zsetFromRDB builds a sorted set from a decoded value with the encoding
// Redis 7.0's loader ends up with (rdb.LoadedEncoding).
func zsetFromRDB(v *rdb.Value, s *Server) *zsetObj {
	var z *zsetObj
	if rdb.LoadedEncoding(v, serverLimits(s)) == rdb.EncSkiplist {
		z = newZsetSkiplist(len(v.ZSet))
	} else {
		z = newZsetListpack()
		z.lp = make([]zEntry, 0, len(v.ZSet))
	}
	for _, m := range v.ZSet {
		// The decoder refuses NaN scores and repeated members, except in a
		// listpack loaded without sanitizing, which Redis keeps as it is.
		if z.zsl != nil {
			if cur, ok := z.score(m.Member); ok {
				z.setScore(m.Member, cur, m.Score)
				continue
			}
		}
		z.insertRaw(cloneBytes(m.Member), m.Score)
	}
	return z
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
func (s *Server) zsetRead(c *client, key []byte) (*zsetObj, bool) {
	return lookupReadTyped[zsetObj](s, c, key, typZSet)
}

func (s *Server) zsetWrite(c *client, key []byte) (*zsetObj, bool) {
	return lookupWriteTyped[zsetObj](s, c, key, typZSet)
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
func (z *zsetObj) zaddOne(s *Server, flags int, score float64, member []byte) (newScore float64, added, updated, nop, ok bool) {
	cur, exists := z.score(member)
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
			z.setScore(member, cur, score)
			updated = true
		}
		return score, false, updated, false, true
	}
	if flags&zaddXX != 0 {
		return 0, false, false, true, true
	}
	z.insert(s, cloneBytes(member), score)
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
		v, ok := zParseScore(argv[idx+2*i])
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
			z = newZsetSkiplist(elems)
		} else {
			z = newZsetListpack()
		}
		s.addKey(c.db, key, newObjEntry(typZSet, unsafe.Pointer(z)))
	}
	for i := 0; i < elems; i++ {
		ns, a, u, nop, ok := z.zaddOne(s, flags, scores[i], argv[idx+2*i+1])
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
	if z.length() == 0 {
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
	s.removeMembers(c, key, z, argv[2:], notifyZset, "zrem")
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
	if sc, ok := z.score(argv[2]); ok {
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
		if sc, ok := z.score(m); ok {
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
	c.integer(int64(z.length()))
}

func zcountCommand(c *client, argv [][]byte) {
	r, ok := zParseScoreRange(argv[2], argv[3])
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
	first := z.firstInScore(&r)
	if first < 0 {
		c.integer(0)
		return
	}
	if z.zsl != nil {
		last := z.lastInScore(&r)
		c.integer(int64(last - first + 1))
		return
	}
	n := 0
	for cur := z.cursor(first); cur.valid(); cur.step(false) {
		if _, sc := cur.get(); !r.lteMax(sc) {
			break
		}
		n++
	}
	c.integer(int64(n))
}

func zlexcountCommand(c *client, argv [][]byte) {
	r, ok := zParseLexRange(argv[2], argv[3])
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
	first := z.firstInLex(&r)
	if first < 0 {
		c.integer(0)
		return
	}
	if z.zsl != nil {
		last := z.lastInLex(&r)
		n := 0
		if last >= 0 {
			n = last - first + 1
		}
		c.integer(int64(n))
		return
	}
	n := 0
	for cur := z.cursor(first); cur.valid(); cur.step(false) {
		if m, _ := cur.get(); !r.lteMax(m) {
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
	rk, _, ok := z.rank(argv[2])
	if !ok {
		c.nullBulk()
		return
	}
	if rev {
		rk = z.length() - 1 - rk
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
	var sr zScoreRange
	var lr zLexRange
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
		if sr, ok = zParseScoreRange(argv[minIdx], argv[maxIdx]); !ok {
			c.err("ERR min or max is not a float")
			return
		}
	case zrangeLex:
		var ok bool
		if lr, ok = zParseLexRange(argv[minIdx], argv[maxIdx]); !ok {
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
		llen := int64(z.length())
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
		inRange := func(cur *zCursor) bool {
			m, sc := cur.get()
			if rangeType == zrangeScore {
				if rev {
					return sr.gteMin(sc)
				}
				return sr.lteMax(sc)
			}
			if rev {
				return lr.gteMin(m)
			}
			return lr.lteMax(m)
		}
		switch {
		case rangeType == zrangeScore && rev:
			first = z.lastInScore(&sr)
		case rangeType == zrangeScore:
			first = z.firstInScore(&sr)
		case rev:
			first = z.lastInLex(&lr)
		default:
			first = z.firstInLex(&lr)
		}
		if first >= 0 {
			cur := z.cursor(first)
			for ; cur.valid() && offset != 0; offset-- {
				cur.step(rev)
			}
			if cur.valid() {
				out.first = cur.i
				n := 0
				for ; cur.valid() && limit != 0; limit-- {
					if !inRange(&cur) {
						break
					}
					n++
					cur.step(rev)
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
		cur := z.cursor(out.first)
		for i := 0; i < out.n && cur.valid(); i++ {
			m, sc := cur.get()
			sink.emit(m, sc)
			cur.step(rev)
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
	var z *zsetObj
	if n <= s.cfg.ZSetMaxListpackEntries && maxLen <= s.cfg.ZSetMaxListpackValue {
		z = newZsetListpack()
	} else {
		z = newZsetSkiplist(n)
	}
	for i, m := range sink.members {
		m = cloneBytes(m)
		if _, ok := z.score(m); ok {
			continue
		}
		z.insertRaw(m, sink.scores[i])
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
	if count > int64(z.length()) {
		n = z.length()
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
			rk = z.length() - 1
		}
		cur := z.cursor(rk)
		m, sc := cur.get()
		if nested {
			c.arrayLen(2)
		}
		c.bulk(m)
		c.double(sc)
		z.deleteRankRange(rk, rk)
	}
	s.notify(notifyZset, zpopEvent(max), key, c.db.id)
	if z.length() == 0 {
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
	var sr zScoreRange
	var lr zLexRange
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
		if sr, ok = zParseScoreRange(argv[2], argv[3]); !ok {
			c.err("ERR min or max is not a float")
			return
		}
	case zremLex:
		var ok bool
		if lr, ok = zParseLexRange(argv[2], argv[3]); !ok {
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
		llen := int64(z.length())
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
		first = z.firstInScore(&sr)
		if first >= 0 {
			for cur := z.cursor(first); cur.valid(); cur.step(false) {
				if _, sc := cur.get(); !sr.lteMax(sc) {
					break
				}
				n++
			}
		}
	case zremLex:
		if z.zsl != nil {
			// zslDeleteRangeByLex descends without the range pre-check.
			_, first = z.zsl.CountWhile(func(x *skiplist.Node) bool { return !lr.gteMin(x.Member) })
		} else {
			first = z.firstInLex(&lr)
		}
		if first >= 0 {
			for cur := z.cursor(first); cur.valid(); cur.step(false) {
				if m, _ := cur.get(); !lr.lteMax(m) {
					break
				}
				n++
			}
		}
	}
	if n > 0 {
		z.deleteRankRange(first, first+n-1)
		removed := z.length() == 0
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
	collScanCommand(c, argv, c.srv.zsetRead, 2, func(z *zsetObj, cursor uint64, count int64) ([][]byte, uint64) {
		if z.zsl != nil {
			return collScanDict(z.dict, cursor, count*2, func(out [][]byte, _ string, n **skiplist.Node) [][]byte {
				return append(out, (*n).Member, resp.FormatDouble((*n).Score))
			})
		}
		var items [][]byte
		for _, e := range z.lp {
			items = append(items, e.member, resp.FormatDouble(e.score))
		}
		return items, 0
	})
}
