package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose entry operations feed the crash model. The
// node implements no Write/Fsync of its own: go-fuse prefers node-level
// interfaces, and those operations belong to the file handle.
type node struct {
	fs.LoopbackNode
	c *crashFS
}

func (n *node) path() string {
	return filepath.Join(n.RootData.Path, n.Path(n.RootData.RootNode.EmbeddedInode()))
}

var (
	_ fs.NodeCreater         = (*node)(nil)
	_ fs.NodeOpener          = (*node)(nil)
	_ fs.NodeUnlinker        = (*node)(nil)
	_ fs.NodeRenamer         = (*node)(nil)
	_ fs.NodeSetattrer       = (*node)(nil)
	_ fs.NodeLinker          = (*node)(nil)
	_ fs.NodeRmdirer         = (*node)(nil)
	_ fs.NodeOpendirHandler  = (*node)(nil)
	_ fs.NodeCopyFileRanger  = (*node)(nil)
	_ fs.FileReaddirenter    = (*dirHandle)(nil)
	_ fs.FileFsyncdirer      = (*dirHandle)(nil)
	_ fs.FileWriter          = (*handle)(nil)
	_ fs.FileWritever        = (*handle)(nil)
	_ fs.FileFsyncer         = (*handle)(nil)
	_ fs.FileReader          = (*handle)(nil)
	_ fs.FileReleaser        = (*handle)(nil)
	_ fs.FileGetattrer       = (*handle)(nil)
	_ fs.FileSetattrer       = (*handle)(nil)
	_ fs.FileAllocater       = (*handle)(nil)
	_ fs.FileLseeker         = (*handle)(nil)
	_ fs.FileFlusher         = (*handle)(nil)
	_ fs.FilePassthroughFder = (*handle)(nil)
)

// wrap turns a LoopbackFile into our handle. LoopbackFile exposes its
// descriptor only through PassthroughFd.
func (n *node) wrap(fh fs.FileHandle) (*handle, syscall.Errno) {
	lf, ok := fh.(*fs.LoopbackFile)
	if !ok {
		return nil, syscall.EIO
	}
	fd, ok := lf.PassthroughFd()
	if !ok {
		lf.Release(context.Background())
		return nil, syscall.EBADF
	}
	return &handle{lf: lf, fd: fd, c: n.c, gen: n.c.gen}, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return nil, nil, 0, syscall.EIO
	}
	dir := n.path()
	p := filepath.Join(dir, name)
	c.trackDirLocked(dir)
	_, _, statErr := lstatIno(p)
	existed := statErr == nil
	if existed && flags&syscall.O_TRUNC != 0 {
		c.stateByPathLocked(p)
	}
	ino, fh, _, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h, errno := n.wrap(fh)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h.gen = c.gen
	c.stats.Creates++
	if !existed {
		c.newFileLocked(h.fd)
	} else if flags&syscall.O_TRUNC != 0 {
		if st, err := c.stateLocked(h.fd); err == nil {
			st.addDirty(0, maxOff)
		}
	}
	return ino, h, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced && flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC) != 0 {
		return nil, 0, syscall.EIO
	}
	trunc := flags&syscall.O_TRUNC != 0
	if trunc {
		c.stateByPathLocked(n.path())
		c.stats.Truncates++
	}
	fh, _, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	h, errno := n.wrap(fh)
	if errno != 0 {
		return nil, 0, errno
	}
	if trunc {
		if st, err := c.stateLocked(h.fd); err == nil {
			st.addDirty(0, maxOff)
		}
	}
	return h, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return syscall.EIO
	}
	dir := n.path()
	p := filepath.Join(dir, name)
	c.trackDirLocked(dir)
	var st syscall.Stat_t
	statErr := syscall.Lstat(p, &st)
	regular := statErr == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG
	if c.strict && regular {
		c.captureByPathLocked(p)
	}
	if errno := n.LoopbackNode.Unlink(ctx, name); errno != 0 {
		return errno
	}
	c.stats.Unlinks++
	if regular && st.Nlink <= 1 {
		c.forgetLiveLocked(st.Ino)
	}
	return 0
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return syscall.EIO
	}
	ino, _, _ := lstatIno(filepath.Join(n.path(), name))
	if errno := n.LoopbackNode.Rmdir(ctx, name); errno != 0 {
		return errno
	}
	delete(c.dirs, ino)
	return 0
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return nil, syscall.EIO
	}
	c.trackDirLocked(n.path())
	c.stats.Creates++
	return n.LoopbackNode.Link(ctx, target, name, out)
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return syscall.EIO
	}
	src, dst := n.path(), np.path()
	c.trackDirLocked(src)
	c.trackDirLocked(dst)
	target := filepath.Join(dst, newName)
	var tst syscall.Stat_t
	overwrite := flags&fs.RENAME_EXCHANGE == 0 && syscall.Lstat(target, &tst) == nil &&
		tst.Mode&syscall.S_IFMT == syscall.S_IFREG
	if overwrite && c.strict {
		c.captureByPathLocked(target)
	}
	if errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags); errno != 0 {
		return errno
	}
	c.stats.Renames++
	if overwrite && tst.Nlink <= 1 {
		c.forgetLiveLocked(tst.Ino)
	}
	if c.renameHookLocked(target) {
		// The power goes right after this rename reached the disk's
		// cache: stop the renaming process first (the instant of the
		// cut, as the harness does by hand with SIGSTOP), then cut.
		if caller, ok := fuse.FromContext(ctx); ok && caller.Pid > 0 {
			syscall.Kill(int(caller.Pid), syscall.SIGSTOP)
		}
		c.logf("crashfs: cut-on-rename fired on %s", target)
		c.cutLocked()
		c.fenced = true
	}
	return 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	size, ok := in.GetSize()
	if !ok {
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fenced {
		return syscall.EIO
	}
	var st *fileState
	if h, ok := f.(*handle); ok && h != nil {
		if h.gen != c.gen {
			return syscall.EIO
		}
		st, _ = c.stateLocked(h.fd)
	} else {
		st = c.stateByPathLocked(n.path())
	}
	if errno := n.LoopbackNode.Setattr(ctx, f, in, out); errno != 0 {
		return errno
	}
	c.stats.Truncates++
	if st != nil {
		st.addDirty(int64(size), maxOff)
	}
	return 0
}

