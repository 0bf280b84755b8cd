package aof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aofserver/aofserver/rstring"

	"github.com/aofserver/aofserver/internal/testsrv"
)

const realCheckAOF = testsrv.RedisBinDir + "/redis-check-aof"

// checkFile runs our Check on path (RESP only: CheckRDB fails the test).
func checkFile(t *testing.T, opt CheckOptions) (string, int, CheckResult) {
	t.Helper()
	var out bytes.Buffer
	opt.Out = &out
	if opt.CheckRDB == nil {
		opt.CheckRDB = func(*bufio.Reader, string, io.Writer) RDBVerdict {
			t.Errorf("CheckRDB called")
			return RDBInvalid
		}
	}
	code, res := Check(opt)
	return out.String(), code, res
}

func realCheck(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(realCheckAOF, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// sampleAOF has annotations, a transaction, binary and empty arguments.
func sampleAOF() []byte {
	var b []byte
	b = append(b, "#TS:1700000000\r\n"...)
	b = append(b, resp("SELECT 0", "SET k v", "MULTI", "INCR n", "LPUSH l a b", "EXEC")...)
	b = AppendCommand(b, [][]byte{[]byte("SET"), []byte("bin\r\n\x00\xff"), {}})
	b = append(b, "#TS:1700000001\r\n"...)
	b = append(b, resp("SELECT 3", "DEL k")...)
	return b
}

// TestCheckEveryCutSameAsRedis truncates a file at every length and
// corrupts every byte, and compares Check with the real redis-check-aof.
func TestCheckEveryCutSameAsRedis(t *testing.T) {
	needBinary(t, realCheckAOF)
	full := sampleAOF()
	type tc struct {
		what     string
		path     string
		want     string
		wantCode int
	}
	var cases []*tc
	dir := t.TempDir()
	add := func(what string, data []byte) {
		p := filepath.Join(dir, fmt.Sprintf("%d.aof", len(cases)))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, &tc{what: what, path: p})
	}
	// Every exec of the real tool costs; a stride of 4 for cuts and 7 for
	// corruptions still lands on every kind of position (count, length,
	// data, CR, LF, annotation) several times.
	for n := 0; n <= len(full); n += 4 {
		add(fmt.Sprintf("cut at %d", n), full[:n])
	}
	for i := 1; i < len(full); i += 7 {
		for _, c := range []byte{'X', '\n', 0xfe} {
			if b := bytes.Clone(full); b[i] != c && (c == 'X' || i%3 == 0) {
				b[i] = c
				add(fmt.Sprintf("byte %d = %q", i, c), b)
			}
		}
	}
	// The real tool runs in parallel; the comparison is sequential.
	var wg sync.WaitGroup
	next := make(chan *tc)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				out, err := exec.Command(realCheckAOF, c.path).CombinedOutput()
				c.want = string(out)
				if ee, ok := err.(*exec.ExitError); ok {
					c.wantCode = ee.ExitCode()
				}
			}
		}()
	}
	for _, c := range cases {
		next <- c
	}
	close(next)
	wg.Wait()
	for _, c := range cases {
		got, gotCode, _ := checkFile(t, CheckOptions{Path: c.path})
		if got != c.want || gotCode != c.wantCode {
			t.Fatalf("%s:\nredis (exit %d):\n%s\nours (exit %d):\n%s", c.what, c.wantCode, c.want, gotCode, got)
		}
	}
}

// TestCheckFixAndTimestampSameAsRedis compares in-place repairs.
func TestCheckFixAndTimestampSameAsRedis(t *testing.T) {
	needBinary(t, realCheckAOF)
	full := sampleAOF()
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a.aof"), filepath.Join(dir, "b.aof")
	cases := []struct {
		data  []byte
		stdin string
		args  []string
		opt   CheckOptions
	}{
		{full[:len(full)-3], "y\n", []string{"--fix"}, CheckOptions{Fix: true, Confirm: true}},
		{full[:len(full)-3], "n\n", []string{"--fix"}, CheckOptions{Fix: true, Confirm: true}},
		{full[:60], "Y", []string{"--fix"}, CheckOptions{Fix: true, Confirm: true}},
		{full, "", []string{"--truncate-to-timestamp", "1700000000"}, CheckOptions{TruncateToTimestamp: 1700000000}},
		{full, "", []string{"--truncate-to-timestamp", "1700000001"}, CheckOptions{TruncateToTimestamp: 1700000001}},
		{full, "", []string{"--truncate-to-timestamp", "5"}, CheckOptions{TruncateToTimestamp: 5}},
	}
	for i, c := range cases {
		os.WriteFile(pa, c.data, 0o644)
		os.WriteFile(pb, c.data, 0o644)
		want, wantCode := realCheck(t, c.stdin, append(c.args, pa)...)
		want = strings.ReplaceAll(want, pa, pb)
		opt := c.opt
		opt.Path, opt.Stdin = pb, strings.NewReader(c.stdin)
		got, gotCode, _ := checkFile(t, opt)
		if got != want || gotCode != wantCode {
			t.Errorf("case %d:\nredis (exit %d):\n%s\nours (exit %d):\n%s", i, wantCode, want, gotCode, got)
		}
		a, _ := os.ReadFile(pa)
		b, _ := os.ReadFile(pb)
		if !bytes.Equal(a, b) {
			t.Errorf("case %d: files differ after the run: %d vs %d bytes", i, len(a), len(b))
		}
	}
}

