package scripting

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"math"
	"regexp"
	"strconv"
	"strings"

	seam "github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/lualib"
	lua "github.com/yuin/gopher-lua"
)

// luaEngine is a Lua interpreter (one state reused by all scripts: EVAL's
// is reset by SCRIPT FLUSH; the functions have one of their own) and, for
// EVAL, its cache of compiled scripts.
type luaEngine struct {
	srv   Server
	cl    Client // the client redis.call runs commands on
	sc    *Scripts
	L     *lua.LState
	funcs map[string]*lua.LFunction
	errh  *lua.LFunction
	// guard runs a script under PCall with errh: gopher-lua pushes the
	// handler without checking its stack, so on a full stack that panic
	// escapes PCall; guard runs under an outer PCall without a handler,
	// which contains it.
	guard *lua.LFunction
	// tramp runs pcall's and xpcall's function with onError as the error
	// hook (protectedCall)
	tramp   *lua.LFunction
	onError func(*lua.LState)
	env     *lua.LTable // the scripts' read-only view of the globals
	// noWrites: scripts whose shebang has flags=no-writes; allowOOMs:
	// flags=allow-oom; shebang: the script has one (it declares flags)
	noWrites, allowOOMs, shebang map[string]bool

	ro bool // the running script may not write
	// allowOOM: the running script's flags let it write past maxmemory;
	// startOOM: the server was out of memory when it started; dirty: it
	// already wrote (later writes are not refused halfway)
	allowOOM, startOOM, dirty bool
	// resp is the protocol the running script chose with redis.setresp
	// (its client speaks it; it decides how booleans are replied).
	resp int

	// source names the chunks in error locations: "@user_script" for
	// EVAL, "@user_function" for FCALL.
	source string
	// argv is the command running the script (MONITOR, FUNCTION STATS).
	argv [][]byte
	// protected maps the read-only proxies scripts see to the tables they
	// protect (rawget, pairs, ... read through them).
	protected map[*lua.LTable]func() *lua.LTable
	// callName/callCmd: the command redis.call looked up last, by the
	// name as the script spelled it (a loop calls the same one again)
	callName string
	callCmd  Command
}

const luaScriptSource = "@user_script"

