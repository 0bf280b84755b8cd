package scripting

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/lualib"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Lua 5.1's chunk loading as Redis 7.0 builds it: loadstring and load
// compile source text only (Redis's Lua refuses precompiled chunks: a
// binary chunk is lexed as text, so it fails on its first byte, ESC, with
// "unexpected symbol near 'char(27)'"), and report syntax errors in the C
// parser's form, positioned on the chunk's name.

// Lua 5.1's limits on a chunk name in messages: MAXSRC (llex.c) for
// syntax errors, LUA_IDSIZE for runtime positions.
const (
	luaMaxSrc = 80
	luaIDSize = 60
)

// luaChunkID is Lua 5.1's luaO_chunkid: how messages name a chunk whose
// name is src ("=name" as is, "@file" as a file name, else the text's
// first line as [string "..."]), within bufflen bytes.
func luaChunkID(src string, bufflen int) string {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i] // a C string
	}
	if strings.HasPrefix(src, "=") {
		src = src[1:]
		if len(src) > bufflen-1 {
			src = src[:bufflen-1]
		}
		return src
	}
	if f, ok := strings.CutPrefix(src, "@"); ok {
		bufflen -= len(" '...' ") + 1
		if len(f) > bufflen {
			return "..." + f[len(f)-bufflen:]
		}
		return f
	}
	n := strings.IndexAny(src, "\n\r")
	if n < 0 {
		n = len(src)
	}
	if max := bufflen - (len(` [string "..."] `) + 1); n > max {
		n = max
	}
	if n < len(src) {
		return `[string "` + src[:n] + `..."]`
	}
	return `[string "` + src + `"]`
}

// luaSyntaxMessage words a gopher-lua compile error as the C Lua 5.1
// parser does ("user_script:1: unexpected symbol near '<eof>'"): name is
// the chunk's name in messages, body its text.
func luaSyntaxMessage(err error, name string, body []byte) string {
	var pe *parse.Error
	if ae, ok := err.(*lua.ApiError); ok {
		pe, _ = ae.Cause.(*parse.Error)
		if pe == nil && ae.Object != nil {
			return strings.TrimSpace(lua.LVAsString(ae.Object))
		}
	}
	if pe == nil {
		return strings.TrimSpace(err.Error())
	}
	what := pe.Message
	switch {
	case what == "parse error":
		// gopher-lua's grammar takes an expression statement that is not
		// a call for an error; Lua's parser reads it as the start of an
		// assignment, and wants its '='
		what = "'=' expected"
	case what == "unterminated string":
		what = "unfinished string"
	case what == "Invalid token" || strings.HasPrefix(what, "syntax error"):
		what = "unexpected symbol"
	}
	if pe.Pos.Line == parse.EOF {
		line := bytes.Count(body, []byte("\n")) + 1
		return name + ":" + strconv.Itoa(line) + ": " + what + " near '<eof>'"
	}
	tok := pe.Token
	if len(tok) == 1 && (tok[0] < 32 || tok[0] == 127) {
		tok = "char(" + strconv.Itoa(int(tok[0])) + ")" // luaX_token2str
	}
	return name + ":" + strconv.Itoa(pe.Pos.Line) + ": " + what + " near '" + tok + "'"
}

// luaLoadChunk compiles src named chunkname as loadstring and load do:
// the function, or nil and the message.
func luaLoadChunk(L *lua.LState, src, chunkname string) int {
	fn, err := luaCompile(L, strings.NewReader(src), luaChunkID(chunkname, luaIDSize))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(luaSyntaxMessage(err, luaChunkID(chunkname, luaMaxSrc), []byte(src))))
		return 2
	}
	L.Push(fn)
	return 1
}

// luaLoadString is Lua 5.1's loadstring(s [, chunkname]).
func luaLoadString(L *lua.LState) int {
	s := lualib.CheckString(L, 1, "loadstring")
	name := s
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		name = lualib.CheckString(L, 2, "loadstring")
	}
	return luaLoadChunk(L, s, name)
}

