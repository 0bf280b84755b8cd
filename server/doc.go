// Package server owns the data, the commands and the clients of aofserver,
// a Redis 7.0-compatible server.
//
// # The executor
//
// Server.mu is the event loop: every command runs with it held, one at a
// time, so the AOF records commands in execution order. A client's
// pipelined requests run as a batch under one hold of mu (execChunk, at
// most maxBatch commands), and no reply of the batch leaves before the AOF
// barrier lets it:
//
//   - appendfsync always: the replies wait until everything executed before
//     them — by any client — is fdatasync'ed, so no reply acknowledges or
//     reveals a write a power cut could lose;
//   - everysec / no: the replies wait until this client's own writes are
//     write()n, so killing the process loses nothing acknowledged.
//
// On Linux one network loop serves the connections (netloop_linux.go): a
// goroutine in epoll_wait reads and parses requests (package resp, with
// Redis's limits and error texts), runs each batch and writes the replies,
// and never waits for the disk. Replies behind the barrier are held: once
// per iteration the loop writes the AOF itself (everysec, no) or becomes
// the syncer that writes, fdatasyncs and sends them (always), while a
// standby goroutine takes the loop over if anything happens meanwhile; what
// accumulates during one fsync goes into the next (group commit, see
// package aof).
//
// A client whose next step would park (a blocked command, a script past
// busy-reply-threshold, CLIENT PAUSE, pub/sub or MONITOR output, a reply
// the socket cannot take at once) leaves the loop for a goroutine of its
// own (conn.go: connLoop), which does the same steps blocking: it runs the
// batch, waits at the barrier in aof.Wait (the first waiter writes and
// fsyncs for all) and writes the replies. Without the loop (other systems,
// or our directive netloop no) every connection is served that way.
//
// # Commands
//
// Each command is an entry of the command table (command.go), with Redis
// 7.0.15's metadata (package cmdmeta), that call (dispatch.go) runs. The
// data-type groups (string, hash, list, set, sorted set and geo, stream,
// HyperLogLog, bitmap, SORT) and the generic commands on named keys (DEL,
// EXISTS, TYPE, RENAME, EXPIRE, TTL, ...) are packages of their own under
// command/, written against package command (imported as seam): *client
// implements its Ctx with one-line methods and seamGroups registers each
// group (seam.go). They never import server; a blocking command (BLPOP,
// BZPOPMIN, XREAD BLOCK, ...) parks its client through the seam's
// Blocker, and blocking itself lives here. How a string is held, and the
// commands on whole databases (KEYS, SCAN, FLUSHALL, SWAPDB, ...), stay
// here with the keyspace.
//
// # Propagation
//
// call (dispatch.go) runs a command and, if it changed the dataset (dirty),
// queues its logged form: the command as sent, or the form it chose with
// rewriteArgv (relative expiries as PXAT/PEXPIREAT, INCRBYFLOAT as SET …
// KEEPTTL, GETDEL as DEL …), plus ops added with propagate (lazy-expire DELs,
// SPOP's SREMs). At the end of the top-level command (the execution unit: a
// command, an EXEC) the ops are fed to the AOF, wrapped in MULTI/EXEC when
// there are two or more, with SELECT first, as Redis 7.0 does.
//
// # Keyspace
//
// Each DB is a dict (package dict: chained hashing with incremental rehash and
// Redis's reverse-binary SCAN cursor) of 16-byte entries (object.go). All
// access goes through keyspace.go, which applies lazy expiry, keyspace
// statistics, the LRU clock, WATCH invalidation and the snapshot hook.
//
// # Snapshots without fork
//
// BGSAVE and BGREWRITEAOF serialize the dataset as of one instant
// (snapshot.go): every entry carries a mark bit whose meaning flips when a
// snapshot starts; a walker encodes unvisited entries in bounded steps under
// the executor, and any write first encodes the old value of an unvisited
// entry. The walk is package persist's Snapshot: persist runs the jobs and
// streams the bytes to a child process (this binary, re-executed) that
// writes, fsyncs and closes the temp file, so the save is visible with
// pgrep -P and killable like Redis's fork child. persist.go gives persist
// the keyspace, the AOF and the log; load.go fills the keyspace from the
// files.
//
// # Scripting
//
// EVAL, FCALL, SCRIPT and FUNCTION run in package scripting (the Lua
// engine, the script cache, the function libraries); scripting.go is its
// adapter: redis.call runs on a fake client through call, with the
// server's ACL, write and memory rules. The busy-script state stays here
// (script_busy.go): past busy-reply-threshold the network loop answers
// -BUSY without the executor lock, the script lends the lock to waiting
// clients, and SCRIPT KILL / FUNCTION KILL cancel the VM.
//
// # Pub/Sub, client-side caching, eviction
//
// Package pubsub owns the subscription registries and PUBLISH's fan-out
// (pubsub.go keeps the commands and delivers to a client); package
// tracking owns the tracking table, the BCAST prefixes and the
// invalidation messages (tracking.go parses CLIENT TRACKING, finds a
// command's keys and delivers); package evict owns the maxmemory policy,
// the LRU/LFU clocks and the eviction pool (evict.go samples the
// keyspace, deletes the victims and keeps the used-memory estimate).
//
// # Blocking commands
//
// A blocking command that finds nothing parks its client (blocking.go,
// through seam.Blocker from the groups under command/); a
// write that creates a list or sorted set marks the key ready, and after
// that command's execution unit the parked clients are served in arrival
// order, their pops logged as separate ops after the push.
package server
