package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aofserver/aofserver/rdb"
)

// errRDBLoadTerminated is the last line Redis logs before exiting on a
// dump.rdb it could not read.
var errRDBLoadTerminated = errors.New("Terminating server after rdb file reading failure.")

// errRDBLoadAborted is returned once exitFn(1) has been called without a
// closing line (only reached when exitFn returns, in tests).
var errRDBLoadAborted = errors.New("exited after the RDB check")

// checkReportOut receives redis-check-rdb's report: Redis prints it with
// printf, to standard output, not through the log.
var checkReportOut io.Writer = os.Stdout

// rdbLoadFailed reports the failed load of the RDB file at path as Redis
// 7.0.15's rdbReportError does while loading a file: Redis's lines for the
// failure, then redis-check-rdb's report on the file; the returned error
// is the closing "Terminating server" line, for the caller to log before
// exiting 1. Errors Redis reports without the check come back wrapped.
func (s *Server) rdbLoadFailed(path string, err error) error {
	lines, ok := rdb.LoadFailureLines(err)
	if !ok {
		if s.rdbLoadRefused(err) {
			return errors.New("Fatal error loading the DB: Invalid argument. Exiting.")
		}
		return fmt.Errorf("Short read or OOM loading DB. Unrecoverable error, aborting now. (%s: %w)", path, err)
	}
	for _, l := range lines {
		s.log.Warn().Msg(l)
	}
	s.log.Debug().Msgf("%s: %v", path, err)
	f, oerr := s.fsys().Open(path)
	if oerr != nil {
		return errRDBLoadTerminated
	}
	res := rdb.Check(bufio.NewReaderSize(f, 1<<17), filepath.Base(path), checkReportOut, rdb.CheckOptions{Now: time.Now().UnixMilli()})
	f.Close()
	if !res.Terminated {
		// The check reported a short file or a bad checksum itself and
		// redis_check_rdb_main exits on the spot: no closing line. (Corrupt
		// content stops the check through rdbReportError, which logs the
		// closing line.)
		s.exitFn(1)
		return errRDBLoadAborted
	}
	return errRDBLoadTerminated
}

// rdbLoadRefused logs the line Redis's rdbLoad logs for a file it refuses
// before its content (a wrong signature, a version it does not handle),
// which it fails with errno EINVAL without the RDB error report; false
// for other errors. err is one rdb.LoadFailureLines does not report.
func (s *Server) rdbLoadRefused(err error) bool {
	var ve *rdb.VersionError
	var ce *rdb.CorruptionError
	switch {
	case errors.As(err, &ve):
		s.log.Warn().Msgf("Can't handle RDB format version %d", ve.Version)
	case errors.As(err, &ce):
		s.log.Warn().Msg(ce.Err.Error()) // "Wrong signature trying to load DB from file"
	default:
		return false
	}
	return true
}
