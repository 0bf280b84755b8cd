// Package hashcmd is the hash command group (Redis's t_hash.c): HSET,
// HGET, HINCRBYFLOAT, HRANDFIELD, HSCAN and the rest, on package hash's
// values, written against the seam of package command.
package hashcmd

import (
	"bytes"
	"math"
	"math/big"
	"strconv"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/rstring"
)

// Group is the "hash" group, as the server registers it.
var Group = command.Group{Name: "hash", Category: "@hash", Commands: []command.Spec{
	hs("hset", -4, w|command.FlagFast, hsetCommand, "Set the string value of a hash field", "2.0.0", "@write", "@fast"),
	hs("hsetnx", 4, w|command.FlagFast, hsetnxCommand, "Set the value of a hash field, only if the field does not exist", "2.0.0", "@write", "@fast"),
	hs("hmset", -4, w|command.FlagFast, hmsetCommand, "Set multiple hash fields to multiple values", "2.0.0", "@write", "@fast"),
	hs("hget", 3, r|command.FlagFast, hgetCommand, "Get the value of a hash field", "2.0.0", "@read", "@fast"),
	hs("hmget", -3, r|command.FlagFast, hmgetCommand, "Get the values of all the given hash fields", "2.0.0", "@read", "@fast"),
	hs("hgetall", 2, r, hgetallCommand, "Get all the fields and values in a hash", "2.0.0", "@read", "@slow"),
	hs("hkeys", 2, r, hkeysCommand, "Get all the fields in a hash", "2.0.0", "@read", "@slow"),
	hs("hvals", 2, r, hvalsCommand, "Get all the values in a hash", "2.0.0", "@read", "@slow"),
	hs("hdel", -3, command.FlagWrite|command.FlagFast, hdelCommand, "Delete one or more hash fields", "2.0.0", "@write", "@fast"),
	hs("hexists", 3, r|command.FlagFast, hexistsCommand, "Determine if a hash field exists", "2.0.0", "@read", "@fast"),
	hs("hlen", 2, r|command.FlagFast, hlenCommand, "Get the number of fields in a hash", "2.0.0", "@read", "@fast"),
	hs("hstrlen", 3, r|command.FlagFast, hstrlenCommand, "Get the length of the value of a hash field", "3.2.0", "@read", "@fast"),
	hs("hincrby", 4, w|command.FlagFast, hincrbyCommand, "Increment the integer value of a hash field by the given number", "2.0.0", "@write", "@fast"),
	hs("hincrbyfloat", 4, w|command.FlagFast, hincrbyfloatCommand, "Increment the float value of a hash field by the given amount", "2.6.0", "@write", "@fast"),
	hs("hrandfield", -2, r, hrandfieldCommand, "Get one or multiple random fields from a hash", "6.2.0", "@read", "@slow"),
	hs("hscan", -3, r, hscanCommand, "Incrementally iterate hash fields and associated values", "2.8.0", "@read", "@slow"),
}}

const (
	w = command.FlagWrite | command.FlagDenyOOM
	r = command.FlagReadonly
)

