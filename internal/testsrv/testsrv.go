// Package testsrv is the one place tests find the tools to start servers
// (our binary and a real redis-server 7.0.15) on free 127.0.0.1 ports, read
// their output, talk RESP to them and wait for a condition. It is imported
// only by *_test.go files; every package's tests share it so that a fix to
// a port race or a skip rule is made once.
package testsrv

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RedisBinDir holds the Redis 7.0.15 tools the differential tests compare
// against (redis-server, redis-cli, redis-check-aof, redis-check-rdb).
const RedisBinDir = "/usr/bin"

// RedisServerPath is the real redis-server.
const RedisServerPath = RedisBinDir + "/redis-server"

// Need skips the test when the file at path is missing, or fails it under
// CI=true: a CI run must never pass by skipping the comparison.
func Need(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: %v", path, err)
		}
		t.Skipf("%s not installed", path)
	}
}

// NeedTool is Need for a Redis tool by name ("redis-check-aof"); it
// returns the tool's path.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p := RedisBinDir + "/" + name
	Need(t, p)
	return p
}

// NeedRedis is NeedTool("redis-server").
func NeedRedis(t testing.TB) string {
	t.Helper()
	Need(t, RedisServerPath)
	return RedisServerPath
}

// HaveRedis reports whether the real redis-server is installed, for tests
// that compare with it only when it is there.
func HaveRedis() bool {
	_, err := os.Stat(RedisServerPath)
	return err == nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago;
// starters that can lose it to another process retry with a new one.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// PollInterval is how often WaitFor and the starters look again. It paces
// polling only: no assertion depends on it.
const PollInterval = 10 * time.Millisecond

// WaitFor polls cond until it holds, failing the test with what when it
// does not within deadline. The deadline is a hang guard and should be
// generous (seconds to tens of seconds): tests wait for the event, they
// never assert on how soon it came.
func WaitFor(t testing.TB, deadline time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(deadline, cond) {
		t.Fatalf("timed out after %v waiting for %s", deadline, what)
	}
}

// Poll is WaitFor that reports instead of failing.
func Poll(deadline time.Duration, cond func() bool) bool {
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(PollInterval)
	}
	return true
}

