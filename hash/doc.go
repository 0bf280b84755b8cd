// Package hash is Redis 7.0.15's hash value without server state
// (t_hash.c's data side): the listpack encoding, whose field/value pairs
// keep insertion order as HGETALL shows it, and the hashtable one, the
// conversion between them, and the RDB form. The hash commands stay in
// package server.
package hash
