package server

// WAIT numreplicas timeout: aofserver has no replicas, so the answer is
// always 0 — at once when no replica is asked for, else after the timeout
// (never, for timeout 0), as a Redis master without replicas behaves.

func init() {
	register(&command{name: "wait", arity: 3, flags: cmdNoScript, proc: waitCommand, group: "generic", summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection", since: "3.0.0", acl: []string{"@slow", "@connection"}})
}

func waitCommand(c *client, argv [][]byte) {
	s := c.srv
	n, ok := parseInt(argv[1])
	if !ok {
		c.errNotInt()
		return
	}
	ms, ok := parseInt(argv[2])
	if !ok {
		c.err("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.err("ERR timeout is negative")
		return
	}
	if n <= 0 || !s.canBlock(c) {
		c.integer(0)
		return
	}
	never := func(*client, [][]byte, bool) bool { return false }
	s.blockClient(c, nil, argv, millis(ms), never)
	c.block.timeoutReply = ":0\r\n"
}
