package aof

import (
	"io"
	"strings"
	"testing"
	"time"
)

// The first write after the start-up base is annotated as Redis 7.0.15
// annotates it: a RESP base (aof-use-rdb-preamble no) carries a #TS line
// that counts as the last one, so a write in the same second gets none; an
// RDB base has no #TS line, so the first write gets one even in the same
// second.
func TestStartupBaseAndFirstTimestamp(t *testing.T) {
	for _, tc := range []struct {
		preamble bool
		want     string
	}{
		{true, "#TS:1700000000\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"},
		{false, "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"},
	} {
		c := newCrashDir(t)
		opt, _ := testOpts(c, "/data", EverySec)
		opt.TimestampEnabled = true
		opt.UseRDBPreamble = tc.preamble
		now := time.Unix(1700000000, 0)
		opt.Now = func() time.Time { return now } // one second for the whole test
		a, err := Open(opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Start(func(w io.Writer) error {
			if !tc.preamble {
				_, err := io.WriteString(w, "#TS:1700000000\r\n") // what the server's RESP base opens with
				return err
			}
			_, err := io.WriteString(w, "REDIS0010")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		off := a.Feed(Op{DB: 0, Argv: args("SET a 1")})
		if err := a.Wait(off); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := c.ReadAll("/data/appendonlydir/appendonly.aof.1.incr.aof")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(got), tc.want) {
			t.Fatalf("preamble %v: incr file %q, want %q first", tc.preamble, got, tc.want)
		}
	}
}
