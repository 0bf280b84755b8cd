package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/rstring"
)

// feedReader pushes data into r the way connLoop does, at most chunk(i)
// bytes per read, and returns every command parsed (copied, since args
// alias the buffer) plus the first parse error.
func feedReader(r *Reader, data []byte, chunk func() int) ([][]string, error) {
	var cmds [][]string
	for len(data) > 0 {
		buf, err := r.Space()
		if err != nil {
			return cmds, err
		}
		n := chunk()
		if n > len(buf) {
			n = len(buf)
		}
		if n > len(data) {
			n = len(data)
		}
		copy(buf, data[:n])
		data = data[n:]
		r.end += n
		perr := r.Parse()
		for i := 0; i < r.NCmds(); i++ {
			var c []string
			for _, a := range r.ArgsOf(i) {
				c = append(c, string(a))
			}
			cmds = append(cmds, c)
		}
		if perr != nil {
			return cmds, perr
		}
		r.Reset()
	}
	return cmds, nil
}

func whole() int   { return 1 << 30 }
func oneByte() int { return 1 }

func encodeMultibulk(args ...string) []byte {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

func protoMsg(err error) string {
	var pe *ProtocolError
	if errors.As(err, &pe) {
		return pe.Msg
	}
	if err == nil {
		return "<nil>"
	}
	return "other: " + err.Error()
}

func TestReaderPipelineAnyChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var stream []byte
	var want [][]string
	for i := 0; i < 400; i++ {
		if rng.IntN(4) == 0 {
			// inline command with plain tokens
			n := 1 + rng.IntN(4)
			var args []string
			for j := 0; j < n; j++ {
				args = append(args, fmt.Sprintf("tok%d_%d", i, j))
			}
			stream = append(stream, strings.Join(args, " ")...)
			if rng.IntN(2) == 0 {
				stream = append(stream, '\r')
			}
			stream = append(stream, '\n')
			want = append(want, args)
			continue
		}
		n := 1 + rng.IntN(5)
		args := make([]string, n)
		for j := range args {
			sz := rng.IntN(40)
			if rng.IntN(20) == 0 {
				sz = 20000 + rng.IntN(50000) // crosses the 16 KB read size
			}
			a := make([]byte, sz)
			for k := range a {
				a[k] = byte(rng.UintN(256)) // binary, CR/LF/NUL included
			}
			args[j] = string(a)
		}
		stream = append(stream, encodeMultibulk(args...)...)
		want = append(want, args)
	}
	chunkings := map[string]func() int{
		"whole":  whole,
		"byte":   oneByte,
		"random": func() int { return 1 + rng.IntN(3000) },
		"prime":  func() int { return 7 },
	}
	for name, ch := range chunkings {
		t.Run(name, func(t *testing.T) {
			got, err := feedReader(NewReader(), stream, ch)
			if err != nil {
				t.Fatalf("parse error: %v", err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d commands, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("command %d differs: got %q want %q", i, trunc(got[i]), trunc(want[i]))
				}
			}
		})
	}
}

func trunc(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		out[i] = s
	}
	return out
}

// Redis does not check the two bytes after a bulk's data, and skips
// empty multibulk headers and empty inline lines.
func TestReaderRedisQuirks(t *testing.T) {
	cases := []struct {
		in   string
		want [][]string
	}{
		{"*1\r\n$4\r\nPINGxx", [][]string{{"PING"}}},
		{"*0\r\n*-1\r\n*-7\r\nPING\r\n", [][]string{{"PING"}}},
		{"\r\n\n   \r\nPING\r\n", [][]string{{"PING"}}},
		{"*2\r\n$0\r\n\r\n$1\r\n\x00\r\n", [][]string{{"", "\x00"}}},
		{"*1\r\n$4\r\nPING\r\nECHO a\n", [][]string{{"PING"}, {"ECHO", "a"}}},
	}
	for _, c := range cases {
		for _, ch := range []func() int{whole, oneByte} {
			got, err := feedReader(NewReader(), []byte(c.in), ch)
			if err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%q: got %q want %q", c.in, got, c.want)
			}
		}
	}
}

