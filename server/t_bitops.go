package server

import (
	"slices"

	"github.com/aofserver/aofserver/bitops"
	"github.com/aofserver/aofserver/rstring"
)

// Bitmap commands on string values: SETBIT, GETBIT, BITCOUNT, BITPOS and
// BITOP, with Redis 7.0's argument checks, error texts and propagation
// (SETBIT only counts as a change when the string grew or the bit flipped).

func init() {
	bm := func(name string, arity int, flags uint64, first, last int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: 1, proc: proc, group: "bitmap", summary: summary, since: since, acl: acl}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		bm("setbit", 4, w, 1, 1, setbitCommand, "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "@write", "@bitmap", "@slow"),
		bm("getbit", 3, r|cmdFast, 1, 1, getbitCommand, "Returns the bit value at offset in the string value stored at key", "2.2.0", "@read", "@bitmap", "@fast"),
		bm("bitcount", -2, r, 1, 1, bitcountCommand, "Count set bits in a string", "2.6.0", "@read", "@bitmap", "@slow"),
		bm("bitpos", -3, r, 1, 1, bitposCommand, "Find first bit set or clear in a string", "2.8.7", "@read", "@bitmap", "@slow"),
		bm("bitop", -4, w, 2, -1, bitopCommand, "Perform bitwise operations between strings", "2.6.0", "@write", "@bitmap", "@slow"),
	)
}

const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
)

// cEqFold compares an argument with an option name as C's strcasecmp on
// the NUL-terminated argument does: anything after a NUL byte is ignored.
func cEqFold(b []byte, s string) bool { return rstring.EqualFold(rstring.CString(b), s) }

// parseBitOffset parses a bit offset as Redis's getBitOffsetFromArgument:
// with hash set and bits > 0 the "#N" form means N*bits. Offsets whose byte
// lies at or past proto-max-bulk-len are refused (except while loading).
func parseBitOffset(c *client, arg []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	if useHash {
		arg = arg[1:]
	}
	v, ok := parseInt(arg)
	if !ok {
		c.err(errBitOffset)
		return 0, false
	}
	if useHash {
		v *= int64(width) // wraps on overflow like the C code, then fails below
	}
	if v < 0 || (!c.srv.loading && v>>3 >= c.srv.cfg.ProtoMaxBulkLen) {
		c.err(errBitOffset)
		return 0, false
	}
	return uint64(v), true
}

// stringForBitWrite returns key's string value as a growable raw string
// at least maxbit/8+1 bytes long, creating it (zero filled) when absent,
// like Redis's lookupStringForBitCommand (which also turns int/embstr
// encoded values into raw ones). grown is the number of bytes added. On a
// wrong type the error is replied and p is nil.
func (s *Server) stringForBitWrite(c *client, key []byte, maxbit uint64) (p *entry, grown int) {
	need := int(maxbit>>3) + 1
	p = s.lookupWrite(c, key)
	if p == nil {
		s.addKey(c.db, key, newRawStringEntry(make([]byte, need)))
		return c.db.keys.GetPtr(bstr(key)), need
	}
	if p.typ() != typString {
		c.errWrongType()
		return nil, 0
	}
	if rs := p.rawString(); rs != nil {
		if n := len(rs.b); need > n {
			grown = need - n
			rs.b = slices.Grow(rs.b, grown)[:need]
			clear(rs.b[n:])
		}
		return p, grown
	}
	cur := p.str()
	n := len(cur)
	if need > n {
		grown = need - n
		n = need
	}
	b := make([]byte, n)
	copy(b, cur)
	lru, mark := p.lru(), p.snapMark()
	*p = newRawStringEntry(b)
	p.setLRU(lru)
	p.setSnapMark(mark)
	return p, grown
}

func setbitCommand(c *client, argv [][]byte) {
	s := c.srv
	off, ok := parseBitOffset(c, argv[2], false, 0)
	if !ok {
		return
	}
	on, ok := parseInt(argv[3])
	if !ok || on&^1 != 0 {
		c.err(errBitValue)
		return
	}
	p, grown := s.stringForBitWrite(c, argv[1], off)
	if p == nil {
		return
	}
	b := p.rawString().b
	idx, mask := off>>3, byte(1)<<(7-off&7)
	old := b[idx]&mask != 0
	if grown > 0 || old != (on == 1) {
		if on == 1 {
			b[idx] |= mask
		} else {
			b[idx] &^= mask
		}
		s.dirty++
		s.signalModifiedKey(c.db, argv[1])
		s.notify(notifyString, "setbit", argv[1], c.db.id)
	}
	if old {
		c.integer(1)
	} else {
		c.integer(0)
	}
}

func getbitCommand(c *client, argv [][]byte) {
	off, ok := parseBitOffset(c, argv[2], false, 0)
	if !ok {
		return
	}
	v, found, wrong := c.srv.getString(c, argv[1])
	if wrong {
		return
	}
	if found && off>>3 < uint64(len(v)) && v[off>>3]&(1<<(7-off&7)) != 0 {
		c.integer(1)
		return
	}
	c.integer(0)
}

