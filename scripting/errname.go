package scripting

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aofserver/aofserver/lualib"
	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 names the operand of a failed operation in its runtime errors
// (ldebug.c luaG_typeerror: "attempt to index local 't' (a nil value)",
// "attempt to call field 'x' (a nil value)"), finding the name from the
// raising function's bytecode: a local by its live range, else by symbolic
// execution up to the failing instruction (getobjname). gopher-lua words
// these errors its own way, unnamed. The code wording them runs before
// the stack unwinds — the script's handler (LState.PCall calls its errfunc
// in its recover), pcall's and xpcall's error hook (L.Panic, called as the
// error is raised: initProtect), a coroutine's (coroutineHook) — so it
// reads the raising frame (function, instruction, registers) and words the
// message as Lua 5.1 would (luaReword).

// luaFrameLayout holds the offsets of gopher-lua's unexported call frame
// and register fields, read once by reflection; luaFrameLayoutOK is false
// (messages stay unnamed) if its layout is not the expected one.
var luaFrameLayout struct {
	fn, parent, pc, base, localBase, nargs uintptr // in callFrame
	reg, array, top                        uintptr // LState.reg, registry.array, registry.top
	uvcache, uvNext, uvIndex               uintptr // LState.uvcache, Upvalue.next, Upvalue.index
}

var luaFrameLayoutOK = func() bool {
	if luaFrameOff == 0 {
		return false
	}
	cur, _ := reflect.TypeFor[lua.LState]().FieldByName("currentFrame")
	cf := cur.Type.Elem()
	field := func(name string, t reflect.Type, off *uintptr) bool {
		f, ok := cf.FieldByName(name)
		if !ok || f.Type != t || len(f.Index) != 1 {
			return false
		}
		*off = f.Offset
		return true
	}
	intT := reflect.TypeFor[int]()
	l := &luaFrameLayout
	if !field("Fn", reflect.TypeFor[*lua.LFunction](), &l.fn) || !field("Parent", cur.Type, &l.parent) ||
		!field("Pc", intT, &l.pc) || !field("Base", intT, &l.base) || !field("LocalBase", intT, &l.localBase) ||
		!field("NArgs", intT, &l.nargs) {
		return false
	}
	reg, ok := reflect.TypeFor[lua.LState]().FieldByName("reg")
	if !ok || reg.Type.Kind() != reflect.Pointer || reg.Type.Elem().Kind() != reflect.Struct {
		return false
	}
	arr, ok := reg.Type.Elem().FieldByName("array")
	if !ok || arr.Type != reflect.TypeFor[[]lua.LValue]() {
		return false
	}
	top, ok := reg.Type.Elem().FieldByName("top")
	if !ok || top.Type != intT {
		return false
	}
	l.reg, l.array, l.top = reg.Offset, arr.Offset, top.Offset
	uvT := reflect.TypeFor[*lua.Upvalue]()
	uvc, ok := reflect.TypeFor[lua.LState]().FieldByName("uvcache")
	next, nok := uvT.Elem().FieldByName("next")
	idx, iok := uvT.Elem().FieldByName("index")
	if !ok || uvc.Type != uvT || !nok || next.Type != uvT || !iok || idx.Type != intT {
		return false
	}
	l.uvcache, l.uvNext, l.uvIndex = uvc.Offset, next.Offset, idx.Offset
	return true
}()

// luaCloseUpvalues is gopher-lua's closeUpvalues(idx): the open upvalues
// of registers idx and above take their values, as the frames holding
// those registers are unwound (a closure made there keeps its value).
func luaCloseUpvalues(L *lua.LState, idx int) {
	l := &luaFrameLayout
	head := (**lua.Upvalue)(unsafe.Add(unsafe.Pointer(L), l.uvcache))
	next := func(uv *lua.Upvalue) **lua.Upvalue { return (**lua.Upvalue)(unsafe.Add(unsafe.Pointer(uv), l.uvNext)) }
	link := head // the list is in register order
	for uv := *head; uv != nil; uv = *next(uv) {
		if *(*int)(unsafe.Add(unsafe.Pointer(uv), l.uvIndex)) >= idx {
			*link = nil
			for ; uv != nil; uv = *next(uv) {
				uv.Close()
			}
			return
		}
		link = next(uv)
	}
}

// luaFrameParent, luaFrameLocalBase: a call frame's fields.
func luaFrameParent(f unsafe.Pointer) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(f, luaFrameLayout.parent))
}

func luaFrameLocalBase(f unsafe.Pointer) int {
	return *(*int)(unsafe.Add(f, luaFrameLayout.localBase))
}

