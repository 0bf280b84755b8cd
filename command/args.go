package command

import (
	"math"

	"github.com/aofserver/aofserver/rstring"
)

// Argument parsing several groups share, with Redis's checks and errors.

// ParseRandCount parses the "count [WITH...]" tail of HRANDFIELD and
// ZRANDMEMBER with Redis's checks; ok=false after replying an error.
func ParseRandCount(c Replier, argv [][]byte, with string) (count int64, withPairs, ok bool) {
	l, valid := rstring.String2ll(argv[2])
	if !valid {
		c.Err(ErrNotInt)
		return 0, false, false
	}
	if l == math.MinInt64 {
		c.Err(ErrLongRange)
		return 0, false, false
	}
	if len(argv) > 4 || (len(argv) == 4 && !rstring.EqualFold(argv[3], with)) {
		c.Err(ErrSyntax)
		return 0, false, false
	}
	if len(argv) == 4 {
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			c.Err("ERR value is out of range")
			return 0, false, false
		}
		return l, true, true
	}
	return l, false, true
}

// ParseMpop parses "numkeys key... <a|b> [COUNT n]" starting at argv[first]
// as Redis's mpopGenericCommand; second is true for b.
func ParseMpop(c Replier, argv [][]byte, first int, a, b string) (keys [][]byte, second bool, count int64, ok bool) {
	numkeys, valid := rstring.String2ll(argv[first])
	if !valid || numkeys < 1 {
		c.Err("ERR numkeys should be greater than 0")
		return nil, false, 0, false
	}
	if numkeys >= int64(len(argv)-first-1) {
		c.Err(ErrSyntax)
		return nil, false, 0, false
	}
	whereIdx := first + 1 + int(numkeys)
	switch {
	case rstring.EqualFold(argv[whereIdx], a):
	case rstring.EqualFold(argv[whereIdx], b):
		second = true
	default:
		c.Err(ErrSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(argv); j++ {
		if count == -1 && rstring.EqualFold(argv[j], "count") && j+1 < len(argv) {
			j++
			v, valid := rstring.String2ll(argv[j])
			if !valid || v < 1 {
				c.Err("ERR count should be greater than 0")
				return nil, false, 0, false
			}
			count = v
			continue
		}
		c.Err(ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return argv[first+1 : whereIdx], second, count, true
}
