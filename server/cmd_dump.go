package server

import (
	"errors"
	"math"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/rstring"
)

func init() {
	register(
		&command{name: "dump", arity: 2, flags: cmdReadonly, firstKey: 1, lastKey: 1, step: 1, proc: dumpCommand, group: "generic", summary: "Return a serialized version of the value stored at the specified key.", since: "2.6.0", acl: []string{"@keyspace", "@read", "@slow"}},
		&command{name: "restore", arity: -4, flags: cmdWrite | cmdDenyOOM, firstKey: 1, lastKey: 1, step: 1, proc: restoreCommand, group: "generic", summary: "Create a key using the provided serialized value, previously obtained using DUMP.", since: "2.6.0", acl: []string{"@keyspace", "@write", "@slow", "@dangerous"}},
	)
}

func dumpCommand(c *client, argv [][]byte) {
	s := c.srv
	e, ok := s.lookupRead(c, argv[1])
	if !ok {
		c.nullBulk()
		return
	}
	p := rdb.DumpPayload(objToRDB(e), rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Checksum: true, Limits: s.rdbLimits()})
	c.bulk(p)
}

// restoreCommand follows Redis 7.0's restoreCommand, including its
// propagation: a relative TTL is logged as an absolute one with ABSTTL.
func restoreCommand(c *client, argv [][]byte) {
	s := c.srv
	replace, absttl := false, false
	var lfu int64 = -1
	var idle int64 = -1
	for j := 4; j < len(argv); j++ {
		more := len(argv) - j - 1
		switch {
		case eqFold(argv[j], "replace"):
			replace = true
		case eqFold(argv[j], "absttl"):
			absttl = true
		case eqFold(argv[j], "idletime") && more >= 1 && lfu == -1:
			v, ok := parseInt(argv[j+1])
			if !ok {
				c.errNotInt()
				return
			}
			if v < 0 {
				c.err("ERR Invalid IDLETIME value, must be >= 0")
				return
			}
			idle = v
			j++
		case eqFold(argv[j], "freq") && more >= 1 && idle == -1:
			v, ok := parseInt(argv[j+1])
			if !ok {
				c.errNotInt()
				return
			}
			if v < 0 || v > 255 {
				c.err("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return
			}
			lfu = v
			j++
		default:
			c.errSyntax()
			return
		}
	}
	key := argv[1]
	if !replace && s.exists(c.db, key) {
		c.err("BUSYKEY Target key name already exists.")
		return
	}
	ttl, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if ttl < 0 {
		c.err("ERR Invalid TTL value, must be >= 0")
		return
	}
	lim := serverLimits(s)
	v, err := rdb.ParseDumpPayloadWith(argv[3], rdb.PayloadOptions{Deep: s.sanitizePayload(), Limits: &lim, SkipChecksum: s.dbg.skipChecksum})
	if err != nil {
		// Redis answers module values and types it does not know (RDB 11
		// and later) with the same Bad data format.
		if errors.Is(err, rdb.ErrDumpVersionOrChecksum) {
			c.err(err.Error())
		} else {
			c.err(rdb.ErrBadDataFormat.Error())
		}
		return
	}
	deleted := false
	if replace {
		deleted = s.deleteKeyLazy(c.db, key, s.cfg.LazyfreeLazyServerDel)
	}
	if ttl > 0 && !absttl {
		now := s.nowMs()
		if ttl > math.MaxInt64-now {
			ttl = math.MaxInt64
		} else {
			ttl += now
		}
	}
	if ttl > 0 && ttl <= s.nowMs() && !s.loading {
		// Already expired: nothing is created.
		if deleted {
			s.dirty++
			s.signalModifiedKey(c.db, key)
			s.notify(notifyGeneric, "del", key, c.db.id)
			name := "DEL"
			if s.cfg.LazyfreeLazyServerDel {
				name = "UNLINK"
			}
			c.rewriteArgv([]byte(name), cloneBytes(key))
		}
		c.ok()
		return
	}
	s.addKey(c.db, key, s.objFromRDB(v))
	if ttl > 0 {
		s.setExpire(c.db, key, ttl)
	}
	s.setLRUOrLFU(c.db, key, lfu, idle)
	s.dirty++
	s.signalModifiedKey(c.db, key)
	s.notify(notifyGeneric, "restore", key, c.db.id)
	if ttl > 0 && !absttl {
		out := rstring.CloneArgv(argv)
		out[2] = formatInt(ttl)
		out = append(out, []byte("ABSTTL"))
		c.rewriteArgv(out...)
	}
	c.ok()
}

// sanitizePayload reports whether a RESTORE now gets Redis's deep payload
// checks: always under sanitize-dump-payload yes; under clients, for
// normal clients only, not while loading (the AOF's commands), as Redis's
// rdbLoadObject decides.
func (s *Server) sanitizePayload() bool {
	switch s.cfg.SanitizeDumpPayload {
	case "yes":
		return true
	case "clients":
		return !s.loading
	}
	return false
}
