package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/config"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// Helpers of this file are prefixed "bi" so they never collide with the
// shared helpers of testserver_test.go.

// biStartOurs runs an in-process server on a free 127.0.0.1 port with
// persistence off plus args, and returns its address.
func biStartOurs(t testing.TB, args ...string) string {
	t.Helper()
	all := append([]string{"--port", "0", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)
	cfg, err := config.Load("", all, nil)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	s, err := New(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	s.PickFreePort() // "--port 0": any free port, not TCP off
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	if err := s.LoadData(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s.Addr().String()
}

func biFreePort(t testing.TB) int { return testsrv.FreePort(t) }

// biNeedBinary skips (or fails under CI=true) when path is missing.
func biNeedBinary(t testing.TB, path string) { t.Helper(); testsrv.Need(t, path) }

// biStartRedis runs the real redis-server 7.0 on a free 127.0.0.1 port,
// on its default DEBUG and log settings.
func biStartRedis(t testing.TB, args ...string) string {
	t.Helper()
	all := append([]string{"--enable-debug-command", "no", "--logfile", ""}, args...)
	return testsrv.StartRedis(t, "", all...).Addr()
}

// biExchange sends input on a fresh connection and collects everything
// the server answers until it closes the connection or stays silent for
// idle. closed reports whether the server closed it.
func biExchange(t testing.TB, addr string, input []byte, idle time.Duration) (reply []byte, closed bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write(input) // the server may stop reading before all is sent
	buf := make([]byte, 64<<10)
	for {
		c.SetReadDeadline(time.Now().Add(idle))
		n, err := c.Read(buf)
		reply = append(reply, buf[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return reply, false
			}
			return reply, true // EOF or reset
		}
	}
}

// biConn is a minimal RESP client for the tests.
type biConn struct {
	net.Conn
	r *bufio.Reader
}

func biDial(t testing.TB, addr string) *biConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &biConn{Conn: c, r: bufio.NewReader(c)}
}

// do sends a command and returns its reply in wire form.
func (c *biConn) do(args ...string) (string, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(appendMultibulk(nil, args...)); err != nil {
		return "", err
	}
	return c.readReply()
}

func (c *biConn) readReply() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return line, err
	}
	switch line[0] {
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n < 0 {
			return line, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return "", err
		}
		return line + string(b), nil
	case '*':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		out := line
		for i := 0; i < n; i++ {
			s, err := c.readReply()
			if err != nil {
				return out, err
			}
			out += s
		}
		return out, nil
	}
	return line, nil
}

// biMustPing asserts the server still answers PING on a new connection
// (the 10 s deadline only turns a hang into a failure).
func biMustPing(t testing.TB, addr string) {
	t.Helper()
	c := biDial(t, addr)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		t.Fatalf("ping write: %v", err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		t.Fatalf("server no longer answers PING: %q %v", line, err)
	}
	c.Close()
}

type biServers struct{ ours, redis string }

func biBoth(t *testing.T, args ...string) biServers {
	return biServers{ours: biStartOurs(t, args...), redis: biStartRedis(t, args...)}
}

