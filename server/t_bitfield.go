package server

import "math"

// BITFIELD and BITFIELD_RO: signed/unsigned integers of 1..64 (unsigned
// 1..63) bits at arbitrary bit offsets of a string, with Redis 7.0's
// overflow semantics. BITFIELD counts as a change (and is propagated as
// sent) only when a SET/INCRBY changed a value or the string grew.

func init() {
	register(
		&command{name: "bitfield", arity: -2, flags: cmdWrite | cmdDenyOOM, firstKey: 1, lastKey: 1, step: 1, proc: bitfieldCommand, group: "bitmap", summary: "Perform arbitrary bitfield integer operations on strings", since: "3.2.0", acl: []string{"@write", "@bitmap", "@slow"}},
		&command{name: "bitfield_ro", arity: -2, flags: cmdReadonly | cmdFast, firstKey: 1, lastKey: 1, step: 1, proc: bitfieldROCommand, group: "bitmap", summary: "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", since: "6.0.0", acl: []string{"@read", "@bitmap", "@fast"}},
	)
}

const (
	bfWrap = iota
	bfSat
	bfFail
)

const (
	bfGet = iota
	bfSet
	bfIncrby
)

type bitfieldOp struct {
	offset uint64
	value  int64 // SET value or INCRBY increment
	op     int
	ow     int
	bits   int
	signed bool
}

const errBitfieldType = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."

// parseBitfieldType parses "i<bits>" (1..64) or "u<bits>" (1..63). Like
// the C code, the width is read up to the first NUL byte.
func parseBitfieldType(c *client, arg []byte) (signed bool, width int, ok bool) {
	if len(arg) == 0 || (arg[0] != 'i' && arg[0] != 'u') {
		c.err(errBitfieldType)
		return false, 0, false
	}
	signed = arg[0] == 'i'
	num := arg[1:]
	for i, ch := range num {
		if ch == 0 {
			num = num[:i]
			break
		}
	}
	n, ok := parseInt(num)
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		c.err(errBitfieldType)
		return false, 0, false
	}
	return signed, int(n), true
}

// getBits reads width bits at bit offset off as an unsigned number; bits
// past the end of b read as zero.
func getBits(b []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		idx := off >> 3
		var bit uint64
		if idx < uint64(len(b)) {
			bit = uint64(b[idx]>>(7-off&7)) & 1
		}
		v = v<<1 | bit
		off++
	}
	return v
}

func getSignedBits(b []byte, off uint64, width int) int64 {
	v := int64(getBits(b, off, width))
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= -1 << width
	}
	return v
}

// setBits writes the low width bits of v at bit offset off (within b).
func setBits(b []byte, off uint64, width int, v uint64) {
	for j := 0; j < width; j++ {
		idx, mask := off>>3, byte(1)<<(7-off&7)
		if v&(1<<(width-1-j)) != 0 {
			b[idx] |= mask
		} else {
			b[idx] &^= mask
		}
		off++
	}
}

// unsignedOverflow reports whether value+incr overflows a width-bit
// unsigned integer (1 above, -1 below, 0 none) and the value to store
// instead for WRAP and SAT, with the same arithmetic as Redis's
// checkUnsignedBitfieldOverflow (a SET passes its value with incr 0).
func unsignedOverflow(value uint64, incr int64, width, ow int) (int, uint64) {
	max := uint64(math.MaxUint64)
	if width < 64 {
		max = 1<<width - 1
	}
	maxIncr := int64(max - value)
	minIncr := -int64(value)
	wrap := func() uint64 { return (value + uint64(incr)) & max }
	switch {
	case value > max || (incr > 0 && incr > maxIncr):
		if ow == bfWrap {
			return 1, wrap()
		}
		return 1, max
	case incr < 0 && incr < minIncr:
		if ow == bfWrap {
			return -1, wrap()
		}
		return -1, 0
	}
	return 0, 0
}

// signedOverflow is unsignedOverflow for signed integers (Redis's
// checkSignedBitfieldOverflow, including its treatment of SET values far
// outside the range).
func signedOverflow(value, incr int64, width, ow int) (int, int64) {
	max := int64(math.MaxInt64)
	if width < 64 {
		max = 1<<(width-1) - 1
	}
	min := -max - 1
	maxIncr := int64(uint64(max) - uint64(value))
	minIncr := min - value
	wrap := func() int64 {
		r := uint64(value) + uint64(incr)
		if width < 64 {
			mask := ^uint64(0) << width
			if r&(1<<(width-1)) != 0 {
				r |= mask
			} else {
				r &^= mask
			}
		}
		return int64(r)
	}
	switch {
	case value > max || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ow == bfWrap {
			return 1, wrap()
		}
		return 1, max
	case value < min || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ow == bfWrap {
			return -1, wrap()
		}
		return -1, min
	}
	return 0, 0
}

