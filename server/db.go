package server

import (
	"github.com/aofserver/aofserver/dict"
)

// DB is one logical database (SELECT n). It is owned by the executor: every
// method must be called with Server.mu held.
type DB struct {
	id      int
	keys    *dict.Dict[entry]
	expires *dict.Dict[int64] // absolute unix time in ms
	// watched maps a key to the clients that WATCH it in this DB.
	watched map[string][]*client
	// expireCursor is where active expiry resumes scanning expires.
	expireCursor uint64
	// memBytes is the bytes of its keys and values as used memory counts
	// them (evict.go).
	memBytes int64
}

func newDB(id int) *DB {
	return &DB{id: id, keys: dict.New[entry](0), expires: dict.New[int64](0), watched: map[string][]*client{}}
}

// bstr views b as a string without copying, for lookups only: the result
// must never be stored.
func bstr(b []byte) string { return dict.View(b) }

func (db *DB) size() int { return db.keys.Len() }

// expireAt returns the key's absolute expire time in ms, or -1.
func (db *DB) expireAt(key string) int64 {
	if db.expires.Len() == 0 {
		return -1
	}
	if t, ok := db.expires.Get(key); ok {
		return t
	}
	return -1
}
