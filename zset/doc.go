// Package zset is Redis 7.0.15's sorted set value without server state
// (t_zset.c's data side): the two encodings, listpack and skiplist with its
// member dict, the conversion between them, ranks, cursors, score and
// lexicographic ranges with their parsing (zslParseRange,
// zslParseLexRange), and the RDB form. The ZADD family of commands, which
// decide when and how to change a set, stay in package server.
package zset
