package server

// LMPOP/ZMPOP argument parsing shared with their blocking forms BLMPOP and
// BZMPOP, and the blocking commands themselves.

func init() {
	register(
		&command{name: "blmpop", arity: -5, flags: cmdWrite | cmdBlocking | cmdNoScript, firstKey: 3, lastKey: 3, step: 1, proc: blmpopCommand, group: "list", summary: "Pop elements from a list, or block until one is available", since: "7.0.0", acl: []string{"@list", "@write", "@slow", "@blocking"}},
		&command{name: "bzmpop", arity: -5, flags: cmdWrite | cmdBlocking | cmdNoScript, firstKey: 3, lastKey: 3, step: 1, proc: bzmpopCommand, group: "sorted_set", summary: "Remove and return members with scores in a sorted set or block until one is available", since: "7.0.0", acl: []string{"@sortedset", "@write", "@slow", "@blocking"}},
	)
}

// parseMpop parses "numkeys key... <a|b> [COUNT n]" starting at argv[first]
// as Redis's mpopGenericCommand; second is true for b.
func parseMpop(c *client, argv [][]byte, first int, a, b string) (keys [][]byte, second bool, count int64, ok bool) {
	numkeys, valid := parseInt(argv[first])
	if !valid || numkeys < 1 {
		c.err("ERR numkeys should be greater than 0")
		return nil, false, 0, false
	}
	if numkeys >= int64(len(argv)-first-1) {
		c.errSyntax()
		return nil, false, 0, false
	}
	whereIdx := first + 1 + int(numkeys)
	switch {
	case eqFold(argv[whereIdx], a):
	case eqFold(argv[whereIdx], b):
		second = true
	default:
		c.errSyntax()
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(argv); j++ {
		if count == -1 && eqFold(argv[j], "count") && j+1 < len(argv) {
			j++
			v, valid := parseInt(argv[j])
			if !valid || v < 1 {
				c.err("ERR count should be greater than 0")
				return nil, false, 0, false
			}
			count = v
			continue
		}
		c.errSyntax()
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return argv[first+1 : whereIdx], second, count, true
}

// propagateServed logs a pop: as the command's own form when it ran at
// once, or as a separate op when it served a blocked client.
func (s *Server) propagateServed(c *client, later bool, argv ...[]byte) {
	if later {
		s.propagate(c.db.id, argv)
	} else {
		c.rewriteArgv(argv...)
	}
}

func blmpopCommand(c *client, argv [][]byte) {
	blockingMpop(c, argv, "left", "right", func(c *client, keys [][]byte, right bool, count int64, later bool) bool {
		return serveLmpop(c, keys, !right, count, later)
	})
}

func bzmpopCommand(c *client, argv [][]byte) {
	blockingMpop(c, argv, "min", "max", serveZmpop)
}

func blockingMpop(c *client, argv [][]byte, a, b string, serveFn func(*client, [][]byte, bool, int64, bool) bool) {
	s := c.srv
	timeout, ok := parseBlockTimeout(c, argv[1])
	if !ok {
		return
	}
	keys, second, count, ok := parseMpop(c, argv, 2, a, b)
	if !ok {
		return
	}
	serve := func(c *client, argv [][]byte, later bool) bool {
		// argv is the stored copy: re-derive the keys from it.
		k := argv[3 : 3+len(keys)]
		return serveFn(c, k, second, count, later)
	}
	s.serveOrBlock(c, keys, argv, timeout, "*-1\r\n", serve)
}
