// Package persist runs a server's saves and rewrites as Redis does with
// its one forked child: SAVE, BGSAVE, BGREWRITEAOF (with the AOF on or
// off), the rewrite that turns the AOF on, and the cron's save points and
// automatic rewrite.
//
// It owns:
//   - the orchestration and its record (Persister): dump.rdb written at
//     once or in the background, the AOF rewrite jobs, their outcomes,
//     failure counts and back-off, and what LASTSAVE and INFO report;
//   - the job slot and each job's lifecycle (Jobs, Job): start, reap,
//     install or discard the file, kill, and INFO's fork counters;
//   - the child process (a fresh exec of the binary run with ChildFlag,
//     see RunChild) that writes, fsyncs and renames the temp file, and
//     the byte pipe that feeds it (Pipe, Stage, Batch);
//   - the AOF base in Redis's RESP rewrite format (RESPBase).
//
// It does not own the keyspace: the bytes come from the server through
// Keyspace (a point-in-time Snapshot walk, or the whole dataset at once;
// the walk and its mark bits stay with the dataset), nor the loading of
// the files into it. The AOF's files and manifest are package aof's, the
// formats rdb's and manifest's, and every file operation goes through an
// fsx.FS. Lines are logged through Log, in Redis's words.
//
// Locking: everything runs under the executor's lock given in Env, as
// Redis's main thread; a job's reaper takes it to record the end.
package persist
