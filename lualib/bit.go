package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Bit is the LuaBitOp 1.0.2 library Redis bundles (bit.band & co.),
// on signed 32-bit integers.
func Bit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	fn := func(name string, f func(L *lua.LState, arg func(i int) uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			// barg: the number plus 2^52+2^51 keeps its rounded integer
			// in the low 32 bits of the double
			arg := func(i int) uint32 {
				f, ok := ToNumber(L.Get(i))
				b := uint32(math.Float64bits(f + 6755399441055744.0))
				if b == 0 && (!ok || i > L.GetTop()) {
					TypeError(L, i, name, "number")
				}
				return b
			}
			L.Push(lua.LNumber(int32(f(L, arg))))
			return 1
		}))
	}
	fold := func(op func(a, b uint32) uint32) func(L *lua.LState, arg func(int) uint32) uint32 {
		return func(L *lua.LState, arg func(int) uint32) uint32 {
			v := arg(1)
			for i := L.GetTop(); i > 1; i-- {
				v = op(v, arg(i))
			}
			return v
		}
	}
	shift := func(op func(a uint32, n uint) uint32) func(L *lua.LState, arg func(int) uint32) uint32 {
		return func(L *lua.LState, arg func(int) uint32) uint32 {
			b := arg(1)
			return op(b, uint(arg(2)&31))
		}
	}
	fn("tobit", func(L *lua.LState, arg func(int) uint32) uint32 { return arg(1) })
	fn("bnot", func(L *lua.LState, arg func(int) uint32) uint32 { return ^arg(1) })
	fn("band", fold(func(a, b uint32) uint32 { return a & b }))
	fn("bor", fold(func(a, b uint32) uint32 { return a | b }))
	fn("bxor", fold(func(a, b uint32) uint32 { return a ^ b }))
	fn("lshift", shift(func(a uint32, n uint) uint32 { return a << n }))
	fn("rshift", shift(func(a uint32, n uint) uint32 { return a >> n }))
	fn("arshift", shift(func(a uint32, n uint) uint32 { return uint32(int32(a) >> n) }))
	fn("rol", shift(func(a uint32, n uint) uint32 { return a<<n | a>>((32-n)&31) }))
	fn("ror", shift(func(a uint32, n uint) uint32 { return a>>n | a<<((32-n)&31) }))
	fn("bswap", func(L *lua.LState, arg func(int) uint32) uint32 {
		v := arg(1)
		return v>>24 | (v>>8)&0xff00 | (v&0xff00)<<8 | v<<24
	})
	t.RawSetString("tohex", L.NewFunction(func(L *lua.LState) int {
		arg := func(i int) uint32 {
			f, ok := ToNumber(L.Get(i))
			b := uint32(math.Float64bits(f + 6755399441055744.0))
			if b == 0 && (!ok || i > L.GetTop()) {
				TypeError(L, i, "tohex", "number")
			}
			return b
		}
		v := arg(1)
		n := int32(8)
		if L.GetTop() >= 2 {
			n = int32(arg(2))
		}
		digits := "0123456789abcdef"
		if n == math.MinInt32 {
			n++
		}
		if n < 0 {
			n = -n
			digits = "0123456789ABCDEF"
		}
		if n > 8 {
			n = 8
		}
		buf := make([]byte, n)
		for i := int(n) - 1; i >= 0; i-- {
			buf[i] = digits[v&15]
			v >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	}))
	return t
}
