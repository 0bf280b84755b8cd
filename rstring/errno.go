package rstring

import (
	"errors"
	"strconv"
	"syscall"
)

// Strerror renders err the way C's strerror(3) (glibc) does for an errno
// ("No space left on device"), which is what Redis puts in its log lines,
// the MISCONF reply and CONFIG REWRITE's error. An errno wrapped in err (as
// in an *os.PathError) counts; other errors are returned as err.Error().
func Strerror(err error) string {
	if err == nil {
		return ""
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	// Go's texts are glibc's with the first letter lowered; an errno Go has
	// no text for reads "errno N", glibc's "Unknown error N".
	s := errno.Error()
	if s == "errno "+strconv.Itoa(int(errno)) {
		return "Unknown error " + strconv.Itoa(int(errno))
	}
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