// luaCurrentFrame is the running function's frame.
func luaCurrentFrame(L *lua.LState) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), luaFrameOff))
}

// luaRegTop is the index of L's first free stack slot.
func luaRegTop(L *lua.LState) int {
	rg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), luaFrameLayout.reg))
	return *(*int)(unsafe.Add(rg, luaFrameLayout.top))
}

// luaPlainPanic is gopher-lua's panicWithoutTraceback: the error value on
// the stack's top, raised to the PCall catching it. Its StackTrace is set:
// PCall would otherwise format the whole call stack into it, which no one
// here reads.
func luaPlainPanic(L *lua.LState) {
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: L.Get(-1), StackTrace: "-"})
}

// luaHasErrOff is the offset of LState.hasErrorFunc (0: not found).
var luaHasErrOff = func() uintptr {
	f, ok := reflect.TypeFor[lua.LState]().FieldByName("hasErrorFunc")
	if !ok || f.Type.Kind() != reflect.Bool || len(f.Index) != 1 {
		return 0
	}
	return f.Offset
}()

// luaPCall is L.PCall keeping gopher-lua's flag that an error handler is
// active: PCall clears it when it returns, even inside another PCall's
// handler, and an error raised while it is clear closes the open upvalues
// of every running frame (raiseError's closeAllUpvalues), so a closure
// would stop sharing a local with the function still running
// (`local x = 1 ... pcall(...) ... bump() return x`).
func luaPCall(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	if luaHasErrOff == 0 {
		return L.PCall(nargs, nret, errfunc)
	}
	flag := (*bool)(unsafe.Add(unsafe.Pointer(L), luaHasErrOff))
	was := *flag
	err := L.PCall(nargs, nret, errfunc)
	*flag = was
	return err
}

// luaSetHasErrorFunc tells gopher-lua an error is handled (its raiseError
// then leaves the open upvalues to the handler: see luaPCall).
func luaSetHasErrorFunc(L *lua.LState) {
	if luaHasErrOff != 0 {
		*(*bool)(unsafe.Add(unsafe.Pointer(L), luaHasErrOff)) = true
	}
}

// luaRaising is the Lua function whose instruction raised the error being
// handled: its proto, the instruction's index and the function's
// registers (those below the error value the handler was called with).
type luaRaising struct {
	p    *lua.FunctionProto
	pc   int
	regs []lua.LValue
}

// luaFrameFn is a call frame's function.
func luaFrameFn(f unsafe.Pointer) *lua.LFunction {
	return *(**lua.LFunction)(unsafe.Add(f, luaFrameLayout.fn))
}

// luaCallerName is ldebug.c getfuncname for the Go function whose frame is
// g: how the Lua code calling it named it (its callee register's
// getobjname, "method" for obj:f()), kind "" when its caller is not Lua
// code. callerLua tells that case apart.
func luaCallerName(g unsafe.Pointer) (kind, name string, callerLua bool) {
	l := &luaFrameLayout
	p := *(*unsafe.Pointer)(unsafe.Add(g, l.parent))
	if p == nil {
		return "", "", false
	}
	fn := luaFrameFn(p)
	if fn == nil || fn.IsG || fn.Proto == nil {
		return "", "", false
	}
	pc := *(*int)(unsafe.Add(p, l.pc)) - 1
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return "", "", true
	}
	switch i := fn.Proto.Code[pc]; luaOp(i) {
	case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_TFORLOOP:
		kind, name = luaObjName(fn.Proto, pc, luaA(i))
	}
	return kind, name, true
}

// luaArgMessage is lauxlib.c luaL_argerror's message for gopher-lua's
// ArgError/TypeError raised by the Go function whose frame is g: the
// function named as its Lua caller calls it ('?' from Go code: pcall), a
// method's self not counted, "no value" for a missing argument, and the
// position only when the caller is Lua code (luaL_where(L, 1)). ok is
// false when g is not a Go function's frame.
func luaArgMessage(g unsafe.Pointer, pos string, narg int, msg string) (string, bool) {
	l := &luaFrameLayout
	if fn := luaFrameFn(g); fn == nil || !fn.IsG {
		return "", false
	}
	if t, ok := strings.CutSuffix(msg, " expected, got nil"); ok && narg > *(*int)(unsafe.Add(g, l.nargs)) {
		msg = t + " expected, got no value"
	}
	kind, name, callerLua := luaCallerName(g)
	if !callerLua {
		pos = ""
	}
	if kind == "method" {
		if narg--; narg == 0 {
			return pos + "calling '" + name + "' on bad self (" + msg + ")", true
		}
	}
	if kind == "" {
		name = "?"
	}
	return pos + "bad argument #" + strconv.Itoa(narg) + " to '" + name + "' (" + msg + ")", true
}

