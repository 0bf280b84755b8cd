//go:build !linux

package aof

import "time"

// threadCPU: no per-thread CPU clock here; the tuner (tune.go) then sees
// every fsync as CPU-bound and keeps one in flight.
func threadCPU() (time.Duration, bool) { return 0, false }
