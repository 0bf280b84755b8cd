// Package stream is Redis 7.0.15's stream value without server state
// (t_stream.c's data side).
//
// Entries live in nodes that mirror Redis's listpack nodes: a node is
// closed when it holds stream-node-max-entries entries (live + deleted) or
// its simulated listpack size reaches stream-node-max-bytes, XDEL leaves a
// tombstone in its node (a node goes away when its last live entry is
// deleted) and approximate trimming removes whole nodes only. Keeping the
// same layout as Redis makes MAXLEN/MINID "~" trimming, and what it
// propagates, identical. XADD is amortized O(1), range lookups are binary
// searches over nodes then entries.
//
// Consumer groups keep their pending entries in a PEL per group and per
// consumer. The X* commands, which parse IDs and decide what to change and
// propagate, stay in package server.
package stream
