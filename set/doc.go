// Package set is Redis 7.0.15's set value without server state (t_set.c's
// data side): the intset encoding (sorted canonical integers) and the
// hashtable one, the conversion between them, membership, random members,
// and the RDB form. The set commands stay in package server.
package set
