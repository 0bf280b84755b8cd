package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/config"
)

// dsServer is a server without listeners for running data-structure
// commands in-process. Propagated ops stay in s.pendingOps (execDepth is
// held at 1 so nothing is flushed) for the tests to inspect.
type dsServer struct {
	s *Server
	c *client
}

func newDSServer(t testing.TB, tweak func(*config.Config)) *dsServer {
	t.Helper()
	cfg := config.Default()
	if tweak != nil {
		tweak(cfg)
	}
	s, err := New(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	c := execClient(s, 1)
	s.execDepth = 1
	s.collectProp = true
	return &dsServer{s: s, c: c}
}

// do runs one command and returns its raw RESP reply.
func (d *dsServer) do(args ...string) string {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	d.c.out = d.c.out[:0]
	d.s.mu.Lock()
	d.s.processCommand(d.c, argv)
	d.s.mu.Unlock()
	return string(d.c.out)
}

// ops returns and clears the propagated commands as space-joined strings.
func (d *dsServer) ops() []string {
	var out []string
	for _, op := range d.s.pendingOps {
		parts := make([]string, len(op.Argv))
		for i, a := range op.Argv {
			parts[i] = string(a)
		}
		out = append(out, strings.Join(parts, " "))
	}
	d.s.pendingOps = d.s.pendingOps[:0]
	return out
}

func (d *dsServer) expect(t *testing.T, want string, args ...string) {
	t.Helper()
	if got := d.do(args...); got != want {
		t.Fatalf("%v: got %q, want %q", args, got, want)
	}
}

// respArr builds the RESP2 array of bulk strings.
func respArr(items ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(items))
	for _, it := range items {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(it), it)
	}
	return b.String()
}

func TestListCommands(t *testing.T) {
	d := newDSServer(t, nil)
	d.expect(t, ":3\r\n", "RPUSH", "l", "a", "b", "c")
	d.expect(t, ":5\r\n", "LPUSH", "l", "y", "z")
	d.expect(t, respArr("z", "y", "a", "b", "c"), "LRANGE", "l", "0", "-1")
	d.expect(t, respArr("b", "c"), "LRANGE", "l", "-2", "100")
	d.expect(t, "*0\r\n", "LRANGE", "l", "3", "1")
	d.expect(t, "$1\r\nc\r\n", "LINDEX", "l", "-1")
	d.expect(t, "$-1\r\n", "LINDEX", "l", "5")
	d.expect(t, "-ERR index out of range\r\n", "LSET", "l", "9", "x")
	d.expect(t, "-ERR no such key\r\n", "LSET", "nol", "0", "x")
	d.expect(t, "*-1\r\n", "LPOP", "nol", "2")
	d.expect(t, "*0\r\n", "LPOP", "l", "0")
	d.expect(t, "-ERR value is out of range, must be positive\r\n", "LPOP", "l", "-1")
	d.expect(t, "-ERR wrong number of arguments for 'lpop' command\r\n", "LPOP", "l", "1", "2")
	d.expect(t, respArr("z", "y"), "LPOP", "l", "2")
	d.expect(t, ":4\r\n", "LINSERT", "l", "AFTER", "a", "a")
	d.expect(t, ":-1\r\n", "LINSERT", "l", "BEFORE", "nope", "x")
	d.expect(t, ":0\r\n", "LPOS", "l", "a")
	d.expect(t, ":1\r\n", "LPOS", "l", "a", "RANK", "-1")
	d.expect(t, "*2\r\n:0\r\n:1\r\n", "LPOS", "l", "a", "COUNT", "0")
	d.expect(t, ":2\r\n", "LREM", "l", "-5", "a")
	d.expect(t, respArr("b", "c"), "LRANGE", "l", "0", "-1")
	d.ops()
	// A no-op LTRIM changes nothing and is not propagated, like Redis.
	d.expect(t, "+OK\r\n", "LTRIM", "l", "0", "-1")
	if ops := d.ops(); len(ops) != 0 {
		t.Fatalf("no-op LTRIM propagated %v", ops)
	}
	d.expect(t, "+OK\r\n", "LTRIM", "l", "1", "1")
	if ops := d.ops(); len(ops) != 1 || ops[0] != "LTRIM l 1 1" {
		t.Fatalf("LTRIM propagated %v", ops)
	}
	d.expect(t, "$1\r\nc\r\n", "LMOVE", "l", "l", "RIGHT", "LEFT")
	d.expect(t, ":1\r\n", "EXISTS", "l")
	d.expect(t, "$1\r\nc\r\n", "RPOPLPUSH", "l", "dst")
	d.expect(t, ":0\r\n", "EXISTS", "l")
	d.expect(t, "+OK\r\n", "SET", "s", "x")
	d.expect(t, "-"+errWrongType+"\r\n", "LPUSH", "s", "a")
	d.expect(t, "-"+errWrongType+"\r\n", "RPOPLPUSH", "dst", "s")
	d.expect(t, ":1\r\n", "LLEN", "dst") // the failed move left the source alone
	d.expect(t, ":0\r\n", "LPUSHX", "nol", "a")
	d.expect(t, ":0\r\n", "EXISTS", "nol")
}

func TestListPushOwnsArguments(t *testing.T) {
	d := newDSServer(t, nil)
	argv := [][]byte{[]byte("RPUSH"), []byte("k"), []byte("abc")}
	d.s.processCommand(d.c, argv)
	argv[2][0] = 'X' // the network buffer gets reused
	d.expect(t, respArr("abc"), "LRANGE", "k", "0", "-1")
}
