package aof

import (
	"slices"
	"sync/atomic"
	"time"
)

// Self-tuning group commit under Always (aof-group-commit-inflight 0, the
// default; a value set by hand fixes it).
//
// What an fdatasync costs decides how to group commits. On a local disk of
// a VM an fdatasync is mostly CPU (a synchronous exit to the host,
// interrupt handling, the journal): several in flight make groups smaller
// and more numerous, and the CPU they cost bounds the throughput, so one
// fsync in flight covering everything executed meanwhile is best. On a
// disk whose flush is device time (network block storage, a consumer SSD's
// cache flush, macOS's F_FULLFSYNC) the syncing thread just sleeps: with
// one in flight a closed loop of N clients settles into two groups that
// each wait two flushes (N / (2 × flush) requests/s), while starting each
// group's fsync as soon as it is executed, several in flight, lets every
// client wait about one flush (N / flush).
//
// So every fsync under Always is timed in wall time and in CPU time of the
// thread that ran it (threadcpu_linux.go), and decide picks the mode from
// the medians of the last tuneWindow fsyncs that ran alone, with
// hysteresis: medians, as a neighbour's I/O makes a local disk's fsync
// slow now and then. The thread's CPU misses what the kernel charges
// elsewhere (the journal thread, interrupts on the other CPU): measured
// on a virtio disk 33 µs of a 105 µs fdatasync, about 60 µs for the
// process, and 35-50 µs of fsyncs of 120-400 µs under load; hence a
// minimum wall time below which overlapping is never chosen, and a CPU
// share of at most a twentieth to choose it. Overlapped fsyncs that queue
// behind each other put it back to one (queued).
//
// The latency bound: a syncer fsyncs what was executed when it started,
// and with several in flight a group's fsync starts as soon as the group
// is executed, so a reply waits one fsync plus its group's execution,
// unless tuneInflight fsyncs are already in flight (then also the end of
// the first of those) or one began less than a flush over tuneInflight
// ago (the network loop spaces their starts: server/netloop_linux.go's
// toOverlapSyncer); a Wait leader gathers for at most one fsync time
// (gather.go).

// GroupMode is how the network loop commits groups under Always.
type GroupMode uint8

const (
	// ModeOne: one fsync in flight, each covering everything executed
	// before it began (the flush costs CPU, or is fast).
	ModeOne GroupMode = iota
	// ModeOverlap: several fsyncs in flight (the flush is device time).
	ModeOverlap
)

func (m GroupMode) String() string {
	if m == ModeOverlap {
		return "overlap"
	}
	return "one"
}

const (
	tuneWindow = 32 // fsyncs whose medians decide
	tuneEvery  = 8  // a decision every so many new samples
	tuneWarmup = 16 // alone-fsyncs measured before the first decision
	// tuneInflight: fsyncs in flight in ModeOverlap. Their starts are
	// spaced by a flush over tuneInflight, so a group waits at most that
	// for its fsync to begin: 16 makes it 310 µs at a 5 ms flush. At 8 a
	// request waited 0.6-1 ms on average at 5 ms and 50 clients, where
	// 16 measured 0.3-0.4 ms.
	tuneInflight = 16

	// ModeOverlap needs a flush of at least overlapMinWall of which at most
	// 1/overlapEnterRatio is the thread's CPU; it is left below
	// overlapLeaveWall or above 1/overlapLeaveRatio.
	overlapMinWall    = 400 * time.Microsecond
	overlapLeaveWall  = 250 * time.Microsecond
	overlapEnterRatio = 20
	overlapLeaveRatio = 10

	// In ModeOverlap a probe every probeEvery fsyncs runs them one at a
	// time until probeLen have run alone: the flush time of a disk is
	// what an fsync takes alone, and one that queues behind the others
	// says nothing about it. A probe costs probeLen flushes with one in
	// flight (groups wait for each other meanwhile) and two changes of
	// GOMAXPROCS (server's procsFor): every 1024 fsyncs it was about a
	// tenth of the throughput at 5 ms and 50 clients.
	probeEvery = 4096
	probeLen   = tuneEvery
	// Fsyncs in flight together that queue behind each other (FUSE holds
	// the inode lock through an fsync; a journal may commit them one by
	// one) take about as many times as long as one alone as there were in
	// flight when they began: overlap then only shrinks the groups. Found
	// when the median of the fsyncs overlapped takes serialFactor times
	// the median alone, and at least serialShare of the median number in
	// flight at their start, in serialChecks checks in a row (a stall of
	// the machine lengthens every fsync in flight at once, for a moment).
	// ModeOne is then kept for a backoff of fsyncs, doubled each time.
	serialFactor = 2
	serialShare  = 0.6
	serialChecks = 4
	backoffMin   = 4096
	backoffMax   = 1 << 20
)