// newLuaEngine makes an engine whose script client is client id (Redis
// creates the EVAL engine's client first, id 1, then the functions
// engine's, id 2: HELLO run by a script shows them).
func newLuaEngine(sc *Scripts, id int64) *luaEngine {
	e := &luaEngine{sc: sc, srv: sc.srv, cl: sc.srv.NewClient(id), funcs: map[string]*lua.LFunction{}, noWrites: map[string]bool{}, allowOOMs: map[string]bool{},
		shebang: map[string]bool{}, source: luaScriptSource}
	// Lua 5.1's call depth (gopher-lua's growing frame stack never reports
	// itself full: it panics, so the stack is a fixed one); coroutines,
	// created with L.Options, get a small one (80 bytes a frame)
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: lualib.MaxCalls,
		RegistryMaxSize: lualib.MaxRegistry, RegistryGrowStep: lualib.RegistryGrowStep})
	L.Options.CallStackSize = lualib.CoroutineCalls
	e.L = L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.Push(L.NewFunction(lua.OpenCoroutine))
	L.Push(lua.LString(lua.CoroutineLibName))
	L.Call(1, 0)
	g := L.G.Global
	// Redis 7.0's sandbox: no file access, no print, no environments
	for _, n := range []string{"dofile", "loadfile", "module", "require", "print", "getfenv", "setfenv",
		"newproxy", "_printregs", "package", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(n, lua.LNil)
	}
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	strLib := g.RawGetString("string").(*lua.LTable)
	strLib.RawSetString("byte", L.NewFunction(lualib.StrByte))
	strLib.RawSetString("format", L.NewFunction(lualib.StrFormat))
	strLib.RawSetString("dump", L.NewFunction(luaStringDump))
	// gopher-lua makes the string table its own metatable (it gets an
	// __index key scripts can see); Lua 5.1's strings have a metatable
	// of their own, {__index = string}
	strLib.RawSetString("__index", lua.LNil)
	strMeta := L.NewTable() // its __index is set below: the library's read-only view
	L.SetMetatable(lua.LString(""), strMeta)
	e.protected = map[*lua.LTable]func() *lua.LTable{}
	e.tableCompat(g.RawGetString("table").(*lua.LTable))
	g.RawSetString("loadstring", L.NewFunction(luaLoadString))
	g.RawSetString("load", L.NewFunction(e.luaLoad))
	mathLib := g.RawGetString("math").(*lua.LTable)
	mathLib.RawSetString("random", L.NewFunction(luaMathRandom))
	mathLib.RawSetString("randomseed", L.NewFunction(luaMathRandomseed))
	mathLib.RawSetString("mod", mathLib.RawGetString("fmod"))
	e.protected = map[*lua.LTable]func() *lua.LTable{}
	r := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return e.redisCall(L, true) },
		"pcall":              func(L *lua.LState) int { return e.redisCall(L, false) },
		"error_reply":        luaErrorReply,
		"status_reply":       luaStatusReply,
		"sha1hex":            luaSha1hex,
		"log":                e.luaLog,
		"setresp":            e.luaSetResp,
		"set_repl":           luaSetRepl,
		"acl_check_cmd":      e.aclCheckCmd,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
	}
	for n, f := range fns {
		r.RawSetString(n, L.NewFunction(f))
	}
	for n, v := range map[string]int{"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3} {
		r.RawSetString(n, lua.LNumber(v))
	}
	setRedisVersion(r, sc.version)
	g.RawSetString("redis", r)
	// pcall and xpcall run the function through e.tramp, whose error hook
	// words the error as Lua 5.1 while the raising frame is still there
	// (luaRuntimeMessage); pcall returns the message of an error table,
	// not the table.
	origPcall := g.RawGetString("pcall")
	e.initProtect()
	g.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			// Redis's pcall (luaRedisPcall) puts its result's place holder,
			// true, below the arguments: with none, it calls that
			L.Push(lua.LFalse)
			L.Push(lua.LString("attempt to call a boolean value"))
			return 2
		}
		if v := L.Get(1); v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
			// gopher-lua's answers: the argument error, or false and
			// "attempt to call a nil value"
			luaCallGo(L, origPcall)
		} else {
			e.protectedCall(L, lua.LNil)
		}
		if L.GetTop() >= 2 && L.Get(1) == lua.LFalse {
			switch v := L.Get(2).(type) {
			case *lua.LTable:
				if m, ok := v.RawGetString("err").(lua.LString); ok {
					L.Replace(2, m)
				}
			case lua.LString:
				// a message the handler did not see (its call failed)
				L.Replace(2, lua.LString(luaStdMessage(string(v))))
			}
		}
		return L.GetTop()
	}))
	origXpcall := g.RawGetString("xpcall")
	g.RawSetString("xpcall", L.NewFunction(func(L *lua.LState) int {
		f, fok := L.Get(1).(*lua.LFunction)
		h, hok := L.Get(2).(*lua.LFunction)
		if !fok || !hok {
			return luaCallGo(L, origXpcall)
		}
		L.SetTop(0) // f gets no arguments
		L.Push(f)
		return e.protectedCall(L, h)
	}))
	// tostring formats numbers as C Lua does (%.14g).
	origTostring := g.RawGetString("tostring")
	g.RawSetString("tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Push(lua.LString(lualib.FmtNumber(float64(n))))
			return 1
		}
		return luaCallGo(L, origTostring)
	}))
	// Scripts see the globals and the libraries read-only, as in Redis
	// 7.0: their environment is a proxy that refuses writes, and reading an
	// undefined global is an error.
	g.RawSetString("bit", lualib.Bit(L))
	g.RawSetString("cjson", lualib.CJSON(L))
	g.RawSetString("cmsgpack", lualib.Cmsgpack(L))
	g.RawSetString("struct", lualib.Struct(L))
	e.coroutineHook(g.RawGetString("coroutine").(*lua.LTable))
	e.libraryChecks(g)
	for _, lib := range []string{"redis", "string", "math", "table", "bit", "cjson", "cmsgpack", "struct", "coroutine"} {
		g.RawSetString(lib, e.readonlyProxy(g.RawGetString(lib).(*lua.LTable), false))
	}
	strMeta.RawSetString("__index", g.RawGetString("string")) // getmetatable('').__index == string
	e.env = e.readonlyProxy(g, true)
	g.RawSetString("_G", e.env)
	// chunks made by loadstring/load get L.Env: the read-only view too
	L.Env = e.env
	// error as Lua 5.1's: numbers get the position too, error() raises nil
	g.RawSetString("error", L.NewFunction(lualib.ErrorFunc))
	// unpack as Lua 5.1's: at most LUAI_MAXCSTACK results (gopher-lua's
	// pushes them all, past the end of its stack)
	g.RawSetString("unpack", L.NewFunction(lualib.Unpack))
	e.errh = L.NewFunction(func(L *lua.LState) int { return luaErrHandler(L, e.source) })
	e.guard = L.NewFunction(func(L *lua.LState) int {
		if err := L.PCall(L.GetTop()-1, 1, e.errh); err != nil {
			panic(err) // the outer PCall returns it as is
		}
		return 1
	})
	g.RawSetString("__redis__err__handler", e.errh)
	e.guardRawAccess(g)
	return e
}

// luaCallGo runs gopher-lua's Go function fn as the running function (in
// its frame, on its arguments), as a wrapper's delegate: its errors name
// the function as the Lua code called it (luaArgMessage), not '?'. A
// closure (pairs, ipairs read their upvalue) gets a frame of its own.
// Only its results are left on the stack; it returns their count.
func luaCallGo(L *lua.LState, fn lua.LValue) int {
	f := fn.(*lua.LFunction)
	if len(f.Upvalues) > 0 {
		L.Insert(f, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}
	k := f.GFunction(L)
	for extra := L.GetTop() - k; extra > 0; extra-- {
		L.Remove(1)
	}
	return k
}

// protectedCall is lua_pcall of the function on L's stack (the only
// values there: it and its arguments), h its error handler (xpcall's; nil
// for pcall): it leaves true and the results, or false and the error (the
// handler's value), and returns their count.
func (e *luaEngine) protectedCall(L *lua.LState, h lua.LValue) int {
	n := L.GetTop()
	L.Insert(h, 1)
	L.Insert(e.tramp, 1)
	if err := luaPCall(L, n+1, lua.MultRet, nil); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
			obj = ae.Object
		}
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// coroutineHook makes coroutine.create and coroutine.wrap start the
// function through a Lua closure that first sets the coroutine's L.Panic
// to a hook wording its errors as Lua 5.1 (as e.onError does, from the
// raising frame, still there when the hook runs): coroutine.resume
// returns the message after the coroutine's frames are gone. The closure
// tail-calls the function, so yields cross no Go call.
func (e *luaEngine) coroutineHook(co *lua.LTable) {
	L := e.L
	hook := func(L *lua.LState) {
		v := L.Get(-1)
		if s, ok := v.(lua.LString); ok && luaFrameLayoutOK {
			v = lua.LString(luaReword(L, luaCurrentFrame(L), luaRegTop(L)-1, string(s)))
		}
		panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v, StackTrace: "-"})
	}
	setHook := L.NewFunction(func(L *lua.LState) int {
		L.Panic = hook
		return 0
	})
	mk, err := L.Load(strings.NewReader("local set, f = ... return function(...) set() return f(...) end"), "=coroutine")
	if err != nil {
		panic(err) // a constant chunk
	}
	for _, name := range []string{"create", "wrap"} {
		orig := co.RawGetString(name)
		co.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			f, ok := L.Get(1).(*lua.LFunction)
			if !ok || f.IsG {
				L.ArgError(1, "Lua function expected") // luaB_cocreate's check
			}
			L.Push(mk)
			L.Push(setHook)
			L.Push(f)
			L.Call(2, 1)
			L.Replace(1, L.Get(-1))
			L.Pop(1)
			return luaCallGo(L, orig)
		}))
	}
}

