package lualib

import (
	"bytes"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// NextOrder lists a table's pairs in the order Redis's Lua walks them
// with lua_next: gopher-lua's Next gives insertion order, which for string
// keys is replayed through Lua 5.1's hash placement (lua51HashOrder).
func NextOrder(t *lua.LTable) [][2]lua.LValue {
	var kvs [][2]lua.LValue
	allStrings := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		kvs = append(kvs, [2]lua.LValue{k, v})
		if _, ok := k.(lua.LString); !ok {
			allStrings = false
		}
	}
	if !allStrings || len(kvs) < 2 {
		return kvs
	}
	keys := make([]string, len(kvs))
	for i, kv := range kvs {
		keys[i] = string(kv[0].(lua.LString))
	}
	out := make([][2]lua.LValue, 0, len(kvs))
	for _, i := range lua51HashOrder(keys) {
		out = append(out, kvs[i])
	}
	return out
}

// AppendFloatG appends f as C's %.<prec>g: Go's 'g' form, with the
// exponent padded to two digits as C pads it (1e+05), should Go's ever
// have one only. It changes only the bytes it appends (dst may hold
// text with an 'e' already) and allocates only if dst must grow.
func AppendFloatG(dst []byte, f float64, prec int) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', prec, 64)
	i := bytes.IndexByte(dst[start:], 'e')
	if i < 0 || len(dst)-start-i-2 >= 2 {
		return dst
	}
	i += start + 2 // the exponent's first digit
	dst = append(dst, 0)
	copy(dst[i+1:], dst[i:])
	dst[i] = '0'
	return dst
}

// FmtNumber is C Lua 5.1's number to string conversion ("%.14g").
func FmtNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return string(AppendFloatG(nil, f, 14))
}

// NumToInt mirrors C's (long long) cast on x86-64: out of range and NaN
// give LLONG_MIN.
func NumToInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}
