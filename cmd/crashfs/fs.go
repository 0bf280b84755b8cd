package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The crash model. The backing directory is the live view: every operation
// is applied to it at once, so reads need no bookkeeping. Beside it, in
// memory, crashFS keeps what is durable:
//
//   - per file (identified by its backing inode, tracked from its first
//     modification): the bytes as of its last fsync/fdatasync and the byte
//     ranges written or truncated since;
//   - in strict mode, per directory touched by a create, link, rename or
//     unlink: its entries (name → file) as of its last fsync.
//
// A cut makes the live view equal to the durable state: every tracked file
// gets its durable bytes back (a file never fsynced becomes empty) and, in
// strict mode, every tracked directory gets its durable entries back (an
// unsynced create disappears, an unsynced rename or unlink is undone).
// Directories themselves (mkdir, rmdir, renaming a directory), symlinks and
// attributes (mode, owner, times) are durable at once, in both modes.

// span is a half-open byte range [off, end) of a file.
type span struct{ off, end int64 }

const maxOff = int64(1) << 62

// fileState is what crashFS knows of one file.
type fileState struct {
	// captured says durable holds the file's durable bytes. A file that
	// existed before the mount is not captured until it is first modified
	// or (strict mode) unlinked: until then its live bytes are durable.
	captured bool
	durable  []byte
	dirty    []span // ranges of live that may differ from durable
	rfd      int    // read-only descriptor of the live inode, or -1
	ino      uint64 // backing inode while the file is live
	synced   bool   // fsynced at least once (or existed before the mount)
}

func (st *fileState) addDirty(off, end int64) {
	if end <= off {
		return
	}
	n := span{off, end}
	out := st.dirty[:0:0]
	for _, s := range st.dirty {
		if s.end < n.off || s.off > n.end {
			out = append(out, s)
			continue
		}
		n.off = min(n.off, s.off)
		n.end = max(n.end, s.end)
	}
	out = append(out, n)
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	st.dirty = out
}

// dirtyBytes returns how many bytes of a live file of the given size are
// not durable.
func (st *fileState) dirtyBytes(size int64) int64 {
	var n int64
	for _, s := range st.dirty {
		e := min(s.end, size)
		if e > s.off {
			n += e - s.off
		}
	}
	if d := int64(len(st.durable)); d > size {
		n += d - size
	}
	return n
}

// dirState is the durable side of a directory, strict mode only.
type dirState struct {
	durable map[string]*fileState // regular files as of the last fsync
}

// Stats are the counters printed by "status".
type Stats struct {
	Writes, WriteBytes, Fsyncs, DirFsyncs, Truncates uint64
	Creates, Renames, Unlinks                        uint64
	Cuts, Syncs, Writebacks                          uint64
	LastCutDroppedBytes                              int64
	LastCutFilesReverted, LastCutEntriesReverted     int
	LastCutAt                                        time.Time
}

// crashFS holds the durable state of one mount.
type crashFS struct {
	root       string // backing directory, absolute
	strict     bool
	fsyncDelay time.Duration
	logf       func(format string, args ...any)

	mu    sync.Mutex
	gen   uint64                // bumped by every cut; older handles are dead
	files map[uint64]*fileState // live files by backing inode
	dirs  map[uint64]*dirState  // strict mode: tracked directories by inode
	stats Stats

	cutGlob string // cut-on-rename pattern, "" when disarmed
	cutNth  int    // cut at the cutNth matching rename
	cutSeen int
	// fenced: an automatic cut fired and every change is refused (EIO)
	// until the next manual cut or sync, or a restart. The power is off:
	// a process the SIGSTOP did not stop at once (its other threads, a
	// child) must not change the disk after the cut, as it then would
	// after the reboot too.
	fenced bool
}

func newCrashFS(root string, strict bool, fsyncDelay time.Duration) *crashFS {
	return &crashFS{
		root: root, strict: strict, fsyncDelay: fsyncDelay,
		logf:  func(string, ...any) {},
		files: make(map[uint64]*fileState),
		dirs:  make(map[uint64]*dirState),
	}
}

func inoOfFd(fd int) (uint64, int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, 0, err
	}
	return st.Ino, st.Size, nil
}

