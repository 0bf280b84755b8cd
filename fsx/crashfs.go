package fsx

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// CrashFS is an in-memory FS for crash tests, in the strict model: each file
// remembers the bytes last synced and each directory the entries (name → file
// identity) as of its last SyncDir. Crash returns an FS holding only that
// state. Paths are cleaned with filepath.Clean and otherwise opaque; "/" and
// "." always exist, other directories must be made with MkdirAll.
//
// CrashFS is safe for concurrent use.
type CrashFS struct {
	// injMu serialises injector calls with the op counter, so Ops() read from
	// inside the injector is the index of the op being attempted.
	injMu    sync.Mutex
	injector func(op Op, path string) error // guarded by injMu
	ops      atomic.Int64

	mu   sync.Mutex
	dirs map[string]*memDir // guarded by mu; key is the cleaned dir path
}

type memDir struct {
	entries map[string]*inode // current entries
	synced  map[string]*inode // entries as of the last SyncDir
}

// inode is a file's identity; directory entries and open handles share it, so
// writes through a handle of a renamed or removed file behave as in POSIX.
type inode struct {
	data   []byte // current content; guarded by CrashFS.mu
	synced []byte // content as of the last Sync; guarded by CrashFS.mu
}

// NewCrashFS returns an empty CrashFS holding only "/" and ".".
func NewCrashFS() *CrashFS {
	c := &CrashFS{dirs: make(map[string]*memDir)}
	c.dirs["/"] = newMemDir()
	c.dirs["."] = newMemDir()
	return c
}

func newMemDir() *memDir {
	return &memDir{entries: make(map[string]*inode), synced: make(map[string]*inode)}
}

// SetInjector installs f, called before every operation (including reads,
// Size and Close of handles) with the op and the cleaned path. A non-nil
// error fails that op with nothing done. f may call Ops and Crash (which then
// captures the state just before the op: "power cut at op i"); it must not
// call other CrashFS methods. A nil f removes the injector. For Rename the
// path is the old path.
func (c *CrashFS) SetInjector(f func(op Op, path string) error) {
	c.injMu.Lock()
	c.injector = f
	c.injMu.Unlock()
}

// Ops returns the number of operations attempted so far, injected failures
// included. Called from inside the injector, it is the 0-based index of the
// operation being attempted.
func (c *CrashFS) Ops() int { return int(c.ops.Load()) }

func (c *CrashFS) inject(op Op, path string) error {
	c.injMu.Lock()
	defer c.injMu.Unlock()
	var err error
	if c.injector != nil {
		err = c.injector(op, path)
	}
	c.ops.Add(1)
	return err
}

// Crash returns a new CrashFS holding only the synced state: each file's
// content is its last synced bytes and each directory's entries are those of
// its last SyncDir. Open handles keep referring to the old FS. The new FS has
// no injector and an op count of 0.
func (c *CrashFS) Crash() *CrashFS {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &CrashFS{dirs: make(map[string]*memDir, len(c.dirs))}
	clones := make(map[*inode]*inode) // keep hard-link identity across dirs
	for name, d := range c.dirs {
		nd := newMemDir()
		for ent, ino := range d.synced {
			cl, ok := clones[ino]
			if !ok {
				b := append([]byte(nil), ino.synced...)
				cl = &inode{data: b, synced: append([]byte(nil), b...)}
				clones[ino] = cl
			}
			nd.entries[ent] = cl
			nd.synced[ent] = cl
		}
		n.dirs[name] = nd
	}
	return n
}

// ReadAll returns path's current content, unsynced bytes included. It is a
// test helper: it neither counts as an op nor calls the injector.
func (c *CrashFS) ReadAll(path string) ([]byte, error) {
	path = filepath.Clean(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	ino, err := c.lookup("open", path)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), ino.data...), nil
}

func split(path string) (dir, name string) {
	return filepath.Dir(path), filepath.Base(path)
}

// lookup finds the file at path. Caller holds c.mu.
func (c *CrashFS) lookup(op, path string) (*inode, error) {
	dir, name := split(path)
	d, ok := c.dirs[dir]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: path, Err: fs.ErrNotExist}
	}
	ino, ok := d.entries[name]
	if !ok {
		if _, isDir := c.dirs[path]; isDir {
			return nil, &fs.PathError{Op: op, Path: path, Err: syscall.EISDIR}
		}
		return nil, &fs.PathError{Op: op, Path: path, Err: fs.ErrNotExist}
	}
	return ino, nil
}

// openWrite implements Create (trunc), OpenAppend and OpenWrite (positional).
func (c *CrashFS) openWrite(op Op, path string, trunc bool) (File, error) {
	path = filepath.Clean(path)
	if err := c.inject(op, path); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, isDir := c.dirs[path]; isDir {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	}
	dir, name := split(path)
	d, ok := c.dirs[dir]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	ino, ok := d.entries[name]
	if !ok {
		ino = &inode{}
		d.entries[name] = ino
	} else if trunc {
		ino.data = ino.data[:0:0] // the synced copy is separate; keep it intact
	}
	return &crashFile{c: c, ino: ino, name: path, appendMode: !trunc && op == OpOpenAppend}, nil
}

