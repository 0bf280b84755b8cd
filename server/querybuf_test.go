package server

import (
	"strings"
	"testing"
)

// Query buffer figures of CLIENT LIST and their resizing by
// clientsCronResizeQueryBuffer, side by side with Redis 7.0.15: the cases
// of tests/unit/querybuf.tcl, each waited for by polling CLIENT LIST.

// qbufSide is one server of the comparison: a connection that looks
// (CLIENT LIST) and the client under test, named test_client.
type qbufSide struct {
	name       string
	look, test *respConn
}

func newQbufSides(t *testing.T) []*qbufSide {
	rr := startRealRedis(t, "--hz", "100")
	ours := startOurServer(t, "--hz", "100")
	sides := []*qbufSide{{name: "aofserver", look: dial(t, ours.addr)}, {name: "redis", look: dial(t, rr.addr)}}
	return sides
}

// connect opens the client under test and names it.
func (sd *qbufSide) connect(t *testing.T) {
	sd.test = dialSame(t, sd.look)
	if got := sd.test.do("CLIENT", "SETNAME", "test_client"); got != "+OK\r\n" {
		t.Fatalf("%s: CLIENT SETNAME: %q", sd.name, got)
	}
}

// dialSame connects to the server r is connected to.
func dialSame(t *testing.T, r *respConn) *respConn {
	return dial(t, r.nc.RemoteAddr().String())
}

// figures returns test_client's qbuf, qbuf-free and idle.
func (sd *qbufSide) figures() (qbuf, free, idle int64) {
	qbuf, ok1 := clientInt(sd.look, "test_client", "qbuf")
	free, ok2 := clientInt(sd.look, "test_client", "qbuf-free")
	idle, ok3 := clientInt(sd.look, "test_client", "idle")
	if !ok1 || !ok2 || !ok3 {
		sd.look.t.Fatalf("%s: test_client not listed", sd.name)
	}
	return qbuf, free, idle
}

// sameQbuf requires both servers to show the same qbuf and qbuf-free.
func sameQbuf(t *testing.T, sides []*qbufSide, what string) (qbuf, free int64) {
	t.Helper()
	q0, f0, _ := sides[0].figures()
	q1, f1, _ := sides[1].figures()
	if q0 != q1 || f0 != f1 {
		t.Fatalf("%s: aofserver qbuf=%d qbuf-free=%d, redis qbuf=%d qbuf-free=%d", what, q0, f0, q1, f1)
	}
	return q0, f0
}

// waitQbuf polls each server until cond holds of its figures.
func waitQbuf(t *testing.T, sides []*qbufSide, what string, cond func(qbuf, free, idle int64) bool) {
	t.Helper()
	for _, sd := range sides {
		waitFor(t, sd.name+": "+what, func() bool { return cond(sd.figures()) })
	}
}

func TestQueryBufferResizedWhenIdle(t *testing.T) {
	sides := newQbufSides(t)
	for _, sd := range sides {
		sd.connect(t)
		// A partial command: the arguments parsed leave the buffer, the
		// one being read stays.
		if _, err := sd.test.nc.Write([]byte("*3\r\n$3\r\nset\r\n$2\r\na")); err != nil {
			t.Fatal(err)
		}
	}
	waitQbuf(t, sides, "the partial argument in the buffer", func(q, f, _ int64) bool { return q == 1 })
	q, f := sameQbuf(t, sides, "partial command")
	if q+f < 16384 || q+f > 32770 {
		t.Fatalf("query buffer of %d bytes, want PROTO_IOBUF_LEN..PROTO_RESIZE_THRESHOLD", q+f)
	}
	for _, sd := range sides {
		if _, err := sd.test.nc.Write([]byte("a\r\n$1\r\nb\r\n")); err != nil {
			t.Fatal(err)
		}
		if got := sd.test.read(); got != "+OK\r\n" {
			t.Fatalf("%s: SET: %q", sd.name, got)
		}
	}
	waitQbuf(t, sides, "the command processed", func(q, f, _ int64) bool { return q == 0 })
	sameQbuf(t, sides, "after the command")
	// Idle over 2 seconds: all of its spare room is freed.
	waitQbuf(t, sides, "query buffer resized when idle", func(q, f, idle int64) bool { return idle >= 3 && q+f == 0 })
	sameQbuf(t, sides, "idle")
}

func TestQueryBufferResizedWhenNotIdle(t *testing.T) {
	sides := newQbufSides(t)
	var orig [2]int64
	for i, sd := range sides {
		sd.look.do("DEBUG", "PAUSE-CRON", "1")
		sd.connect(t)
		// The value becomes the object: the buffer is replaced by one
		// sized for another argument as big.
		if got := sd.test.do("SET", "x", strings.Repeat("A", 400000)); got != "+OK\r\n" {
			t.Fatalf("%s: SET: %q", sd.name, got)
		}
		q, f, _ := sd.figures()
		orig[i] = q + f
		if orig[i] <= 32768 {
			t.Fatalf("%s: query buffer of %d bytes after a 400000-byte argument", sd.name, orig[i])
		}
	}
	if orig[0] != orig[1] {
		t.Fatalf("query buffer after a big argument: aofserver %d bytes, redis %d", orig[0], orig[1])
	}
	for i, sd := range sides {
		sd.look.do("DEBUG", "PAUSE-CRON", "0")
		// Smaller commands lower the peak: the cron trims the buffer to it.
		waitFor(t, sd.name+": query buffer shrunk to the recent peak", func() bool {
			if got := sd.test.do("SET", "x", strings.Repeat("A", 100)); got != "+OK\r\n" {
				t.Fatalf("%s: SET: %q", sd.name, got)
			}
			q, f, _ := sd.figures()
			return q+f < orig[i]
		})
		if q, f, _ := sd.figures(); q+f == 0 || q+f >= orig[i] {
			t.Fatalf("%s: query buffer of %d bytes, want some, less than %d", sd.name, q+f, orig[i])
		}
	}
}

func TestQueryBufferResizedWithFatArgv(t *testing.T) {
	sides := newQbufSides(t)
	for _, sd := range sides {
		sd.connect(t)
		// The header of a big argument sizes the buffer for all of it.
		if _, err := sd.test.nc.Write([]byte("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1000000\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	// Read, then trimmed by the cron to the argument's length.
	waitQbuf(t, sides, "buffer sized for the argument", func(q, f, _ int64) bool { return q == 0 && f == 1000000 })
	for _, sd := range sides {
		if _, err := sd.test.nc.Write([]byte("a")); err != nil {
			t.Fatal(err)
		}
	}
	waitQbuf(t, sides, "the argument's first byte", func(q, f, _ int64) bool { return q == 1 })
	q, f := sameQbuf(t, sides, "fat argument begun")
	if q+f < 1000000 {
		t.Fatalf("query buffer of %d bytes: resized while not idle", q+f)
	}
	waitQbuf(t, sides, "query buffer resized when idle", func(q, f, idle int64) bool { return idle >= 3 && q+f < 1000000 })
	sameQbuf(t, sides, "fat argument, idle")
}
