package server

import (
	"strconv"
	"sync"
	"testing"
)

// INFO's instantaneous_ops_per_sec and instantaneous_input/output_kbps are
// Redis's sampled rates: positive under load on both servers, never
// negative after CONFIG RESETSTAT (ours went negative: a rate measured
// from the counter before the reset).
func TestDiffInstantaneousMetrics(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	for _, side := range []struct {
		name string
		c    *respConn
		addr string
	}{{"ours", oc, p.ours.addr}, {"redis", rc, p.real.addr}} {
		load := dial(t, side.addr)
		req := appendMultibulk(nil, "SET", "k", "some value")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// no t.Fatal off the test's goroutine: stop at an error
				if _, err := load.nc.Write(req); err != nil {
					return
				}
				if _, err := readRaw(load.br); err != nil {
					return
				}
			}
		}()
		stat := func(f string) float64 {
			v, err := strconv.ParseFloat(infoField(side.c, "stats", f), 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", side.name, f, err)
			}
			return v
		}
		waitFor(t, side.name+": rates under load", func() bool {
			return stat("instantaneous_ops_per_sec") > 0 && stat("instantaneous_input_kbps") > 0 && stat("instantaneous_output_kbps") > 0
		})
		for i := 0; i < 3; i++ {
			side.c.do("CONFIG", "RESETSTAT")
			for j := 0; j < 20; j++ {
				if v := stat("instantaneous_ops_per_sec"); v < 0 {
					t.Fatalf("%s: instantaneous_ops_per_sec %v after CONFIG RESETSTAT", side.name, v)
				}
			}
		}
		close(stop)
		wg.Wait()
	}
}
