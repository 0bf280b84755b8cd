package server

import (
	"sort"
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/set"

	seam "github.com/aofserver/aofserver/command"
)

// setFromRDB builds a set with the encoding Redis's loader gives it.
func setFromRDB(v *rdb.Value, s *Server) *set.Set {
	return set.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) == rdb.EncIntset)
}

func init() {
	st := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "set", summary: summary, since: since, acl: append([]string{"@set"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		st("sadd", -3, w|cmdFast, 1, 1, 1, saddCommand, "Add one or more members to a set", "1.0.0", "@write", "@fast"),
		st("srem", -3, cmdWrite|cmdFast, 1, 1, 1, sremCommand, "Remove one or more members from a set", "1.0.0", "@write", "@fast"),
		st("smembers", 2, r, 1, 1, 1, smembersCommand, "Get all the members in a set", "1.0.0", "@read", "@slow"),
		st("sismember", 3, r|cmdFast, 1, 1, 1, sismemberCommand, "Determine if a given value is a member of a set", "1.0.0", "@read", "@fast"),
		st("smismember", -3, r|cmdFast, 1, 1, 1, smismemberCommand, "Returns the membership associated with the given elements for a set", "6.2.0", "@read", "@fast"),
		st("scard", 2, r|cmdFast, 1, 1, 1, scardCommand, "Get the number of members in a set", "1.0.0", "@read", "@fast"),
		st("spop", -2, cmdWrite|cmdFast, 1, 1, 1, spopCommand, "Remove and return one or multiple random members from a set", "1.0.0", "@write", "@fast"),
		st("srandmember", -2, r, 1, 1, 1, srandmemberCommand, "Get one or multiple random members from a set", "1.0.0", "@read", "@slow"),
		st("smove", 4, cmdWrite|cmdFast, 1, 2, 1, smoveCommand, "Move a member from one set to another", "1.0.0", "@write", "@fast"),
		st("sinter", -2, r, 1, -1, 1, sinterCommand, "Intersect multiple sets", "1.0.0", "@read", "@slow"),
		st("sinterstore", -3, w, 1, -1, 1, sinterstoreCommand, "Intersect multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
		st("sintercard", -3, r, 2, 2, 1, sintercardCommand, "Intersect multiple sets and return the cardinality of the result", "7.0.0", "@read", "@slow"),
		st("sunion", -2, r, 1, -1, 1, sunionCommand, "Add multiple sets", "1.0.0", "@read", "@slow"),
		st("sunionstore", -3, w, 1, -1, 1, sunionstoreCommand, "Add multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
		st("sdiff", -2, r, 1, -1, 1, sdiffCommand, "Subtract multiple sets", "1.0.0", "@read", "@slow"),
		st("sdiffstore", -3, w, 1, -1, 1, sdiffstoreCommand, "Subtract multiple sets and store the resulting set in a key", "1.0.0", "@write", "@slow"),
		st("sscan", -3, r, 1, 1, 1, sscanCommand, "Incrementally iterate Set elements", "2.8.0", "@read", "@slow"),
	)
}

// setRead returns key's set (nil if absent); wrong reports that a
// WRONGTYPE error was replied.
func (s *Server) setRead(c *client, key []byte) (*set.Set, bool) {
	return lookupReadTyped[set.Set](s, c, key, typSet)
}

func (s *Server) setWrite(c *client, key []byte) (*set.Set, bool) {
	return lookupWriteTyped[set.Set](s, c, key, typSet)
}

func saddCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	o, wrong := s.setWrite(c, key)
	if wrong {
		return
	}
	if o == nil {
		o = set.NewFor(argv[2])
		s.addKey(c.db, key, newObjEntry(typSet, unsafe.Pointer(o)))
	}
	added := 0
	for _, m := range argv[2:] {
		if o.Add(m, s.cfg.SetMaxIntsetEntries) {
			added++
		}
	}
	if added > 0 {
		s.dirty += int64(added)
		s.signalModifiedKey(c.db, key)
		s.notify(notifySet, "sadd", key, c.db.id)
	}
	c.integer(int64(added))
}

func sremCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	o, wrong := s.setWrite(c, key)
	if wrong {
		return
	}
	if o == nil {
		c.integer(0)
		return
	}
	seam.RemoveMembers(c, key, o, argv[2:], notifySet, "srem")
}

// replySet writes every member of o as an array.
func replySet(c *client, o *set.Set) {
	c.setLen(o.Len())
	o.Each(func(m []byte) bool {
		c.bulk(m)
		return true
	})
}

func smembersCommand(c *client, argv [][]byte) {
	o, wrong := c.srv.setRead(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.setLen(0)
		return
	}
	replySet(c, o)
}

func sismemberCommand(c *client, argv [][]byte) {
	o, wrong := c.srv.setRead(c, argv[1])
	if wrong {
		return
	}
	if o != nil && o.Contains(argv[2]) {
		c.integer(1)
	} else {
		c.integer(0)
	}
}

func smismemberCommand(c *client, argv [][]byte) {
	o, wrong := c.srv.setRead(c, argv[1])
	if wrong {
		return
	}
	c.arrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		if o != nil && o.Contains(m) {
			c.integer(1)
		} else {
			c.integer(0)
		}
	}
}

