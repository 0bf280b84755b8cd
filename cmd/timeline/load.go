package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aofserver/aofserver/resp"
)

// mixEntry is one command of the load and its weight.
type mixEntry struct {
	name   string
	weight int
}

var mixCommands = map[string]bool{"set": true, "get": true, "incr": true, "lpush": true, "rpush": true,
	"hset": true, "sadd": true, "zadd": true, "del": true}

func parseMix(s string) ([]mixEntry, error) {
	var out []mixEntry
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, w, _ := strings.Cut(kv, "=")
		name = strings.ToLower(name)
		n, err := strconv.Atoi(w)
		if !mixCommands[name] || err != nil || n <= 0 {
			return nil, fmt.Errorf("-mix: %q is not command=weight (commands: set get incr lpush rpush hset sadd zadd del)", kv)
		}
		out = append(out, mixEntry{name, n})
	}
	if len(out) == 0 {
		return nil, errors.New("-mix: no command")
	}
	return out, nil
}

// server is a server process the tool started.
type server struct {
	name, addr, dir string
	cmd             *exec.Cmd
	exited          chan struct{}
}

// startServer runs bin (aofserver or redis-server: they take the same
// arguments) on a free port in a new temporary directory.
func startServer(name, bin string, o options) (*server, error) {
	// The server runs in its directory: a relative path must not follow it.
	bin, err := exec.LookPath(bin)
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dir, err := os.MkdirTemp("", "timeline-"+name+"-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // the free port may be taken meanwhile
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "yes", "--appendfsync", o.appendsync,
			"--enable-debug-command", "yes", "--daemonize", "no", "--logfile", "server.log"}, o.extraConf...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("starting %s: %w", bin, err)
		}
		s := &server{name: name, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, exited: make(chan struct{})}
		go func() { cmd.Wait(); close(s.exited) }()
		if lastErr = waitReady(s); lastErr == nil {
			return s, nil
		}
		cmd.Process.Kill()
		<-s.exited
	}
	log, _ := os.ReadFile(dir + "/server.log")
	os.RemoveAll(dir)
	return nil, fmt.Errorf("%s did not answer PING: %v\n%s", bin, lastErr, log)
}

