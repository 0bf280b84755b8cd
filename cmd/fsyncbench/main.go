// Command fsyncbench runs the published appendfsync experiments against one
// server and prints one result line per experiment:
//
//	latency  <p50_us> <p99_us> <max_us>   3000 synchronous SETs, one client
//	pipeline <ops_per_sec>                batches of 2000 pipelined SETs
//	clients1 <ops_per_sec>                one client, synchronous SETs
//	clients8 <ops_per_sec>                eight clients, synchronous SETs
//
// scripts/fsync_experiments.sh runs it against aofserver and redis-server
// side by side for each policy and formats the tables. It speaks RESP
// directly so that the client adds as little as possible to what is
// measured.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	n := flag.Int("n", 3000, "synchronous SETs in the latency experiment")
	batches := flag.Int("batches", 10, "pipelined batches of 2000 SETs")
	dur := flag.Duration("duration", 3*time.Second, "length of each 1/8-client run")
	flag.Parse()
	if err := run(*addr, *n, *batches, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "fsyncbench:", err)
		os.Exit(1)
	}
}

type conn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dial(addr string) (*conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

func (c *conn) set(key string, val string) {
	fmt.Fprintf(c.w, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(key), key, len(val), val)
}

// reply reads one simple reply line and fails on an error reply.
func (c *conn) reply() error {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return err
	}
	if line[0] == '-' {
		return fmt.Errorf("server error: %s", line)
	}
	return nil
}

func run(addr string, n, batches int, dur time.Duration) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.c.Close()
	val := "xxxxxxxxxx"

	lat := make([]time.Duration, n)
	for i := range lat {
		t0 := time.Now()
		c.set("lat:"+strconv.Itoa(i), val)
		c.w.Flush()
		if err := c.reply(); err != nil {
			return err
		}
		lat[i] = time.Since(t0)
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	us := func(d time.Duration) int64 { return d.Microseconds() }
	fmt.Printf("latency %d %d %d\n", us(lat[n/2]), us(lat[n*99/100]), us(lat[n-1]))

	t0 := time.Now()
	for b := 0; b < batches; b++ {
		for i := 0; i < 2000; i++ {
			c.set("pipe:"+strconv.Itoa(i), val)
		}
		c.w.Flush()
		for i := 0; i < 2000; i++ {
			if err := c.reply(); err != nil {
				return err
			}
		}
	}
	fmt.Printf("pipeline %.0f\n", float64(batches*2000)/time.Since(t0).Seconds())

	for _, clients := range []int{1, 8} {
		ops, err := concurrent(addr, clients, dur, val)
		if err != nil {
			return err
		}
		fmt.Printf("clients%d %.0f\n", clients, ops)
	}
	return nil
}

// concurrent runs clients synchronous SET loops for dur and returns the
// total rate.
func concurrent(addr string, clients int, dur time.Duration, val string) (float64, error) {
	var wg sync.WaitGroup
	counts := make([]int, clients)
	errs := make([]error, clients)
	stop := time.Now().Add(dur)
	start := time.Now()
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			c, err := dial(addr)
			if err != nil {
				errs[k] = err
				return
			}
			defer c.c.Close()
			key := "conc:" + strconv.Itoa(k)
			for time.Now().Before(stop) {
				c.set(key, val)
				c.w.Flush()
				if err := c.reply(); err != nil {
					errs[k] = err
					return
				}
				counts[k]++
			}
		}(k)
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	total := 0
	for k := range counts {
		if errs[k] != nil {
			return 0, errs[k]
		}
		total += counts[k]
	}
	return float64(total) / el, nil
}