func lstatIno(path string) (ino uint64, regular bool, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, false, err
	}
	return st.Ino, st.Mode&syscall.S_IFMT == syscall.S_IFREG, nil
}

// reopenRead opens the inode behind fd read-only (the file may be open
// write-only, renamed or unlinked).
func reopenRead(fd int) (int, error) {
	return syscall.Open(fmt.Sprintf("/proc/self/fd/%d", fd), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
}

func readAllFd(fd int) ([]byte, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	b := make([]byte, st.Size)
	n, err := preadFull(fd, b, 0)
	return b[:n], err
}

func preadFull(fd int, b []byte, off int64) (int, error) {
	got := 0
	for got < len(b) {
		n, err := syscall.Pread(fd, b[got:], off+int64(got))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return got, err
		}
		if n == 0 {
			break
		}
		got += n
	}
	return got, nil
}

// stateLocked returns the state of the live file open as fd, creating it
// (and capturing the durable bytes of a file untouched so far) before a
// modification. Caller holds c.mu.
func (c *crashFS) stateLocked(fd int) (*fileState, error) {
	ino, _, err := inoOfFd(fd)
	if err != nil {
		return nil, err
	}
	st := c.files[ino]
	if st == nil {
		st = &fileState{ino: ino, rfd: -1, synced: true}
		c.files[ino] = st
	}
	if st.rfd < 0 {
		if st.rfd, err = reopenRead(fd); err != nil {
			return nil, err
		}
	}
	if !st.captured {
		b, err := readAllFd(st.rfd)
		if err != nil {
			return nil, err
		}
		st.durable, st.captured = b, true
	}
	return st, nil
}

// newFileLocked registers a file just created (durably nothing yet).
func (c *crashFS) newFileLocked(fd int) {
	ino, _, err := inoOfFd(fd)
	if err != nil {
		return
	}
	if old := c.files[ino]; old != nil && old.rfd >= 0 {
		syscall.Close(old.rfd)
	}
	st := &fileState{ino: ino, rfd: -1, captured: true}
	st.rfd, _ = reopenRead(fd)
	c.files[ino] = st
}

// captureByPathLocked makes sure the regular file at path has a captured
// state (strict mode, before its entry goes away). It returns the state, or
// nil when path is not a regular file.
func (c *crashFS) captureByPathLocked(path string) *fileState {
	ino, reg, err := lstatIno(path)
	if err != nil || !reg {
		return nil
	}
	st := c.files[ino]
	if st == nil {
		st = &fileState{ino: ino, rfd: -1, synced: true}
		c.files[ino] = st
	}
	if !st.captured {
		b, err := os.ReadFile(path)
		if err == nil {
			st.durable, st.captured = b, true
		}
	}
	return st
}

// forgetLiveLocked drops the live binding of the inode at path after its
// last name went away.
func (c *crashFS) forgetLiveLocked(ino uint64) {
	st := c.files[ino]
	if st == nil {
		return
	}
	delete(c.files, ino)
	if st.rfd >= 0 {
		syscall.Close(st.rfd)
		st.rfd = -1
	}
	st.ino = 0
}

// listDir returns dir's regular files by name → inode.
func listDir(dir string) (map[string]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	m := make(map[string]uint64, len(ents))
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if ino, reg, err := lstatIno(filepath.Join(dir, e.Name())); err == nil && reg {
			m[e.Name()] = ino
		}
	}
	return m, nil
}

// trackDirLocked starts tracking the directory at path (strict mode)
// before an entry operation: its current entries are taken as durable.
func (c *crashFS) trackDirLocked(path string) {
	if !c.strict {
		return
	}
	dino, _, err := lstatIno(path)
	if err != nil || c.dirs[dino] != nil {
		return
	}
	m, err := listDir(path)
	if err != nil {
		return
	}
	d := &dirState{durable: make(map[string]*fileState, len(m))}
	for name, ino := range m {
		st := c.files[ino]
		if st == nil {
			st = &fileState{ino: ino, rfd: -1, synced: true}
			c.files[ino] = st
		}
		d.durable[name] = st
	}
	c.dirs[dino] = d
}

