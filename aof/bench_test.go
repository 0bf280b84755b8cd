package aof

import (
	"fmt"
	"sync"
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// BenchmarkFeed measures encoding into the buffer (the executor-lock part).
func BenchmarkFeed(b *testing.B) {
	c := newCrashDir(b)
	opt, _ := testOpts(c, "/data", EverySec)
	a, err := Open(opt)
	if err != nil {
		b.Fatal(err)
	}
	op := Op{DB: 0, Argv: args("SET key:000001 some-value-of-moderate-size")}
	b.ReportAllocs()
	b.SetBytes(int64(len(AppendCommand(nil, op.Argv))))
	for i := 0; b.Loop(); i++ {
		if i%4096 == 0 {
			a.bufMu.Lock()
			a.buf, a.marks = a.buf[:0], a.marks[:0] // as the writer's swap would
			a.bufMu.Unlock()
		}
		a.Feed(op)
	}
}

// BenchmarkFeedWaitAlways is the latency/throughput of an acknowledged write
// under appendfsync always on the real file system (one op per Wait).
func BenchmarkFeedWaitAlways(b *testing.B) {
	for _, workers := range []int{1, 50} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			opt, _ := testOpts(fsx.OS(), b.TempDir(), Always)
			a, err := Open(opt)
			if err != nil {
				b.Fatal(err)
			}
			if err := a.Start(emptyRESPBase); err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			op := Op{DB: 0, Argv: args("SET key:000001 some-value-of-moderate-size")}
			var exec sync.Mutex
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			per := b.N / workers
			if per == 0 {
				per = 1
			}
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < per; i++ {
						exec.Lock()
						off := a.Feed(op)
						exec.Unlock()
						if err := a.Wait(off); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			st := a.Stats()
			b.ReportMetric(st.AvgCmdsPerFsync, "cmds/fsync")
		})
	}
}
