package server

import (
	"unsafe"

	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/stream"
	"github.com/aofserver/aofserver/zset"

	"github.com/aofserver/aofserver/command/streamcmd"
)

// Type-generic operations on entries. Collections implement encoding,
// length, clone, memUsage and toRDB in t_*.go.

func objEncoding(e entry) string {
	switch e.typ() {
	case typString:
		return stringEncoding(e)
	case typList:
		return (*list.List)(e.ptr).Encoding()
	case typSet:
		return (*set.Set)(e.ptr).Encoding()
	case typZSet:
		return (*zset.Set)(e.ptr).Encoding()
	case typHash:
		return (*hash.Hash)(e.ptr).Encoding()
	case typStream:
		return (*stream.Stream)(e.ptr).Encoding()
	}
	return "unknown"
}

// objClone deep-copies a value (COPY, MOVE keeps the original).
func objClone(e entry) entry {
	var out entry
	switch e.typ() {
	case typString:
		if rs := e.rawString(); rs != nil {
			out = newRawStringEntry(cloneBytes(rs.b))
		} else {
			out = newStringEntry(e.str())
			out.meta |= e.meta & metaNoIntBit // COPY keeps an INCRBYFLOAT "embstr"
			// dupStringObject: a shared integer's copy is an object of
			// its own (refcount 1).
			out.meta |= metaUnsharedBit
		}
	case typList:
		out = newObjEntry(typList, unsafe.Pointer((*list.List)(e.ptr).Clone()))
	case typSet:
		out = newObjEntry(typSet, unsafe.Pointer((*set.Set)(e.ptr).Clone()))
	case typZSet:
		out = newObjEntry(typZSet, unsafe.Pointer((*zset.Set)(e.ptr).Clone()))
	case typHash:
		out = newObjEntry(typHash, unsafe.Pointer((*hash.Hash)(e.ptr).Clone()))
	case typStream:
		out = newObjEntry(typStream, unsafe.Pointer((*stream.Stream)(e.ptr).Clone()))
	}
	return out
}

func objMemUsage(e entry) int64 {
	switch e.typ() {
	case typString:
		return int64(len(e.str())) + 16
	case typList:
		return (*list.List)(e.ptr).MemUsage()
	case typSet:
		return (*set.Set)(e.ptr).MemUsage()
	case typZSet:
		return (*zset.Set)(e.ptr).MemUsage()
	case typHash:
		return (*hash.Hash)(e.ptr).MemUsage()
	case typStream:
		return (*stream.Stream)(e.ptr).MemUsage()
	}
	return 0
}

// objToRDB converts a value for the RDB encoder (SAVE, BGSAVE, DUMP, the
// AOF base).
func objToRDB(e entry) *rdb.Value {
	switch e.typ() {
	case typString:
		return &rdb.Value{Kind: rdb.KindString, Str: e.str()}
	case typList:
		return (*list.List)(e.ptr).ToRDB()
	case typSet:
		return (*set.Set)(e.ptr).ToRDB()
	case typZSet:
		return (*zset.Set)(e.ptr).ToRDB()
	case typHash:
		return (*hash.Hash)(e.ptr).ToRDB()
	case typStream:
		return (*stream.Stream)(e.ptr).ToRDB()
	}
	return nil
}

// hashFromRDB builds a hash with the encoding Redis 7.0's loader ends up
// with.
func hashFromRDB(v *rdb.Value, s *Server) *hash.Hash {
	return hash.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) != rdb.EncListpack)
}

// setFromRDB builds a set with the encoding Redis's loader gives it.
func setFromRDB(v *rdb.Value, s *Server) *set.Set {
	return set.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) == rdb.EncIntset)
}

// zsetFromRDB builds a sorted set from a decoded value with the encoding
// Redis 7.0's loader ends up with (rdb.LoadedEncoding).
func zsetFromRDB(v *rdb.Value, s *Server) *zset.Set {
	return zset.FromRDB(v, rdb.LoadedEncoding(v, serverLimits(s)) == rdb.EncSkiplist)
}

// serverLimits returns the encoding limits of the current configuration.
func serverLimits(s *Server) rdb.Limits {
	l := rdb.DefaultLimits()
	if s == nil || s.cfg == nil {
		return l
	}
	l.HashMaxListpackEntries = s.cfg.HashMaxListpackEntries
	l.HashMaxListpackValue = s.cfg.HashMaxListpackValue
	l.ZSetMaxListpackEntries = s.cfg.ZSetMaxListpackEntries
	l.ZSetMaxListpackValue = s.cfg.ZSetMaxListpackValue
	l.SetMaxIntsetEntries = s.cfg.SetMaxIntsetEntries
	l.ListMaxListpackSize = s.cfg.ListMaxListpackSize
	l.ListCompressDepth = s.cfg.ListCompressDepth
	l.ListPackedThreshold = s.listPackedThreshold
	return l
}

// streamFromRDBValue builds a stream from a decoded value with the node
// limits of s (Redis's defaults without a server).
func streamFromRDBValue(v *rdb.Value, s *Server) *stream.Stream {
	lim := stream.DefaultNodeLimits
	if s != nil && s.cfg != nil {
		lim = streamcmd.NodeLimits(s.cfg)
	}
	return stream.FromRDB(v, lim)
}

// listFromRDB builds a list from a decoded value.
func listFromRDB(v *rdb.Value, _ *Server) *list.List { return list.FromRDB(v) }

// objFromRDB builds an entry from a decoded value.
func (s *Server) objFromRDB(v *rdb.Value) entry {
	switch v.Kind {
	case rdb.KindString:
		return newStringEntry(v.Str)
	case rdb.KindList:
		return newObjEntry(typList, unsafe.Pointer(listFromRDB(v, s)))
	case rdb.KindSet:
		return newObjEntry(typSet, unsafe.Pointer(setFromRDB(v, s)))
	case rdb.KindZSet:
		return newObjEntry(typZSet, unsafe.Pointer(zsetFromRDB(v, s)))
	case rdb.KindHash:
		return newObjEntry(typHash, unsafe.Pointer(hashFromRDB(v, s)))
	case rdb.KindStream:
		return newObjEntry(typStream, unsafe.Pointer(streamFromRDBValue(v, s)))
	}
	return entry{}
}

func objLength(e entry) int {
	switch e.typ() {
	case typString:
		return len(e.str())
	case typList:
		return (*list.List)(e.ptr).Len()
	case typSet:
		return (*set.Set)(e.ptr).Len()
	case typZSet:
		return (*zset.Set)(e.ptr).Len()
	case typHash:
		return (*hash.Hash)(e.ptr).Len()
	case typStream:
		return (*stream.Stream)(e.ptr).LengthInt()
	}
	return 0
}

// lookupReadTyped returns key's collection of type t for a read (nil if
// absent); wrong reports that WRONGTYPE was replied.
func lookupReadTyped[T any](s *Server, c *client, key []byte, t uint8) (o *T, wrong bool) {
	e, ok := s.lookupRead(c, key)
	if !ok {
		return nil, false
	}
	if e.typ() != t {
		c.errWrongType()
		return nil, true
	}
	return (*T)(e.ptr), false
}

// lookupWriteTyped is lookupReadTyped for a command that modifies the value
// in place (the snapshot hook has run).
func lookupWriteTyped[T any](s *Server, c *client, key []byte, t uint8) (o *T, wrong bool) {
	p := s.lookupWrite(c, key)
	if p == nil {
		return nil, false
	}
	if p.typ() != t {
		c.errWrongType()
		return nil, true
	}
	return (*T)(p.ptr), false
}
