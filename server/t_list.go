package server

import (
	"bytes"
	"math"
	"unsafe"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rdb"
)

// listFromRDB builds a list from a decoded value.
func listFromRDB(v *rdb.Value, _ *Server) *list.List { return list.FromRDB(v) }

// debugPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD <memory>, Redis's
// quicklistisSetPackedThreshold: 0 restores 1 GB, and nothing above 4 GB
// minus 1 MB is taken. Elements are kept whole whatever the threshold; it
// decides the node layout that DUMP, RDB files and DEBUG OBJECT show.
func debugPackedThreshold(c *client, arg []byte) {
	sz, ok := config.ParseMemory(string(arg))
	if !ok || sz > 1<<32-1<<20 {
		c.err("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
		return
	}
	c.srv.listPackedThreshold = int(sz)
	c.ok()
}

func init() {
	ls := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "list", summary: summary, since: since, acl: append([]string{"@list"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		ls("lpush", -3, w|cmdFast, 1, 1, 1, lpushCommand, "Prepend one or multiple elements to a list", "1.0.0", "@write", "@fast"),
		ls("rpush", -3, w|cmdFast, 1, 1, 1, rpushCommand, "Append one or multiple elements to a list", "1.0.0", "@write", "@fast"),
		ls("lpushx", -3, w|cmdFast, 1, 1, 1, lpushxCommand, "Prepend an element to a list, only if the list exists", "2.2.0", "@write", "@fast"),
		ls("rpushx", -3, w|cmdFast, 1, 1, 1, rpushxCommand, "Append an element to a list, only if the list exists", "2.2.0", "@write", "@fast"),
		ls("lpop", -2, cmdWrite|cmdFast, 1, 1, 1, lpopCommand, "Remove and get the first elements in a list", "1.0.0", "@write", "@fast"),
		ls("rpop", -2, cmdWrite|cmdFast, 1, 1, 1, rpopCommand, "Remove and get the last elements in a list", "1.0.0", "@write", "@fast"),
		ls("lrange", 4, r, 1, 1, 1, lrangeCommand, "Get a range of elements from a list", "1.0.0", "@read", "@slow"),
		ls("llen", 2, r|cmdFast, 1, 1, 1, llenCommand, "Get the length of a list", "1.0.0", "@read", "@fast"),
		ls("lindex", 3, r, 1, 1, 1, lindexCommand, "Get an element from a list by its index", "1.0.0", "@read", "@slow"),
		ls("lset", 4, w, 1, 1, 1, lsetCommand, "Set the value of an element in a list by its index", "1.0.0", "@write", "@slow"),
		ls("lrem", 4, cmdWrite, 1, 1, 1, lremCommand, "Remove elements from a list", "1.0.0", "@write", "@slow"),
		ls("ltrim", 4, cmdWrite, 1, 1, 1, ltrimCommand, "Trim a list to the specified range", "1.0.0", "@write", "@slow"),
		ls("linsert", 5, w, 1, 1, 1, linsertCommand, "Insert an element before or after another element in a list", "2.2.0", "@write", "@slow"),
		ls("lpos", -3, r, 1, 1, 1, lposCommand, "Return the index of matching elements on a list", "6.0.6", "@read", "@slow"),
		ls("rpoplpush", 3, w, 1, 2, 1, rpoplpushCommand, "Remove the last element in a list, prepend it to another list and return it", "1.2.0", "@write", "@slow"),
		ls("lmove", 5, w, 1, 2, 1, lmoveCommand, "Pop an element from a list, push it to another list and return it", "6.2.0", "@write", "@slow"),
	)
}

func (s *Server) listRead(c *client, key []byte) (*list.List, bool) {
	return lookupReadTyped[list.List](s, c, key, typList)
}

func (s *Server) listWrite(c *client, key []byte) (*list.List, bool) {
	return lookupWriteTyped[list.List](s, c, key, typList)
}

func lpushCommand(c *client, argv [][]byte)  { pushGeneric(c, argv, true, false) }
func rpushCommand(c *client, argv [][]byte)  { pushGeneric(c, argv, false, false) }
func lpushxCommand(c *client, argv [][]byte) { pushGeneric(c, argv, true, true) }
func rpushxCommand(c *client, argv [][]byte) { pushGeneric(c, argv, false, true) }

func pushGeneric(c *client, argv [][]byte, head, xx bool) {
	s := c.srv
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		if xx {
			c.integer(0)
			return
		}
		l = list.New()
		s.addKey(c.db, key, newObjEntry(typList, unsafe.Pointer(l)))
	}
	for _, v := range argv[2:] {
		if head {
			l.PushFront(cloneBytes(v))
		} else {
			l.PushBack(cloneBytes(v))
		}
	}
	c.integer(int64(l.Len()))
	s.signalModifiedKey(c.db, key)
	s.notify(notifyList, pushEvent(head), key, c.db.id)
	s.dirty += int64(len(argv) - 2)
}

// pushEvent and popEvent name the list events of a push or pop end.
func pushEvent(head bool) string {
	if head {
		return "lpush"
	}
	return "rpush"
}

func popEvent(head bool) string {
	if head {
		return "lpop"
	}
	return "rpop"
}

func lpopCommand(c *client, argv [][]byte) { popGeneric(c, argv, true) }
func rpopCommand(c *client, argv [][]byte) { popGeneric(c, argv, false) }

func popGeneric(c *client, argv [][]byte, head bool) {
	s := c.srv
	if len(argv) > 3 {
		name := "rpop"
		if head {
			name = "lpop"
		}
		c.err("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	hasCount := len(argv) == 3
	var count int64
	if hasCount {
		v, ok := parseInt(argv[2])
		if !ok || v < 0 {
			c.err("ERR value is out of range, must be positive")
			return
		}
		count = v
	}
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		if hasCount {
			c.nullArray()
		} else {
			c.nullBulk()
		}
		return
	}
	if hasCount && count == 0 {
		c.emptyArray()
		return
	}
	n := 1
	if hasCount {
		n = int(min(count, int64(l.Len())))
		c.arrayLen(n)
	}
	for i := 0; i < n; i++ {
		var v []byte
		if head {
			v = l.PopFront()
		} else {
			v = l.PopBack()
		}
		c.bulk(v)
	}
	s.notify(notifyList, popEvent(head), key, c.db.id)
	if l.Len() == 0 {
		s.deleteKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
	}
	s.signalModifiedKey(c.db, key)
	s.dirty += int64(n)
}

// listRange normalizes start/end like Redis's LRANGE; ok=false means an
// empty range.
func listRange(start, end int64, llen int) (int, int, bool) {
	n := int64(llen)
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		return 0, 0, false
	}
	if end >= n {
		end = n - 1
	}
	return int(start), int(end), true
}

func lrangeCommand(c *client, argv [][]byte) {
	start, ok1 := parseInt(argv[2])
	end, ok2 := parseInt(argv[3])
	if !ok1 || !ok2 {
		c.errNotInt()
		return
	}
	l, wrong := c.srv.listRead(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.emptyArray()
		return
	}
	a, b, ok := listRange(start, end, l.Len())
	if !ok {
		c.emptyArray()
		return
	}
	c.arrayLen(b - a + 1)
	for i := a; i <= b; i++ {
		c.bulk(l.At(i))
	}
}

func llenCommand(c *client, argv [][]byte) {
	l, wrong := c.srv.listRead(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.integer(0)
		return
	}
	c.integer(int64(l.Len()))
}

func lindexCommand(c *client, argv [][]byte) {
	l, wrong := c.srv.listRead(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.nullBulk()
		return
	}
	idx, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if idx < 0 {
		idx += int64(l.Len())
	}
	if idx < 0 || idx >= int64(l.Len()) {
		c.nullBulk()
		return
	}
	c.bulk(l.At(int(idx)))
}

func lsetCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.err(errNoSuchKey)
		return
	}
	idx, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if idx < 0 {
		idx += int64(l.Len())
	}
	if idx < 0 || idx >= int64(l.Len()) {
		c.err(errOutOfRng)
		return
	}
	l.SetAt(int(idx), cloneBytes(argv[3]))
	c.ok()
	s.signalModifiedKey(c.db, key)
	s.notify(notifyList, "lset", key, c.db.id)
	s.dirty++
}

