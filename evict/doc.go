// Package evict owns Redis 7.0's eviction policy (evict.c): the
// maxmemory-policy values, the LRU clock arithmetic and the LFU counter
// (its logarithmic increment and its decay), the 16-entry eviction pool
// that keeps the best candidates across samples, the time a cycle may
// take under maxmemory-eviction-tenacity, the accounting of the time spent
// over the limit, and the Go runtime's soft memory limit for a maxmemory.
//
// What it does not own is the keyspace: the server samples its keys,
// scores them here (Score), deletes the key chosen (propagating DEL, the
// "evicted" event) and keeps the used-memory figure the limit is compared
// with, since that figure is maintained at the keyspace's own choke
// points.
//
// Everything runs on the server's executor: nothing here locks.
package evict
