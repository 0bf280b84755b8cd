package server

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
	"golang.org/x/sys/unix"
)

// modelFS is a stand-in disk for the self-tuning group commit: each fsync
// of an AOF file advances a virtual clock (the server's testSyncClock) by
// its flush time. "device": 5 ms that cost no CPU, like a network disk;
// "cpu": the fsync burns 600 µs of the thread's CPU and takes just that,
// like a flush that is all kernel work.
type modelFS struct {
	fsx.FS
	clock atomic.Int64 // ns
	cpu   atomic.Bool
}

func (m *modelFS) now() time.Duration { return time.Duration(m.clock.Load()) }

type modelFile struct {
	fsx.File
	m *modelFS
}

func threadNanos() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

func (f *modelFile) Sync() error {
	err := f.File.Sync()
	if !f.m.cpu.Load() {
		f.m.clock.Add(int64(5 * time.Millisecond))
		return err
	}
	// The caller (aof's timedSync) keeps this goroutine on its thread;
	// lock it here too, so the spin below is measured on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadNanos()
	x := uint64(1)
	for threadNanos()-c0 < int64(600*time.Microsecond) {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Add(x)
	f.m.clock.Add(threadNanos() - c0)
	return err
}

var sink atomic.Uint64

func (m *modelFS) OpenAppend(p string) (fsx.File, error) {
	f, err := m.FS.OpenAppend(p)
	if err != nil {
		return nil, err
	}
	return &modelFile{File: f, m: m}, nil
}

func (m *modelFS) OpenWrite(p string) (fsx.File, error) {
	f, err := m.FS.OpenWrite(p)
	if err != nil {
		return nil, err
	}
	return &modelFile{File: f, m: m}, nil
}

func persistenceInfo(t *testing.T, c *respConn) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(bulkText(c.do("INFO", "persistence")), "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// TestGroupCommitTunes: with aof-group-commit-inflight left to the tuner,
// a disk whose flush is device time makes the server overlap fsyncs (16 in
// flight), one whose flush is CPU puts it back to one in flight, and INFO
// persistence says which and why; an explicit aof-group-commit-inflight
// fixes the mode.
func TestGroupCommitTunes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU clock: linux only")
	}
	m := &modelFS{FS: fsx.OS()}
	ts := startOurServerWith(t, func(s *Server) {
		s.testFS = m
		s.testSyncClock = m.now
	}, "--appendonly", "yes", "--appendfsync", "always")
	admin := dial(t, ts.addr)
	info := func() map[string]string { return persistenceInfo(t, admin) }
	if got := info(); got["aof_group_commit_mode"] != "one" || got["aof_group_commit_reason"] != "warmup" ||
		got["aof_group_commit_inflight_max"] != "1" {
		t.Fatalf("at start: mode %q reason %q inflight %q, want one, warmup, 1",
			got["aof_group_commit_mode"], got["aof_group_commit_reason"], got["aof_group_commit_inflight_max"])
	}

	// Load from a few clients until the wanted mode shows.
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		c := dial(t, ts.addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if r := c.do("INCR", "n"); r[0] != ':' {
					t.Errorf("INCR: %q", r)
					return
				}
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	await := func(mode, reason, inflight string) {
		t.Helper()
		var last map[string]string
		waitFor(t, "aof_group_commit_mode:"+mode+" ("+reason+")", func() bool {
			last = info()
			return last["aof_group_commit_mode"] == mode && last["aof_group_commit_reason"] == reason
		})
		if last["aof_group_commit_inflight_max"] != inflight {
			t.Fatalf("mode %s: aof_group_commit_inflight_max %q, want %s", mode, last["aof_group_commit_inflight_max"], inflight)
		}
		if mode != "one" || reason != "fixed" {
			if w := last["aof_fsync_wall_usec"]; w == "0" || w == "" {
				t.Fatalf("aof_fsync_wall_usec %q", w)
			}
		}
	}
	await("overlap", "device-bound", "16")
	m.cpu.Store(true)
	await("one", "cpu-bound", "1")
	m.cpu.Store(false)
	await("overlap", "device-bound", "16")

	// Set by hand, the knob wins; back to 0, the tuner again.
	if r := admin.do("CONFIG", "SET", "aof-group-commit-inflight", "1"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", r)
	}
	await("one", "fixed", "1")
	if r := admin.do("CONFIG", "SET", "aof-group-commit-inflight", "0"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", r)
	}
	await("overlap", "device-bound", "16")
}
