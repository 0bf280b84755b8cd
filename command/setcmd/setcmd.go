// Package setcmd is the set command group (Redis's t_set.c): SADD, SPOP,
// SRANDMEMBER, SMOVE, the SINTER/SUNION/SDIFF family, SSCAN and the rest,
// on package set's values, written against the seam of package command.
package setcmd

import (
	"bytes"
	"sort"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/set"
)

// Group is the "set" group, as the server registers it.
var Group = command.Group{Name: "set", Category: "@set", Commands: []command.Spec{
	st("sadd", -3, w|command.FlagFast, 1, 1, saddCommand, "Add one or more members to a set", "1.0.0", "@write", "@fast"),
	st("srem", -3, command.FlagWrite|command.FlagFast, 1, 1, sremCommand, "Remove one or more members from a set", "1.0.0", "@write", "@fast"),
	st("smembers", 2, r, 1, 1, smembersCommand, "Get all the members in a set", "1.0.0", "@read", "@slow"),
	st("sismember", 3, r|command.FlagFast, 1, 1, sismemberCommand, "Determine if a given value is a member of a set", "1.0.0", "@read", "@fast"),
	st("smismember", -3, r|command.FlagFast, 1, 1, smismemberCommand, "Returns the membership associated with the given elements for a set", "6.2.0", "@read", "@fast"),
	st("scard", 2, r|command.FlagFast, 1, 1, scardCommand, "Get the number of members in a set", "1.0.0", "@read", "@fast"),
	st("spop", -2, command.FlagWrite|command.FlagFast, 1, 1, spopCommand, "Remove and return one or multiple random members from a set", "1.0.0", "@write", "@fast"),
	st("srandmember", -2, r, 1, 1, srandmemberCommand, "Get one or multiple random members from a set", "1.0.0", "@read", "@slow"),
	st("smove", 4, command.FlagWrite|command.FlagFast, 1, 2, smoveCommand, "Move a member from one set to another", "1.0.0", "@write", "@fast"),
	st("sinter", -2, r, 1, -1, sinterCommand, "Intersect multiple sets", "1.0.0", "@read", "@slow"),
	st("sinterstore", -3, w, 1, -1, sinterstoreCommand, "Intersect multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
	st("sintercard", -3, r, 2, 2, sintercardCommand, "Intersect multiple sets and return the cardinality of the result", "7.0.0", "@read", "@slow"),
	st("sunion", -2, r, 1, -1, sunionCommand, "Add multiple sets", "1.0.0", "@read", "@slow"),
	st("sunionstore", -3, w, 1, -1, sunionstoreCommand, "Add multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
	st("sdiff", -2, r, 1, -1, sdiffCommand, "Subtract multiple sets", "1.0.0", "@read", "@slow"),
	st("sdiffstore", -3, w, 1, -1, sdiffstoreCommand, "Subtract multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
	st("sscan", -3, r, 1, 1, sscanCommand, "Incrementally iterate Set elements", "2.8.0", "@read", "@slow"),
}}

const (
	w = command.FlagWrite | command.FlagDenyOOM
	r = command.FlagReadonly
)

// st is the spec of a set command, its keys argv[first..last] (step 1).
func st(name string, arity int, flags command.Flag, first, last int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// read returns key's set (nil if absent); wrong reports that a WRONGTYPE
// error was replied.
func read(c command.Ctx, key []byte) (*set.Set, bool) {
	return command.ReadTyped[set.Set](c, key, command.TypeSet)
}

func write(c command.Ctx, key []byte) (*set.Set, bool) {
	return command.WriteTyped[set.Set](c, key, command.TypeSet)
}

func saddCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	o, wrong := write(c, key)
	if wrong {
		return
	}
	if o == nil {
		o = set.NewFor(argv[2])
		c.AddKey(key, command.Obj(command.TypeSet, o))
	}
	added := 0
	maxIntset := c.Config().SetMaxIntsetEntries
	for _, m := range argv[2:] {
		if o.Add(m, maxIntset) {
			added++
		}
	}
	if added > 0 {
		c.AddDirty(int64(added))
		c.SignalModifiedKey(key)
		c.Notify(command.NotifySet, "sadd", key)
	}
	c.Integer(int64(added))
}

func sremCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	o, wrong := write(c, key)
	if wrong {
		return
	}
	if o == nil {
		c.Integer(0)
		return
	}
	command.RemoveMembers(c, key, o, argv[2:], command.NotifySet, "srem")
}

// replySet writes every member of o as an array.
func replySet(c command.Ctx, o *set.Set) {
	c.SetLen(o.Len())
	o.Each(func(m []byte) bool {
		c.Bulk(m)
		return true
	})
}

func smembersCommand(c command.Ctx, argv [][]byte) {
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.SetLen(0)
		return
	}
	replySet(c, o)
}

func sismemberCommand(c command.Ctx, argv [][]byte) {
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if o != nil && o.Contains(argv[2]) {
		c.Integer(1)
	} else {
		c.Integer(0)
	}
}

func smismemberCommand(c command.Ctx, argv [][]byte) {
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	c.ArrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		if o != nil && o.Contains(m) {
			c.Integer(1)
		} else {
			c.Integer(0)
		}
	}
}

