package server

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as the snapshot-writer child process:
// BGSAVE and BGREWRITEAOF exec os.Executable() with ChildFlag, which in
// tests is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == ChildFlag {
		os.Exit(RunSnapshotWriter(os.Args[2]))
	}
	os.Exit(m.Run())
}
