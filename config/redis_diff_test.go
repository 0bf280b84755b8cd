package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

const redisServerBin = testsrv.RedisServerPath

func needRedis(t *testing.T) { t.Helper(); testsrv.NeedRedis(t) }

func freePort(t *testing.T) int { return testsrv.FreePort(t) }

// realRedis is a running redis-server with a client.
type realRedis struct {
	port int
	dir  string
	c    *testsrv.Conn
}

func startRedis(t *testing.T) *realRedis {
	t.Helper()
	// CONFIG GET * is compared with our defaults: undo the starter's
	// DEBUG and log file so that Redis runs on its own defaults too.
	p := testsrv.StartRedis(t, "", "--enable-debug-command", "no", "--logfile", "")
	c, err := testsrv.DialConn(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &realRedis{port: p.Port, dir: p.Dir, c: c}
}

// do sends a command; it returns the flat reply (array of bulks, or one
// element for a status), or an error reply as err.
func (r *realRedis) do(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	v, err := r.c.Do(5*time.Second, args...)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind == '-' {
		return nil, v.Str
	}
	return flatten(nil, v), ""
}

func flatten(out []string, v testsrv.Value) []string {
	if v.Kind != '*' {
		return append(out, v.Str)
	}
	for _, e := range v.Elems {
		out = flatten(out, e)
	}
	return out
}

// envSpecific are directives whose value depends on how the test server
// was started, so only their presence is compared.
var envSpecific = map[string]bool{"dir": true, "port": true, "bind": true, "save": true}

func TestRedisConfigGetAllMatchesRealRedis(t *testing.T) {
	r := startRedis(t)
	flat, errStr := r.do(t, "CONFIG", "GET", "*")
	if errStr != "" {
		t.Fatal(errStr)
	}
	real := map[string]string{}
	for i := 0; i+1 < len(flat); i += 2 {
		real[flat[i]] = flat[i+1]
	}
	ours := map[string]string{}
	for _, p := range Default().Get("*") {
		ours[p[0]] = p[1]
	}
	var missing, extra, diff []string
	for n, v := range real {
		ov, ok := ours[n]
		switch {
		case !ok:
			missing = append(missing, n)
		case !envSpecific[n] && ov != v:
			diff = append(diff, fmt.Sprintf("%s: redis %q, ours %q", n, v, ov))
		}
	}
	for n := range ours {
		if _, ok := real[n]; !ok {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	sort.Strings(diff)
	if len(missing)+len(extra)+len(diff) > 0 {
		t.Errorf("CONFIG GET * differs from redis-server:\nmissing: %v\nextra: %v\nvalues:\n  %s",
			missing, extra, strings.Join(diff, "\n  "))
	}
	// Hidden directives answer an exact GET in both.
	for _, n := range []string{"rdb-key-save-delay", "key-load-delay", "use-exit-on-panic", "watchdog-period",
		"loading-process-events-interval-bytes", "HASH-MAX-ZIPLIST-ENTRIES"} {
		rv, _ := r.do(t, "CONFIG", "GET", n)
		ov := Default().Get(n)
		if len(rv) != 2 || len(ov) != 1 || rv[0] != ov[0][0] || rv[1] != ov[0][1] {
			t.Errorf("CONFIG GET %s: redis %q, ours %q", n, rv, ov)
		}
	}
}

// setCases are CONFIG SET calls whose replies we compare with redis-server.
var setCases = [][]string{
	{"maxmemory", "1x"}, {"maxmemory", "10mb"}, {"maxmemory", "1K"}, {"maxmemory", ""}, {"maxmemory", "-1"},
	{"hz", "01"}, {"hz", "+5"}, {"hz", "1k"}, {"hz", "0"}, {"hz", "100000"},
	{"port", "abc"}, {"port", "70000"}, {"maxclients", "-1"},
	{"appendfsync", "bad"}, {"appendfsync", "ALWAYS"}, {"appendonly", "maybe"},
	{"slowlog-log-slower-than", "-5"}, {"maxmemory-clients", "200%"}, {"maxmemory-clients", "-5%"},
	{"maxmemory-clients", "10%"}, {"daemonize", "yes"}, {"foo", "bar"}, {"port", "1", "PORT", "2"},
	{"save", "1 2 3"}, {"save", "0 1"}, {"save", "100 5 200 x"}, {"save", ""}, {"save", "10 1 20 2"},
	{"client-output-buffer-limit", "normal 1mb 2mb 3"}, {"client-output-buffer-limit", "master 1 1 1"},
	{"client-output-buffer-limit", "pubsub 1 1"}, {"client-output-buffer-limit", "replica 1k 2kb x"},
	{"notify-keyspace-events", "Q"}, {"notify-keyspace-events", "Exn"}, {"notify-keyspace-events", "An"},
	{"notify-keyspace-events", "gKEm$"}, {"shutdown-on-sigint", "now save"}, {"shutdown-on-sigint", "bogus"},
	{"oom-score-adj", "relative"}, {"oom-score-adj-values", "1 2"}, {"oom-score-adj-values", "10 20 30"},
	{"oom-score-adj-values", "1 2 5000"}, {"latency-tracking-info-percentiles", "50.5 0 100"},
	{"latency-tracking-info-percentiles", "101"}, {"latency-tracking-info-percentiles", "x"},
	{"dbfilename", "x.rdb"}, {"dir", "/"}, {"appendfilename", "x"}, {"unixsocketperm", "777"},
	{"list-max-ziplist-size", "-3"}, {"hash-max-listpack-value", "1kb"}, {"proto-max-bulk-len", "1k"},
	{"timeout", "10", "foo", "1"}, {"foo", "1", "daemonize", "yes"}, {"daemonize", "yes", "foo", "1"},
	{"timeout", "10", "hz", "abc"}, {"proc-title-template", "{bogus}"}, {"proc-title-template", "{title} {port}"},
	{"cluster-announce-hostname", "bad_host"}, {"slave-read-only", "no"}, {"lua-time-limit", "100"},
	{"requirepass", ""}, {"replicaof", "no one"}, {"tls-port", "x"},
}

func TestRedisConfigSetMatchesRealRedis(t *testing.T) {
	r := startRedis(t)
	// Start ours from the same command line as the real server.
	ours, err := Load("", []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range setCases {
		args := append([]string{"CONFIG", "SET"}, tc...)
		rv, rerr := r.do(t, args...)
		var pairs [][2]string
		for i := 0; i+1 < len(tc); i += 2 {
			pairs = append(pairs, [2]string{tc[i], tc[i+1]})
		}
		err := ours.Set(pairs, nil)
		oerr := ""
		if err != nil {
			oerr = err.Error()
		}
		if oerr != rerr {
			t.Errorf("CONFIG SET %q: redis %q (%v), ours %q", tc, rerr, rv, oerr)
		}
		// The value each name reads back must agree too.
		for _, p := range pairs {
			gv, _ := r.do(t, "CONFIG", "GET", p[0])
			og := ours.Get(p[0])
			if len(gv) == 0 && len(og) == 0 {
				continue
			}
			if len(gv) != 2 || len(og) != 1 || gv[1] != og[0][1] {
				t.Errorf("after CONFIG SET %q: GET %s redis %q, ours %q", tc, p[0], gv, og)
			}
		}
	}
}

// confErrCases are config files whose fatal error we compare with redis-server.
var confErrCases = []string{
	"port 1\nfoo bar\n",
	"daemonize maybe\n",
	"port 1 2\n",
	"port \"abc\n",
	"port \"abc\"x\n",
	"port 99999\n",
	"appendfsync x\n",
	"maxmemory 1x\n",
	"  save 1   \n",
	"\n\n   \t\n# c\nhz abc\n",
	"client-output-buffer-limit normal 1 2\n",
	"bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
	"dbfilename a/b\n",
	"appendfilename \"\"\n",
	"appenddirname x/y\n",
	"notify-keyspace-events KEAQ\n",
	"replicaof host 99999\n",
	"replicaof host\n",
	"list-max-ziplist-entries 5 6\n",
	"foo.bar\n",
	"sentinel monitor x\n",
	"rename-command\n",
	"maxmemory-clients 101%\n",
	"unixsocketperm 800\n",
	"latency-tracking-info-percentiles 200\n",
	"hz 'abc\n",
	"save 'x' 1\n",
	"cluster-enabled yes\nreplicaof 127.0.0.1 6379\n",
}

func TestRedisConfigFileErrorsMatchRealRedis(t *testing.T) {
	needRedis(t)
	dir := t.TempDir()
	for i, text := range confErrCases {
		path := filepath.Join(dir, fmt.Sprintf("c%d.conf", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(redisServerBin, path, "--save", "", "--appendonly", "no", "--dir", dir, "--port", "0").CombinedOutput()
		want := strings.TrimRight(string(out), "\n")
		_, err := Load(path, []string{"--save", "", "--appendonly", "no", "--dir", dir, "--port", "0"}, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("config %q:\nredis: %q\nours:  %q", text, want, got)
		}
	}
}

// DEBUG CONFIG-REWRITE-FORCE-ALL writes every directive, defaults
// included; the file reads back to the same values, in our loader and in
// real Redis (introspection.tcl's "CONFIG REWRITE sanity").
func TestRewriteForceAllReadsBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.conf")
	if err := os.WriteFile(path, []byte("# mine\nmaxmemory 1mb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RewriteForceAll(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{"# mine\n", "maxmemory 1mb\n", "\nhz 10\n", "\nappendonly no\n", "\nsave 3600 1\n"} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("force-all rewrite lacks %q:\n%s", want, b)
		}
	}
	c2, err := Load(path, nil, nil)
	if err != nil {
		t.Fatalf("reloading the rewritten file: %v", err)
	}
	if got, want := c2.Get("*"), c.Get("*"); !reflect.DeepEqual(got, want) {
		t.Fatalf("values changed through the rewrite:\n%v\n%v", got, want)
	}
	if c.Rewrite() != nil || Default().RewriteForceAll() != ErrNoConfigFile {
		t.Fatal("plain rewrite after force-all, or force-all without a file")
	}
	// Real Redis starts from it (and so keeps every value).
	needRedis(t)
	p := testsrv.LaunchOnPort(t, freePort(t), redisServerBin, path, "--bind", "127.0.0.1", "--dir", dir, "--daemonize", "no")
	if err := testsrv.Ping(p.Addr(), p.Done, 10*time.Second); err != nil {
		t.Fatalf("redis-server did not start from the rewritten file: %v\n%s", err, p.Out)
	}
}
