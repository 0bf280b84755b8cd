package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// The start-up refusals of Redis's tests/integration/aof-multi-part.tcl
// (Tests 1-10, 20) and aof.tcl ("Bad format", "Unfinished MULTI", "Short
// read", "Unknown command"), and a bad configuration: the same directory
// is given to our binary and to the real redis-server 7.0.15, and both must
// exit with status 1 having logged the line Redis's test greps exactly once
// (count_message_lines), and the same warning lines after "Server
// initialized".

// logLine is one line of a Redis log: the role (M, C, signal-handler; ""
// for the continuation of a message with embedded newlines), the level
// mark and the message.
type logLine struct {
	role, mark, msg string
}

var logLineRE = regexp.MustCompile(`^(\d+):([MCSX]) \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} ([.\-*#]) (.*)$`)
var handlerLineRE = regexp.MustCompile(`^(\d+):signal-handler \((\d+)\) (.*)$`)

// parseLog splits a Redis log; a line without a prefix continues the
// previous message (Redis logs "\n*** FATAL AOF MANIFEST FILE ERROR ***\n")
// and keeps its mark. Empty lines are dropped.
func parseLog(out string) []logLine {
	var lines []logLine
	mark := ""
	for _, l := range strings.Split(out, "\n") {
		if m := logLineRE.FindStringSubmatch(l); m != nil {
			mark = m[3]
			if strings.TrimSpace(m[4]) != "" {
				lines = append(lines, logLine{role: m[2], mark: mark, msg: m[4]})
			}
			continue
		}
		if m := handlerLineRE.FindStringSubmatch(l); m != nil {
			lines = append(lines, logLine{role: "signal-handler", mark: "#", msg: m[3]})
			continue
		}
		if strings.TrimSpace(l) != "" {
			lines = append(lines, logLine{mark: mark, msg: l})
		}
	}
	return lines
}

var logPrefixRE = regexp.MustCompile(`(?m)^\d+:([MC]) \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} `)

// fatalBlock returns a log's manifest error block, from the line that
// opens it to the end, pids and times masked.
func fatalBlock(out string) string {
	i := strings.Index(out, "\n*** FATAL AOF MANIFEST FILE ERROR ***")
	if i < 0 {
		return ""
	}
	i = strings.LastIndex(out[:i], "\n") + 1
	return logPrefixRE.ReplaceAllString(out[i:], "<pid>:$1 <time> ")
}

// countLines is Redis's count_message_lines: the lines containing pattern.
func countLines(out, pattern string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, pattern) {
			n++
		}
	}
	return n
}

// envWarning reports the warnings Redis logs about the machine, not about
// the data (overcommit, THP, somaxconn).
func envWarning(msg string) bool {
	return strings.HasPrefix(msg, "WARNING ")
}

// warningsAfterInit returns the warning messages logged after "Server
// initialized", machine warnings left out.
func warningsAfterInit(out string) []string {
	var ws []string
	seen := false
	for _, l := range parseLog(out) {
		if l.msg == "Server initialized" {
			seen = true
			continue
		}
		if seen && l.mark == "#" && !envWarning(l.msg) {
			ws = append(ws, l.msg)
		}
	}
	return ws
}

