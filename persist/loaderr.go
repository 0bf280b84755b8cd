package persist

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aofserver/aofserver/rdb"
)

// LoadDump loads dump.rdb through load (Redis's loadDataFromDisk with
// appendonly no): without the file the dataset stays empty, and a file
// that fails to load is reported as Redis does (LoadFailed).
func (p *Persister) LoadDump(load func(r *bufio.Reader) error) error {
	path := p.DumpPath()
	f, err := p.env.FS().Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("Fatal error loading the DB: %v. Exiting.", err)
	}
	defer f.Close()
	start := time.Now()
	if err := load(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return p.LoadFailed(path, err)
	}
	p.notice("DB loaded from disk: %.3f seconds", time.Since(start).Seconds())
	return nil
}

// ErrLoadTerminated is the last line Redis logs before exiting on a
// dump.rdb it could not read.
var ErrLoadTerminated = errors.New("Terminating server after rdb file reading failure.")

// ErrLoadAborted is returned once Env.Exit(1) has been called without a
// closing line (only reached when Exit returns, in tests).
var ErrLoadAborted = errors.New("exited after the RDB check")

// LoadFailed reports the failed load of the RDB file at path as Redis
// 7.0.15's rdbReportError does while loading a file: Redis's lines for the
// failure, then redis-check-rdb's report on the file (to CheckReport); the
// returned error is the closing "Terminating server" line, for the caller
// to log before exiting 1. Errors Redis reports without the check come
// back wrapped.
func (p *Persister) LoadFailed(path string, err error) error {
	lines, ok := rdb.LoadFailureLines(err)
	if !ok {
		if p.LoadRefused(err) {
			return errors.New("Fatal error loading the DB: Invalid argument. Exiting.")
		}
		return fmt.Errorf("Short read or OOM loading DB. Unrecoverable error, aborting now. (%s: %w)", path, err)
	}
	for _, l := range lines {
		p.env.Log.Warning(l)
	}
	p.env.Log.Verbose(fmt.Sprintf("%s: %v", path, err))
	f, oerr := p.env.FS().Open(path)
	if oerr != nil {
		return ErrLoadTerminated
	}
	out := p.CheckReport
	if out == nil {
		// Redis prints the report with printf, to standard output, not
		// through the log.
		out = os.Stdout
	}
	res := rdb.Check(bufio.NewReaderSize(f, 1<<17), filepath.Base(path), out, rdb.CheckOptions{Now: time.Now().UnixMilli()})
	f.Close()
	if !res.Terminated {
		// The check reported a short file or a bad checksum itself and
		// redis_check_rdb_main exits on the spot: no closing line. (Corrupt
		// content stops the check through rdbReportError, which logs the
		// closing line.)
		p.env.Exit(1)
		return ErrLoadAborted
	}
	return ErrLoadTerminated
}

// LoadRefused logs the line Redis's rdbLoad logs for a file it refuses
// before its content (a wrong signature, a version it does not handle),
// which it fails with errno EINVAL without the RDB error report; false
// for other errors. err is one rdb.LoadFailureLines does not report.
func (p *Persister) LoadRefused(err error) bool {
	var ve *rdb.VersionError
	var ce *rdb.CorruptionError
	switch {
	case errors.As(err, &ve):
		p.warning("Can't handle RDB format version %d", ve.Version)
	case errors.As(err, &ce):
		p.env.Log.Warning(ce.Err.Error()) // "Wrong signature trying to load DB from file"
	default:
		return false
	}
	return true
}