type recReplayer struct{ log []string }

func (r *recReplayer) BeginFile(name string) { r.log = append(r.log, "begin "+name) }
func (r *recReplayer) Command(name string, off int64, argv [][]byte) {
	r.log = append(r.log, fmt.Sprintf("%s@%d %s", name, off, bytes.Join(argv, []byte(" "))))
}

// TestCheckMultiPartHooks: manifest mode, the RDB hook for an RDB base, the
// replayer's view, and the Truncate hook with the dropped-tail count.
func TestCheckMultiPartHooks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.1.base.rdb"), append([]byte("REDIS0010<rdb>"), resp("SET t 1")...), 0o644)
	incr1 := resp("SET a 1")
	os.WriteFile(filepath.Join(dir, "m.1.incr.aof"), incr1, 0o644)
	torn := append(resp("MULTI", "SET b 2", "SET c 3", "SET b 4"), "*2\r\n$3\r\nDEL"...)
	incr2 := append(resp("INCR a"), torn...)
	os.WriteFile(filepath.Join(dir, "m.2.incr.aof"), incr2, 0o644)
	man := filepath.Join(dir, "m.manifest")
	os.WriteFile(man, []byte("file m.1.base.rdb seq 1 type b\nfile m.1.incr.aof seq 1 type i\nfile m.2.incr.aof seq 2 type i\n"), 0o644)

	rp := &recReplayer{}
	rdbHook := func(r *bufio.Reader, name string, out io.Writer) RDBVerdict {
		b := make([]byte, len("REDIS0010<rdb>"))
		io.ReadFull(r, b)
		fmt.Fprintf(out, "rdb %s ok\n", name)
		return RDBSane
	}
	var truncated []string
	out, code, res := checkFile(t, CheckOptions{Path: man, Fix: true, CheckRDB: rdbHook, Replayer: rp,
		Truncate: func(path string, size int64) error {
			truncated = append(truncated, fmt.Sprintf("%s %d", filepath.Base(path), size))
			return nil
		}})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	cut := len(resp("INCR a"))
	for _, want := range []string{
		"Start to check BASE AOF (RDB format).\nrdb m.1.base.rdb ok\nRDB preamble is OK, proceeding with AOF tail...\n",
		"BASE AOF m.1.base.rdb is valid\n",
		"INCR AOF m.1.incr.aof is valid\n",
		fmt.Sprintf("AOF analyzed: filename=m.2.incr.aof, size=%d, ok_up_to=%d,", len(incr2), cut),
		"Successfully truncated AOF m.2.incr.aof\nAll AOF files and manifest are valid\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if fmt.Sprint(truncated) != fmt.Sprintf("[m.2.incr.aof %d]", cut) {
		t.Errorf("truncated %v", truncated)
	}
	if len(res.Truncations) != 1 {
		t.Fatalf("truncations %+v", res.Truncations)
	}
	tr := res.Truncations[0]
	if tr.Commands != 4 || !tr.Torn || tr.Keys != 2 || tr.To != int64(cut) || tr.Size != int64(len(incr2)) {
		t.Errorf("truncation %+v, want 4 commands (MULTI and 3 SETs), torn, keys b and c", tr)
	}
	wantLog := []string{
		"begin m.1.base.rdb", "m.1.base.rdb@14 SET t 1",
		"begin m.1.incr.aof", "m.1.incr.aof@0 SET a 1",
		"begin m.2.incr.aof", "m.2.incr.aof@0 INCR a",
		fmt.Sprintf("m.2.incr.aof@%d MULTI", cut),
	}
	if got := rp.log; len(got) < len(wantLog) || fmt.Sprint(got[:len(wantLog)]) != fmt.Sprint(wantLog) {
		t.Errorf("replayer saw %q\nwant prefix %q", got, wantLog)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "m.2.incr.aof")); !bytes.Equal(b, incr2) {
		t.Error("the Truncate hook did not replace the in-place truncation")
	}
}

func TestCheckStrtol(t *testing.T) {
	for _, c := range []struct {
		in       string
		v        int64
		end      int
		overflow bool
	}{
		{"12\r\n", 12, 2, false},
		{" -3x", -3, 3, false},
		{"\r\n", 0, 0, false},
		{"+", 0, 0, false},
		{"99999999999999999999", 1<<63 - 1, 20, true},
		{"-9223372036854775808", -1 << 63, 20, false},
	} {
		v, end, of := rstring.Strtoll([]byte(c.in))
		if v != c.v || end != c.end || of != c.overflow {
			t.Errorf("rstring.Strtoll(%q) = %d %d %v, want %d %d %v", c.in, v, end, of, c.v, c.end, c.overflow)
		}
	}
	if hexChar(0xfe) != "fffffffe" || hexChar('\r') != "0d" {
		t.Error("hexChar")
	}
}
