package server

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// hashObj is a hash in one of Redis 7.0's two encodings:
//
//   - listpack: lp holds field/value pairs in insertion order (an update
//     keeps the field's place, a delete closes the gap), which is the order
//     HGETALL/HKEYS/HVALS/HSCAN reply in Redis;
//   - hashtable: dict, used once the hash has more than
//     hash-max-listpack-entries fields or any field or value longer than
//     hash-max-listpack-value bytes, and never converted back.
type hashObj struct {
	lp   [][2][]byte
	dict *dict.Dict[[]byte]
}

func newHashListpack() *hashObj { return &hashObj{} }

func (h *hashObj) encoding() string {
	if h.dict != nil {
		return "hashtable"
	}
	return "listpack"
}

func (h *hashObj) Len() int {
	if h.dict != nil {
		return h.dict.Len()
	}
	return len(h.lp)
}

func (h *hashObj) lpIndex(field []byte) int {
	for i := range h.lp {
		if bytes.Equal(h.lp[i][0], field) {
			return i
		}
	}
	return -1
}

// get returns field's value (not a copy).
func (h *hashObj) get(field []byte) ([]byte, bool) {
	if h.dict != nil {
		return h.dict.Get(bstr(field))
	}
	if i := h.lpIndex(field); i >= 0 {
		return h.lp[i][1], true
	}
	return nil, false
}

func (h *hashObj) convertToHashtable() {
	if h.dict != nil {
		return
	}
	d := dict.New[[]byte](len(h.lp))
	for _, p := range h.lp {
		d.Set(string(p[0]), p[1])
	}
	h.lp, h.dict = nil, d
}

// set stores field=value (both copied) as hashTypeSet does, converting the
// encoding when a limit is passed. It reports whether the field is new.
func (h *hashObj) set(s *Server, field, value []byte) bool {
	if h.dict == nil && (len(field) > s.cfg.HashMaxListpackValue || len(value) > s.cfg.HashMaxListpackValue) {
		h.convertToHashtable()
	}
	if h.dict != nil {
		if p := h.dict.GetPtr(bstr(field)); p != nil {
			*p = cloneBytes(value)
			return false
		}
		h.dict.Set(string(field), cloneBytes(value))
		return true
	}
	if i := h.lpIndex(field); i >= 0 {
		h.lp[i][1] = cloneBytes(value)
		return false
	}
	h.lp = append(h.lp, [2][]byte{cloneBytes(field), cloneBytes(value)})
	if len(h.lp) > s.cfg.HashMaxListpackEntries {
		h.convertToHashtable()
	}
	return true
}

// Remove deletes field; it reports whether it was present.
func (h *hashObj) Remove(field []byte) bool {
	if h.dict != nil {
		_, ok := h.dict.Delete(bstr(field))
		return ok
	}
	i := h.lpIndex(field)
	if i < 0 {
		return false
	}
	copy(h.lp[i:], h.lp[i+1:])
	h.lp[len(h.lp)-1] = [2][]byte{}
	h.lp = h.lp[:len(h.lp)-1]
	return true
}

// each calls fn for every pair in HGETALL order.
func (h *hashObj) each(fn func(field, value []byte) bool) {
	if h.dict != nil {
		h.dict.Range(func(k string, v *[]byte) bool {
			return fn(unsafe.Slice(unsafe.StringData(k), len(k)), *v)
		})
		return
	}
	for _, p := range h.lp {
		if !fn(p[0], p[1]) {
			return
		}
	}
}

// random returns a random pair (not copies).
func (h *hashObj) random(s *Server) (field, value []byte) {
	if h.dict != nil {
		k, v, _ := h.dict.FairRandomKey(s.rnd)
		return []byte(k), *v
	}
	p := h.lp[s.rnd.IntN(len(h.lp))]
	return p[0], p[1]
}

func (h *hashObj) clone() *hashObj {
	if h.dict == nil {
		out := &hashObj{lp: make([][2][]byte, len(h.lp))}
		for i, p := range h.lp {
			out.lp[i] = [2][]byte{cloneBytes(p[0]), cloneBytes(p[1])}
		}
		return out
	}
	out := &hashObj{dict: dict.New[[]byte](h.dict.Len())}
	h.dict.Range(func(k string, v *[]byte) bool {
		out.dict.Set(k, cloneBytes(*v))
		return true
	})
	return out
}

func (h *hashObj) memUsage() int64 {
	n := int64(unsafe.Sizeof(*h))
	if h.dict == nil {
		n += int64(cap(h.lp)) * 48
	} else {
		n += h.dict.MemoryUsage()
	}
	h.each(func(f, v []byte) bool {
		n += int64(len(f) + len(v))
		return true
	})
	return n
}

