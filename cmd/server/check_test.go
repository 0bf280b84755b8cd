package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The checker tests compare our redis-check-aof / redis-check-rdb with the
// real 7.0.15 tools on fixtures written by the real redis-server: same
// output (serverLog prefixes masked), same exit code, same files afterwards.

// checkTools returns our binary symlinked as redis-check-aof and
// redis-check-rdb (so that argv[0] selects the tool, as with Redis).
func checkTools(t *testing.T) (aofTool, rdbTool string) {
	t.Helper()
	bin := serverBinary(t)
	dir := t.TempDir()
	aofTool, rdbTool = filepath.Join(dir, "redis-check-aof"), filepath.Join(dir, "redis-check-rdb")
	if err := os.Symlink(bin, aofTool); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, rdbTool); err != nil {
		t.Fatal(err)
	}
	return aofTool, rdbTool
}

// realAOFFixture runs the real redis-server with appendonly yes in a temp
// dir: writes in several databases, a MULTI/EXEC, a BGREWRITEAOF (so the
// base holds keys), more writes, then SHUTDOWN. It returns the
// appendonlydir path.
func realAOFFixture(t *testing.T, preamble bool) string {
	t.Helper()
	exe := needTool(t, "redis-server")
	dir := t.TempDir()
	yn := map[bool]string{true: "yes", false: "no"}[preamble]
	p := startProc(t, exe, "--appendonly", "yes", "--dir", dir, "--save", "", "--aof-use-rdb-preamble", yn,
		"--aof-timestamp-enabled", "yes", "--bind", "127.0.0.1")
	redisCli(t, p.port, "SET foo bar\nRPUSH l a b c\nSADD s x y\nHSET h f v\nZADD z 1 m\nPEXPIRE s 100000000\nSELECT 3\nSET k3 v3\n")
	rc := dialResp(t, p.addr())
	if r, err := rc.do("BGREWRITEAOF"); err != nil || !strings.Contains(r, "rewriting started") {
		t.Fatalf("BGREWRITEAOF: %q %v", r, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := rc.do("INFO", "persistence")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rewrite did not finish:\n%s", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
	redisCli(t, p.port, "INCR cnt\nINCR cnt\nMULTI\nSET a 1\nLPUSH l z\nEXEC\nSELECT 5\nSET five 5\nDEL foo\nAPPEND foo xyz\n")
	rc.do("SHUTDOWN", "NOSAVE")
	if err := p.stop(t, syscall.SIGTERM, 10*time.Second); err != nil {
		t.Logf("redis-server exit: %v", err)
	}
	return filepath.Join(dir, "appendonlydir")
}

// realDumpFixture writes a dump.rdb with SAVE (keys with and without TTLs,
// one already set to expire in the past is impossible, so counts only).
func realDumpFixture(t *testing.T) string {
	t.Helper()
	exe := needTool(t, "redis-server")
	dir := t.TempDir()
	p := startProc(t, exe, "--dir", dir, "--save", "", "--bind", "127.0.0.1")
	redisCli(t, p.port, "SET a 1\nSET big "+strings.Repeat("x", 300)+"\nEXPIRE a 1000\nRPUSH l 1 2 3\nSADD s 1 2 3\nSADD t a b\nHSET h a 1\nZADD z 1 a 2 b\nSELECT 2\nSET b 2\nSAVE\n")
	p.stop(t, syscall.SIGTERM, 10*time.Second)
	return filepath.Join(dir, "dump.rdb")
}

// copyTree copies the regular files of src into a new dir under parent.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeSums lists "name sha256" for the files of dir.
func treeSums(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%s %x", e.Name(), sha256.Sum256(b)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

var (
	logPrefix = regexp.MustCompile(`(?m)^\d+:C \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} # `)
	// Redis has one message (and rdb.c line) per integrity check; we keep
	// the frame and the offset.
	rdbInternal = regexp.MustCompile(`(?m)(Internal error in RDB reading offset 0, function at rdb\.c)(:\d+)? -> .*$`)
)

// runTool runs exe with args in dir and returns its masked output and exit code.
func runTool(t *testing.T, dir, stdin, exe string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", exe, err)
		}
		code = ee.ExitCode()
	}
	masked := logPrefix.ReplaceAllString(string(out), "LOG # ")
	return rdbInternal.ReplaceAllString(masked, "$1 -> MSG"), code
}

// sameAsRedis prepares two copies of fixture with mutate, runs the real
// tool in one and ours in the other, and compares output, exit code and
// the files left behind.
func sameAsRedis(t *testing.T, name, fixture string, mutate func(dir string), stdin string, realTool, ourTool string, ourExtra []string, args ...string) (out string, code int) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		root := t.TempDir()
		a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
		copyTree(t, fixture, a)
		copyTree(t, fixture, b)
		if mutate != nil {
			mutate(a)
			mutate(b)
		}
		want, wantCode := runTool(t, a, stdin, realTool, args...)
		got, gotCode := runTool(t, b, stdin, ourTool, append(append([]string{}, ourExtra...), args...)...)
		if got != want || gotCode != wantCode {
			t.Errorf("%s %q:\nredis (exit %d):\n%s\nours (exit %d):\n%s", filepath.Base(realTool), args, wantCode, want, gotCode, got)
		}
		if sa, sb := treeSums(t, a), treeSums(t, b); sa != sb {
			t.Errorf("files differ after the run:\nredis:\n%s\nours:\n%s", sa, sb)
		}
		out, code = got, gotCode
	})
	return out, code
}

