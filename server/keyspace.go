package server

// Keyspace access. Every read goes through lookupRead and every write
// through lookupWrite/setKey/deleteKey, so that lazy expiry, keyspace stats,
// the LRU clock and the point-in-time snapshot hook (which must see a value
// before it changes) are applied in one place. All run under Server.mu.

// expireIfNeeded deletes key if its TTL has passed and propagates the DEL,
// as Redis's expireIfNeeded on a master. It reports whether the key is
// (now) absent because of expiry.
func (s *Server) expireIfNeeded(db *DB, key []byte) bool {
	when := db.expireAt(bstr(key))
	if when < 0 {
		return false
	}
	if s.loading {
		return false // Redis keeps expired keys while loading; the log decides.
	}
	if when > s.expireNow() {
		return false
	}
	if replica, expired := s.replicaKeepsExpired(); replica {
		return expired // the master deletes it (replication_replica.go)
	}
	if s.pauseActive() || s.failoverPaused() {
		return true // paused: logically expired, kept (Redis 7.0)
	}
	s.deleteExpired(db, key)
	return true
}

// deleteExpired removes an expired key and logs "DEL key" (or UNLINK) to the
// AOF, as a separate propagated op.
func (s *Server) deleteExpired(db *DB, key []byte) {
	if s.pauseActive() || s.failoverPaused() {
		return // CLIENT PAUSE or FAILOVER: no key expires meanwhile
	}
	s.deleteKeyLazy(db, key, s.cfg.LazyfreeLazyExpire)
	s.stats.expiredKeys++
	cmd := "DEL"
	if s.cfg.LazyfreeLazyExpire {
		cmd = "UNLINK"
	}
	s.propagate(db.id, [][]byte{[]byte(cmd), cloneBytes(key)})
	s.notify(notifyExpired, "expired", key, db.id)
	s.signalModifiedKeyBy(nil, db, key)
}

// lookupRead returns the live value of key for a read command.
func (s *Server) lookupRead(c *client, key []byte) (entry, bool) {
	db := c.db
	if s.expireIfNeeded(db, key) {
		s.stats.keyspaceMisses++
		s.keymiss(c, key)
		return entry{}, false
	}
	p := db.keys.GetPtr(bstr(key))
	if p == nil {
		s.stats.keyspaceMisses++
		s.keymiss(c, key)
		return entry{}, false
	}
	s.stats.keyspaceHits++
	if !s.noTouch(c) {
		s.touchAccess(p)
	}
	return *p, true
}

// lookupWrite returns a pointer to key's value for a command that may
// modify it in place. The snapshot hook runs first.
func (s *Server) lookupWrite(c *client, key []byte) *entry {
	return s.lookupWriteDB(c.db, key)
}

func (s *Server) lookupWriteDB(db *DB, key []byte) *entry {
	s.expireIfNeeded(db, key)
	p := db.keys.GetPtr(bstr(key))
	if p == nil {
		return nil
	}
	if s.snap != nil && !s.snap.visited(*p) {
		s.snap.capture(db, bstr(key), p)
	}
	s.touchAccess(p)
	s.memTouch(db, key, p)
	return p
}

// exists reports whether key is live, without touching stats or LRU.
func (s *Server) exists(db *DB, key []byte) bool {
	if s.expireIfNeeded(db, key) {
		return false
	}
	_, ok := db.keys.Get(bstr(key))
	return ok
}

// beforeModify hands the current value of key to an active snapshot that
// has not saved it yet.
func (s *Server) beforeModify(db *DB, key string) {
	if s.snap == nil {
		return
	}
	if p := db.keys.GetPtr(key); p != nil && !s.snap.visited(*p) {
		s.snap.capture(db, key, p)
	}
}