func (h *hashObj) toRDB() *rdb.Value {
	v := &rdb.Value{Kind: rdb.KindHash, Encoding: rdb.EncListpack, Hash: make([][2][]byte, 0, h.Len())}
	if h.dict != nil {
		v.Encoding = rdb.EncHashtable
	}
	h.each(func(f, val []byte) bool {
		v.Hash = append(v.Hash, [2][]byte{f, val})
		return true
	})
	return v
}

// hashFromRDB builds a hash with the encoding Redis 7.0's loader ends up
// with; pairs keep the file's order in a listpack.
func hashFromRDB(v *rdb.Value, s *Server) *hashObj {
	h := newHashListpack()
	if rdb.LoadedEncoding(v, serverLimits(s)) != rdb.EncListpack {
		h.dict = dict.New[[]byte](len(v.Hash))
		for _, p := range v.Hash {
			h.dict.Set(string(p[0]), cloneBytes(p[1]))
		}
		return h
	}
	// The decoder refused repeated fields except where Redis keeps them
	// (a listpack loaded without sanitizing): keep them as Redis does.
	h.lp = make([][2][]byte, 0, len(v.Hash))
	for _, p := range v.Hash {
		h.lp = append(h.lp, [2][]byte{cloneBytes(p[0]), cloneBytes(p[1])})
	}
	return h
}

func init() {
	hs := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "hash", summary: summary, since: since, acl: append([]string{"@hash"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		hs("hset", -4, w|cmdFast, 1, 1, 1, hsetCommand, "Set the string value of a hash field", "2.0.0", "@write", "@fast"),
		hs("hsetnx", 4, w|cmdFast, 1, 1, 1, hsetnxCommand, "Set the value of a hash field, only if the field does not exist", "2.0.0", "@write", "@fast"),
		hs("hmset", -4, w|cmdFast, 1, 1, 1, hmsetCommand, "Set multiple hash fields to multiple values", "2.0.0", "@write", "@fast"),
		hs("hget", 3, r|cmdFast, 1, 1, 1, hgetCommand, "Get the value of a hash field", "2.0.0", "@read", "@fast"),
		hs("hmget", -3, r|cmdFast, 1, 1, 1, hmgetCommand, "Get the values of all the given hash fields", "2.0.0", "@read", "@fast"),
		hs("hgetall", 2, r, 1, 1, 1, hgetallCommand, "Get all the fields and values in a hash", "2.0.0", "@read", "@slow"),
		hs("hkeys", 2, r, 1, 1, 1, hkeysCommand, "Get all the fields in a hash", "2.0.0", "@read", "@slow"),
		hs("hvals", 2, r, 1, 1, 1, hvalsCommand, "Get all the values in a hash", "2.0.0", "@read", "@slow"),
		hs("hdel", -3, cmdWrite|cmdFast, 1, 1, 1, hdelCommand, "Delete one or more hash fields", "2.0.0", "@write", "@fast"),
		hs("hexists", 3, r|cmdFast, 1, 1, 1, hexistsCommand, "Determine if a hash field exists", "2.0.0", "@read", "@fast"),
		hs("hlen", 2, r|cmdFast, 1, 1, 1, hlenCommand, "Get the number of fields in a hash", "2.0.0", "@read", "@fast"),
		hs("hstrlen", 3, r|cmdFast, 1, 1, 1, hstrlenCommand, "Get the length of the value of a hash field", "3.2.0", "@read", "@fast"),
		hs("hincrby", 4, w|cmdFast, 1, 1, 1, hincrbyCommand, "Increment the integer value of a hash field by the given number", "2.0.0", "@write", "@fast"),
		hs("hincrbyfloat", 4, w|cmdFast, 1, 1, 1, hincrbyfloatCommand, "Increment the float value of a hash field by the given amount", "2.6.0", "@write", "@fast"),
		hs("hrandfield", -2, r, 1, 1, 1, hrandfieldCommand, "Get one or multiple random fields from a hash", "6.2.0", "@read", "@slow"),
		hs("hscan", -3, r, 1, 1, 1, hscanCommand, "Incrementally iterate hash fields and associated values", "2.8.0", "@read", "@slow"),
	)
}

func (s *Server) hashRead(c *client, key []byte) (*hashObj, bool) {
	return lookupReadTyped[hashObj](s, c, key, typHash)
}

// hashWriteOrCreate is hashTypeLookupWriteOrCreate.
func (s *Server) hashWriteOrCreate(c *client, key []byte) (h *hashObj, wrong bool) {
	p := s.lookupWrite(c, key)
	if p == nil {
		h = newHashListpack()
		s.addKey(c.db, key, newObjEntry(typHash, unsafe.Pointer(h)))
		return h, false
	}
	if p.typ() != typHash {
		c.errWrongType()
		return nil, true
	}
	return (*hashObj)(p.ptr), false
}

func hsetCommand(c *client, argv [][]byte)  { hsetGeneric(c, argv, false) }
func hmsetCommand(c *client, argv [][]byte) { hsetGeneric(c, argv, true) }

func hsetGeneric(c *client, argv [][]byte, hmset bool) {
	s := c.srv
	if len(argv)%2 == 1 {
		name := "hset"
		if hmset {
			name = "hmset"
		}
		c.err("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	key := argv[1]
	h, wrong := s.hashWriteOrCreate(c, key)
	if wrong {
		return
	}
	if h.dict == nil {
		// hashTypeTryConversion: any long argument converts up front.
		for _, a := range argv[2:] {
			if len(a) > s.cfg.HashMaxListpackValue {
				h.convertToHashtable()
				break
			}
		}
	}
	created := 0
	for i := 2; i < len(argv); i += 2 {
		if h.set(s, argv[i], argv[i+1]) {
			created++
		}
	}
	s.signalModifiedKey(c.db, key)
	s.notify(notifyHash, "hset", key, c.db.id)
	s.dirty += int64((len(argv) - 2) / 2)
	if hmset {
		c.ok()
	} else {
		c.integer(int64(created))
	}
}

func hsetnxCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	h, wrong := s.hashWriteOrCreate(c, key)
	if wrong {
		return
	}
	if _, ok := h.get(argv[2]); ok {
		c.integer(0)
		return
	}
	h.set(s, argv[2], argv[3])
	s.signalModifiedKey(c.db, key)
	s.notify(notifyHash, "hset", key, c.db.id)
	s.dirty++
	c.integer(1)
}

func hgetCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.nullBulk()
		return
	}
	c.bulkOrNull(h.get(argv[2]))
}

func hmgetCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	c.arrayLen(len(argv) - 2)
	for _, f := range argv[2:] {
		if h == nil {
			c.nullBulk()
			continue
		}
		c.bulkOrNull(h.get(f))
	}
}

const (
	hgetKeys = 1 << iota
	hgetVals
)

func hgetallGeneric(c *client, key []byte, what int) {
	h, wrong := c.srv.hashRead(c, key)
	if wrong {
		return
	}
	if h == nil {
		if what == hgetKeys|hgetVals {
			c.mapLen(0)
		} else {
			c.emptyArray()
		}
		return
	}
	n := h.Len()
	if what == hgetKeys|hgetVals {
		c.mapLen(n)
	} else {
		c.arrayLen(n)
	}
	h.each(func(f, v []byte) bool {
		if what&hgetKeys != 0 {
			c.bulk(f)
		}
		if what&hgetVals != 0 {
			c.bulk(v)
		}
		return true
	})
}

func hgetallCommand(c *client, argv [][]byte) { hgetallGeneric(c, argv[1], hgetKeys|hgetVals) }
func hkeysCommand(c *client, argv [][]byte)   { hgetallGeneric(c, argv[1], hgetKeys) }
func hvalsCommand(c *client, argv [][]byte)   { hgetallGeneric(c, argv[1], hgetVals) }

func hdelCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	p := s.lookupWrite(c, key)
	if p == nil {
		c.integer(0)
		return
	}
	if p.typ() != typHash {
		c.errWrongType()
		return
	}
	s.removeMembers(c, key, (*hashObj)(p.ptr), argv[2:], notifyHash, "hdel")
}

func hexistsCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h != nil {
		if _, ok := h.get(argv[2]); ok {
			c.integer(1)
			return
		}
	}
	c.integer(0)
}

func hlenCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.integer(0)
		return
	}
	c.integer(int64(h.Len()))
}

func hstrlenCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.integer(0)
		return
	}
	v, _ := h.get(argv[2])
	c.integer(int64(len(v)))
}

func hincrbyCommand(c *client, argv [][]byte) {
	s := c.srv
	incr, ok := parseInt(argv[3])
	if !ok {
		c.errNotInt()
		return
	}
	key := argv[1]
	h, wrong := s.hashWriteOrCreate(c, key)
	if wrong {
		return
	}
	var cur int64
	if v, found := h.get(argv[2]); found {
		if cur, ok = rstring.String2ll(v); !ok {
			c.err("ERR hash value is not an integer")
			s.dropIfEmptyHash(c, key, h)
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.err("ERR increment or decrement would overflow")
		s.dropIfEmptyHash(c, key, h)
		return
	}
	cur += incr
	h.set(s, argv[2], strconv.AppendInt(nil, cur, 10))
	c.integer(cur)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyHash, "hincrby", key, c.db.id)
	s.dirty++
}

