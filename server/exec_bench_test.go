package server

import (
	"strconv"
	"testing"
)

// BenchmarkExecSet is the executor's share of a redis-benchmark SET: one
// SET of an existing key (of 100k) through processCommand, AOF off, the
// reply discarded.
func BenchmarkExecSet(b *testing.B) {
	ts := startOurServer(b)
	s := ts.s
	c := execClient(s, 99)
	const nkeys = 100000
	keys := make([][]byte, nkeys)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i*7919%nkeys))
	}
	val := []byte("xxx")
	s.mu.Lock()
	defer s.mu.Unlock()
	argv := [][]byte{[]byte("SET"), nil, val}
	for _, k := range keys {
		argv[1] = k
		s.processCommand(c, argv)
	}
	c.out = c.out[:0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		argv[1] = keys[i%nkeys]
		s.processCommand(c, argv)
		c.out = c.out[:0]
	}
}
