// Package skiplist is the skiplist of Redis's sorted sets (t_zset.c).
package skiplist

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
)

// List is Redis's sorted-set skiplist (t_zset.c): elements ordered by
// (score, member bytes), every forward link carrying a span (the number of
// level-0 steps it jumps) so that rank lookups are O(log n), and a backward
// link on level 0 for reverse iteration.
type List struct {
	Header *Node
	Tail   *Node
	Length int
	level  int
	rnd    uint64 // xorshift state for node levels (no shared RNG needed)
}

// Level is one forward link of a node and the number of level-0 steps it
// jumps.
type Level struct {
	Forward *Node
	Span    int
}

// Node is one element; Level[0].Forward and Backward link the elements in
// order.
type Node struct {
	Member   []byte
	Score    float64
	Backward *Node
	Level    []Level
}

const (
	zslMaxLevel = 32 // ZSKIPLIST_MAXLEVEL
	// zslP is ZSKIPLIST_P = 1/4: a node climbs a level with probability 1/4.
)

// New returns an empty list (zslCreate).
func New() *List {
	return &List{
		Header: &Node{Level: make([]Level, zslMaxLevel)},
		level:  1,
		rnd:    rand.Uint64() | 1,
	}
}

// randomLevel returns 1 + the number of consecutive "1 in 4" successes.
func (zsl *List) randomLevel() int {
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

// Less orders (score, member) pairs as Redis does.
func Less(s1 float64, m1 []byte, s2 float64, m2 []byte) bool {
	return s1 < s2 || (s1 == s2 && bytes.Compare(m1, m2) < 0)
}

// Insert adds a member that is known to be absent. member is stored as is
// (the caller passes an owned copy).
func (zsl *List) Insert(score float64, member []byte) *Node {
	var update [zslMaxLevel]*Node
	var rank [zslMaxLevel]int
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		if i != zsl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.Level[i].Forward; f != nil && Less(f.Score, f.Member, score, member); f = x.Level[i].Forward {
			rank[i] += x.Level[i].Span
			x = f
		}
		update[i] = x
	}
	lvl := zsl.randomLevel()
	if lvl > zsl.level {
		for i := zsl.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = zsl.Header
			update[i].Level[i].Span = zsl.Length
		}
		zsl.level = lvl
	}
	x = &Node{Member: member, Score: score, Level: make([]Level, lvl)}
	for i := 0; i < lvl; i++ {
		x.Level[i].Forward = update[i].Level[i].Forward
		update[i].Level[i].Forward = x
		x.Level[i].Span = update[i].Level[i].Span - (rank[0] - rank[i])
		update[i].Level[i].Span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < zsl.level; i++ {
		update[i].Level[i].Span++
	}
	if update[0] != zsl.Header {
		x.Backward = update[0]
	}
	if x.Level[0].Forward != nil {
		x.Level[0].Forward.Backward = x
	} else {
		zsl.Tail = x
	}
	zsl.Length++
	return x
}

func (zsl *List) deleteNode(x *Node, update *[zslMaxLevel]*Node) {
	for i := 0; i < zsl.level; i++ {
		if update[i].Level[i].Forward == x {
			update[i].Level[i].Span += x.Level[i].Span - 1
			update[i].Level[i].Forward = x.Level[i].Forward
		} else {
			update[i].Level[i].Span--
		}
	}
	if x.Level[0].Forward != nil {
		x.Level[0].Forward.Backward = x.Backward
	} else {
		zsl.Tail = x.Backward
	}
	for zsl.level > 1 && zsl.Header.Level[zsl.level-1].Forward == nil {
		zsl.level--
	}
	zsl.Length--
}

// Delete removes the element (score, member); it reports whether it was
// found.
func (zsl *List) Delete(score float64, member []byte) bool {
	var update [zslMaxLevel]*Node
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.Level[i].Forward; f != nil && Less(f.Score, f.Member, score, member); f = x.Level[i].Forward {
			x = f
		}
		update[i] = x
	}
	x = x.Level[0].Forward
	if x != nil && x.Score == score && bytes.Equal(x.Member, member) {
		zsl.deleteNode(x, &update)
		return true
	}
	return false
}

// UpdateScore moves member from curScore to newScore, in place when the
// order does not change (zslUpdateScore).
func (zsl *List) UpdateScore(curScore float64, member []byte, newScore float64) *Node {
	var update [zslMaxLevel]*Node
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.Level[i].Forward; f != nil && Less(f.Score, f.Member, curScore, member); f = x.Level[i].Forward {
			x = f
		}
		update[i] = x
	}
	x = x.Level[0].Forward
	if x == nil || x.Score != curScore || !bytes.Equal(x.Member, member) {
		return nil // not found: caller's dict and skiplist disagree
	}
	if (x.Backward == nil || x.Backward.Score < newScore || (x.Backward.Score == newScore && bytes.Compare(x.Backward.Member, member) < 0)) &&
		(x.Level[0].Forward == nil || Less(newScore, member, x.Level[0].Forward.Score, x.Level[0].Forward.Member)) {
		x.Score = newScore
		return x
	}
	zsl.deleteNode(x, &update)
	return zsl.Insert(newScore, x.Member)
}

// Rank returns the 1-based rank of (score, member), 0 if absent.
func (zsl *List) Rank(score float64, member []byte) int {
	r := 0
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.Level[i].Forward; f != nil && (Less(f.Score, f.Member, score, member) || (f.Score == score && bytes.Equal(f.Member, member))); f = x.Level[i].Forward {
			r += x.Level[i].Span
			x = f
		}
		if x != zsl.Header && x.Score == score && bytes.Equal(x.Member, member) {
			return r
		}
	}
	return 0
}

// ByRank returns the node at 1-based rank, or nil.
func (zsl *List) ByRank(rank int) *Node {
	if rank < 1 || rank > zsl.Length {
		return nil
	}
	traversed := 0
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.Level[i].Forward != nil && traversed+x.Level[i].Span <= rank {
			traversed += x.Level[i].Span
			x = x.Level[i].Forward
		}
		if traversed == rank {
			return x
		}
	}
	return nil
}

// CountWhile descends the list and returns the last node n (nil for the
// header) such that before(n) holds for every node up to n along the
// descent, with the number of such nodes. before must be monotone (true
// then false along the order) for the result to mean "count of elements
// before the range", exactly as Redis's zslFirstInRange/zslLastInRange
// descents behave.
func (zsl *List) CountWhile(before func(*Node) bool) (*Node, int) {
	r := 0
	x := zsl.Header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.Level[i].Forward; f != nil && before(f); f = x.Level[i].Forward {
			r += x.Level[i].Span
			x = f
		}
	}
	if x == zsl.Header {
		return nil, 0
	}
	return x, r
}
