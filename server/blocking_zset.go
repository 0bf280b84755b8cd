package server

import "github.com/aofserver/aofserver/command/zsetcmd"

// BZPOPMIN / BZPOPMAX: the sorted-set counterparts of BLPOP, served and
// logged (as ZPOPMIN/ZPOPMAX key) the same way; package zsetcmd pops.

func init() {
	zb := func(name string, proc cmdProc, summary string) *command {
		return &command{name: name, arity: -3, flags: cmdWrite | cmdBlocking | cmdFast | cmdNoScript, firstKey: 1, lastKey: -2, step: 1, proc: proc, group: "sorted_set", summary: summary, since: "5.0.0", acl: []string{"@write", "@sortedset", "@fast", "@blocking"}}
	}
	register(
		zb("bzpopmin", bzpopminCommand, "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available"),
		zb("bzpopmax", bzpopmaxCommand, "Remove and return the member with the highest score from one or more sorted sets, or block until one is available"),
	)
}

func bzpopminCommand(c *client, argv [][]byte) { bzpopGeneric(c, argv, false) }
func bzpopmaxCommand(c *client, argv [][]byte) { bzpopGeneric(c, argv, true) }

func bzpopGeneric(c *client, argv [][]byte, max bool) {
	s := c.srv
	timeout, ok := parseBlockTimeout(c, argv[len(argv)-1])
	if !ok {
		return
	}
	serve := func(c *client, argv [][]byte, later bool) bool {
		return zsetcmd.ServeBzpop(c, argv[1:len(argv)-1], max, later)
	}
	s.serveOrBlock(c, argv[1:len(argv)-1], argv, timeout, "*-1\r\n", serve)
}
