package aof

import (
	"slices"
	"time"
)

// Stats feeds INFO persistence (spec §6) plus our group-commit fields.
type Stats struct {
	CurrentSize     int64 // aof_current_size
	BaseSize        int64 // aof_base_size
	BufferLength    int64 // aof_buffer_length: fed, not yet written
	PendingBioFsync int64 // aof_pending_bio_fsync
	DelayedFsync    int64 // aof_delayed_fsync
	LastWriteOK     bool  // aof_last_write_status (false also while a background fsync failed)
	LastWriteErr    error
	Fsyncs          int64 // fdatasyncs of incr files by the writer/syncer
	AvgCmdsPerFsync float64
	MaxCmdsPerFsync int64
	FsyncP50        time.Duration // over the last 1024 fsyncs
	FsyncP99        time.Duration
	// The self-tuning group commit (tune.go): the mode it chose, why
	// (smoothed wall and thread-CPU time of an fsync under Always) and
	// how often it changed its mind.
	GroupMode         GroupMode
	GroupReason       Reason
	FsyncWall         time.Duration
	FsyncCPU          time.Duration
	ModeSwitches      int64
	RewriteInProgress bool
}

const fsyncRing = 1024

// fsyncStats is guarded by AOF.mu.
type fsyncStats struct {
	count      int64
	cmds       int64
	max        int64
	syncedCmds int64 // writtenCmds covered by the last fsync
	durs       [fsyncRing]time.Duration
}

// recordFsync accounts one fsync that covered everything up to cmds commands.
func (a *AOF) recordFsync(d time.Duration, cmds int64) {
	a.mu.Lock()
	s := &a.stats
	c := cmds - s.syncedCmds
	if c < 0 {
		c = 0
	}
	s.syncedCmds = max(s.syncedCmds, cmds)
	s.durs[s.count%fsyncRing] = d
	s.count++
	s.cmds += c
	s.max = max(s.max, c)
	a.mu.Unlock()
}

// Stats returns a snapshot of the counters.
func (a *AOF) Stats() Stats {
	st := Stats{
		CurrentSize:     a.currentSize.Load(),
		BaseSize:        a.baseSize.Load(),
		BufferLength:    a.bufLen.Load(),
		PendingBioFsync: a.pendingBio.Load(),
		DelayedFsync:    a.delayedFsync.Load(),
		LastWriteErr:    a.WriteErr(),
	}
	st.LastWriteOK = st.LastWriteErr == nil
	a.mu.Lock()
	s := &a.stats
	st.Fsyncs = s.count
	st.MaxCmdsPerFsync = s.max
	if s.count > 0 {
		st.AvgCmdsPerFsync = float64(s.cmds) / float64(s.count)
	}
	n := min(s.count, fsyncRing)
	durs := slices.Clone(s.durs[:n])
	st.RewriteInProgress = a.rw != nil
	st.GroupMode, st.GroupReason, st.FsyncWall, st.FsyncCPU, st.ModeSwitches = a.tuner.mode, a.tuner.reason, a.tuner.wall, a.tuner.cpu, a.tuner.switches
	a.mu.Unlock()
	if n > 0 {
		slices.Sort(durs)
		st.FsyncP50 = durs[(n-1)*50/100]
		st.FsyncP99 = durs[(n-1)*99/100]
	}
	return st
}
