// Package listcmd is the list command group (Redis's t_list.c): LPUSH,
// LPOP, LRANGE, LPOS, LMOVE, LMPOP and the rest, on package list's values,
// written against the seam of package command, with their blocking forms
// (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP: blocking.go).
package listcmd

import (
	"bytes"
	"math"
	"strconv"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rstring"
)

// Group is the "list" group, as the server registers it.
var Group = command.Group{Name: "list", Category: "@list", Commands: []command.Spec{
	ls("lpush", -3, w|command.FlagFast, 1, 1, 1, lpushCommand, "Prepend one or multiple elements to a list", "1.0.0", "@write", "@fast"),
	ls("rpush", -3, w|command.FlagFast, 1, 1, 1, rpushCommand, "Append one or multiple elements to a list", "1.0.0", "@write", "@fast"),
	ls("lpushx", -3, w|command.FlagFast, 1, 1, 1, lpushxCommand, "Prepend an element to a list, only if the list exists", "2.2.0", "@write", "@fast"),
	ls("rpushx", -3, w|command.FlagFast, 1, 1, 1, rpushxCommand, "Append an element to a list, only if the list exists", "2.2.0", "@write", "@fast"),
	ls("lpop", -2, command.FlagWrite|command.FlagFast, 1, 1, 1, lpopCommand, "Remove and get the first elements in a list", "1.0.0", "@write", "@fast"),
	ls("rpop", -2, command.FlagWrite|command.FlagFast, 1, 1, 1, rpopCommand, "Remove and get the last elements in a list", "1.0.0", "@write", "@fast"),
	ls("lrange", 4, r, 1, 1, 1, lrangeCommand, "Get a range of elements from a list", "1.0.0", "@read", "@slow"),
	ls("llen", 2, r|command.FlagFast, 1, 1, 1, llenCommand, "Get the length of a list", "1.0.0", "@read", "@fast"),
	ls("lindex", 3, r, 1, 1, 1, lindexCommand, "Get an element from a list by its index", "1.0.0", "@read", "@slow"),
	ls("lset", 4, w, 1, 1, 1, lsetCommand, "Set the value of an element in a list by its index", "1.0.0", "@write", "@slow"),
	ls("lrem", 4, command.FlagWrite, 1, 1, 1, lremCommand, "Remove elements from a list", "1.0.0", "@write", "@slow"),
	ls("ltrim", 4, command.FlagWrite, 1, 1, 1, ltrimCommand, "Trim a list to the specified range", "1.0.0", "@write", "@slow"),
	ls("linsert", 5, w, 1, 1, 1, linsertCommand, "Insert an element before or after another element in a list", "2.2.0", "@write", "@slow"),
	ls("lpos", -3, r, 1, 1, 1, lposCommand, "Return the index of matching elements on a list", "6.0.6", "@read", "@slow"),
	ls("rpoplpush", 3, w, 1, 2, 1, rpoplpushCommand, "Remove the last element in a list, prepend it to another list and return it", "1.2.0", "@write", "@slow"),
	ls("lmove", 5, w, 1, 2, 1, lmoveCommand, "Pop an element from a list, push it to another list and return it", "6.2.0", "@write", "@slow"),
	ls("lmpop", -4, command.FlagWrite, 2, 2, 1, lmpopCommand, "Pop elements from a list", "7.0.0", "@write", "@slow"),
	ls("blpop", -3, bl, 1, -2, 1, blpopCommand, "Remove and get the first element in a list, or block until one is available", "2.0.0", "@write", "@slow", "@blocking"),
	ls("brpop", -3, bl, 1, -2, 1, brpopCommand, "Remove and get the last element in a list, or block until one is available", "2.0.0", "@write", "@slow", "@blocking"),
	ls("brpoplpush", 4, bl, 1, 2, 1, brpoplpushCommand, "Pop an element from a list, push it to another list and return it; or block until one is available", "2.2.0", "@write", "@slow", "@blocking"),
	ls("blmove", 6, bl, 1, 2, 1, blmoveCommand, "Pop an element from a list, push it to another list and return it; or block until one is available", "6.2.0", "@write", "@slow", "@blocking"),
	ls("blmpop", -5, bl, 3, 3, 1, blmpopCommand, "Pop elements from a list, or block until one is available", "7.0.0", "@write", "@slow", "@blocking"),
}}