// luaErrErr is an error raised by xpcall's handler: Lua 5.1 calls the
// handler again with it, until its C stack runs out (LUA_ERRERR).
func luaErrErr(L *lua.LState) {
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString("error in error handling"), StackTrace: "-"})
}

// initProtect makes protectedCall's trampoline and error hook. The
// trampoline (its stack: the handler, the function, its arguments) calls
// the function with onError as L.Panic, which gopher-lua calls as an error
// is raised, before anything unwinds (a PCall without a handler costs
// less than one with: no handler frame, no traceback):
//   - a message is worded as Lua 5.1's from the raising frame;
//   - the upvalues of the frames about to be unwound are closed (Lua's
//     luaD_pcall does it; gopher-lua's PCall does not, and a closure made
//     in the failed call read a register since reused);
//   - xpcall's handler is called with the message, its result the error
//     ("error in error handling" if it raises one).
//
// Nested PCalls install their own hook and restore this one; a wrapped
// coroutine's error reaches it with L the coroutine (its frames name the
// operand, the trampoline is in the resuming state's frames).
func (e *luaEngine) initProtect() {
	e.tramp = e.L.NewFunction(func(L *lua.LState) int {
		L.Panic = e.onError
		luaSetHasErrorFunc(L)
		L.Call(L.GetTop()-2, lua.MultRet)
		return L.GetTop() - 1
	})
	e.onError = func(L *lua.LState) {
		v := L.Get(-1)
		if !luaFrameLayoutOK {
			luaPlainPanic(L)
		}
		if s, ok := v.(lua.LString); ok {
			v = lua.LString(luaReword(L, luaCurrentFrame(L), luaRegTop(L)-1, string(s)))
		}
		for st := L; st != nil; st = st.Parent {
			for f := luaCurrentFrame(st); f != nil; f = luaFrameParent(f) {
				if luaFrameFn(f) != e.tramp {
					continue
				}
				lb := luaFrameLocalBase(f)
				luaCloseUpvalues(st, lb+1)
				var h lua.LValue
				if regs := luaRegisters(st); lb < len(regs) {
					h = regs[lb]
				}
				if h, ok := h.(*lua.LFunction); ok {
					st.Panic = luaErrErr
					st.Push(h)
					st.Push(v)
					st.Call(1, 1)
					v = st.Get(-1)
				}
				panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v, StackTrace: "-"})
			}
		}
		panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v, StackTrace: "-"})
	}
}