// TestBadInputSameAsRedis feeds malformed requests to both servers and
// compares the bytes answered and whether the connection was closed.
func TestBadInputSameAsRedis(t *testing.T) {
	srv := biBoth(t)
	garbage := make([]byte, 4096)
	seed := uint32(12345)
	for i := range garbage {
		seed = seed*1664525 + 1013904223
		garbage[i] = byte(seed >> 24)
	}
	noNUL := bytes.ReplaceAll(garbage, []byte{0}, []byte{1})
	cases := []struct {
		name string
		in   []byte
	}{
		{"mbulk not a number", []byte("*x\r\n")},
		{"mbulk empty", []byte("*\r\nPING\r\n")},
		{"mbulk plus", []byte("*+1\r\n$4\r\nPING\r\n")},
		{"mbulk leading zero", []byte("*01\r\n$4\r\nPING\r\n")},
		{"mbulk minus zero", []byte("*-0\r\n")},
		{"mbulk -1 skipped", []byte("*-1\r\nPING\r\n")},
		{"mbulk 0 skipped", []byte("*0\r\n*1\r\n$4\r\nPING\r\n")},
		{"mbulk too many", []byte("*3000000000\r\n")},
		{"mbulk big pending", []byte("*1048577\r\n")},
		{"bulk huge", []byte("*2\r\n$9999999999\r\n")},
		{"bulk negative", []byte("*1\r\n$-1\r\n")},
		{"bulk leading zero", []byte("*1\r\n$04\r\nPING\r\n")},
		{"bulk plus", []byte("*1\r\n$+4\r\nPING\r\n")},
		{"bulk missing dollar", []byte("*1\r\nx4\r\nPING\r\n")},
		{"bulk star instead of dollar", []byte("*2\r\n$4\r\nECHO\r\n*1\r\n")},
		{"pipeline then error", []byte("PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n")},
		{"bulk trailer unchecked", []byte("*2\r\n$4\r\nECHOxx$2\r\nhiYY")},
		{"inline unbalanced", []byte("SET \"a b\r\n")},
		{"inline quotes", []byte("ECHO \"a\\x41\\n\" 'b\\'c'\r\nECHO a\"b c\"\r\n")},
		{"inline closing quote glued", []byte("ECHO \"a\"b\r\n")},
		{"inline empty lines", []byte("\r\n\n  \r\nPING\r\n")},
		{"inline too big no newline", bytes.Repeat([]byte("a"), 70000)},
		{"inline line over 80 KB", append(bytes.Repeat([]byte("a"), 100000), "\r\n"...)},
		{"mbulk count too big", append([]byte("*"), bytes.Repeat([]byte("1"), 70000)...)},
		{"bulk count too big", append([]byte("*1\r\n$"), bytes.Repeat([]byte("1"), 70000)...)},
		{"NUL in inline", []byte("PING\x00x\r\n")},
		{"NUL alone", []byte("\x00\r\n")},
		{"NUL in quotes", []byte("\"PI\x00NG\"\r\n")},
		{"NUL in mbulk header", []byte("*1\x00\r\n$4\r\nPING\r\n")},
		{"NUL in bulk header", []byte("*1\r\n$4\x00\r\nPING\r\n")},
		{"NUL inline then too big", append([]byte("PING\x00"), bytes.Repeat([]byte("x"), 70000)...)},
		{"NUL in unknown command name", []byte("*2\r\n$4\r\nPI\x00G\r\n$3\r\na\x00b\r\n")},
		{"NUL in bulk data", []byte("*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n")},
		{"CRLF in unknown command args", []byte("*3\r\n$3\r\nFOO\r\n$3\r\na\r\n\r\n$1\r\nb\r\n")},
		{"unknown command long args", []byte(fmt.Sprintf("NOSUCH %s %s\r\n", strings.Repeat("x", 100), strings.Repeat("y", 100)))},
		{"wrong arity", []byte("GET\r\nSET a\r\n")},
		{"binary garbage no NUL", noNUL},
		{"binary garbage", garbage},
		{"star garbage", append([]byte("*"), noNUL...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const idle = 400 * time.Millisecond
			want, wantClosed := biExchange(t, srv.redis, c.in, idle)
			got, gotClosed := biExchange(t, srv.ours, c.in, idle)
			if !bytes.Equal(got, want) || gotClosed != wantClosed {
				t.Errorf("input %q\nours  (closed=%v): %q\nredis (closed=%v): %q", clip(c.in), gotClosed, clip(got), wantClosed, clip(want))
			}
			biMustPing(t, srv.ours)
		})
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(append([]byte{}, b[:200]...), "..."...)
	}
	return b
}

// compareScript runs the same steps on a connection to each server.
func biCompareSteps(t *testing.T, srv biServers, steps [][]string) {
	t.Helper()
	co, cr := biDial(t, srv.ours), biDial(t, srv.redis)
	for _, st := range steps {
		want, werr := cr.do(st...)
		got, gerr := co.do(st...)
		if werr != nil {
			t.Fatalf("redis %q: %v", st, werr)
		}
		if gerr != nil || got != want {
			t.Fatalf("%q: ours %q (%v), redis %q", st, got, gerr, want)
		}
	}
}

