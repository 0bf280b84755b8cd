package server

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
)

// TestCorruptDumpRDBAtStartDiff starts redis-server 7.0.15 and our server
// on the same broken dump.rdb: both must exit 1 after logging Redis's
// failure lines once and redis-check-rdb's report (rdb.c line numbers
// aside).
func TestCorruptDumpRDBAtStartDiff(t *testing.T) {
	requireRedis(t)
	var good bytes.Buffer
	e := rdb.NewEncoder(&good, rdb.EncoderOptions{Checksum: true, Limits: rdb.DefaultLimits()})
	e.Header(nil)
	e.SelectDB(0, 2, 0)
	e.Key([]byte("s"), &rdb.Value{Kind: rdb.KindString, Str: []byte("hello")}, -1)
	e.Key([]byte("h"), &rdb.Value{Kind: rdb.KindHash, Hash: [][2][]byte{{[]byte("f"), []byte("v")}}}, -1)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	badCRC := append([]byte(nil), good.Bytes()...)
	badCRC[len(badCRC)-1] ^= 1
	// A hash ziplist with a repeated field, checksum disabled (zero).
	dupZiplist := append([]byte("REDIS0009\xfe\x00\x0d\x01k"), rdbStr(zlOf("a", "1", "a", "2"))...)
	dupZiplist = append(dupZiplist, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0)
	files := map[string][]byte{
		"truncated":   good.Bytes()[:len(good.Bytes())-14],
		"bad crc":     badCRC,
		"dup ziplist": dupZiplist,
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			want := realStartFailure(t, data)
			got := ourStartFailure(t, data)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("start-up lines differ:\n ours:\n  %s\n redis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

var (
	logPrefix = regexp.MustCompile(`^\d+:[CMXS] \d\d \w{3} \d{4} [\d:.]+ [#*.-] `)
	rdbCLine  = regexp.MustCompile(`rdb\.c:\d+`)
)

// failureLines keeps the lines that tell a load failure, without the log
// prefix or rdb.c line numbers.
func failureLines(out string) []string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = rdbCLine.ReplaceAllString(logPrefix.ReplaceAllString(l, ""), "rdb.c")
		for _, k := range []string{"Internal error", "Short read", "Wrong RDB checksum", "RDB ERROR DETECTED",
			"[offset", "[additional info]", "[info]", "Terminating server"} {
			if strings.Contains(l, k) {
				keep = append(keep, l)
				break
			}
		}
	}
	return keep
}

func realStartFailure(t *testing.T, data []byte) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, redisServerPath, "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1",
		"--dir", dir, "--appendonly", "no", "--save", "")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("redis-server: %v\n%s", err, out)
	}
	return failureLines(string(out))
}

func ourStartFailure(t *testing.T, data []byte) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "no", "--save", ""}, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	s, err := New(cfg, NewLogger(logs, "notice", ""))
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	s.persist.CheckReport = &report
	exit := -1
	s.exitFn = func(code int) { exit = code }
	err = s.LoadData()
	switch {
	case exit == 1 && errors.Is(err, persist.ErrLoadAborted):
		return failureLines(logs.String() + report.String())
	case exit == -1 && errors.Is(err, persist.ErrLoadTerminated):
		// cmd/server logs the returned error as the last line, then exits 1.
		return failureLines(logs.String() + report.String() + err.Error() + "\n")
	}
	t.Fatalf("LoadData = %v with exit %d", err, exit)
	return nil
}
