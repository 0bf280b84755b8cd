package zsetcmd

import "github.com/aofserver/aofserver/command"

// BZPOPMIN, BZPOPMAX and BZMPOP: the sorted-set counterparts of BLPOP and
// BLMPOP, served or blocked through command.ServeOrBlock and logged as
// ZPOPMIN/ZPOPMAX key [count] when served later.

func bzpopminCommand(c command.Ctx, argv [][]byte) { bzpopGeneric(c, argv, false) }
func bzpopmaxCommand(c command.Ctx, argv [][]byte) { bzpopGeneric(c, argv, true) }

func bzpopGeneric(c command.Ctx, argv [][]byte, max bool) {
	timeout, ok := command.ParseBlockTimeout(c, argv[len(argv)-1])
	if !ok {
		return
	}
	command.ServeOrBlock(c, argv, argv[1:len(argv)-1], timeout, false, func(c command.Ctx, argv [][]byte, later bool) bool {
		return serveBzpop(c, argv[1:len(argv)-1], max, later)
	})
}

func bzmpopCommand(c command.Ctx, argv [][]byte) {
	timeout, ok := command.ParseBlockTimeout(c, argv[1])
	if !ok {
		return
	}
	keys, max, count, ok := command.ParseMpop(c, argv, 2, "min", "max")
	if !ok {
		return
	}
	command.ServeOrBlock(c, argv, keys, timeout, false, func(c command.Ctx, argv [][]byte, later bool) bool {
		// argv is the stored copy when later: the keys are taken from it.
		return serveZmpop(c, argv[3:3+len(keys)], max, count, later)
	})
}