func TestBadInputRequirepass(t *testing.T) {
	srv := biBoth(t, "--requirepass", "s3cret")
	biCompareSteps(t, srv, [][]string{
		{"PING"},
		{"GET", "k"},
		{"AUTH", "wrong"},
		{"AUTH", "default", "wrong"},
		{"AUTH", "nouser", "s3cret"},
		{"SET", "k", "v"},
		{"AUTH", "s3cret"},
		{"SET", "k", "v"},
		{"GET", "k"},
	})
	// Before AUTH, big lengths are refused.
	for _, in := range []string{"*1048577\r\n", "*1\r\n$16385\r\n", "*1\r\n$16384\r\n"} {
		want, wc := biExchange(t, srv.redis, []byte(in), 300*time.Millisecond)
		got, gc := biExchange(t, srv.ours, []byte(in), 300*time.Millisecond)
		if !bytes.Equal(got, want) || gc != wc {
			t.Errorf("%q: ours %q closed=%v, redis %q closed=%v", in, got, gc, want, wc)
		}
	}
	c := biDial(t, srv.ours)
	if r, _ := c.do("AUTH", "s3cret"); r != "+OK\r\n" {
		t.Fatalf("auth: %q", r)
	}
	if r, _ := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("ping after auth: %q", r)
	}
}

func TestBadInputMaxclients(t *testing.T) {
	srv := biBoth(t, "--maxclients", "2")
	for _, addr := range []string{srv.ours, srv.redis} {
		a, b := biDial(t, addr), biDial(t, addr)
		for _, c := range []*biConn{a, b} {
			if r, err := c.do("PING"); r != "+PONG\r\n" {
				t.Fatalf("%s: ping %q %v", addr, r, err)
			}
		}
		got, closed := biExchange(t, addr, []byte("PING\r\n"), 2*time.Second)
		if string(got) != "-ERR max number of clients reached\r\n" || !closed {
			t.Fatalf("%s: third client got %q closed=%v", addr, got, closed)
		}
		a.Close()
		// The slot frees once the server notices the close.
		deadline := time.Now().Add(3 * time.Second)
		for {
			got, _ := biExchange(t, addr, []byte("PING\r\n"), 300*time.Millisecond)
			if string(got) == "+PONG\r\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: slot not freed: %q", addr, got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func TestBadInputMaxmemoryNoeviction(t *testing.T) {
	// Ours starts last so the first SET comes right after its start.
	args := []string{"--maxmemory", "1", "--maxmemory-policy", "noeviction"}
	srv := biServers{redis: biStartRedis(t, args...)}
	srv.ours = biStartOurs(t, args...)
	biCompareSteps(t, srv, [][]string{
		{"SET", "k", "v"},
		{"GET", "k"},
		{"INCR", "n"},
		{"DEL", "k"},
		{"PING"},
	})
	biMustPing(t, srv.ours)
}

func TestBadInputIdleTimeout(t *testing.T) {
	srv := biBoth(t, "--timeout", "1")
	for name, addr := range map[string]string{"ours": srv.ours, "redis": srv.redis} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := biDial(t, addr)
			if r, err := c.do("PING"); r != "+PONG\r\n" {
				t.Fatalf("ping %q %v", r, err)
			}
			start := time.Now()
			c.SetReadDeadline(time.Now().Add(6 * time.Second))
			_, err := c.r.ReadByte()
			if err == nil {
				t.Fatal("idle client got data")
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("idle client not closed after 6 s")
			}
			if el := time.Since(start); el < 900*time.Millisecond {
				t.Fatalf("closed after %v, before the 1 s timeout", el)
			}
			// A client that keeps talking stays connected.
			k := biDial(t, addr)
			for i := 0; i < 6; i++ {
				if r, err := k.do("PING"); r != "+PONG\r\n" {
					t.Fatalf("active client dropped at %d: %q %v", i, r, err)
				}
				time.Sleep(400 * time.Millisecond)
			}
			biMustPing(t, addr)
		})
	}
}

