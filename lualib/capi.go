// Package lualib holds the C libraries Redis 7.0 bundles into its Lua 5.1
// (cjson, struct), rewritten over gopher-lua with their exact results and
// error messages, and the Lua 5.1 C API behaviour they and the scripting
// engine in package server rely on (luaL_argerror & co., lua_next order,
// number formatting, stack limits).
package lualib

import (
	"math"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/rstring"
	lua "github.com/yuin/gopher-lua"
)

// The libraries Redis bundles (cjson, cmsgpack, bit, struct, its math.random)
// are C functions: their errors follow the C API's rules, which differ from
// gopher-lua's RaiseError/ArgError. These helpers reproduce them.

// Where is luaL_where(L, 1) called from a C function: the position of
// its caller when that caller is Lua code ("user_script:3: "), nothing when
// it is another C function (pcall(cjson.encode, ...)).
func Where(L *lua.LState) string { return luaCWhereAt(L, 1) }

// luaCWhereAt is luaL_where(L, level).
func luaCWhereAt(L *lua.LState, level int) string {
	w := L.Where(level)
	if w == "" || strings.HasPrefix(w, "[G]") {
		return ""
	}
	return w + " "
}

// Error is luaL_error from a C function.
func Error(L *lua.LState, msg string) {
	L.Error(lua.LString(Where(L)+msg), 0)
}

// ArgError is luaL_argerror: the function is named as the call site
// would know it, '?' when it was not called from Lua code.
func ArgError(L *lua.LState, n int, fname, msg string) {
	if Where(L) == "" {
		fname = "?"
	}
	Error(L, "bad argument #"+strconv.Itoa(n)+" to '"+fname+"' ("+msg+")")
}

// luaCTypeName is luaL_typename: "no value" past the last argument.
func luaCTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// TypeError is luaL_typerror: "<want> expected, got <type>".
func TypeError(L *lua.LState, n int, fname, want string) {
	ArgError(L, n, fname, want+" expected, got "+luaCTypeName(L, n))
}

// ToNumber is lua_tonumber: numbers, and strings Lua 5.1 converts
// (luaO_str2d: strtod or a hex integer, surrounding spaces allowed).
func ToNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return luaStr2d(string(x))
	}
	return 0, false
}

func luaStr2d(s string) (float64, bool) {
	f, n := cStrtodPrefix(s)
	if n == 0 {
		return 0, false
	}
	rest := s[n:]
	if len(rest) > 0 && (rest[0] == 'x' || rest[0] == 'X') && f == 0 {
		// "0x1F": strtoul base 16 (cStrtod already takes hex floats)
		return 0, false
	}
	if strings.TrimLeft(rest, " \t\n\v\f\r") != "" {
		return 0, false
	}
	return f, true
}

// luaCCheckNumber is luaL_checknumber.
func luaCCheckNumber(L *lua.LState, n int, fname string) float64 {
	f, ok := ToNumber(L.Get(n))
	if !ok || n > L.GetTop() {
		TypeError(L, n, fname, "number")
	}
	return f
}

// CheckInt is luaL_checkint: the number truncated (C cast).
func CheckInt(L *lua.LState, n int, fname string) int64 {
	f := luaCCheckNumber(L, n, fname)
	return NumToInt(f)
}

// CheckString is luaL_checklstring: numbers are converted.
func CheckString(L *lua.LState, n int, fname string) string {
	switch x := L.Get(n).(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return FmtNumber(float64(x))
	}
	TypeError(L, n, fname, "string")
	return ""
}

// cStrtod parses the longest prefix of s that C's strtod accepts (C
// locale; leading spaces, sign, decimal or hex digits with exponent,
// inf/infinity, nan/nan(...)) and returns the value and the bytes used (0
// when nothing is a number).
func cStrtodPrefix(s string) (float64, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := strings.ToLower(s[i:min(len(s), i+8)])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return sign(math.Inf(1)), i + 8
	case strings.HasPrefix(rest, "inf"):
		return sign(math.Inf(1)), i + 3
	case strings.HasPrefix(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isAlnum(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return sign(math.NaN()), j
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		j := i + 2
		digits := 0
		for j < len(s) && rstring.IsHex(s[j]) {
			j++
			digits++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && rstring.IsHex(s[j]) {
				j++
				digits++
			}
		}
		if digits == 0 {
			return 0, i + 1 // "0x": only the 0
		}
		mant := s[i:j]
		if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && s[k] >= '0' && s[k] <= '9' {
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
				f, _ := strconv.ParseFloat(mant+s[j:k], 64)
				return sign(f), k
			}
		}
		f, _ := strconv.ParseFloat(mant+"p0", 64)
		return sign(f), j
	}
	j := i
	digits := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[i:j], 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return 0, 0
	}
	return sign(f), j
}

func isAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// Lua 5.1's stack limits, which gopher-lua does not have: a C function
// holds at most luaMaxCStack values (LUAI_MAXCSTACK: lua_checkstack
// refuses more), and calls nest as deep as a fresh Lua state's CallInfo
// array grows (16384 entries: growing it past LUAI_MAXCALLS is "stack
// overflow"; Redis's state then keeps the bigger array, and allows ~20000
// until SCRIPT FLUSH, which we do not mimic). MaxRegistry bounds
// gopher-lua's value stack, which grows on demand: enough for those limits
// in any real script.
const (
	luaMaxCStack   = 8000
	MaxCalls       = 16384
	CoroutineCalls = 1000
	MaxRegistry    = 1 << 20
	// RegistryGrowStep: gopher-lua grows its value stack by a fixed
	// step (copying it): big steps keep deep recursion linear
	RegistryGrowStep = 1 << 15
)

// CheckStack is luaL_checkstack for a C function holding used values
// (its arguments and what it pushed) that needs n more.
func CheckStack(L *lua.LState, used, n int, msg string) {
	if n > luaMaxCStack || used+n > luaMaxCStack {
		Error(L, "stack overflow ("+msg+")")
	}
}

// OptInt is luaL_optint: def when the argument is none or nil.
func OptInt(L *lua.LState, n int, fname string, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return CheckInt(L, n, fname)
}

// Unpack is Lua 5.1's unpack (luaB_unpack): the indexes are C ints,
// and more results than the stack takes is an error.
func Unpack(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		TypeError(L, 1, "unpack", "table")
	}
	i := int32(OptInt(L, 2, "unpack", 1))
	var e int32
	if L.Get(3) == lua.LNil {
		e = int32(t.Len())
	} else {
		e = int32(CheckInt(L, 3, "unpack"))
	}
	if i > e {
		return 0
	}
	n := e - i + 1 // overflows to <= 0 for huge ranges, as in C
	if n <= 0 || L.GetTop()+int(n) > luaMaxCStack {
		Error(L, "too many results to unpack")
	}
	for k := int64(i); k <= int64(e); k++ {
		L.Push(t.RawGetInt(int(k)))
	}
	return int(n)
}

// StrByte is Lua 5.1's string.byte (str_byte), whose slice must fit
// the stack.
func StrByte(L *lua.LState) int {
	s := CheckString(L, 1, "byte")
	posrelat := func(pos int64) int64 {
		if pos < 0 {
			pos += int64(len(s)) + 1
		}
		return max(pos, 0)
	}
	posi := posrelat(OptInt(L, 2, "byte", 1))
	pose := posrelat(OptInt(L, 3, "byte", posi))
	posi = max(posi, 1)
	pose = min(pose, int64(len(s)))
	if posi > pose {
		return 0
	}
	n := int(pose - posi + 1)
	CheckStack(L, L.GetTop(), n, "string slice too long")
	for _, c := range []byte(s[posi-1 : pose]) {
		L.Push(lua.LNumber(c))
	}
	return n
}

// ErrorFunc is Lua 5.1's error (luaB_error): a string or a number gets
// the position of the function level names (1: the caller).
func ErrorFunc(L *lua.LState) int {
	level := OptInt(L, 2, "error", 1)
	v := L.Get(1)
	if level > 0 {
		switch x := v.(type) {
		case lua.LString:
			v = lua.LString(luaCWhereAt(L, int(level)) + string(x))
		case lua.LNumber:
			v = lua.LString(luaCWhereAt(L, int(level)) + FmtNumber(float64(x)))
		}
	}
	L.Error(v, 0)
	return 0
}
