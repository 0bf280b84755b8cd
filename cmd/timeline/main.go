// Command timeline runs one write load against aofserver and redis-server
// in turn, triggers BGREWRITEAOF (or BGSAVE) part-way through each run,
// samples INFO persistence every 50 ms, and draws what happened as PNGs:
// request latency over time (p50/p99/max per 100 ms window) with the job's
// start and end marked, the AOF sizes, and aofserver's group-commit batch
// sizes. One picture per server (timeline-<name>.png) and both side by side
// on shared axes (timeline.png).
//
//	timeline -aofserver ./bin/aofserver -out /tmp/tl              # starts both servers
//	timeline -addr aofserver=127.0.0.1:6379,redis=127.0.0.1:6380 # servers already running
//
// Started servers run on free 127.0.0.1 ports in temporary directories with
// the AOF on (appendfsync from -appendfsync) and are stopped afterwards.
// scripts/rewrite_timeline.sh builds aofserver and runs this.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// options is everything one invocation does.
type options struct {
	aofserverBin string // our server's binary ("" = skip unless in addrs)
	redisBin     string // redis-server ("" = skip unless in addrs)
	addrs        map[string]string

	clients   int
	pipeline  int
	mix       []mixEntry
	keyspace  int
	valueSize int
	preload   int // keys DEBUG POPULATE'd before the run (started servers)

	job        string        // "bgrewriteaof" or "bgsave"
	duration   time.Duration // load time at least
	triggerAt  time.Duration // when the job is started
	appendsync string        // appendfsync of started servers
	extraConf  []string      // more "--directive value" for started servers

	out       string // directory for the PNGs
	width     int    // pixels of one server's picture
	height    int
	sampleInt time.Duration
	window    time.Duration
}

func main() {
	var o options
	var mix, addrs, extra string
	flag.StringVar(&o.aofserverBin, "aofserver", "", "aofserver binary to start (empty: not started)")
	flag.StringVar(&o.redisBin, "redis-server", "/usr/bin/redis-server", "redis-server binary to start (empty: not started)")
	flag.StringVar(&addrs, "addr", "", "servers already running, name=host:port,... (instead of starting them)")
	flag.IntVar(&o.clients, "clients", 8, "concurrent clients")
	flag.IntVar(&o.pipeline, "pipeline", 1, "commands per client round trip")
	flag.StringVar(&mix, "mix", "set=70,incr=10,lpush=10,hset=10", "command mix: name=weight,... (set get incr lpush rpush hset sadd zadd del)")
	flag.IntVar(&o.keyspace, "keyspace", 100000, "distinct keys the load touches")
	flag.IntVar(&o.valueSize, "value-size", 64, "bytes per SET/LPUSH/HSET value")
	flag.IntVar(&o.preload, "preload", 300000, "keys created with DEBUG POPULATE before the run (started servers), so the job has work")
	flag.StringVar(&o.job, "job", "bgrewriteaof", "background job to trigger: bgrewriteaof or bgsave")
	flag.DurationVar(&o.duration, "duration", 8*time.Second, "load time per server (extended until the job ended + 1s)")
	flag.DurationVar(&o.triggerAt, "trigger-at", 2*time.Second, "when the job is triggered, from the load's start")
	flag.StringVar(&o.appendsync, "appendfsync", "always", "appendfsync of started servers")
	flag.StringVar(&extra, "conf", "", "more directives for started servers: \"name value;name value\"")
	flag.StringVar(&o.out, "out", ".", "directory for the PNGs")
	flag.IntVar(&o.width, "width", 700, "width of one server's picture, pixels")
	flag.IntVar(&o.height, "height", 900, "height of the pictures, pixels")
	flag.DurationVar(&o.sampleInt, "sample", 50*time.Millisecond, "INFO persistence sampling interval")
	flag.DurationVar(&o.window, "window", 100*time.Millisecond, "latency percentile window")
	flag.Parse()

	var err error
	if o.mix, err = parseMix(mix); err != nil {
		fail(err)
	}
	if o.addrs, err = parseAddrs(addrs); err != nil {
		fail(err)
	}
	for _, d := range strings.Split(extra, ";") {
		if d = strings.TrimSpace(d); d != "" {
			name, val, _ := strings.Cut(d, " ")
			o.extraConf = append(o.extraConf, "--"+name, strings.TrimSpace(val))
		}
	}
	files, err := run(o, os.Stderr)
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		fmt.Println(f)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "timeline:", err)
	os.Exit(1)
}

func parseAddrs(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, addr, ok := strings.Cut(kv, "=")
		if !ok || name == "" || addr == "" {
			return nil, fmt.Errorf("-addr: %q is not name=host:port", kv)
		}
		out[name] = addr
	}
	return out, nil
}

// run measures every server and writes the pictures; it returns their paths.
func run(o options, logw *os.File) ([]string, error) {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	type target struct{ name, addr, bin string }
	var targets []target
	for _, n := range []string{"aofserver", "redis"} {
		if a, ok := o.addrs[n]; ok {
			targets = append(targets, target{name: n, addr: a})
		}
	}
	for n, a := range o.addrs {
		if n != "aofserver" && n != "redis" {
			targets = append(targets, target{name: n, addr: a})
		}
	}
	if len(o.addrs) == 0 {
		if o.aofserverBin != "" {
			targets = append(targets, target{name: "aofserver", bin: o.aofserverBin})
		}
		if o.redisBin != "" {
			targets = append(targets, target{name: "redis", bin: o.redisBin})
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("no server: give -aofserver/-redis-server or -addr")
	}
	var runs []*runResult
	for _, tg := range targets {
		addr := tg.addr
		if tg.bin != "" {
			srv, err := startServer(tg.name, tg.bin, o)
			if err != nil {
				return nil, err
			}
			defer srv.stop()
			addr = srv.addr
			if o.preload > 0 {
				if err := preload(addr, o); err != nil {
					return nil, fmt.Errorf("%s: preload: %w", tg.name, err)
				}
			}
		}
		fmt.Fprintf(logw, "timeline: %s at %s: %d clients, pipeline %d, %s at %v\n", tg.name, addr, o.clients, o.pipeline, o.job, o.triggerAt)
		r, err := measure(tg.name, addr, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tg.name, err)
		}
		fmt.Fprintf(logw, "timeline: %s: %d requests, job %v..%v, latency max %.1f ms\n",
			tg.name, r.requests, r.jobStart.Round(time.Millisecond), r.jobEnd.Round(time.Millisecond), r.maxLatencyMs())
		runs = append(runs, r)
	}
	var files []string
	sc := sharedScales(runs)
	for _, r := range runs {
		p := filepath.Join(o.out, "timeline-"+r.name+".png")
		if err := writePNG(p, [](*runResult){r}, sc, o); err != nil {
			return nil, err
		}
		files = append(files, p)
	}
	p := filepath.Join(o.out, "timeline.png")
	if err := writePNG(p, runs, sc, o); err != nil {
		return nil, err
	}
	return append(files, p), nil
}
