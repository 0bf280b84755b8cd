package dict

import (
	"fmt"
	"strings"
)

const dictStatsVectLen = 50 // DICT_STATS_VECTLEN

// Stats is Redis 7.0's dictGetStats: each table (the second one while
// rehashing), its size, element count and chains (their lengths follow
// our hash function, not Redis's siphash).
func (d *Dict[V]) Stats() string {
	var sb strings.Builder
	d.statsHt(&sb, 0)
	if d.Rehashing() {
		d.statsHt(&sb, 1)
	}
	return sb.String()
}

func (d *Dict[V]) statsHt(sb *strings.Builder, i int) {
	t := &d.ht[i]
	name := "main hash table"
	if i == 1 {
		name = "rehashing target"
	}
	if t.used == 0 {
		fmt.Fprintf(sb, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n", i, name)
		return
	}
	size := len(t.buckets)
	var clvector [dictStatsVectLen]int
	slots, maxChain, totChain := 0, 0, 0
	for _, ref := range t.buckets {
		if ref == 0 {
			clvector[0]++
			continue
		}
		slots++
		n := 0
		for r := ref; r != 0; r = t.ar.node(r).next {
			n++
		}
		clvector[min(n, dictStatsVectLen-1)]++
		maxChain = max(maxChain, n)
		totChain += n
	}
	fmt.Fprintf(sb, "Hash table %d stats (%s):\n table size: %d\n number of elements: %d\n different slots: %d\n max chain length: %d\n avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n Chain length distribution:\n",
		i, name, size, t.used, slots, maxChain, float64(float32(totChain)/float32(slots)), float64(float32(t.used)/float32(slots)))
	for l := 0; l < dictStatsVectLen-1; l++ {
		if clvector[l] == 0 {
			continue
		}
		fmt.Fprintf(sb, "   %d: %d (%.02f%%)\n", l, clvector[l], float64(float32(clvector[l])/float32(size)*100))
	}
}
