package command

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

// PropagateServed logs a pop: as the command's own form when it ran at
// once, or as a separate op when it served a blocked client (later).
func PropagateServed(c Ctx, later bool, argv ...[]byte) {
	if later {
		c.Propagate(argv)
	} else {
		c.RewriteArgv(argv...)
	}
}
