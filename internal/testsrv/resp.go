package testsrv

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/resp"
)

// AppendMultibulk appends args as one RESP multibulk request.
func AppendMultibulk(b []byte, args ...string) []byte { return resp.AppendCommand(b, args) }

// ReadRaw reads one RESP2/RESP3 reply (nested aggregates and attributes
// included) and returns its exact bytes, so comparisons are byte-exact.
func ReadRaw(br *bufio.Reader) (string, error) {
	var sb strings.Builder
	err := readValue(br, &sb, 0)
	return sb.String(), err
}

func readValue(br *bufio.Reader, sb *strings.Builder, depth int) error {
	if depth > 64 {
		return errors.New("reply nested too deeply")
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return fmt.Errorf("bad reply line %q", line)
	}
	sb.WriteString(line)
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return nil
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 512<<20 {
			return fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return err
		}
		sb.Write(buf)
		return nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 1<<24 {
			return fmt.Errorf("bad aggregate length %q", body)
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readValue(br, sb, depth+1); err != nil {
				return err
			}
		}
		if line[0] == '|' { // attributes precede the reply they describe
			return readValue(br, sb, depth+1)
		}
		return nil
	}
	return fmt.Errorf("unknown reply type %q", line)
}

// Value is a parsed reply. Kind is the RESP type byte ('+', '-', ':',
// '$', '*', '%', '~', '>', '_', ',', '#', '(', '!', '='); Str holds the
// text of simple, error, number and bulk replies; Elems the elements of
// an aggregate (a map's keys and values alternate); Nil is set for $-1,
// *-1 and _.
type Value struct {
	Kind  byte
	Str   string
	Elems []Value
	Nil   bool
}

// Parse parses one raw reply as returned by ReadRaw.
func Parse(raw string) (Value, error) {
	return parse(bufio.NewReader(strings.NewReader(raw)))
}

func parse(br *bufio.Reader) (Value, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return Value{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return Value{}, fmt.Errorf("bad reply line %q", line)
	}
	v := Value{Kind: line[0]}
	body := line[1 : len(line)-2]
	switch v.Kind {
	case '+', '-', ':', ',', '#', '(':
		v.Str = body
	case '_':
		v.Nil = true
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return v, fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			v.Nil = true
			return v, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return v, err
		}
		v.Str = string(buf[:n])
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return v, fmt.Errorf("bad aggregate length %q", body)
		}
		if n < 0 {
			v.Nil = true
			return v, nil
		}
		if v.Kind == '%' || v.Kind == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			e, err := parse(br)
			if err != nil {
				return v, err
			}
			v.Elems = append(v.Elems, e)
		}
		if v.Kind == '|' { // attributes precede the reply they describe
			return parse(br)
		}
	default:
		return v, fmt.Errorf("unknown reply type %q", line)
	}
	return v, nil
}

// Conn is a small RESP client to a 127.0.0.1 server.
type Conn struct {
	NC net.Conn
	BR *bufio.Reader
}

// DialConn connects to addr, which must be a 127.0.0.1 address: tests
// talk to nothing else.
func DialConn(addr string) (*Conn, error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
		return nil, fmt.Errorf("refusing to connect to %q: tests only talk to 127.0.0.1", addr)
	}
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &Conn{NC: nc, BR: bufio.NewReader(nc)}, nil
}

func (c *Conn) Close() error { return c.NC.Close() }

// Send writes one command without reading its reply.
func (c *Conn) Send(timeout time.Duration, args ...string) error {
	c.NC.SetWriteDeadline(time.Now().Add(timeout))
	_, err := c.NC.Write(AppendMultibulk(nil, args...))
	return err
}

// ReadRaw reads one complete reply, raw.
func (c *Conn) ReadRaw(timeout time.Duration) (string, error) {
	c.NC.SetReadDeadline(time.Now().Add(timeout))
	return ReadRaw(c.BR)
}

// DoRaw sends one command and returns its raw reply.
func (c *Conn) DoRaw(timeout time.Duration, args ...string) (string, error) {
	if err := c.Send(timeout, args...); err != nil {
		return "", err
	}
	return c.ReadRaw(timeout)
}

// Do sends one command and returns its reply parsed.
func (c *Conn) Do(timeout time.Duration, args ...string) (Value, error) {
	raw, err := c.DoRaw(timeout, args...)
	if err != nil {
		return Value{}, err
	}
	return Parse(raw)
}

// DoLine sends one command and returns the reply's first line without
// its CRLF ("+OK", ":3", "-ERR ...", "*2"), or the payload of a non-nil
// bulk string; the rest of an aggregate is left unread. It is the
// shorthand of the process tests, which check status replies and GETs.
func (c *Conn) DoLine(timeout time.Duration, args ...string) (string, error) {
	if err := c.Send(timeout, args...); err != nil {
		return "", err
	}
	c.NC.SetReadDeadline(time.Now().Add(timeout))
	line, err := c.BR.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if strings.HasPrefix(line, "$") && line != "$-1" {
		n, _ := strconv.Atoi(line[1:])
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.BR, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return line, nil
}

// Session dials addr for the rest of the test and returns do: it sends one
// command and returns the raw reply without its surrounding white space
// ("+OK", ":3", "$1\r\nv"). A failed dial or exchange fails t, naming
// the server and printing its log, so a differential test's steps read as
// a list of commands.
func Session(t testing.TB, name, addr string, logs func() string) func(args ...string) string {
	t.Helper()
	c, err := DialConn(addr)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, logs())
	}
	t.Cleanup(func() { c.Close() })
	return func(args ...string) string {
		t.Helper()
		raw, err := c.DoRaw(10*time.Second, args...)
		if err != nil {
			t.Fatalf("%s: %v: %v\n%s", name, args, err, logs())
		}
		return strings.TrimSpace(raw)
	}
}

// Ping waits until addr answers PING with +PONG (or -NOAUTH), giving up with an error
// when exited is closed (the server died) or after deadline.
func Ping(addr string, exited <-chan struct{}, deadline time.Duration) error {
	var err error
	ok := Poll(deadline, func() bool {
		select {
		case <-exited:
			err = errors.New("server exited")
			return true
		default:
		}
		var c *Conn
		if c, err = DialConn(addr); err != nil {
			return false
		}
		defer c.Close()
		var raw string
		// -NOAUTH is an answer too: the server is up, a requirepass
		// test authenticates itself. -LOADING is not: wait on.
		if raw, err = c.DoRaw(time.Second, "PING"); err == nil && raw != "+PONG\r\n" &&
			!strings.HasPrefix(raw, "-NOAUTH ") {
			err = fmt.Errorf("PING replied %q", raw)
		}
		return err == nil
	})
	if !ok && err == nil {
		err = errors.New("no PONG")
	}
	return err
}