// dropIfEmptyHash removes a hash that hashWriteOrCreate created for a
// command that then failed (Redis never leaves an empty key behind).
func (s *Server) dropIfEmptyHash(c *client, key []byte, h *hashObj) {
	if h.Len() == 0 {
		s.deleteKey(c.db, key)
	}
}

func hincrbyfloatCommand(c *client, argv [][]byte) {
	s := c.srv
	incr, ok := rstring.String2ld(argv[3])
	if !ok {
		c.err(errNotFloat)
		return
	}
	if incr.IsInf() {
		c.err("ERR value is NaN or Infinity")
		return
	}
	key := argv[1]
	h, wrong := s.hashWriteOrCreate(c, key)
	if wrong {
		return
	}
	cur := new(big.Float)
	if v, found := h.get(argv[2]); found {
		if cur, ok = rstring.String2ld(v); !ok {
			c.err("ERR hash value is not a float")
			s.dropIfEmptyHash(c, key, h)
			return
		}
	}
	sum, ok := rstring.LdAdd(cur, incr)
	if !ok {
		c.err("ERR increment would produce NaN or Infinity")
		s.dropIfEmptyHash(c, key, h)
		return
	}
	out := rstring.Ld2string(sum)
	h.set(s, argv[2], out)
	c.bulk(out)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyHash, "hincrbyfloat", key, c.db.id)
	s.dirty++
	// Logged as HSET so that float rounding on replay cannot differ.
	c.rewriteArgv([]byte("HSET"), cloneBytes(key), cloneBytes(argv[2]), out)
}

func hrandfieldCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) >= 3 {
		if l, with, ok := parseRandCount(c, argv, "withvalues"); ok {
			hrandfieldWithCount(c, argv[1], l, with)
		}
		return
	}
	h, wrong := s.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.nullBulk()
		return
	}
	f, _ := h.random(s)
	c.bulk(f)
}

func hrandfieldWithCount(c *client, key []byte, l int64, withValues bool) {
	s := c.srv
	h, wrong := s.hashRead(c, key)
	if wrong {
		return
	}
	if h == nil || l == 0 {
		c.emptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	per := 1
	if withValues && c.resp == 2 {
		per = 2
	}
	size := int64(h.Len())
	emit := func(f, v []byte) {
		if withValues {
			c.pairStart()
		}
		c.bulk(f)
		if withValues {
			c.bulk(v)
		}
	}
	if !uniq || count == 1 {
		c.arrayLen(int(count) * per)
		for i := int64(0); i < count; i++ {
			emit(h.random(s))
		}
		return
	}
	if count >= size {
		c.arrayLen(int(size) * per)
		h.each(func(f, v []byte) bool {
			emit(f, v)
			return true
		})
		return
	}
	c.arrayLen(int(count) * per)
	if count*3 > size || h.dict == nil {
		all := make([][2][]byte, 0, size)
		h.each(func(f, v []byte) bool {
			all = append(all, [2][]byte{f, v})
			return true
		})
		for i := 0; i < int(count); i++ {
			j := i + s.rnd.IntN(len(all)-i)
			all[i], all[j] = all[j], all[i]
			emit(all[i][0], all[i][1])
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		f, v := h.random(s)
		if _, dup := seen[string(f)]; dup {
			continue
		}
		seen[string(f)] = struct{}{}
		emit(f, v)
	}
}

func hscanCommand(c *client, argv [][]byte) {
	collScanCommand(c, argv, c.srv.hashRead, 2, func(h *hashObj, cursor uint64, count int64) ([][]byte, uint64) {
		if h.dict != nil {
			return collScanDict(h.dict, cursor, count*2, func(out [][]byte, k string, v *[]byte) [][]byte {
				return append(out, []byte(k), *v)
			})
		}
		var items [][]byte
		for _, p := range h.lp {
			items = append(items, p[0], p[1])
		}
		return items, 0
	})
}

// parseRandCount parses the "count [WITH...]" tail of HRANDFIELD and
// ZRANDMEMBER with Redis's checks; ok=false after replying an error.
func parseRandCount(c *client, argv [][]byte, with string) (count int64, withPairs, ok bool) {
	l, valid := parseInt(argv[2])
	if !valid {
		c.errNotInt()
		return 0, false, false
	}
	if l == math.MinInt64 {
		c.err(errLongRange)
		return 0, false, false
	}
	if len(argv) > 4 || (len(argv) == 4 && !eqFold(argv[3], with)) {
		c.errSyntax()
		return 0, false, false
	}
	if len(argv) == 4 {
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			c.err("ERR value is out of range")
			return 0, false, false
		}
		return l, true, true
	}
	return l, false, true
}