// Expected values follow Redis's sdssplitargs.
func TestReaderInlineSplitArgs(t *testing.T) {
	cases := []struct {
		line string
		want []string // nil: unbalanced quotes
	}{
		{`set foo bar`, []string{"set", "foo", "bar"}},
		{"  set\tfoo   bar  ", []string{"set", "foo", "bar"}},
		{"\v\fset foo", []string{"set", "foo"}},
		{`set "foo bar" baz`, []string{"set", "foo bar", "baz"}},
		{`"\x41\x4a\x6b"`, []string{"AJk"}},
		{`"\x4"`, []string{"x4"}},
		{`"\xZZ"`, []string{"xZZ"}},
		{`"a\nb\rc\td\be\af\"g\\h\qi"`, []string{"a\nb\rc\td\be\af\"g\\hqi"}},
		{`'it\'s'`, []string{"it's"}},
		{`'a\nb'`, []string{`a\nb`}},
		{`'a"b'`, []string{`a"b`}},
		{`""`, []string{""}},
		{`'' x`, []string{"", "x"}},
		{`a"b c"`, []string{"ab c"}},
		{`a"b c"d`, nil},
		{`a'b c'`, []string{"ab c"}},
		{`"foo"bar`, nil},
		{`'foo'bar`, nil},
		{`"foo`, nil},
		{`'foo`, nil},
		{`"foo\"`, nil},
		{`"foo\`, nil},
		{`"a" "b"`, []string{"a", "b"}},
	}
	for _, c := range cases {
		for _, term := range []string{"\n", "\r\n"} {
			in := c.line + term
			got, err := feedReader(NewReader(), []byte(in), whole)
			if c.want == nil {
				if protoMsg(err) != "unbalanced quotes in request" {
					t.Fatalf("%q: err %v, want unbalanced quotes", in, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q: %v", in, err)
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], c.want) {
				t.Fatalf("%q: got %q want %q", in, got, c.want)
			}
		}
	}
}

func TestReaderProtocolErrors(t *testing.T) {
	long := strings.Repeat("1", protoInlineMaxSize+10)
	cases := []struct {
		name    string
		in      string
		want    string // protocol error message; "" = no error and no command
		unauth  bool
		maxBulk int64
	}{
		{"mbulk not a number", "*x\r\n", "invalid multibulk length", false, 0},
		{"mbulk empty", "*\r\n", "invalid multibulk length", false, 0},
		{"mbulk plus sign", "*+1\r\n", "invalid multibulk length", false, 0},
		{"mbulk leading zero", "*01\r\n", "invalid multibulk length", false, 0},
		{"mbulk minus zero", "*-0\r\n", "invalid multibulk length", false, 0},
		{"mbulk space", "*1 \r\n", "invalid multibulk length", false, 0},
		{"mbulk > INT_MAX", "*2147483648\r\n", "invalid multibulk length", false, 0},
		{"mbulk overflow", "*99999999999999999999999\r\n", "invalid multibulk length", false, 0},
		{"mbulk INT_MAX ok", "*2147483647\r\n", "", false, 0},
		{"bulk not a number", "*1\r\n$x\r\n", "invalid bulk length", false, 0},
		{"bulk negative", "*1\r\n$-1\r\n", "invalid bulk length", false, 0},
		{"bulk empty", "*1\r\n$\r\n", "invalid bulk length", false, 0},
		{"bulk leading zero", "*1\r\n$04\r\nPING\r\n", "invalid bulk length", false, 0},
		{"bulk plus", "*1\r\n$+4\r\nPING\r\n", "invalid bulk length", false, 0},
		{"bulk huge", "*2\r\n$9999999999\r\n", "invalid bulk length", false, 0},
		{"bulk over proto-max-bulk-len", "*1\r\n$11\r\n", "invalid bulk length", false, 10},
		{"bulk at proto-max-bulk-len", "*1\r\n$10\r\n", "", false, 10},
		{"expected dollar", "*1\r\nx4\r\nPING\r\n", "expected '$', got 'x'", false, 0},
		{"expected dollar star", "*2\r\n$1\r\na\r\n*1\r\n", "expected '$', got '*'", false, 0},
		{"too big mbulk count no CR", "*" + long, "too big mbulk count string", false, 0},
		{"too big mbulk count with CR", "*" + long + "\r\n", "too big mbulk count string", false, 0},
		{"too big bulk count no CR", "*1\r\n$" + long, "too big bulk count string", false, 0},
		{"too big bulk count with CR", "*1\r\n$" + long + "\r\n", "too big bulk count string", false, 0},
		{"too big inline", strings.Repeat("a", protoInlineMaxSize+1), "too big inline request", false, 0},
		{"inline at limit waits", strings.Repeat("a", protoInlineMaxSize), "", false, 0},
		{"unbalanced", "set \"a\n", "unbalanced quotes in request", false, 0},
		{"unauth mbulk", "*11\r\n", "unauthenticated multibulk length", true, 0},
		{"unauth mbulk ok", "*10\r\n", "", true, 0},
		{"unauth bulk", "*1\r\n$16385\r\n", "unauthenticated bulk length", true, 0},
		{"unauth bulk ok", "*1\r\n$16384\r\n", "", true, 0},
		// Redis finds line ends with strchr: a NUL before the terminator
		// means "not complete yet".
		{"NUL in inline waits", "PING\x00x\r\n", "", false, 0},
		{"NUL in mbulk header waits", "*1\x00\r\n$4\r\nPING\r\n", "", false, 0},
		{"NUL in bulk header waits", "*1\r\n$4\x00\r\nPING\r\n", "", false, 0},
		{"NUL inline then too big", "PING\x00" + long, "too big inline request", false, 0},
		{"NUL mbulk then too big", "*1\x00" + long, "too big mbulk count string", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, ch := range []func() int{whole, oneByte} {
				r := NewReader()
				if c.maxBulk > 0 {
					r.MaxBulk = c.maxBulk
				}
				if c.unauth {
					r.AuthState = func() (bool, bool) { return true, false }
				}
				got, err := feedReader(r, []byte(c.in), ch)
				if m := protoMsg(err); c.want == "" && err != nil || c.want != "" && m != c.want {
					t.Fatalf("error %q, want %q", m, c.want)
				}
				if len(got) != 0 {
					t.Fatalf("unexpected commands %q", trunc(got[0]))
				}
			}
		})
	}
}

// Commands before a protocol error in the same read are still returned
// (Redis runs them, then replies the error).
func TestReaderCommandsBeforeError(t *testing.T) {
	got, err := feedReader(NewReader(), []byte("PING\r\n*1\r\n$4\r\nECHO\r\n*1\r\n$-5\r\n"), whole)
	if protoMsg(err) != "invalid bulk length" {
		t.Fatalf("err %v", err)
	}
	if !reflect.DeepEqual(got, [][]string{{"PING"}, {"ECHO"}}) {
		t.Fatalf("got %q", got)
	}
}

// A client announcing a huge bulk must not make the server allocate it:
// the buffer grows only with the bytes really received.
func TestReaderHugeBulkAnnounceDoesNotPreallocate(t *testing.T) {
	r := NewReader()
	r.MaxBulk = 1 << 40
	r.MaxQueryBuf = 1 << 40
	got, err := feedReader(r, []byte("*2\r\n$9999999999\r\n"), whole)
	if err != nil || len(got) != 0 {
		t.Fatalf("got %q err %v", got, err)
	}
	if cap(r.buf) > protoIOBufLen {
		t.Fatalf("buffer grew to %d on an announcement alone", cap(r.buf))
	}
	sent := 18
	payload := bytes.Repeat([]byte("z"), 300_000)
	if _, err := feedReader(r, payload, func() int { return 4096 }); err != nil {
		t.Fatal(err)
	}
	sent += len(payload)
	if c := cap(r.buf); c > 2*sent {
		t.Fatalf("buffer cap %d for %d bytes received", c, sent)
	}
	if cap(r.buf) < sent {
		t.Fatalf("buffer cap %d cannot hold %d bytes of a pending bulk", cap(r.buf), sent)
	}
}

func TestReaderQueryBufferLimit(t *testing.T) {
	r := NewReader()
	r.MaxQueryBuf = 64 << 10
	data := append([]byte("*1\r\n$1000000\r\n"), bytes.Repeat([]byte("q"), 200_000)...)
	_, err := feedReader(r, data, func() int { return 8192 })
	if !errors.Is(err, ErrQueryBufferLimit) {
		t.Fatalf("err %v, want query buffer limit", err)
	}
	if cap(r.buf) > 2*int(r.MaxQueryBuf) {
		t.Fatalf("buffer cap %d beyond the limit", cap(r.buf))
	}

	// Completed commands free the buffer: many small pipelined commands
	// adding up to more than the limit are fine.
	r = NewReader()
	r.MaxQueryBuf = 64 << 10
	var stream []byte
	for i := 0; i < 20000; i++ {
		stream = append(stream, encodeMultibulk("SET", "k"+strconv.Itoa(i), "v")...)
	}
	got, err := feedReader(r, stream, func() int { return 16 << 10 })
	if err != nil || len(got) != 20000 {
		t.Fatalf("got %d commands, err %v", len(got), err)
	}
}

// After a big command completes the buffer is kept for the next one, and
// shrinks back after a small one.
func TestReaderBufferShrinksAfterBigCommand(t *testing.T) {
	r := NewReader()
	big := strings.Repeat("v", 1<<20)
	for range 2 {
		got, err := feedReader(r, encodeMultibulk("SET", "k", big), func() int { return 64 << 10 })
		if err != nil || len(got) != 1 || got[0][2] != big {
			t.Fatalf("big command: err %v, %d cmds", err, len(got))
		}
		if cap(r.buf) < 1<<20 {
			t.Fatalf("buffer shrank to %d bytes between big commands", cap(r.buf))
		}
	}
	got, err := feedReader(r, encodeMultibulk("GET", "k"), func() int { return 64 << 10 })
	if err != nil || len(got) != 1 {
		t.Fatalf("small command: err %v, %d cmds", err, len(got))
	}
	if cap(r.buf) > 4*protoIOBufLen {
		t.Fatalf("buffer kept %d bytes after the command completed", cap(r.buf))
	}
}

func TestParseStrictInt(t *testing.T) {
	ok := map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63, "123": 123}
	for s, v := range ok {
		got, good := rstring.String2ll([]byte(s))
		if !good || got != v {
			t.Fatalf("%q: %d %v", s, got, good)
		}
	}
	for _, s := range []string{"", "-", "+1", "01", "-0", "00", " 1", "1 ", "1a", "9223372036854775808", "-9223372036854775809", "99999999999999999999", "0x10"} {
		if _, good := rstring.String2ll([]byte(s)); good {
			t.Fatalf("%q accepted", s)
		}
	}
}