func lremCommand(c *client, argv [][]byte) {
	s := c.srv
	toRemove, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.integer(0)
		return
	}
	elem := argv[3]
	removed := int64(0)
	limit := toRemove
	if limit < 0 {
		limit = -limit
		if limit < 0 { // -MinInt64
			limit = math.MaxInt64
		}
	}
	if toRemove >= 0 {
		l.Filter(func(_ int, v []byte) bool {
			if (limit == 0 || removed < limit) && bytes.Equal(v, elem) {
				removed++
				return false
			}
			return true
		})
	} else {
		// From the tail: mark the last matches first, then compact.
		drop := make(map[int]struct{})
		for i := l.Len() - 1; i >= 0 && int64(len(drop)) < limit; i-- {
			if bytes.Equal(l.At(i), elem) {
				drop[i] = struct{}{}
			}
		}
		removed = int64(len(drop))
		if removed > 0 {
			l.Filter(func(i int, _ []byte) bool {
				_, d := drop[i]
				return !d
			})
		}
	}
	if removed > 0 {
		s.signalModifiedKey(c.db, key)
		s.notify(notifyList, "lrem", key, c.db.id)
		if l.Len() == 0 {
			s.deleteKey(c.db, key)
			s.notify(notifyGeneric, "del", key, c.db.id)
		}
		s.dirty += removed
	}
	c.integer(removed)
}

