package server

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Loading the dataset while serving: DEBUG LOADAOF (and the start-up load,
// cmd/server's tests) answers other clients -LOADING at once, and a slow
// script replayed from the AOF logs "Slow script detected" and lends the
// executor as Redis's scriptInterrupt does (tests/integration/aof.tcl
// "EVAL timeout with slow verbatim Lua script from AOF").

// loadingTarget is one server of a differential loading test.
type loadingTarget struct {
	name string
	addr string
	dir  string
	log  func() string
}

func loadingTargets(t *testing.T, args ...string) []loadingTarget {
	real := startRealRedis(t, args...)
	ours := startOurServer(t, args...)
	return []loadingTarget{
		{"ours", ours.addr, ours.dir, ours.logs.String},
		{"redis", real.addr, real.dir, func() string {
			b, _ := os.ReadFile(filepath.Join(real.dir, "redis.log"))
			return string(b)
		}},
	}
}

// writeIncr replaces the content of the open incr file of dir's AOF.
func writeIncr(t *testing.T, dir string, cmds ...[]string) {
	t.Helper()
	var b []byte
	for _, c := range cmds {
		b = appendMultibulk(b, c...)
	}
	p := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadAOFSeesLoading runs DEBUG LOADAOF on one connection and PINGs on
// another until -LOADING comes back; the load must not end first.
func loadAOFSeesLoading(t *testing.T, tg loadingTarget) {
	t.Helper()
	a, b := dial(t, tg.addr), dial(t, tg.addr)
	a.send("DEBUG", "LOADAOF")
	done := make(chan string, 1)
	go func() {
		a.nc.SetReadDeadline(time.Now().Add(60 * time.Second)) // a failure bound
		raw, err := readRaw(a.br)
		if err != nil {
			raw = "read error: " + err.Error()
		}
		done <- raw
	}()
	for {
		r := b.do("PING")
		if strings.HasPrefix(r, "-LOADING Redis is loading the dataset in memory") {
			break
		}
		select {
		case got := <-done:
			t.Fatalf("%s: DEBUG LOADAOF replied %q before any -LOADING (PING: %q)", tg.name, got, r)
		default:
		}
	}
	if got := <-done; got != "+OK\r\n" {
		t.Fatalf("%s: DEBUG LOADAOF: %q", tg.name, got)
	}
	if r := b.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("%s: PING after the load: %q", tg.name, r)
	}
}

func TestDebugLoadAOFServesLoading(t *testing.T) {
	for _, tg := range loadingTargets(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no") {
		var cmds [][]string
		for i := 0; i < 300_000; i++ {
			cmds = append(cmds, []string{"SET", "key:" + strconv.Itoa(i), "value"})
		}
		writeIncr(t, tg.dir, cmds...)
		loadAOFSeesLoading(t, tg)
		c := dial(t, tg.addr)
		if r := c.do("DBSIZE"); r != ":300000\r\n" {
			t.Fatalf("%s: DBSIZE %q", tg.name, r)
		}
		log := tg.log()
		if n := strings.Count(log, "# Append Only File loaded by DEBUG LOADAOF\n"); n != 1 {
			t.Fatalf("%s: 'Append Only File loaded by DEBUG LOADAOF' logged %d times:\n%s", tg.name, n, log)
		}
		// Redis's loadDataFromDisk logs it, DEBUG LOADAOF does not.
		if strings.Contains(log, "DB loaded from append only file") {
			t.Fatalf("%s: DEBUG LOADAOF logged 'DB loaded from append only file':\n%s", tg.name, log)
		}
	}
}

func TestDebugLoadAOFSlowScript(t *testing.T) {
	for _, tg := range loadingTargets(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--lua-time-limit", "1") {
		const script = "redis.call('set',KEYS[1],'y'); for i=1,1500000 do redis.call('ping') end return 'ok'"
		writeIncr(t, tg.dir, []string{"SELECT", "9"}, []string{"EVAL", script, "1", "x"})
		loadAOFSeesLoading(t, tg)
		c := dial(t, tg.addr)
		c.do("SELECT", "9")
		if r := c.do("GET", "x"); r != "$1\r\ny\r\n" {
			t.Fatalf("%s: GET x %q", tg.name, r)
		}
		log := tg.log()
		if !strings.Contains(log, "# Slow script detected: still in execution after ") ||
			!strings.Contains(log, " milliseconds. You can try killing the script using the SCRIPT KILL command. Script name is: a6ec6a459fa904354b6f27b49e0bced7c551a882.\n") {
			t.Fatalf("%s: no slow script line:\n%s", tg.name, log)
		}
	}
}

// logTail returns the lines logged after the first n bytes of log as
// "<mark> <message>", with the figures that vary from run to run masked.
func logTail(log string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(log[n:]), "\n") {
		// "pid:role dd Mon yyyy hh:mm:ss.mmm <mark> message"
		f := strings.SplitN(l, " ", 7)
		if len(f) < 7 {
			continue
		}
		msg := f[6]
		switch {
		case strings.HasPrefix(msg, "RDB age "):
			msg = "RDB age <n> seconds"
		case strings.HasPrefix(msg, "RDB memory usage when created "):
			msg = "RDB memory usage when created <x> Mb"
		}
		out = append(out, f[5]+" "+msg)
	}
	return out
}

// DEBUG RELOAD logs rdbLoad's lines, the closing "Done loading RDB" one
// included, then Redis's warning-level "DB reloaded by DEBUG RELOAD".
func TestDebugReloadLogLinesAsRedis(t *testing.T) {
	var lines [][]string
	for _, tg := range loadingTargets(t) {
		c := dial(t, tg.addr)
		c.do("SET", "a", "1")
		c.do("SET", "b", "2")
		c.do("PEXPIRE", "b", "100000")
		n := len(tg.log())
		if r := c.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
			t.Fatalf("%s: DEBUG RELOAD: %q", tg.name, r)
		}
		lines = append(lines, logTail(tg.log(), n))
	}
	if !slices.Equal(lines[0], lines[1]) {
		t.Fatalf("DEBUG RELOAD lines differ\nours:  %q\nredis: %q", lines[0], lines[1])
	}
}
