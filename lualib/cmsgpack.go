package lualib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Cmsgpack is the lua-cmsgpack 0.4.0 library Redis bundles:
// cmsgpack.pack / unpack / unpack_one / unpack_limit, byte for byte (maps
// are written in this Lua's table iteration order).
func Cmsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			ArgError(L, 0, "pack", "MessagePack pack needs input.")
			return 0
		}
		var b []byte
		for i := 1; i <= n; i++ {
			b = mpEncode(b, L.Get(i), 0)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return mpUnpack(L, 0, 0)
	}))
	// unpack_one and unpack_limit leave only the string on the stack
	// before decoding (which counts against the stack limit)
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		off := int32(OptInt(L, 2, "unpack_one", 0))
		if L.GetTop() > 1 {
			L.SetTop(1)
		}
		return mpUnpack(L, 1, int64(off))
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int32(CheckInt(L, 2, "unpack_limit"))
		off := int32(OptInt(L, 3, "unpack_limit", 0))
		if L.GetTop() > 1 {
			L.SetTop(1)
		}
		return mpUnpack(L, int64(limit), int64(off))
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

const mpMaxNesting = 16

// mpInt64Equivalent is IS_INT64_EQUIVALENT: the double survives a round
// trip through int64 (C's out-of-range cast gives INT64_MIN on x86).
func mpInt64Equivalent(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return false
	}
	return float64(int64(f)) == f
}

func mpEncode(b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		n := len(x)
		switch {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n <= 0xff:
			b = append(b, 0xd9, byte(n))
		case n <= 0xffff:
			b = append(b, 0xda, byte(n>>8), byte(n))
		default:
			b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		}
		return append(b, x...)
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if mpInt64Equivalent(f) {
			return mpEncodeInt(b, int64(f))
		}
		if f32 := float32(f); float64(f32) == f {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f32))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == mpMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := mpIsArray(x); ok {
			b = mpEncodeLen(b, 0x90, 0xdc, uint64(n))
			for j := 1; j <= n; j++ {
				b = mpEncode(b, x.RawGetInt(j), level+1)
			}
			return b
		}
		pairs := NextOrder(x)
		b = mpEncodeLen(b, 0x80, 0xde, uint64(len(pairs)))
		for _, kv := range pairs {
			b = mpEncode(b, kv[0], level+1)
			b = mpEncode(b, kv[1], level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// mpIsArray is table_is_an_array: only positive integer keys (that fit an
// int) whose maximum equals their count.
func mpIsArray(t *lua.LTable) (int, bool) {
	count, max, ok := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		if !ok {
			return
		}
		n, isNum := k.(lua.LNumber)
		f := float64(n)
		if !isNum || f <= 0 || f > math.MaxInt32 || float64(int32(f)) != f {
			ok = false
			return
		}
		if int(f) > max {
			max = int(f)
		}
		count++
	})
	return count, ok && max == count
}

