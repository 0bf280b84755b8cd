package server

import (
	"unsafe"

	"github.com/aofserver/aofserver/digest"
)

// DEBUG DIGEST and DEBUG DIGEST-VALUE over the keyspace; package digest
// holds the arithmetic and what is digested of each value.

// Redis's OBJ_* type codes, mixed into every key digest.
var redisTypeCode = [...]uint32{typString: 0, typList: 1, typSet: 2, typZSet: 3, typHash: 4, typStream: 6}

// mixValue adds e's type and content to d (Redis xorObjectDigest).
func mixValue(d *digest.Digest, e entry, hasExpire bool) {
	t := e.typ()
	if int(t) < len(redisTypeCode) {
		d.MixUint32(redisTypeCode[t])
	}
	if t == typString {
		d.Mix(e.str())
	} else if v := objToRDB(e); v != nil {
		d.MixCollection(v)
	}
	if hasExpire {
		d.Xor([]byte("!!expire!!"))
	}
}

// valueDigest is DEBUG DIGEST-VALUE for one key: the value digest without
// the key name (Redis xorObjectDigest on a zeroed digest). Logically
// expired keys are digested too, as Redis does. Called under s.mu.
func (s *Server) valueDigest(e entry, db *DB, key string) [20]byte {
	var d digest.Digest
	mixValue(&d, e, db.expireAt(key) >= 0)
	return d
}

// datasetDigest is DEBUG DIGEST: all zeros for an empty dataset. Called
// under s.mu.
func (s *Server) datasetDigest() [20]byte {
	var final digest.Digest
	for j, db := range s.dbs {
		if db.size() == 0 {
			continue
		}
		final.MixUint32(uint32(j))
		db.keys.Range(func(k string, e *entry) bool {
			var kv digest.Digest
			kv.Mix(unsafe.Slice(unsafe.StringData(k), len(k)))
			mixValue(&kv, *e, db.expireAt(k) >= 0)
			final.XorDigest(&kv)
			return true
		})
	}
	return final
}
