package resp

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// Requests the fuzzer starts from (the server's FuzzDispatch has its own
// copy: it runs them against a live server).
var fuzzSeeds = []string{
	"PING\r\n",
	"*1\r\n$4\r\nPING\r\n",
	"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
	"SET a 1\r\nINCR a\r\nINCRBY a 10\r\nGET a\r\n",
	"ECHO \"a\\x41\\n\" 'b\\'c'\r\n",
	"MULTI\r\nSET x y\r\nLPUSH l a b c\r\nEXEC\r\n",
	"HSET h f v g w\r\nHGETALL h\r\nSADD s 1 2 3\r\nSMEMBERS s\r\n",
	"ZADD z 1 a 2 b\r\nZRANGE z 0 -1 WITHSCORES\r\n",
	"SUBSCRIBE ch\r\nPING\r\nUNSUBSCRIBE\r\n",
	"*-1\r\n*0\r\nPING\r\n",
	"*2\r\n$9999999999\r\n",
	"*1\r\n$x\r\n",
	"\"unbalanced\r\n",
	"PING\x00x\r\n",
	"*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n",
	"EXPIRE k 100\r\nTTL k\r\nKEYS *\r\nSCAN 0 MATCH * COUNT 10\r\n",
}

// feedChunks is feedReader with chunk sizes taken from sizes (cycled).
func feedChunks(r *Reader, data []byte, sizes []byte) ([][]string, error) {
	i := 0
	return feedReader(r, data, func() int {
		if len(sizes) == 0 {
			return 1 << 30
		}
		// Tiny reads of a big input are quadratic (each read rescans
		// the pending line, as in Redis); scale them to keep execs fast.
		n := (int(sizes[i%len(sizes)]) + 1) * (1 + len(data)/4096)
		i++
		return n
	})
}

func FuzzRequestReader(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), []byte{0, 3, 200, 17})
	}
	f.Add(bytes.Repeat([]byte("a"), 70000), []byte{255})
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		newR := func() *Reader {
			r := NewReader()
			r.MaxBulk = 1 << 20
			r.MaxQueryBuf = 256 << 10
			return r
		}
		r1 := newR()
		c1, e1 := feedChunks(r1, data, nil)
		r2 := newR()
		c2, e2 := feedChunks(r2, data, sizes)
		for _, r := range []*Reader{r1, r2} {
			// The buffer holds at most what was received, doubled.
			if c := cap(r.buf); c > protoIOBufLen && c > 2*len(data) {
				t.Fatalf("buffer cap %d for %d input bytes", c, len(data))
			}
			if c := cap(r.buf); int64(c) > 2*r.MaxQueryBuf {
				t.Fatalf("buffer cap %d beyond query buffer limit", c)
			}
		}
		for _, cmds := range [][][]string{c1, c2} {
			for _, c := range cmds {
				if len(c) == 0 {
					t.Fatal("empty command returned")
				}
				for _, a := range c {
					if len(a) > 1<<20 {
						t.Fatalf("argument of %d bytes over proto-max-bulk-len", len(a))
					}
				}
			}
		}
		for _, e := range []error{e1, e2} {
			var pe *ProtocolError
			if e != nil && !errors.As(e, &pe) && !errors.Is(e, ErrQueryBufferLimit) {
				t.Fatalf("unexpected error type %T: %v", e, e)
			}
		}
		// Read boundaries change only when a size limit trips; when
		// neither feed hit an error the commands must be the same.
		if e1 == nil && e2 == nil && !reflect.DeepEqual(c1, c2) {
			t.Fatalf("chunking changed the commands: %q vs %q", c1, c2)
		}
		if e1 != nil && e2 != nil {
			short, long := c1, c2
			if len(short) > len(long) {
				short, long = long, short
			}
			if !reflect.DeepEqual(short, long[:len(short)]) {
				t.Fatalf("commands before the error differ: %q vs %q", short, long)
			}
		}
	})
}
