//go:build !linux

package aof

import "time"

// cpuClock: no per-thread CPU clock here; the tuner (tune.go) then gets no
// samples and keeps one fsync in flight.
func cpuClock() (int32, bool) { return 0, false }

func readCPU(int32) (time.Duration, bool) { return 0, false }
