package bitcmd

import (
	"github.com/aofserver/aofserver/bitops"
	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
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
func parseBitfieldType(c command.Ctx, arg []byte) (signed bool, width int, ok bool) {
	if len(arg) == 0 || (arg[0] != 'i' && arg[0] != 'u') {
		c.Err(errBitfieldType)
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
	n, ok := rstring.String2ll(num)
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		c.Err(errBitfieldType)
		return false, 0, false
	}
	return signed, int(n), true
}

func bitfieldCommand(c command.Ctx, argv [][]byte)   { bitfieldGeneric(c, argv, false) }
func bitfieldROCommand(c command.Ctx, argv [][]byte) { bitfieldGeneric(c, argv, true) }

func bitfieldGeneric(c command.Ctx, argv [][]byte, roCmd bool) {
	var ops []bitfieldOp
	ow := bitops.Wrap
	readonly := true
	var highest uint64
	for j := 2; j < len(argv); j++ {
		rem := len(argv) - j - 1
		sub := argv[j]
		var op int
		switch {
		case rstring.CEqualFold(sub, "get") && rem >= 2:
			op = bfGet
		case rstring.CEqualFold(sub, "set") && rem >= 3:
			op = bfSet
		case rstring.CEqualFold(sub, "incrby") && rem >= 3:
			op = bfIncrby
		case rstring.CEqualFold(sub, "overflow") && rem >= 1:
			j++
			switch t := argv[j]; {
			case rstring.CEqualFold(t, "wrap"):
				ow = bitops.Wrap
			case rstring.CEqualFold(t, "sat"):
				ow = bitops.Sat
			case rstring.CEqualFold(t, "fail"):
				ow = bitops.Fail
			default:
				c.Err("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			c.Err(command.ErrSyntax)
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
			if v, ok = rstring.String2ll(argv[j+3]); !ok {
				c.Err(command.ErrNotInt)
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
		v, isString, found := c.LookupReadString(argv[1])
		if found {
			if !isString {
				c.Err(command.ErrWrongType)
				return
			}
			buf = v
		}
	} else {
		if roCmd {
			c.Err("ERR BITFIELD_RO only supports the GET subcommand")
			return
		}
		var p *[]byte
		if p, grown = stringForBitWrite(c, argv[1], highest); p == nil {
			return
		}
		buf = *p
	}

	changes := 0
	c.ArrayLen(len(ops))
	for _, o := range ops {
		if o.op == bfGet {
			if o.signed {
				c.Integer(bitops.GetSigned(buf, o.offset, o.bits))
			} else {
				c.Integer(int64(bitops.Get(buf, o.offset, o.bits)))
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
				c.Null()
				continue
			}
			c.Integer(ret)
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
				c.Null()
				continue
			}
			c.Integer(int64(ret))
			bitops.Set(buf, o.offset, o.bits, nv)
			if grown > 0 || old != nv {
				changes++
			}
		}
	}
	if changes > 0 {
		c.AddDirty(int64(changes))
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyString, "setbit", argv[1])
	}
}
