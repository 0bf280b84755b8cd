//go:build !linux

package server

import (
	"os"
	"syscall"
)

// dieBySignal: elsewhere the exit status a shell shows for death by sig.
func dieBySignal(sig syscall.Signal) { os.Exit(128 + int(sig)) }
