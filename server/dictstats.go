package server

import (
	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/zset"
)

// debugHTStats is DEBUG HTSTATS <dbid>.
func debugHTStats(c *client, argv [][]byte) {
	s := c.srv
	id, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if id < 0 || id >= int64(len(s.dbs)) {
		c.err("ERR Out of range database")
		return
	}
	db := s.dbs[id]
	c.verbatim("txt", []byte("[Dictionary HT]\n"+db.keys.Stats()+"[Expires HT]\n"+db.expires.Stats()))
}

// debugHTStatsKey is DEBUG HTSTATS-KEY <key>: the table of a value
// encoded as one.
func debugHTStatsKey(c *client, argv [][]byte) {
	e, ok := c.db.keys.Get(bstr(argv[2]))
	if !ok {
		c.err("ERR no such key")
		return
	}
	var st string
	switch e.typ() {
	case typSet:
		if d := (*set.Set)(e.ptr).Dict(); d != nil {
			st = d.Stats()
		}
	case typZSet:
		if d := (*zset.Set)(e.ptr).Dict(); d != nil {
			st = d.Stats()
		}
	case typHash:
		if d := (*hash.Hash)(e.ptr).Dict(); d != nil {
			st = d.Stats()
		}
	}
	if st == "" {
		c.err("ERR The value stored at the specified key is not represented using an hash table")
		return
	}
	c.verbatim("txt", []byte(st))
}