const (
	w  = command.FlagWrite | command.FlagDenyOOM
	r  = command.FlagReadonly
	bl = command.FlagWrite | command.FlagBlocking | command.FlagNoScript
)

func ls(name string, arity int, flags command.Flag, first, last, step int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

func read(c command.Ctx, key []byte) (*list.List, bool) {
	return command.ReadTyped[list.List](c, key, command.TypeList)
}

func write(c command.Ctx, key []byte) (*list.List, bool) {
	return command.WriteTyped[list.List](c, key, command.TypeList)
}

func lpushCommand(c command.Ctx, argv [][]byte)  { pushGeneric(c, argv, true, false) }
func rpushCommand(c command.Ctx, argv [][]byte)  { pushGeneric(c, argv, false, false) }
func lpushxCommand(c command.Ctx, argv [][]byte) { pushGeneric(c, argv, true, true) }
func rpushxCommand(c command.Ctx, argv [][]byte) { pushGeneric(c, argv, false, true) }

func pushGeneric(c command.Ctx, argv [][]byte, head, xx bool) {
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		if xx {
			c.Integer(0)
			return
		}
		l = list.New()
		c.AddKey(key, command.Obj(command.TypeList, l))
	}
	for _, v := range argv[2:] {
		if head {
			l.PushFront(bytes.Clone(v))
		} else {
			l.PushBack(bytes.Clone(v))
		}
	}
	c.Integer(int64(l.Len()))
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyList, pushEvent(head), key)
	c.AddDirty(int64(len(argv) - 2))
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

func lpopCommand(c command.Ctx, argv [][]byte) { popGeneric(c, argv, true) }
func rpopCommand(c command.Ctx, argv [][]byte) { popGeneric(c, argv, false) }

func popGeneric(c command.Ctx, argv [][]byte, head bool) {
	if len(argv) > 3 {
		name := "rpop"
		if head {
			name = "lpop"
		}
		c.Err("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	hasCount := len(argv) == 3
	var count int64
	if hasCount {
		v, ok := rstring.String2ll(argv[2])
		if !ok || v < 0 {
			c.Err("ERR value is out of range, must be positive")
			return
		}
		count = v
	}
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		if hasCount {
			c.NullArray()
		} else {
			c.Null()
		}
		return
	}
	if hasCount && count == 0 {
		c.EmptyArray()
		return
	}
	n := 1
	if hasCount {
		n = int(min(count, int64(l.Len())))
		c.ArrayLen(n)
	}
	for i := 0; i < n; i++ {
		var v []byte
		if head {
			v = l.PopFront()
		} else {
			v = l.PopBack()
		}
		c.Bulk(v)
	}
	c.Notify(command.NotifyList, popEvent(head), key)
	if l.Len() == 0 {
		c.DeleteKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
	}
	c.SignalModifiedKey(key)
	c.AddDirty(int64(n))
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

func lrangeCommand(c command.Ctx, argv [][]byte) {
	start, ok1 := rstring.String2ll(argv[2])
	end, ok2 := rstring.String2ll(argv[3])
	if !ok1 || !ok2 {
		c.Err(command.ErrNotInt)
		return
	}
	l, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.EmptyArray()
		return
	}
	a, b, ok := listRange(start, end, l.Len())
	if !ok {
		c.EmptyArray()
		return
	}
	c.ArrayLen(b - a + 1)
	for i := a; i <= b; i++ {
		c.Bulk(l.At(i))
	}
}

func llenCommand(c command.Ctx, argv [][]byte) {
	l, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.Integer(0)
		return
	}
	c.Integer(int64(l.Len()))
}

func lindexCommand(c command.Ctx, argv [][]byte) {
	l, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		c.Null()
		return
	}
	idx, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if idx < 0 {
		idx += int64(l.Len())
	}
	if idx < 0 || idx >= int64(l.Len()) {
		c.Null()
		return
	}
	c.Bulk(l.At(int(idx)))
}

func lsetCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.Err(command.ErrNoSuchKey)
		return
	}
	idx, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if idx < 0 {
		idx += int64(l.Len())
	}
	if idx < 0 || idx >= int64(l.Len()) {
		c.Err(command.ErrOutOfRange)
		return
	}
	l.SetAt(int(idx), bytes.Clone(argv[3]))
	c.OK()
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyList, "lset", key)
	c.AddDirty(1)
}

func lremCommand(c command.Ctx, argv [][]byte) {
	toRemove, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.Integer(0)
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
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyList, "lrem", key)
		if l.Len() == 0 {
			c.DeleteKey(key)
			c.Notify(command.NotifyGeneric, "del", key)
		}
		c.AddDirty(removed)
	}
	c.Integer(removed)
}

func ltrimCommand(c command.Ctx, argv [][]byte) {
	start, ok1 := rstring.String2ll(argv[2])
	end, ok2 := rstring.String2ll(argv[3])
	if !ok1 || !ok2 {
		c.Err(command.ErrNotInt)
		return
	}
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.OK()
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
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyList, "ltrim", key)
	if l.Len() == 0 {
		c.DeleteKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
	}
	// Redis counts the removed elements: a no-op LTRIM is not logged.
	c.AddDirty(int64(ltrim + rtrim))
	c.OK()
}

func linsertCommand(c command.Ctx, argv [][]byte) {
	var after bool
	switch {
	case rstring.EqualFold(argv[2], "after"):
		after = true
	case rstring.EqualFold(argv[2], "before"):
	default:
		c.Err(command.ErrSyntax)
		return
	}
	key := argv[1]
	l, wrong := write(c, key)
	if wrong {
		return
	}
	if l == nil {
		c.Integer(0)
		return
	}
	for i := 0; i < l.Len(); i++ {
		if bytes.Equal(l.At(i), argv[3]) {
			if after {
				i++
			}
			l.InsertAt(i, bytes.Clone(argv[4]))
			c.SignalModifiedKey(key)
			c.Notify(command.NotifyList, "linsert", key)
			c.AddDirty(1)
			c.Integer(int64(l.Len()))
			return
		}
	}
	c.Integer(-1)
}

