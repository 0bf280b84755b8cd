package aof

import (
	"strconv"

	respenc "github.com/aofserver/aofserver/resp" // "resp" is a test helper here
)

// Op is one propagated command. DB is the database it ran in; a negative DB
// writes no SELECT and leaves the selected database as it is.
type Op struct {
	DB   int
	Argv [][]byte
}

// Feed appends ops, in order, to the in-memory buffer: a "#TS:<secs>" line
// first when timestamps are enabled and the second changed, then for each op
// a lazy SELECT when its DB differs from the last one written, then the
// command as a RESP array of bulk strings. It returns the logical end offset
// after these bytes as a Ticket (monotonic for the life of the AOF, across
// files): see barrier.go. Feed does no I/O and never blocks on the disk: it is meant to be
// called with the server's executor lock held, so the file order is the
// execution order.
func (a *AOF) Feed(ops ...Op) Ticket {
	a.bufMu.Lock()
	before := len(a.buf)
	if len(ops) > 0 && a.tsEnabled {
		if now := a.now().Unix(); now > a.lastTS {
			a.buf = append(a.buf, "#TS:"...)
			a.buf = strconv.AppendInt(a.buf, now, 10)
			a.buf = append(a.buf, '\r', '\n')
			a.lastTS = now
		}
	}
	for i := range ops {
		op := &ops[i]
		if op.DB >= 0 && op.DB != a.selectedDB {
			a.buf = appendSelect(a.buf, op.DB)
			a.selectedDB = op.DB
		}
		a.buf = AppendCommand(a.buf, op.Argv)
	}
	grown := int64(len(a.buf) - before)
	a.fedOff += grown
	off := a.fedOff
	if len(ops) > 0 {
		a.fedCmds += int64(len(ops))
		a.marks = append(a.marks, mark{end: off, cmds: a.fedCmds})
	}
	a.bufMu.Unlock()
	if len(ops) > 0 {
		a.fedMark()
	}
	if grown > 0 {
		// No wake-up here: the client that waits for these bytes writes
		// them itself (Wait); bytes nobody waits for (active expiry) are
		// picked up by the writer when kicked (KickPending), or within
		// writerTick.
		a.bufLen.Add(grown)
	}
	return Ticket(off)
}

// KickPending kicks the writer if fed bytes wait to be written: for
// callers that fed without waiting (background work such as active
// expiry), once their work is done.
func (a *AOF) KickPending() {
	if a.bufLen.Load() > 0 {
		a.raiseBgOff(int64(a.Offset()))
		select {
		case a.kickBg <- struct{}{}:
		default:
		}
	}
}

// raiseBgOff moves bgOff up to off.
func (a *AOF) raiseBgOff(off int64) {
	for {
		cur := a.bgOff.Load()
		if off <= cur || a.bgOff.CompareAndSwap(cur, off) {
			return
		}
	}
}

// Offset returns the ticket of everything fed so far.
func (a *AOF) Offset() Ticket {
	a.bufMu.Lock()
	defer a.bufMu.Unlock()
	return Ticket(a.fedOff)
}

// AppendCommand appends argv as the AOF stores a command (a RESP request).
func AppendCommand(b []byte, argv [][]byte) []byte { return respenc.AppendCommand(b, argv) }

func appendSelect(b []byte, db int) []byte {
	var num [20]byte
	d := strconv.AppendInt(num[:0], int64(db), 10)
	b = append(b, "*2\r\n$6\r\nSELECT\r\n$"...)
	b = strconv.AppendInt(b, int64(len(d)), 10)
	b = append(b, '\r', '\n')
	b = append(b, d...)
	return append(b, '\r', '\n')
}