// parseBitUnit parses the BIT|BYTE range unit; it reports isBit and
// false after replying a syntax error.
func parseBitUnit(c *client, arg []byte) (isBit, ok bool) {
	switch {
	case cEqFold(arg, "bit"):
		return true, true
	case cEqFold(arg, "byte"):
		return false, true
	}
	c.errSyntax()
	return false, false
}

func bitcountCommand(c *client, argv [][]byte) {
	e, found := c.srv.lookupRead(c, argv[1])
	if !found {
		c.integer(0)
		return
	}
	if e.typ() != typString {
		c.errWrongType()
		return
	}
	b := e.str()
	total := int64(len(b))
	var lo, hi int64 // bit positions
	switch len(argv) {
	case 4, 5:
		start, ok1 := parseInt(argv[2])
		if !ok1 {
			c.errNotInt()
			return
		}
		end, ok2 := parseInt(argv[3])
		if !ok2 {
			c.errNotInt()
			return
		}
		if start < 0 && end < 0 && start > end {
			c.integer(0)
			return
		}
		isBit := false
		if len(argv) == 5 {
			var ok bool
			if isBit, ok = parseBitUnit(c, argv[4]); !ok {
				return
			}
		}
		if isBit {
			total <<= 3
		}
		start, end = bitops.NormalizeRange(start, end, total)
		if start > end {
			c.integer(0)
			return
		}
		if isBit {
			lo, hi = start, end
		} else {
			lo, hi = start<<3, end<<3+7
		}
	case 2:
		if total == 0 {
			c.integer(0)
			return
		}
		lo, hi = 0, total<<3-1
	default:
		c.errSyntax()
		return
	}
	c.integer(bitops.CountRange(b, lo, hi))
}

func bitposCommand(c *client, argv [][]byte) {
	bit, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if bit != 0 && bit != 1 {
		c.err("ERR The bit argument must be 1 or 0.")
		return
	}
	e, found := c.srv.lookupRead(c, argv[1])
	if !found {
		// A missing key is an infinite run of zero bits.
		if bit == 1 {
			c.integer(-1)
		} else {
			c.integer(0)
		}
		return
	}
	if e.typ() != typString {
		c.errWrongType()
		return
	}
	b := e.str()
	total := int64(len(b))
	var start, end int64
	isBit, endGiven := false, false
	switch len(argv) {
	case 4, 5, 6:
		if start, ok = parseInt(argv[3]); !ok {
			c.errNotInt()
			return
		}
		if len(argv) == 6 {
			if isBit, ok = parseBitUnit(c, argv[5]); !ok {
				return
			}
		}
		if isBit {
			total <<= 3
		}
		if len(argv) >= 5 {
			if end, ok = parseInt(argv[4]); !ok {
				c.errNotInt()
				return
			}
			endGiven = true
		} else {
			end = total - 1
		}
		start, end = bitops.NormalizeRange(start, end, total)
	case 3:
		start, end = 0, total-1
	default:
		c.errSyntax()
		return
	}
	if start > end {
		c.integer(-1)
		return
	}
	lo, hi := start, end
	if !isBit {
		lo, hi = start<<3, end<<3+7
	}
	pos := bitops.Find(b, bit == 1, lo, hi)
	if pos < 0 && bit == 0 && !endGiven {
		// Without an explicit end the string is taken as zero padded on
		// the right.
		pos = hi + 1
	}
	c.integer(pos)
}

func bitopCommand(c *client, argv [][]byte) {
	s := c.srv
	var op int
	switch a := argv[1]; {
	case cEqFold(a, "and"):
		op = bitops.And
	case cEqFold(a, "or"):
		op = bitops.Or
	case cEqFold(a, "xor"):
		op = bitops.Xor
	case cEqFold(a, "not"):
		op = bitops.Not
	default:
		c.errSyntax()
		return
	}
	if op == bitops.Not && len(argv) != 4 {
		c.err("ERR BITOP NOT must be called with a single source key.")
		return
	}
	dest := argv[2]
	srcs := make([][]byte, 0, len(argv)-3)
	maxLen := 0
	for _, k := range argv[3:] {
		e, found := s.lookupRead(c, k)
		if !found {
			srcs = append(srcs, nil)
			continue
		}
		if e.typ() != typString {
			c.errWrongType()
			return
		}
		v := e.str()
		srcs = append(srcs, v)
		if len(v) > maxLen {
			maxLen = len(v)
		}
	}
	if maxLen == 0 {
		if s.deleteKey(c.db, dest) {
			s.dirty++
			s.signalModifiedKey(c.db, dest)
			s.notify(notifyGeneric, "del", dest, c.db.id)
		}
		c.integer(0)
		return
	}
	res := make([]byte, maxLen)
	copy(res, srcs[0])
	if op == bitops.Not {
		bitops.Apply(op, res, nil)
	}
	for _, v := range srcs[1:] {
		bitops.Apply(op, res[:len(v)], v)
		if op == bitops.And {
			clear(res[len(v):])
		}
	}
	s.expireIfNeeded(c.db, dest) // Redis's setKey looks dest up for writing
	s.setKey(c.db, dest, newRawStringEntry(res), false)
	s.dirty++
	s.signalModifiedKey(c.db, dest)
	s.notify(notifyString, "set", dest, c.db.id)
	c.integer(int64(maxLen))
}
