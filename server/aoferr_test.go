package server

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/fsx"
)

// failFS fails writes to AOF files with ENOSPC while full is set.
type failFS struct {
	fsx.FS
	full atomic.Bool
}

type failFile struct {
	fsx.File
	f *failFS
}

func (f *failFile) Write(p []byte) (int, error) {
	if f.f.full.Load() {
		return 0, syscall.ENOSPC
	}
	return f.File.Write(p)
}

func (f *failFile) WriteAt(p []byte, off int64) (int, error) {
	if f.f.full.Load() {
		return 0, syscall.ENOSPC
	}
	return f.File.WriteAt(p, off)
}

func (f *failFS) OpenWrite(p string) (fsx.File, error) {
	fl, err := f.FS.OpenWrite(p)
	if err != nil {
		return nil, err
	}
	return &failFile{File: fl, f: f}, nil
}

func (f *failFS) Create(p string) (fsx.File, error) {
	fl, err := f.FS.Create(p)
	if err != nil {
		return nil, err
	}
	return &failFile{File: fl, f: f}, nil
}

func (f *failFS) OpenAppend(p string) (fsx.File, error) {
	fl, err := f.FS.OpenAppend(p)
	if err != nil {
		return nil, err
	}
	return &failFile{File: fl, f: f}, nil
}

// TestAOFWriteErrorEverysec: a full disk under everysec holds the reply of
// the write that could not be written (nothing acknowledged is lost),
// refuses later writes and PING with Redis's MISCONF error, serves reads,
// and recovers by itself once space is back.
func TestAOFWriteErrorEverysec(t *testing.T) {
	fs := &failFS{FS: fsx.OS()}
	s := startGatedServer(t, newGateFS(), "--appendfsync", "everysec")
	// startGatedServer installed a gate FS; swap in the failing one by
	// restarting the AOF on it.
	s.mu.Lock()
	s.persist.StopAppendOnly()
	s.testFS = fs
	err := s.persist.StartAppendOnly(false)
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr().String()
	if r := reply(t, asyncDo(t, addr, "SET", "before", "1")); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	fs.full.Store(true)
	held := asyncDo(t, addr, "SET", "k", "v")
	noReply(t, held, "SET whose bytes could not be written")
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := reply(t, asyncDo(t, addr, "SET", "other", "x"))
		if r == "-MISCONF Errors writing to the AOF file: No space left on device\r\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never refused writes, last reply %q", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := reply(t, asyncDo(t, addr, "PING")); !strings.HasPrefix(r, "-MISCONF") {
		t.Fatalf("PING during write error: %q", r)
	}
	if r := reply(t, asyncDo(t, addr, "GET", "before")); r != "$1\r\n1\r\n" {
		t.Fatalf("GET during write error: %q", r)
	}
	info := reply(t, asyncDo(t, addr, "INFO", "persistence"))
	if !strings.Contains(info, "aof_last_write_status:err") {
		t.Fatalf("INFO during write error:\n%s", info)
	}
	fs.full.Store(false)
	if r := reply(t, held); r != "+OK\r\n" {
		t.Fatalf("held SET after recovery: %q", r)
	}
	if r := reply(t, asyncDo(t, addr, "SET", "after", "1")); r != "+OK\r\n" {
		t.Fatalf("SET after recovery: %q", r)
	}
}

// TestAOFWriteErrorAlwaysIsFatal: under always a write error stops the
// server (Redis exits); the reply is never sent.
func TestAOFWriteErrorAlwaysIsFatal(t *testing.T) {
	fs := &failFS{FS: fsx.OS()}
	s := startGatedServer(t, newGateFS(), "--appendfsync", "always")
	var mu sync.Mutex
	exited := make(chan int, 1)
	s.mu.Lock()
	s.persist.StopAppendOnly()
	s.testFS = fs
	s.exitFn = func(code int) {
		mu.Lock()
		defer mu.Unlock()
		select {
		case exited <- code:
		default:
		}
	}
	err := s.persist.StartAppendOnly(false)
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	fs.full.Store(true)
	ch := asyncDo(t, s.Addr().String(), "SET", "k", "v")
	select {
	case code := <-exited:
		if code != 1 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit on an AOF write error under always")
	}
	select {
	case r := <-ch:
		if r == "+OK\r\n" {
			t.Fatal("a write that failed under always was acknowledged")
		}
	case <-time.After(200 * time.Millisecond):
	}
	_ = errors.New
}
