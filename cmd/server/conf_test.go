package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startRedisIn starts the real redis-server with args in directory cwd
// (redis.conf.example's "dir ./data" is entered while the file is read,
// before a --dir flag, so it must exist there) and checks it answers PING.
func startRedisIn(t *testing.T, cwd string, args ...string) {
	t.Helper()
	real := needTool(t, "redis-server")
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// exec.Cmd.Dir would do, but startProc builds the Cmd; chdir around it
	// (the tests of this package do not run in parallel).
	if err := os.Chdir(cwd); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	p := startProc(t, real, args...)
	if r, err := dialResp(t, p.addr()).do("PING"); r != "+PONG" {
		t.Fatalf("PING: %q %v\n%s", r, err, p.out.String())
	}
	if err := p.stop(t, syscall.SIGTERM, 10*time.Second); err != nil {
		t.Fatalf("redis-server exit: %v\n%s", err, p.out.String())
	}
}

// Real Redis 7.0 starts with redis.conf.example as it is: the file holds
// only Redis's directives (ours are in its side file).
func TestExampleConfLoadsInRealRedis(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	startRedisIn(t, dir, exampleConf(t), "--dir", dir)
}

// After CONFIG SET of one of our directives, CONFIG REWRITE leaves a main
// file real Redis starts with, and our server reads the value back from the
// side file after a restart.
func TestRewrittenConfLoadsInRealRedis(t *testing.T) {
	exe := serverBinary(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "redis.conf")
	src, err := os.ReadFile(exampleConf(t))
	if err != nil {
		t.Fatal(err)
	}
	// A main file as an earlier aofserver wrote it, with one of ours inside.
	if err := os.WriteFile(conf, append(src, "aof-group-commit-max-batch 0\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, exe, conf, "--dir", dir)
	c := dialResp(t, p.addr())
	for _, cmd := range [][]string{
		{"CONFIG", "SET", "aof-group-commit-delay-usec", "50"},
		{"CONFIG", "SET", "aof-group-commit-max-batch", "7"},
		{"CONFIG", "REWRITE"},
	} {
		if r, err := c.do(cmd...); r != "+OK" {
			t.Fatalf("%q: %q %v", cmd, r, err)
		}
	}
	if err := p.stop(t, syscall.SIGTERM, 10*time.Second); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.out.String())
	}
	main, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains("\n"+string(main), "\naof-group-commit") {
		t.Fatalf("rewritten main file holds our directives:\n%s", main)
	}
	startRedisIn(t, dir, conf, "--dir", dir)

	p = startProc(t, exe, conf, "--dir", dir)
	c = dialResp(t, p.addr())
	for name, want := range map[string]string{"aof-group-commit-delay-usec": "50", "aof-group-commit-max-batch": "7"} {
		if _, err := c.do("CONFIG", "GET", name); err != nil {
			t.Fatal(err)
		}
		// do returns the array header; the name and the value follow.
		got := readBulks(t, c, 2)
		if got[1] != want {
			t.Fatalf("after restart CONFIG GET %s = %q, want %q", name, got, want)
		}
	}
}

// readBulks reads n bulk strings after an array header read by do.
func readBulks(t *testing.T, c *respConn, n int) []string {
	t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		if _, err := c.r.ReadString('\n'); err != nil { // $len
			t.Fatal(err)
		}
		line, err := c.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSuffix(line, "\r\n"))
	}
	return out
}

// Debian's stock /etc/redis/redis.conf loads with no "has no effect"
// warning: every directive it sets that aofserver does not implement is at
// Redis's default.
func TestDebianConfNoWarnings(t *testing.T) {
	const stock = "/etc/redis/redis.conf"
	data, err := os.ReadFile(stock)
	if err != nil {
		t.Skipf("%s: %v", stock, err)
	}
	exe := serverBinary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, exe, conf, "--dir", dir, "--daemonize", "no", "--supervised", "no",
		"--logfile", "", "--pidfile", filepath.Join(dir, "redis.pid"))
	if n := strings.Count(p.out.String(), "has no effect"); n != 0 {
		t.Fatalf("%d no-effect warnings:\n%s", n, p.out.String())
	}
}
