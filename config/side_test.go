package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The side file is read after the main file and before the flags.
func TestSideFilePrecedence(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "r.conf")
	writeFile(t, main, "port 1\naof-group-commit-delay-usec 5\naof-group-commit-max-batch 6\n")
	writeFile(t, SidePath(main), "# ours\naof-group-commit-delay-usec 7\nlog-format json\n")
	c, err := Load(main, []string{"--aof-group-commit-max-batch", "9", "--port", "2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.AOFGroupCommitDelayUsec != 7 || c.AOFGroupCommitMaxBatch != 9 || c.LogFormat != "json" || c.Port != 2 {
		t.Fatalf("delay=%d batch=%d log-format=%s port=%d", c.AOFGroupCommitDelayUsec, c.AOFGroupCommitMaxBatch, c.LogFormat, c.Port)
	}
	c, err = Load(main, []string{"--aof-group-commit-delay-usec", "8"}, nil)
	if err != nil || c.AOFGroupCommitDelayUsec != 8 {
		t.Fatalf("flag over side file: %v %v", c, err)
	}
}

// A flag's error names the same line with or without a side file, as Redis
// counts it (past the main file), and a main file whose last line has no
// newline still runs on into the flags as in Redis.
func TestSideFileKeepsFlagLineNumbers(t *testing.T) {
	for _, text := range []string{"port 1\n# c\n\n", "port 1\n# c\nport 3"} {
		dir := t.TempDir()
		main := filepath.Join(dir, "r.conf")
		writeFile(t, main, text)
		args := []string{"--port", "2", "--nosuch", "1"}
		_, want := Load(main, args, nil)
		writeFile(t, SidePath(main), "aof-group-commit-delay-usec 7\n")
		_, got := Load(main, args, nil)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Fatalf("%q: with side file %v, without %v", text, got, want)
		}
	}
}

// Redis's directives (and include) are refused in the side file, whose
// errors name it.
func TestSideFileOnlyOurs(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "r.conf")
	writeFile(t, main, "port 1\n")
	for _, line := range []string{"port 2", "include " + main, "nosuch 1"} {
		writeFile(t, SidePath(main), "log-format json\n"+line+"\n")
		_, err := Load(main, nil, nil)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), "file "+SidePath(main)+", at line 2") ||
			!strings.Contains(err.Error(), "Not an aofserver directive") {
			t.Fatalf("%q: %v", line, err)
		}
	}
	writeFile(t, SidePath(main), "aof-group-commit-inflight 99\n")
	if _, err := Load(main, nil, nil); err == nil || !strings.Contains(err.Error(), "argument must be between 0 and 16") {
		t.Fatalf("bad value: %v", err)
	}
}

// CONFIG REWRITE writes Redis's directives to the main file and ours to the
// side file, moving any of ours out of the main file; loading both gives
// the values back.
func TestRewriteSplitsSideFile(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "r.conf")
	writeFile(t, main, "# mine\nport 1\naof-group-commit-max-batch 4\n")
	c, err := Load(main, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set([][2]string{{"aof-group-commit-delay-usec", "50"}, {"maxmemory", "1048576"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	m, s := readFile(t, main), readFile(t, SidePath(main))
	for _, d := range directives {
		if d.has(fOurs) && strings.Contains(m, d.name) {
			t.Fatalf("main file keeps %s:\n%s", d.name, m)
		}
	}
	if !strings.Contains(m, "# mine\nport 1\n") || !strings.Contains(m, "\nmaxmemory 1mb\n") {
		t.Fatalf("main file:\n%s", m)
	}
	if !strings.HasPrefix(s, sideHeader) || !strings.Contains(s, "\naof-group-commit-delay-usec 50\n") ||
		!strings.Contains(s, "\naof-group-commit-max-batch 4\n") || strings.Contains(s, "port") {
		t.Fatalf("side file:\n%s", s)
	}
	c2, err := Load(main, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c2.AOFGroupCommitDelayUsec != 50 || c2.AOFGroupCommitMaxBatch != 4 || c2.MaxMemory != 1<<20 {
		t.Fatalf("reloaded: delay=%d batch=%d maxmemory=%d", c2.AOFGroupCommitDelayUsec, c2.AOFGroupCommitMaxBatch, c2.MaxMemory)
	}
	// An existing side file is rewritten in place, keeping its comments;
	// back at the default, a value keeps its line, as Redis does.
	writeFile(t, SidePath(main), "# keep me\naof-group-commit-delay-usec 50\n")
	if err := c2.Set([][2]string{{"aof-group-commit-delay-usec", "0"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c2.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, SidePath(main)); !strings.HasPrefix(s, "# keep me\naof-group-commit-delay-usec 0\n") {
		t.Fatalf("side file:\n%s", s)
	}
}

// With all of ours at their defaults and no side file, none is created.
func TestRewriteNoSideFileWhenDefault(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "r.conf")
	writeFile(t, main, "port 1\naof-group-commit-delay-usec 0\n")
	c, err := Load(main, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(SidePath(main)); !os.IsNotExist(err) {
		t.Fatalf("side file created: %v", err)
	}
	if m := readFile(t, main); strings.Contains(m, "aof-group") {
		t.Fatalf("main file:\n%s", m)
	}
}
