package server

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/dict"
)

// Distribution of SRANDMEMBER and HRANDFIELD with a count, as Redis's
// tests/unit/type/set.tcl ("SRANDMEMBER histogram distribution",
// "SRANDMEMBER with <count>") and hash.tcl ("HRANDFIELD with <count>")
// check it: a chi-square statistic over the returned members, with the
// same thresholds (df = 9, 40 means a 0.00001 probability of a false
// failure). The same checks run against real Redis 7.0.15, so the test
// itself is known to hold where Redis's sampling does.

// chiSquare is tests/util.tcl's chi_square_value: the frequencies of the
// distinct elements seen against their mean.
func chiSquare(l []string) float64 {
	count := map[string]int{}
	for _, e := range l {
		count[e]++
	}
	expected := float64(len(l)) / float64(len(count))
	chi := 0.0
	for _, n := range count {
		d := float64(n) - expected
		chi += d * d / expected
	}
	return chi
}

// arrayOf returns the bulk elements of an array reply.
func arrayOf(t *testing.T, raw string) []string {
	t.Helper()
	_, el, ok := splitRaw(raw)
	if !ok {
		t.Fatalf("not an array: %q", raw)
	}
	out := make([]string, len(el))
	for i, e := range el {
		out[i] = bulkText(e)
	}
	return out
}

// onBoth runs check against our server and real Redis.
func onBoth(t *testing.T, check func(t *testing.T, c *respConn)) {
	t.Run("ours", func(t *testing.T) { check(t, dial(t, startOurServer(t).addr)) })
	t.Run("redis", func(t *testing.T) { check(t, dial(t, startRealRedis(t).addr)) })
}

func sortedCopy(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}

func TestSrandmemberDistribution(t *testing.T) {
	sets := []struct{ encoding, members string }{
		{"intset", "0 1 2 3 4 5 6 7 8 9"},
		{"hashtable", "a b c d e f g h i j"},
		// more members than set-max-intset-entries: a hashtable of integers
		{"hashtable", "0 1 2 3 4 5 6 7 8 9 " + strings.Repeat("x ", 0)},
	}
	onBoth(t, func(t *testing.T, c *respConn) {
		for i, set := range sets {
			key := "myset" + strconv.Itoa(i)
			members := strings.Fields(set.members)
			if i == 2 {
				// integers, but hashtable-encoded: add a string and
				// remove it again
				c.do("CONFIG", "SET", "set-max-intset-entries", "5")
			}
			c.do(append([]string{"SADD", key}, members...)...)
			c.do("CONFIG", "SET", "set-max-intset-entries", "512")
			if got := bulkText(c.do("OBJECT", "ENCODING", key)); got != set.encoding {
				t.Fatalf("%s: encoding %s, want %s", key, got, set.encoding)
			}
			// PATH 1: negative count
			if chi := chiSquare(arrayOf(t, c.do("SRANDMEMBER", key, "-1000"))); chi >= 40 {
				t.Errorf("%s (%s) SRANDMEMBER -1000: chi-square %.1f >= 40", key, set.encoding, chi)
			}
			// PATH 2: the whole set
			for _, n := range []string{"10", "20"} {
				if got := sortedCopy(arrayOf(t, c.do("SRANDMEMBER", key, n))); strings.Join(got, " ") != strings.Join(sortedCopy(members), " ") {
					t.Errorf("%s SRANDMEMBER %s: %q", key, n, got)
				}
			}
			// PATH 3 (8 of 10) and PATH 4 (2 of 10)
			for _, size := range []int{8, 2} {
				var all []string
				for it := 1000 / size; it > 0; it-- {
					res := arrayOf(t, c.do("SRANDMEMBER", key, strconv.Itoa(size)))
					if len(res) != size {
						t.Fatalf("%s SRANDMEMBER %d: %d members", key, size, len(res))
					}
					seen := map[string]bool{}
					for _, m := range res {
						if seen[m] {
							t.Fatalf("%s SRANDMEMBER %d repeated %q: %q", key, size, m, res)
						}
						seen[m] = true
					}
					all = append(all, res...)
				}
				if chi := chiSquare(all); chi >= 40 {
					t.Errorf("%s (%s) SRANDMEMBER %d: chi-square %.1f >= 40", key, set.encoding, size, chi)
				}
			}
		}
	})
}