func scardCommand(c *client, argv [][]byte) {
	o, wrong := c.srv.setRead(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.integer(0)
		return
	}
	c.integer(int64(o.Len()))
}

func spopCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 3 {
		spopWithCount(c, argv)
		return
	}
	if len(argv) > 3 {
		c.errSyntax()
		return
	}
	key := argv[1]
	o, wrong := s.setWrite(c, key)
	if wrong {
		return
	}
	if o == nil {
		c.nullBulk()
		return
	}
	m := o.Random(s.rnd)
	o.Remove(m)
	c.bulk(m)
	c.rewriteArgv([]byte("SREM"), cloneBytes(key), m)
	s.notify(notifySet, "spop", key, c.db.id)
	if o.Len() == 0 {
		s.deleteKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
	}
	s.dirty++
	s.signalModifiedKey(c.db, key)
}

// spopWithCount is spopWithCountCommand. Every popped member is logged as
// its own SREM (wrapped in MULTI/EXEC by the dispatcher when there are
// several); popping the whole set is logged as DEL.
func spopWithCount(c *client, argv [][]byte) {
	s := c.srv
	n, ok := parseInt(argv[2])
	if !ok || n < 0 {
		c.err("ERR value is out of range, must be positive")
		return
	}
	key := argv[1]
	o, wrong := s.setWrite(c, key)
	if wrong {
		return
	}
	if o == nil || n == 0 {
		c.setLen(0)
		return
	}
	size := o.Len()
	s.notify(notifySet, "spop", key, c.db.id)
	if n >= int64(size) {
		replySet(c, unionOf(s, []*set.Set{o}))
		s.deleteKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
		s.dirty++
		s.signalModifiedKey(c.db, key)
		c.rewriteArgv([]byte("DEL"), cloneBytes(key))
		return
	}
	c.preventPropagation()
	c.setLen(int(n))
	for i := int64(0); i < n; i++ {
		m := o.Random(s.rnd)
		o.Remove(m)
		c.bulk(m)
		s.propagate(c.db.id, [][]byte{[]byte("SREM"), cloneBytes(key), m})
	}
	s.dirty += n
	s.signalModifiedKey(c.db, key)
}

func srandmemberCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 3 {
		srandmemberWithCount(c, argv)
		return
	}
	if len(argv) > 3 {
		c.errSyntax()
		return
	}
	o, wrong := s.setRead(c, argv[1])
	if wrong {
		return
	}
	if o == nil {
		c.nullBulk()
		return
	}
	c.bulk(o.Random(s.rnd))
}

