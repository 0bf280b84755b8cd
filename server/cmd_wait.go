package server

// WAIT numreplicas timeout (Redis waitCommand): the number of replicas
// that acknowledged the client's last write, at once when enough did (or
// the client cannot block), else when enough ACKs arrive or the timeout
// passes (never, for timeout 0). Blocking asks the replicas for an ACK
// (REPLCONF GETACK), as Redis's beforeSleep does.

func init() {
	register(&command{name: "wait", arity: 3, flags: cmdNoScript, proc: waitCommand, group: "generic", summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection", since: "3.0.0", acl: []string{"@slow", "@connection"}})
}

func waitCommand(c *client, argv [][]byte) {
	s := c.srv
	if s.repl.link != nil {
		c.err("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
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
	acked := s.replCountAcks(c.replWOff)
	if int64(acked) >= n || !s.canBlock(c) {
		c.integer(int64(acked))
		return
	}
	never := func(*client, [][]byte, bool) bool { return false }
	s.blockClient(c, nil, argv, millis(ms), never)
	c.block.timeoutReply = ":" + itoa(int64(acked)) + "\r\n"
	s.repl.waiters = append(s.repl.waiters, replWaiter{c: c, bs: c.block, num: n, off: c.replWOff})
	s.replRequestAcks()
}
