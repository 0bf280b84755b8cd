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

// FixExp turns Go's exponent form (1e+21) into C's %.17g form (1e+21 too,
// but C pads the exponent to two digits: 1e+05).
func FixExp(b []byte) []byte {
	i := bytes.IndexByte(b, 'e')
	if i < 0 || len(b)-i-2 >= 2 {
		return b
	}
	out := append([]byte{}, b[:i+2]...)
	out = append(out, '0')
	return append(out, b[i+2:]...)
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
	return string(FixExp(strconv.AppendFloat(nil, f, 'g', 14, 64)))
}

// NumToInt mirrors C's (long long) cast on x86-64: out of range and NaN
// give LLONG_MIN.
func NumToInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}
