package manifest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const redisServer = "/usr/bin/redis-server"

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestMarshalMatchesRedisServer lets real Redis write the manifest for an
// appendfilename full of bytes that need quoting, and compares it with ours.
func TestMarshalMatchesRedisServer(t *testing.T) {
	if _, err := os.Stat(redisServer); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI: %v", redisServer, err)
		}
		t.Skipf("%s not installed", redisServer)
	}
	const name = "a\"b\tc\xc3\xa9 x\x01\x7f~\r"
	dir := t.TempDir()
	port := freePort(t)
	cmd := exec.Command(redisServer, "--bind", "127.0.0.1", "--port", fmt.Sprint(port),
		"--save", "", "--appendonly", "no", "--dir", dir, "--appendfilename", name)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()

	var conn net.Conn
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			conn = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprint(conn, "*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n")
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || reply != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly yes: %q, %v", reply, err)
	}

	// Turning AOF on rewrites in the background; the manifest is complete
	// once it lists the incr.
	mpath := filepath.Join(dir, "appendonlydir", ManifestName(name))
	var got []byte
	for {
		got, _ = os.ReadFile(mpath)
		if strings.Contains(string(got), " type i\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete manifest (have %q)\n%s", got, log.String())
		}
		time.Sleep(20 * time.Millisecond)
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