// Reason says why the tuner chose its mode (INFO aof_group_commit_reason).
type Reason uint8

const (
	ReasonWarmup      Reason = iota // too few fsyncs measured yet
	ReasonFastFlush                 // flush below the minimum wall time
	ReasonCPUBound                  // the flush is mostly the thread's CPU
	ReasonDeviceBound               // the flush is mostly waiting for the device
	ReasonSerialized                // overlapped fsyncs queued behind each other
)

func (r Reason) String() string {
	switch r {
	case ReasonFastFlush:
		return "fast-flush"
	case ReasonCPUBound:
		return "cpu-bound"
	case ReasonDeviceBound:
		return "device-bound"
	case ReasonSerialized:
		return "serialized"
	}
	return "warmup"
}

// decide returns the mode for the median wall and CPU time of an fsync
// run alone, given the current mode (the gaps between the enter and leave
// thresholds keep it from flapping).
func decide(cur GroupMode, wall, cpu time.Duration) (GroupMode, Reason) {
	minWall, ratio := overlapMinWall, time.Duration(overlapEnterRatio)
	if cur == ModeOverlap {
		minWall, ratio = overlapLeaveWall, overlapLeaveRatio
	}
	switch {
	case wall < minWall:
		return ModeOne, ReasonFastFlush
	case cpu*ratio > wall:
		return ModeOne, ReasonCPUBound
	}
	return ModeOverlap, ReasonDeviceBound
}

// fsyncTuner keeps the recent samples; guarded by AOF.mu.
type fsyncTuner struct {
	alone         sampleRing // fsyncs no other overlapped: wall and CPU
	together      sampleRing // fsyncs others overlapped: wall
	fresh         int        // alone samples since the last decision
	freshTogether int        // together samples since the last check for serialization
	serial        int        // checks in a row that found them queued
	n             int64      // fsyncs measured
	mode          GroupMode
	reason        Reason
	switches      int64
	probing       bool
	nextProbe     int64 // n at which ModeOverlap's next probe starts
	noOverlap     int64 // n before which ModeOverlap is not chosen (serialized)
	backoff       int64
	wall, cpu     time.Duration // the medians of the last decision
}

type sampleRing struct {
	n         int
	wall, cpu [tuneWindow]time.Duration
}

func (r *sampleRing) add(wall, cpu time.Duration) {
	r.wall[r.n%tuneWindow], r.cpu[r.n%tuneWindow] = wall, cpu
	r.n++
}

// medians returns the median wall and CPU time of the samples held.
func (r *sampleRing) medians() (wall, cpu time.Duration) {
	k := min(r.n, tuneWindow)
	if k == 0 {
		return 0, 0
	}
	w, c := r.wall, r.cpu
	slices.Sort(w[:k])
	slices.Sort(c[:k])
	return w[k/2], c[k/2]
}

// observe accounts one fsync (alone: no other fsync was in flight at any
// time during it; conc: how many were in flight when it began, itself
// included) and returns the mode and whether a probe is on.
func (t *fsyncTuner) observe(wall, cpu time.Duration, alone bool, conc int32) (GroupMode, bool) {
	t.n++
	if !alone {
		t.together.add(wall, time.Duration(conc))
		t.freshTogether++
		if t.mode == ModeOverlap && t.together.n >= tuneWarmup && t.freshTogether >= tuneEvery {
			t.freshTogether = 0
			if !t.queued() {
				t.serial = 0
			} else if t.serial++; t.serial >= serialChecks {
				t.serial = 0
				t.backoff = min(max(2*t.backoff, backoffMin), backoffMax)
				t.noOverlap = t.n + t.backoff
				t.setMode(ModeOne, ReasonSerialized)
				return t.mode, t.probing
			}
		}
		if t.mode == ModeOverlap && !t.probing && t.n >= t.nextProbe {
			t.probing, t.fresh = true, 0
		}
		return t.mode, t.probing
	}
	t.alone.add(wall, cpu)
	t.fresh++
	if t.alone.n < tuneWarmup || t.fresh < tuneEvery {
		return t.mode, t.probing
	}
	t.fresh = 0
	t.wall, t.cpu = t.alone.medians()
	m, r := decide(t.mode, t.wall, t.cpu)
	if m == ModeOverlap && t.mode == ModeOne && t.n < t.noOverlap {
		m, r = ModeOne, ReasonSerialized
	}
	t.setMode(m, r)
	t.nextProbe = t.n + probeEvery
	return t.mode, t.probing
}

