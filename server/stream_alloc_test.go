package server

import "testing"

// A stream reply formats its IDs in the client's scratch buffer (the
// seam's Replier.Scratch), not in one allocated per ID: XLEN allocates
// nothing, XRANGE of one entry only its list of entries.
func TestStreamSeamAllocs(t *testing.T) {
	ts := startOurServer(t)
	s := ts.s
	c := execClient(s, 99)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < 10; i++ {
		s.processCommand(c, [][]byte{[]byte("XADD"), []byte("s"), []byte("*"), []byte("f"), []byte("v")})
	}
	c.out = c.out[:0]
	xlen := [][]byte{[]byte("XLEN"), []byte("s")}
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, xlen); c.out = c.out[:0] }); n != 0 {
		t.Errorf("XLEN allocates %v times per call", n)
	}
	xrange := [][]byte{[]byte("XRANGE"), []byte("s"), []byte("-"), []byte("+"), []byte("COUNT"), []byte("1")}
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, xrange); c.out = c.out[:0] }); n > 1 {
		t.Errorf("XRANGE of one entry allocates %v times per call", n)
	}
}
