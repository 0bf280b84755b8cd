package server

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
)

// zskiplist is Redis's sorted-set skiplist (t_zset.c): elements ordered by
// (score, member bytes), every forward link carrying a span (the number of
// level-0 steps it jumps) so that rank lookups are O(log n), and a backward
// link on level 0 for reverse iteration.
type zskiplist struct {
	header *zslNode
	tail   *zslNode
	length int
	level  int
	rnd    uint64 // xorshift state for node levels (no shared RNG needed)
}

type zslLevel struct {
	forward *zslNode
	span    int
}

type zslNode struct {
	member   []byte
	score    float64
	backward *zslNode
	level    []zslLevel
}

const (
	zslMaxLevel = 32 // ZSKIPLIST_MAXLEVEL
	// zslP is ZSKIPLIST_P = 1/4: a node climbs a level with probability 1/4.
)

func newZskiplist() *zskiplist {
	return &zskiplist{
		header: &zslNode{level: make([]zslLevel, zslMaxLevel)},
		level:  1,
		rnd:    rand.Uint64() | 1,
	}
}

// randomLevel returns 1 + the number of consecutive "1 in 4" successes.
func (zsl *zskiplist) randomLevel() int {
	x := zsl.rnd
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	zsl.rnd = x
	// Two bits per trial: a level is added while both bits are zero.
	lvl := 1 + bits.TrailingZeros64(x|1<<62)/2
	if lvl > zslMaxLevel {
		lvl = zslMaxLevel
	}
	return lvl
}

// zslLess orders (score, member) pairs as Redis does.
func zslLess(s1 float64, m1 []byte, s2 float64, m2 []byte) bool {
	return s1 < s2 || (s1 == s2 && bytes.Compare(m1, m2) < 0)
}

// insert adds a member that is known to be absent. member is stored as is
// (the caller passes an owned copy).
func (zsl *zskiplist) insert(score float64, member []byte) *zslNode {
	var update [zslMaxLevel]*zslNode
	var rank [zslMaxLevel]int
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		if i != zsl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.level[i].forward; f != nil && zslLess(f.score, f.member, score, member); f = x.level[i].forward {
			rank[i] += x.level[i].span
			x = f
		}
		update[i] = x
	}
	lvl := zsl.randomLevel()
	if lvl > zsl.level {
		for i := zsl.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = zsl.header
			update[i].level[i].span = zsl.length
		}
		zsl.level = lvl
	}
	x = &zslNode{member: member, score: score, level: make([]zslLevel, lvl)}
	for i := 0; i < lvl; i++ {
		x.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = x
		x.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < zsl.level; i++ {
		update[i].level[i].span++
	}
	if update[0] != zsl.header {
		x.backward = update[0]
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x
	} else {
		zsl.tail = x
	}
	zsl.length++
	return x
}

func (zsl *zskiplist) deleteNode(x *zslNode, update *[zslMaxLevel]*zslNode) {
	for i := 0; i < zsl.level; i++ {
		if update[i].level[i].forward == x {
			update[i].level[i].span += x.level[i].span - 1
			update[i].level[i].forward = x.level[i].forward
		} else {
			update[i].level[i].span--
		}
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x.backward
	} else {
		zsl.tail = x.backward
	}
	for zsl.level > 1 && zsl.header.level[zsl.level-1].forward == nil {
		zsl.level--
	}
	zsl.length--
}

// delete removes the element (score, member); it reports whether it was
// found.
func (zsl *zskiplist) delete(score float64, member []byte) bool {
	var update [zslMaxLevel]*zslNode
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && zslLess(f.score, f.member, score, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	if x != nil && x.score == score && bytes.Equal(x.member, member) {
		zsl.deleteNode(x, &update)
		return true
	}
	return false
}

// updateScore moves member from curScore to newScore, in place when the
// order does not change (zslUpdateScore).
func (zsl *zskiplist) updateScore(curScore float64, member []byte, newScore float64) *zslNode {
	var update [zslMaxLevel]*zslNode
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && zslLess(f.score, f.member, curScore, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	if x == nil || x.score != curScore || !bytes.Equal(x.member, member) {
		return nil // not found: caller's dict and skiplist disagree
	}
	if (x.backward == nil || x.backward.score < newScore || (x.backward.score == newScore && bytes.Compare(x.backward.member, member) < 0)) &&
		(x.level[0].forward == nil || zslLess(newScore, member, x.level[0].forward.score, x.level[0].forward.member)) {
		x.score = newScore
		return x
	}
	zsl.deleteNode(x, &update)
	return zsl.insert(newScore, x.member)
}

// rank returns the 1-based rank of (score, member), 0 if absent.
func (zsl *zskiplist) rank(score float64, member []byte) int {
	r := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && (zslLess(f.score, f.member, score, member) || (f.score == score && bytes.Equal(f.member, member))); f = x.level[i].forward {
			r += x.level[i].span
			x = f
		}
		if x != zsl.header && x.score == score && bytes.Equal(x.member, member) {
			return r
		}
	}
	return 0
}

// byRank returns the node at 1-based rank, or nil.
func (zsl *zskiplist) byRank(rank int) *zslNode {
	if rank < 1 || rank > zsl.length {
		return nil
	}
	traversed := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span <= rank {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		if traversed == rank {
			return x
		}
	}
	return nil
}

// countWhile descends the list and returns the last node n (nil for the
// header) such that before(n) holds for every node up to n along the
// descent, with the number of such nodes. before must be monotone (true
// then false along the order) for the result to mean "count of elements
// before the range", exactly as Redis's zslFirstInRange/zslLastInRange
// descents behave.
func (zsl *zskiplist) countWhile(before func(*zslNode) bool) (*zslNode, int) {
	r := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && before(f); f = x.level[i].forward {
			r += x.level[i].span
			x = f
		}
	}
	if x == zsl.header {
		return nil, 0
	}
	return x, r
}
