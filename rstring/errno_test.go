package rstring

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestStrerror(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{syscall.ENOSPC, "No space left on device"},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, "Permission denied"},
		{fmt.Errorf("write: %w", syscall.EIO), "Input/output error"},
		{syscall.Errno(4000), "Unknown error 4000"},
		{errors.New("short write"), "short write"},
	} {
		if got := Strerror(c.err); got != c.want {
			t.Errorf("Strerror(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestCloneArgv(t *testing.T) {
	src := [][]byte{[]byte("set"), []byte(""), []byte("v")}
	out := CloneArgv(src)
	src[0][0] = 'X'
	if string(out[0]) != "set" || len(out[1]) != 0 || string(out[2]) != "v" {
		t.Fatalf("CloneArgv = %q", out)
	}
	_ = append(out[0], 'Z') // must not overwrite out[1]/out[2]
	if string(out[2]) != "v" || cap(out[0]) != len(out[0]) {
		t.Fatalf("append to one argument changed another: %q", out)
	}
}
