// Package aof owns Redis 7.0's multi-part append-only file: the directory
// <dir>/<appenddirname>, its manifest, the base and incr files, and every
// write, fdatasync, rename and directory fsync made to them (all through
// fsx.FS, so tests can cut the power at any operation with fsx.CrashFS).
// It does not know the keyspace: the server loads data through a Loader and
// writes bases through callbacks, and it never imports server or rdb.
//
// # Usage
//
//	a, err := aof.Open(opts)             // reads the manifest, upgrades an old appendonly.aof
//	if a.Exists() {
//		stats, err = a.Load(loader, progress) // base, then incrs; torn tail handling
//	}
//	err = a.Start(writeBase)             // case D writes the startup base; opens the last incr
//	t := a.Feed(aof.Op{DB: db, Argv: argv}) // under the executor lock, no I/O: a Ticket
//	err = a.Wait(a.ReplyTicket(t))       // on the connection goroutine, before replying (barrier.go)
//	rw, _ := a.StartRewrite(pid)         // under the executor lock, at the snapshot instant
//	err = rw.Install(rdbBase)            // after the child wrote and fsynced rw.TempBasePath()
//	err = a.Close()
//
// # Files (spec §1)
//
//	<F>.manifest           "file <name> seq <n> type <b|h|i>\n" per file: base, history, incrs
//	temp-<F>.manifest      written, fdatasync'ed, renamed over the manifest
//	<F>.<n>.base.rdb|.aof  base: RDB (preamble) or RESP; the loader sniffs "REDIS"
//	<F>.<n>.incr.aof       RESP commands as propagated, with lazy SELECT and optional "#TS:<secs>"
//	<F>                    an upgraded pre-7.0 file used as base seq 1
//	<dir>/temp-rewriteaof-bg-<pid>.aof   the rewrite child's output, renamed into the directory
//
// Incr record format (spec §4.1): "*<argc>\r\n" then "$<len>\r\n<bytes>\r\n"
// per argument; "*2\r\n$6\r\nSELECT\r\n$<n>\r\n<db>\r\n" whenever the db of the
// next op differs from the last one written (reset at every new incr file);
// "#TS:<unix secs>\r\n" before the first op of a new second when enabled.
//
// # Durability points
//
// Each is a named function whose comment says what is durable after it:
//
//   - persistManifest: temp manifest → fdatasync → rename → fsync dir
//     (fsx.WriteFileAtomic). After it, the manifest and every entry created
//     earlier in the directory (a new incr, a renamed base) survive a crash.
//     The in-memory manifest is replaced only after it succeeds.
//   - Start: the startup base is fdatasync'ed before its rename, the incr is
//     created before the manifest naming it is persisted.
//   - writePending (step holder): bytes reach the OS; nothing durable.
//   - syncAlways (step holder, Always): fdatasync; Wait returns only now.
//     A failed write or fsync under Always is fatal (OnFatal) and never
//     retried: after a failed fsync the kernel may have dropped the pages.
//   - everysecSync (syncer goroutine, EverySec): fdatasync once per second.
//   - StartRewrite (executor, before the child starts, as Redis's
//     openNewIncrAofForAppend): create incr n+1 and persist the manifest
//     listing it; bytes still unwritten go to incr n, which loads first.
//   - rotate (step holder, at the rewrite's switch point): switch to incr
//     n+1; the old incr is fdatasync'ed and closed in the background.
//   - Install: rename the fsynced temp base into the directory, persist the
//     manifest with the new base and history entries, then delete history
//     (manifest first, so a listed file is never missing).
//   - Close: flush, fsync, close (logging nothing: the caller logs
//     Redis's shutdown line).
//
// Crash safety follows: a crash at any point leaves a manifest whose base and
// incr files all exist and load, and under Always no byte that Wait
// acknowledged is lost (TestCrashAndFaultsDuringRewrite checks both for a
// power cut before, and an error at, every single file-system operation).
//
// # Goroutines and locks
//
// Feed takes bufMu only (append to a buffer; the writer swaps buffers, so
// there is no copy and no allocation in steady state) and wakes nobody. A
// write step (take the buffer, write, under Always fdatasync, rotate at a
// rewrite's switch point) runs under stepMu, by whoever gets it first: a Wait
// caller that finds no step running performs it itself (the leader: no
// goroutine hand-off between the client and the disk), or the writer
// goroutine, which writes bytes nobody waits for when kicked (KickPending,
// after the server's cron) or every writerTick, and retries failed writes.
// While one fdatasync runs, Feed keeps appending and
// the next write+fdatasync covers everything that accumulated (group commit,
// cut at GroupCommitMaxBatch commands). Before an fdatasync the leader waits
// briefly for the clients the previous one answered to come back
// (gather.go), or for a fixed GroupCommitDelay when set; Sync (the network
// loop's syncer, whose clients are served by another goroutine meanwhile)
// waits only for a GroupCommitDelay. Every fsync under Always is timed in
// wall and thread-CPU time, and the tuner (tune.go) tells the loop how many
// may be in flight (Inflight). Sync with overlap (the loop with several
// syncers) writes under stepMu and fdatasyncs after releasing it, sharing
// the segment's syncMu for reading, so several fdatasyncs can be in flight;
// each moves the synced offset only to what was written before it began,
// and a step that rotates still fsyncs the old file under stepMu first.
// With PreallocSize
// set, under Always the incr file is preallocated with '#' padding lines so
// most fdatasyncs overwrite in place (prealloc.go; off by default). Wait callers that cannot lead block on a channel that is closed
// each time the acknowledged offset moves while any waits (none is made
// when nobody waits, as on the network loop's path). A syncer goroutine does the
// everysec fdatasync. Lock order: stepMu, then manMu, then mu, then bufMu.
//
// # Loading (spec §2)
//
// As Redis 7.0.15: every file starts in DB 0 (Load delivers "SELECT 0"
// first), "#" lines are skipped, two bytes after each bulk are discarded
// unchecked, MULTI…EXEC is delivered only once EXEC is read, a torn tail is
// truncated on disk when aof-load-truncated is set (and is fatal in a file
// other than the last, after truncating it, as Redis does), format errors are
// never truncated. Deliberate differences, all safer and invisible for files
// Redis writes: a torn command inside a transaction truncates before the
// MULTI (Redis keeps a dangling MULTI that makes the next load drop later
// commands); a torn first command after an RDB preamble truncates after the
// RDB (Redis would truncate to 0); a negative bulk length is a format error
// (Redis aborts on allocation); a failed manifest persist after renaming a new
// base keeps that base file instead of unlinking it. In the last file, when it
// ends in preallocation padding, damage after the last valid command (or data
// between padding lines) is a batch that was never fdatasync'ed and is cut
// like a torn tail; Load reports where the data ends so Start writes there.
//
// Turning the AOF on at runtime (StartWaiting, waiting.go) appends to a
// temporary incr that no manifest names until the first rewrite installs.
package aof
