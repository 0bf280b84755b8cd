package server

import (
	"os"
	"testing"

	"github.com/aofserver/aofserver/internal/testsrv"
	"github.com/aofserver/aofserver/persist"
)

// TestMain lets the test binary act as the snapshot-writer child process:
// BGSAVE and BGREWRITEAOF exec os.Executable() with persist.ChildFlag, which in
// tests is this binary.
func TestMain(m *testing.M) {
	if code, ok := persist.RunChild(os.Args[1:]); ok {
		os.Exit(code)
	}
	code := m.Run()
	testsrv.RemoveBuilds()
	os.Exit(code)
}
