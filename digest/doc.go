// Package digest is DEBUG DIGEST and DEBUG DIGEST-VALUE's arithmetic,
// exactly as Redis 7.0's debug.c does it, so that the digest of a dataset
// here equals the digest of the same dataset in real Redis (the
// differential tests rely on it).
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
package digest