func (s *server) stop() {
	s.cmd.Process.Kill()
	<-s.exited
	os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until the server answers PING with PONG (not LOADING).
func waitReady(s *server) error {
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return errors.New("exited")
		default:
		}
		var c *conn
		if c, err = dial(s.addr); err == nil {
			var r string
			r, err = c.do("PING")
			c.close()
			if err == nil && r == "PONG" {
				return nil
			}
			if err == nil {
				err = errors.New(r)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// preload fills the dataset the job will write, then waits for the AOF
// to take it in (a rewrite right away: the run starts from a compact AOF).
func preload(addr string, o options) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.close()
	if r, err := c.do("DEBUG", "POPULATE", strconv.Itoa(o.preload), "key", strconv.Itoa(o.valueSize)); err != nil || r != "OK" {
		return fmt.Errorf("DEBUG POPULATE: %q %v", r, err)
	}
	if _, err := c.do("BGREWRITEAOF"); err != nil {
		return err
	}
	return waitJobDone(c, "aof_rewrite_in_progress", 60*time.Second)
}

// waitJobDone polls INFO persistence until field (and any scheduled
// rewrite) is 0.
func waitJobDone(c *conn, field string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		info, err := c.info()
		if err != nil {
			return err
		}
		if info[field] == "0" && info["aof_rewrite_scheduled"] != "1" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still set after %v", field, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sample is one INFO persistence reading.
type sample struct {
	at                  time.Duration // since the load started
	curSize, baseSize   float64       // bytes
	jobRunning          bool
	fsyncs              float64 // ours only
	avgCmds             float64 // aof_group_commit_avg_cmds, ours only
	hasFsyncs, hasGroup bool
}

// runResult is one server's run.
type runResult struct {
	name             string
	requests         int
	lat              []latWindow
	samples          []sample
	jobStart, jobEnd time.Duration // jobEnd 0: not seen ending
	end              time.Duration
}

// latWindow is one latency window's percentiles, in milliseconds.
type latWindow struct {
	at            time.Duration // window start
	p50, p99, max float64
	n             int
}

func (r *runResult) maxLatencyMs() float64 {
	m := 0.0
	for _, w := range r.lat {
		m = max(m, w.max)
	}
	return m
}

// measure runs the load on addr, triggers the job, samples INFO, and
// returns the timeline.
func measure(name, addr string, o options) (*runResult, error) {
	ctl, err := dial(addr)
	if err != nil {
		return nil, err
	}
	defer ctl.close()
	smp, err := dial(addr)
	if err != nil {
		return nil, err
	}
	defer smp.close()
	field := "aof_rewrite_in_progress"
	if o.job == "bgsave" {
		field = "rdb_bgsave_in_progress"
	}

	r := &runResult{name: name}
	start := time.Now()
	var stop sync.WaitGroup
	done := make(chan struct{})
	type clientLat struct {
		at  []time.Duration
		lat []time.Duration
		err error
	}
	results := make([]*clientLat, o.clients)
	for i := range results {
		cl := &clientLat{}
		results[i] = cl
		c, err := dial(addr)
		if err != nil {
			close(done)
			stop.Wait()
			return nil, err
		}
		stop.Add(1)
		go func(i int) {
			defer stop.Done()
			defer c.close()
			rnd := rand.New(rand.NewPCG(uint64(i)+1, 42))
			gen := newCommandGen(o, rnd)
			buf := make([]byte, 0, 4096)
			for {
				select {
				case <-done:
					return
				default:
				}
				buf = buf[:0]
				for k := 0; k < o.pipeline; k++ {
					buf = gen.next(buf)
				}
				t0 := time.Now()
				if _, err := c.nc.Write(buf); err != nil {
					cl.err = err
					return
				}
				for k := 0; k < o.pipeline; k++ {
					if _, err := c.read(); err != nil {
						cl.err = err
						return
					}
					now := time.Now()
					cl.at = append(cl.at, t0.Sub(start))
					cl.lat = append(cl.lat, now.Sub(t0))
				}
			}
		}(i)
	}

	// The sampler runs on this goroutine; the job is triggered in its loop.
	triggered := false
	var jobErr error
	tick := time.NewTicker(o.sampleInt)
	defer tick.Stop()
	for {
		now := time.Since(start)
		if !triggered && now >= o.triggerAt {
			triggered = true
			r.jobStart = time.Since(start)
			if rep, err := ctl.do(strings.ToUpper(o.job)); err != nil || strings.HasPrefix(rep, "ERR") {
				jobErr = fmt.Errorf("%s: %q %v", o.job, rep, err)
			}
		}
		info, err := smp.info()
		if err != nil {
			jobErr = err
			break
		}
		s := sample{at: time.Since(start), jobRunning: info[field] == "1" || (o.job == "bgrewriteaof" && info["aof_rewrite_scheduled"] == "1")}
		s.curSize, _ = strconv.ParseFloat(info["aof_current_size"], 64)
		s.baseSize, _ = strconv.ParseFloat(info["aof_base_size"], 64)
		if v, ok := info["aof_fsyncs"]; ok {
			s.fsyncs, _ = strconv.ParseFloat(v, 64)
			s.hasFsyncs = true
		}
		if v, ok := info["aof_group_commit_avg_cmds"]; ok {
			s.avgCmds, _ = strconv.ParseFloat(v, 64)
			s.hasGroup = true
		}
		r.samples = append(r.samples, s)
		if triggered && r.jobEnd == 0 && !s.jobRunning && s.at > r.jobStart {
			r.jobEnd = s.at
		}
		if jobErr != nil || (now >= o.duration && (r.jobEnd != 0 && now >= r.jobEnd+time.Second || now >= o.duration+60*time.Second)) {
			break
		}
		<-tick.C
	}
	close(done)
	stop.Wait()
	r.end = time.Since(start)
	if jobErr != nil {
		return nil, jobErr
	}
	var at, lat []time.Duration
	for i, cl := range results {
		if cl.err != nil {
			return nil, fmt.Errorf("client %d: %w", i, cl.err)
		}
		at = append(at, cl.at...)
		lat = append(lat, cl.lat...)
	}
	r.requests = len(lat)
	r.lat = windows(at, lat, o.window)
	return r, nil
}

// windows groups latencies by the window their request started in.
func windows(at, lat []time.Duration, w time.Duration) []latWindow {
	byWin := map[int][]time.Duration{}
	for i := range at {
		k := int(at[i] / w)
		byWin[k] = append(byWin[k], lat[i])
	}
	keys := make([]int, 0, len(byWin))
	for k := range byWin {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]latWindow, 0, len(keys))
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, k := range keys {
		l := byWin[k]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		out = append(out, latWindow{at: time.Duration(k) * w, n: len(l),
			p50: ms(l[(len(l)-1)*50/100]), p99: ms(l[(len(l)-1)*99/100]), max: ms(l[len(l)-1])})
	}
	return out
}

// commandGen produces the load's commands as RESP.
type commandGen struct {
	o     options
	rnd   *rand.Rand
	total int
	value string
}

func newCommandGen(o options, rnd *rand.Rand) *commandGen {
	g := &commandGen{o: o, rnd: rnd, value: strings.Repeat("x", o.valueSize)}
	for _, m := range o.mix {
		g.total += m.weight
	}
	return g
}

func (g *commandGen) next(buf []byte) []byte {
	n := g.rnd.IntN(g.total)
	name := g.o.mix[0].name
	for _, m := range g.o.mix {
		if n < m.weight {
			name = m.name
			break
		}
		n -= m.weight
	}
	key := "key:" + strconv.Itoa(g.rnd.IntN(g.o.keyspace))
	switch name {
	case "set":
		return appendCommand(buf, "SET", key, g.value)
	case "get":
		return appendCommand(buf, "GET", key)
	case "incr":
		return appendCommand(buf, "INCR", "counter:"+strconv.Itoa(g.rnd.IntN(g.o.keyspace)))
	case "lpush", "rpush":
		return appendCommand(buf, strings.ToUpper(name), "list:"+strconv.Itoa(g.rnd.IntN(100)), g.value)
	case "hset":
		return appendCommand(buf, "HSET", "hash:"+strconv.Itoa(g.rnd.IntN(1000)), "f"+strconv.Itoa(g.rnd.IntN(1000)), g.value)
	case "sadd":
		return appendCommand(buf, "SADD", "set:"+strconv.Itoa(g.rnd.IntN(1000)), strconv.Itoa(g.rnd.IntN(g.o.keyspace)))
	case "zadd":
		return appendCommand(buf, "ZADD", "zset:"+strconv.Itoa(g.rnd.IntN(1000)), strconv.Itoa(g.rnd.IntN(1000)), strconv.Itoa(g.rnd.IntN(g.o.keyspace)))
	default:
		return appendCommand(buf, "DEL", key)
	}
}

func appendCommand(buf []byte, args ...string) []byte { return resp.AppendCommand(buf, args) }

// conn is a minimal RESP2 connection.
type conn struct {
	nc net.Conn
	br *bufio.Reader
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}, nil
}

func (c *conn) close() { c.nc.Close() }

// do sends one command and returns its reply flattened to text: a status,
// an error ("ERR..." as sent), an integer, or a bulk string.
func (c *conn) do(args ...string) (string, error) {
	if _, err := c.nc.Write(appendCommand(nil, args...)); err != nil {
		return "", err
	}
	return c.read()
}

// read reads one reply; aggregates are read and returned as "".
func (c *conn) read() (string, error) {
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := c.br.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 3 {
		return "", fmt.Errorf("bad reply %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', '-', ':':
		return body, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return "", err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.br, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return "", err
		}
		for i := 0; i < n; i++ {
			if _, err := c.read(); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// info returns INFO persistence's fields.
func (c *conn) info() (map[string]string, error) {
	text, err := c.do("INFO", "persistence")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = v
		}
	}
	return out, nil
}
