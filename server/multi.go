package server

func init() {
	t := func(name string, arity int, flags uint64, first, last int, proc cmdProc, summary, since string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: 1, proc: proc, group: "transactions", summary: summary, since: since, acl: []string{"@transaction"}}
	}
	register(
		t("multi", 1, cmdNoScript|cmdLoading|cmdStale|cmdFast|cmdAllowBusy, 0, 0, multiCommand, "Mark the start of a transaction block", "1.2.0"),
		t("exec", 1, cmdNoScript|cmdLoading|cmdStale|cmdSkipSlowlog|cmdNoPropagate, 0, 0, execCommand, "Execute all commands issued after MULTI", "1.2.0"),
		t("discard", 1, cmdNoScript|cmdLoading|cmdStale|cmdFast|cmdAllowBusy, 0, 0, discardCommand, "Discard all commands issued after MULTI", "2.0.0"),
		t("watch", -2, cmdNoScript|cmdLoading|cmdStale|cmdFast|cmdAllowBusy, 1, -1, watchCommand, "Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0"),
		t("unwatch", 1, cmdNoScript|cmdLoading|cmdStale|cmdFast|cmdAllowBusy, 0, 0, unwatchCommand, "Forget about all watched keys", "2.2.0"),
	)
}

func multiCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti != 0 {
		c.err("ERR MULTI calls can not be nested")
		return
	}
	c.flags |= flagMulti
	c.ok()
}

func (c *client) queueMulti(cmd *command, argv [][]byte) {
	c.mstate = append(c.mstate, queuedCmd{cmd: cmd, argv: cloneArgv(argv)})
}

func (c *client) discardTransaction() {
	c.mstate = nil
	c.flags &^= flagMulti | flagDirtyCAS | flagDirtyExec
	c.srv.unwatchAll(c)
}

func (s *Server) multiHasWrite(c *client) bool {
	for _, q := range c.mstate {
		if q.cmd.flags&cmdWrite != 0 {
			return true
		}
	}
	return false
}

func discardCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti == 0 {
		c.err("ERR DISCARD without MULTI")
		return
	}
	c.discardTransaction()
	c.ok()
}

func execCommand(c *client, argv [][]byte) {
	s := c.srv
	if c.flags&flagMulti == 0 {
		c.err("ERR EXEC without MULTI")
		return
	}
	if c.flags&flagDirtyExec != 0 {
		c.discardTransaction()
		c.err("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	// WATCHed keys that expired since WATCH count as modified (Redis
	// isWatchedKeyExpired).
	if c.flags&flagDirtyCAS == 0 {
		now := s.nowMs()
		for _, w := range c.watched {
			if w.expired {
				continue
			}
			if t := w.db.expireAt(w.key); t >= 0 && t <= now {
				c.flags |= flagDirtyCAS
				break
			}
		}
	}
	if c.flags&flagDirtyCAS != 0 {
		c.discardTransaction()
		c.nullArray()
		return
	}
	queued := c.mstate
	s.unwatchAll(c)
	c.mstate = nil
	c.flags &^= flagMulti | flagDirtyCAS | flagDirtyExec
	c.arrayLen(len(queued))
	for _, q := range queued {
		if q.cmd.flags&cmdWrite != 0 {
			if msg := s.writeRefusal(); msg != "" {
				c.err(msg)
				continue
			}
		}
		s.call(c, q.cmd, q.argv)
	}
}

func watchCommand(c *client, argv [][]byte) {
	if c.flags&flagMulti != 0 {
		c.err("ERR WATCH inside MULTI is not allowed")
		return
	}
	s := c.srv
	for _, k := range argv[1:] {
		key := string(k)
		dup := false
		for _, w := range c.watched {
			if w.db == c.db && w.key == key {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		expired := false
		if t := c.db.expireAt(key); t >= 0 && t <= s.nowMs() {
			expired = true
		}
		c.watched = append(c.watched, watchedKey{db: c.db, key: key, expired: expired})
		c.db.watched[key] = append(c.db.watched[key], c)
	}
	c.ok()
}

func unwatchCommand(c *client, argv [][]byte) {
	c.srv.unwatchAll(c)
	c.flags &^= flagDirtyCAS
	c.ok()
}

func (s *Server) unwatchAll(c *client) {
	for _, w := range c.watched {
		cs := w.db.watched[w.key]
		for i, x := range cs {
			if x == c {
				cs = append(cs[:i], cs[i+1:]...)
				break
			}
		}
		if len(cs) == 0 {
			delete(w.db.watched, w.key)
		} else {
			w.db.watched[w.key] = cs
		}
	}
	c.watched = nil
}

// touchAllWatched marks every client watching a key of db as dirty
// (FLUSHDB, FLUSHALL, SWAPDB). Redis only touches keys that exist, or
// existed; we are conservative only for keys that exist.
func (s *Server) touchAllWatched(db *DB) {
	for k, cs := range db.watched {
		if _, ok := db.keys.Get(k); !ok {
			continue
		}
		for _, c := range cs {
			c.flags |= flagDirtyCAS
		}
	}
}