// runToExit runs exe with args and a free --port until it exits (a
// generous deadline bounds a process that would not) and returns its exit
// status and combined output.
func runToExit(t *testing.T, exe string, args ...string) (int, string) {
	t.Helper()
	args = append(args, "--port", strconv.Itoa(freePort(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	var out syncBuf
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %q still running after 30 s:\n%s", exe, args, out.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("%s: %v", exe, err)
	return 0, ""
}

// writeTree creates files (path relative to dir -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// resp is Redis's formatCommand.
func resp(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

const (
	aofDir   = "appendonlydir/"
	base1    = aofDir + "appendonly.aof.1.base.aof"
	base2    = aofDir + "appendonly.aof.2.base.aof"
	incr1    = aofDir + "appendonly.aof.1.incr.aof"
	incr2    = aofDir + "appendonly.aof.2.incr.aof"
	incr3    = aofDir + "appendonly.aof.3.incr.aof"
	manifest = aofDir + "appendonly.aof.manifest"
)

func TestStartupRefusalsLoggedOnceAsRedis(t *testing.T) {
	exe := serverBinary(t)
	_, haveRedis := os.Stat(testsrv.RedisServerPath)
	set := func(k, v string) string { return resp("set", k, v) }
	tooLong := strings.Repeat("file appendonly.aof.1.base.aof seq 1 type b ", 47)
	cases := []struct {
		name  string
		files map[string]string
		args  []string // after --dir <dir>
		grep  string   // the line Redis's test counts
	}{
		{"missing file", map[string]string{base1: set("k1", "v1"), incr2: set("k2", "v2"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n"},
			nil, "Unable to obtain the AOF file appendonly.aof.1.incr.aof length. stat: No such file or directory"},
		{"non-monotonic seq", map[string]string{incr1: set("k1", "v1"), incr2: set("k2", "v2"),
			manifest: "file appendonly.aof.2.incr.aof seq 2 type i\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			nil, "Found a non-monotonic sequence number"},
		{"blank line", map[string]string{incr1: set("k1", "v1"), incr3: set("k2", "v2"),
			manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n\nfile appendonly.aof.3.incr.aof seq 3 type i\n"},
			nil, "Invalid AOF manifest file format"},
		{"duplicate base", map[string]string{base1: set("k1", "v1"), base2: set("k2", "v2"), incr1: set("k3", "v3"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			nil, "Found duplicate base file information"},
		{"unknown type", map[string]string{base1: set("k1", "v1"), incr1: set("k3", "v3"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type x\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			nil, "Unknown AOF file type"},
		{"missing key", map[string]string{base1: set("k1", "v1"), incr1: set("k3", "v3"),
			manifest: "filx appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			nil, "Invalid AOF manifest file format"}, // 7.0.15's word for it
		{"line too short", map[string]string{base1: set("k1", "v1"), incr1: set("k3", "v3"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof type i\n"},
			nil, "Invalid AOF manifest file format"},
		{"line too long", map[string]string{base1: set("k1", "v1"), incr1: set("k3", "v3"),
			manifest: tooLong + "\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			nil, "The AOF manifest file contains too long line"},
		{"odd parameter", map[string]string{base1: set("k1", "v1"), incr1: set("k3", "v3"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i newkey\n"},
			nil, "Invalid AOF manifest file format"},
		{"empty manifest", map[string]string{manifest: ""},
			nil, "Found an empty AOF manifest"},
		{"old name missing", map[string]string{manifest: "file appendonly.aof seq 1 type b\n"},
			nil, "Unable to obtain the AOF file appendonly.aof length. stat: No such file or directory"},
		{"bad format", map[string]string{incr1: set("foo", "hello") + "!!!" + set("foo", "hello"),
			manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n"},
			[]string{"--aof-load-truncated", "yes"}, "Bad file format reading the append only file appendonly.aof.1.incr.aof"},
		{"unfinished multi", map[string]string{incr1: set("foo", "hello") + resp("multi") + set("bar", "world"),
			manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n"},
			[]string{"--aof-load-truncated", "no"}, "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof"},
		{"short read", map[string]string{incr1: set("foo", "hello") + strings.TrimSuffix(set("bar", "world"), "\n"),
			manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n"},
			[]string{"--aof-load-truncated", "no"}, "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof"},
		{"unknown command", map[string]string{incr1: set("foo", "hello") + resp("bla", "foo", "hello") + set("foo", "hello"),
			manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n"},
			[]string{"--aof-load-truncated", "yes"}, "Unknown command 'bla' reading the append only file appendonly.aof.1.incr.aof"},
		{"truncated base", map[string]string{base1: set("foo", "hello") + set("bar", "world")[:20], incr1: set("k", "v"),
			manifest: "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"},
			[]string{"--aof-load-truncated", "yes"}, "Fatal error: the truncated file is not the last file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				code int
				out  string
			}
			run := func(bin string) result {
				dir := t.TempDir()
				writeTree(t, dir, c.files)
				args := append([]string{"--dir", dir, "--appendonly", "yes", "--appendfilename", "appendonly.aof",
					"--appenddirname", "appendonlydir", "--auto-aof-rewrite-percentage", "0"}, c.args...)
				code, out := runToExit(t, bin, args...)
				return result{code, out}
			}
			ours := run(exe)
			if ours.code != 1 {
				t.Fatalf("exit status %d, want 1:\n%s", ours.code, ours.out)
			}
			if n := countLines(ours.out, c.grep); n != 1 {
				t.Fatalf("%d lines contain %q, want 1:\n%s", n, c.grep, ours.out)
			}
			if strings.Contains(ours.out, "Ready to accept connections") {
				t.Fatalf("logged ready:\n%s", ours.out)
			}
			if haveRedis != nil {
				return
			}
			theirs := run(testsrv.RedisServerPath)
			if theirs.code != 1 || countLines(theirs.out, c.grep) != 1 {
				t.Fatalf("redis-server: exit %d, %d lines with %q (the test's expectation is wrong):\n%s",
					theirs.code, countLines(theirs.out, c.grep), c.grep, theirs.out)
			}
			got, want := warningsAfterInit(ours.out), warningsAfterInit(theirs.out)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("warnings after init differ\nours:  %q\nredis: %q\n--- ours:\n%s--- redis:\n%s", got, want, ours.out, theirs.out)
			}
			if strings.Contains(theirs.out, "FATAL AOF MANIFEST FILE ERROR") {
				// Byte for byte: Redis's messages carry newlines of their own.
				if got, want := fatalBlock(ours.out), fatalBlock(theirs.out); got != want {
					t.Fatalf("manifest error block differs\nours:\n%q\nredis:\n%q", got, want)
				}
			}
		})
	}
}

// A value Redis rejects stops start-up with its FATAL CONFIG FILE ERROR
// block, once, and status 1, exactly as redis-server.
func TestStartupBadConfigValueAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.conf")
	writeTree(t, dir, map[string]string{"bad.conf": "appendonly yes\nappendfsync sometimes\n"})
	for _, args := range [][]string{{conf}, {"--appendfsync", "sometimes"}, {"--maxmemory", "lots"}} {
		code, out := runToExit(t, exe, args...)
		rcode, rout := runToExit(t, real, args...)
		if code != 1 || rcode != 1 {
			t.Fatalf("%q: exit %d (redis %d), want 1:\n%s", args, code, rcode, out)
		}
		if n := countLines(out, "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***"); n != 1 {
			t.Fatalf("%q: %d FATAL lines:\n%s", args, n, out)
		}
		if out != rout {
			t.Fatalf("%q: output differs\nours:  %q\nredis: %q", args, out, rout)
		}
	}
}

// hasRole reports whether the first line containing msg has role r.
func roleOf(lines []logLine, msg string) string {
	for _, l := range lines {
		if l.msg == msg {
			return l.role
		}
	}
	return "(missing)"
}

// A normal start and SIGTERM log Redis 7.0.15's lines word for word, each
// once: the C role before initialisation, "Configuration loaded" (options
// count as a configuration), the ready line without " tcp", the signal
// handler's own line format.
func TestStartupLogLinesAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	for _, bin := range []string{exe, real} {
		p := startProc(t, bin, "--dir", t.TempDir(), "--appendonly", "yes", "--save", "")
		if err := p.stop(t, syscall.SIGTERM, 20*time.Second); err != nil {
			t.Fatalf("%s: exit after SIGTERM: %v\n%s", bin, err, p.out.String())
		}
		out := p.out.String()
		lines := parseLog(out)
		for _, w := range []struct{ role, msg string }{
			{"C", "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"},
			{"C", "Configuration loaded"},
			{"M", "Running mode=standalone, port=" + strconv.Itoa(p.port) + "."},
			{"M", "Server initialized"},
			{"M", "Ready to accept connections"},
			{"signal-handler", "Received SIGTERM scheduling shutdown..."},
			{"M", "User requested shutdown..."},
			{"M", "Redis is now ready to exit, bye bye..."},
		} {
			n := 0
			for _, l := range lines {
				if l.msg == w.msg {
					n++
				}
			}
			if n != 1 || roleOf(lines, w.msg) != w.role {
				t.Fatalf("%s: %q logged %d times with role %s, want once with %s:\n%s", bin, w.msg, n, roleOf(lines, w.msg), w.role, out)
			}
		}
		if n := countLines(out, "Ready to accept connections"); n != 1 {
			t.Fatalf("%s: %d ready lines:\n%s", bin, n, out)
		}
		handler := 0
		for _, l := range strings.Split(out, "\n") {
			if m := handlerLineRE.FindStringSubmatch(l); m != nil && m[1] == strconv.Itoa(p.cmd.Process.Pid) && m[3] == "Received SIGTERM scheduling shutdown..." {
				handler++
			}
		}
		if handler != 1 {
			t.Fatalf("%s: %d signal-handler lines as Redis's:\n%s", bin, handler, out)
		}
	}
	// No argument at all: the warning names the program as invoked.
	dir := t.TempDir()
	cmd := exec.Command(exe)
	cmd.Dir = dir
	var out syncBuf
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := "Warning: no config file specified, using the default config. In order to specify a config file use " + exe + " /path/to/redis.conf"
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), "Server initialized") {
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no start-up within 20 s:\n%s", out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if n := countLines(out.String(), want); n != 1 || countLines(out.String(), "Configuration loaded") != 0 {
		t.Fatalf("%d lines %q:\n%s", n, want, out.String())
	}
}

// --log-format json: one JSON object a line, with the time to the
// millisecond, the pid and the role letter.
func TestStartupJSONLog(t *testing.T) {
	exe := serverBinary(t)
	p := startProc(t, exe, "--dir", t.TempDir(), "--appendonly", "no", "--save", "", "--log-format", "json")
	if err := p.stop(t, syscall.SIGTERM, 20*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.out.String())
	}
	msRE := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$`)
	roles := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(p.out.String()), "\n") {
		var e struct {
			Level, Time, Role, Message string
			Pid                        int
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		if !msRE.MatchString(e.Time) || e.Pid != p.cmd.Process.Pid || e.Message == "" {
			t.Fatalf("line %q: time %q pid %d (process %d)", l, e.Time, e.Pid, p.cmd.Process.Pid)
		}
		roles[e.Message] = e.Role
	}
	for msg, role := range map[string]string{"Configuration loaded": "C", "Ready to accept connections": "M",
		"Received SIGTERM scheduling shutdown...": "signal-handler"} {
		if roles[msg] != role {
			t.Fatalf("%q has role %q, want %q:\n%s", msg, roles[msg], role, p.out.String())
		}
	}
}

// bigAOF writes an AOF of n SETs (enough that loading takes a while).
func bigAOF(t *testing.T, dir string, n int) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		k := "key:" + strconv.Itoa(i)
		b.WriteString("*3\r\n$3\r\nset\r\n$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n$5\r\nvalue\r\n")
	}
	writeTree(t, dir, map[string]string{incr1: b.String(), manifest: "file appendonly.aof.1.incr.aof seq 1 type i\n"})
}

// SIGTERM while the AOF loads: Redis logs from its handler, shuts down
// without saving and exits 0 (whileBlockedCron). The signal is sent once a
// client has been answered -LOADING.
func TestStartupSIGTERMDuringLoading(t *testing.T) {
	exe := serverBinary(t)
	bins := []string{exe}
	if _, err := os.Stat(testsrv.RedisServerPath); err == nil {
		bins = append(bins, testsrv.RedisServerPath)
	}
	src := t.TempDir()
	bigAOF(t, src, 2_000_000)
	for _, bin := range bins {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		port := freePort(t)
		cmd := exec.Command(bin, "--dir", dir, "--appendonly", "yes", "--save", "", "--port", strconv.Itoa(port))
		var out syncBuf
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
		deadline := time.Now().Add(20 * time.Second)
		for {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never answered -LOADING:\n%s", bin, out.String())
			}
			if strings.Contains(out.String(), "Ready to accept connections") {
				t.Fatalf("%s: loading ended before a -LOADING reply (make the AOF bigger):\n%s", bin, out.String())
			}
			c, err := dialRespTry("127.0.0.1:" + strconv.Itoa(port))
			if err != nil {
				time.Sleep(5 * time.Millisecond) // not listening yet: poll
				continue
			}
			r, _ := c.do("PING")
			c.c.Close()
			if strings.HasPrefix(r, "-LOADING") {
				break
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no exit 20 s after SIGTERM:\n%s", bin, out.String())
		}
		if err != nil {
			t.Fatalf("%s: exit %v after SIGTERM during loading, want 0:\n%s", bin, err, out.String())
		}
		log := out.String()
		lines := parseLog(log)
		for _, w := range []struct{ role, msg string }{
			{"signal-handler", "Received shutdown signal during loading, scheduling shutdown."},
			{"M", "User requested shutdown..."},
			{"M", "Redis is now ready to exit, bye bye..."},
		} {
			if n := countLines(log, w.msg); n != 1 || roleOf(lines, w.msg) != w.role {
				t.Fatalf("%s: %q %d times, role %s:\n%s", bin, w.msg, n, roleOf(lines, w.msg), log)
			}
		}
		for _, no := range []string{"Ready to accept connections", "Saving the final RDB snapshot", "DB saved on disk"} {
			if strings.Contains(log, no) {
				t.Fatalf("%s: logged %q:\n%s", bin, no, log)
			}
		}
	}
}

// loadLines returns the lines logged from "Server initialized" (excluded)
// to the ready line (included) as "<mark> <message>", numbers that vary
// from run to run (ages, sizes, durations) masked, machine warnings left
// out.
func loadLines(out string) []string {
	mask := []struct {
		re  *regexp.Regexp
		rep string
	}{
		{regexp.MustCompile(`^RDB age \d+ seconds$`), "RDB age <n> seconds"},
		{regexp.MustCompile(`^RDB memory usage when created [\d.]+ Mb$`), "RDB memory usage when created <x> Mb"},
		{regexp.MustCompile(`: \d+\.\d{3} seconds$`), ": <t> seconds"},
	}
	var ls []string
	in := false
	for _, l := range parseLog(out) {
		switch {
		case l.msg == "Server initialized":
			in = true
			continue
		case !in || envWarning(l.msg):
			continue
		}
		msg := l.msg
		for _, m := range mask {
			msg = m.re.ReplaceAllString(msg, m.rep)
		}
		ls = append(ls, l.mark+" "+msg)
		if l.msg == "Ready to accept connections" {
			break
		}
	}
	return ls
}

// Loading an AOF whose base has an RDB preamble logs what Redis 7.0.15
// logs, line for line.
func TestStartupAOFBaseLoadLinesAsRedis(t *testing.T) {
	exe := serverBinary(t)
	real := needTool(t, "redis-server")
	fx := realAOFFixture(t, true)
	run := func(bin string) []string {
		dir := t.TempDir()
		copyTree(t, fx, filepath.Join(dir, "appendonlydir"))
		p := startProc(t, bin, "--dir", dir, "--appendonly", "yes", "--save", "")
		return loadLines(p.out.String())
	}
	got, want := run(exe), run(real)
	if !slices.Equal(got, want) {
		t.Fatalf("load lines differ\nours:  %q\nredis: %q", got, want)
	}
}
