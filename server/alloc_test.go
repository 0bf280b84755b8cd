package server

import "testing"

func TestLookupNoAlloc(t *testing.T) {
	s := &Server{commands: builtin}
	argv := [][]byte{[]byte("SET"), []byte("k"), []byte("v")}
	n := testing.AllocsPerRun(100, func() { s.lookupCommand(argv) })
	if n != 0 {
		t.Fatalf("lookupCommand allocates %v times", n)
	}
	argv = [][]byte{[]byte("CONFIG"), []byte("GET"), []byte("x")}
	if n := testing.AllocsPerRun(100, func() { s.lookupCommand(argv) }); n != 0 {
		t.Fatalf("subcommand lookup allocates %v times", n)
	}
}

// The hot path allocates only what it stores: a GET nothing, a SET of an
// existing key only the new value.
func TestHotPathAllocs(t *testing.T) {
	ts := startOurServer(t)
	s := ts.s
	c := execClient(s, 99)
	set := [][]byte{[]byte("SET"), []byte("key:1"), []byte("0123456789")}
	get := [][]byte{[]byte("GET"), []byte("key:1")}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.processCommand(c, set)
	c.out = c.out[:0]
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, get); c.out = c.out[:0] }); n != 0 {
		t.Errorf("GET allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, set); c.out = c.out[:0] }); n > 1 {
		t.Errorf("SET of an existing key allocates %v times per call", n)
	}
}

// A command of a group outside server goes through the seam (package
// command) with no allocation of its own: HGET none, HSET of an existing
// field only the one its listpack update makes (as before the move).
func TestSeamHotPathAllocs(t *testing.T) {
	ts := startOurServer(t)
	s := ts.s
	c := execClient(s, 99)
	hset := [][]byte{[]byte("HSET"), []byte("h:1"), []byte("f"), []byte("0123456789")}
	hget := [][]byte{[]byte("HGET"), []byte("h:1"), []byte("f")}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.processCommand(c, hset)
	c.out = c.out[:0]
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, hget); c.out = c.out[:0] }); n != 0 {
		t.Errorf("HGET allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(200, func() { s.processCommand(c, hset); c.out = c.out[:0] }); n > 1 {
		t.Errorf("HSET of an existing field allocates %v times per call", n)
	}
}

// execClient is a client with no connection, in DB 0 and authenticated, for
// calling the executor directly.
func execClient(s *Server, id int64) *client {
	c := newClient(s, nil, id)
	c.db = s.dbs[0]
	c.authed = true
	return c
}
