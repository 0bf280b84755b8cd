// Package bitcmd is the bitmap command group (Redis's bitops.c): SETBIT,
// GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO on string
// values, with package bitops's bit arithmetic, written against the seam
// of package command.
package bitcmd

import (
	"github.com/aofserver/aofserver/bitops"
	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
)

// Bitmap commands on string values: SETBIT, GETBIT, BITCOUNT, BITPOS and
// BITOP, with Redis 7.0's argument checks, error texts and propagation
// (SETBIT only counts as a change when the string grew or the bit flipped).

// BITFIELD and BITFIELD_RO: signed/unsigned integers of 1..64 (unsigned
// 1..63) bits at arbitrary bit offsets of a string, with Redis 7.0's
// overflow semantics. BITFIELD counts as a change (and is propagated as
// sent) only when a SET/INCRBY changed a value or the string grew.

// Group is the "bitmap" group, as the server registers it.
var Group = command.Group{Name: "bitmap", Category: "@bitmap", Commands: []command.Spec{
	bm("setbit", 4, w, 1, 1, setbitCommand, "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "@write", "@slow"),
	bm("getbit", 3, r|command.FlagFast, 1, 1, getbitCommand, "Returns the bit value at offset in the string value stored at key", "2.2.0", "@read", "@fast"),
	bm("bitcount", -2, r, 1, 1, bitcountCommand, "Count set bits in a string", "2.6.0", "@read", "@slow"),
	bm("bitpos", -3, r, 1, 1, bitposCommand, "Find first bit set or clear in a string", "2.8.7", "@read", "@slow"),
	bm("bitop", -4, w, 2, -1, bitopCommand, "Perform bitwise operations between strings", "2.6.0", "@write", "@slow"),
	bm("bitfield", -2, w, 1, 1, bitfieldCommand, "Perform arbitrary bitfield integer operations on strings", "3.2.0", "@write", "@slow"),
	bm("bitfield_ro", -2, r|command.FlagFast, 1, 1, bitfieldROCommand, "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", "6.0.0", "@read", "@fast"),
}}

const (
	w = command.FlagWrite | command.FlagDenyOOM
	r = command.FlagReadonly
)

func bm(name string, arity int, flags command.Flag, first, last int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
)

// parseBitOffset parses a bit offset as Redis's getBitOffsetFromArgument:
// with hash set and bits > 0 the "#N" form means N*bits. Offsets whose byte
// lies at or past proto-max-bulk-len are refused (except while loading).
func parseBitOffset(c command.Ctx, arg []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	if useHash {
		arg = arg[1:]
	}
	v, ok := rstring.String2ll(arg)
	if !ok {
		c.Err(errBitOffset)
		return 0, false
	}
	if useHash {
		v *= int64(width) // wraps on overflow like the C code, then fails below
	}
	if v < 0 || (!c.Loading() && v>>3 >= c.Config().ProtoMaxBulkLen) {
		c.Err(errBitOffset)
		return 0, false
	}
	return uint64(v), true
}

// stringForBitWrite returns key's string value as a growable raw string
// at least maxbit/8+1 bytes long, creating it (zero filled) when absent,
// like Redis's lookupStringForBitCommand (which also turns int/embstr
// encoded values into raw ones). grown is the number of bytes added. On a
// wrong type the error is replied and buf is nil.
func stringForBitWrite(c command.Ctx, key []byte, maxbit uint64) (buf *[]byte, grown int) {
	need := int(maxbit>>3) + 1
	_, isString, found := c.LookupWriteString(key)
	if !found {
		return c.AddRawString(key, make([]byte, need)), need
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return nil, 0
	}
	return c.GrowString(key, need)
}

func setbitCommand(c command.Ctx, argv [][]byte) {
	off, ok := parseBitOffset(c, argv[2], false, 0)
	if !ok {
		return
	}
	on, ok := rstring.String2ll(argv[3])
	if !ok || on&^1 != 0 {
		c.Err(errBitValue)
		return
	}
	p, grown := stringForBitWrite(c, argv[1], off)
	if p == nil {
		return
	}
	b := *p
	idx, mask := off>>3, byte(1)<<(7-off&7)
	old := b[idx]&mask != 0
	if grown > 0 || old != (on == 1) {
		if on == 1 {
			b[idx] |= mask
		} else {
			b[idx] &^= mask
		}
		c.AddDirty(1)
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyString, "setbit", argv[1])
	}
	if old {
		c.Integer(1)
	} else {
		c.Integer(0)
	}
}