// hs is the spec of a hash command: every one has its key at argv[1].
func hs(name string, arity int, flags command.Flag, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// limits are the listpack limits of the configuration.
func limits(c command.Ctx) hash.Limits {
	cfg := c.Config()
	return hash.Limits{Entries: cfg.HashMaxListpackEntries, Value: cfg.HashMaxListpackValue}
}

func read(c command.Ctx, key []byte) (*hash.Hash, bool) {
	return command.ReadTyped[hash.Hash](c, key, command.TypeHash)
}

// writeOrCreate is hashTypeLookupWriteOrCreate.
func writeOrCreate(c command.Ctx, key []byte) (h *hash.Hash, wrong bool) {
	h, wrong = command.WriteTyped[hash.Hash](c, key, command.TypeHash)
	if h == nil && !wrong {
		h = hash.NewListpack()
		c.AddKey(key, command.Obj(command.TypeHash, h))
	}
	return h, wrong
}

func hsetCommand(c command.Ctx, argv [][]byte)  { hsetGeneric(c, argv, false) }
func hmsetCommand(c command.Ctx, argv [][]byte) { hsetGeneric(c, argv, true) }

func hsetGeneric(c command.Ctx, argv [][]byte, hmset bool) {
	if len(argv)%2 == 1 {
		name := "hset"
		if hmset {
			name = "hmset"
		}
		c.Err("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	key := argv[1]
	h, wrong := writeOrCreate(c, key)
	if wrong {
		return
	}
	lim := limits(c)
	if !h.Hashtable() {
		// hashTypeTryConversion: any long argument converts up front.
		for _, a := range argv[2:] {
			if len(a) > lim.Value {
				h.ConvertToHashtable()
				break
			}
		}
	}
	created := 0
	for i := 2; i < len(argv); i += 2 {
		if h.Set(argv[i], argv[i+1], lim) {
			created++
		}
	}
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyHash, "hset", key)
	c.AddDirty(int64((len(argv) - 2) / 2))
	if hmset {
		c.OK()
	} else {
		c.Integer(int64(created))
	}
}

func hsetnxCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	h, wrong := writeOrCreate(c, key)
	if wrong {
		return
	}
	if _, ok := h.Get(argv[2]); ok {
		c.Integer(0)
		return
	}
	h.Set(argv[2], argv[3], limits(c))
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyHash, "hset", key)
	c.AddDirty(1)
	c.Integer(1)
}

func hgetCommand(c command.Ctx, argv [][]byte) {
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.Null()
		return
	}
	c.BulkOrNull(h.Get(argv[2]))
}

func hmgetCommand(c command.Ctx, argv [][]byte) {
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	c.ArrayLen(len(argv) - 2)
	for _, f := range argv[2:] {
		if h == nil {
			c.Null()
			continue
		}
		c.BulkOrNull(h.Get(f))
	}
}

const (
	hgetKeys = 1 << iota
	hgetVals
)

func hgetallGeneric(c command.Ctx, key []byte, what int) {
	h, wrong := read(c, key)
	if wrong {
		return
	}
	if h == nil {
		if what == hgetKeys|hgetVals {
			c.MapLen(0)
		} else {
			c.EmptyArray()
		}
		return
	}
	n := h.Len()
	if what == hgetKeys|hgetVals {
		c.MapLen(n)
	} else {
		c.ArrayLen(n)
	}
	h.Each(func(f, v []byte) bool {
		if what&hgetKeys != 0 {
			c.Bulk(f)
		}
		if what&hgetVals != 0 {
			c.Bulk(v)
		}
		return true
	})
}

func hgetallCommand(c command.Ctx, argv [][]byte) { hgetallGeneric(c, argv[1], hgetKeys|hgetVals) }
func hkeysCommand(c command.Ctx, argv [][]byte)   { hgetallGeneric(c, argv[1], hgetKeys) }
func hvalsCommand(c command.Ctx, argv [][]byte)   { hgetallGeneric(c, argv[1], hgetVals) }

func hdelCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	h, wrong := command.WriteTyped[hash.Hash](c, key, command.TypeHash)
	if wrong {
		return
	}
	if h == nil {
		c.Integer(0)
		return
	}
	command.RemoveMembers(c, key, h, argv[2:], command.NotifyHash, "hdel")
}

func hexistsCommand(c command.Ctx, argv [][]byte) {
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if h != nil {
		if _, ok := h.Get(argv[2]); ok {
			c.Integer(1)
			return
		}
	}
	c.Integer(0)
}

func hlenCommand(c command.Ctx, argv [][]byte) {
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.Integer(0)
		return
	}
	c.Integer(int64(h.Len()))
}

func hstrlenCommand(c command.Ctx, argv [][]byte) {
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.Integer(0)
		return
	}
	v, _ := h.Get(argv[2])
	c.Integer(int64(len(v)))
}

func hincrbyCommand(c command.Ctx, argv [][]byte) {
	incr, ok := rstring.String2ll(argv[3])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	key := argv[1]
	h, wrong := writeOrCreate(c, key)
	if wrong {
		return
	}
	var cur int64
	if v, found := h.Get(argv[2]); found {
		if cur, ok = rstring.String2ll(v); !ok {
			c.Err("ERR hash value is not an integer")
			dropIfEmpty(c, key, h)
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.Err("ERR increment or decrement would overflow")
		dropIfEmpty(c, key, h)
		return
	}
	cur += incr
	h.Set(argv[2], strconv.AppendInt(nil, cur, 10), limits(c))
	c.Integer(cur)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyHash, "hincrby", key)
	c.AddDirty(1)
}