func fileNames(t *testing.T, dir string) (base, incr string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		switch {
		case strings.Contains(e.Name(), ".base."):
			base = e.Name()
		case strings.HasSuffix(e.Name(), ".incr.aof"):
			incr = e.Name()
		}
	}
	if base == "" || incr == "" {
		t.Fatalf("fixture %s lacks a base or an incr", dir)
	}
	return base, incr
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckAOFSameAsRedis(t *testing.T) {
	realAOF := needTool(t, "redis-check-aof")
	ours, _ := checkTools(t)
	for _, preamble := range []bool{true, false} {
		fx := realAOFFixture(t, preamble)
		base, incr := fileNames(t, fx)
		const man = "appendonly.aof.manifest"
		p := fmt.Sprintf("preamble=%v/", preamble)
		same := func(name string, mutate func(dir string), stdin string, extra []string, args ...string) {
			sameAsRedis(t, p+name, fx, mutate, stdin, realAOF, ours, extra, args...)
		}
		// A second incr file (a copy of the first) for the multi-part cases.
		twoIncrs := func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, incr))
			os.WriteFile(filepath.Join(dir, "appendonly.aof.9.incr.aof"), b, 0o644)
			rewrite(t, filepath.Join(dir, man), func(m []byte) []byte {
				return append(m, "file appendonly.aof.9.incr.aof seq 9 type i\n"...)
			})
		}
		cut := func(file string, n int) func(string) {
			return func(dir string) {
				rewrite(t, filepath.Join(dir, file), func(b []byte) []byte { return b[:len(b)-n] })
			}
		}
		same("valid manifest", nil, "", nil, man)
		if !preamble {
			// The RESP base: only what differs from the preamble run.
			same("valid base alone", nil, "", nil, base)
			same("last incr short by 3", cut(incr, 3), "", nil, man)
			same("fix answered y", cut(incr, 4), "y\n", []string{"--in-place"}, "--fix", man)
			continue
		}
		same("valid incr alone", nil, "", nil, incr)
		same("valid base alone", nil, "", nil, base)
		same("two incrs", twoIncrs, "", nil, man)
		for _, n := range []int{1, 3, 7} {
			same(fmt.Sprintf("last incr short by %d", n), cut(incr, n), "", nil, man)
		}
		same("non-last incr truncated", func(d string) { cut(incr, 5)(d); twoIncrs(d) }, "", nil, man)
		same("non-last incr truncated --fix", func(d string) { cut(incr, 5)(d); twoIncrs(d) }, "", []string{"--in-place"}, "--fix", man)
		same("fix answered n", cut(incr, 4), "n\n", []string{"--in-place"}, "--fix", man)
		same("fix answered y", cut(incr, 4), "y\n", []string{"--in-place"}, "--fix", man)
		corrupt := func(dir string) {
			rewrite(t, filepath.Join(dir, incr), func(b []byte) []byte {
				b[len(b)/2] = '!'
				return b
			})
		}
		same("corrupted middle", corrupt, "", nil, man)
		same("corrupted middle fixed", corrupt, "y\n", []string{"--in-place"}, "--fix", man)
		same("corrupted middle alone", corrupt, "", nil, incr)
		appendTo := func(s string) func(string) {
			return func(dir string) {
				rewrite(t, filepath.Join(dir, incr), func(b []byte) []byte { return append(b, s...) })
			}
		}
		same("unclosed MULTI", appendTo("*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nq\r\n"), "", nil, man)
		same("nested MULTI", appendTo("*1\r\n$5\r\nMULTI\r\n*1\r\n$5\r\nmulti\r\n"), "", nil, man)
		same("lone EXEC", appendTo("*1\r\n$4\r\nEXEC\r\n"), "", nil, man)
		same("garbage line", appendTo("hello\r\n"), "", nil, man)
		same("bare star", appendTo("*"), "", nil, man)
		same("negative bulk", appendTo("*1\r\n$-3\r\nabc\r\n"), "", nil, man)
		same("high bytes", appendTo("*1\r\n$2\r\nab\xff\xfe"), "", nil, man)
		ts := appendTo("#TS:4000000000\r\n*2\r\n$4\r\nINCR\r\n$1\r\nq\r\n")
		same("timestamp nothing to cut", ts, "", []string{"--in-place"}, "--truncate-to-timestamp", "4000000000", man)
		same("timestamp cut", ts, "", []string{"--in-place"}, "--truncate-to-timestamp", "3999999999", man)
		same("timestamp cut non-last", func(d string) { ts(d); twoIncrs(d) }, "", []string{"--in-place"}, "--truncate-to-timestamp", "3999999999", man)
		same("timestamp before everything", ts, "", []string{"--in-place"}, "--truncate-to-timestamp", "1", man)
		same("bad timestamp", nil, "", nil, "--truncate-to-timestamp", "x1", man)
		same("empty incr", func(d string) { os.WriteFile(filepath.Join(d, incr), nil, 0o644) }, "", nil, man)
		same("missing incr", func(d string) { os.Remove(filepath.Join(d, incr)) }, "", nil, man)
		same("missing file", nil, "", nil, "nonexistent.aof")
		same("corrupt RDB preamble", func(d string) {
			os.WriteFile(filepath.Join(d, "old.aof"), []byte("REDIS0010\x10\x01k\x05abcde\xff*1\r\n$4\r\nPING\r\n"), 0o644)
		}, "", nil, "old.aof")
		same("blank manifest line", func(d string) {
			rewrite(t, filepath.Join(d, man), func(m []byte) []byte { return append(m, '\n') })
		}, "", nil, man)
		same("manifest without final newline", func(d string) {
			rewrite(t, filepath.Join(d, man), func(m []byte) []byte { return m[:len(m)-1] })
		}, "", nil, man)
		{
			same("base bad CRC", func(d string) {
				rewrite(t, filepath.Join(d, base), func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b })
			}, "", nil, man)
			for _, n := range []int{9, 30} {
				same(fmt.Sprintf("base short by %d", n), cut(base, n), "", nil, man)
			}
		}
	}
}