// setKey stores v under key, replacing any previous value; keepTTL keeps an
// existing expire (SET KEEPTTL), otherwise it is removed.
func (s *Server) setKey(db *DB, key []byte, v entry, keepTTL bool) {
	// Redis's setKey looks the key up for writing: one found expired is
	// deleted (and its DEL logged) before the new value goes in.
	s.expireIfNeeded(db, key)
	k := bstr(key)
	v.setSnapMark(s.snapParity)
	if p := db.keys.GetPtr(k); p != nil {
		if s.snap != nil && !s.snap.visited(*p) {
			s.snap.capture(db, k, p)
		}
		if s.blocking.n > 0 && p.typ() == typStream {
			s.signalKeyAsReady(db, key) // a replaced stream, as a deleted one
		}
		s.inheritAccess(&v, p)
		s.memReplace(db, key, *p, &v)
		s.freeValue(*p, s.cfg.LazyfreeLazyServerDel) // dbSetValue's overwrite
		if v.ptr != p.ptr {
			s.recycleValue(*p) // callers do not use the old value after (SET GET clones it)
		}
		*p = v
	} else {
		s.initAccess(&v)
		s.memAdd(db, key, &v)
		db.keys.Set(string(key), v)
		s.signalCreated(db, key, v)
		s.notify(notifyNew, "new", key, db.id)
	}
	if !keepTTL && db.expires.Len() > 0 {
		db.expires.Delete(k)
	}
}

// addKey stores v under a key known to be absent.
func (s *Server) addKey(db *DB, key []byte, v entry) {
	s.initAccess(&v)
	v.setSnapMark(s.snapParity)
	s.memAdd(db, key, &v)
	db.keys.Set(string(key), v)
	s.signalCreated(db, key, v)
	s.notify(notifyNew, "new", key, db.id)
}

// signalCreated signals a new key of a type clients block on (Redis's
// dbAdd): a list, sorted set or stream may serve them.
func (s *Server) signalCreated(db *DB, key []byte, v entry) {
	if s.blocking.n == 0 {
		return
	}
	if t := v.typ(); t == typList || t == typZSet || t == typStream {
		s.signalKeyAsReady(db, key)
	}
}

// removeKey deletes key and its TTL. The snapshot hook must already have
// run (beforeModify).
func (s *Server) removeKey(db *DB, key string) bool {
	_, ok := s.removeKeyValue(db, key)
	return ok
}

// removeKeyValue is removeKey returning the value it removed.
func (s *Server) removeKeyValue(db *DB, key string) (entry, bool) {
	old, ok := db.keys.Delete(key)
	if !ok {
		return old, false
	}
	s.memRemove(db, key, old)
	if s.blocking.n > 0 && old.typ() == typStream {
		// XREADGROUP waiters are answered that the stream is gone
		// (Redis's signalDeletedKeyAsReady).
		s.signalKeyAsReady(db, []byte(key))
	}
	if db.expires.Len() > 0 {
		db.expires.Delete(key)
	}
	return old, true
}

// deleteKey removes a live or expired key; it reports whether a key was
// removed.
func (s *Server) deleteKey(db *DB, key []byte) bool {
	s.beforeModify(db, bstr(key))
	return s.removeKey(db, bstr(key))
}

// setExpire sets key's absolute expire time in ms. The key must exist.
func (s *Server) setExpire(db *DB, key []byte, whenMs int64) {
	s.beforeModify(db, bstr(key))
	if p := db.expires.GetPtr(bstr(key)); p != nil {
		*p = whenMs
		return
	}
	db.expires.Set(string(key), whenMs)
}

// removeExpire drops key's TTL; it reports whether there was one.
func (s *Server) removeExpire(db *DB, key []byte) bool {
	if db.expires.Len() == 0 {
		return false
	}
	if _, ok := db.expires.Get(bstr(key)); !ok {
		return false
	}
	s.beforeModify(db, bstr(key))
	db.expires.Delete(bstr(key))
	return true
}

// signalModifiedKey invalidates WATCHes on key (Redis's
// signalModifiedKey/touchWatchedKey).
func (s *Server) signalModifiedKey(db *DB, key []byte) {
	s.signalModifiedKeyBy(s.curClient, db, key)
}

// signalModifiedKeyBy is signalModifiedKey naming the client that made the
// change (nil for an expiry): client-side caching's NOLOOP skips its own.
func (s *Server) signalModifiedKeyBy(by *client, db *DB, key []byte) {
	if s.tracking.Active() {
		s.tracking.Invalidate(peer(by), key, true)
	}
	if len(db.watched) == 0 {
		return
	}
	cs, ok := db.watched[bstr(key)]
	if !ok {
		return
	}
	_, present := db.keys.Get(bstr(key))
	for _, c := range cs {
		for i := range c.watched {
			w := &c.watched[i]
			if w.db != db || w.key != string(key) {
				continue
			}
			if w.expired {
				// Deleting a key that was already expired at WATCH time
				// is logically no change.
				w.expired = false
				if !present {
					goto next
				}
			}
			break
		}
		c.flags |= flagDirtyCAS
	next:
	}
}

func cloneBytes(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}