// dropIfEmpty removes a hash that writeOrCreate created for a command
// that then failed (Redis never leaves an empty key behind).
func dropIfEmpty(c command.Ctx, key []byte, h *hash.Hash) {
	if h.Len() == 0 {
		c.DeleteKey(key)
	}
}

func hincrbyfloatCommand(c command.Ctx, argv [][]byte) {
	incr, ok := rstring.String2ld(argv[3])
	if !ok {
		c.Err(command.ErrNotFloat)
		return
	}
	if incr.IsInf() {
		c.Err("ERR value is NaN or Infinity")
		return
	}
	key := argv[1]
	h, wrong := writeOrCreate(c, key)
	if wrong {
		return
	}
	cur := new(big.Float)
	if v, found := h.Get(argv[2]); found {
		if cur, ok = rstring.String2ld(v); !ok {
			c.Err("ERR hash value is not a float")
			dropIfEmpty(c, key, h)
			return
		}
	}
	sum, ok := rstring.LdAdd(cur, incr)
	if !ok {
		c.Err("ERR increment would produce NaN or Infinity")
		dropIfEmpty(c, key, h)
		return
	}
	out := rstring.Ld2string(sum)
	h.Set(argv[2], out, limits(c))
	c.Bulk(out)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyHash, "hincrbyfloat", key)
	c.AddDirty(1)
	// Logged as HSET so that float rounding on replay cannot differ.
	c.RewriteArgv([]byte("HSET"), bytes.Clone(key), bytes.Clone(argv[2]), out)
}

func hrandfieldCommand(c command.Ctx, argv [][]byte) {
	if len(argv) >= 3 {
		if l, with, ok := command.ParseRandCount(c, argv, "withvalues"); ok {
			hrandfieldWithCount(c, argv[1], l, with)
		}
		return
	}
	h, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if h == nil {
		c.Null()
		return
	}
	f, _ := h.Random(c.Rand())
	c.Bulk(f)
}

func hrandfieldWithCount(c command.Ctx, key []byte, l int64, withValues bool) {
	h, wrong := read(c, key)
	if wrong {
		return
	}
	if h == nil || l == 0 {
		c.EmptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	per := 1
	if withValues && c.RESP() == 2 {
		per = 2
	}
	size := int64(h.Len())
	emit := func(f, v []byte) {
		if withValues {
			c.PairStart()
		}
		c.Bulk(f)
		if withValues {
			c.Bulk(v)
		}
	}
	if !uniq || count == 1 {
		c.ArrayLen(int(count) * per)
		for i := int64(0); i < count; i++ {
			emit(h.Random(c.Rand()))
		}
		return
	}
	if count >= size {
		c.ArrayLen(int(size) * per)
		h.Each(func(f, v []byte) bool {
			emit(f, v)
			return true
		})
		return
	}
	c.ArrayLen(int(count) * per)
	if count*3 > size || !h.Hashtable() {
		all := make([][2][]byte, 0, size)
		h.Each(func(f, v []byte) bool {
			all = append(all, [2][]byte{f, v})
			return true
		})
		for i := 0; i < int(count); i++ {
			j := i + c.Rand().IntN(len(all)-i)
			all[i], all[j] = all[j], all[i]
			emit(all[i][0], all[i][1])
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		f, v := h.Random(c.Rand())
		if _, dup := seen[string(f)]; dup {
			continue
		}
		seen[string(f)] = struct{}{}
		emit(f, v)
	}
}

func hscanCommand(c command.Ctx, argv [][]byte) {
	command.ScanCollection(c, argv, command.TypeHash, 2, func(h *hash.Hash, cursor uint64, count int64) ([][]byte, uint64) {
		if d := h.Dict(); d != nil {
			return command.ScanDict(d, cursor, count*2, func(out [][]byte, k string, v *[]byte) [][]byte {
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