func scardCommand(c command.Ctx, argv [][]byte) {
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.Integer(0)
		return
	}
	c.Integer(int64(o.Len()))
}

func spopCommand(c command.Ctx, argv [][]byte) {
	if len(argv) == 3 {
		spopWithCount(c, argv)
		return
	}
	if len(argv) > 3 {
		c.Err(command.ErrSyntax)
		return
	}
	key := argv[1]
	o, wrong := write(c, key)
	if wrong {
		return
	}
	if o == nil {
		c.Null()
		return
	}
	m := o.Random(c.Rand())
	o.Remove(m)
	c.Bulk(m)
	c.RewriteArgv([]byte("SREM"), bytes.Clone(key), m)
	c.Notify(command.NotifySet, "spop", key)
	if o.Len() == 0 {
		c.DeleteKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
	}
	c.AddDirty(1)
	c.SignalModifiedKey(key)
}

// spopWithCount is spopWithCountCommand. Every popped member is logged as
// its own SREM (wrapped in MULTI/EXEC by the dispatcher when there are
// several); popping the whole set is logged as DEL.
func spopWithCount(c command.Ctx, argv [][]byte) {
	n, ok := rstring.String2ll(argv[2])
	if !ok || n < 0 {
		c.Err("ERR value is out of range, must be positive")
		return
	}
	key := argv[1]
	o, wrong := write(c, key)
	if wrong {
		return
	}
	if o == nil || n == 0 {
		c.SetLen(0)
		return
	}
	size := o.Len()
	c.Notify(command.NotifySet, "spop", key)
	if n >= int64(size) {
		replySet(c, unionOf(c, []*set.Set{o}))
		c.DeleteKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
		c.AddDirty(1)
		c.SignalModifiedKey(key)
		c.RewriteArgv([]byte("DEL"), bytes.Clone(key))
		return
	}
	c.PreventPropagation()
	c.SetLen(int(n))
	for i := int64(0); i < n; i++ {
		m := o.Random(c.Rand())
		o.Remove(m)
		c.Bulk(m)
		c.Propagate([][]byte{[]byte("SREM"), bytes.Clone(key), m})
	}
	c.AddDirty(n)
	c.SignalModifiedKey(key)
}

func srandmemberCommand(c command.Ctx, argv [][]byte) {
	if len(argv) == 3 {
		srandmemberWithCount(c, argv)
		return
	}
	if len(argv) > 3 {
		c.Err(command.ErrSyntax)
		return
	}
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.Null()
		return
	}
	c.Bulk(o.Random(c.Rand()))
}

