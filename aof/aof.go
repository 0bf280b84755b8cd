package aof

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/manifest"
)

// Options configures an AOF. FS, Dir, DirName and FileName are fixed for the
// life of the AOF; the other knobs may be changed with SetPolicy/SetOptions.
type Options struct {
	FS       fsx.FS
	Dir      string // redis `dir`
	DirName  string // appenddirname
	FileName string // appendfilename
	Policy   Policy

	UseRDBPreamble   bool // base format of the next rewrite / startup base
	LoadTruncated    bool // aof-load-truncated
	TimestampEnabled bool // "#TS:<unix secs>\r\n" annotations
	DisableAutoGC    bool // aof-disable-auto-gc
	NoFsyncOnRewrite bool // no-appendfsync-on-rewrite

	// GroupCommitDelay lets the writer wait up to this long under Always to
	// gather a bigger batch before write+fdatasync (0: never wait).
	GroupCommitDelay time.Duration
	// GroupCommitMaxBatch caps the commands covered by one write+fdatasync
	// under Always (0: unlimited).
	GroupCommitMaxBatch int
	// PreallocSize: under Always the incr file is extended ahead of the data
	// by this many bytes of '#' padding (see prealloc.go; 0 = off).
	PreallocSize int64
	// WriterTick is how often the writer goroutine writes fed bytes nobody
	// kicked it for (0: writerTick, a second). Tests set it long to prove
	// a write came from a kick.
	WriterTick time.Duration
	// FlushSleep: each write waits this long first (DEBUG AOF-FLUSH-SLEEP,
	// which Redis keeps server-wide: an AOF opened later inherits it).
	FlushSleep time.Duration

	Logger  zerolog.Logger
	Now     func() time.Time
	OnFatal func(err error) // called once, in its own goroutine, when an always-policy write/fsync fails
	// OnLatency, when set, is given the duration of each operation Redis's
	// latency monitor times, under Redis's event names: aof-write plus one
	// of aof-write-pending-fsync, aof-write-active-child, aof-write-alone;
	// aof-fsync-always, aof-rename, aof-fstat. It runs on whichever
	// goroutine did the operation (rarely the executor) and must be cheap.
	OnLatency func(event string, d time.Duration)
	// SyncClock, when set, replaces the monotonic clock that times
	// fsyncs for the self-tuning group commit (tune.go): a test's stand-in
	// disk advances it by its flush time.
	SyncClock func() time.Duration
}

