package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// OS returns the FS of the operating system.
func OS() FS { return osFS{} }

type osFS struct{}

type osFile struct{ f *os.File }

func (o osFile) Write(p []byte) (int, error) { return o.f.Write(p) }
func (o osFile) WriteAt(p []byte, off int64) (int, error) {
	return o.f.WriteAt(p, off)
}
func (o osFile) Truncate(size int64) error { return o.f.Truncate(size) }
func (o osFile) Close() error              { return o.f.Close() }
func (o osFile) Name() string              { return o.f.Name() }
func (o osFile) Size() (int64, error)      { return fileSize(o.f) }

func (o osFile) Sync() error {
	rc, err := o.f.SyscallConn()
	if err != nil {
		return &os.PathError{Op: "fdatasync", Path: o.f.Name(), Err: err}
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = datasync(int(fd)) }); err != nil {
		return &os.PathError{Op: "fdatasync", Path: o.f.Name(), Err: err}
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: o.f.Name(), Err: serr}
	}
	return nil
}

type osReadFile struct{ *os.File }

func (o osReadFile) Size() (int64, error) { return fileSize(o.File) }

func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (osFS) Create(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) OpenAppend(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) OpenWrite(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(path string) (ReadFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return osReadFile{f}, nil
}

func (osFS) Stat(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (osFS) Rename(oldpath, newpath string) error   { return os.Rename(oldpath, newpath) }
func (osFS) Remove(path string) error               { return os.Remove(path) }
func (osFS) Truncate(path string, size int64) error { return os.Truncate(path, size) }
func (osFS) MkdirAll(path string) error             { return os.MkdirAll(path, 0o755) }

func (osFS) ReadDir(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	sort.Strings(names) // os.ReadDir sorts already; the contract must not depend on it
	return names, nil
}

func (osFS) SyncDir(dir string) error {
	dir = filepath.Clean(dir)
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	rc, err := d.SyscallConn()
	if err != nil {
		d.Close()
		return &os.PathError{Op: "fsync", Path: dir, Err: err}
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = datasync(int(fd)) }); err != nil {
		serr = err
	}
	cerr := d.Close()
	// Some file systems cannot fsync a directory; Redis ignores these.
	if serr != nil && !errors.Is(serr, unix.EBADF) && !errors.Is(serr, unix.EINVAL) {
		return &os.PathError{Op: "fsync", Path: dir, Err: serr}
	}
	return cerr
}