// srandmemberWithCount follows srandmemberWithCountCommand: a negative
// count allows repeats and returns exactly -count members; a positive one
// returns min(count, size) distinct members.
func srandmemberWithCount(c command.Ctx, argv [][]byte) {
	l, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if l == -1<<63 {
		c.Err(command.ErrLongRange)
		return
	}
	o, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if o == nil || l == 0 {
		c.EmptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	size := int64(o.Len())
	if !uniq || count == 1 {
		c.ArrayLen(int(count))
		for i := int64(0); i < count; i++ {
			c.Bulk(o.Random(c.Rand()))
		}
		return
	}
	if count >= size {
		// the whole set, as an array even in RESP3 (Redis 7.0)
		u := unionOf(c, []*set.Set{o})
		c.ArrayLen(u.Len())
		u.Each(func(m []byte) bool {
			c.Bulk(m)
			return true
		})
		return
	}
	// Distinct random members: a partial Fisher-Yates over the members
	// when the sample is large, random draws with rejection otherwise.
	c.ArrayLen(int(count))
	if count*3 > size {
		all := make([][]byte, 0, size)
		o.Each(func(m []byte) bool {
			all = append(all, bytes.Clone(m))
			return true
		})
		for i := 0; i < int(count); i++ {
			j := i + c.Rand().IntN(len(all)-i)
			all[i], all[j] = all[j], all[i]
			c.Bulk(all[i])
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		m := o.Random(c.Rand())
		if _, dup := seen[string(m)]; dup {
			continue
		}
		seen[string(m)] = struct{}{}
		c.Bulk(m)
	}
}

func smoveCommand(c command.Ctx, argv [][]byte) {
	srcKey, dstKey, m := argv[1], argv[2], argv[3]
	src, srcFound := c.LookupWrite(srcKey)
	dst, dstFound := c.LookupWrite(dstKey)
	if !srcFound {
		c.Integer(0)
		return
	}
	if src.Type != command.TypeSet || (dstFound && dst.Type != command.TypeSet) {
		c.Err(command.ErrWrongType)
		return
	}
	so := (*set.Set)(src.Ptr)
	var do *set.Set
	if dstFound {
		do = (*set.Set)(dst.Ptr)
	}
	if so == do {
		if so.Contains(m) {
			c.Integer(1)
		} else {
			c.Integer(0)
		}
		return
	}
	if !so.Remove(m) {
		c.Integer(0)
		return
	}
	c.Notify(command.NotifySet, "srem", srcKey)
	if so.Len() == 0 {
		c.DeleteKey(srcKey)
		c.Notify(command.NotifyGeneric, "del", srcKey)
	}
	if do == nil {
		do = set.NewFor(m)
		c.AddKey(dstKey, command.Obj(command.TypeSet, do))
	}
	c.SignalModifiedKey(srcKey)
	c.AddDirty(1)
	// The destination changes only when the member was not there yet.
	if do.Add(m, c.Config().SetMaxIntsetEntries) {
		c.AddDirty(1)
		c.SignalModifiedKey(dstKey)
		c.Notify(command.NotifySet, "sadd", dstKey)
	}
	c.Integer(1)
}

// setsForRead looks up keys as sets; a missing key is nil. ok=false after
// a WRONGTYPE reply.
func setsForRead(c command.Ctx, keys [][]byte, write bool) ([]*set.Set, bool) {
	out := make([]*set.Set, len(keys))
	for i, k := range keys {
		var v command.Value
		var found bool
		if write {
			if v, found = c.LookupWrite(k); !found {
				c.KeyMiss(k) // Redis 7.0 reads STORE inputs with lookupKeyRead
			}
		} else {
			v, found = c.LookupRead(k)
		}
		if !found {
			continue
		}
		if v.Type != command.TypeSet {
			c.Err(command.ErrWrongType)
			return nil, false
		}
		out[i] = (*set.Set)(v.Ptr)
	}
	return out, true
}

func sinterCommand(c command.Ctx, argv [][]byte)      { sinterGeneric(c, argv[1:], nil, 0, false) }
func sinterstoreCommand(c command.Ctx, argv [][]byte) { sinterGeneric(c, argv[2:], argv[1], 0, false) }

func sintercardCommand(c command.Ctx, argv [][]byte) {
	numkeys, ok := rstring.String2ll(argv[1])
	if !ok || numkeys < 1 {
		c.Err("ERR numkeys should be greater than 0")
		return
	}
	if numkeys > int64(len(argv)-2) {
		c.Err("ERR Number of keys can't be greater than number of args")
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(argv); j++ {
		if rstring.EqualFold(argv[j], "limit") && j+1 < len(argv) {
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok || v < 0 {
				c.Err("ERR LIMIT can't be negative")
				return
			}
			limit = v
			continue
		}
		c.Err(command.ErrSyntax)
		return
	}
	sinterGeneric(c, argv[2:2+numkeys], nil, limit, true)
}

// sinterGeneric is sinterGenericCommand: iterate the smallest set and keep
// the members found in all the others.
func sinterGeneric(c command.Ctx, keys [][]byte, dst []byte, limit int64, cardOnly bool) {
	sets, ok := setsForRead(c, keys, dst != nil)
	if !ok {
		return
	}
	empty := false
	for _, o := range sets {
		if o == nil {
			empty = true
		}
	}
	if empty {
		switch {
		case cardOnly:
			c.Integer(0)
		case dst != nil:
			if c.DeleteKey(dst) {
				c.AddDirty(1)
				c.SignalModifiedKey(dst)
				c.Notify(command.NotifyGeneric, "del", dst)
			}
			c.Integer(0)
		default:
			c.SetLen(0)
		}
		return
	}
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].Len() < sets[j].Len() })
	var res [][]byte
	var card int64
	sets[0].Each(func(m []byte) bool {
		for _, o := range sets[1:] {
			if o == sets[0] {
				continue
			}
			if !o.Contains(m) {
				return true
			}
		}
		card++
		if !cardOnly {
			res = append(res, bytes.Clone(m))
		}
		return limit == 0 || card < limit
	})
	switch {
	case cardOnly:
		c.Integer(card)
	case dst != nil:
		out := set.NewIntset()
		maxIntset := c.Config().SetMaxIntsetEntries
		for _, m := range res {
			out.Add(m, maxIntset)
		}
		storeSetResult(c, dst, out, "sinterstore")
	default:
		c.SetLen(len(res))
		for _, m := range res {
			c.Bulk(m)
		}
	}
}

