package server

import "github.com/aofserver/aofserver/rstring"

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
	c.mstate = append(c.mstate, queuedCmd{cmd: cmd, argv: rstring.CloneArgv(argv)})
}

func (c *client) discardTransaction() {
	c.mstate = nil
	c.flags &^= flagMulti | flagDirtyCAS | flagDirtyExec
	c.srv.unwatchAll(c)
}

// multiFlags returns the union of the queued commands' flags and of their
// complements (Redis mstate.cmd_flags, cmd_inv_flags).
func (c *client) multiFlags() (all, inv uint64) {
	for _, q := range c.mstate {
		all |= q.cmd.flags
		inv |= ^q.cmd.flags
	}
	return all, inv
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
		for _, w := range c.watched {
			if !w.expired && s.keyIsExpired(w.db, w.key) {
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
	// A client that killed itself (CLIENT KILL) still runs the rest, but
	// as Redis (prepareClientToWrite refusing a closing client) it gets no
	// more replies: its EXEC reply is cut short and the connection closed.
	cut := -1
	for _, q := range queued {
		// the rules may have changed since the command was queued
		if res, pos := s.aclCheck(c.user, q.cmd, q.argv); res != aclOK {
			s.aclLogDenial(c.user, c, res, aclCtxMulti, q.cmd, q.argv, pos)
			c.err("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + aclExecReason(res))
			continue
		}
		if q.cmd.flags&cmdWrite != 0 {
			if msg := s.writeRefusal(); msg != "" {
				c.err(msg)
				continue
			}
		}
		s.call(c, q.cmd, q.argv)
		if cut < 0 && c.flags&(flagCloseAfterReply|flagCloseASAP) != 0 {
			cut = len(c.out)
		}
	}
	if cut >= 0 {
		c.out = c.out[:cut]
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
		c.watched = append(c.watched, watchedKey{db: c.db, key: key, expired: s.keyIsExpired(c.db, key)})
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

// keyIsExpired reports whether key has a TTL that has passed, without
// deleting it (Redis keyIsExpired; nothing expires while loading).
func (s *Server) keyIsExpired(db *DB, key string) bool {
	t := db.expireAt(key)
	return t >= 0 && !s.loading && t <= s.nowMs()
}

// watchedKey returns c's entry for key in db (it is watching it).
func (c *client) watchedKey(db *DB, key string) *watchedKey {
	for i := range c.watched {
		if w := &c.watched[i]; w.db == db && w.key == key {
			return w
		}
	}
	return nil
}

// touchAllWatched invalidates the WATCHes on emptied's keys when it is
// flushed (replacedWith nil) or, for SWAPDB, gets replacedWith's content
// (Redis 7.0 touchAllWatchedKeysInDb, called before the swap). A watched
// key is touched when it exists on either side, except when nothing
// changes logically: a key already stale at WATCH time that goes away or
// is replaced by another stale one, or a missing key replaced by a stale
// one (then watched as stale).
func (s *Server) touchAllWatched(emptied, replacedWith *DB) {
	for k, cs := range emptied.watched {
		_, inEmptied := emptied.keys.Get(k)
		inReplaced := false
		if replacedWith != nil {
			_, inReplaced = replacedWith.keys.Get(k)
		}
		if !inEmptied && !inReplaced {
			continue
		}
		for _, c := range cs {
			w := c.watchedKey(emptied, k)
			if w == nil {
				continue
			}
			if w.expired {
				if !inReplaced {
					w.expired = false // a stale key deleted: no change
					continue
				}
				if s.keyIsExpired(replacedWith, k) {
					continue // stale before, stale after
				}
			} else if !inEmptied && s.keyIsExpired(replacedWith, k) {
				w.expired = true
				continue
			}
			c.flags |= flagDirtyCAS
		}
	}
}

// aclExecReason is execCommand's reason for a command the ACL rules no
// longer allow.
func aclExecReason(res int) string {
	switch res {
	case aclDeniedCmd:
		return "no permission to execute the command or subcommand"
	case aclDeniedKey:
		return "no permission to touch the specified keys"
	case aclDeniedChannel:
		return "no permission to access one of the channels used as arguments"
	}
	return "no permission"
}
