package aof

import "github.com/aofserver/aofserver/config"

// Policy is the appendfsync setting, config's typed policy.
type Policy = config.Fsync

// The appendfsync policies.
const (
	// Always writes and fdatasyncs before a ticket is durable (group commit).
	Always = config.FsyncAlways
	// EverySec writes before a ticket is durable and fdatasyncs once per
	// second in the background.
	EverySec = config.FsyncEverySec
	// No writes before a ticket is durable and never fsyncs (the kernel
	// decides).
	No = config.FsyncNo
)

// ParsePolicy parses "always", "everysec" or "no" (case-insensitive, as
// Redis's config enums).
func ParsePolicy(s string) (Policy, bool) { return config.ParseFsync(s) }