// srandmemberWithCount follows srandmemberWithCountCommand: a negative
// count allows repeats and returns exactly -count members; a positive one
// returns min(count, size) distinct members.
func srandmemberWithCount(c *client, argv [][]byte) {
	s := c.srv
	l, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if l == -1<<63 {
		c.err(errLongRange)
		return
	}
	o, wrong := s.setRead(c, argv[1])
	if wrong {
		return
	}
	if o == nil || l == 0 {
		c.emptyArray()
		return
	}
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	size := int64(o.Len())
	if !uniq || count == 1 {
		c.arrayLen(int(count))
		for i := int64(0); i < count; i++ {
			c.bulk(o.Random(s.rnd))
		}
		return
	}
	if count >= size {
		// the whole set, as an array even in RESP3 (Redis 7.0)
		u := unionOf(s, []*set.Set{o})
		c.arrayLen(u.Len())
		u.Each(func(m []byte) bool {
			c.bulk(m)
			return true
		})
		return
	}
	// Distinct random members: a partial Fisher-Yates over the members
	// when the sample is large, random draws with rejection otherwise.
	c.arrayLen(int(count))
	if count*3 > size {
		all := make([][]byte, 0, size)
		o.Each(func(m []byte) bool {
			all = append(all, cloneBytes(m))
			return true
		})
		for i := 0; i < int(count); i++ {
			j := i + s.rnd.IntN(len(all)-i)
			all[i], all[j] = all[j], all[i]
			c.bulk(all[i])
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		m := o.Random(s.rnd)
		if _, dup := seen[string(m)]; dup {
			continue
		}
		seen[string(m)] = struct{}{}
		c.bulk(m)
	}
}

func smoveCommand(c *client, argv [][]byte) {
	s := c.srv
	srcKey, dstKey, m := argv[1], argv[2], argv[3]
	src := s.lookupWrite(c, srcKey)
	dst := s.lookupWrite(c, dstKey)
	if src == nil {
		c.integer(0)
		return
	}
	if src.typ() != typSet || (dst != nil && dst.typ() != typSet) {
		c.errWrongType()
		return
	}
	so := (*set.Set)(src.ptr)
	var do *set.Set
	if dst != nil {
		do = (*set.Set)(dst.ptr)
	}
	if so == do {
		if so.Contains(m) {
			c.integer(1)
		} else {
			c.integer(0)
		}
		return
	}
	if !so.Remove(m) {
		c.integer(0)
		return
	}
	s.notify(notifySet, "srem", srcKey, c.db.id)
	if so.Len() == 0 {
		s.deleteKey(c.db, srcKey)
		s.notify(notifyGeneric, "del", srcKey, c.db.id)
	}
	if do == nil {
		do = set.NewFor(m)
		s.addKey(c.db, dstKey, newObjEntry(typSet, unsafe.Pointer(do)))
	}
	s.signalModifiedKey(c.db, srcKey)
	s.dirty++
	// The destination changes only when the member was not there yet.
	if do.Add(m, s.cfg.SetMaxIntsetEntries) {
		s.dirty++
		s.signalModifiedKey(c.db, dstKey)
		s.notify(notifySet, "sadd", dstKey, c.db.id)
	}
	c.integer(1)
}

// setsForRead looks up keys as sets; a missing key is nil. ok=false after
// a WRONGTYPE reply.
func (s *Server) setsForRead(c *client, keys [][]byte, write bool) ([]*set.Set, bool) {
	out := make([]*set.Set, len(keys))
	for i, k := range keys {
		var e entry
		var found bool
		if write {
			if p := s.lookupWrite(c, k); p != nil {
				e, found = *p, true
			} else {
				s.keymiss(c, k) // Redis 7.0 reads STORE inputs with lookupKeyRead
			}
		} else {
			e, found = s.lookupRead(c, k)
		}
		if !found {
			continue
		}
		if e.typ() != typSet {
			c.errWrongType()
			return nil, false
		}
		out[i] = (*set.Set)(e.ptr)
	}
	return out, true
}

func sinterCommand(c *client, argv [][]byte)      { sinterGeneric(c, argv[1:], nil, 0, false) }
func sinterstoreCommand(c *client, argv [][]byte) { sinterGeneric(c, argv[2:], argv[1], 0, false) }

func sintercardCommand(c *client, argv [][]byte) {
	numkeys, ok := parseInt(argv[1])
	if !ok || numkeys < 1 {
		c.err("ERR numkeys should be greater than 0")
		return
	}
	if numkeys > int64(len(argv)-2) {
		c.err("ERR Number of keys can't be greater than number of args")
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(argv); j++ {
		if eqFold(argv[j], "limit") && j+1 < len(argv) {
			j++
			v, ok := parseInt(argv[j])
			if !ok || v < 0 {
				c.err("ERR LIMIT can't be negative")
				return
			}
			limit = v
			continue
		}
		c.errSyntax()
		return
	}
	sinterGeneric(c, argv[2:2+numkeys], nil, limit, true)
}

// sinterGeneric is sinterGenericCommand: iterate the smallest set and keep
// the members found in all the others.
func sinterGeneric(c *client, keys [][]byte, dst []byte, limit int64, cardOnly bool) {
	s := c.srv
	sets, ok := s.setsForRead(c, keys, dst != nil)
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
			c.integer(0)
		case dst != nil:
			if s.deleteKey(c.db, dst) {
				s.dirty++
				s.signalModifiedKey(c.db, dst)
				s.notify(notifyGeneric, "del", dst, c.db.id)
			}
			c.integer(0)
		default:
			c.setLen(0)
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
			res = append(res, cloneBytes(m))
		}
		return limit == 0 || card < limit
	})
	switch {
	case cardOnly:
		c.integer(card)
	case dst != nil:
		out := set.NewIntset()
		for _, m := range res {
			out.Add(m, s.cfg.SetMaxIntsetEntries)
		}
		storeSetResult(c, s, dst, out, "sinterstore")
	default:
		c.setLen(len(res))
		for _, m := range res {
			c.bulk(m)
		}
	}
}

