package server

import (
	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/stream"
	"github.com/aofserver/aofserver/zset"
)

// Lazy freeing as Redis 7.0's lazyfree.c sees it from outside: Go's
// collector frees every value, so nothing is ever pending
// (lazyfree_pending_objects stays 0), but lazyfreed_objects counts what
// Redis would have handed to its background thread: a value deleted
// asynchronously whose free effort is above LAZYFREE_THRESHOLD, and every
// key of a database flushed asynchronously.

const lazyfreeThreshold = 64 // LAZYFREE_THRESHOLD

// lazyfreeEffort is lazyfreeGetFreeEffort: the number of allocations
// freeing v takes, counted only as far as max.
func (s *Server) lazyfreeEffort(v entry, max int) int {
	switch v.typ() {
	case typList:
		l := (*list.List)(v.ptr)
		return rdb.QuicklistNodes(l.Len(), l.At, s.rdbLimits(), max)
	case typSet:
		if st := (*set.Set)(v.ptr); st.Encoding() == "hashtable" {
			return st.Len()
		}
	case typZSet:
		if z := (*zset.Set)(v.ptr); z.Skiplist() {
			return z.Len()
		}
	case typHash:
		if h := (*hash.Hash)(v.ptr); h.Hashtable() {
			return h.Len()
		}
	case typStream:
		st := (*stream.Stream)(v.ptr)
		// One allocation per radix tree node (we count one per listpack
		// node plus the root, an estimate of rax->numnodes), and per
		// group the first group's PEL size plus one.
		effort := len(st.Nodes) + 1
		if len(st.Groups) > 0 {
			var first *stream.CG
			for name, g := range st.Groups {
				if first == nil || name < string(first.Name) {
					first = g
				}
			}
			effort += len(st.Groups) * (1 + first.Pel.Len())
		}
		return effort
	}
	return 1
}

// freeValue accounts for dropping v, a value just removed or replaced:
// asynchronously (lazy) if the lazyfree option of the deletion says so.
func (s *Server) freeValue(v entry, lazy bool) {
	if lazy && s.lazyfreeEffort(v, lazyfreeThreshold) > lazyfreeThreshold {
		s.stats.lazyfreedObjects++
	}
}

// deleteKeyLazy is deleteKey for a deletion Redis makes with
// dbAsyncDelete when lazy is set.
func (s *Server) deleteKeyLazy(db *DB, key []byte, lazy bool) bool {
	if !lazy {
		return s.deleteKey(db, key)
	}
	v, ok := db.keys.Get(bstr(key))
	if !ok {
		return false
	}
	s.deleteKey(db, key)
	s.freeValue(v, true)
	return true
}

// flushedLazily accounts for n keys of databases emptied by FLUSHDB or
// FLUSHALL (emptyDbAsync hands each table over whole).
func (s *Server) flushedLazily(n int, async bool) {
	if async {
		s.stats.lazyfreedObjects += int64(n)
	}
}
