package fsx

import (
	"fmt"
	"path/filepath"
)

// TempName is the name WriteFileAtomic writes before renaming over path:
// "temp-" + base(path) in the same directory (Redis's temp manifest name).
func TempName(path string) string {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "temp-"+base)
}

// WriteFileAtomic replaces path with data so that a crash leaves either the
// old or the new content, never a mix: write dir/"temp-"+base(path), Sync,
// Close, Rename over path, SyncDir(dir). When it returns nil the new content
// is durable under path. Each step's error is wrapped with the step and path.
//
// If a step before the rename fails, the temp file is removed (best effort) and
// path is untouched. If SyncDir fails the rename has happened in memory, but
// whether it survives a crash is unknown: callers must treat that as fatal for
// the state they were persisting, as Redis does.
func WriteFileAtomic(fsys FS, path string, data []byte) error {
	path = filepath.Clean(path)
	tmp := TempName(path)
	f, err := fsys.Create(tmp)
	if err != nil {
		return fmt.Errorf("fsx: create temp file %q: %w", tmp, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fmt.Errorf("fsx: write temp file %q: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fmt.Errorf("fsx: sync temp file %q: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("fsx: close temp file %q: %w", tmp, err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("fsx: rename %q to %q: %w", tmp, path, err)
	}
	dir := filepath.Dir(path)
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("fsx: sync dir %q after renaming %q: %w", dir, path, err)
	}
	return nil
}
