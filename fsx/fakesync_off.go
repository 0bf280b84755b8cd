//go:build !fakesync || !linux

package fsx

// fakeSyncUsec < 0: every fdatasync is real (see fakesync_on.go).
const fakeSyncUsec = -1

func fakeDatasync() error { return nil }
