package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

// memToInt parses a memory value like Redis's memtoull: digits (possibly
// none, meaning 0) followed by an optional unit b, k, kb, m, mb, g, gb
// (case-insensitive; k = 1000, kb = 1024). Values beyond int64 are rejected.
func memToInt(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	var v uint64
	if i > 0 {
		var err error
		v, err = strconv.ParseUint(s[:i], 10, 64)
		if err != nil {
			return 0, false
		}
	}
	if v != 0 && mul > math.MaxInt64/v {
		return 0, false
	}
	return int64(v * mul), true
}

// ParseMemory is memToInt for other packages (DEBUG's memory arguments).
func ParseMemory(s string) (int64, bool) { return memToInt(s) }

// formatMemory writes bytes in the largest exact unit, as CONFIG REWRITE
// does (rewriteConfigFormatMemory).
func formatMemory(v int64) string {
	const kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
	switch {
	case v != 0 && v%gb == 0:
		return strconv.FormatInt(v/gb, 10) + "gb"
	case v != 0 && v%mb == 0:
		return strconv.FormatInt(v/mb, 10) + "mb"
	case v != 0 && v%kb == 0:
		return strconv.FormatInt(v/kb, 10) + "kb"
	}
	return strconv.FormatInt(v, 10)
}

// strtollFull mimics strtoll(s, &end, 10) with *end == '\0' required:
// leading blanks and a sign are allowed, an empty number is 0 only when
// s is empty (the end pointer then points at the NUL).
func strtollFull(s string) (int64, bool) {
	v, end, _ := rstring.Strtoll(s)
	return v, end == len(s)
}
