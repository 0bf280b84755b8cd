package aof

import "time"

// Adaptive group commit under Always (aof-group-commit-delay-usec 0).
//
// Clients answered by one fdatasync come back with their next command a
// round trip later. Starting the next fdatasync at once covers only those
// that happened to arrive during the previous one, and a closed loop of N
// clients settles into two alternating half-size groups: half the
// commands per fsync. So before an fdatasync the leader waits, for at most
// about one fsync time, until as many committers are waiting as the recent
// peak; then one fsync covers them all. The executor never waits: only the
// leader, a connection goroutine, does.

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

// waitStart registers a committer that has to wait; it wakes a gathering
// leader once enough are waiting.
func (a *AOF) waitStart() {
	n := a.waiters.Add(1)
	if t := a.gatherTarget.Load(); t > 0 && n >= t {
		select {
		case a.gathered <- struct{}{}:
		default:
		}
	}
}

// gather waits until the committers waiting reach the recent peak or about
// one fsync time has passed.
func (a *AOF) gather(g *gatherState) {
	target := g.peak
	if target <= 1 || a.waiters.Load() >= target {
		return
	}
	d := min(max(g.lastSync, gatherMin), gatherMax)
	select {
	case <-a.gathered: // stale
	default:
	}
	a.gatherTarget.Store(target)
	if a.waiters.Load() < target {
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

// gathered records the committers covered by the fsync about to start.
func (g *gatherState) covered(waiting int64) {
	g.peak = max(waiting, g.peak-(g.peak+7)/8)
}
