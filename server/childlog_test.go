package server

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestChildFailureLineInLog: the snapshot writer child's failure line
// reaches the server's log, as Redis's child logs it, before the parent's
// "Background saving error".
func TestChildFailureLineInLog(t *testing.T) {
	ts := startOurServer(t)
	rc := dial(t, ts.addr)
	if r := rc.do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	// The child cannot create its temp file in a directory that is gone.
	if err := os.RemoveAll(ts.dir); err != nil {
		t.Fatal(err)
	}
	if r := rc.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitFor(t, "the BGSAVE to end", func() bool {
		return strings.Contains(ts.logs.String(), "Background saving error")
	})
	re := regexp.MustCompile(`(?m)^\d+:M .* # Failed opening the temp RDB file temp-\d+\.rdb \(in server root dir ` +
		regexp.QuoteMeta(ts.dir) + `\) for saving: No such file or directory\n(.*\n)*.*# Background saving error\n`)
	if !re.MatchString(ts.logs.String()) {
		t.Fatalf("the child's line is not in the log before the parent's:\n%s", ts.logs.String())
	}
}
