package aof

import "strings"

// Policy is the appendfsync setting.
type Policy uint8

// The appendfsync policies.
const (
	// Always writes and fdatasyncs before Wait returns (group commit).
	Always Policy = iota
	// EverySec writes before Wait returns and fdatasyncs once per second in
	// the background.
	EverySec
	// No writes before Wait returns and never fsyncs (the kernel decides).
	No
)

// ParsePolicy parses "always", "everysec" or "no" (case-insensitive, as
// Redis's config enums).
func ParsePolicy(s string) (Policy, bool) {
	switch strings.ToLower(s) {
	case "always":
		return Always, true
	case "everysec":
		return EverySec, true
	case "no":
		return No, true
	}
	return 0, false
}

func (p Policy) String() string {
	switch p {
	case Always:
		return "always"
	case EverySec:
		return "everysec"
	case No:
		return "no"
	}
	return "unknown"
}
