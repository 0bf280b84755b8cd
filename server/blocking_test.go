package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

func TestDiffBlockingImmediate(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "a", "b", "c"),
		cmd("BLPOP", "l", "0"),
		cmd("BRPOP", "missing", "l", "0"),
		cmd("BLPOP", "l", "-1"),
		cmd("BLPOP", "l", "abc"),
		cmd("BLPOP", "l"),
		cmd("SET", "s", "x"),
		cmd("BLPOP", "s", "0"),
		cmd("BLPOP", "missing", "s", "0"),
		cmd("RPUSH", "src", "1", "2"),
		cmd("BRPOPLPUSH", "src", "dst", "0"),
		cmd("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"),
		cmd("BLMOVE", "src", "dst", "UP", "RIGHT", "0"),
		cmd("BRPOPLPUSH", "s", "dst", "0"),
		cmd("BRPOPLPUSH", "dst", "s", "0"),
		cmd("LRANGE", "dst", "0", "-1"),
		cmd("MULTI"), cmd("BLPOP", "empty", "0"), cmd("BRPOPLPUSH", "empty", "x", "0"), cmd("EXEC"),
		cmd("BLPOP", "empty", "0.05"),
		cmd("BLMOVE", "empty", "x", "LEFT", "LEFT", "0.05"),
	})
}

func TestBlockingServedLater(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes")
	a := asyncDo(t, ts.addr, "BLPOP", "bl", "0")
	noReply(t, a, "BLPOP on an empty list") // a is parked first
	b := asyncDo(t, ts.addr, "BLPOP", "bl", "other", "0")
	noReply(t, b, "BLPOP on an empty list")
	c := dial(t, ts.addr)
	if r := c.do("INFO", "clients"); !strings.Contains(r, "blocked_clients:2") {
		t.Fatalf("INFO clients: %s", r)
	}
	if r := c.do("RPUSH", "bl", "x", "y", "z"); r != ":3\r\n" {
		t.Fatalf("RPUSH: %q", r)
	}
	if r := reply(t, a); r != "*2\r\n$2\r\nbl\r\n$1\r\nx\r\n" {
		t.Fatalf("first blocked client: %q", r)
	}
	if r := reply(t, b); r != "*2\r\n$2\r\nbl\r\n$1\r\ny\r\n" {
		t.Fatalf("second blocked client: %q", r)
	}
	if r := c.do("LRANGE", "bl", "0", "-1"); r != "*1\r\n$1\r\nz\r\n" {
		t.Fatalf("LRANGE: %q", r)
	}
	// BLMOVE served later, then a timeout and CLIENT UNBLOCK.
	m := asyncDo(t, ts.addr, "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
	noReply(t, m, "BLMOVE")
	c.do("LPUSH", "src", "v")
	if r := reply(t, m); r != "$1\r\nv\r\n" {
		t.Fatalf("BLMOVE: %q", r)
	}
	start := time.Now()
	if r := reply(t, asyncDo(t, ts.addr, "BRPOP", "none", "0.2")); r != "*-1\r\n" {
		t.Fatalf("BRPOP timeout: %q", r)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("timed out after %v", d)
	}
	u := dial(t, ts.addr)
	id := strings.TrimSpace(strings.TrimPrefix(u.do("CLIENT", "ID"), ":"))
	u.send("BLPOP", "none", "0")
	waitBlockedClients(t, c, 1)
	if r := c.do("CLIENT", "UNBLOCK", id, "ERROR"); r != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK: %q", r)
	}
	if r := u.read(); r != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked reply: %q", r)
	}
	// The pipeline after a blocking command runs once it is served.
	u.send("BLPOP", "later", "0")
	u.send("PING")
	waitBlockedClients(t, c, 1)
	c.do("RPUSH", "later", "1")
	if r := u.read(); r != "*2\r\n$5\r\nlater\r\n$1\r\n1\r\n" {
		t.Fatalf("pipelined BLPOP: %q", r)
	}
	if r := u.read(); r != "+PONG\r\n" {
		t.Fatalf("pipelined PING: %q", r)
	}
	// The AOF logs the push, then the pop (spec §4.2).
	c.do("DEBUG", "SLEEP", "0")
	data := readIncr(t, ts.dir)
	if !strings.Contains(data, "RPUSH\r\n$2\r\nbl\r\n$1\r\nx\r\n$1\r\ny\r\n$1\r\nz\r\n*2\r\n$4\r\nLPOP\r\n$2\r\nbl\r\n*2\r\n$4\r\nLPOP\r\n$2\r\nbl\r\n") {
		t.Fatalf("AOF does not log RPUSH then LPOP LPOP:\n%q", data)
	}
	if !strings.Contains(data, "LMOVE\r\n$3\r\nsrc\r\n$3\r\ndst\r\n$4\r\nleft\r\n$5\r\nright\r\n") {
		t.Fatalf("AOF does not log the served BLMOVE as LMOVE:\n%q", data)
	}
	// Replaying the AOF gives the same dataset.
	want := c.do("DEBUG", "DIGEST")
	cp := t.TempDir()
	copyDir(t, ts.dir, cp)
	ts2 := startOurServer(t, "--appendonly", "yes", "--dir", cp)
	if got := digestOf(t, ts2.addr); got != want {
		t.Fatalf("digest after replay %q, want %q", got, want)
	}
}

