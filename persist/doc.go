// Package persist runs the background persistence jobs as Redis does with
// its one forked child: BGSAVE, BGREWRITEAOF (with the AOF on or off) and
// the rewrite that turns the AOF on.
//
// It owns:
//   - the job slot and each job's lifecycle (Jobs, Job): start, reap,
//     install or discard the file, kill, and INFO's fork counters;
//   - the child process (a fresh exec of the binary run with ChildFlag,
//     see RunChild) that writes, fsyncs and renames the temp file, and
//     the byte pipe that feeds it (Pipe, Stage, Batch);
//   - the AOF base in Redis's RESP rewrite format (RESPBase).
//
// It does not own the keyspace: a job's bytes come from a Snapshot, the
// point-in-time walk that the server implements (the walk and its mark
// bits stay with the dataset). It does not own the AOF's files and
// manifest (package aof), the formats (rdb, manifest), or any direct
// file operation: every write goes through an fsx.FS. Lines are logged
// through Log, in Redis's words.
//
// Locking: Jobs' methods run under the executor's lock given to Init, as
// Redis's run on its main thread; the reaper takes it to record an end.
package persist