var (
	buildDirOnce sync.Once
	buildDir     string
	buildDirErr  error
	builds       sync.Map // name -> *buildResult
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// Build runs "go build -o <tmp>/name pkg" once per test binary (pkg is
// relative to the calling package's directory, the test's working
// directory) and returns the binary's path. Call RemoveBuilds from
// TestMain to delete the temporary directory.
func Build(t testing.TB, name, pkg string) string {
	t.Helper()
	buildDirOnce.Do(func() { buildDir, buildDirErr = os.MkdirTemp("", "aofserver-testbin-") })
	if buildDirErr != nil {
		t.Fatal(buildDirErr)
	}
	v, _ := builds.LoadOrStore(name, &buildResult{})
	b := v.(*buildResult)
	b.once.Do(func() {
		b.path = filepath.Join(buildDir, name)
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if out, err := exec.Command(goBin, "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// RemoveBuilds deletes what Build made; TestMain calls it after m.Run.
func RemoveBuilds() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// SyncBuf collects a process's output (or a logger's) safely while it
// runs.
type SyncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Tail returns the last n bytes, for failure messages.
func (s *SyncBuf) Tail(n int) string {
	str := s.String()
	if len(str) > n {
		str = "..." + str[len(str)-n:]
	}
	return str
}

// CountLines returns how many lines contain substr.
func (s *SyncBuf) CountLines(substr string) int {
	return CountLines(s.String(), substr)
}

// CountLines returns how many lines of text contain substr.
func CountLines(text, substr string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// Proc is a child process with its output collected.
type Proc struct {
	Cmd  *exec.Cmd
	Out  *SyncBuf
	Port int           // 0 unless started by a server starter
	Dir  string        // the working directory, when the starter made one
	Log  string        // the log file, when the process writes one (else see Out)
	Done chan struct{} // closed when the process has exited
	Err  error         // exit status, once Done is closed
}

// Launch runs exe with args, collecting stdout and stderr; it is killed
// when the test ends.
func Launch(t testing.TB, exe string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Out: &SyncBuf{}, Done: make(chan struct{})}
	p.Cmd = exec.Command(exe, args...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Out, p.Out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.Err = p.Cmd.Wait()
		close(p.Done)
	}()
	t.Cleanup(p.Kill)
	return p
}

// LaunchOnPort is Launch with "--port port" appended.
func LaunchOnPort(t testing.TB, port int, exe string, args ...string) *Proc {
	t.Helper()
	p := Launch(t, exe, append(args, "--port", strconv.Itoa(port))...)
	p.Port = port
	return p
}

// Addr is the process's 127.0.0.1 address (Port must be set).
func (p *Proc) Addr() string { return "127.0.0.1:" + strconv.Itoa(p.Port) }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.Done:
		return true
	default:
		return false
	}
}

// Kill ends the process (if still running) and waits for it; SIGCONT
// first, for a process a test left stopped (SIGSTOP) to freeze it.
func (p *Proc) Kill() {
	if !p.Exited() {
		p.Cmd.Process.Signal(syscall.SIGCONT)
		p.Cmd.Process.Kill()
	}
	<-p.Done
}

// Stop sends sig and waits for the exit, failing the test when the
// process is still running after within (a hang guard).
func (p *Proc) Stop(t testing.TB, sig syscall.Signal, within time.Duration) error {
	t.Helper()
	p.Cmd.Process.Signal(sig)
	select {
	case <-p.Done:
		return p.Err
	case <-time.After(within):
		t.Fatalf("process did not exit %v after %v:\n%s", within, sig, p.Out.Tail(3000))
		return nil
	}
}

// ReadyLine is what Redis (and our server) logs once it accepts clients.
const ReadyLine = "Ready to accept connections"

// WaitOutput waits until the output contains substr; it reports false if
// the process exits first or deadline passes.
func (p *Proc) WaitOutput(substr string, deadline time.Duration) bool {
	return Poll(deadline, func() bool {
		return strings.Contains(p.Out.String(), substr) || p.Exited()
	}) && strings.Contains(p.Out.String(), substr)
}

// StartServer runs a Redis-compatible server exe (ours or redis-server)
// with args plus "--port <free> --bind 127.0.0.1" and waits for its ready
// line. On failure it kills the process and returns nil with the tail of
// its output.
func StartServer(t testing.TB, deadline time.Duration, exe string, args ...string) (*Proc, string) {
	t.Helper()
	port := FreePort(t)
	p := Launch(t, exe, append(args, "--port", strconv.Itoa(port), "--bind", "127.0.0.1")...)
	p.Port = port
	if !p.WaitOutput(ReadyLine, deadline) {
		p.Kill()
		return nil, p.Out.Tail(3000)
	}
	return p, ""
}

// StartRedis starts the real redis-server in dir (made with t.TempDir
// when empty) on a free 127.0.0.1 port, with no persistence, DEBUG
// enabled and its log in dir/redis.log; args override those. It returns
// once the server answers PING, retrying with a new port when the free
// one was taken meanwhile, and kills the server when the test ends.
func StartRedis(t testing.TB, dir string, args ...string) *Proc {
	t.Helper()
	NeedRedis(t)
	if dir == "" {
		dir = t.TempDir()
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--enable-debug-command", "yes", "--daemonize", "no",
			"--logfile", "redis.log"}, args...)
		p := &Proc{Out: &SyncBuf{}, Done: make(chan struct{}), Port: port, Dir: dir,
			Log: filepath.Join(dir, "redis.log")}
		p.Cmd = exec.Command(RedisServerPath, all...)
		p.Cmd.Dir = dir
		p.Cmd.Stdout, p.Cmd.Stderr = p.Out, p.Out
		if err := p.Cmd.Start(); err != nil {
			t.Fatalf("starting redis-server: %v", err)
		}
		go func() {
			p.Err = p.Cmd.Wait()
			close(p.Done)
		}()
		if lastErr = Ping(p.Addr(), p.Done, 5*time.Second); lastErr == nil {
			t.Cleanup(p.Kill)
			return p
		}
		p.Kill()
	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	t.Fatalf("redis-server did not answer PING: %v\n%s", lastErr, log)
	return nil
}

// LogText returns what the process has logged so far: its log file when
// it writes one, else its collected output.
func (p *Proc) LogText() string {
	if p.Log != "" {
		b, _ := os.ReadFile(p.Log)
		return string(b)
	}
	return p.Out.String()
}

// WaitForLogs is WaitFor that adds logs() to the failure message.
func WaitForLogs(t testing.TB, deadline time.Duration, what string, logs func() string, cond func() bool) {
	t.Helper()
	if !Poll(deadline, cond) {
		t.Fatalf("timed out waiting for %s\n%s", what, logs())
	}
}

// Cli runs redis-cli against addr and returns its output (one line per
// reply element); errors come back as text.
func Cli(addr string, args ...string) string {
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command(RedisBinDir+"/redis-cli", append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("redis-cli error %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// CliField is a field of a flat key/value reply in Cli's output
// (SENTINEL MASTER).
func CliField(out, key string) string {
	lines := strings.Split(out, "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		if lines[i] == key {
			return lines[i+1]
		}
	}
	return ""
}

// InfoField is a field of INFO section's text, asked of addr by Cli.
func InfoField(addr, section, key string) string {
	for _, l := range strings.Split(Cli(addr, "INFO", section), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+":"); ok {
			return v
		}
	}
	return ""
}

// StartSentinel runs redis-sentinel exe on a free 127.0.0.1 port,
// monitoring the master name at masterAddr with quorum, a 3 s
// down-after (1 s let one sentinel's fresh link to a just-promoted master
// wait past it under CI's -race load and start a second failover), a 5 s
// failover-timeout and parallel-syncs 1; it returns
// once the sentinel answers PING (failing after deadline) and kills it
// when the test ends.
func StartSentinel(t testing.TB, exe, name, masterAddr string, quorum int, deadline time.Duration) *Proc {
	t.Helper()
	dir := t.TempDir()
	port := FreePort(t)
	host, mport, _ := strings.Cut(masterAddr, ":")
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\n"+
		"sentinel monitor %s %s %s %d\n"+
		"sentinel down-after-milliseconds %[3]s 3000\n"+
		"sentinel failover-timeout %[3]s 5000\n"+
		"sentinel parallel-syncs %[3]s 1\n", port, dir, name, host, mport, quorum)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Launch(t, exe, conf)
	p.Port, p.Dir = port, dir
	if err := Ping(p.Addr(), p.Done, deadline); err != nil {
		t.Fatalf("sentinel did not answer PING: %v\n%s", err, p.Out.String())
	}
	return p
}
