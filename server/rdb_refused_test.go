package server

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"
)

// A dump.rdb rdbLoad refuses before its content (wrong signature, a
// version it does not handle) is logged as Redis 7.0.15 does: its line,
// then "Fatal error loading the DB: Invalid argument. Exiting.", exit 1,
// without the RDB error report.
func TestRefusedDumpRDBAtStartDiff(t *testing.T) {
	requireRedis(t)
	keep := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			l = logPrefix.ReplaceAllString(l, "")
			for _, k := range []string{"Can't handle", "Wrong signature", "Fatal error", "Short read", "Internal error", "Terminating"} {
				if strings.Contains(l, k) {
					lines = append(lines, l)
					break
				}
			}
		}
		return lines
	}
	for name, data := range map[string][]byte{
		"version 99":      []byte("REDIS0099\xff\x00\x00\x00\x00\x00\x00\x00\x00"),
		"wrong signature": []byte("REDIZ0009\xff\x00\x00\x00\x00\x00\x00\x00\x00"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, redisServerPath, "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1",
				"--dir", dir, "--appendonly", "no", "--save", "").CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("redis-server: %v\n%s", err, out)
			}
			want := keep(string(out))

			cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "no", "--save", ""}, nil)
			if err != nil {
				t.Fatal(err)
			}
			logs := &lockedBuffer{}
			s, err := New(cfg, NewLogger(logs, "notice", ""))
			if err != nil {
				t.Fatal(err)
			}
			s.exitFn = func(int) { t.Fatal("exited without the closing line") }
			err = s.LoadData()
			if err == nil {
				t.Fatal("LoadData succeeded")
			}
			// cmd/server logs the returned error as the last line, then exits 1.
			got := keep(logs.String() + err.Error() + "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("start-up lines differ\nours:  %q\nredis: %q", got, want)
			}
		})
	}
}
