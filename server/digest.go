package server

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/rdb"
)

// DEBUG DIGEST and DEBUG DIGEST-VALUE, computed exactly as Redis 7.0's
// debug.c does, so that the digest of a dataset here equals the digest of
// the same dataset in real Redis (the differential tests rely on it).
//
// The building blocks:
//
//	xor(d, data):  d ^= SHA1(data)              order-insensitive "add"
//	mix(d, data):  d = SHA1(d ^ SHA1(data))     order-sensitive "append"
//
// Per key:    kv = 0; mix(kv, key); mix(kv, htonl(type)); <value>;
//
//	xor(kv, "!!expire!!") if the key has a TTL (the time itself is not mixed)
//
// Values:     string: mix(kv, bytes)
//
//	list:   mix(kv, elem) for each element, head to tail
//	set:    xor(kv, member) for each member
//	zset:   e = 0; mix(e, member); mix(e, "%.17g" score); xor(kv, e)
//	hash:   e = 0; mix(e, field); mix(e, value); xor(kv, e)
//
// Dataset:    final = 0; for each non-empty db j: mix(final, htonl(j)) then
//
//	xor(final, kv) for each key.
//
// Integer encodings (int strings, intsets, listpack integers) are digested
// through their decimal text, so the result depends only on the logical
// content, never on the encoding.

type digest [20]byte

func (d *digest) xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

func (d *digest) xorDigest(o *digest) {
	d.xor(o[:])
}

func (d *digest) mix(b []byte) {
	d.xor(b)
	*d = sha1.Sum(d[:])
}

func (d *digest) mixUint32(v uint32) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v) // htonl
	d.mix(b[:])
}

// appendScore formats a zset score like C's "%.17g" (Redis 7.0's
// debug.c), including "inf"/"-inf".
func appendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// Redis's OBJ_* type codes, mixed into every key digest.
var redisTypeCode = [...]uint32{typString: 0, typList: 1, typSet: 2, typZSet: 3, typHash: 4, typStream: 6}

// mixValue adds e's type and content to d (Redis xorObjectDigest).
func mixValue(d *digest, e entry, hasExpire bool) {
	t := e.typ()
	if int(t) < len(redisTypeCode) {
		d.mixUint32(redisTypeCode[t])
	}
	if t == typString {
		d.mix(e.str())
	} else if v := objToRDB(e); v != nil {
		mixCollection(d, v)
	}
	if hasExpire {
		d.xor([]byte("!!expire!!"))
	}
}

func mixCollection(d *digest, v *rdb.Value) {
	switch v.Kind {
	case rdb.KindList:
		for _, el := range v.List {
			d.mix(el)
		}
	case rdb.KindSet:
		for _, m := range v.Set {
			d.xor(m)
		}
	case rdb.KindZSet:
		var buf [32]byte
		for _, m := range v.ZSet {
			var ed digest
			ed.mix(m.Member)
			ed.mix(appendScore(buf[:0], m.Score))
			d.xorDigest(&ed)
		}
	case rdb.KindHash:
		for _, p := range v.Hash {
			var ed digest
			ed.mix(p[0])
			ed.mix(p[1])
			d.xorDigest(&ed)
		}
	case rdb.KindStream:
		// Redis: mix "<ms>.<seq>" then each field and value, in ID order
		// (groups are not digested).
		var buf [48]byte
		for _, e := range v.Stream.Entries {
			b := strconv.AppendUint(buf[:0], e.ID.Ms, 10)
			b = append(b, '.')
			b = strconv.AppendUint(b, e.ID.Seq, 10)
			d.mix(b)
			for _, p := range e.Fields {
				d.mix(p[0])
				d.mix(p[1])
			}
		}
	}
}

// valueDigest is DEBUG DIGEST-VALUE for one key: the value digest without
// the key name (Redis xorObjectDigest on a zeroed digest). Logically
// expired keys are digested too, as Redis does. Called under s.mu.
func (s *Server) valueDigest(e entry, db *DB, key string) [20]byte {
	var d digest
	mixValue(&d, e, db.expireAt(key) >= 0)
	return d
}

// datasetDigest is DEBUG DIGEST: all zeros for an empty dataset. Called
// under s.mu.
func (s *Server) datasetDigest() [20]byte {
	var final digest
	for j, db := range s.dbs {
		if db.size() == 0 {
			continue
		}
		final.mixUint32(uint32(j))
		db.keys.Range(func(k string, e *entry) bool {
			var kv digest
			kv.mix(unsafe.Slice(unsafe.StringData(k), len(k)))
			mixValue(&kv, *e, db.expireAt(k) >= 0)
			final.xorDigest(&kv)
			return true
		})
	}
	return final
}