// queued reports whether the fsyncs overlapped lately took about as many
// times as long as one alone as there were in flight (see serialFactor).
func (t *fsyncTuner) queued() bool {
	tw, conc := t.together.medians()
	// together's second figure is the number in flight at the start.
	f := max(serialFactor, serialShare*float64(conc))
	return float64(tw) >= f*float64(t.wall)
}

func (t *fsyncTuner) setMode(m GroupMode, r Reason) {
	t.reason = r
	t.probing = false
	if m != t.mode {
		t.mode = m
		t.switches++
		// Fsyncs in flight together under the other mode say nothing
		// of this one.
		t.together, t.freshTogether = sampleRing{}, 0
	}
}

// timedSync fdatasyncs f and returns how long it took in wall time and in
// CPU time of the thread that ran it (cpuOK false: not measured), and
// whether it ran alone: no other fsync under Always was in flight at any
// time during it.
func (a *AOF) timedSync(f interface{ Sync() error }) (err error, m syncTiming) {
	seq := a.syncStarts.Add(1)
	m.conc = a.inSync.Add(1)
	clock, ok := cpuClock()
	var c0 time.Duration
	if ok {
		c0, ok = readCPU(clock)
	}
	t0 := a.syncClock()
	err = f.Sync()
	m.wall = a.syncClock() - t0
	if ok {
		var c1 time.Duration
		if c1, ok = readCPU(clock); ok && c1 >= c0 {
			m.cpu, m.cpuOK = c1-c0, true
		}
	}
	m.alone = m.conc == 1 && a.syncStarts.Load() == seq
	a.inSync.Add(-1)
	return err, m
}

// syncTiming is what timedSync measured of one fsync.
type syncTiming struct {
	wall, cpu    time.Duration
	cpuOK, alone bool
	conc         int32 // fsyncs in flight when it began, itself included
}

// syncCounters tell timedSync whether an fsync ran alone.
type syncCounters struct {
	syncStarts atomic.Int64 // fsyncs begun
	inSync     atomic.Int32 // fsyncs in flight
}

// Inflight returns how many fsyncs the network loop should have in flight
// at once under Always when aof-group-commit-inflight is left to the
// tuner: tuneInflight in ModeOverlap, else (and during a probe) 1.
func (a *AOF) Inflight() int {
	if GroupMode(a.mode.Load()) == ModeOverlap && !a.probing.Load() {
		return tuneInflight
	}
	return 1
}

// FlushTime returns the median wall time of an fsync run alone under
// Always, as the tuner last measured it (0: not yet): the network loop
// spaces the starts of overlapped fsyncs by it.
func (a *AOF) FlushTime() time.Duration { return time.Duration(a.flushWall.Load()) }

// tuneFsync feeds the tuner one fsync under Always.
func (a *AOF) tuneFsync(m syncTiming) {
	a.mu.Lock()
	mode, probing := a.tuner.observe(m.wall, m.cpu, m.alone, m.conc)
	wall := a.tuner.wall
	a.mu.Unlock()
	a.flushWall.Store(int64(wall))
	a.mode.Store(uint32(mode))
	a.probing.Store(probing)
}

var monoStart = time.Now()

// syncClock reads the clock that times fsyncs: Options.SyncClock or the
// monotonic clock.
func (a *AOF) syncClock() time.Duration {
	if a.opt.SyncClock != nil {
		return a.opt.SyncClock()
	}
	return time.Since(monoStart)
}