func TestBadInputQueryBufferLimit(t *testing.T) {
	srv := biBoth(t, "--client-query-buffer-limit", "1mb", "--proto-max-bulk-len", "100mb")
	in := append([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10000000\r\n"), bytes.Repeat([]byte("x"), 2<<20)...)
	for _, addr := range []string{srv.redis, srv.ours} {
		got, closed := biExchange(t, addr, in, 3*time.Second)
		if !closed || len(got) != 0 {
			t.Fatalf("%s: 2 MB partial bulk over a 1 MB query buffer limit: reply %q closed=%v", addr, clip(got), closed)
		}
	}
	biMustPing(t, srv.ours)
	// Under the limit, a big value is fine.
	c := biDial(t, srv.ours)
	val := strings.Repeat("y", 900<<10)
	if r, err := c.do("SET", "big", val); r != "+OK\r\n" {
		t.Fatalf("900 KB set: %q %v", r, err)
	}
	if r, err := c.do("STRLEN", "big"); r != ":921600\r\n" {
		t.Fatalf("strlen: %q %v", r, err)
	}
}

// A subscriber that never reads while megabytes are published to its
// channel is disconnected per client-output-buffer-limit pubsub, and other
// clients keep being served meanwhile (each PING answered before its 5 s
// deadline, which only turns a hang into a failure).
func TestBadInputSlowSubscriber(t *testing.T) {
	t.Run("ours", func(t *testing.T) {
		biSlowSubscriber(t, biStartOurs(t, "--client-output-buffer-limit", "pubsub", "1mb", "256kb", "1"))
	})
	t.Run("redis", func(t *testing.T) {
		biSlowSubscriber(t, biStartRedis(t, "--client-output-buffer-limit", "pubsub 1mb 256kb 1"))
	})
}

func biSlowSubscriber(t *testing.T, addr string) {
	sub := biDial(t, addr)
	if r, err := sub.do("SUBSCRIBE", "ch"); err != nil || !strings.Contains(r, "subscribe") {
		t.Fatalf("subscribe: %q %v", r, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var pingErr error
	var pongs atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := biDial(t, addr)
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := p.do("PING")
			if err != nil || r != "+PONG\r\n" {
				pingErr = fmt.Errorf("ping: %q %v", r, err)
				return
			}
			pongs.Add(1)
			time.Sleep(10 * time.Millisecond)
		}
	}()

	pub := biDial(t, addr)
	payload := strings.Repeat("m", 64<<10)
	dropped := false
	pongs0 := pongs.Load()
	for i := 0; i < 400 && !dropped; i++ { // up to 25 MB
		r, err := pub.do("PUBLISH", "ch", payload)
		if err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if r == ":0\r\n" {
			dropped = true
		} else if r != ":1\r\n" {
			t.Fatalf("publish %d: %q", i, r)
		}
	}
	// The hard limit acts asynchronously: wait for it (the 10 s deadline
	// only turns a hang into a failure).
	for deadline := time.Now().Add(10 * time.Second); !dropped && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		r, _ := pub.do("PUBLISH", "ch", "x")
		dropped = r == ":0\r\n"
	}
	// PINGs are answered after the publishing began.
	for deadline := time.Now().Add(10 * time.Second); pongs.Load() <= pongs0+1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if !dropped {
		t.Fatal("slow subscriber still subscribed after 25 MB were published")
	}
	if pingErr != nil {
		t.Fatal(pingErr)
	}
	if pongs.Load() <= pongs0+1 {
		t.Fatal("no PING answered after the publishing began")
	}
	// The subscriber's connection ends once it drains what was sent.
	sub.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := io.Copy(io.Discard, sub.r); err != nil {
		t.Logf("drained %d bytes: %v", n, err)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("slow subscriber's connection was not closed")
		}
	}
	biMustPing(t, addr)
}