// A client that disconnects while blocked must not swallow a later push.
func TestBlockedClientGone(t *testing.T) {
	ts := startOurServer(t)
	g := dial(t, ts.addr)
	c := dial(t, ts.addr)
	g.send("BLPOP", "q", "0")
	waitBlockedClients(t, c, 1)
	g.nc.Close()
	waitBlockedClients(t, c, 0) // the server saw the close
	c.do("RPUSH", "q", "job")
	if r := c.do("LLEN", "q"); r != ":1\r\n" {
		t.Fatalf("a gone client consumed the push: LLEN %q", r)
	}
}

// waitBlockedClients waits until the server, asked through c, counts n
// blocked clients.
func waitBlockedClients(t *testing.T, c *respConn, n int) {
	t.Helper()
	want := "blocked_clients:" + strconv.Itoa(n) + "\r\n"
	testsrv.WaitFor(t, 10*time.Second, want, func() bool { return strings.Contains(c.do("INFO", "clients"), want) })
}

func readIncr(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	var sb strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(trimPrealloc(b))
	}
	return sb.String()
}

// trimPrealloc drops the padding a live incr file has under appendfsync
// always (aof-prealloc-size): what a clean shutdown would leave.
func trimPrealloc(b []byte) []byte {
	i := len(b)
	for i > 0 && (b[i-1] == '#' || b[i-1] == '\n') {
		i--
	}
	if i < len(b) && i > 0 && b[i-1] == '\r' {
		i++
	}
	return b[:i]
}

func TestDiffBlockingZset(t *testing.T) {
	diff(t, [][]string{
		cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"),
		cmd("BZPOPMIN", "z", "0"),
		cmd("BZPOPMAX", "missing", "z", "0"),
		cmd("BZPOPMIN", "z", "-1"),
		cmd("SET", "s", "x"),
		cmd("BZPOPMIN", "s", "0"),
		cmd("MULTI"), cmd("BZPOPMAX", "empty", "0"), cmd("EXEC"),
		cmd("BZPOPMIN", "empty", "0.05"),
		cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
	})
}

func TestBZPOPServedLater(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes")
	a := asyncDo(t, ts.addr, "BZPOPMAX", "z", "0")
	noReply(t, a, "BZPOPMAX on a missing key")
	c := dial(t, ts.addr)
	c.do("ZADD", "z", "1", "a", "5", "e")
	if r := reply(t, a); r != "*3\r\n$1\r\nz\r\n$1\r\ne\r\n$1\r\n5\r\n" {
		t.Fatalf("BZPOPMAX: %q", r)
	}
	c.do("DEBUG", "SLEEP", "0")
	if data := readIncr(t, ts.dir); !strings.Contains(data, "*2\r\n$7\r\nZPOPMAX\r\n$1\r\nz\r\n") {
		t.Fatalf("AOF lacks ZPOPMAX z:\n%q", data)
	}
}

func TestDiffBlockingMpop(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "a", "b", "c"),
		cmd("ZADD", "z", "1", "a", "2", "b"),
		cmd("BLMPOP", "0", "2", "missing", "l", "LEFT", "COUNT", "2"),
		cmd("BLMPOP", "0", "1", "l", "RIGHT"),
		cmd("BZMPOP", "0", "1", "z", "MAX", "COUNT", "5"),
		cmd("BLMPOP", "0", "0", "l", "LEFT"),
		cmd("BLMPOP", "0", "1", "l", "UP"),
		cmd("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "0"),
		cmd("BLMPOP", "-1", "1", "l", "LEFT"),
		cmd("BZMPOP", "0", "3", "a", "b", "MIN"),
		cmd("SET", "s", "x"),
		cmd("BLMPOP", "0", "1", "s", "LEFT"),
		cmd("LMPOP", "2", "l", "s", "LEFT"),
		cmd("ZMPOP", "1", "z", "MIN"),
		cmd("MULTI"), cmd("BLMPOP", "0", "1", "empty", "LEFT"), cmd("BZMPOP", "0", "1", "empty", "MIN"), cmd("EXEC"),
		cmd("BLMPOP", "0.05", "1", "empty", "LEFT"),
	})
}

func TestBLMPOPServedLater(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes")
	a := asyncDo(t, ts.addr, "BLMPOP", "0", "2", "x", "y", "RIGHT", "COUNT", "2")
	noReply(t, a, "BLMPOP")
	c := dial(t, ts.addr)
	c.do("RPUSH", "y", "1", "2", "3")
	if r := reply(t, a); r != "*2\r\n$1\r\ny\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n" {
		t.Fatalf("BLMPOP: %q", r)
	}
	z := asyncDo(t, ts.addr, "BZMPOP", "0", "1", "zz", "MIN")
	noReply(t, z, "BZMPOP")
	c.do("ZADD", "zz", "3", "m")
	if r := reply(t, z); r != "*2\r\n$2\r\nzz\r\n*1\r\n*2\r\n$1\r\nm\r\n$1\r\n3\r\n" {
		t.Fatalf("BZMPOP: %q", r)
	}
	c.do("DEBUG", "SLEEP", "0")
	data := readIncr(t, ts.dir)
	if !strings.Contains(data, "*3\r\n$4\r\nRPOP\r\n$1\r\ny\r\n$1\r\n2\r\n") || !strings.Contains(data, "*3\r\n$7\r\nZPOPMIN\r\n$2\r\nzz\r\n$1\r\n1\r\n") {
		t.Fatalf("AOF lacks the served pops:\n%q", data)
	}
}

func TestDiffWait(t *testing.T) {
	diff(t, [][]string{
		cmd("WAIT", "0", "0"),
		cmd("WAIT", "1", "50"),
		cmd("WAIT", "x", "0"),
		cmd("WAIT", "0", "-1"),
		cmd("WAIT", "0", "y"),
	})
}
