package server

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// DEBUG HELP is the installed Redis 7.0.15's text byte for byte. MALLCTL
// stays unknown: our allocator is not jemalloc (mem_allocator says so, and
// Redis's tests only use MALLCTL under jemalloc).
func TestDebugHelpAsRedis(t *testing.T) {
	ours, real := startOurServer(t), startRealRedis(t)
	want := dial(t, real.addr).do("DEBUG", "HELP")
	if got := dial(t, ours.addr).do("DEBUG", "HELP"); got != want {
		t.Fatalf("DEBUG HELP:\n%q\nwant\n%q", got, want)
	}
	if got := dial(t, ours.addr).do("DEBUG", "MALLCTL", "arenas.page"); got != "-ERR unknown subcommand or wrong number of arguments for 'MALLCTL'. Try DEBUG HELP.\r\n" {
		t.Fatalf("DEBUG MALLCTL: %q", got)
	}
}

// DEBUG STRUCTSIZE, SDSLEN, LISTPACK and QUICKLIST answer as Redis's.
func TestDebugEncodingViewsAsRedis(t *testing.T) {
	long := strings.Repeat("k", 40)
	diff(t, [][]string{
		cmd("DEBUG", "STRUCTSIZE"),
		cmd("SET", "s", "hello"),
		cmd("DEBUG", "SDSLEN", "s"),
		cmd("SET", long, strings.Repeat("v", 44)),
		cmd("DEBUG", "SDSLEN", long),
		cmd("SET", "raw", strings.Repeat("x", 45)),
		cmd("DEBUG", "SDSLEN", "raw"),
		cmd("SET", "raw2", strings.Repeat("x", 300)),
		cmd("DEBUG", "SDSLEN", "raw2"),
		cmd("SET", strings.Repeat("K", 31), strings.Repeat("y", 1000)),
		cmd("DEBUG", "SDSLEN", strings.Repeat("K", 31)),
		cmd("SET", strings.Repeat("K", 300), "v"),
		cmd("DEBUG", "SDSLEN", strings.Repeat("K", 300)),
		cmd("SET", "n", "123"),
		cmd("DEBUG", "SDSLEN", "n"),
		cmd("DEBUG", "SDSLEN", "missing"),
		cmd("RPUSH", "l", "a", "b"),
		cmd("DEBUG", "SDSLEN", "l"),
		cmd("HSET", "h", "a", "1"),
		cmd("DEBUG", "LISTPACK", "h"),
		cmd("DEBUG", "LISTPACK", "l"),
		cmd("DEBUG", "LISTPACK", "missing"),
		cmd("DEBUG", "QUICKLIST", "l"),
		cmd("DEBUG", "QUICKLIST", "l", "1"),
		cmd("DEBUG", "QUICKLIST", "h"),
		cmd("DEBUG", "QUICKLIST", "missing", "1"),
		cmd("DEBUG", "QUICKLIST", "l", "1", "x"),
		cmd("DEBUG", "LISTPACK"),
		cmd("DEBUG", "STRUCTSIZE", "x"),
		cmd("DEBUG", "SDSLEN", "s", "x"),
	})
}

// What DEBUG LISTPACK and QUICKLIST print is lpRepr's and quicklistRepr's
// text, addresses aside. Redis's stdout is buffered until it exits, so the
// real server runs here with its stdout captured and is shut down first.
func TestDebugReprOutputAsRedis(t *testing.T) {
	requireRedis(t)
	var printed lockedBuffer
	saved := debugStdout
	debugStdout = &printed
	t.Cleanup(func() { debugStdout = saved })
	cfg := []string{"--list-max-listpack-size", "3", "--list-compress-depth", "1"}
	ours := startOurServer(t, cfg...)

	// Redis prints the dumps to its stdout, which the Proc collects.
	rr := testsrv.StartRedis(t, "", cfg...)
	addr := rr.Addr()

	big := strings.Repeat("abcdefgh", 10) // long enough for LZF to pay off
	script := [][]string{
		{"HSET", "h", "a", "1", "b", "hello", "c", "-200", "d", "70000", "e", "-9000000", "f", "3000000000", "g", strings.Repeat("z", 70)},
		{"DEBUG", "LISTPACK", "h"},
		{"ZADD", "z", "1.5", "m", "2", "n"},
		{"DEBUG", "LISTPACK", "z"},
		{"RPUSH", "l", big + "1", big + "2", big + "3", big + "4", big + "5", big + "6", big + "7", big + "8", big + "9", "x", "y", "12"},
		{"DEBUG", "QUICKLIST", "l"},
		{"DEBUG", "QUICKLIST", "l", "1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "10"},
		{"RPUSH", "p", "short", big, "tail"},
		// (not with 1: Redis prints a PLAIN node's bytes with %s, reading
		// past their end)
		{"DEBUG", "QUICKLIST", "p"},
	}
	oc, rc := dial(t, ours.addr), dial(t, addr)
	for _, c := range script {
		if got, want := oc.do(c...), rc.do(c...); got != want {
			t.Fatalf("%v: %q, want %q", c, got, want)
		}
	}
	rc.send("SHUTDOWN", "NOSAVE") // no reply: the connection just closes
	<-rr.Done                     // its stdout is flushed at exit
	want := []byte(rr.Out.String())
	addrRe := regexp.MustCompile(`addr: 0x[0-9a-f]+`)
	norm := func(s string) string { return addrRe.ReplaceAllString(s, "addr: ADDR") }
	if got := norm(printed.String()); got != norm(string(want)) {
		t.Fatalf("printed:\n%s\nwant (Redis's stdout):\n%s", got, want)
	}
}