// guardRawAccess makes the functions that bypass metatables (rawset,
// rawget, next, pairs, setmetatable, getmetatable) see the protected
// tables as Redis's read-only tables: writes fail with "Attempt to modify
// a readonly table" (raised inside a C function: no position), reads see
// the real content.
func (e *luaEngine) guardRawAccess(g *lua.LTable) {
	L := e.L
	target := func(v lua.LValue) *lua.LTable {
		if t, ok := v.(*lua.LTable); ok {
			if f := e.protected[t]; f != nil {
				return f()
			}
		}
		return nil
	}
	refuse := func(L *lua.LState) { L.Error(lua.LString("Attempt to modify a readonly table"), 0) }
	wrap := func(name string, f func(L *lua.LState, orig lua.LValue) int) {
		orig := g.RawGetString(name)
		g.RawSetString(name, L.NewFunction(func(L *lua.LState) int { return f(L, orig) }))
	}
	callOrig := luaCallGo
	wrap("rawset", func(L *lua.LState, orig lua.LValue) int {
		if target(L.Get(1)) != nil {
			refuse(L)
		}
		return callOrig(L, orig)
	})
	wrap("setmetatable", func(L *lua.LState, orig lua.LValue) int {
		// luaB_setmetatable's checks (gopher-lua's sets builtin types'
		// metatables)
		if _, ok := L.Get(1).(*lua.LTable); !ok {
			lualib.TypeError(L, 1, "setmetatable", "table")
		}
		if t := L.Get(2).Type(); t != lua.LTNil && t != lua.LTTable || L.GetTop() < 2 {
			lualib.ArgError(L, 2, "setmetatable", "nil or table expected")
		}
		if target(L.Get(1)) != nil {
			refuse(L)
		}
		return callOrig(L, orig)
	})
	wrap("rawget", func(L *lua.LState, orig lua.LValue) int {
		if t := target(L.Get(1)); t != nil {
			L.Replace(1, t)
		}
		return callOrig(L, orig)
	})
	var next lua.LValue
	wrap("next", func(L *lua.LState, orig lua.LValue) int {
		if t := target(L.Get(1)); t != nil {
			L.Replace(1, t)
		}
		// luaH_next's refusal of a key the table does not hold (a C
		// function's luaG_runerror: no position)
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if k := L.Get(2); k != lua.LNil && t.RawGet(k) == lua.LNil {
				L.Error(lua.LString("invalid key to 'next'"), 0)
			}
		}
		return callOrig(L, orig)
	})
	next = g.RawGetString("next")
	wrap("pairs", func(L *lua.LState, orig lua.LValue) int {
		if t := target(L.Get(1)); t != nil {
			L.Push(next)
			L.Push(t)
			L.Push(lua.LNil)
			return 3
		}
		if L.Get(1).Type() != lua.LTTable {
			L.TypeError(1, lua.LTTable) // here: the caller names pairs
		}
		return callOrig(L, orig)
	})
	// getmetatable: the globals' metatable (its __index raising on unknown
	// names) and the strings' one are read-only; the libraries have none
	var strMt, globalsMt lua.LValue
	wrap("getmetatable", func(L *lua.LState, orig lua.LValue) int {
		switch v := L.Get(1).(type) {
		case lua.LString:
			if strMt == nil {
				if mt, ok := L.GetMetatable(v).(*lua.LTable); ok {
					strMt = e.readonlyProxy(mt, false)
				} else {
					strMt = lua.LNil
				}
			}
			L.Push(strMt)
			return 1
		case *lua.LTable:
			if v == e.env {
				if globalsMt == nil {
					mt := L.NewTable()
					// the function raising on a missing global: the
					// EVAL globals' own metatable holds it
					idx := e.env.Metatable.(*lua.LTable).RawGetString("__index")
					if t, ok := idx.(*lua.LTable); ok {
						idx = t.Metatable.(*lua.LTable).RawGetString("__index")
					}
					mt.RawSetString("__index", idx)
					globalsMt = e.readonlyProxy(mt, false)
				}
				L.Push(globalsMt)
				return 1
			}
			if target(v) != nil {
				L.Push(lua.LNil)
				return 1
			}
		}
		return callOrig(L, orig)
	})
}

// luaErrHandler turns any error into a table {err=..., source=..., line=...}
// naming the script line that raised it (Redis __redis__err__handler).
// readonlyProxy returns an empty table reading through to t whose writes
// fail; strict makes reading a missing key an error too (globals).
func (e *luaEngine) readonlyProxy(t *lua.LTable, strict bool) *lua.LTable {
	L := e.L
	p := L.NewTable()
	e.protected[p] = func() *lua.LTable { return t }
	mt := L.NewTable()
	// Reads go through the table __index natively (a Go __index function
	// would cost a call for each global a script reads: 19% of a loop of
	// redis.call). strict: a missing key reaches t's own metatable, which
	// raises as Redis's globals table does (luaSetErrorMetatable), for the
	// chunks loadstring makes too.
	mt.RawSetString("__index", t)
	if strict {
		tm := L.NewTable()
		tm.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
			return 0
		}))
		L.SetMetatable(t, tm)
	}
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(p, mt)
	return p
}

func luaErrHandler(L *lua.LState, source string) int {
	ev := L.Get(1)
	t, ok := ev.(*lua.LTable)
	if !ok {
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+luaRuntimeMessage(L, lua.LVAsString(ev))))
		if _, isStr := ev.(lua.LString); !isStr {
			if _, isNum := ev.(lua.LNumber); !isNum {
				t.RawSetString("err", lua.LString("ERR "+ev.String()))
			}
		}
	}
	for lvl := 1; ; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			break
		}
		fn, _ := L.GetInfo("Slf", dbg, lua.LNil)
		if f, isF := fn.(*lua.LFunction); isF && f.IsG {
			continue
		}
		src := source
		if f, isF := fn.(*lua.LFunction); isF && f.Proto != nil {
			// a chunk loadstring made from a short one-line text: Lua's
			// source is that text (the chunk's name, here its chunkid)
			if x, ok := strings.CutPrefix(f.Proto.SourceName, `[string "`); ok && !strings.HasSuffix(x, `..."]`) {
				src, _ = strings.CutSuffix(x, `"]`)
			}
		}
		t.RawSetString("source", lua.LString(src))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
		break
	}
	L.Push(t)
	return 1
}

// compile loads body into the cache under sha; it returns the error reply
// text on failure.
func (e *luaEngine) compile(sha string, body []byte) string {
	noWrites, allowOOM := false, false
	if bytes.HasPrefix(body, []byte("#!")) {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			return "ERR Invalid script shebang"
		}
		line := body[:i]
		parts := strings.Fields(string(line))
		if len(parts) == 0 || parts[0] != "#!lua" {
			eng := string(line)
			if len(parts) > 0 {
				eng = parts[0]
			}
			return "ERR Unexpected engine in script shebang: " + eng
		}
		for _, p := range parts[1:] {
			fl, ok := strings.CutPrefix(p, "flags=")
			if !ok {
				return "ERR Unknown lua shebang option: " + p
			}
			for _, f := range strings.Split(fl, ",") {
				switch f {
				case "no-writes":
					noWrites = true
				case "allow-oom":
					allowOOM = true
				case "allow-stale", "no-cluster", "allow-cross-slot-keys", "":
				default:
					return "ERR Unexpected flag in script shebang: " + f
				}
			}
		}
		// keep the line numbers: the shebang becomes a comment
		body = append([]byte("--"), body...)
	}
	fn, err := luaCompile(e.L, bytes.NewReader(body), "user_script")
	if err != nil {
		return "ERR Error compiling script (new function): " + luaSyntaxMessage(err, "user_script", body)
	}
	fn.Env = e.env
	e.funcs[sha] = fn
	e.shebang[sha] = bytes.HasPrefix(body, []byte("--#!"))
	e.allowOOMs[sha] = allowOOM
	if noWrites {
		e.noWrites[sha] = true
	} else {
		delete(e.noWrites, sha)
	}
	return ""
}

