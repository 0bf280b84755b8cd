package listcmd

import (
	"bytes"
	"time"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
)

// The blocking pops: BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP. Each serves
// at once or blocks through command.ServeOrBlock; a client served later is
// logged as the pop it amounts to (LPOP key, LMOVE ..., RPOP key count),
// after the push that served it.

func blpopCommand(c command.Ctx, argv [][]byte) { bpopGeneric(c, argv, true) }
func brpopCommand(c command.Ctx, argv [][]byte) { bpopGeneric(c, argv, false) }

func bpopGeneric(c command.Ctx, argv [][]byte, head bool) {
	timeout, ok := command.ParseBlockTimeout(c, argv[len(argv)-1])
	if !ok {
		return
	}
	command.ServeOrBlock(c, argv, argv[1:len(argv)-1], timeout, false, func(c command.Ctx, argv [][]byte, later bool) bool {
		return serveBpop(c, argv[1:len(argv)-1], head, later)
	})
}

func brpoplpushCommand(c command.Ctx, argv [][]byte) {
	timeout, ok := command.ParseBlockTimeout(c, argv[3])
	if !ok {
		return
	}
	blockingMove(c, argv, argv[1], argv[2], false, true, timeout)
}

func blmoveCommand(c command.Ctx, argv [][]byte) {
	var from, to bool
	for i, a := range argv[3:5] {
		var left bool
		switch {
		case rstring.EqualFold(a, "left"):
			left = true
		case rstring.EqualFold(a, "right"):
		default:
			c.Err(command.ErrSyntax)
			return
		}
		if i == 0 {
			from = left
		} else {
			to = left
		}
	}
	timeout, ok := command.ParseBlockTimeout(c, argv[5])
	if !ok {
		return
	}
	blockingMove(c, argv, argv[1], argv[2], from, to, timeout)
}

func side(left bool) string {
	if left {
		return "left"
	}
	return "right"
}

func blockingMove(c command.Ctx, argv [][]byte, src, dst []byte, fromLeft, toLeft bool, timeout time.Duration) {
	isRPOPLPUSH := rstring.EqualFold(argv[0], "brpoplpush")
	serve := func(c command.Ctx, argv [][]byte, later bool) bool {
		v, found := c.LookupNoStats(src)
		if !found {
			return false
		}
		if v.Type != command.TypeList {
			if later {
				return false
			}
			c.Err(command.ErrWrongType)
			return true
		}
		if d, ok := c.LookupNoStats(dst); ok && d.Type != command.TypeList {
			// Also when serving a blocked client: it is answered
			// WRONGTYPE and the element stays in src (Redis's
			// serveClientBlockedOnList).
			c.Err(command.ErrWrongType)
			return true
		}
		if !lmove(c, src, dst, fromLeft, toLeft) {
			return true
		}
		var form [][]byte
		if isRPOPLPUSH {
			form = [][]byte{[]byte("RPOPLPUSH"), bytes.Clone(src), bytes.Clone(dst)}
		} else {
			form = [][]byte{[]byte("LMOVE"), bytes.Clone(src), bytes.Clone(dst), []byte(side(fromLeft)), []byte(side(toLeft))}
		}
		c.SignalReady(dst)
		if !later && !isRPOPLPUSH {
			// Served at once: the positions are logged as the client
			// wrote them; served later, in lower case (as Redis).
			form[3], form[4] = bytes.Clone(argv[3]), bytes.Clone(argv[4])
		}
		command.PropagateServed(c, later, form...)
		return true
	}
	command.ServeOrBlock(c, argv, [][]byte{src}, timeout, true, serve)
}

func blmpopCommand(c command.Ctx, argv [][]byte) {
	timeout, ok := command.ParseBlockTimeout(c, argv[1])
	if !ok {
		return
	}
	keys, right, count, ok := command.ParseMpop(c, argv, 2, "left", "right")
	if !ok {
		return
	}
	command.ServeOrBlock(c, argv, keys, timeout, false, func(c command.Ctx, argv [][]byte, later bool) bool {
		// argv is the stored copy when later: the keys are taken from it.
		return serveLmpop(c, argv[3:3+len(keys)], !right, count, later)
	})
}