// syncDirLocked makes the directory's current entries durable.
func (c *crashFS) syncDirLocked(path string) {
	c.stats.DirFsyncs++
	if !c.strict {
		return
	}
	dino, _, err := lstatIno(path)
	if err != nil {
		return
	}
	d := c.dirs[dino]
	if d == nil {
		return // untracked: live entries are durable already
	}
	m, err := listDir(path)
	if err != nil {
		return
	}
	d.durable = make(map[string]*fileState, len(m))
	for name, ino := range m {
		st := c.files[ino]
		if st == nil {
			st = &fileState{ino: ino, rfd: -1, synced: true}
			c.files[ino] = st
		}
		d.durable[name] = st
	}
}

// syncFileLocked makes the file's live bytes durable.
func (c *crashFS) syncFileLocked(st *fileState) error {
	if st.rfd < 0 {
		return nil
	}
	_, size, err := inoOfFd(st.rfd)
	if err != nil {
		return err
	}
	d := st.durable
	if int64(len(d)) > size {
		d = d[:size]
	} else if int64(len(d)) < size {
		if int64(cap(d)) >= size {
			d = d[:size]
		} else {
			nd := make([]byte, size, size+size/4)
			copy(nd, d)
			d = nd
		}
	}
	for _, s := range st.dirty {
		e := min(s.end, size)
		if e <= s.off {
			continue
		}
		if _, err := preadFull(st.rfd, d[s.off:e], s.off); err != nil {
			return err
		}
	}
	st.durable, st.dirty, st.synced, st.captured = d, nil, true, true
	return nil
}

// syncAllLocked makes everything durable, as sync(2) or the kernel's
// writeback plus a journal commit would.
func (c *crashFS) syncAllLocked() {
	for _, st := range c.files {
		if len(st.dirty) > 0 {
			if err := c.syncFileLocked(st); err != nil {
				c.logf("crashfs: sync inode %d: %v", st.ino, err)
			}
		}
	}
	if c.strict {
		// Tracked directories now equal their live entries: stop
		// tracking them; the next entry operation snapshots again.
		clear(c.dirs)
	}
}

// Sync makes all data and entries durable.
func (c *crashFS) Sync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Syncs++
	c.fenced = false
	c.syncAllLocked()
}

func (c *crashFS) writeback() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Writebacks++
	c.syncAllLocked()
}

// Cut simulates a power cut: the live view returns to the durable state.
func (c *crashFS) Cut() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fenced = false
	c.cutLocked()
	return c.stats
}

// walk maps the inode of every regular file and directory under root
// to its path.
func (c *crashFS) walk() (files, dirs map[uint64]string) {
	files, dirs = make(map[uint64]string), make(map[uint64]string)
	filepath.WalkDir(c.root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.Type().IsRegular() || e.IsDir() {
			if ino, _, err := lstatIno(p); err == nil {
				if e.IsDir() {
					dirs[ino] = p
				} else {
					files[ino] = p
				}
			}
		}
		return nil
	})
	return files, dirs
}

func (c *crashFS) cutLocked() {
	c.gen++
	c.stats.Cuts++
	c.stats.LastCutAt = time.Now()
	var dropped int64
	reverted, entries := 0, 0
	livePaths, dirPaths := c.walk()

	if c.strict {
		// Content of every file a durable entry needs, read before any
		// live file goes.
		for _, d := range c.dirs {
			for _, st := range d.durable {
				if !st.captured {
					if p, ok := livePaths[st.ino]; ok && c.files[st.ino] == st {
						if b, err := os.ReadFile(p); err == nil {
							st.durable, st.captured = b, true
						}
					}
				}
			}
		}
		for dino, d := range c.dirs {
			dir, ok := dirPaths[dino]
			if !ok {
				continue
			}
			live, err := listDir(dir)
			if err != nil {
				continue
			}
			for name, ino := range live {
				if want := d.durable[name]; want != nil && want.ino == ino && c.files[ino] == want {
					continue
				}
				p := filepath.Join(dir, name)
				nlink := uint64(1)
				var sst syscall.Stat_t
				if syscall.Lstat(p, &sst) == nil {
					dropped += sst.Size
					nlink = uint64(sst.Nlink)
				}
				os.Remove(p)
				entries++
				if nlink <= 1 {
					c.forgetLiveLocked(ino)
				}
			}
			for name, st := range d.durable {
				if ino, ok := live[name]; ok && st.ino == ino && c.files[ino] == st {
					continue
				}
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, st.durable, 0o644); err != nil {
					c.logf("crashfs: cut: restore %s: %v", p, err)
					continue
				}
				entries++
				ino, _, err := lstatIno(p)
				if err != nil {
					continue
				}
				if st.ino != 0 && c.files[st.ino] == st {
					c.forgetLiveLocked(st.ino)
				}
				if st.rfd >= 0 {
					syscall.Close(st.rfd)
					st.rfd = -1
				}
				st.ino, st.dirty, st.synced = ino, nil, true
				c.files[ino] = st
				if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err == nil {
					st.rfd = fd
				}
			}
		}
		clear(c.dirs)
		livePaths, _ = c.walk()
	}

	for ino, st := range c.files {
		p, ok := livePaths[ino]
		if !ok {
			continue // unlinked, still open somewhere
		}
		if !st.captured || (len(st.dirty) == 0 && st.synced) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		dropped += st.dirtyBytes(fi.Size())
		if err := rewrite(p, st.durable); err != nil {
			c.logf("crashfs: cut: revert %s: %v", p, err)
			continue
		}
		st.dirty, st.synced = nil, true
		reverted++
	}
	c.stats.LastCutDroppedBytes = dropped
	c.stats.LastCutFilesReverted = reverted
	c.stats.LastCutEntriesReverted = entries
	c.logf("crashfs: power cut: %d bytes dropped, %d files reverted, %d entries reverted", dropped, reverted, entries)
}