// AOF is one multi-part append-only file directory. See the package
// documentation for the goroutines and durability points.
type AOF struct {
	opt    Options // fixed fields; knobs are copied into the fields below
	fsys   fsx.FS
	aofDir string
	log    zerolog.Logger
	now    func() time.Time

	// manMu serialises every manifest transition and persist. man is replaced
	// (never mutated) only after the new manifest is durable.
	manMu sync.Mutex
	man   *manifest.Manifest

	// bufMu guards the feed side; Feed holds it for a few appends only.
	bufMu      sync.Mutex
	buf        []byte   // fed bytes not yet taken by the writer
	marks      []mark   // per Feed call: end offset and cumulative command count
	fedOff     int64    // logical end offset of everything fed
	fedCmds    int64    // commands fed so far
	selectedDB int      // db of the last SELECT written to buf; -1 = none
	lastTS     int64    // last #TS second written
	tsEnabled  bool     // copy of TimestampEnabled
	rot        *Rewrite // pending incr rotation, taken by the writer
	closing    bool
	kick       chan struct{} // wakes the writer; capacity 1
	kickBg     chan struct{} // wakes the writer for background work's bytes (KickPending); capacity 1

	// stepMu is held by whoever performs a write step: the writer goroutine,
	// or a Wait caller that found it idle and writes itself (leader), which
	// saves two goroutine hand-offs per reply. ws is the step state.
	stepMu  sync.Mutex
	ws      writerState
	overlap bool   // guarded by stepMu: Sync(overlap)'s step, which leaves the fsync to its caller
	pad     []byte // padding chunk (prealloc.go), owned like ws
	gs      gatherState

	fedMarks     atomic.Int64 // Feed calls with commands (gather.go)
	takenMarks   atomic.Int64 // of those, taken by the writer step
	gatherTarget atomic.Int64 // a gathering leader's target, 0 if none
	gathered     chan struct{}
	stepClosed   bool // guarded by stepMu: Close has taken the file away

	// mu guards the writer/syncer shared state below.
	mu           sync.Mutex
	cur          *segment // incr file being appended to
	knobs        Options  // runtime knobs (Policy, NoFsyncOnRewrite, group commit, DisableAutoGC)
	childActive  bool     // another child process (BGSAVE) is alive, for NoFsyncOnRewrite
	rw           *Rewrite // rewrite in progress
	fatalErr     error
	closedErr    error
	started      bool
	waiting      bool // turned on at runtime, first rewrite not installed (waiting.go)
	closed       bool
	lastWriteLog time.Time
	stats        fsyncStats
	tuner        fsyncTuner

	policy    atomic.Uint32 // Policy, read by the writer and syncer without mu
	mode      atomic.Uint32 // GroupMode the tuner chose (tune.go), read by Inflight
	probing   atomic.Bool   // the tuner measures fsyncs alone (tune.go)
	flushWall atomic.Int64  // the tuner's median fsync wall time alone, ns (FlushTime)
	syncCounters
	writtenOff atomic.Int64 // logical offset written to the OS
	syncedOff  atomic.Int64 // logical offset made durable
	syncClaim  atomic.Int64 // most written bytes an overlapped fdatasync began with (claimSync)
	ackOff     atomic.Int64 // Wait(off) returns once off <= ackOff
	writeErr   atomic.Pointer[error]
	term       atomic.Pointer[error] // terminal error for Wait: fatal or closed
	bioErr     atomic.Pointer[error]
	notify     atomic.Pointer[chan struct{}] // closed and replaced when ackOff or the terminal state moves, if waiters
	waiters    atomic.Int32                  // Wait callers that may block on notify
	wakeHook   atomic.Pointer[func()]        // called after each move (barrier.go)

	currentSize  atomic.Int64 // aof_current_size
	baseSize     atomic.Int64 // aof_rewrite_base_size
	lastIncrSize atomic.Int64 // size of cur
	bufLen       atomic.Int64 // bytes fed and not yet written (aof_buffer_length)
	bgOff        atomic.Int64 // offset the writer's background sync covers (syncBackground)
	writerRounds atomic.Int64 // wake-ups the writer goroutine has handled (tests)
	pendingBio   atomic.Int64 // background fsyncs queued or running
	delayedFsync atomic.Int64
	syncStart    atomic.Int64 // unix nanos of the running everysec fsync, 0 if none
	writtenCmds  atomic.Int64
	flushSleep   atomic.Int64 // DEBUG AOF-FLUSH-SLEEP, nanoseconds before each write

	loaded          bool // Load succeeded (sizes are known)
	tailName        string
	tailEnd         int64 // data end of tailName, the last file Load read
	tailInteriorPad bool
	everysecEvery   time.Duration
	writeRetryEvery time.Duration
	stopWriter      chan struct{}
	stopSyncer      chan struct{}
	writerDone      chan struct{}
	syncerDone      chan struct{}
	bg              sync.WaitGroup // background fsync+close of rotated incr files, history removal
}

// mark records the end of one Feed call.
type mark struct {
	end  int64 // logical offset after the call
	cmds int64 // fedCmds after the call
}

// segment is an open incr file.
type segment struct {
	f    fsx.File
	name string
	// off is the end of the data, alloc the file's size (padding beyond
	// off, see prealloc.go). Owned by whoever holds stepMu, then by the
	// closer.
	off, alloc int64
	noPrealloc bool         // extending failed once (full disk): append plainly
	syncMu     sync.RWMutex // serialises Sync and Close between writer, syncer and the closer; Sync(overlap)'s fsyncs share it
	closed     bool         // guarded by syncMu
}

