package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// waitSecondTick returns once the wall clock's second has changed (polled,
// bounded by a generous deadline).
func waitSecondTick(t *testing.T) {
	t.Helper()
	start := time.Now().Unix()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Unix() == start {
		if time.Now().After(deadline) {
			t.Fatal("the clock did not tick in 5 s")
		}
		time.Sleep(time.Millisecond) // polling the clock, not timing the server
	}
}

var tsLineRE = regexp.MustCompile(`#TS:(\d+)\r\n`)

// aof-timestamp-enabled yes: as in Redis (feedAppendOnlyFile), the INCR
// file gets a "#TS:<unix seconds>" line before the first command of each
// new second, and nowhere else; our file and redis-server's have them at
// the same places. redis-check-aof and our --check-aof then cut both at the
// same annotations with --truncate-to-timestamp.
func TestAOFTimestampAnnotationsAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	realCheck := needTool(t, "redis-check-aof")
	args := func(dir string) []string {
		return []string{"--dir", dir, "--appendonly", "yes", "--aof-timestamp-enabled", "yes", "--save", "",
			"--appendfsync", "always"}
	}
	oursDir, redisDir := t.TempDir(), t.TempDir()
	ours := startProc(t, exe, args(oursDir)...)
	theirs := startProc(t, real, append(args(redisDir), "--bind", "127.0.0.1")...)
	conns := []*respConn{dialResp(t, ours.addr()), dialResp(t, theirs.addr())}
	both := func(cmds ...[]string) {
		for _, c := range conns {
			for _, cmd := range cmds {
				r, err := c.do(cmd...)
				if err != nil || r == "" || r[0] == '-' {
					t.Fatalf("%q: %q %v", cmd, r, err)
				}
				if r[0] == '*' { // EXEC: the elements are integers here
					n, _ := strconv.Atoi(r[1:])
					for ; n > 0; n-- {
						if _, err := c.r.ReadString('\n'); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
	// Each step starts right after a tick, so both servers run it within
	// one second (a step takes milliseconds).
	waitSecondTick(t)
	both([]string{"SET", "a", "1"})
	waitSecondTick(t)
	both([]string{"SET", "b", "2"}, []string{"MULTI"}, []string{"INCR", "n"}, []string{"INCR", "n"}, []string{"EXEC"},
		[]string{"SELECT", "3"}, []string{"SET", "c", "3"})
	waitSecondTick(t)
	both([]string{"GET", "c"}) // a read writes nothing, no annotation either
	waitSecondTick(t)
	both([]string{"SET", "d", "4"})

	incr := func(dir string) (string, []byte) {
		p := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return p, b
	}
	_, got := incr(oursDir)
	_, want := incr(redisDir)
	norm := func(b []byte) string { return tsLineRE.ReplaceAllString(string(b), "#TS:<t>\r\n") }
	if norm(got) != norm(want) {
		t.Fatalf("INCR files differ beyond the timestamps\nours:  %q\nredis: %q", got, want)
	}
	tss := func(b []byte) []int64 {
		var out []int64
		for _, m := range tsLineRE.FindAllSubmatch(b, -1) {
			n, _ := strconv.ParseInt(string(m[1]), 10, 64)
			out = append(out, n)
		}
		return out
	}
	ts := tss(got)
	if len(ts) != 3 || !(ts[0] < ts[1] && ts[1] < ts[2]) {
		t.Fatalf("our #TS lines %v, want 3 increasing:\n%q", ts, got)
	}

	// Cut copies of both servers' directories with both tools.
	ours.stop(t, syscall.SIGTERM, 20*time.Second)
	theirs.stop(t, syscall.SIGTERM, 20*time.Second)
	ourCheck, _ := checkTools(t)
	for name, dir := range map[string]string{"ours": oursDir, "redis": redisDir} {
		_, b := incr(dir)
		ts := tss(b)
		fx := filepath.Join(dir, "appendonlydir")
		for _, to := range []int64{ts[0], ts[1], ts[2], ts[0] - 1} {
			sameAsRedis(t, name+"/to-"+strconv.FormatInt(to-ts[0], 10), fx, nil, "", realCheck, ourCheck,
				[]string{"--in-place"}, "--truncate-to-timestamp", strconv.FormatInt(to, 10), "appendonly.aof.manifest")
		}
	}
}
