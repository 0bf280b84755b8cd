package command

// KeyOps is what the generic key commands (DEL, EXISTS, TYPE, RENAME,
// EXPIRE, TTL, ...) need of the keyspace besides values: liveness without
// statistics, TTLs, lazy deletion, and moving a value of any type (a
// string's never crosses the seam).
type KeyOps interface {
	// Exists reports whether key is live, expiring it if it is due, with
	// no statistics, LRU touch or keymiss event.
	Exists(key []byte) bool
	// LookupNoTouch is LookupRead leaving the LRU clock alone (Redis's
	// LOOKUP_NOTOUCH: EXISTS, TYPE, TTL); a miss notifies keymiss.
	LookupNoTouch(key []byte) (Value, bool)
	// Touch updates key's LRU/LFU clock as an access does and reports
	// whether it is live; a miss notifies keymiss (TOUCH).
	Touch(key []byte) bool
	// ExpireTime is key's expire time in Unix milliseconds, -1 for none.
	ExpireTime(key []byte) int64
	// SetExpire sets key's expire time (Unix ms); key exists.
	SetExpire(key []byte, whenMs int64)
	// Persist removes key's expire time; it reports whether it had one.
	Persist(key []byte) bool
	// DeleteLazy deletes key if it is live (one that is due is expired
	// instead, as Redis's DEL does), freeing its value as lazyfree does
	// when lazy; it reports whether it deleted a key.
	DeleteLazy(key []byte, lazy bool) bool
	// MoveKey gives src's value and expire time, src being live, to dst,
	// which is absent (RENAME).
	MoveKey(src, dst []byte)
}

var typeNames = [...]string{"string", "list", "set", "zset", "hash", "stream"}

// String is the type's name as TYPE replies it.
func (t Type) String() string { return typeNames[t] }