func TestCheckRDBSameAsRedis(t *testing.T) {
	realRDB := needTool(t, "redis-check-rdb")
	_, ours := checkTools(t)
	dump := realDumpFixture(t)
	fx := t.TempDir()
	copyTree(t, filepath.Dir(dump), fx)
	size := func() int {
		st, err := os.Stat(dump)
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}()
	same := func(name string, mutate func(dir string), args ...string) {
		sameAsRedis(t, name, fx, mutate, "", realRDB, ours, nil, args...)
	}
	same("valid", nil, "dump.rdb")
	same("missing", nil, "nope.rdb")
	same("version", nil, "-v")
	for n := 1; n < size; n += max(1, size/12) {
		same(fmt.Sprintf("short by %d", n), func(d string) {
			rewrite(t, filepath.Join(d, "dump.rdb"), func(b []byte) []byte { return b[:len(b)-n] })
		}, "dump.rdb")
	}
	same("bad CRC", func(d string) {
		rewrite(t, filepath.Join(d, "dump.rdb"), func(b []byte) []byte { b[len(b)-2] ^= 1; return b })
	}, "dump.rdb")
	same("bad type", func(d string) {
		os.WriteFile(filepath.Join(d, "dump.rdb"), []byte("REDIS0010\x30\x01a"), 0o644)
	}, "dump.rdb")
	same("bad version", func(d string) {
		os.WriteFile(filepath.Join(d, "dump.rdb"), []byte("REDIS0011\xff"), 0o644)
	}, "dump.rdb")
	same("bad signature", func(d string) {
		os.WriteFile(filepath.Join(d, "dump.rdb"), []byte("REDIX0010\xff"), 0o644)
	}, "dump.rdb")
	same("corrupt listpack", func(d string) {
		os.WriteFile(filepath.Join(d, "dump.rdb"), []byte("REDIS0010\x10\x01k\x05abcde\xff"), 0o644)
	}, "dump.rdb")
	same("corrupt LZF", func(d string) {
		os.WriteFile(filepath.Join(d, "dump.rdb"), []byte("REDIS0010\x00\x01k\xc3\x05\x10abcde\xff"), 0o644)
	}, "dump.rdb")
	same("checksum disabled", func(d string) {
		rewrite(t, filepath.Join(d, "dump.rdb"), func(b []byte) []byte {
			copy(b[len(b)-8:], make([]byte, 8))
			return b
		})
	}, "dump.rdb")
}