func getbitCommand(c command.Ctx, argv [][]byte) {
	off, ok := parseBitOffset(c, argv[2], false, 0)
	if !ok {
		return
	}
	v, isString, found := c.LookupReadString(argv[1])
	if found && !isString {
		c.Err(command.ErrWrongType)
		return
	}
	if found && off>>3 < uint64(len(v)) && v[off>>3]&(1<<(7-off&7)) != 0 {
		c.Integer(1)
		return
	}
	c.Integer(0)
}

// parseBitUnit parses the BIT|BYTE range unit; it reports isBit and
// false after replying a syntax error.
func parseBitUnit(c command.Ctx, arg []byte) (isBit, ok bool) {
	switch {
	case rstring.CEqualFold(arg, "bit"):
		return true, true
	case rstring.CEqualFold(arg, "byte"):
		return false, true
	}
	c.Err(command.ErrSyntax)
	return false, false
}

func bitcountCommand(c command.Ctx, argv [][]byte) {
	b, isString, found := c.LookupReadString(argv[1])
	if !found {
		c.Integer(0)
		return
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return
	}
	total := int64(len(b))
	var lo, hi int64 // bit positions
	switch len(argv) {
	case 4, 5:
		start, ok1 := rstring.String2ll(argv[2])
		if !ok1 {
			c.Err(command.ErrNotInt)
			return
		}
		end, ok2 := rstring.String2ll(argv[3])
		if !ok2 {
			c.Err(command.ErrNotInt)
			return
		}
		if start < 0 && end < 0 && start > end {
			c.Integer(0)
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
			c.Integer(0)
			return
		}
		if isBit {
			lo, hi = start, end
		} else {
			lo, hi = start<<3, end<<3+7
		}
	case 2:
		if total == 0 {
			c.Integer(0)
			return
		}
		lo, hi = 0, total<<3-1
	default:
		c.Err(command.ErrSyntax)
		return
	}
	c.Integer(bitops.CountRange(b, lo, hi))
}

func bitposCommand(c command.Ctx, argv [][]byte) {
	bit, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		c.Err("ERR The bit argument must be 1 or 0.")
		return
	}
	b, isString, found := c.LookupReadString(argv[1])
	if !found {
		// A missing key is an infinite run of zero bits.
		if bit == 1 {
			c.Integer(-1)
		} else {
			c.Integer(0)
		}
		return
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return
	}
	total := int64(len(b))
	var start, end int64
	isBit, endGiven := false, false
	switch len(argv) {
	case 4, 5, 6:
		if start, ok = rstring.String2ll(argv[3]); !ok {
			c.Err(command.ErrNotInt)
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
			if end, ok = rstring.String2ll(argv[4]); !ok {
				c.Err(command.ErrNotInt)
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
		c.Err(command.ErrSyntax)
		return
	}
	if start > end {
		c.Integer(-1)
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
	c.Integer(pos)
}

func bitopCommand(c command.Ctx, argv [][]byte) {
	var op int
	switch a := argv[1]; {
	case rstring.CEqualFold(a, "and"):
		op = bitops.And
	case rstring.CEqualFold(a, "or"):
		op = bitops.Or
	case rstring.CEqualFold(a, "xor"):
		op = bitops.Xor
	case rstring.CEqualFold(a, "not"):
		op = bitops.Not
	default:
		c.Err(command.ErrSyntax)
		return
	}
	if op == bitops.Not && len(argv) != 4 {
		c.Err("ERR BITOP NOT must be called with a single source key.")
		return
	}
	dest := argv[2]
	srcs := make([][]byte, 0, len(argv)-3)
	maxLen := 0
	for _, k := range argv[3:] {
		v, isString, found := c.LookupReadString(k)
		if !found {
			srcs = append(srcs, nil)
			continue
		}
		if !isString {
			c.Err(command.ErrWrongType)
			return
		}
		srcs = append(srcs, v)
		if len(v) > maxLen {
			maxLen = len(v)
		}
	}
	if maxLen == 0 {
		if c.DeleteKey(dest) {
			c.AddDirty(1)
			c.SignalModifiedKey(dest)
			c.Notify(command.NotifyGeneric, "del", dest)
		}
		c.Integer(0)
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
	c.SetRawString(dest, res)
	c.AddDirty(1)
	c.SignalModifiedKey(dest)
	c.Notify(command.NotifyString, "set", dest)
	c.Integer(int64(maxLen))
}