// luaStdMessage words a gopher-lua runtime error as Lua 5.1 does, without
// the operand's name (luaRuntimeMessage adds it when it can).
func luaStdMessage(msg string) string {
	if m, ok := strings.CutSuffix(msg, "registry overflow"); ok {
		// gopher-lua's value stack is bounded, Lua 5.1's grows: its
		// limit is the call depth, "stack overflow"
		return m + "stack overflow"
	}
	if m := luaCompareErr.FindStringSubmatchIndex(msg); m != nil {
		// luaG_ordererror: "two" when the type names' third letters match
		t1, t2 := msg[m[2]:m[3]], msg[m[4]:m[5]]
		if len(t1) > 2 && len(t2) > 2 && t1[2] == t2[2] {
			return msg[:m[0]] + "attempt to compare two " + t1 + " values"
		}
		return msg
	}
	if m := luaIndexTypeErr.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + "attempt to index a " + msg[m[2]:m[3]] + " value"
	}
	if m, ok := strings.CutSuffix(msg, " in table for concat"); ok {
		return m + " in table for 'concat'"
	}
	if strings.HasSuffix(msg, "can not yield from outside of a coroutine") {
		return "attempt to yield across metamethod/C-call boundary"
	}
	for _, f := range luaForErrs {
		if m, ok := strings.CutSuffix(msg, f[0]); ok {
			return m + f[1]
		}
	}
	return luaOperandMessage(msg)
}

