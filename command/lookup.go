package command

import (
	"math"

	"github.com/aofserver/aofserver/rstring"
)

// ReadTyped returns key's value of type t (whose Go type is T) for a read,
// nil if absent; wrong reports that WRONGTYPE was replied.
func ReadTyped[T any](c Ctx, key []byte, t Type) (o *T, wrong bool) {
	v, ok := c.LookupRead(key)
	return typed[T](c, v, ok, t)
}

// WriteTyped is ReadTyped for a command that may change the value in place.
func WriteTyped[T any](c Ctx, key []byte, t Type) (o *T, wrong bool) {
	v, ok := c.LookupWrite(key)
	return typed[T](c, v, ok, t)
}

func typed[T any](c Ctx, v Value, ok bool, t Type) (*T, bool) {
	if !ok {
		return nil, false
	}
	if v.Type != t {
		c.Err(ErrWrongType)
		return nil, true
	}
	return (*T)(v.Ptr), false
}

// MemberRemover is a collection members are deleted from (sets, sorted
// sets, hashes).
type MemberRemover interface {
	Remove(member []byte) bool
	Len() int
}

// RemoveMembers is SREM, ZREM and HDEL on the existing value o at key: it
// deletes members, deletes the key once it is empty (Redis stops there),
// signals and notifies, and replies with how many it deleted.
func RemoveMembers(c Ctx, key []byte, o MemberRemover, members [][]byte, class int, event string) {
	deleted := 0
	removed := false
	for _, m := range members {
		if o.Remove(m) {
			deleted++
			if o.Len() == 0 {
				c.DeleteKey(key)
				removed = true
				break
			}
		}
	}
	if deleted > 0 {
		c.AddDirty(int64(deleted))
		c.SignalModifiedKey(key)
		c.Notify(class, event, key)
		if removed {
			c.Notify(NotifyGeneric, "del", key)
		}
	}
	c.Integer(int64(deleted))
}

// ParseRandCount parses the "count [WITH...]" tail of HRANDFIELD and
// ZRANDMEMBER with Redis's checks; ok=false after replying an error.
func ParseRandCount(c Ctx, argv [][]byte, with string) (count int64, withPairs, ok bool) {
	l, valid := rstring.String2ll(argv[2])
	if !valid {
		c.Err(ErrNotInt)
		return 0, false, false
	}
	if l == math.MinInt64 {
		c.Err(ErrLongRange)
		return 0, false, false
	}
	if len(argv) > 4 || (len(argv) == 4 && !rstring.EqualFold(argv[3], with)) {
		c.Err(ErrSyntax)
		return 0, false, false
	}
	if len(argv) == 4 {
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			c.Err("ERR value is out of range")
			return 0, false, false
		}
		return l, true, true
	}
	return l, false, true
}
