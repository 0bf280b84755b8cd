package replication

import "github.com/aofserver/aofserver/aof"

// History is a server's replication history (Redis's server.replid,
// replid2, master_repl_offset, second_replid_offset, repl_backlog and
// slaveseldb): which stream it holds, how far, and the newest bytes of it.
// A master writes it from its propagated commands, a replica from its
// master's stream; replicas of either continue it with PSYNC.
type History struct {
	ID, ID2      string // master_replid, master_replid2
	Offset       int64  // master_repl_offset
	SecondOffset int64  // second_repl_offset (-1: none)
	Backlog      *Backlog
	SelDB        int // the DB the stream last selected, -1 none
}

// Init gives a server with no history its replication ID (Redis sets one
// at start).
func (h *History) Init() {
	if h.ID == "" {
		h.ID = RandomID()
		h.ID2 = ZeroID
		h.SecondOffset = -1
		h.SelDB = -1
	}
}

// Shift is Redis's shiftReplicationId: the current history becomes ID2
// (valid up to Offset+1), and a new ID starts.
func (h *History) Shift() {
	h.Init()
	h.ID2 = h.ID
	h.SecondOffset = h.Offset + 1
	h.ID = RandomID()
}

// NewID starts a history no replica can continue: a new ID, no ID2.
func (h *History) NewID() {
	h.ID = RandomID()
	h.ID2 = ZeroID
	h.SecondOffset = -1
}

// CreateBacklog makes a backlog of size bytes (1 MB when size is not
// positive) that starts at the current offset.
func (h *History) CreateBacklog(size int64) {
	if size <= 0 {
		size = 1 << 20
	}
	h.Backlog = NewBacklog(int(size), h.Offset+1)
}

// Append adds encoded stream bytes to the backlog and the offset (the
// caller hands them to the replicas too).
func (h *History) Append(buf []byte) {
	h.Backlog.Write(buf)
	h.Offset += int64(len(buf))
}

var (
	multiArgv = [][]byte{[]byte("MULTI")}
	execArgv  = [][]byte{[]byte("EXEC")}
)

// AppendOps encodes propagated ops as the stream carries them (Redis's
// replicationFeedSlaves): a SELECT where the DB changes, the ops, and
// MULTI/EXEC around them when wrap and there are two or more. SelDB
// follows what the encoded stream selects.
func (h *History) AppendOps(buf []byte, ops []aof.Op, wrap bool) []byte {
	db := h.SelDB
	add := func(d int, argv [][]byte) {
		if d >= 0 && d != db {
			buf = AppendSelect(buf, d)
			db = d
		}
		buf = aof.AppendCommand(buf, argv)
	}
	if wrap && len(ops) >= 2 {
		add(ops[0].DB, multiArgv)
	}
	for i := range ops {
		add(ops[i].DB, ops[i].Argv)
	}
	if wrap && len(ops) >= 2 {
		add(ops[len(ops)-1].DB, execArgv)
	}
	h.SelDB = db
	return buf
}

// Refusal is why a PSYNC cannot continue a history.
type Refusal int

const (
	Continue       Refusal = iota // it can
	AskedFull                     // the replica asked for a full sync ("?")
	IDMismatch                    // neither of our IDs
	SecondIDTooFar                // our ID2, past where it ends
	NoBacklog                     // the offset is not in the backlog
)

// CanContinue is masterTryPartialResynchronization's check of a PSYNC for
// id at offset off.
func (h *History) CanContinue(id string, off int64) Refusal {
	if id != h.ID && (id != h.ID2 || off > h.SecondOffset) {
		switch {
		case id == "?":
			return AskedFull
		case id != h.ID2:
			return IDMismatch
		}
		return SecondIDTooFar
	}
	if h.Backlog == nil || !h.Backlog.Holds(off) {
		return NoBacklog
	}
	return Continue
}