// Create implements FS.
func (c *CrashFS) Create(path string) (File, error) { return c.openWrite(OpCreate, path, true) }

// OpenAppend implements FS.
func (c *CrashFS) OpenAppend(path string) (File, error) {
	return c.openWrite(OpOpenAppend, path, false)
}

// OpenWrite implements FS.
func (c *CrashFS) OpenWrite(path string) (File, error) {
	return c.openWrite(OpOpenWrite, path, false)
}

// Open implements FS.
func (c *CrashFS) Open(path string) (ReadFile, error) {
	path = filepath.Clean(path)
	if err := c.inject(OpOpen, path); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ino, err := c.lookup("open", path)
	if err != nil {
		return nil, err
	}
	return &crashReadFile{c: c, ino: ino, name: path}, nil
}

// Stat implements FS.
func (c *CrashFS) Stat(path string) (int64, error) {
	path = filepath.Clean(path)
	if err := c.inject(OpStat, path); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, isDir := c.dirs[path]; isDir {
		return 0, nil
	}
	ino, err := c.lookup("stat", path)
	if err != nil {
		return 0, err
	}
	return int64(len(ino.data)), nil
}

// Rename implements FS for files; renaming directories is not supported.
func (c *CrashFS) Rename(oldpath, newpath string) error {
	oldpath, newpath = filepath.Clean(oldpath), filepath.Clean(newpath)
	if err := c.inject(OpRename, oldpath); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ino, err := c.lookup("rename", oldpath)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: unwrapPath(err)}
	}
	if _, isDir := c.dirs[newpath]; isDir {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.EISDIR}
	}
	ndir, nname := split(newpath)
	nd, ok := c.dirs[ndir]
	if !ok {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	odir, oname := split(oldpath)
	delete(c.dirs[odir].entries, oname)
	nd.entries[nname] = ino
	return nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// Remove implements FS. An empty directory is removed at once and durably.
func (c *CrashFS) Remove(path string) error {
	path = filepath.Clean(path)
	if err := c.inject(OpRemove, path); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, isDir := c.dirs[path]; isDir {
		if len(d.entries) > 0 || c.hasSubdir(path) || path == "/" || path == "." {
			return &fs.PathError{Op: "remove", Path: path, Err: syscall.ENOTEMPTY}
		}
		delete(c.dirs, path)
		return nil
	}
	if _, err := c.lookup("remove", path); err != nil {
		return err
	}
	dir, name := split(path)
	delete(c.dirs[dir].entries, name)
	return nil
}

func (c *CrashFS) hasSubdir(dir string) bool {
	for p := range c.dirs {
		if p != dir && filepath.Dir(p) == dir {
			return true
		}
	}
	return false
}

// Truncate implements FS. Not durable until the file is synced.
func (c *CrashFS) Truncate(path string, size int64) error {
	path = filepath.Clean(path)
	if err := c.inject(OpTruncate, path); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ino, err := c.lookup("truncate", path)
	if err != nil {
		return err
	}
	return ino.truncate(path, size)
}

func (ino *inode) truncate(path string, size int64) error {
	if size < 0 {
		return &fs.PathError{Op: "truncate", Path: path, Err: syscall.EINVAL}
	}
	if size <= int64(len(ino.data)) {
		// Cap the capacity so a later extension zero-fills instead of
		// resurrecting the cut bytes still in the backing array.
		ino.data = ino.data[:size:size]
		return nil
	}
	ino.data = append(ino.data, make([]byte, size-int64(len(ino.data)))...)
	return nil
}

// MkdirAll implements FS. Directories are durable at once.
func (c *CrashFS) MkdirAll(path string) error {
	path = filepath.Clean(path)
	if err := c.inject(OpMkdir, path); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var chain []string
	for p := path; ; p = filepath.Dir(p) {
		if _, ok := c.dirs[p]; ok {
			break
		}
		dir, name := split(p)
		if d, ok := c.dirs[dir]; ok {
			if _, isFile := d.entries[name]; isFile {
				return &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
			}
		}
		chain = append(chain, p)
		if p == dir { // root of a relative or absolute path
			break
		}
	}
	for _, p := range chain {
		c.dirs[p] = newMemDir()
	}
	return nil
}

// ReadDir implements FS: files and subdirectories, sorted.
func (c *CrashFS) ReadDir(dir string) ([]string, error) {
	dir = filepath.Clean(dir)
	if err := c.inject(OpReadDir, dir); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[dir]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	names := make([]string, 0, len(d.entries))
	for n := range d.entries {
		names = append(names, n)
	}
	for p := range c.dirs {
		if p != dir && filepath.Dir(p) == dir {
			names = append(names, filepath.Base(p))
		}
	}
	sort.Strings(names)
	return names, nil
}

// SyncDir implements FS: the directory's current entries become durable.
func (c *CrashFS) SyncDir(dir string) error {
	dir = filepath.Clean(dir)
	if err := c.inject(OpSyncDir, dir); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[dir]
	if !ok {
		return &fs.PathError{Op: "open", Path: dir, Err: fs.ErrNotExist}
	}
	d.synced = make(map[string]*inode, len(d.entries))
	for n, ino := range d.entries {
		d.synced[n] = ino
	}
	return nil
}

// String lists the current tree, for test failure messages.
func (c *CrashFS) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var paths []string
	for dp, d := range c.dirs {
		for n, ino := range d.entries {
			paths = append(paths, filepath.Join(dp, n)+" ("+itoa(len(ino.data))+" bytes, "+itoa(len(ino.synced))+" synced)")
		}
	}
	sort.Strings(paths)
	return strings.Join(paths, "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

// enter starts an operation on an open file: it injects op's fault, then
// locks the file system and checks that the file is still open (verb names
// the operation in the error). On nil the caller unlocks c.mu.
func (c *CrashFS) enter(op Op, verb, name string, closed *bool) error {
	if err := c.inject(op, name); err != nil {
		return err
	}
	c.mu.Lock()
	if *closed {
		c.mu.Unlock()
		return &fs.PathError{Op: verb, Path: name, Err: fs.ErrClosed}
	}
	return nil
}

type crashFile struct {
	c          *CrashFS
	ino        *inode
	name       string
	appendMode bool
	pos        int64 // write offset when not in append mode; guarded by c.mu
	closed     bool  // guarded by c.mu
}

func (f *crashFile) Name() string { return f.name }

func (f *crashFile) Write(p []byte) (int, error) {
	if err := f.c.enter(OpWrite, "write", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	ino := f.ino
	if f.appendMode {
		ino.data = append(ino.data, p...)
		return len(p), nil
	}
	f.pos = ino.writeAt(p, f.pos)
	return len(p), nil
}

// WriteAt implements File.
func (f *crashFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.c.enter(OpWrite, "pwrite", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	if f.appendMode || off < 0 {
		return 0, &fs.PathError{Op: "pwrite", Path: f.name, Err: syscall.EINVAL}
	}
	f.ino.writeAt(p, off)
	return len(p), nil
}

// writeAt stores p at off, zero-filling a gap, and returns the end offset.
func (ino *inode) writeAt(p []byte, off int64) int64 {
	end := off + int64(len(p))
	if end > int64(len(ino.data)) {
		ino.data = append(ino.data, make([]byte, end-int64(len(ino.data)))...)
	}
	copy(ino.data[off:], p)
	return end
}

func (f *crashFile) Sync() error {
	if err := f.c.enter(OpSync, "sync", f.name, &f.closed); err != nil {
		return err
	}
	defer f.c.mu.Unlock()
	f.ino.synced = append(f.ino.synced[:0:0], f.ino.data...)
	return nil
}

func (f *crashFile) Truncate(size int64) error {
	if err := f.c.enter(OpTruncate, "truncate", f.name, &f.closed); err != nil {
		return err
	}
	defer f.c.mu.Unlock()
	return f.ino.truncate(f.name, size)
}

func (f *crashFile) Size() (int64, error) {
	if err := f.c.enter(OpStat, "stat", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	return int64(len(f.ino.data)), nil
}

func (f *crashFile) Close() error {
	if err := f.c.enter(OpClose, "close", f.name, &f.closed); err != nil {
		return err
	}
	defer f.c.mu.Unlock()
	f.closed = true
	return nil
}

type crashReadFile struct {
	c      *CrashFS
	ino    *inode
	name   string
	pos    int64 // guarded by c.mu
	closed bool  // guarded by c.mu
}

func (f *crashReadFile) Read(p []byte) (int, error) {
	if err := f.c.enter(OpRead, "read", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	if f.pos >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[f.pos:])
	f.pos += int64(n)
	return n, nil
}

func (f *crashReadFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.c.enter(OpRead, "read", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	if off < 0 {
		return 0, &fs.PathError{Op: "readat", Path: f.name, Err: syscall.EINVAL}
	}
	if off >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *crashReadFile) Size() (int64, error) {
	if err := f.c.enter(OpStat, "stat", f.name, &f.closed); err != nil {
		return 0, err
	}
	defer f.c.mu.Unlock()
	return int64(len(f.ino.data)), nil
}

func (f *crashReadFile) Close() error {
	if err := f.c.enter(OpClose, "close", f.name, &f.closed); err != nil {
		return err
	}
	defer f.c.mu.Unlock()
	f.closed = true
	return nil
}