// luaHandlerFrame is the frame that raised the error being handled by the
// running handler (an errfunc: the handler's caller), and the end of its
// live registers (the error value sits just below the handler's slot:
// PCall pushes the handler and the value above them); nil if unknown.
func luaHandlerFrame(L *lua.LState) (f unsafe.Pointer, limit int) {
	if !luaFrameLayoutOK {
		return nil, 0
	}
	cur := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), luaFrameOff))
	if cur == nil {
		return nil, 0
	}
	return *(*unsafe.Pointer)(unsafe.Add(cur, luaFrameLayout.parent)), *(*int)(unsafe.Add(cur, luaFrameLayout.base)) - 1
}

// luaRaisingFrame reads frame f, which raised an error, its registers
// below limit; ok is false when f is a Go function's (goFn: the error was
// not raised by a Lua instruction) or cannot be read.
func luaRaisingFrame(L *lua.LState, f unsafe.Pointer, limit int) (r luaRaising, ok, goFn bool) {
	if f == nil {
		return r, false, false
	}
	l := &luaFrameLayout
	fn := luaFrameFn(f)
	if fn == nil || fn.IsG || fn.Proto == nil {
		return r, false, fn != nil && fn.IsG
	}
	pc := *(*int)(unsafe.Add(f, l.pc)) - 1
	lb := *(*int)(unsafe.Add(f, l.localBase))
	arr := luaRegisters(L)
	if pc < 0 || pc >= len(fn.Proto.Code) || lb < 0 || limit < lb || limit > len(arr) {
		return r, false, false
	}
	return luaRaising{p: fn.Proto, pc: pc, regs: arr[lb:limit]}, true, false
}

// luaRegisters is L's value stack.
func luaRegisters(L *lua.LState) []lua.LValue {
	rg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), luaFrameLayout.reg))
	return *(*[]lua.LValue)(unsafe.Add(rg, luaFrameLayout.array))
}

// reg is register i's value; ok false past the live ones.
func (r *luaRaising) reg(i int) (lua.LValue, bool) {
	if i < 0 || i >= len(r.regs) || r.regs[i] == nil {
		return lua.LNil, false
	}
	return r.regs[i], true
}

// Instruction fields (gopher-lua opcode.go: op 6 bits at the top, then A
// 8, C 9, B 9; Bx 18 bits; RK operands with bit 8 set are constants).
func luaOp(i uint32) int  { return int(i >> 26) }
func luaA(i uint32) int   { return int(i>>18) & 0xff }
func luaB(i uint32) int   { return int(i & 0x1ff) }
func luaC(i uint32) int   { return int(i>>9) & 0x1ff }
func luaBx(i uint32) int  { return int(i & 0x3ffff) }
func luaSBx(i uint32) int { return luaBx(i) - (0x3ffff >> 1) }

const luaBitRK = 1 << 8

// luaSetsA lists the opcodes that write register A (Lua 5.1's testAMode;
// gopher-lua's opProps SetRegA).
var luaSetsA = func() (m [lua.OP_NOP + 1]bool) {
	for _, op := range []int{lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL, lua.OP_GETUPVAL,
		lua.OP_GETGLOBAL, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE, lua.OP_SELF, lua.OP_ADD, lua.OP_SUB,
		lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM, lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT, lua.OP_TEST,
		lua.OP_TESTSET, lua.OP_CALL, lua.OP_TAILCALL, lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_CLOSURE, lua.OP_VARARG} {
		m[op] = true
	}
	return m
}()

// luaLocalName is luaF_getlocalname: the n-th (1-based) local active at
// pc (luaCompile set the ranges Lua 5.1's way).
func luaLocalName(p *lua.FunctionProto, n, pc int) string {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc {
			if n--; n == 0 {
				return l.Name
			}
		}
	}
	return ""
}