// storeSetResult stores a STORE variant's result (deleting dst when it is
// empty) and replies its size.
func storeSetResult(c command.Ctx, dst []byte, out *set.Set, event string) {
	if out.Len() == 0 {
		if c.DeleteKey(dst) {
			c.AddDirty(1)
			c.SignalModifiedKey(dst)
			c.Notify(command.NotifyGeneric, "del", dst)
		}
		c.Integer(0)
		return
	}
	c.SetKey(dst, command.Obj(command.TypeSet, out))
	c.AddDirty(1)
	c.SignalModifiedKey(dst)
	c.Notify(command.NotifySet, event, dst)
	c.Integer(int64(out.Len()))
}

// unionOf builds the union of sets the way Redis's sunionDiffGenericCommand
// does (into a fresh intset that converts as needed), so the order of its
// members matches Redis for integer results.
func unionOf(c command.Ctx, sets []*set.Set) *set.Set {
	out := set.NewIntset()
	maxIntset := c.Config().SetMaxIntsetEntries
	for _, o := range sets {
		if o == nil {
			continue
		}
		o.Each(func(m []byte) bool {
			out.Add(m, maxIntset)
			return true
		})
	}
	return out
}

func sunionCommand(c command.Ctx, argv [][]byte)      { sunionDiffGeneric(c, argv[1:], nil, false) }
func sunionstoreCommand(c command.Ctx, argv [][]byte) { sunionDiffGeneric(c, argv[2:], argv[1], false) }
func sdiffCommand(c command.Ctx, argv [][]byte)       { sunionDiffGeneric(c, argv[1:], nil, true) }
func sdiffstoreCommand(c command.Ctx, argv [][]byte)  { sunionDiffGeneric(c, argv[2:], argv[1], true) }

func sunionDiffGeneric(c command.Ctx, keys [][]byte, dst []byte, diff bool) {
	sets, ok := setsForRead(c, keys, dst != nil)
	if !ok {
		return
	}
	var out *set.Set
	if !diff {
		out = unionOf(c, sets)
	} else {
		out = set.NewIntset()
		if sets[0] != nil {
			maxIntset := c.Config().SetMaxIntsetEntries
			sets[0].Each(func(m []byte) bool {
				for _, o := range sets[1:] {
					if o == sets[0] {
						return true
					}
					if o != nil && o.Contains(m) {
						return true
					}
				}
				out.Add(m, maxIntset)
				return true
			})
		}
	}
	if dst != nil {
		event := "sunionstore"
		if diff {
			event = "sdiffstore"
		}
		storeSetResult(c, dst, out, event)
		return
	}
	replySet(c, out)
}

func sscanCommand(c command.Ctx, argv [][]byte) {
	command.ScanCollection(c, argv, command.TypeSet, 1, func(o *set.Set, cursor uint64, count int64) ([][]byte, uint64) {
		if d := o.Dict(); d != nil {
			return command.ScanDict(d, cursor, count, func(out [][]byte, k string, _ *struct{}) [][]byte {
				return append(out, []byte(k))
			})
		}
		var items [][]byte
		o.Each(func(m []byte) bool {
			items = append(items, bytes.Clone(m))
			return true
		})
		return items, 0
	})
}
