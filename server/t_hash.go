package server

import (
	"math"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

// hashFromRDB builds a hash with the encoding Redis 7.0's loader ends up
// with.
func hashFromRDB(v *rdb.Value, s *Server) *hash.Hash {
	return hash.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) != rdb.EncListpack)
}

// hashLimits are the listpack limits of the configuration.
func (s *Server) hashLimits() hash.Limits {
	return hash.Limits{Entries: s.cfg.HashMaxListpackEntries, Value: s.cfg.HashMaxListpackValue}
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

func (s *Server) hashRead(c *client, key []byte) (*hash.Hash, bool) {
	return lookupReadTyped[hash.Hash](s, c, key, typHash)
}

// hashWriteOrCreate is hashTypeLookupWriteOrCreate.
func (s *Server) hashWriteOrCreate(c *client, key []byte) (h *hash.Hash, wrong bool) {
	p := s.lookupWrite(c, key)
	if p == nil {
		h = hash.NewListpack()
		s.addKey(c.db, key, newObjEntry(typHash, unsafe.Pointer(h)))
		return h, false
	}
	if p.typ() != typHash {
		c.errWrongType()
		return nil, true
	}
	return (*hash.Hash)(p.ptr), false
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
	if !h.Hashtable() {
		// hashTypeTryConversion: any long argument converts up front.
		for _, a := range argv[2:] {
			if len(a) > s.cfg.HashMaxListpackValue {
				h.ConvertToHashtable()
				break
			}
		}
	}
	created := 0
	for i := 2; i < len(argv); i += 2 {
		if h.Set(argv[i], argv[i+1], s.hashLimits()) {
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
	if _, ok := h.Get(argv[2]); ok {
		c.integer(0)
		return
	}
	h.Set(argv[2], argv[3], s.hashLimits())
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
	c.bulkOrNull(h.Get(argv[2]))
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
		c.bulkOrNull(h.Get(f))
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
	h.Each(func(f, v []byte) bool {
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
	s.removeMembers(c, key, (*hash.Hash)(p.ptr), argv[2:], notifyHash, "hdel")
}

func hexistsCommand(c *client, argv [][]byte) {
	h, wrong := c.srv.hashRead(c, argv[1])
	if wrong {
		return
	}
	if h != nil {
		if _, ok := h.Get(argv[2]); ok {
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
	v, _ := h.Get(argv[2])
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
	if v, found := h.Get(argv[2]); found {
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
	h.Set(argv[2], strconv.AppendInt(nil, cur, 10), s.hashLimits())
	c.integer(cur)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyHash, "hincrby", key, c.db.id)
	s.dirty++
}

// dropIfEmptyHash removes a hash that hashWriteOrCreate created for a
// command that then failed (Redis never leaves an empty key behind).
func (s *Server) dropIfEmptyHash(c *client, key []byte, h *hash.Hash) {
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
	if v, found := h.Get(argv[2]); found {
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
	h.Set(argv[2], out, s.hashLimits())
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
	f, _ := h.Random(s.rnd)
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
			emit(h.Random(s.rnd))
		}
		return
	}
	if count >= size {
		c.arrayLen(int(size) * per)
		h.Each(func(f, v []byte) bool {
			emit(f, v)
			return true
		})
		return
	}
	c.arrayLen(int(count) * per)
	if count*3 > size || !h.Hashtable() {
		all := make([][2][]byte, 0, size)
		h.Each(func(f, v []byte) bool {
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
		f, v := h.Random(s.rnd)
		if _, dup := seen[string(f)]; dup {
			continue
		}
		seen[string(f)] = struct{}{}
		emit(f, v)
	}
}

func hscanCommand(c *client, argv [][]byte) {
	collScanCommand(c, argv, c.srv.hashRead, 2, func(h *hash.Hash, cursor uint64, count int64) ([][]byte, uint64) {
		if d := h.Dict(); d != nil {
			return collScanDict(d, cursor, count*2, func(out [][]byte, k string, v *[]byte) [][]byte {
				return append(out, []byte(k), *v)
			})
		}
		var items [][]byte
		h.Each(func(f, v []byte) bool {
			items = append(items, f, v)
			return true
		})
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