var (
	luaCompareErr   = regexp.MustCompile(`attempt to compare (\w+) with (\w+)$`)
	luaIndexTypeErr = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '(?s:.*)'$`)
	// lvm.c OP_FORPREP's messages for gopher-lua's
	luaForErrs = [][2]string{
		{"for statement init must be a number", "'for' initial value must be a number"},
		{"for statement limit must be a number", "'for' limit must be a number"},
		{"for statement step must be a number", "'for' step must be a number"},
	}
)

// luaErrPosition is the position luaL_error puts before a message
// raised in a script.
var luaErrPosition = regexp.MustCompile(`^user_(?:script|function):(\d+): `)

// run runs the cached script sha for EVAL (argv) and replies its result.
func (e *luaEngine) run(c Caller, sha string, argv, keys, args [][]byte, ro bool) {
	// a script declaring flags is judged by them first (scriptPrepareForRun)
	if e.shebang[sha] && !e.noWrites[sha] {
		if msg := e.writeRefusal(ro); msg != "" {
			c.Err(msg)
			return
		}
		if !e.allowOOMs[sha] && e.srv.StartOOM(c) {
			c.Err("OOM command not allowed when used memory > 'maxmemory'.")
			return
		}
	}
	e.ro = ro || e.noWrites[sha]
	// without a shebang, scripts may write past maxmemory only if they
	// are already writing (Redis's compatibility mode)
	e.allowOOM = e.shebang[sha] && (e.allowOOMs[sha] || e.noWrites[sha])
	g := e.L.G.Global
	g.RawSetString("KEYS", bytesTable(e.L, keys))
	g.RawSetString("ARGV", bytesTable(e.L, args))
	e.argv = argv
	e.exec(c, e.funcs[sha], sha, true)
	e.argv = nil
}

// writeRefusal is scriptPrepareForRun's refusal of a script that may
// write (it declares flags, without no-writes), in Redis's order: a disk
// error, a read-only command (*_RO), too few good replicas.
func (e *luaEngine) writeRefusal(ro bool) string {
	if msg := e.srv.WriteRefusal(); msg != "" {
		return msg
	}
	if ro {
		return "ERR Can not execute a script with write flag using *_ro command."
	}
	if e.srv.NoReplicas() {
		return "NOREPLICAS Not enough good replicas to write."
	}
	return ""
}

// exec calls fn with the arguments already pushed after it (none for
// EVAL, KEYS and ARGV for a function) and replies its result; name is what
// error messages call the script (its sha or the function name).
func (e *luaEngine) exec(c Caller, fn *lua.LFunction, name string, isEval bool, fargs ...lua.LValue) {
	L := e.L
	e.cl.Prepare(c)
	defer e.cl.Release()
	e.resp = 2
	e.dirty = false
	e.startOOM = e.srv.StartOOM(c)
	defer L.SetTop(0)
	if ctx := e.srv.Start(c, e.argv, name, isEval); ctx != nil {
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	defer e.srv.End()
	L.Push(e.guard)
	L.Push(fn)
	for _, a := range fargs {
		L.Push(a)
	}
	if err := L.PCall(1+len(fargs), 1, nil); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
			obj = ae.Object
		}
		if msg, ok := obj.(lua.LString); ok {
			// the handler had no stack left to run on (stack overflow):
			// its table, from the position the message starts with
			if m := luaErrPosition.FindStringSubmatch(string(msg)); m != nil {
				t := L.NewTable()
				t.RawSetString("err", lua.LString("ERR "+luaStdMessage(string(msg))))
				t.RawSetString("source", lua.LString(e.source))
				t.RawSetString("line", lua.LString(m[1]))
				obj = t
			}
		}
		if e.srv.Killed() {
			// SCRIPT KILL / FUNCTION KILL cancelled the VM: Redis's message
			// at the line the script was running.
			t, _ := obj.(*lua.LTable)
			if t == nil {
				t = L.NewTable()
			}
			t.RawSetString("err", lua.LString("ERR Script killed by user with SCRIPT KILL..."))
			t.RawSetString("ignore_error_stats_update", lua.LFalse)
			obj = t
		}
		if t, ok := obj.(*lua.LTable); ok {
			msg := lua.LVAsString(t.RawGetString("err"))
			if line := t.RawGetString("line"); line != lua.LNil {
				msg += " script: " + name + ", on " + lua.LVAsString(t.RawGetString("source")) + ":" + lua.LVAsString(line) + "."
			}
			if t.RawGetString("ignore_error_stats_update") == lua.LTrue {
				c.ErrCounted(msg)
			} else {
				c.Err(msg)
			}
			return
		}
		msg := lua.LVAsString(obj)
		c.Err("ERR Error running script " + name + ", " + msg[:min(len(msg), 100)]) // "%.*s"
		return
	}
	luaToReply(c, e.resp, L.Get(-1), 0)
}

func bytesTable(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, b := range items {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// luaError builds Redis's error table from a reply or message (Redis
// luaPushError): "-CODE msg" loses the dash, "-word" without a space and a
// message without a dash get the ERR code.
func luaErrorTable(L *lua.LState, msg string) *lua.LTable {
	if strings.HasPrefix(msg, "-") {
		msg = msg[1:]
		if !strings.Contains(msg, " ") {
			msg = "ERR " + msg
		}
	} else {
		msg = "ERR " + msg
	}
	msg = strings.TrimRight(msg, "\r\n")
	t := L.NewTable()
	t.RawSetString("err", lua.LString(msg))
	return t
}

// redisCall implements redis.call (raise) and redis.pcall.
func (e *luaEngine) redisCall(L *lua.LState, raise bool) int {
	fail := func(t *lua.LTable) int {
		if raise {
			L.Error(t, 0)
			return 0
		}
		L.Push(t)
		return 1
	}
	n := L.GetTop()
	if n == 0 {
		return fail(luaErrorTable(L, "Please specify at least one argument for this redis lib call"))
	}
	// The arguments' bytes go to one buffer (a fresh one: commands may
	// keep argv, as in their propagated form); %.17g is at most 24 bytes.
	size := 0
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += 24
		default:
			return fail(luaErrorTable(L, "Lua redis lib command arguments must be strings or integers"))
		}
	}
	argv := make([][]byte, n)
	buf := make([]byte, 0, size)
	for i := 1; i <= n; i++ {
		start := len(buf)
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			buf = lualib.AppendFloatG(buf, float64(v), 17)
		}
		argv[i-1] = buf[start:len(buf):len(buf)]
	}
	h, cl := e.srv, e.cl
	var cmd Command
	if name, _ := L.Get(1).(lua.LString); e.callCmd != nil && string(name) == e.callName {
		cmd = e.callCmd
	} else {
		var cacheable bool
		if cmd, cacheable = h.Lookup(argv); cmd != nil && cacheable {
			e.callName, e.callCmd = string(name), cmd
		}
	}
	// scriptCall's refusals: counted in the error stats (and the command's
	// rejected_calls) now, not again if the script returns the error
	reject := func(msg string) int {
		t := luaErrorTable(L, msg)
		h.Refused(cmd, string(t.RawGetString("err").(lua.LString)))
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return fail(t)
	}
	if cmd == nil {
		return reject("Unknown Redis command called from script")
	}
	if !cmd.ArityOK(len(argv)) {
		return reject("Wrong number of args calling Redis command from script")
	}
	flags := cmd.Flags()
	if flags&seam.FlagNoScript != 0 && !e.sc.denyScriptsOff {
		return reject("This Redis command is not allowed from script")
	}
	// scriptVerifyACL: the commands run as the caller's user
	if msg := cl.ACLDenial(cmd, argv); msg != "" {
		return reject(msg)
	}
	// may-replicate commands (PUBLISH, ...) count as writes for a read-only
	// script (Redis scriptVerifyWriteCommandAllow)
	if e.ro && flags&(seam.FlagWrite|seam.FlagMayReplicate) != 0 {
		return reject("Write commands are not allowed from read-only scripts.")
	}
	// once the script wrote, it is not stopped halfway by the server state
	if flags&seam.FlagWrite != 0 && !e.dirty {
		if msg := h.WriteRefusal(); msg != "" {
			return reject("-" + msg)
		}
		if h.NoReplicas() {
			return reject("-NOREPLICAS Not enough good replicas to write.")
		}
	}
	if flags&seam.FlagDenyOOM != 0 && !e.allowOOM && !e.dirty && e.startOOM {
		return reject("-OOM command not allowed when used memory > 'maxmemory'.")
	}
	if flags&seam.FlagWrite != 0 {
		e.dirty = true
		h.Wrote() // from now on SCRIPT KILL refuses (UNKILLABLE)
	}
	out := cl.Call(cmd, argv)
	if len(out) > 0 && (out[0] != '-' || !raise) && luaResultDiscarded(L) {
		// nobody sees the reply: a statement, not an error to raise
		return 0
	}
	v, _, isErr := respToLua(L, out)
	if isErr {
		// the command already counted its error in the stats
		v.(*lua.LTable).RawSetString("ignore_error_stats_update", lua.LTrue)
	}
	if isErr && raise {
		L.Error(v, 0)
		return 0
	}
	L.Push(v)
	return 1
}

// respToLua converts one RESP2 or RESP3 reply into a Lua value (Redis
// redisProtocolToLuaType); isErr reports an error reply. Tables are sized
// for what they hold: L.NewTable reserves 32 array and 32 hash slots, and
// that allocation per {ok=...} reply made redis.call('ping') in a loop 4x
// slower (1.5M calls: 6.8 s -> 1.7 s; Redis 0.43 s).
func respToLua(L *lua.LState, b []byte) (v lua.LValue, rest []byte, isErr bool) {
	if len(b) == 0 {
		return lua.LFalse, b, false
	}
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return lua.LFalse, nil, false
	}
	line, rest := b[1:i], b[i+2:]
	switch b[0] {
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return lua.LNumber(n), rest, false
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", luaStatusText(line))
		return t, rest, false
	case '-':
		t := L.CreateTable(0, 1)
		t.RawSetString("err", lua.LString(line))
		return t, rest, true
	case '$':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest, false
		}
		return lua.LString(rest[:n]), rest[n+2:], false
	case '=':
		// verbatim string: {verbatim_string={format=..., string=...}}
		n, _ := strconv.Atoi(string(line))
		body := rest[:n]
		vt := L.CreateTable(0, 1)
		vt.RawSetString("string", lua.LString(body[4:]))
		vt.RawSetString("format", lua.LString(body[:3]))
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", vt)
		return t, rest[n+2:], false
	case '*':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest, false
		}
		t := L.CreateTable(n, 0)
		for j := 1; j <= n; j++ {
			var el lua.LValue
			el, rest, _ = respToLua(L, rest)
			t.RawSetInt(j, el)
		}
		return t, rest, false
	case '%':
		n, _ := strconv.Atoi(string(line))
		m := L.CreateTable(0, n)
		for j := 0; j < n; j++ {
			var k, el lua.LValue
			k, rest, _ = respToLua(L, rest)
			el, rest, _ = respToLua(L, rest)
			if k != lua.LNil {
				L.RawSet(m, k, el)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("map", m)
		return t, rest, false
	case '~':
		n, _ := strconv.Atoi(string(line))
		m := L.CreateTable(0, n)
		for j := 0; j < n; j++ {
			var k lua.LValue
			k, rest, _ = respToLua(L, rest)
			if k != lua.LNil {
				L.RawSet(m, k, lua.LTrue)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("set", m)
		return t, rest, false
	case '|':
		// attributes are not shown to scripts: skip them, read the reply
		n, _ := strconv.Atoi(string(line))
		for j := 0; j < 2*n; j++ {
			_, rest, _ = respToLua(L, rest)
		}
		return respToLua(L, rest)
	case '_':
		return lua.LNil, rest, false
	case '#':
		return lua.LBool(len(line) == 1 && line[0] == 't'), rest, false
	case ',':
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(parseRESPDouble(line)))
		return t, rest, false
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest, false
	}
	return lua.LFalse, nil, false
}

// The common status replies as ready Lua values: converting the reply
// text to a string and boxing it cost two allocations per redis.call.
var (
	luaStatusOK     lua.LValue = lua.LString("OK")
	luaStatusPONG   lua.LValue = lua.LString("PONG")
	luaStatusQUEUED lua.LValue = lua.LString("QUEUED")
)

func luaStatusText(line []byte) lua.LValue {
	switch string(line) { // no allocation: compared in place
	case "OK":
		return luaStatusOK
	case "PONG":
		return luaStatusPONG
	case "QUEUED":
		return luaStatusQUEUED
	}
	return lua.LString(line)
}

// parseRESPDouble reads the text of a RESP3 double ("inf", "-inf", "nan"
// included).
func parseRESPDouble(b []byte) float64 {
	switch string(b) {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan", "-nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

// luaToReply writes a Lua value as a reply (Redis luaReplyToRedisReply);
// scriptResp is the protocol the script chose with redis.setresp (it
// decides how booleans are replied).
func luaToReply(c Caller, scriptResp int, v lua.LValue, depth int) {
	if depth >= luaMaxReplyDepth {
		c.Err("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
		c.Bulk([]byte(string(x)))
	case lua.LBool:
		switch {
		case scriptResp == 3:
			c.Boolean(bool(x))
		case bool(x):
			c.Integer(1)
		default:
			c.Null()
		}
	case lua.LNumber:
		c.Integer(lualib.NumToInt(float64(x)))
	case *lua.LTable:
		if e, ok := x.RawGetString("err").(lua.LString); ok {
			if x.RawGetString("ignore_error_stats_update") == lua.LTrue {
				c.ErrCounted(string(e))
			} else {
				c.Err(string(e))
			}
			return
		}
		if ok, isStr := x.RawGetString("ok").(lua.LString); isStr {
			c.Status(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(ok)))
			return
		}
		if d, ok := x.RawGetString("double").(lua.LNumber); ok {
			c.Double(float64(d))
			return
		}
		if bn, ok := x.RawGetString("big_number").(lua.LString); ok {
			c.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(bn)))
			return
		}
		if vt, ok := x.RawGetString("verbatim_string").(*lua.LTable); ok {
			f, fok := vt.RawGetString("format").(lua.LString)
			str, sok := vt.RawGetString("string").(lua.LString)
			if fok && sok {
				format := string(f)
				if len(format) > 3 {
					format = format[:3]
				}
				c.Verbatim(format, []byte(string(str)))
				return
			}
		}
		// a map's or set's length is known before its elements are
		// written: every pair (member) makes one reply, an error included
		if m, ok := x.RawGetString("map").(*lua.LTable); ok {
			kvs := lualib.NextOrder(m)
			c.MapLen(len(kvs))
			for _, kv := range kvs {
				luaToReply(c, scriptResp, kv[0], depth+1)
				luaToReply(c, scriptResp, kv[1], depth+1)
			}
			return
		}
		if m, ok := x.RawGetString("set").(*lua.LTable); ok {
			kvs := lualib.NextOrder(m)
			c.SetLen(len(kvs))
			for _, kv := range kvs {
				luaToReply(c, scriptResp, kv[0], depth+1)
			}
			return
		}
		n := 0
		for x.RawGetInt(n+1) != lua.LNil {
			n++
		}
		c.ArrayLen(n)
		for j := 1; j <= n; j++ {
			luaToReply(c, scriptResp, x.RawGetInt(j), depth+1)
		}
	default:
		c.Null()
	}
}

// luaMaxReplyDepth is where Redis's conversion runs out of Lua stack
// (lua_checkstack fails) on a self-referencing table.
const luaMaxReplyDepth = 7995

// luaSetRepl validates redis.set_repl's flags (scripts' effects are
// always propagated here: there are no replicas, and the AOF gets them all).
func luaSetRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(luaErrorTable(L, "redis.set_repl() requires two arguments."), 0)
	}
	f, _ := lualib.ToNumber(L.Get(1))
	if int64(f)&^3 != 0 {
		L.Error(luaErrorTable(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."), 0)
	}
	return 0
}

// aclCheckCmd is redis.acl_check_cmd: whether the caller's user may run
// the command given.
func (e *luaEngine) aclCheckCmd(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		L.Error(luaErrorTable(L, "Please specify at least one argument for this redis lib call"), 0)
	}
	argv := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			argv[i-1] = []byte(string(v))
		case lua.LNumber:
			argv[i-1] = lualib.AppendFloatG(nil, float64(v), 17)
		default:
			L.Error(luaErrorTable(L, "Lua redis lib command arguments must be strings or integers"), 0)
		}
	}
	cmd, _ := e.srv.Lookup(argv)
	if cmd == nil {
		L.Error(luaErrorTable(L, "Invalid command passed to redis.acl_check_cmd()"), 0)
	}
	// no arity check, as Redis: the key extraction copes with a short argv
	L.Push(lua.LBool(e.cl.ACLAllowed(cmd, argv)))
	return 1
}

func luaErrorReply(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(luaErrorTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := L.ToString(1)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(luaErrorTable(L, msg))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(luaErrorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.NewTable()
	t.RawSetString("ok", L.Get(1))
	L.Push(t)
	return 1
}

func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(lua.LString("wrong number of arguments"), 0)
		return 0
	}
	h := sha1.Sum([]byte(L.ToString(1)))
	L.Push(lua.LString(hex.EncodeToString(h[:])))
	return 1
}

func (e *luaEngine) luaSetResp(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(lua.LString("redis.setresp() requires one argument."), 0)
		return 0
	}
	v, ok := L.Get(1).(lua.LNumber)
	if !ok || (v != 2 && v != 3) {
		L.Error(lua.LString("RESP version must be 2 or 3."), 0)
		return 0
	}
	e.resp = int(v)
	e.cl.SetRESP(e.resp)
	return 0
}

func (e *luaEngine) luaLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		L.Error(lua.LString("redis.log() requires two arguments or more."), 0)
		return 0
	}
	lv, ok := L.Get(1).(lua.LNumber)
	if !ok {
		L.Error(lua.LString("First argument must be a number (log level)."), 0)
		return 0
	}
	if lv < 0 || lv > 3 {
		L.Error(lua.LString("Invalid debug level."), 0)
		return 0
	}
	parts := make([]string, 0, n-1)
	for i := 2; i <= n; i++ {
		parts = append(parts, L.ToString(i))
	}
	e.srv.Log(int(lv), strings.Join(parts, " "))
	return 0
}

// luaMathRandom and luaMathRandomseed are Redis's math.random and
// math.randomseed (Lua's, on redisLrand48).
func luaMathRandom(L *lua.LState) int {
	scriptRand.Lock()
	r := float64(scriptRand.r.next()%rand48Max) / rand48Max
	scriptRand.Unlock()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := int32(lualib.CheckInt(L, 1, "random"))
		if u < 1 {
			lualib.ArgError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := int32(lualib.CheckInt(L, 1, "random"))
		u := int32(lualib.CheckInt(L, 2, "random"))
		if l > u {
			lualib.ArgError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(int64(u)-int64(l)+1)) + float64(l)))
	default:
		lualib.Error(L, "wrong number of arguments")
	}
	return 1
}

func luaMathRandomseed(L *lua.LState) int {
	seed := int32(lualib.CheckInt(L, 1, "randomseed"))
	scriptRand.Lock()
	scriptRand.r.seed(seed)
	scriptRand.Unlock()
	return 0
}