// TestCheckAOFFixToCopy: --fix without --in-place repairs a copy, reports
// what it dropped, and leaves the original alone; the copy passes the real
// checker. No line claims the original was truncated.
func TestCheckAOFFixToCopy(t *testing.T) {
	realAOF := needTool(t, "redis-check-aof")
	bin := serverBinary(t)
	fx := realAOFFixture(t, true)
	_, incr := fileNames(t, fx)
	root := t.TempDir()
	dir := filepath.Join(root, "appendonlydir")
	copyTree(t, fx, dir)
	// Two complete commands inside an unclosed MULTI, then a torn one.
	rewrite(t, filepath.Join(dir, incr), func(b []byte) []byte {
		return append(b, "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\nv\r\n*2\r\n$4\r\nINCR\r\n$2\r\nk2\r\n*2\r\n$3\r\nDEL\r\n$2\r\nk"...)
	})
	before := treeSums(t, dir)
	out, code := runTool(t, root, "", bin, "--check-aof", "--fix", "appendonlydir/appendonly.aof.manifest")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if after := treeSums(t, dir); after != before {
		t.Fatalf("original changed")
	}
	fixed := filepath.Join(root, "appendonlydir.fixed")
	st, err := os.Stat(filepath.Join(dir, incr))
	if err != nil {
		t.Fatal(err)
	}
	const tail = 15 + 31 + 24 + 13 // MULTI, SET, INCR, the torn DEL
	for _, want := range []string{
		"\nTruncated the repaired copy of AOF " + incr + " in " + fixed + "\n",
		"\nAll AOF files and manifest are valid in the repaired copy " + fixed + "\n",
		fmt.Sprintf("\nIn the repaired copy %s, AOF %s was cut from %d to %d bytes, dropping 3 complete commands, then data that does not parse as a command\n",
			fixed, incr, st.Size(), st.Size()-tail),
		"\nThe original files are untouched; the repaired copy is " + fixed + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, lie := range []string{"Successfully truncated", "All AOF files and manifest are valid\n", "on 2 keys"} {
		if strings.Contains(out, lie) {
			t.Errorf("output says %q of the untouched original:\n%s", lie, out)
		}
	}
	if out, code := runTool(t, fixed, "", realAOF, "appendonly.aof.manifest"); code != 0 {
		t.Fatalf("real redis-check-aof rejects the repaired copy:\n%s", out)
	}
	// A second --fix refuses to overwrite the copy.
	if out, code := runTool(t, root, "", bin, "--check-aof", "--fix", "appendonlydir/appendonly.aof.manifest"); code != 1 || !strings.Contains(out, "Cannot write the repaired copy") {
		t.Fatalf("second --fix: exit %d\n%s", code, out)
	}
	// A single file goes to <file>.fixed.
	single := filepath.Join(root, "one.aof")
	b, _ := os.ReadFile(filepath.Join(dir, incr))
	os.WriteFile(single, b, 0o644)
	if out, code := runTool(t, root, "", bin, "--check-aof", "--fix", "one.aof"); code != 0 || !strings.Contains(out, "one.aof.fixed") {
		t.Fatalf("single file --fix: exit %d\n%s", code, out)
	}
	if got, _ := os.ReadFile(single); !bytes.Equal(got, b) {
		t.Fatal("single file changed")
	}
}

// The summary of a --fix on a copy counts only what is certain: garbage
// may hide complete commands after it, so none are claimed; a tail that
// parses (a MULTI never closed) is counted whole.
func TestCheckAOFFixToCopyCounts(t *testing.T) {
	bin := serverBinary(t)
	valid := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
	set := "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"
	multi := "*1\r\n$5\r\nMULTI\r\n"
	for _, c := range []struct{ name, keep, tail, want string }{
		{"garbage before a command", "", "GARBAGE\r\n" + set, "dropping data that does not parse as a command\n"},
		{"a torn command", set, set[:9], "dropping data that does not parse as a command\n"},
		{"MULTI then a torn command", set, multi + set[:9], "dropping 1 complete command, then data that does not parse as a command\n"},
		{"MULTI never closed", "", multi + set + set, "dropping 3 complete commands\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			f := filepath.Join(root, "one.aof")
			if err := os.WriteFile(f, []byte(valid+c.keep+c.tail), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := runTool(t, root, "", bin, "--check-aof", "--fix", "one.aof")
			want := fmt.Sprintf("In the repaired copy one.aof.fixed, AOF one.aof was cut from %d to %d bytes, %s",
				len(valid)+len(c.keep)+len(c.tail), len(valid)+len(c.keep), c.want)
			if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "\nTruncated the repaired copy of AOF one.aof in one.aof.fixed\n") {
				t.Fatalf("exit %d, want %q in:\n%s", code, want, out)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "one.aof.fixed")); string(got) != valid+c.keep {
				t.Fatalf("repaired copy %q", got)
			}
		})
	}
	// --truncate-to-timestamp on a copy names the copy too.
	root := t.TempDir()
	f := filepath.Join(root, "one.aof")
	if err := os.WriteFile(f, []byte(valid+"#TS:200\r\n"+set), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runTool(t, root, "", bin, "--check-aof", "--truncate-to-timestamp", "100", "one.aof")
	if code != 0 || !strings.Contains(out, "\nTruncated the repaired copy of AOF one.aof to timestamp 100 in one.aof.fixed\n") ||
		!strings.Contains(out, "dropping 1 complete command\n") || strings.Contains(out, "Successfully") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestCheckAOFReplay: --replay reports unknown commands, wrong arity,
// WRONGTYPE, and unbalanced transactions with file and offset; a clean AOF
// from the real server has no problems.
func TestCheckAOFReplay(t *testing.T) {
	bin := serverBinary(t)
	fx := realAOFFixture(t, true)
	_, incr := fileNames(t, fx)
	out, code := runTool(t, fx, "", bin, "--check-aof", "--replay", "appendonly.aof.manifest")
	if code != 0 || !strings.Contains(out, "Replay: no problems found") || !strings.Contains(out, "All AOF files and manifest are valid") {
		t.Fatalf("clean fixture: exit %d\n%s", code, out)
	}
	// The base holds foo, l, s, h, z (db 0) and k3 (db 3); the incr adds
	// cnt and a in db 0, five and foo in db 5.
	for _, want := range []string{"Replay keyspace: db0:keys=", "Replay keyspace: db3:keys=1", "Replay keyspace: db5:keys=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	st, err := os.Stat(filepath.Join(fx, incr))
	if err != nil {
		t.Fatal(err)
	}
	sel := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" // the incr ends in db 5
	off := st.Size() + int64(len(sel))
	bad := sel + "*2\r\n$4\r\nINCR\r\n$1\r\nl\r\n" + // WRONGTYPE: l is a list
		"*2\r\n$7\r\nFOOBARX\r\n$1\r\nl\r\n" + // unknown
		"*1\r\n$3\r\nGET\r\n" + // arity
		"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nq\r\n$1\r\n1\r\n" // never closed
	rewrite(t, filepath.Join(fx, incr), func(b []byte) []byte { return append(b, bad...) })
	out, code = runTool(t, fx, "", bin, "--check-aof", "--replay", "appendonly.aof.manifest")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	o1 := off + int64(len("*2\r\n$4\r\nINCR\r\n$1\r\nl\r\n"))
	o2 := o1 + int64(len("*2\r\n$7\r\nFOOBARX\r\n$1\r\nl\r\n"))
	o3 := o2 + int64(len("*1\r\n$3\r\nGET\r\n"))
	for _, want := range []string{
		fmt.Sprintf("Replay warning: %s offset %d: 'INCR \"l\"': WRONGTYPE", incr, off),
		fmt.Sprintf("Replay error: %s offset %d: 'FOOBARX \"l\"': ERR unknown command", incr, o1),
		fmt.Sprintf("Replay error: %s offset %d: 'GET': ERR wrong number of arguments", incr, o2),
		fmt.Sprintf("Replay error: %s offset %d: 'MULTI': MULTI never closed", incr, o3),
		"Replay: 4 problems (unknown command 1, wrong arity 1, wrong type 1, MULTI/EXEC 1",
		"Reached EOF before reading EXEC for MULTI",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckDispatch: the tools are reached by argv[0] or by flag, and the
// server is not started.
func TestCheckDispatch(t *testing.T) {
	var out, errb bytes.Buffer
	if code, ok := dispatchCheck("/x/aofserver", []string{"--port", "1"}, nil, &out, &errb); ok || code != 0 {
		t.Fatal("dispatched a server command line")
	}
	code, ok := dispatchCheck("/x/redis-check-rdb", []string{"-v"}, nil, &out, &errb)
	if !ok || code != 0 || !strings.HasPrefix(out.String(), "redis-check-rdb 7.0.15") {
		t.Fatalf("redis-check-rdb -v: %v %d %q", ok, code, out.String())
	}
	out.Reset()
	code, ok = dispatchCheck("aofserver", []string{"--check-aof"}, nil, &out, &errb)
	if !ok || code != 1 || !strings.HasPrefix(out.String(), "Usage: redis-check-aof ") {
		t.Fatalf("--check-aof without a file: %v %d %q", ok, code, out.String())
	}
	out.Reset()
	code, ok = dispatchCheck("aofserver", []string{"--check-rdb"}, nil, &out, &errb)
	if !ok || code != 1 || !strings.HasPrefix(errb.String(), "Usage: redis-check-rdb ") {
		t.Fatalf("--check-rdb without a file: %v %d %q", ok, code, errb.String())
	}
	for _, bad := range [][]string{{"--fix", "--truncate-to-timestamp", "1", "f"}, {"a", "b"}, {"--bogus", "f"}, {"--out"}} {
		if _, _, ok := parseCheckAOFArgs("p", bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
	a, _, ok := parseCheckAOFArgs("p", []string{"--replay", "--fix", "--out", "o", "f"})
	if !ok || !a.fix || !a.replay || a.out != "o" || a.path != "f" {
		t.Fatalf("parsed %+v %v", a, ok)
	}
}

// --help names the checkers and their extra options.
func TestHelpListsCheckers(t *testing.T) {
	out, err := exec.Command(serverBinary(t), "--help").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--check-aof", "--check-rdb", "--replay", "--fix", "--in-place"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--help lacks %s:\n%s", want, out)
		}
	}
}