// luaSymbexec is ldebug.c symbexec tracing one register: the last
// instruction before lastpc that wrote reg (following forward jumps that
// do not pass lastpc), or the final RETURN.
func luaSymbexec(p *lua.FunctionProto, lastpc, reg int) uint32 {
	last := len(p.Code) - 1
	for pc := 0; pc < lastpc && pc < len(p.Code); pc++ {
		i := p.Code[pc]
		op, a := luaOp(i), luaA(i)
		if op > lua.OP_NOP {
			break
		}
		if luaSetsA[op] && a == reg {
			last = pc
		}
		switch op {
		case lua.OP_LOADNIL:
			if a <= reg && reg <= luaB(i) {
				last = pc
			}
		case lua.OP_SELF:
			if reg == a+1 {
				last = pc
			}
		case lua.OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_JMP:
			if dest := pc + 1 + luaSBx(i); pc < dest && dest <= lastpc {
				pc += luaSBx(i)
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case lua.OP_SETLIST:
			if luaC(i) == 0 {
				pc++ // the block number
			}
		case lua.OP_CLOSURE:
			// its upvalues' pseudo-instructions follow
			if bx := luaBx(i); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
	return p.Code[last]
}

// luaKName is ldebug.c kname: a constant string key, else "?".
func luaKName(p *lua.FunctionProto, c int) string {
	if c&luaBitRK != 0 {
		if k := c &^ luaBitRK; k < len(p.Constants) {
			if s, ok := p.Constants[k].(lua.LString); ok {
				return string(s)
			}
		}
	}
	return "?"
}

// luaObjName is ldebug.c getobjname: what register reg holds at pc
// ("local", "global", "field", "upvalue", "method") and its name; kind is
// "" when nothing useful is known.
func luaObjName(p *lua.FunctionProto, pc, reg int) (kind, name string) {
	for depth := 0; depth < 256; depth++ {
		if n := luaLocalName(p, reg+1, pc); n != "" {
			return "local", n
		}
		i := luaSymbexec(p, pc, reg)
		switch luaOp(i) {
		case lua.OP_GETGLOBAL:
			if bx := luaBx(i); bx < len(p.Constants) {
				if s, ok := p.Constants[bx].(lua.LString); ok {
					return "global", string(s)
				}
			}
		case lua.OP_MOVE, lua.OP_MOVEN:
			if a, b := luaA(i), luaB(i); b < a {
				reg = b // the name of the register it was copied from
				continue
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			return "field", luaKName(p, luaC(i))
		case lua.OP_GETUPVAL:
			if b := luaB(i); b < len(p.DbgUpvalues) {
				return "upvalue", p.DbgUpvalues[b]
			}
			return "upvalue", "?"
		case lua.OP_SELF:
			return "method", luaKName(p, luaC(i))
		}
		return "", ""
	}
	return "", ""
}

// operand is RK(x) of the raising instruction: its value, and its
// register (-1 for a constant, which Lua 5.1 does not name).
func (r *luaRaising) operand(x int) (v lua.LValue, reg int, ok bool) {
	if x&luaBitRK != 0 {
		if k := x &^ luaBitRK; k < len(r.p.Constants) {
			return r.p.Constants[k], -1, true
		}
		return lua.LNil, -1, false
	}
	v, ok = r.reg(x)
	return v, x, ok
}

// typeError is luaG_typeerror's message for the value v held by register
// reg (-1: not in a register).
func (r *luaRaising) typeError(op string, v lua.LValue, reg int) string {
	if reg >= 0 {
		if kind, name := luaObjName(r.p, r.pc, reg); kind != "" {
			return "attempt to " + op + " " + kind + " '" + name + "' (a " + v.Type().String() + " value)"
		}
	}
	return "attempt to " + op + " a " + v.Type().String() + " value"
}

// luaBadArgErr is gopher-lua's ArgError/TypeError message (its function
// name unquoted: "(anonymous)", "main chunk", a call's name; lualib's
// messages, already Lua's, quote it).
var luaBadArgErr = regexp.MustCompile(`(?s)bad argument #(\d+) to ([^'?].*?) \((.*)\)$`)

const (
	luaCallErr  = "attempt to call a non-function object"
	luaIndexErr = "attempt to index a non-table object("
)

// luaRuntimeMessage words the error message msg being handled as Lua 5.1
// does, naming the operand from the raising frame when gopher-lua raised
// it for a Lua instruction; else luaStdMessage's unnamed wording. The
// position before the message is kept.
func luaRuntimeMessage(L *lua.LState, msg string) string {
	f, limit := luaHandlerFrame(L)
	return luaReword(L, f, limit, msg)
}

// luaReword is luaRuntimeMessage for an error raised by frame f (nil:
// unknown), its live registers below limit.
func luaReword(L *lua.LState, f unsafe.Pointer, limit int, msg string) string {
	if m := luaBadArgErr.FindStringSubmatchIndex(msg); m != nil {
		narg, _ := strconv.Atoi(msg[m[2]:m[3]])
		if f != nil {
			if s, ok := luaArgMessage(f, msg[:m[0]], narg, msg[m[6]:m[7]]); ok {
				return s
			}
		}
		return msg
	}
	core := -1 // where gopher-lua's own wording starts
	switch {
	case strings.HasSuffix(msg, luaCallErr):
		core = len(msg) - len(luaCallErr)
	case strings.HasSuffix(msg, "__unm undefined"), strings.HasSuffix(msg, "__len undefined"):
		core = len(msg) - len("__unm undefined")
	default:
		if i := strings.Index(msg, luaIndexErr); i >= 0 {
			core = i
		} else if m := luaArithErr.FindStringIndex(msg); m != nil {
			core = m[0]
		} else if m := luaConcatErr.FindStringIndex(msg); m != nil {
			core = m[0]
		} else if m := luaCompareErr.FindStringIndex(msg); m != nil {
			core = m[0]
		} else if i := strings.LastIndex(msg, "table index is "); i >= 0 && (strings.HasSuffix(msg, "nil") || strings.HasSuffix(msg, "NaN")) {
			core = i
		}
	}
	if core < 0 {
		return luaStdMessage(msg)
	}
	r, ok, goFn := luaRaisingFrame(L, f, limit)
	if goFn {
		// raised for a Go function (table.sort comparing): Lua 5.1's
		// luaG_runerror gives no position outside Lua code, gopher-lua
		// gives its caller's
		return luaStdMessage(msg[core:])
	}
	if !ok {
		return luaStdMessage(msg)
	}
	if named := r.message(msg[core:]); named != "" {
		return msg[:core] + named
	}
	return luaStdMessage(msg)
}

// message is Lua 5.1's message for gopher-lua's core (its wording without
// the position) raised by the instruction at r.pc, "" if the instruction
// is not one that raises it.
func (r *luaRaising) message(core string) string {
	i := r.p.Code[r.pc]
	op := luaOp(i)
	switch {
	case core == luaCallErr:
		fnReg := luaA(i)
		switch op {
		case lua.OP_CALL, lua.OP_TAILCALL:
		case lua.OP_TFORLOOP:
			// the iterator is called from a copy above the loop's state
			fnReg += 3
		default:
			return ""
		}
		v, ok := r.reg(luaA(i))
		if !ok {
			return ""
		}
		return r.typeError("call", v, fnReg)
	case strings.HasPrefix(core, luaIndexErr):
		// the object gopher-lua could not index: the register's value, or
		// one reached through __index (then not in a register)
		t, _, _ := strings.Cut(core[len(luaIndexErr):], ")")
		var reg int
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			reg = luaB(i)
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			reg = luaA(i)
		default:
			return ""
		}
		v, ok := r.reg(reg)
		if !ok {
			return ""
		}
		if v.Type() == lua.LTTable || v.Type().String() != t {
			return "attempt to index a " + t + " value"
		}
		return r.typeError("index", v, reg)
	case core == "__unm undefined" || core == "__len undefined":
		want, what := lua.OP_UNM, "perform arithmetic on"
		if core == "__len undefined" {
			want, what = lua.OP_LEN, "get length of"
		}
		if op != want {
			return ""
		}
		v, reg, ok := r.operand(luaB(i))
		if !ok {
			return ""
		}
		return r.typeError(what, v, reg)
	case strings.HasPrefix(core, "cannot perform concat"):
		if op != lua.OP_CONCAT {
			return ""
		}
		// luaV_concat works from the right, two values at a time: the
		// first pair holding a value that is neither a string nor a
		// number fails, blaming its left one unless that one converts
		b, c := luaB(i), luaC(i)
		conv := func(v lua.LValue) bool {
			t := v.Type()
			return t == lua.LTString || t == lua.LTNumber
		}
		for j := c; j >= b; j-- {
			v, ok := r.reg(j)
			if !ok {
				return ""
			}
			if conv(v) {
				continue
			}
			if j == c && j > b {
				if left, ok := r.reg(j - 1); ok && !conv(left) {
					return r.typeError("concatenate", left, j-1)
				}
			}
			return r.typeError("concatenate", v, j)
		}
		return ""
	case strings.HasPrefix(core, "cannot perform"):
		if op < lua.OP_ADD || op > lua.OP_POW {
			return ""
		}
		// luaG_aritherror blames the first operand that is not a number
		// or a string convertible to one
		v, reg, ok := r.operand(luaB(i))
		if !ok {
			return ""
		}
		if _, num := lualib.ToNumber(v); num {
			if v, reg, ok = r.operand(luaC(i)); !ok {
				return ""
			}
		}
		return r.typeError("perform arithmetic on", v, reg)
	}
	return ""
}
