package stream

import "encoding/binary"

// RadixTreeNodes is the node count of the rax Redis keeps the stream's
// listpacks in: keys are the 16-byte big-endian master IDs, and a rax node
// sits at the root, at each child of a branching point and at the end of
// each compressed chain (the canonical compressed form).
func (s *Stream) RadixTreeNodes() int {
	keys := make([][16]byte, len(s.Nodes))
	for i, nd := range s.Nodes {
		binary.BigEndian.PutUint64(keys[i][:8], nd.Master.Ms)
		binary.BigEndian.PutUint64(keys[i][8:], nd.Master.Seq)
	}
	if len(keys) == 0 {
		return 1
	}
	return raxNodes(keys, 0)
}

// raxNodes counts the nodes below (and including) the rax node at depth d
// shared by keys (sorted, distinct, all 16 bytes).
func raxNodes(keys [][16]byte, d int) int {
	if d == 16 {
		return 1
	}
	same := func(d int) bool { return keys[0][d] == keys[len(keys)-1][d] }
	if same(d) {
		e := d + 1
		for e < 16 && same(e) {
			e++
		}
		return 1 + raxNodes(keys, e)
	}
	n := 1
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][d] == keys[i][d] {
			j++
		}
		n += raxNodes(keys[i:j], d+1)
		i = j
	}
	return n
}