// luaLoad is Lua 5.1's load(func [, chunkname]): the pieces func returns,
// up to nil or "", make the chunk. The reader runs inside lua_load's
// protected call, which keeps the script's error handler: its errors, and
// a piece that is not a string, make load return nil and the handler's
// error table (a script returning it replies the error).
func (e *luaEngine) luaLoad(L *lua.LState) int {
	if _, ok := L.Get(1).(*lua.LFunction); !ok {
		lualib.TypeError(L, 1, "load", "function")
	}
	name := "=(load)"
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		name = lualib.CheckString(L, 2, "load")
	}
	fn := L.Get(1)
	fail := func(obj lua.LValue) int {
		L.Push(lua.LNil)
		L.Push(obj)
		return 2
	}
	var buf strings.Builder
	for {
		L.Push(fn)
		if err := luaPCall(L, 0, 1, e.errh); err != nil {
			if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
				return fail(ae.Object)
			}
			return fail(lua.LString(err.Error()))
		}
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		s, ok := v.(lua.LString)
		if !ok {
			if n, isNum := v.(lua.LNumber); isNum {
				s, ok = lua.LString(lualib.FmtNumber(float64(n))), true
			}
		}
		if !ok {
			L.Push(e.errh)
			L.Push(lua.LString(lualib.Where(L) + "reader function must return a string"))
			L.Call(1, 1)
			obj := L.Get(-1)
			L.Pop(1)
			return fail(obj)
		}
		if s == "" {
			break
		}
		buf.WriteString(string(s))
	}
	return luaLoadChunk(L, buf.String(), name)
}

// luaStringDump is string.dump: Redis's Lua has it (the tests check that
// loading its output is refused). Its chunk is Lua 5.1's header and the
// function's source name: gopher-lua has no Lua 5.1 bytecode to follow
// it, and no Redis Lua can load it anyway.
func luaStringDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		lualib.TypeError(L, 1, "dump", "function")
	}
	if fn.IsG {
		lualib.Error(L, "unable to dump given function")
	}
	b := []byte("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00")
	src := "@" + fn.Proto.SourceName
	b = append(b, byte(len(src)+1), 0, 0, 0, 0, 0, 0, 0)
	b = append(b, src...)
	b = append(b, 0)
	L.Push(lua.LString(b))
	return 1
}

// tableCompat adds Lua 5.1's deprecated table functions gopher-lua lacks
// (Redis's Lua keeps them): foreach, foreachi and setn.
func (e *luaEngine) tableCompat(tab *lua.LTable) {
	L := e.L
	// real is the table a script's argument stands for: the protected
	// library behind a read-only proxy (lua_next reads it raw)
	real := func(L *lua.LState, fname string) *lua.LTable {
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			lualib.TypeError(L, 1, fname, "table")
		}
		if _, ok := L.Get(2).(*lua.LFunction); !ok {
			lualib.TypeError(L, 2, fname, "function")
		}
		if f := e.protected[t]; f != nil {
			return f()
		}
		return t
	}
	call := func(L *lua.LState, k, v lua.LValue) lua.LValue {
		L.Push(L.Get(2))
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		r := L.Get(-1)
		L.Pop(1)
		return r
	}
	tab.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		t := real(L, "foreach")
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			if r := call(L, k, v); r != lua.LNil {
				L.Push(r)
				return 1
			}
		}
		return 0
	}))
	tab.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		t := real(L, "foreachi")
		n := t.Len()
		for i := 1; i <= n; i++ {
			if r := call(L, lua.LNumber(i), t.RawGetInt(i)); r != lua.LNil {
				L.Push(r)
				return 1
			}
		}
		return 0
	}))
	tab.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		if _, ok := L.Get(1).(*lua.LTable); !ok {
			lualib.TypeError(L, 1, "setn", "table")
		}
		lualib.Error(L, "'setn' is obsolete")
		return 0
	}))
}

var (
	luaArithErr  = regexp.MustCompile(`cannot perform (?:add|sub|mul|div|mod|pow|unm) operation between (\w+) and (\w+)$`)
	luaConcatErr = regexp.MustCompile(`cannot perform concat operation between (\w+) and (\w+)$`)
)

// luaOperandMessage words gopher-lua's arithmetic and concatenation
// errors as Lua 5.1's luaG_aritherror and luaG_concaterror, which blame
// the first operand that does not fit (gopher-lua's message gives both
// types, numeric strings already converted for arithmetic). Lua 5.1 also
// names the operand when it is a variable ("local 'x' (a nil value)"):
// gopher-lua does not say which, so the message is the unnamed form.
func luaOperandMessage(msg string) string {
	if m := luaArithErr.FindStringSubmatchIndex(msg); m != nil {
		bad := msg[m[2]:m[3]]
		if bad == "number" {
			bad = msg[m[4]:m[5]]
		}
		return msg[:m[0]] + "attempt to perform arithmetic on a " + bad + " value"
	}
	if m := luaConcatErr.FindStringSubmatchIndex(msg); m != nil {
		bad := msg[m[2]:m[3]]
		if bad == "number" || bad == "string" {
			bad = msg[m[4]:m[5]]
		}
		return msg[:m[0]] + "attempt to concatenate a " + bad + " value"
	}
	return msg
}
