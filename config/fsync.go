package config

import "strings"

// Fsync is the appendfsync policy, typed: code that acts on it (the AOF)
// switches on this rather than comparing Config.AppendFsync's text.
type Fsync uint8

// The appendfsync policies.
const (
	// FsyncAlways: a write is fdatasync'ed before any reply that
	// acknowledges or reveals it leaves.
	FsyncAlways Fsync = iota
	// FsyncEverySec: written before the reply, fdatasync'ed once per
	// second in the background.
	FsyncEverySec
	// FsyncNo: written before the reply, never fsynced (the kernel decides).
	FsyncNo
)

// ParseFsync parses "always", "everysec" or "no" (case-insensitive, as
// Redis's config enums).
func ParseFsync(s string) (Fsync, bool) {
	switch strings.ToLower(s) {
	case "always":
		return FsyncAlways, true
	case "everysec":
		return FsyncEverySec, true
	case "no":
		return FsyncNo, true
	}
	return 0, false
}

func (p Fsync) String() string {
	switch p {
	case FsyncAlways:
		return "always"
	case FsyncEverySec:
		return "everysec"
	case FsyncNo:
		return "no"
	}
	return "unknown"
}

// FsyncPolicy is appendfsync as a Fsync (everysec, the default, for a
// value the enum machinery never stores).
func (c *Config) FsyncPolicy() Fsync {
	if p, ok := ParseFsync(c.AppendFsync); ok {
		return p
	}
	return FsyncEverySec
}
