package aof

import "time"

// Adaptive group commit under Always (aof-group-commit-delay-usec 0).
//
// Clients answered by one fdatasync come back with their next command a
// round trip later. Starting the next fdatasync at once covers only those
// that happened to arrive during the previous one, and a closed loop of N
// clients settles into two alternating half-size groups: half the
// commands per fsync. So before an fdatasync the leader waits, for at most
// about one fsync time, until as many executions (Feed calls) are pending
// as the recent peak; then one fsync covers them all. The executor never
// waits: only the leader (a connection goroutine or the writer) does, and
// a connection goroutine stops leading as soon as its own reply may go.

const (
	gatherMin = 50 * time.Microsecond
	gatherMax = time.Millisecond
)

// gatherState is owned by whoever holds stepMu.
type gatherState struct {
	peak     int64         // waiters seen at recent fsyncs, decaying
	lastSync time.Duration // duration of the last fdatasync
	timer    *time.Timer
}

// fedMark counts one more Feed call (a command's execution) and wakes a
// gathering leader once enough are pending.
func (a *AOF) fedMark() {
	n := a.fedMarks.Add(1)
	if t := a.gatherTarget.Load(); t > 0 && n-a.takenMarks.Load() >= t {
		select {
		case a.gathered <- struct{}{}:
		default:
		}
	}
}

func (a *AOF) pendingMarks() int64 { return a.fedMarks.Load() - a.takenMarks.Load() }

// gather waits until as many executions are pending as the recent peak,
// or about one fsync time has passed.
func (a *AOF) gather(g *gatherState) {
	target := g.peak
	if target <= 1 || a.pendingMarks() >= target {
		return
	}
	d := min(max(g.lastSync, gatherMin), gatherMax)
	select {
	case <-a.gathered: // stale
	default:
	}
	a.gatherTarget.Store(target)
	if a.pendingMarks() < target {
		if g.timer == nil {
			g.timer = time.NewTimer(d)
		} else {
			g.timer.Reset(d)
		}
		select {
		case <-a.gathered:
			g.timer.Stop()
		case <-g.timer.C:
		}
	}
	a.gatherTarget.Store(0)
}

// covered records how many executions the fsync about to start covers.
func (g *gatherState) covered(n int64) {
	g.peak = max(n, g.peak-(g.peak+7)/8)
}
