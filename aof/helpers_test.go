package aof

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/fsx"
)

// logBuf collects zerolog output from several goroutines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuf) has(t *testing.T, msg string) {
	t.Helper()
	if !strings.Contains(l.String(), msg) {
		t.Errorf("log lacks %q; log:\n%s", msg, l.String())
	}
}

// recLoader records every delivered command as a space-joined string and
// every RDB string key as "RDB k=v".
type recLoader struct {
	cmds    []string
	unknown map[string]bool
	errOn   map[string]error
	rdbErr  error
}

func (r *recLoader) LoadRDB(br *bufio.Reader, file string) error {
	if r.rdbErr != nil {
		return r.rdbErr
	}
	return scanRDB(br, func(k, v string) { r.cmds = append(r.cmds, "RDB "+k+"="+v) })
}

func (r *recLoader) Command(argv [][]byte) error {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = string(a)
	}
	name := strings.ToUpper(parts[0])
	if r.unknown[name] {
		return fmt.Errorf("%w '%s'", ErrUnknownCommand, parts[0])
	}
	r.cmds = append(r.cmds, strings.Join(parts, " "))
	if err := r.errOn[name]; err != nil {
		return err
	}
	return nil
}

// withoutSelect0 drops the synthetic per-file "SELECT 0" lines.
func withoutSelect0(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		if c != "SELECT 0" {
			out = append(out, c)
		}
	}
	return out
}

// scanRDB is a tiny RDB v10 walker for tests: it handles the opcodes of AOF
// bases and string values, reports string keys, and stops after the checksum.
func scanRDB(r *bufio.Reader, rec func(k, v string)) error {
	magic := make([]byte, 9)
	if _, err := io.ReadFull(r, magic); err != nil {
		return err
	}
	if string(magic[:5]) != "REDIS" {
		return errors.New("bad magic")
	}
	for {
		op, err := r.ReadByte()
		if err != nil {
			return err
		}
		switch op {
		case 0xFA: // AUX
			if _, err := rdbStr(r); err != nil {
				return err
			}
			if _, err := rdbStr(r); err != nil {
				return err
			}
		case 0xFE:
			if _, _, err := rdbLen(r); err != nil {
				return err
			}
		case 0xFB:
			for i := 0; i < 2; i++ {
				if _, _, err := rdbLen(r); err != nil {
					return err
				}
			}
		case 0xFC:
			if _, err := r.Discard(8); err != nil {
				return err
			}
		case 0xF5:
			if _, err := rdbStr(r); err != nil {
				return err
			}
		case 0xFF:
			sum := make([]byte, 8)
			_, err := io.ReadFull(r, sum)
			return err
		case 0: // string
			k, err := rdbStr(r)
			if err != nil {
				return err
			}
			v, err := rdbStr(r)
			if err != nil {
				return err
			}
			rec(k, v)
		default:
			return fmt.Errorf("scanRDB: unsupported opcode %#x", op)
		}
	}
}

func rdbLen(r *bufio.Reader) (n uint64, enc bool, err error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 63), false, nil
	case 1:
		c, err := r.ReadByte()
		return uint64(b&63)<<8 | uint64(c), false, err
	case 2:
		var buf [8]byte
		switch b {
		case 0x80:
			_, err = io.ReadFull(r, buf[:4])
			return uint64(binary.BigEndian.Uint32(buf[:4])), false, err
		case 0x81:
			_, err = io.ReadFull(r, buf[:])
			return binary.BigEndian.Uint64(buf[:]), false, err
		}
		return 0, false, fmt.Errorf("bad length byte %#x", b)
	}
	return uint64(b & 63), true, nil
}

func rdbStr(r *bufio.Reader) (string, error) {
	n, enc, err := rdbLen(r)
	if err != nil {
		return "", err
	}
	if enc {
		var buf [4]byte
		switch n {
		case 0:
			_, err = io.ReadFull(r, buf[:1])
			return fmt.Sprint(int8(buf[0])), err
		case 1:
			_, err = io.ReadFull(r, buf[:2])
			return fmt.Sprint(int16(binary.LittleEndian.Uint16(buf[:2]))), err
		case 2:
			_, err = io.ReadFull(r, buf[:4])
			return fmt.Sprint(int32(binary.LittleEndian.Uint32(buf[:4]))), err
		case 3:
			clen, _, err := rdbLen(r)
			if err != nil {
				return "", err
			}
			if _, _, err := rdbLen(r); err != nil {
				return "", err
			}
			_, err = r.Discard(int(clen))
			return "<lzf>", err
		}
		return "", fmt.Errorf("bad string encoding %d", n)
	}
	if n > 1<<20 {
		return "", errors.New("string too long")
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}

// copyDir copies the files of src into dst (created).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// testOpts returns options for fsys rooted at dir with a captured log.
func testOpts(fsys fsx.FS, dir string, p Policy) (Options, *logBuf) {
	lb := &logBuf{}
	return Options{
		FS:            fsys,
		Dir:           dir,
		DirName:       "appendonlydir",
		FileName:      "appendonly.aof",
		Policy:        p,
		LoadTruncated: true,
		Logger:        zerolog.New(lb),
		Now:           time.Now,
	}, lb
}

// newCrashDir returns a CrashFS holding a durable empty directory "/data".
func newCrashDir(t testing.TB) *fsx.CrashFS {
	t.Helper()
	c := fsx.NewCrashFS()
	if err := c.MkdirAll("/data"); err != nil {
		t.Fatal(err)
	}
	return c
}

// putFile writes a durable file on a CrashFS (content synced, dir synced).
func putFile(t testing.TB, c *fsx.CrashFS, path string, data []byte) {
	t.Helper()
	if err := c.MkdirAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	f, err := c.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.SyncDir(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
}

func resp(cmds ...string) []byte {
	var b []byte
	for _, c := range cmds {
		var argv [][]byte
		for _, f := range strings.Fields(c) {
			argv = append(argv, []byte(f))
		}
		b = AppendCommand(b, argv)
	}
	return b
}

func args(s string) [][]byte {
	var argv [][]byte
	for _, f := range strings.Fields(s) {
		argv = append(argv, []byte(f))
	}
	return argv
}

// emptyRESPBase writes nothing: a valid empty RESP base.
func emptyRESPBase(w io.Writer) error { return nil }
