// Package scripting owns Redis 7.0's scripting: EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO, SCRIPT LOAD / EXISTS / FLUSH, FCALL, FCALL_RO and FUNCTION
// LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE / STATS, and what they
// stand on:
//
//   - the Lua 5.1 engine on gopher-lua: Redis's sandbox (read-only
//     globals and libraries, no file access), redis.call / pcall and the
//     RESP <-> Lua conversions, Lua 5.1's error texts and chunk loading
//     (errname.go, locals.go, load.go, libcheck.go: where gopher-lua's
//     differ), math.random on Redis's rand48;
//   - EVAL's script cache and shebang flags;
//   - the function libraries (their own Lua state, registration, the
//     FUNCTION DUMP payload and the RDB's FUNCTION2 records).
//
// The libraries scripts see (cjson, cmsgpack, bit, struct, string.format)
// are package lualib's.
//
// What it asks of the server is the Server and Client interfaces
// (host.go), implemented in package server: the command table and call()
// for redis.call, ACL checks and their log, the write, replica and
// memory refusals, the counting of refused calls, MONITOR, logging, and
// the busy-script state. The busy state (answering -BUSY to other clients
// from the network loop, lending the executor, SCRIPT KILL / FUNCTION
// KILL, a busy FUNCTION STATS) stays the server's: it is the executor's
// and its network loop's. Scripting reaches it through Start, whose
// context is the VM's interrupt hook, Wrote, Killed and End. The replies
// go to a Caller, the client running the command.
//
// Everything runs on the server's executor: nothing here locks, except
// rand48, which is process-wide as in Redis.
package scripting