// storeSetResult stores a STORE variant's result (deleting dst when it is
// empty) and replies its size.
func storeSetResult(c *client, s *Server, dst []byte, out *set.Set, event string) {
	if out.Len() == 0 {
		if s.deleteKey(c.db, dst) {
			s.dirty++
			s.signalModifiedKey(c.db, dst)
			s.notify(notifyGeneric, "del", dst, c.db.id)
		}
		c.integer(0)
		return
	}
	s.setKey(c.db, dst, newObjEntry(typSet, unsafe.Pointer(out)), false)
	s.dirty++
	s.signalModifiedKey(c.db, dst)
	s.notify(notifySet, event, dst, c.db.id)
	c.integer(int64(out.Len()))
}

// unionOf builds the union of sets the way Redis's sunionDiffGenericCommand
// does (into a fresh intset that converts as needed), so the order of its
// members matches Redis for integer results.
func unionOf(s *Server, sets []*set.Set) *set.Set {
	out := set.NewIntset()
	for _, o := range sets {
		if o == nil {
			continue
		}
		o.Each(func(m []byte) bool {
			out.Add(m, s.cfg.SetMaxIntsetEntries)
			return true
		})
	}
	return out
}

func sunionCommand(c *client, argv [][]byte)      { sunionDiffGeneric(c, argv[1:], nil, false) }
func sunionstoreCommand(c *client, argv [][]byte) { sunionDiffGeneric(c, argv[2:], argv[1], false) }
func sdiffCommand(c *client, argv [][]byte)       { sunionDiffGeneric(c, argv[1:], nil, true) }
func sdiffstoreCommand(c *client, argv [][]byte)  { sunionDiffGeneric(c, argv[2:], argv[1], true) }

func sunionDiffGeneric(c *client, keys [][]byte, dst []byte, diff bool) {
	s := c.srv
	sets, ok := s.setsForRead(c, keys, dst != nil)
	if !ok {
		return
	}
	out := set.NewIntset()
	if !diff {
		for _, o := range sets {
			if o == nil {
				continue
			}
			o.Each(func(m []byte) bool {
				out.Add(m, s.cfg.SetMaxIntsetEntries)
				return true
			})
		}
	} else if sets[0] != nil {
		sets[0].Each(func(m []byte) bool {
			for _, o := range sets[1:] {
				if o == sets[0] {
					return true
				}
				if o != nil && o.Contains(m) {
					return true
				}
			}
			out.Add(m, s.cfg.SetMaxIntsetEntries)
			return true
		})
	}
	if dst != nil {
		event := "sunionstore"
		if diff {
			event = "sdiffstore"
		}
		storeSetResult(c, s, dst, out, event)
		return
	}
	replySet(c, out)
}

func sscanCommand(c *client, argv [][]byte) {
	seam.ScanCollection(c, argv, seam.TypeSet, 1, func(o *set.Set, cursor uint64, count int64) ([][]byte, uint64) {
		if d := o.Dict(); d != nil {
			return seam.ScanDict(d, cursor, count, func(out [][]byte, k string, _ *struct{}) [][]byte {
				return append(out, []byte(k))
			})
		}
		var items [][]byte
		o.Each(func(m []byte) bool {
			items = append(items, cloneBytes(m))
			return true
		})
		return items, 0
	})
}
