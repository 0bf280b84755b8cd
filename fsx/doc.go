// Package fsx is the file-system seam of the AOF: every file operation of
// package aof on the AOF directory (incr and base files, the manifest, the
// install of a rewritten base, directory fsyncs) goes through the FS the
// server passes in, so tests can swap the real file system for CrashFS and
// cut the power at any of those operations.
//
// Not everything goes through it. SAVE's temp file, the snapshot child's
// writes (BGSAVE's dump and BGREWRITEAOF's temp base), loading dump.rdb,
// CONFIG REWRITE and redis-check-aof use plain os calls; SAVE's directory
// fsync and BGSAVE's final rename and directory fsync call fsx.OS()
// directly, which a test cannot swap. Those are covered instead by cmd/crashfs, a FUSE file
// system that cuts the power under the whole process.
//
// Usage:
//
//	fsys := fsx.OS()
//	f, err := fsys.OpenAppend(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
//	...
//	_, err = f.Write(buf)
//	err = f.Sync() // durability point
//	err = fsx.WriteFileAtomic(fsys, manifestPath, text)
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
//   - WriteFileAtomic: after it returns nil, the new content under the final
//     name is durable (temp file synced, renamed, directory synced). On error
//     the old content is still in place unless the error came from the final
//     SyncDir, in which case either the old or the new file may survive a crash.
//
// # CrashFS
//
// CrashFS is an in-memory FS that keeps, for every file, the bytes last synced
// and, for every directory, the entries as of its last SyncDir. Crash returns a
// new CrashFS holding only that state (pebble's NewStrictMem +
// ResetToSyncedState). SetInjector fails any chosen operation; Ops counts them,
// so a test can fail op 0, 1, 2, ... until a run succeeds.
//
// All FS implementations here are safe for concurrent use by several
// goroutines. A single File must not be written from two goroutines at once
// without outside locking (as with *os.File, writes are not ordered).
package fsx
