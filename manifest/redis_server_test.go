package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// TestMarshalMatchesRedisServer lets real Redis write the manifest for an
// appendfilename full of bytes that need quoting, and compares it with ours.
func TestMarshalMatchesRedisServer(t *testing.T) {
	const name = "a\"b\tc\xc3\xa9 x\x01\x7f~\r"
	p := testsrv.StartRedis(t, "", "--appendfilename", name)
	dir := p.Dir
	conn, err := testsrv.DialConn(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if reply, err := conn.DoLine(10*time.Second, "CONFIG", "SET", "appendonly", "yes"); err != nil || reply != "+OK" {
		t.Fatalf("CONFIG SET appendonly yes: %q, %v", reply, err)
	}

	// Turning AOF on rewrites in the background; the manifest is complete
	// once it lists the incr.
	mpath := filepath.Join(dir, "appendonlydir", ManifestName(name))
	var got []byte
	if !testsrv.Poll(10*time.Second, func() bool {
		got, _ = os.ReadFile(mpath)
		return strings.Contains(string(got), " type i\n")
	}) {
		t.Fatalf("no complete manifest (have %q)\n%s", got, p.LogText())
	}

	m, _ := (&Manifest{}).WithNewIncr(name)
	m, _ = m.AfterRewrite(name, true)
	if want := m.Marshal(); string(got) != string(want) {
		t.Fatalf("Redis wrote %q\nwe write   %q", got, want)
	}
	back := mustParse(t, string(got))
	if back.Base.Name != BaseName(name, 1, true) || back.Incrs[0].Name != IncrName(name, 1) {
		t.Fatalf("parsed %s", dump(back))
	}
}
