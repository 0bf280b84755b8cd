package server

import (
	"github.com/aofserver/aofserver/command/listcmd"
	"github.com/aofserver/aofserver/command/zsetcmd"

	seam "github.com/aofserver/aofserver/command"
)

// BLMPOP and BZMPOP, the blocking forms of LMPOP and ZMPOP (their
// arguments parsed by seam.ParseMpop).

func init() {
	register(
		&command{name: "blmpop", arity: -5, flags: cmdWrite | cmdBlocking | cmdNoScript, firstKey: 3, lastKey: 3, step: 1, proc: blmpopCommand, group: "list", summary: "Pop elements from a list, or block until one is available", since: "7.0.0", acl: []string{"@list", "@write", "@slow", "@blocking"}},
		&command{name: "bzmpop", arity: -5, flags: cmdWrite | cmdBlocking | cmdNoScript, firstKey: 3, lastKey: 3, step: 1, proc: bzmpopCommand, group: "sorted_set", summary: "Remove and return members with scores in a sorted set or block until one is available", since: "7.0.0", acl: []string{"@sortedset", "@write", "@slow", "@blocking"}},
	)
}

func blmpopCommand(c *client, argv [][]byte) {
	blockingMpop(c, argv, "left", "right", func(c *client, keys [][]byte, right bool, count int64, later bool) bool {
		return listcmd.ServeLmpop(c, keys, !right, count, later)
	})
}

func bzmpopCommand(c *client, argv [][]byte) {
	blockingMpop(c, argv, "min", "max", func(c *client, keys [][]byte, max bool, count int64, later bool) bool {
		return zsetcmd.ServeZmpop(c, keys, max, count, later)
	})
}

func blockingMpop(c *client, argv [][]byte, a, b string, serveFn func(*client, [][]byte, bool, int64, bool) bool) {
	s := c.srv
	timeout, ok := parseBlockTimeout(c, argv[1])
	if !ok {
		return
	}
	keys, second, count, ok := seam.ParseMpop(c, argv, 2, a, b)
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
