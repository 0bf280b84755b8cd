package scripting

import (
	"github.com/aofserver/aofserver/lualib"
	lua "github.com/yuin/gopher-lua"
)

// libraryChecks gives gopher-lua library functions Lua 5.1's argument
// checks and messages where they differ (lbaselib.c, lmathlib.c,
// lstrlib.c, ltablib.c); their errors are raised through gopher-lua's
// ArgError/TypeError, which luaRuntimeMessage words as luaL_argerror with
// the name the caller used. g holds the libraries, not yet protected.
func (e *luaEngine) libraryChecks(g *lua.LTable) {
	L := e.L
	pre := func(lib *lua.LTable, name string, check func(L *lua.LState)) {
		orig := lib.RawGetString(name)
		lib.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			check(L)
			return luaCallGo(L, orig)
		}))
	}
	number := func(L *lua.LState, n int) float64 { // luaL_checknumber
		f, ok := lualib.ToNumber(L.Get(n))
		if !ok {
			L.TypeError(n, lua.LTNumber)
		}
		return f
	}
	math := g.RawGetString("math").(*lua.LTable)
	for _, name := range []string{"max", "min"} {
		pre(math, name, func(L *lua.LState) { number(L, 1) })
	}
	pre(g, "assert", func(L *lua.LState) {
		if L.GetTop() == 0 {
			L.ArgError(1, "value expected")
		}
	})
	pre(g, "tonumber", func(L *lua.LState) {
		if b := L.Get(2); b != lua.LNil {
			if base := int(number(L, 2)); base != 10 && (base < 2 || base > 36) {
				L.ArgError(2, "base out of range")
			}
		}
	})
	// select: a string starting with '#' counts, any other index is an
	// integer (numeric strings too)
	g.RawSetString("select", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
			L.Push(lua.LNumber(n - 1))
			return 1
		}
		i := int(number(L, 1))
		if i < 0 {
			i = n + i
		} else if i > n {
			i = n
		}
		if i < 1 {
			L.ArgError(1, "index out of range")
		}
		return n - i
	}))
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("char", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		b := make([]byte, n)
		for i := 1; i <= n; i++ {
			c := int(number(L, i))
			if c < 0 || c > 255 {
				L.ArgError(i, "invalid value")
			}
			b[i-1] = byte(c)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	pre(str, "gsub", func(L *lua.LState) {
		switch v := L.Get(3).(type) {
		case lua.LNumber: // gopher-lua's wants a string: the number's text
			L.Replace(3, lua.LString(lualib.FmtNumber(float64(v))))
		case lua.LString:
		case *lua.LFunction, *lua.LTable:
			// add_value: the replacement must be a string or a number
			// (its %.14g text), nil or false keep the match
			where := lualib.Where(L)
			repl := v
			L.Replace(3, L.NewFunction(func(L *lua.LState) int {
				var r lua.LValue
				if t, ok := repl.(*lua.LTable); ok {
					r = L.GetTable(t, L.Get(1)) // the first capture
				} else {
					n := L.GetTop()
					L.Push(repl)
					for i := 1; i <= n; i++ {
						L.Push(L.Get(i))
					}
					L.Call(n, 1)
					r = L.Get(-1)
				}
				switch x := r.(type) {
				case lua.LString:
					L.Push(x)
				case lua.LNumber:
					L.Push(lua.LString(lualib.FmtNumber(float64(x))))
				default:
					if lua.LVIsFalse(r) {
						L.Push(lua.LFalse)
						break
					}
					L.Error(lua.LString(where+"invalid replacement value (a "+r.Type().String()+")"), 0)
				}
				return 1
			}))
		default:
			if L.GetTop() >= 2 { // the string and pattern are checked first
				L.ArgError(3, "string/function/table expected")
			}
		}
	})
	tab := g.RawGetString("table").(*lua.LTable)
	pre(tab, "insert", func(L *lua.LState) {
		if _, ok := L.Get(1).(*lua.LTable); !ok {
			L.TypeError(1, lua.LTTable)
		}
		if n := L.GetTop(); n != 2 && n != 3 {
			lualib.Error(L, "wrong number of arguments to 'insert'")
		}
	})
	co := g.RawGetString("coroutine").(*lua.LTable)
	for _, name := range []string{"resume", "status"} {
		pre(co, name, func(L *lua.LState) {
			if _, ok := L.Get(1).(*lua.LState); !ok {
				L.ArgError(1, "coroutine expected")
			}
		})
	}
}
