package skiplist

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// entry is one model element.
type entry struct {
	member []byte
	score  float64
}

// zslModel is the reference: a slice kept sorted by (score, member).
type zslModel []entry

func (m zslModel) find(member []byte) int {
	for i := range m {
		if bytes.Equal(m[i].member, member) {
			return i
		}
	}
	return -1
}

func (m *zslModel) insert(score float64, member []byte) {
	i := sort.Search(len(*m), func(i int) bool { return Less(score, member, (*m)[i].score, (*m)[i].member) })
	*m = append(*m, entry{})
	copy((*m)[i+1:], (*m)[i:])
	(*m)[i] = entry{member: member, score: score}
}

func (m *zslModel) remove(i int) { *m = append((*m)[:i], (*m)[i+1:]...) }

// checkZsl verifies the skiplist's links, spans, backward pointers and
// order against the model.
func checkZsl(t *testing.T, zsl *List, m zslModel) {
	t.Helper()
	if zsl.Length != len(m) {
		t.Fatalf("length %d, model %d", zsl.Length, len(m))
	}
	// Level 0 walk: order, backward links, tail.
	var prev *Node
	i := 0
	for x := zsl.Header.Level[0].Forward; x != nil; x = x.Level[0].Forward {
		if i >= len(m) {
			t.Fatalf("more nodes than the model")
		}
		if x.Score != m[i].score || !bytes.Equal(x.Member, m[i].member) {
			t.Fatalf("node %d = (%v,%q), model (%v,%q)", i, x.Score, x.Member, m[i].score, m[i].member)
		}
		if x.Backward != prev {
			t.Fatalf("node %d: wrong backward link", i)
		}
		prev = x
		i++
	}
	if zsl.Tail != prev {
		t.Fatalf("tail mismatch")
	}
	// Spans: on every level, span must equal the level-0 distance.
	pos := map[*Node]int{zsl.Header: 0}
	k := 1
	for x := zsl.Header.Level[0].Forward; x != nil; x = x.Level[0].Forward {
		pos[x] = k
		k++
	}
	for lvl := 0; lvl < zsl.level; lvl++ {
		for x := zsl.Header; x != nil; x = x.Level[lvl].Forward {
			f := x.Level[lvl].Forward
			want := 0
			if f != nil {
				want = pos[f] - pos[x]
			} else {
				want = len(m) - pos[x]
			}
			if f != nil && x.Level[lvl].Span != want {
				t.Fatalf("level %d span at pos %d = %d, want %d", lvl, pos[x], x.Level[lvl].Span, want)
			}
		}
	}
	for lvl := zsl.level; lvl < zslMaxLevel; lvl++ {
		if zsl.Header.Level[lvl].Forward != nil {
			t.Fatalf("header level %d above zsl.level is linked", lvl)
		}
	}
}

func TestZskiplistRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	zsl := New()
	var m zslModel
	for op := 0; op < 20000; op++ {
		member := []byte(fmt.Sprintf("m%d", r.IntN(300)))
		score := float64(r.IntN(40)) / 4
		i := m.find(member)
		switch r.IntN(4) {
		case 0, 1: // insert or update
			if i < 0 {
				zsl.Insert(score, member)
				m.insert(score, member)
			} else {
				n := zsl.UpdateScore(m[i].score, member, score)
				if n == nil || n.Score != score || !bytes.Equal(n.Member, member) {
					t.Fatalf("updateScore returned %v", n)
				}
				m.remove(i)
				m.insert(score, member)
			}
		case 2:
			if i >= 0 {
				if !zsl.Delete(m[i].score, member) {
					t.Fatalf("delete of present member failed")
				}
				m.remove(i)
			} else if zsl.Delete(score, member) {
				t.Fatalf("delete of absent member succeeded")
			}
		case 3:
			if i >= 0 {
				if got := zsl.Rank(m[i].score, member); got != i+1 {
					t.Fatalf("rank(%q) = %d, want %d", member, got, i+1)
				}
				if n := zsl.ByRank(i + 1); n == nil || !bytes.Equal(n.Member, member) {
					t.Fatalf("byRank(%d) wrong", i+1)
				}
			} else if got := zsl.Rank(score, member); got != 0 {
				t.Fatalf("rank of absent = %d", got)
			}
			// countWhile with a score predicate is "number of elements < s".
			_, cnt := zsl.CountWhile(func(n *Node) bool { return n.Score < score })
			want := sort.Search(len(m), func(j int) bool { return m[j].score >= score })
			if cnt != want {
				t.Fatalf("countWhile(< %v) = %d, want %d", score, cnt, want)
			}
		}
		if op%997 == 0 {
			checkZsl(t, zsl, m)
		}
	}
	checkZsl(t, zsl, m)
	if zsl.ByRank(0) != nil || zsl.ByRank(len(m)+1) != nil {
		t.Fatalf("byRank out of range returned a node")
	}
}

func TestZskiplistLevelsDistribution(t *testing.T) {
	zsl := New()
	counts := make([]int, zslMaxLevel+1)
	const n = 1 << 16
	for i := 0; i < n; i++ {
		l := zsl.randomLevel()
		if l < 1 || l > zslMaxLevel {
			t.Fatalf("level %d out of range", l)
		}
		counts[l]++
	}
	// P(level >= 2) should be about 1/4.
	ge2 := n - counts[1]
	if ge2 < n/5 || ge2 > n*3/10 {
		t.Fatalf("levels >= 2: %d of %d, want about 1/4", ge2, n)
	}
}
