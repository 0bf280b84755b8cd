package server

import (
	"encoding/binary"
	"math/bits"
	"slices"
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
	bitopAnd = iota
	bitopOr
	bitopXor
	bitopNot
)

const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
)

// cEqFold compares an argument with an option name as C's strcasecmp on
// the NUL-terminated argument does: anything after a NUL byte is ignored.
func cEqFold(b []byte, s string) bool {
	for i, ch := range b {
		if ch == 0 {
			b = b[:i]
			break
		}
	}
	return eqFold(b, s)
}

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

// popcount counts the set bits of b.
func popcount(b []byte) int64 {
	var n int
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	return int64(n)
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

// normalizeRange converts negative indexes against total and clamps the
// range as BITCOUNT/BITPOS do; the result may be empty (start > end).
func normalizeRange(start, end, total int64) (int64, int64) {
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= total {
		end = total - 1
	}
	return start, end
}

// countBits counts the set bits of b between bit positions lo and hi
// inclusive (both within b).
func countBits(b []byte, lo, hi int64) int64 {
	first, last := lo>>3, hi>>3
	n := popcount(b[first : last+1])
	n -= int64(bits.OnesCount8(b[first] & ^byte(0xff>>(lo&7))))
	n -= int64(bits.OnesCount8(b[last] & byte(0xff>>(hi&7+1))))
	return n
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
		start, end = normalizeRange(start, end, total)
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
	c.integer(countBits(b, lo, hi))
}

// findBit returns the position of the first bit equal to want between bit
// positions lo and hi inclusive (both within b), or -1.
func findBit(b []byte, want bool, lo, hi int64) int64 {
	skip := byte(0)
	if !want {
		skip = 0xff
	}
	for pos := lo; pos <= hi; {
		if pos&7 == 0 && pos+7 <= hi {
			// Whole bytes: skip those without a candidate bit.
			i := pos >> 3
			last := (hi + 1) >> 3 // exclusive, whole bytes only
			for i < last && b[i] == skip {
				i++
			}
			if i == last {
				pos = i << 3
				continue
			}
			x := b[i]
			if !want {
				x = ^x
			}
			return i<<3 + int64(bits.LeadingZeros8(x))
		}
		if (b[pos>>3]&(0x80>>(pos&7)) != 0) == want {
			return pos
		}
		pos++
	}
	return -1
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
		start, end = normalizeRange(start, end, total)
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
	pos := findBit(b, bit == 1, lo, hi)
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
		op = bitopAnd
	case cEqFold(a, "or"):
		op = bitopOr
	case cEqFold(a, "xor"):
		op = bitopXor
	case cEqFold(a, "not"):
		op = bitopNot
	default:
		c.errSyntax()
		return
	}
	if op == bitopNot && len(argv) != 4 {
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
	if op == bitopNot {
		bitopWords(op, res, nil)
	}
	for _, v := range srcs[1:] {
		bitopWords(op, res[:len(v)], v)
		if op == bitopAnd {
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

// bitopWords sets dst[i] = dst[i] op src[i] 8 bytes at a time; src is at
// least as long as dst (ignored for NOT).
func bitopWords(op int, dst, src []byte) {
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x := le.Uint64(dst[i:])
		switch op {
		case bitopNot:
			x = ^x
		case bitopAnd:
			x &= le.Uint64(src[i:])
		case bitopOr:
			x |= le.Uint64(src[i:])
		case bitopXor:
			x ^= le.Uint64(src[i:])
		}
		le.PutUint64(dst[i:], x)
	}
	for ; i < len(dst); i++ {
		switch op {
		case bitopNot:
			dst[i] = ^dst[i]
		case bitopAnd:
			dst[i] &= src[i]
		case bitopOr:
			dst[i] |= src[i]
		case bitopXor:
			dst[i] ^= src[i]
		}
	}
}