func ltrimCommand(c *client, argv [][]byte) {
	s := c.srv
	start, ok1 := parseInt(argv[2])
	end, ok2 := parseInt(argv[3])
	if !ok1 || !ok2 {
		c.errNotInt()
		return
	}
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.ok()
		return
	}
	llen := l.Len()
	var ltrim, rtrim int
	if a, b, ok := listRange(start, end, llen); ok {
		ltrim, rtrim = a, llen-b-1
	} else {
		ltrim, rtrim = llen, 0
	}
	l.Trim(ltrim, rtrim)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyList, "ltrim", key, c.db.id)
	if l.Len() == 0 {
		s.deleteKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
	}
	// Redis counts the removed elements: a no-op LTRIM is not logged.
	s.dirty += int64(ltrim + rtrim)
	c.ok()
}

func linsertCommand(c *client, argv [][]byte) {
	s := c.srv
	var after bool
	switch {
	case eqFold(argv[2], "after"):
		after = true
	case eqFold(argv[2], "before"):
	default:
		c.errSyntax()
		return
	}
	key := argv[1]
	l, wrong := s.listWrite(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.integer(0)
		return
	}
	for i := 0; i < l.Len(); i++ {
		if bytes.Equal(l.At(i), argv[3]) {
			if after {
				i++
			}
			l.InsertAt(i, cloneBytes(argv[4]))
			s.signalModifiedKey(c.db, key)
			s.notify(notifyList, "linsert", key, c.db.id)
			s.dirty++
			c.integer(int64(l.Len()))
			return
		}
	}
	c.integer(-1)
}

func lposCommand(c *client, argv [][]byte) {
	var rank int64 = 1
	var count, maxlen int64
	hasCount := false
	for j := 3; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case eqFold(argv[j], "rank") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok {
				c.errNotInt()
				return
			}
			if v == 0 {
				c.err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = v
		case eqFold(argv[j], "count") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok || v < 0 {
				c.err("ERR COUNT can't be negative")
				return
			}
			count, hasCount = v, true
		case eqFold(argv[j], "maxlen") && more > 0:
			j++
			v, ok := parseInt(argv[j])
			if !ok || v < 0 {
				c.err("ERR MAXLEN can't be negative")
				return
			}
			maxlen = v
		default:
			c.errSyntax()
			return
		}
	}
	l, wrong := c.srv.listRead(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		if hasCount {
			c.emptyArray()
		} else {
			c.nullBulk()
		}
		return
	}
	fromTail := rank < 0
	if fromTail {
		rank = -rank // MinInt64 stays negative: every match qualifies, as in C
	}
	var matches, found int64
	var out []int64
	n := l.Len()
	for k := 0; k < n && (maxlen == 0 || int64(k) < maxlen); k++ {
		idx := k
		if fromTail {
			idx = n - 1 - k
		}
		if !bytes.Equal(l.At(idx), argv[2]) {
			continue
		}
		matches++
		if matches >= rank {
			out = append(out, int64(idx))
			found++
			if !hasCount || (count != 0 && found >= count) {
				break
			}
		}
	}
	if !hasCount {
		if len(out) == 0 {
			c.nullBulk()
		} else {
			c.integer(out[0])
		}
		return
	}
	c.arrayLen(len(out))
	for _, i := range out {
		c.integer(i)
	}
}

func rpoplpushCommand(c *client, argv [][]byte) { lmoveGeneric(c, argv[1], argv[2], false, true) }

func lmoveCommand(c *client, argv [][]byte) {
	var from, to bool // true = left
	for i, a := range argv[3:5] {
		var left bool
		switch {
		case eqFold(a, "left"):
			left = true
		case eqFold(a, "right"):
		default:
			c.errSyntax()
			return
		}
		if i == 0 {
			from = left
		} else {
			to = left
		}
	}
	lmoveGeneric(c, argv[1], argv[2], from, to)
}

// lmoveGeneric pops from src (left if fromLeft) and pushes onto dst.
func lmoveGeneric(c *client, srcKey, dstKey []byte, fromLeft, toLeft bool) {
	s := c.srv
	src, wrong := s.listWrite(c, srcKey)
	if wrong {
		return
	}
	if src == nil {
		c.nullBulk()
		return
	}
	dst, wrong := s.listWrite(c, dstKey)
	if wrong {
		return
	}
	var v []byte
	if fromLeft {
		v = src.PopFront()
	} else {
		v = src.PopBack()
	}
	if dst == nil {
		dst = list.New()
		s.addKey(c.db, dstKey, newObjEntry(typList, unsafe.Pointer(dst)))
	}
	if toLeft {
		dst.PushFront(v)
	} else {
		dst.PushBack(v)
	}
	s.signalModifiedKey(c.db, dstKey)
	s.notify(notifyList, pushEvent(toLeft), dstKey, c.db.id)
	c.bulk(v)
	s.notify(notifyList, popEvent(fromLeft), srcKey, c.db.id)
	if src.Len() == 0 {
		s.deleteKey(c.db, srcKey)
		s.notify(notifyGeneric, "del", srcKey, c.db.id)
	}
	s.signalModifiedKey(c.db, srcKey)
	s.dirty++
}
