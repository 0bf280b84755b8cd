package replication

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/aofserver/aofserver/aof"
)

// ZeroID is the replication ID of no history (master_replid2 when there is
// no second ID).
const ZeroID = "0000000000000000000000000000000000000000"

// RandomID is a new replication ID (or diskless EOF mark): 40 hex digits.
func RandomID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AppendArgs appends a command in the stream's encoding (a RESP array of
// bulk strings).
func AppendArgs(b []byte, args ...string) []byte {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	return aof.AppendCommand(b, argv)
}

// AppendSelect appends the SELECT the stream carries where the DB changes.
func AppendSelect(b []byte, db int) []byte {
	return aof.AppendCommand(b, [][]byte{[]byte("SELECT"), strconv.AppendInt(nil, int64(db), 10)})
}

// ReadCommand reads one command of the stream (multibulk, or an inline
// line), returning it and its raw bytes.
func ReadCommand(br *bufio.Reader) ([][]byte, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, nil, err
	}
	raw := append([]byte(nil), line...)
	if len(line) == 0 || line[0] != '*' {
		return fieldsBytes(line), raw, nil
	}
	n, err := strconv.Atoi(strings.TrimRight(string(line[1:]), "\r\n"))
	if err != nil || n < 0 || n > 1<<20 {
		return nil, nil, fmt.Errorf("Protocol error: invalid multibulk length")
	}
	argv := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		hl, err := br.ReadSlice('\n')
		if err != nil {
			return nil, nil, err
		}
		raw = append(raw, hl...)
		if len(hl) == 0 || hl[0] != '$' {
			return nil, nil, fmt.Errorf("Protocol error: expected '$', got '%c'", hl[0])
		}
		sz, err := strconv.Atoi(strings.TrimRight(string(hl[1:]), "\r\n"))
		if err != nil || sz < 0 {
			return nil, nil, fmt.Errorf("Protocol error: invalid bulk length")
		}
		start := len(raw)
		raw = append(raw, make([]byte, sz+2)...)
		if _, err := io.ReadFull(br, raw[start:]); err != nil {
			return nil, nil, err
		}
		argv = append(argv, raw[start:start+sz:start+sz])
	}
	return argv, raw, nil
}

// fieldsBytes splits an inline command line.
func fieldsBytes(line []byte) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(string(line)) {
		out = append(out, []byte(f))
	}
	return out
}

// IsTimeout reports whether err is a deadline's.
func IsTimeout(err error) bool {
	type timeout interface{ Timeout() bool }
	t, ok := err.(timeout)
	return ok && t.Timeout()
}

// DeadlineWriter renews the connection's write deadline before each
// write: a replica that reads nothing for Timeout fails the transfer, a
// slow one does not.
type DeadlineWriter struct {
	Conn    net.Conn
	Timeout time.Duration
}

func (d DeadlineWriter) Write(p []byte) (int, error) {
	d.Conn.SetWriteDeadline(time.Now().Add(d.Timeout))
	return d.Conn.Write(p)
}