func bitfieldCommand(c *client, argv [][]byte)   { bitfieldGeneric(c, argv, false) }
func bitfieldROCommand(c *client, argv [][]byte) { bitfieldGeneric(c, argv, true) }

func bitfieldGeneric(c *client, argv [][]byte, roCmd bool) {
	s := c.srv
	var ops []bitfieldOp
	ow := bfWrap
	readonly := true
	var highest uint64
	for j := 2; j < len(argv); j++ {
		rem := len(argv) - j - 1
		sub := argv[j]
		var op int
		switch {
		case cEqFold(sub, "get") && rem >= 2:
			op = bfGet
		case cEqFold(sub, "set") && rem >= 3:
			op = bfSet
		case cEqFold(sub, "incrby") && rem >= 3:
			op = bfIncrby
		case cEqFold(sub, "overflow") && rem >= 1:
			j++
			switch t := argv[j]; {
			case cEqFold(t, "wrap"):
				ow = bfWrap
			case cEqFold(t, "sat"):
				ow = bfSat
			case cEqFold(t, "fail"):
				ow = bfFail
			default:
				c.err("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			c.errSyntax()
			return
		}
		signed, width, ok := parseBitfieldType(c, argv[j+1])
		if !ok {
			return
		}
		off, ok := parseBitOffset(c, argv[j+2], true, width)
		if !ok {
			return
		}
		var v int64
		if op != bfGet {
			readonly = false
			if top := off + uint64(width) - 1; top > highest {
				highest = top
			}
			if v, ok = parseInt(argv[j+3]); !ok {
				c.errNotInt()
				return
			}
			j++
		}
		ops = append(ops, bitfieldOp{offset: off, value: v, op: op, ow: ow, bits: width, signed: signed})
		j += 2
	}

	var buf []byte
	grown := 0
	if readonly {
		e, found := s.lookupRead(c, argv[1])
		if found {
			if e.typ() != typString {
				c.errWrongType()
				return
			}
			buf = e.str()
		}
	} else {
		if roCmd {
			c.err("ERR BITFIELD_RO only supports the GET subcommand")
			return
		}
		var p *entry
		if p, grown = s.stringForBitWrite(c, argv[1], highest); p == nil {
			return
		}
		buf = p.rawString().b
	}

	changes := 0
	c.arrayLen(len(ops))
	for _, o := range ops {
		if o.op == bfGet {
			if o.signed {
				c.integer(getSignedBits(buf, o.offset, o.bits))
			} else {
				c.integer(int64(getBits(buf, o.offset, o.bits)))
			}
			continue
		}
		if o.signed {
			old := getSignedBits(buf, o.offset, o.bits)
			var nv, ret int64
			var of int
			var lim int64
			if o.op == bfIncrby {
				of, lim = signedOverflow(old, o.value, o.bits, o.ow)
				nv = old + o.value
				if of != 0 {
					nv = lim
				}
				ret = nv
			} else {
				nv = o.value
				if of, lim = signedOverflow(nv, 0, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = old
			}
			if of != 0 && o.ow == bfFail {
				c.nullBulk()
				continue
			}
			c.integer(ret)
			setBits(buf, o.offset, o.bits, uint64(nv))
			if grown > 0 || old != nv {
				changes++
			}
		} else {
			old := getBits(buf, o.offset, o.bits)
			var nv, ret uint64
			var of int
			var lim uint64
			if o.op == bfIncrby {
				nv = old + uint64(o.value)
				if of, lim = unsignedOverflow(old, o.value, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = nv
			} else {
				nv = uint64(o.value)
				if of, lim = unsignedOverflow(nv, 0, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = old
			}
			if of != 0 && o.ow == bfFail {
				c.nullBulk()
				continue
			}
			c.integer(int64(ret))
			setBits(buf, o.offset, o.bits, nv)
			if grown > 0 || old != nv {
				changes++
			}
		}
	}
	if changes > 0 {
		s.dirty += int64(changes)
		s.signalModifiedKey(c.db, argv[1])
		s.notify(notifyString, "setbit", argv[1], c.db.id)
	}
}