func mpEncodeLen(b []byte, fix, b16 byte, n uint64) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return append(b, b16, byte(n>>8), byte(n))
	}
	return append(b, b16+1, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func mpEncodeInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return append(b, 0xcd, byte(n>>8), byte(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return append(b, 0xd1, byte(n>>8), byte(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

var (
	errMpEOF    = errors.New("Missing bytes in input.")
	errMpBadFmt = errors.New("Bad data format in input.")
)

// mpUnpack is mp_unpack_full: limit and offset 0 decode everything and
// return only the values; otherwise the next offset (-1 at the end) comes
// first.
func mpUnpack(L *lua.LState, limit, off int64) int {
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = FmtNumber(float64(v))
	default:
		got := "no value"
		if L.GetTop() >= 1 {
			got = v.Type().String()
		}
		ArgError(L, 1, "unpack", "string expected, got "+got)
	}
	all := limit == 0 && off == 0
	if off < 0 || limit < 0 {
		Error(L, fmt.Sprintf("Invalid request to unpack with offset of %d and limit of %d.", int32(off), int32(len(s))))
		return 0
	}
	if off > int64(len(s)) {
		Error(L, fmt.Sprintf("Start offset %d greater than input length %d.", int32(off), int32(len(s))))
		return 0
	}
	if all {
		limit = math.MaxInt32
	}
	p := []byte(s[off:])
	var vals []lua.LValue
	for cnt := int64(0); len(p) > 0 && cnt < limit; cnt++ {
		v, rest, err := mpDecode(L, p, L.GetTop()+len(vals))
		if err != nil {
			Error(L, err.Error())
			return 0
		}
		vals = append(vals, v)
		p = rest
	}
	if !all {
		CheckStack(L, L.GetTop()+len(vals), 1, "in function mp_unpack_full")
		next := int64(len(s) - len(p))
		if len(p) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range vals {
		L.Push(v)
	}
	if !all {
		return len(vals) + 1
	}
	return len(vals)
}

// mpDecode decodes one value; used is the stack slots lua-cmsgpack would
// hold when pushing it (the values and open tables before it).
func mpDecode(L *lua.LState, p []byte, used int) (lua.LValue, []byte, error) {
	if len(p) < 1 {
		return nil, nil, errMpEOF
	}
	CheckStack(L, used, 1, "too many return values at once; use unpack_one or unpack_limit instead.")
	need := func(n int) bool { return len(p) >= n }
	str := func(hdr, n int) (lua.LValue, []byte, error) {
		if !need(hdr + n) {
			return nil, nil, errMpEOF
		}
		return lua.LString(p[hdr : hdr+n]), p[hdr+n:], nil
	}
	be := func(n int) uint64 {
		var u uint64
		for i := 1; i <= n; i++ {
			u = u<<8 | uint64(p[i])
		}
		return u
	}
	fixed := map[byte]int{0xcc: 2, 0xd0: 2, 0xcd: 3, 0xd1: 3, 0xce: 5, 0xd2: 5, 0xcf: 9, 0xd3: 9, 0xca: 5, 0xcb: 9,
		0xd9: 2, 0xda: 3, 0xdb: 5, 0xdc: 3, 0xdd: 5, 0xde: 3, 0xdf: 5}
	if n, ok := fixed[p[0]]; ok && !need(n) {
		return nil, nil, errMpEOF
	}
	switch p[0] {
	case 0xcc, 0xcd, 0xce:
		n := map[byte]int{0xcc: 1, 0xcd: 2, 0xce: 4}[p[0]]
		return lua.LNumber(be(n)), p[n+1:], nil
	case 0xd0:
		return lua.LNumber(int8(p[1])), p[2:], nil
	case 0xd1:
		return lua.LNumber(int16(be(2))), p[3:], nil
	case 0xd2:
		return lua.LNumber(int32(be(4))), p[5:], nil
	case 0xcf, 0xd3:
		return lua.LNumber(int64(be(8))), p[9:], nil
	case 0xc0:
		return lua.LNil, p[1:], nil
	case 0xc3:
		return lua.LTrue, p[1:], nil
	case 0xc2:
		return lua.LFalse, p[1:], nil
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(be(4)))), p[5:], nil
	case 0xcb:
		return lua.LNumber(math.Float64frombits(be(8))), p[9:], nil
	case 0xd9:
		return str(2, int(p[1]))
	case 0xda:
		return str(3, int(be(2)))
	case 0xdb:
		return str(5, int(be(4)))
	case 0xdc:
		return mpDecodeAgg(L, p[3:], int(be(2)), false, used)
	case 0xdd:
		return mpDecodeAgg(L, p[5:], int(be(4)), false, used)
	case 0xde:
		return mpDecodeAgg(L, p[3:], int(be(2)), true, used)
	case 0xdf:
		return mpDecodeAgg(L, p[5:], int(be(4)), true, used)
	}
	switch c := p[0]; {
	case c&0x80 == 0:
		return lua.LNumber(c), p[1:], nil
	case c&0xe0 == 0xe0:
		return lua.LNumber(int8(c)), p[1:], nil
	case c&0xe0 == 0xa0:
		return str(1, int(c&0x1f))
	case c&0xf0 == 0x90:
		return mpDecodeAgg(L, p[1:], int(c&0xf), false, used)
	case c&0xf0 == 0x80:
		return mpDecodeAgg(L, p[1:], int(c&0xf), true, used)
	}
	return nil, nil, errMpBadFmt
}

func mpDecodeAgg(L *lua.LState, p []byte, n int, isMap bool, used int) (lua.LValue, []byte, error) {
	used++ // the table
	t := L.NewTable()
	for i := 1; i <= n; i++ {
		var k, v lua.LValue
		var err error
		if isMap {
			if k, p, err = mpDecode(L, p, used); err != nil {
				return nil, nil, err
			}
		} else {
			k = lua.LNumber(i)
		}
		vused := used
		if isMap {
			vused++ // the key
		}
		if v, p, err = mpDecode(L, p, vused); err != nil {
			return nil, nil, err
		}
		switch kk := k.(type) {
		case *lua.LNilType:
			L.RaiseError("table index is nil")
		case lua.LNumber:
			if math.IsNaN(float64(kk)) {
				L.RaiseError("table index is NaN")
			}
		}
		t.RawSet(k, v)
	}
	return t, p, nil
}
