//go:build linux

package server

import (
	"sync"
	"testing"
	"time"
)

// A wake must never be lost, however wakes and the loop's draining of the
// eventfd interleave: the stop that follows a storm of wakes (ack hooks,
// kills) has to end the loop.
func TestNetLoopWakeNeverLost(t *testing.T) {
	for round := 0; round < 20; round++ {
		s := &Server{}
		l, err := newNetLoop(s)
		if err != nil {
			t.Fatal(err)
		}
		s.loop = l
		go l.run()
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						l.wake()
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		close(stop)
		wg.Wait()
		done := make(chan struct{})
		go func() { s.stopNetLoops(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the loop did not stop after a storm of wakes (a wake was lost)", round)
		}
	}
}