func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut uint64, len uint64, flags uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOTSUP // the kernel falls back to read + write
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	ds, errno := fs.NewLoopbackDirStream(n.path())
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{ds: ds, n: n}, 0, 0
}

// stateByPathLocked is captureByPathLocked plus a read descriptor, for a
// modification made by path.
func (c *crashFS) stateByPathLocked(p string) *fileState {
	st := c.captureByPathLocked(p)
	if st != nil && st.rfd < 0 {
		if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err == nil {
			st.rfd = fd
		}
	}
	return st
}

// dirHandle is an open directory; its fsync makes the entries durable.
type dirHandle struct {
	ds fs.DirStream
	n  *node
}

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if r, ok := d.ds.(fs.FileReaddirenter); ok {
		return r.Readdirent(ctx)
	}
	if !d.ds.HasNext() {
		return nil, 0
	}
	e, errno := d.ds.Next()
	return &e, errno
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if s, ok := d.ds.(fs.FileSeekdirer); ok {
		return s.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.ds.(fs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
		return
	}
	d.ds.Close()
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	c := d.n.c
	if c.fsyncDelay > 0 {
		time.Sleep(c.fsyncDelay)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncDirLocked(d.n.path())
	return 0
}

// handle is an open regular file. Writes and truncations are recorded as
// dirty ranges; fsync copies them into the durable state. A handle opened
// before a cut is dead: its writes, truncations and fsyncs fail with EIO.
type handle struct {
	lf  *fs.LoopbackFile
	fd  int
	c   *crashFS
	gen uint64
	st  *fileState // cache; valid while c.files[st.ino] == st
}

// PassthroughFd refuses FUSE passthrough (go-fuse turns it on for
// loopback files as root on kernels >= 6.9): the I/O must reach us.
func (h *handle) PassthroughFd() (int, bool) { return 0, false }

func (h *handle) stateLocked() (*fileState, syscall.Errno) {
	c := h.c
	if h.gen != c.gen {
		return nil, syscall.EIO
	}
	if h.st != nil && h.st.ino != 0 && c.files[h.st.ino] == h.st && h.st.rfd >= 0 {
		return h.st, 0
	}
	st, err := c.stateLocked(h.fd)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	h.st = st
	return st, 0
}

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.lf.Read(ctx, dest, off)
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	return h.Writev(ctx, [][]byte{data}, off)
}

func (h *handle) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	c := h.c
	c.mu.Lock()
	defer c.mu.Unlock()
	st, errno := h.stateLocked()
	if errno != 0 {
		return 0, errno
	}
	var total int
	for _, b := range data {
		n, err := syscall.Pwrite(h.fd, b, off+int64(total))
		if n > 0 {
			total += n
		}
		if err != nil {
			st.addDirty(off, off+int64(total))
			if total > 0 {
				break
			}
			return 0, fs.ToErrno(err)
		}
		if n < len(b) {
			break
		}
	}
	st.addDirty(off, off+int64(total))
	c.stats.Writes++
	c.stats.WriteBytes += uint64(total)
	return uint32(total), 0
}

func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	c := h.c
	if c.fsyncDelay > 0 {
		time.Sleep(c.fsyncDelay)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, errno := h.stateLocked()
	if errno != 0 {
		return errno
	}
	c.stats.Fsyncs++
	if err := c.syncFileLocked(st); err != nil {
		return fs.ToErrno(err)
	}
	return 0
}

func (h *handle) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	c := h.c
	c.mu.Lock()
	defer c.mu.Unlock()
	st, errno := h.stateLocked()
	if errno != 0 {
		return errno
	}
	if errno := h.lf.Allocate(ctx, off, size, mode); errno != 0 {
		return errno
	}
	st.addDirty(int64(off), int64(off+size))
	return 0
}

func (h *handle) Release(ctx context.Context) syscall.Errno { return h.lf.Release(ctx) }
func (h *handle) Flush(ctx context.Context) syscall.Errno   { return h.lf.Flush(ctx) }
func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return h.lf.Getattr(ctx, out)
}
func (h *handle) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return h.lf.Setattr(ctx, in, out)
}
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.lf.Lseek(ctx, off, whence)
}

// mountCrashFS mounts a crash file system over backing at mnt.
func mountCrashFS(c *crashFS, mnt string, debug bool) (*fuse.Server, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(c.root, &st); err != nil {
		return nil, err
	}
	r := &fs.LoopbackRoot{Path: c.root, Dev: uint64(st.Dev)}
	r.NewNode = func(rd *fs.LoopbackRoot, parent *fs.Inode, name string, st *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: rd}, c: c}
	}
	root := r.NewNode(r, nil, "", &st)
	r.RootNode = root
	zero := time.Duration(0)
	opts := &fs.Options{
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			DirectMount: os.Geteuid() == 0,
			FsName:      "crashfs:" + c.root,
			Name:        "crashfs",
			Debug:       debug,
			// 512 KiB: a read reply of MaxWrite plus its header must fit
			// in a pipe (1 MiB at most) for go-fuse's splice.
			MaxWrite: 1 << 19,
		},
	}
	srv, err := fs.Mount(mnt, root, opts)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mnt, err)
	}
	return srv, nil
}
