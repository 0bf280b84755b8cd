package server

import (
	"fmt"
	"strings"
)

const dictStatsVectLen = 50 // DICT_STATS_VECTLEN

// stats is Redis 7.0's dictGetStats: each table (the second one while
// rehashing), its size, element count and chains (their lengths follow
// our hash function, not Redis's siphash).
func (d *dict[V]) stats() string {
	var sb strings.Builder
	d.statsHt(&sb, 0)
	if d.rehashing() {
		d.statsHt(&sb, 1)
	}
	return sb.String()
}

func (d *dict[V]) statsHt(sb *strings.Builder, i int) {
	t := &d.ht[i]
	name := "main hash table"
	if i == 1 {
		name = "rehashing target"
	}
	if t.used == 0 {
		fmt.Fprintf(sb, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n", i, name)
		return
	}
	size := len(t.buckets)
	var clvector [dictStatsVectLen]int
	slots, maxChain, totChain := 0, 0, 0
	for _, ref := range t.buckets {
		if ref == 0 {
			clvector[0]++
			continue
		}
		slots++
		n := 0
		for r := ref; r != 0; r = t.ar.node(r).next {
			n++
		}
		clvector[min(n, dictStatsVectLen-1)]++
		maxChain = max(maxChain, n)
		totChain += n
	}
	fmt.Fprintf(sb, "Hash table %d stats (%s):\n table size: %d\n number of elements: %d\n different slots: %d\n max chain length: %d\n avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n Chain length distribution:\n",
		i, name, size, t.used, slots, maxChain, float64(float32(totChain)/float32(slots)), float64(float32(t.used)/float32(slots)))
	for l := 0; l < dictStatsVectLen-1; l++ {
		if clvector[l] == 0 {
			continue
		}
		fmt.Fprintf(sb, "   %d: %d (%.02f%%)\n", l, clvector[l], float64(float32(clvector[l])/float32(size)*100))
	}
}

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
	c.verbatim("txt", []byte("[Dictionary HT]\n"+db.keys.stats()+"[Expires HT]\n"+db.expires.stats()))
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
		if d := (*setObj)(e.ptr).dict; d != nil {
			st = d.stats()
		}
	case typZSet:
		if d := (*zsetObj)(e.ptr).dict; d != nil {
			st = d.stats()
		}
	case typHash:
		if d := (*hashObj)(e.ptr).dict; d != nil {
			st = d.stats()
		}
	}
	if st == "" {
		c.err("ERR The value stored at the specified key is not represented using an hash table")
		return
	}
	c.verbatim("txt", []byte(st))
}
