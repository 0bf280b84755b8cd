package aof

import (
	"testing"
	"time"
)

const us = time.Microsecond

func TestTuneDecide(t *testing.T) {
	for _, c := range []struct {
		cur       GroupMode
		wall, cpu time.Duration
		want      GroupMode
		why       Reason
	}{
		{ModeOne, 5000 * us, 12 * us, ModeOverlap, ReasonDeviceBound},    // stand-in 5 ms
		{ModeOne, 1000 * us, 10 * us, ModeOverlap, ReasonDeviceBound},    // stand-in 1 ms
		{ModeOne, 105 * us, 33 * us, ModeOne, ReasonFastFlush},           // virtio fdatasync, idle
		{ModeOne, 408 * us, 40 * us, ModeOne, ReasonCPUBound},            // virtio, growing file, busy
		{ModeOne, 300 * us, 3 * us, ModeOne, ReasonFastFlush},            // below the minimum wall
		{ModeOverlap, 300 * us, 20 * us, ModeOverlap, ReasonDeviceBound}, // hysteresis
		{ModeOverlap, 200 * us, 2 * us, ModeOne, ReasonFastFlush},
		{ModeOverlap, 1000 * us, 150 * us, ModeOne, ReasonCPUBound},
	} {
		m, r := decide(c.cur, c.wall, c.cpu)
		if m != c.want || r != c.why {
			t.Errorf("decide(%v, wall %v, cpu %v) = %v %v, want %v %v", c.cur, c.wall, c.cpu, m, r, c.want, c.why)
		}
	}
}

// feed gives the tuner n fsyncs and returns the mode and probe state after
// the last one.
func feed(tu *fsyncTuner, n int, wall, cpu time.Duration, alone bool) (GroupMode, bool) {
	var m GroupMode
	var p bool
	conc := int32(1)
	if !alone {
		conc = 4
	}
	for range n {
		m, p = tu.observe(wall, cpu, alone, conc)
	}
	return m, p
}

func TestTunerModes(t *testing.T) {
	var tu fsyncTuner
	// Until warmup nothing is decided.
	if m, _ := feed(&tu, tuneWarmup-1, 5000*us, 10*us, true); m != ModeOne || tu.reason != ReasonWarmup {
		t.Fatalf("decided during warmup: %v %v", m, tu.reason)
	}
	if m, _ := feed(&tu, 1, 5000*us, 10*us, true); m != ModeOverlap || tu.reason != ReasonDeviceBound {
		t.Fatalf("5 ms flush, 10 µs CPU: %v %v, want overlap device-bound", m, tu.reason)
	}
	// Overlapped fsyncs as long as one alone: the probe comes after
	// probeEvery of them and ends after probeLen fsyncs alone.
	if _, p := feed(&tu, probeEvery-1, 5100*us, 10*us, false); p {
		t.Fatal("probing before probeEvery fsyncs")
	}
	if _, p := feed(&tu, 1, 5100*us, 10*us, false); !p {
		t.Fatal("no probe after probeEvery overlapped fsyncs")
	}
	if m, p := feed(&tu, probeLen, 5000*us, 10*us, true); p || m != ModeOverlap {
		t.Fatalf("after the probe: %v probing=%v, want overlap, not probing", m, p)
	}
	// A moment's stall of the machine lengthens every fsync in flight:
	// not a queue.
	if m, _ := feed(&tu, tuneWindow/2, 3*5000*us, 10*us, false); m != ModeOverlap {
		t.Fatalf("overlapped fsyncs 3x as long for %d fsyncs: %v %v, want overlap", tuneWindow/2, m, tu.reason)
	}
	feed(&tu, tuneWindow, 5000*us, 10*us, false)
	// Now they queue behind each other (4 in flight, 3x as long, for
	// long): serialized, back to one.
	if m, _ := feed(&tu, tuneWindow+serialChecks*tuneEvery, 3*5000*us, 10*us, false); m != ModeOne || tu.reason != ReasonSerialized {
		t.Fatalf("overlapped fsyncs 3x as long: %v %v, want one serialized", m, tu.reason)
	}
	// The disk still looks device-bound alone, but overlap is not tried
	// again before the backoff.
	if m, _ := feed(&tu, backoffMin-tuneWindow, 5000*us, 10*us, true); m != ModeOne {
		t.Fatalf("overlap retried within the backoff: %v", m)
	}
	if m, _ := feed(&tu, tuneWindow, 5000*us, 10*us, true); m != ModeOverlap {
		t.Fatalf("overlap not retried after the backoff: %v %v", m, tu.reason)
	}
	// A CPU-bound flush ends it.
	if m, _ := feed(&tu, tuneWindow, 600*us, 500*us, true); m != ModeOne || tu.reason != ReasonCPUBound {
		t.Fatalf("CPU-bound flush: %v %v, want one cpu-bound", m, tu.reason)
	}
}

// TestTunerIgnoresSpikes: a virtio disk's occasional slow fsync (a
// neighbour's I/O) must not turn a CPU-bound flush into overlap: the tuner
// decides on medians.
func TestTunerIgnoresSpikes(t *testing.T) {
	var tu fsyncTuner
	for i := range 4096 {
		wall := 110 * us
		if i%4 == 0 {
			wall = 10 * time.Millisecond
		}
		if m, _ := tu.observe(wall, 35*us, true, 1); m != ModeOne {
			t.Fatalf("fsync %d: overlap chosen on spikes (median wall %v, cpu %v)", i, tu.wall, tu.cpu)
		}
	}
	if tu.switches != 0 || tu.reason != ReasonFastFlush {
		t.Fatalf("%d switches, reason %v", tu.switches, tu.reason)
	}
}