func TestHrandfieldDistribution(t *testing.T) {
	long := strings.Repeat("L", 80) // over hash-max-listpack-value 10
	hashes := []struct {
		encoding string
		pairs    []string
	}{
		{"hashtable", []string{"a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "6", "f", "7", "g", "8", "h", "9", "i", long, "10"}},
		{"listpack", []string{"a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "6", "f", "7", "g", "8", "h", "9", "i", "10", "j"}},
	}
	onBoth(t, func(t *testing.T, c *respConn) {
		c.do("CONFIG", "SET", "hash-max-listpack-value", "10")
		if got := c.do("HRANDFIELD", "nonexisting_key", "100"); got != "*0\r\n" {
			t.Errorf("HRANDFIELD nonexisting_key 100: %q", got)
		}
		for i, h := range hashes {
			key := "myhash" + strconv.Itoa(i)
			c.do(append([]string{"HSET", key}, h.pairs...)...)
			if got := bulkText(c.do("OBJECT", "ENCODING", key)); got != h.encoding {
				t.Fatalf("%s: encoding %s, want %s", key, got, h.encoding)
			}
			var fields []string
			for j := 0; j < len(h.pairs); j += 2 {
				fields = append(fields, h.pairs[j])
			}
			if chi := chiSquare(arrayOf(t, c.do("HRANDFIELD", key, "-1000"))); chi >= 40 {
				t.Errorf("%s (%s) HRANDFIELD -1000: chi-square %.1f >= 40", key, h.encoding, chi)
			}
			wv := arrayOf(t, c.do("HRANDFIELD", key, "-1000", "WITHVALUES"))
			var keys []string
			for j := 0; j < len(wv); j += 2 {
				keys = append(keys, wv[j])
			}
			if chi := chiSquare(keys); chi >= 40 {
				t.Errorf("%s (%s) HRANDFIELD -1000 WITHVALUES: chi-square %.1f >= 40", key, h.encoding, chi)
			}
			for _, size := range []int{8, 2} {
				var all []string
				for it := 1000 / size; it > 0; it-- {
					var res []string
					if it%2 == 0 {
						r := arrayOf(t, c.do("HRANDFIELD", key, strconv.Itoa(size), "WITHVALUES"))
						for j := 0; j < len(r); j += 2 {
							res = append(res, r[j])
						}
					} else {
						res = arrayOf(t, c.do("HRANDFIELD", key, strconv.Itoa(size)))
					}
					if len(res) != size {
						t.Fatalf("%s HRANDFIELD %d: %q", key, size, res)
					}
					all = append(all, res...)
				}
				if got := strings.Join(sortedCopy(uniq(all)), " "); got != strings.Join(sortedCopy(fields), " ") {
					t.Errorf("%s HRANDFIELD %d never returned some fields: %s", key, size, got)
				}
				if chi := chiSquare(all); chi >= 40 {
					t.Errorf("%s (%s) HRANDFIELD %d: chi-square %.1f >= 40", key, h.encoding, size, chi)
				}
			}
		}
	})
}

func uniq(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range l {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// FairRandomKey returns only present keys, all of them eventually, while
// the table grows, shrinks (a relocating rehash) or is stable.
func TestDictFairRandomKeyRehashing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	d := dict.New[int](0)
	for i := 0; i < 1000; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	for i := 30; i < 1000; i++ { // leaves 30 keys, shrinking
		d.Delete(strconv.Itoa(i))
	}
	for _, phase := range []string{"shrinking", "stable"} {
		if phase == "shrinking" && !d.Rehashing() {
			t.Fatal("expected a rehash in progress")
		}
		seen := map[string]bool{}
		for n := 0; n < 3000; n++ {
			k, v, ok := d.FairRandomKey(r)
			if !ok || strconv.Itoa(*v) != k {
				t.Fatalf("%s: FairRandomKey = %q, %v, %v", phase, k, v, ok)
			}
			if _, present := d.Get(k); !present {
				t.Fatalf("%s: %q is not in the dict", phase, k)
			}
			seen[k] = true
		}
		if len(seen) != 30 {
			t.Fatalf("%s: %d of 30 keys seen", phase, len(seen))
		}
		for d.RehashStep(100) {
		}
	}
}
