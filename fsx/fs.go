package fsx

import (
	"io"
	"strconv"
)

// File is an open file for writing (AOF incr and base files, temp files).
type File interface {
	Write(p []byte) (int, error)
	// WriteAt writes p at off (pwrite(2)); the write offset does not move.
	// Not for files opened with OpenAppend (Linux would append anyway).
	WriteAt(p []byte, off int64) (int, error)
	// Sync is a durability point: fdatasync(2) on Linux, fsync(2) elsewhere.
	Sync() error
	// Truncate changes the size of the file (ftruncate). The write offset is
	// not moved; append-mode files keep writing at the new end.
	Truncate(size int64) error
	Size() (int64, error)
	Close() error
	Name() string
}

// ReadFile is an open file for reading.
type ReadFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Size() (int64, error)
}

// FS is the set of file-system operations the code writing the data
// directory may perform (see the package doc).
type FS interface {
	// Create opens path O_WRONLY|O_CREAT|O_TRUNC, mode 0644.
	Create(path string) (File, error)
	// OpenAppend opens path O_WRONLY|O_CREAT|O_APPEND, mode 0644.
	OpenAppend(path string) (File, error)
	// OpenWrite opens path O_WRONLY|O_CREAT, mode 0644, for WriteAt.
	OpenWrite(path string) (File, error)
	// Open opens path read-only. A missing file gives an error satisfying
	// errors.Is(err, fs.ErrNotExist).
	Open(path string) (ReadFile, error)
	Stat(path string) (size int64, err error)
	Rename(oldpath, newpath string) error
	Remove(path string) error
	Truncate(path string, size int64) error
	MkdirAll(path string) error
	// ReadDir returns the names in dir, sorted.
	ReadDir(dir string) ([]string, error)
	// SyncDir makes dir's entries durable. EBADF/EINVAL are ignored like Redis.
	SyncDir(dir string) error
}

// Op names an FS or File operation, for CrashFS's injector.
type Op uint8

// Operations seen by a CrashFS injector.
const (
	OpCreate Op = iota
	OpOpenAppend
	OpOpenWrite
	OpOpen
	OpWrite
	OpSync
	OpTruncate
	OpRename
	OpRemove
	OpMkdir
	OpSyncDir
	OpStat // FS.Stat and File/ReadFile Size
	OpReadDir
	OpClose
	OpRead // ReadFile Read and ReadAt
)

var opNames = [...]string{
	OpCreate:     "create",
	OpOpenAppend: "open-append",
	OpOpenWrite:  "open-write",
	OpOpen:       "open",
	OpWrite:      "write",
	OpSync:       "sync",
	OpTruncate:   "truncate",
	OpRename:     "rename",
	OpRemove:     "remove",
	OpMkdir:      "mkdir",
	OpSyncDir:    "syncdir",
	OpStat:       "stat",
	OpReadDir:    "readdir",
	OpClose:      "close",
	OpRead:       "read",
}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}
