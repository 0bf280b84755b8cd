package server

import (
	"strconv"
	"testing"
)

// RANDOMKEY picks fairly (Redis 7.0's dbRandomKey uses
// dictGetFairRandomKey): over 2000 calls on 20 keys the chi-square stays
// under 40, the threshold of Redis's own distribution tests, on ours and
// on real Redis. A bucket-then-chain pick gives keys sharing a chain less
// than their share.
func TestRandomkeyDistribution(t *testing.T) {
	onBoth(t, func(t *testing.T, c *respConn) {
		for i := 0; i < 20; i++ {
			c.do("SET", "key:"+strconv.Itoa(i), "v")
		}
		var picks []string
		for i := 0; i < 2000; i++ {
			c.send("RANDOMKEY")
		}
		for i := 0; i < 2000; i++ {
			picks = append(picks, bulkText(c.read()))
		}
		if chi := chiSquare(picks); chi >= 40 {
			t.Errorf("RANDOMKEY: chi-square %.1f >= 40", chi)
		}
	})
}