func lposCommand(c command.Ctx, argv [][]byte) {
	var rank int64 = 1
	var count, maxlen int64
	hasCount := false
	for j := 3; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case rstring.EqualFold(argv[j], "rank") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			if v == 0 {
				c.Err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = v
		case rstring.EqualFold(argv[j], "count") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok || v < 0 {
				c.Err("ERR COUNT can't be negative")
				return
			}
			count, hasCount = v, true
		case rstring.EqualFold(argv[j], "maxlen") && more > 0:
			j++
			v, ok := rstring.String2ll(argv[j])
			if !ok || v < 0 {
				c.Err("ERR MAXLEN can't be negative")
				return
			}
			maxlen = v
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	l, wrong := read(c, argv[1])
	if wrong {
		return
	}
	if l == nil {
		if hasCount {
			c.EmptyArray()
		} else {
			c.Null()
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
			c.Null()
		} else {
			c.Integer(out[0])
		}
		return
	}
	c.ArrayLen(len(out))
	for _, i := range out {
		c.Integer(i)
	}
}

func rpoplpushCommand(c command.Ctx, argv [][]byte) { lmove(c, argv[1], argv[2], false, true) }

func lmoveCommand(c command.Ctx, argv [][]byte) {
	var from, to bool // true = left
	for i, a := range argv[3:5] {
		var left bool
		switch {
		case rstring.EqualFold(a, "left"):
			left = true
		case rstring.EqualFold(a, "right"):
		default:
			c.Err(command.ErrSyntax)
			return
		}
		if i == 0 {
			from = left
		} else {
			to = left
		}
	}
	lmove(c, argv[1], argv[2], from, to)
}

// lmove pops from src (left if fromLeft) and pushes onto dst (LMOVE,
// RPOPLPUSH and their blocking forms); it reports whether an element
// moved.
func lmove(c command.Ctx, srcKey, dstKey []byte, fromLeft, toLeft bool) bool {
	src, wrong := write(c, srcKey)
	if wrong {
		return false
	}
	if src == nil {
		c.Null()
		return false
	}
	dst, wrong := write(c, dstKey)
	if wrong {
		return false
	}
	var v []byte
	if fromLeft {
		v = src.PopFront()
	} else {
		v = src.PopBack()
	}
	if dst == nil {
		dst = list.New()
		c.AddKey(dstKey, command.Obj(command.TypeList, dst))
	}
	if toLeft {
		dst.PushFront(v)
	} else {
		dst.PushBack(v)
	}
	c.SignalModifiedKey(dstKey)
	c.Notify(command.NotifyList, pushEvent(toLeft), dstKey)
	c.Bulk(v)
	c.Notify(command.NotifyList, popEvent(fromLeft), srcKey)
	if src.Len() == 0 {
		c.DeleteKey(srcKey)
		c.Notify(command.NotifyGeneric, "del", srcKey)
	}
	c.SignalModifiedKey(srcKey)
	c.AddDirty(1)
	return true
}

// LMPOP (non-blocking), following Redis 7.0's lmpopGenericCommand and
// mpopGenericCommand: it is propagated as LPOP/RPOP key count.

func lmpopCommand(c command.Ctx, argv [][]byte) {
	keys, right, count, ok := command.ParseMpop(c, argv, 1, "left", "right")
	if !ok {
		return
	}
	if !serveLmpop(c, keys, !right, count, false) {
		c.NullArray()
	}
}

// serveLmpop pops up to count elements from the first non-empty list of
// keys; false if none had any. later: serving a blocked client (wrong types
// are skipped, the pop is logged on its own).
func serveLmpop(c command.Ctx, keys [][]byte, head bool, count int64, later bool) bool {
	for _, key := range keys {
		if e, found := c.LookupNoStats(key); !found {
			continue
		} else if e.Type != command.TypeList {
			if later {
				continue
			}
			c.Err(command.ErrWrongType)
			return true
		}
		l, _ := write(c, key)
		n := int(min(count, int64(l.Len())))
		c.ArrayLen(2)
		c.Bulk(key)
		c.ArrayLen(n)
		for i := 0; i < n; i++ {
			if head {
				c.Bulk(l.PopFront())
			} else {
				c.Bulk(l.PopBack())
			}
		}
		c.Notify(command.NotifyList, popEvent(head), key)
		if l.Len() == 0 {
			c.DeleteKey(key)
			c.Notify(command.NotifyGeneric, "del", key)
		}
		c.SignalModifiedKey(key)
		c.AddDirty(int64(n))
		name := "RPOP"
		if head {
			name = "LPOP"
		}
		command.PropagateServed(c, later, []byte(name), bytes.Clone(key), strconv.AppendInt(nil, int64(n), 10))
		return true
	}
	return false
}

// serveBpop serves BLPOP/BRPOP from the first
// non-empty list of keys, logged as LPOP/RPOP key; later is set when it
// serves a blocked client, which skips keys of another type. It reports
// whether it replied.
func serveBpop(c command.Ctx, keys [][]byte, head, later bool) bool {
	for _, key := range keys {
		e, found := c.LookupNoStats(key)
		if !found {
			continue
		}
		if e.Type != command.TypeList {
			if later {
				continue
			}
			c.Err(command.ErrWrongType)
			return true
		}
		l, _ := write(c, key)
		var v []byte
		pop := "LPOP"
		if head {
			v = l.PopFront()
		} else {
			v = l.PopBack()
			pop = "RPOP"
		}
		c.ArrayLen(2)
		c.Bulk(key)
		c.Bulk(v)
		c.Notify(command.NotifyList, popEvent(head), key)
		if l.Len() == 0 {
			c.DeleteKey(key)
			c.Notify(command.NotifyGeneric, "del", key)
		}
		c.SignalModifiedKey(key)
		c.AddDirty(1)
		command.PropagateServed(c, later, []byte(pop), bytes.Clone(key))
		return true
	}
	return false
}
