package server

import _ "unsafe" // for go:linkname

// monoNow is the runtime's monotonic clock in nanoseconds: one vDSO read,
// where time.Now reads the wall clock too. call() times every command with
// it (commandstats, SLOWLOG, LATENCY), twice per command on the hot path.
//
//go:linkname monoNow runtime.nanotime
func monoNow() int64
