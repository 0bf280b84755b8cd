package server

import (
	"strconv"
	"testing"
)

// RANDOMKEY picks as Redis 7.0's dbRandomKey, with dictGetFairRandomKey:
// on 10 keys (fewer than the 15 it gathers, so it sees them all) over 1000
// calls the chi-square stays under 40, the threshold of Redis's own
// distribution tests, on ours and on real Redis. A bucket-then-chain pick
// gives keys sharing a chain less than their share (chi-square 100-250).
func TestRandomkeyDistribution(t *testing.T) {
	onBoth(t, func(t *testing.T, c *respConn) {
		for i := 0; i < 10; i++ {
			c.do("SET", "key:"+strconv.Itoa(i), "v")
		}
		var picks []string
		for i := 0; i < 1000; i++ {
			c.send("RANDOMKEY")
		}
		for i := 0; i < 1000; i++ {
			picks = append(picks, bulkText(c.read()))
		}
		if chi := chiSquare(picks); chi >= 40 {
			t.Errorf("RANDOMKEY: chi-square %.1f >= 40", chi)
		}
	})
}