// Open reads the manifest of opt.Dir/opt.DirName (a missing directory or
// manifest is an empty manifest) and performs the old-style upgrade (an
// appendonly.aof in Dir is moved into the directory as base seq 1). It does not
// load data nor start goroutines.
func Open(opt Options) (*AOF, error) {
	if opt.FS == nil {
		opt.FS = fsx.OS()
	}
	if opt.FileName == "" || opt.DirName == "" {
		return nil, errors.New("aof: FileName and DirName are required")
	}
	if strings.ContainsAny(opt.FileName, `/\`) {
		return nil, errors.New("aof: appendfilename can't be a path, just a filename")
	}
	if strings.ContainsAny(opt.DirName, `/\`) {
		return nil, errors.New("aof: appenddirname can't be a path, just a dirname")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Dir == "" {
		opt.Dir = "."
	}
	if opt.WriterTick <= 0 {
		opt.WriterTick = writerTick
	}
	a := &AOF{
		opt:             opt,
		fsys:            opt.FS,
		aofDir:          filepath.Join(opt.Dir, opt.DirName),
		log:             opt.Logger,
		now:             opt.Now,
		selectedDB:      -1,
		tsEnabled:       opt.TimestampEnabled,
		kick:            make(chan struct{}, 1),
		kickBg:          make(chan struct{}, 1),
		gathered:        make(chan struct{}, 1),
		knobs:           opt,
		everysecEvery:   time.Second,
		writeRetryEvery: time.Second,
	}
	a.policy.Store(uint32(opt.Policy))
	a.flushSleep.Store(int64(opt.FlushSleep))
	ch := make(chan struct{})
	a.notify.Store(&ch)

	m, err := a.readManifest()
	if err != nil {
		return nil, err
	}
	a.man = m
	if err := a.upgradeIfNeeded(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *AOF) path(name string) string { return filepath.Join(a.aofDir, name) }

func (a *AOF) manifestPath() string { return a.path(manifest.ManifestName(a.opt.FileName)) }

// readManifest loads the manifest from disk. Parse errors are logged and
// returned with Redis's fatal lines in the error text.
func (a *AOF) readManifest() (*manifest.Manifest, error) {
	p := a.manifestPath()
	f, err := a.fsys.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest.Manifest{}, nil
	}
	if err != nil {
		msg := fmt.Sprintf("Fatal error: can't open the AOF manifest file %s for reading: %s", p, Strerror(err))
		a.log.Warn().Msg(msg)
		return nil, fmt.Errorf("aof: %s: %w", msg, err)
	}
	defer f.Close()
	m, err := manifest.Parse(f)
	if err != nil {
		lines := manifestErrorLines(err)
		for _, l := range lines {
			a.log.Warn().Msg(l)
		}
		return nil, fmt.Errorf("aof: manifest %s: %s: %w", p, strings.Join(lines, ""), err)
	}
	return m, nil
}

// manifestErrorLines are the messages Redis 7.0.15's aofLoadManifestFromFile
// logs (one serverLog call each) before exiting on a manifest it cannot
// parse, embedded newlines included: the log shows a blank-ended block.
// The server and redis-check-aof share them.
func manifestErrorLines(err error) []string {
	lines := []string{"\n*** FATAL AOF MANIFEST FILE ERROR ***\n"}
	var pe *manifest.ParseError
	if !errors.As(err, &pe) {
		return append(lines, "Read AOF manifest failed\n")
	}
	if pe.Line > 0 {
		lines = append(lines,
			fmt.Sprintf("Reading the manifest file, at line %d\n", pe.Line),
			fmt.Sprintf(">>> '%s'\n", pe.Text))
	}
	return append(lines, pe.Msg+"\n")
}

// persistManifest makes m the durable manifest: temp-<F>.manifest is written,
// fdatasync'ed, renamed over <F>.manifest and the directory is fsynced
// (fsx.WriteFileAtomic). After it returns nil, m and every directory entry of
// aofDir created before the call (new incr or base files) survive a crash.
// Caller holds manMu and swaps a.man only on success.
func (a *AOF) persistManifest(m *manifest.Manifest) error {
	if err := fsx.WriteFileAtomic(a.fsys, a.manifestPath(), m.Marshal()); err != nil {
		a.log.Warn().Msgf("Fail to persist the AOF manifest file %s: %s", manifest.ManifestName(a.opt.FileName), Strerror(err))
		return fmt.Errorf("aof: persist manifest: %w", err)
	}
	return nil
}

// upgradeIfNeeded performs Redis's aofUpgradePrepare (spec §1.6 case A): when
// <Dir>/<F> exists and the directory holds no usable AOF, the manifest
// "file <F> seq 1 type b" is persisted first and then the old file is moved
// into the directory. A crash between the two steps repeats the upgrade on
// the next Open, which is safe.
func (a *AOF) upgradeIfNeeded() error {
	old := filepath.Join(a.opt.Dir, a.opt.FileName)
	if _, err := a.fsys.Stat(old); err != nil {
		return nil
	}
	m := a.man
	_, dirErr := a.fsys.ReadDir(a.aofDir)
	dirMissing := dirErr != nil
	need := dirMissing || (m.Base == nil && len(m.Incrs) == 0)
	if !need && m.Base != nil && len(m.Incrs) == 0 && m.Base.Name == a.opt.FileName {
		if _, err := a.fsys.Stat(a.path(a.opt.FileName)); err != nil {
			need = true
		}
	}
	if !need {
		return nil
	}
	if err := a.fsys.MkdirAll(a.aofDir); err != nil {
		msg := fmt.Sprintf("Can't open or create append-only dir %s: %s", a.opt.DirName, Strerror(err))
		a.log.Warn().Msg(msg)
		return fmt.Errorf("aof: %s: %w", msg, err)
	}
	nm := m.Clone()
	nm.Base = &manifest.File{Name: a.opt.FileName, Seq: 1, Type: manifest.Base}
	nm.CurrBaseSeq = 1
	a.manMu.Lock()
	defer a.manMu.Unlock()
	if err := a.persistManifest(nm); err != nil {
		return err
	}
	a.man = nm
	if err := a.fsys.Rename(old, a.path(a.opt.FileName)); err != nil {
		msg := fmt.Sprintf("Error trying to move the old AOF file %s into dir %s: %s", a.opt.FileName, a.opt.DirName, Strerror(err))
		a.log.Warn().Msg(msg)
		return fmt.Errorf("aof: %s: %w", msg, err)
	}
	// Make the move durable in both directories (Redis relies on the next
	// manifest persist; we do not want to depend on one).
	if err := a.fsys.SyncDir(a.aofDir); err != nil {
		return fmt.Errorf("aof: sync dir %s: %w", a.aofDir, err)
	}
	if err := a.fsys.SyncDir(a.opt.Dir); err != nil {
		return fmt.Errorf("aof: sync dir %s: %w", a.opt.Dir, err)
	}
	a.log.Info().Msgf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", a.opt.FileName, a.opt.DirName)
	return nil
}

// Exists reports whether the manifest lists a base or an incr file
// (otherwise startup is Redis's case D: no AOF, start empty).
func (a *AOF) Exists() bool {
	a.manMu.Lock()
	defer a.manMu.Unlock()
	return !a.man.Empty()
}

// Manifest returns a copy of the current (durable) manifest.
func (a *AOF) Manifest() *manifest.Manifest {
	a.manMu.Lock()
	defer a.manMu.Unlock()
	return a.man.Clone()
}

// Dir returns the AOF directory (Dir/DirName).
func (a *AOF) Dir() string { return a.aofDir }

// SetPolicy changes appendfsync at runtime. Switching to Always makes the
// writer fdatasync whatever was written but not yet synced.
func (a *AOF) SetPolicy(p Policy) {
	a.SetOptions(func(o *Options) { o.Policy = p })
}

// SetOptions changes the runtime knobs (Policy, UseRDBPreamble,
// LoadTruncated, TimestampEnabled, DisableAutoGC, NoFsyncOnRewrite,
// GroupCommitDelay, GroupCommitMaxBatch). Changes to FS, Dir, DirName,
// FileName, Logger, Now and OnFatal are ignored. Turning DisableAutoGC off
// removes the history files at once, in the background.
func (a *AOF) SetOptions(f func(*Options)) {
	a.mu.Lock()
	o := a.knobs
	f(&o)
	wasGCOff := a.knobs.DisableAutoGC
	a.knobs.Policy = o.Policy
	a.knobs.UseRDBPreamble = o.UseRDBPreamble
	a.knobs.LoadTruncated = o.LoadTruncated
	a.knobs.TimestampEnabled = o.TimestampEnabled
	a.knobs.DisableAutoGC = o.DisableAutoGC
	a.knobs.NoFsyncOnRewrite = o.NoFsyncOnRewrite
	a.knobs.GroupCommitDelay = o.GroupCommitDelay
	a.knobs.GroupCommitMaxBatch = o.GroupCommitMaxBatch
	a.knobs.PreallocSize = o.PreallocSize
	started, closed := a.started, a.closed
	a.mu.Unlock()
	a.policy.Store(uint32(o.Policy))
	a.bufMu.Lock()
	a.tsEnabled = o.TimestampEnabled
	a.bufMu.Unlock()
	if wasGCOff && !o.DisableAutoGC && started && !closed {
		a.bg.Add(1)
		go func() {
			defer a.bg.Done()
			a.manMu.Lock()
			defer a.manMu.Unlock()
			a.delHistoryLocked()
		}()
	}
	a.wake()
}

// SetChildActive tells the AOF whether another child process (BGSAVE) is
// alive: with NoFsyncOnRewrite, no fsync happens while any child runs.
func (a *AOF) SetChildActive(active bool) {
	a.mu.Lock()
	a.childActive = active
	a.mu.Unlock()
	a.wake()
}

func (a *AOF) knobsSnapshot() Options {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.knobs
}

// skipFsync reports whether no-appendfsync-on-rewrite suppresses fsync now.
func (a *AOF) skipFsync() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.knobs.NoFsyncOnRewrite && (a.rw != nil || a.childActive)
}

// latency reports an operation to OnLatency. The monitor's threshold is
// whole milliseconds, at least 1: shorter operations are never recorded,
// so they are not reported.
func (a *AOF) latency(event string, d time.Duration) {
	if f := a.opt.OnLatency; f != nil && d >= time.Millisecond {
		f(event, d)
	}
}

// writeLatency reports one write of the incr file classified as Redis's
// flushAppendOnlyFile does: during a background (everysec) fsync, while a
// child (rewrite or save) runs, or alone; then as aof-write.
func (a *AOF) writeLatency(duringFsync bool, d time.Duration) {
	if a.opt.OnLatency == nil || d < time.Millisecond {
		return
	}
	a.mu.Lock()
	child := a.rw != nil || a.childActive
	a.mu.Unlock()
	switch {
	case duringFsync:
		a.latency("aof-write-pending-fsync", d)
	case child:
		a.latency("aof-write-active-child", d)
	default:
		a.latency("aof-write-alone", d)
	}
	a.latency("aof-write", d)
}

// renameTimed renames an AOF file into place, reported as aof-rename.
func (a *AOF) renameTimed(from, to string) error {
	t0 := time.Now()
	err := a.fsys.Rename(from, to)
	a.latency("aof-rename", time.Since(t0))
	return err
}

// statTimed is the size of an AOF file, reported as aof-fstat (Redis's
// getAppendOnlyFileSize).
func (a *AOF) statTimed(path string) (int64, error) {
	t0 := time.Now()
	sz, err := a.fsys.Stat(path)
	a.latency("aof-fstat", time.Since(t0))
	return sz, err
}

// wake nudges the writer goroutine without blocking.
func (a *AOF) wake() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// broadcast wakes every Wait caller so it re-checks its condition. The
// channel is replaced only when a Wait caller may be blocked on it: the
// network loop's syncer moves ackOff without one, once per fsync, and a
// channel each time was an allocation per fsync for nobody. Wait counts
// itself in waiters before it loads the channel and checks ackOff; a mover
// stores ackOff before it loads waiters, so (atomics being sequentially
// consistent) either it sees the waiter, or the waiter sees the new ackOff.
func (a *AOF) broadcast() {
	if a.waiters.Load() > 0 {
		ch := make(chan struct{})
		old := a.notify.Swap(&ch)
		close(*old)
	}
	if f := a.wakeHook.Load(); f != nil {
		(*f)()
	}
}

// delHistoryLocked drops every history entry from the manifest, persists it
// and then removes the files (Redis's aofDelHistoryFiles, but the manifest is
// made durable before any file goes, so a crash never leaves a listed history
// file missing... which would be harmless anyway). Caller holds manMu.
func (a *AOF) delHistoryLocked() {
	if len(a.man.History) == 0 {
		return
	}
	nm := a.man.WithoutHistory()
	if err := a.persistManifest(nm); err != nil {
		return
	}
	hist := a.man.History
	a.man = nm
	for _, h := range hist {
		a.log.Info().Msgf("Removing the history file %s in the background", h.Name)
		if err := a.fsys.Remove(a.path(h.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			a.log.Warn().Msgf("Fail to remove the history file %s: %s", h.Name, Strerror(err))
		}
	}
	// Best effort: make the removals durable too (leftovers would be harmless).
	if err := a.fsys.SyncDir(a.aofDir); err != nil {
		a.log.Warn().Msgf("Fail to fsync AOF directory %s: %s.", a.aofDir, Strerror(err))
	}
}