// rewrite replaces path's content in place (same inode) with b.
func rewrite(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// renameHookLocked runs after a rename to target was applied; it reports
// whether the armed cut-on-rename fired.
func (c *crashFS) renameHookLocked(target string) bool {
	if c.cutGlob == "" {
		return false
	}
	rel, _ := filepath.Rel(c.root, target)
	m1, _ := filepath.Match(c.cutGlob, filepath.Base(target))
	m2, _ := filepath.Match(c.cutGlob, rel)
	if !m1 && !m2 {
		return false
	}
	c.cutSeen++
	if c.cutSeen < c.cutNth {
		return false
	}
	c.cutGlob = ""
	return true
}

// ArmCutOnRename arms (glob != "") or disarms the automatic cut.
func (c *crashFS) ArmCutOnRename(glob string, nth int) error {
	if glob != "" {
		if _, err := filepath.Match(glob, ""); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cutGlob, c.cutNth, c.cutSeen = glob, max(nth, 1), 0
	return nil
}

// Status returns the counters as "name value" lines.
func (c *crashFS) Status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	var dirty int64
	for _, st := range c.files {
		if len(st.dirty) == 0 && st.synced {
			continue
		}
		if st.rfd >= 0 {
			if _, size, err := inoOfFd(st.rfd); err == nil {
				dirty += st.dirtyBytes(size)
			}
		}
	}
	var b strings.Builder
	p := func(k string, v any) { fmt.Fprintf(&b, "%s %v\n", k, v) }
	p("strict", c.strict)
	p("fsync_delay", c.fsyncDelay)
	p("writes", s.Writes)
	p("write_bytes", s.WriteBytes)
	p("truncates", s.Truncates)
	p("fsyncs", s.Fsyncs)
	p("dir_fsyncs", s.DirFsyncs)
	p("creates", s.Creates)
	p("renames", s.Renames)
	p("unlinks", s.Unlinks)
	p("dirty_bytes", dirty)
	p("tracked_files", len(c.files))
	p("tracked_dirs", len(c.dirs))
	p("syncs", s.Syncs)
	p("writebacks", s.Writebacks)
	p("cuts", s.Cuts)
	p("last_cut_dropped_bytes", s.LastCutDroppedBytes)
	p("last_cut_files_reverted", s.LastCutFilesReverted)
	p("last_cut_entries_reverted", s.LastCutEntriesReverted)
	p("fenced", c.fenced)
	if c.cutGlob != "" {
		p("cut_on_rename", fmt.Sprintf("%s nth=%d seen=%d", c.cutGlob, c.cutNth, c.cutSeen))
	} else {
		p("cut_on_rename", "off")
	}
	return b.String()
}

// runWriteback makes all dirty state durable every d until stop closes.
func (c *crashFS) runWriteback(d time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			c.writeback()
		}
	}
}
