package server

import (
	seam "github.com/aofserver/aofserver/command"
)

// LMPOP (non-blocking), following Redis 7.0's lmpopGenericCommand and
// mpopGenericCommand: it is propagated as LPOP/RPOP key count.

func init() {
	register(&command{name: "lmpop", arity: -4, flags: cmdWrite, firstKey: 2, lastKey: 2, step: 1, proc: lmpopCommand,
		group: "list", summary: "Pop elements from a list", since: "7.0.0", acl: []string{"@list", "@write", "@slow"}})
}

func lmpopCommand(c *client, argv [][]byte) {
	keys, right, count, ok := seam.ParseMpop(c, argv, 1, "left", "right")
	if !ok {
		return
	}
	if !serveLmpop(c, keys, !right, count, false) {
		c.nullArray()
	}
}

// serveLmpop pops up to count elements from the first non-empty list of
// keys; false if none had any. later: serving a blocked client (wrong types
// are skipped, the pop is logged on its own).
func serveLmpop(c *client, keys [][]byte, head bool, count int64, later bool) bool {
	s := c.srv
	for _, key := range keys {
		if e, found := s.lookupReadNoStats(c, key); !found {
			continue
		} else if e.typ() != typList {
			if later {
				continue
			}
			c.errWrongType()
			return true
		}
		l, _ := s.listWrite(c, key)
		n := int(min(count, int64(l.Len())))
		c.arrayLen(2)
		c.bulk(key)
		c.arrayLen(n)
		for i := 0; i < n; i++ {
			if head {
				c.bulk(l.PopFront())
			} else {
				c.bulk(l.PopBack())
			}
		}
		s.notify(notifyList, popEvent(head), key, c.db.id)
		if l.Len() == 0 {
			s.deleteKey(c.db, key)
			s.notify(notifyGeneric, "del", key, c.db.id)
		}
		s.signalModifiedKey(c.db, key)
		s.dirty += int64(n)
		name := "RPOP"
		if head {
			name = "LPOP"
		}
		seam.PropagateServed(c, later, []byte(name), cloneBytes(key), formatInt(int64(n)))
		return true
	}
	return false
}
