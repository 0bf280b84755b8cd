package aof

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/aofserver/aofserver/fsx"

	"github.com/aofserver/aofserver/internal/testsrv"
)

func needBinary(t *testing.T, path string) { t.Helper(); testsrv.Need(t, path) }

func freePort(t *testing.T) int { return testsrv.FreePort(t) }

// TestRealRedisLoadsOurDirectory writes an AOF directory with our code (a
// startup base, commands in two databases, a rewrite, more commands) and
// checks that redis-check-aof accepts it and redis-server 7.0 loads it.
func TestRealRedisLoadsOurDirectory(t *testing.T) {
	testsrv.NeedRedis(t)
	needBinary(t, realCheckAOF)
	dir := t.TempDir()
	opt, _ := testOpts(fsx.OS(), dir, Always)
	opt.TimestampEnabled = true
	a, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(emptyRESPBase); err != nil {
		t.Fatal(err)
	}
	feed := func(db int, cmds ...string) {
		var off Ticket
		for _, c := range cmds {
			off = a.Feed(Op{DB: db, Argv: args(c)})
		}
		if err := a.Wait(off); err != nil {
			t.Fatal(err)
		}
	}
	feed(0, "SET a 1", "RPUSH l x y")
	feed(2, "SET b 2")
	r, err := a.StartRewrite(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	feed(0, "INCR a")
	base := resp("SET a 1", "RPUSH l x y", "SELECT 2", "SET b 2")
	if err := os.WriteFile(r.TempBasePath(), base, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Install(false); err != nil {
		t.Fatal(err)
	}
	feed(0, "SET c 3")
	feed(0, "MULTI", "SET d 4", "EXEC")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	port, logs := checkAndServe(t, dir)
	cl := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer cl.Close()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for cl.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not come up:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for k, want := range map[string]string{"a": "2", "c": "3", "d": "4"} {
		if got, err := cl.Get(ctx, k).Result(); err != nil || got != want {
			t.Errorf("GET %s = %q, %v; want %q\n%s", k, got, err, want, logs.String())
		}
	}
	if n, _ := cl.LLen(ctx, "l").Result(); n != 2 {
		t.Errorf("LLEN l = %d", n)
	}
	cl2 := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), DB: 2})
	defer cl2.Close()
	if got, _ := cl2.Get(ctx, "b").Result(); got != "2" {
		t.Errorf("GET b in db 2 = %q", got)
	}
}

// checkAndServe runs redis-check-aof on dir's manifest, then starts real
// redis-server on dir (stopped at cleanup) and returns its port and log.
func checkAndServe(t *testing.T, dir string) (int, *testsrv.SyncBuf) {
	t.Helper()
	manifestPath := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
	out, err := exec.Command(realCheckAOF, manifestPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is valid") {
		t.Fatalf("redis-check-aof: %v\n%s", err, out)
	}
	p := testsrv.LaunchOnPort(t, freePort(t), testsrv.RedisServerPath, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "yes", "--dir", dir)
	return p.Port, p.Out
}
