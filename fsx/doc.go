// Package fsx is the file-system seam of the data directory: every create,
// write, fsync, truncate, rename, remove, mkdir and directory fsync there
// goes through an FS, so tests can swap the real file system for CrashFS and
// cut the power, or fail, at any one of those operations. The server hands
// its FS (Server.fsys) to the AOF (incr and base files, the manifest, a
// rewrite's install), SAVE and BGSAVE (ReplaceFile; the temp file and its
// install), the snapshot writer of BGSAVE and BGREWRITEAOF, reading
// dump.rdb (loading, DEBUG RELOAD, a master's full sync), the replica's
// temp RDB and CONFIG REWRITE (config.RewriteFS);
// redis-check-aof (aof.CheckOptions.FS), its --fix copy, the pidfile, the
// log file and the CPU profile use OS(). lint_test.go fails on any such
// os/syscall/unix call outside this package, with a short allowlist of
// tools that never touch a data directory.
//
// One path is out of a test's reach: the snapshot writer normally runs in a
// child process (a fresh exec of the binary, as Redis forks), which writes
// through OS() since the parent's FS cannot be handed over. Tests on CrashFS
// run the same writer in process instead (persist.Jobs.InProc), and
// cmd/crashfs, a FUSE file system that cuts the power under the whole
// process, covers the child process itself.
//
// Usage:
//
//	fsys := fsx.OS()
//	f, err := fsys.OpenAppend(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
//	...
//	_, err = f.Write(buf)
//	err = f.Sync() // durability point
//	err = fsx.WriteFileAtomic(fsys, manifestPath, text) // or ReplaceFile
//
// # What is durable after each operation
//
// The model is the strict POSIX one that both OS (on Linux ext4/xfs in the
// worst case) and CrashFS implement. "Durable" means it survives a power cut.
//
//   - File.Write: nothing. The bytes sit in the page cache (OS) or in the
//     file's current content (CrashFS); a crash may drop them.
//   - File.Sync: the file's content and size as of the call (fdatasync(2) on
//     Linux, fsync(2) elsewhere). It does NOT make the file's name durable.
//   - File.Truncate / FS.Truncate: nothing until the next File.Sync of that file.
//   - Create / OpenAppend of a new file, Rename, Remove: nothing until SyncDir of
//     the directory holding the entry (for Rename, of both directories).
//     Until then a crash may undo the create, rename or remove.
//   - SyncDir: every entry (name → file) of that directory as of the call.
//     Like Redis's fsyncFileDir, EBADF and EINVAL from fsync on a directory
//     are ignored (some file systems cannot fsync directories).
//   - MkdirAll: directories are treated as durable at once. AOF code does not
//     depend on a fresh directory surviving a crash without its files: a
//     missing directory is the "no AOF yet" case.
//   - ReplaceFile / WriteFileAtomic: after it returns nil, the new content
//     under the final name is durable (temp file synced, closed, renamed,
//     directory synced). On error the old content is still in place unless
//     the error came from the final SyncDir (FailedStep says StepSyncDir), in
//     which case either the old or the new file may survive a crash.
//   - WriteFile: nothing; for files that need not survive a crash (pidfile).
//
// # CrashFS
//
// CrashFS is an in-memory FS that keeps, for every file, the bytes last synced
// and, for every directory, the entries as of its last SyncDir. Crash returns a
// new CrashFS holding only that state (pebble's NewStrictMem +
// ResetToSyncedState). SetInjector fails any chosen operation; Ops counts them,
// so a test can fail op 0, 1, 2, ... until a run succeeds. The loops that do
// so, and cut the power before each op: aof's TestCrashAndFaultsDuringRewrite
// (the AOF's own writes) and server's TestCrashLoopsOverJobs (SAVE, BGSAVE,
// BGREWRITEAOF with its temp base, CONFIG REWRITE on a running server).
//
// All FS implementations here are safe for concurrent use by several
// goroutines. A single File must not be written from two goroutines at once
// without outside locking (as with *os.File, writes are not ordered).
package fsx
