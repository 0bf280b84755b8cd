package fsx

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// TempName is the name WriteFileAtomic writes before renaming over path:
// "temp-" + base(path) in the same directory (Redis's temp manifest name).
func TempName(path string) string {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "temp-"+base)
}

// Step names the step of ReplaceFile that failed, so a caller can log the
// line Redis logs for it (rdbSave has one for the open, one for the rename
// and one for everything else).
type Step uint8

// ReplaceFile's steps, in order.
const (
	StepCreate  Step = iota // creating the temp file
	StepWrite               // writing it (the caller's write function)
	StepSync                // fsyncing it
	StepClose               // closing it
	StepRename              // renaming it over the final path
	StepSyncDir             // fsyncing the directory
)

var stepNames = [...]string{
	StepCreate:  "create temp file %q",
	StepWrite:   "write temp file %q",
	StepSync:    "sync temp file %q",
	StepClose:   "close temp file %q",
	StepRename:  "rename %q to %q",
	StepSyncDir: "sync dir %q after renaming %q",
}

// ReplaceError is ReplaceFile's error: which step failed and why.
type ReplaceError struct {
	Step      Step
	Tmp, Path string
	Err       error
}

func (e *ReplaceError) Error() string {
	var what string
	switch e.Step {
	case StepRename:
		what = fmt.Sprintf(stepNames[e.Step], e.Tmp, e.Path)
	case StepSyncDir:
		what = fmt.Sprintf(stepNames[e.Step], filepath.Dir(e.Path), e.Path)
	default:
		what = fmt.Sprintf(stepNames[e.Step], e.Tmp)
	}
	return "fsx: " + what + ": " + e.Err.Error()
}

func (e *ReplaceError) Unwrap() error { return e.Err }

// FailedStep is the step of a ReplaceFile error (ok false for any other
// error).
func FailedStep(err error) (step Step, ok bool) {
	var re *ReplaceError
	if errors.As(err, &re) {
		return re.Step, true
	}
	return 0, false
}

// ReplaceFile is the one atomic file replace of the module (manifest,
// dump.rdb, CONFIG REWRITE's files): it creates tmp (in path's directory),
// lets write fill it, Syncs and Closes it, Renames it over path and syncs
// the directory, so that a crash leaves either the old or the new content
// under path, never a mix. When it returns nil the new content is durable
// under path. Its error is a *ReplaceError naming the failed step.
//
// If a step before the rename fails, tmp is removed (best effort: Redis's
// unlink of its temp file) and path is untouched. If SyncDir fails the
// rename has happened in memory, but whether it survives a crash is
// unknown: callers must treat that as a failure of the state they were
// persisting, as Redis does.
func ReplaceFile(fsys FS, path, tmp string, write func(w io.Writer) error) error {
	path = filepath.Clean(path)
	fail := func(step Step, err error) error {
		return &ReplaceError{Step: step, Tmp: tmp, Path: path, Err: err}
	}
	f, err := fsys.Create(tmp)
	if err != nil {
		return fail(StepCreate, err)
	}
	if err := write(f); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fail(StepWrite, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fail(StepSync, err)
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return fail(StepClose, err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return fail(StepRename, err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return fail(StepSyncDir, err)
	}
	return nil
}

// WriteFileAtomic replaces path with data through ReplaceFile, the temp
// file being TempName(path) (Redis's temp manifest name).
func WriteFileAtomic(fsys FS, path string, data []byte) error {
	return ReplaceFile(fsys, path, TempName(filepath.Clean(path)), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFile creates (or truncates) path and writes data, without any
// fsync: for files that need not survive a crash, as Redis's pidfile.
func WriteFile(fsys FS, path string, data []byte) error {
	f, err := fsys.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadAll returns path's whole content (os.ReadFile through fsys).
func ReadAll(fsys FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
