package server

import "github.com/aofserver/aofserver/bitops"

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

func bitfieldCommand(c *client, argv [][]byte)   { bitfieldGeneric(c, argv, false) }
func bitfieldROCommand(c *client, argv [][]byte) { bitfieldGeneric(c, argv, true) }

func bitfieldGeneric(c *client, argv [][]byte, roCmd bool) {
	s := c.srv
	var ops []bitfieldOp
	ow := bitops.Wrap
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
				ow = bitops.Wrap
			case cEqFold(t, "sat"):
				ow = bitops.Sat
			case cEqFold(t, "fail"):
				ow = bitops.Fail
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
				c.integer(bitops.GetSigned(buf, o.offset, o.bits))
			} else {
				c.integer(int64(bitops.Get(buf, o.offset, o.bits)))
			}
			continue
		}
		if o.signed {
			old := bitops.GetSigned(buf, o.offset, o.bits)
			var nv, ret int64
			var of int
			var lim int64
			if o.op == bfIncrby {
				of, lim = bitops.SignedOverflow(old, o.value, o.bits, o.ow)
				nv = old + o.value
				if of != 0 {
					nv = lim
				}
				ret = nv
			} else {
				nv = o.value
				if of, lim = bitops.SignedOverflow(nv, 0, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = old
			}
			if of != 0 && o.ow == bitops.Fail {
				c.nullBulk()
				continue
			}
			c.integer(ret)
			bitops.Set(buf, o.offset, o.bits, uint64(nv))
			if grown > 0 || old != nv {
				changes++
			}
		} else {
			old := bitops.Get(buf, o.offset, o.bits)
			var nv, ret uint64
			var of int
			var lim uint64
			if o.op == bfIncrby {
				nv = old + uint64(o.value)
				if of, lim = bitops.UnsignedOverflow(old, o.value, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = nv
			} else {
				nv = uint64(o.value)
				if of, lim = bitops.UnsignedOverflow(nv, 0, o.bits, o.ow); of != 0 {
					nv = lim
				}
				ret = old
			}
			if of != 0 && o.ow == bitops.Fail {
				c.nullBulk()
				continue
			}
			c.integer(int64(ret))
			bitops.Set(buf, o.offset, o.bits, nv)
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
