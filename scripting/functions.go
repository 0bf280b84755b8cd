package scripting

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/aofserver/aofserver/lualib"
	"github.com/aofserver/aofserver/rstring"
)

// The Lua engine of Redis 7.0 functions (function_lua.c): a Lua state of
// its own (SCRIPT FLUSH does not touch it), whose globals read through to
// the load API (redis.register_function, redis.log, ...) while a library
// is being loaded, and to the same sandbox EVAL scripts see while a
// function runs.

// Script flags (script.c scripts_flags_def), in FUNCTION LIST order.
const (
	scriptFlagNoWrites uint64 = 1 << iota
	scriptFlagAllowOOM
	scriptFlagAllowStale
	scriptFlagNoCluster
	scriptFlagAllowCrossSlot
)

var scriptFlagNames = []struct {
	flag uint64
	name string
}{
	{scriptFlagNoWrites, "no-writes"}, {scriptFlagAllowOOM, "allow-oom"}, {scriptFlagAllowStale, "allow-stale"},
	{scriptFlagNoCluster, "no-cluster"}, {scriptFlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// funcLoadTimeout bounds the run of a library's top level (LOAD_TIMEOUT_MS).
const funcLoadTimeout = 500 * time.Millisecond

type funcInfo struct {
	name  string
	desc  *string
	flags uint64
	fn    *lua.LFunction
	lib   *funcLib
}

type funcLib struct {
	name  string
	code  []byte // the whole payload, shebang included
	funcs map[string]*funcInfo
}

// sortedFuncs returns the library's functions by name.
func (l *funcLib) sortedFuncs() []*funcInfo {
	out := make([]*funcInfo, 0, len(l.funcs))
	for _, f := range l.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// funcEngine is the library registry and its Lua state.
type funcEngine struct {
	e     *luaEngine
	libs  map[string]*funcLib  // by name (case-sensitive, as Redis)
	funcs map[string]*funcInfo // by lower-cased name (Redis's dict is case-insensitive)

	globals *lua.LTable // the sandbox functions run in
	loadAPI *lua.LTable // what a library's top level sees
	cur     *lua.LTable // what the globals proxy reads through to
	loading *funcLib    // target of redis.register_function
}

func newFuncEngine(sc *Scripts) *funcEngine {
	fe := &funcEngine{libs: map[string]*funcLib{}, funcs: map[string]*funcInfo{}}
	e := newLuaEngine(sc, 2) // its client is created after the EVAL engine's
	e.source = "@user_function"
	fe.e = e
	L := e.L
	fe.globals = L.G.Global
	fe.cur = fe.globals

	// The load API: redis.register_function, redis.log and the constants.
	r := L.NewTable()
	r.RawSetString("register_function", L.NewFunction(fe.registerFunction))
	r.RawSetString("log", L.NewFunction(e.luaLog))
	for n, v := range map[string]int{"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3} {
		r.RawSetString(n, lua.LNumber(v))
	}
	setRedisVersion(r, sc.version)
	fe.loadAPI = L.NewTable()
	fe.loadAPI.RawSetString("redis", e.readonlyProxy(r, true))

	// The globals proxy functions see: strict, read-only, reading through
	// to fe.cur (switched while a library loads).
	env := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		v := fe.cur.RawGet(L.Get(2))
		if v == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
		}
		L.Push(v)
		return 1
	}))
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(env, mt)
	e.protected[env] = func() *lua.LTable { return fe.cur }
	e.env = env
	L.Env = env // for the chunks loadstring makes
	fe.globals.RawSetString("_G", env)
	// what EVAL has and functions do not
	fe.globals.RawSetString("__redis__err__handler", lua.LNil)
	rt := e.protected[fe.globals.RawGetString("redis").(*lua.LTable)]()
	for _, n := range []string{"breakpoint", "debug", "replicate_commands"} {
		rt.RawSetString(n, lua.LNil)
	}
	return fe
}

// setRedisVersion adds redis.REDIS_VERSION and REDIS_VERSION_NUM.
func setRedisVersion(r *lua.LTable, version string) {
	r.RawSetString("REDIS_VERSION", lua.LString(version))
	num := 0
	for _, p := range strings.SplitN(version, ".", 3) {
		n := 0
		for _, ch := range p {
			if ch < '0' || ch > '9' {
				break
			}
			n = n*10 + int(ch-'0')
		}
		num = num<<8 | n
	}
	r.RawSetString("REDIS_VERSION_NUM", lua.LNumber(num))
}

// libMeta is the parsed shebang of a library.
type libMeta struct {
	engine, name string
	code         []byte // the code after the shebang line (from its '\n')
}

// parseLibMeta is functionExtractLibMetaData.
func parseLibMeta(payload []byte) (libMeta, string) {
	var md libMeta
	if !bytes.HasPrefix(payload, []byte("#!")) {
		return md, "Missing library metadata"
	}
	nl := bytes.IndexByte(payload, '\n')
	// Redis finds the line's end with strchr: a NUL before it ends the
	// C string, so the line has no end
	if nl < 0 || bytes.IndexByte(payload[:nl], 0) >= 0 {
		return md, "Invalid library metadata"
	}
	parts, ok := rstring.SplitArgs(payload[:nl])
	if !ok || len(parts) == 0 {
		return md, "Invalid library metadata"
	}
	md.engine = string(parts[0][2:])
	gotName := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && rstring.EqualFold(p[:5], "name=") {
			if gotName {
				return md, "Invalid metadata value, name argument was given multiple times"
			}
			md.name, gotName = string(p[5:]), true
			continue
		}
		return md, "Invalid metadata value given: " + string(rstring.CString(p))
	}
	if !gotName {
		return md, "Library name was not given"
	}
	md.code = payload[nl:]
	return md, ""
}

// validFuncName is functionsVerifyName: [a-zA-Z0-9_]+.
func validFuncName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_') {
			return false
		}
	}
	return true
}

const errBadLibName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// compileLib compiles payload and runs its top level, which registers the
// functions; it returns the new library (not linked) or the error text
// (without the ERR prefix). timeout 0 means none (loading).
func (fe *funcEngine) compileLib(md libMeta, payload []byte, timeout time.Duration) (*funcLib, string) {
	L := fe.e.L
	fn, err := luaCompile(L, bytes.NewReader(md.code), "user_function")
	if err != nil {
		return nil, "Error compiling function: " + luaSyntaxMessage(err, "user_function", md.code)
	}
	fn.Env = fe.e.env
	lib := &funcLib{name: md.name, code: append([]byte(nil), payload...), funcs: map[string]*funcInfo{}}
	fe.cur, fe.loading = fe.loadAPI, lib
	defer func() { fe.cur, fe.loading = fe.globals, nil }()
	var cancel context.CancelFunc
	if timeout > 0 {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
		L.SetContext(ctx)
	}
	// run as pcall runs a function: a runtime error is worded as Lua
	// 5.1's, operand named
	L.SetTop(0)
	L.Push(fn)
	fe.e.protectedCall(L, lua.LNil)
	if cancel != nil {
		cancel()
		L.RemoveContext()
	}
	failed, obj := L.Get(1) == lua.LFalse, L.Get(2)
	L.SetTop(0)
	if failed {
		var msg string
		if t, ok := obj.(*lua.LTable); ok {
			msg = lua.LVAsString(t.RawGetString("err"))
		} else {
			msg = "ERR " + lua.LVAsString(obj)
			if strings.HasSuffix(msg, " context deadline exceeded") {
				msg = "ERR FUNCTION LOAD timeout"
			}
		}
		return nil, "Error registering functions: " + msg
	}
	if len(lib.funcs) == 0 {
		return nil, "No functions registered"
	}
	return lib, ""
}

// registerFunction is redis.register_function, in its positional
// (name, callback) and named ({function_name=, callback=, flags=,
// description=}) forms.
func (fe *funcEngine) registerFunction(L *lua.LState) int {
	fail := func(msg string) int {
		t := L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+msg))
		L.Error(t, 0)
		return 0
	}
	lib := fe.loading
	if lib == nil {
		return fail("redis.register_function can only be called on FUNCTION LOAD command")
	}
	var (
		name    string
		hasName bool
		desc    *string
		flags   uint64
		cb      *lua.LFunction
	)
	luaStr := func(v lua.LValue) (string, bool) {
		switch x := v.(type) {
		case lua.LString:
			return string(x), true
		case lua.LNumber:
			return lualib.FmtNumber(float64(x)), true
		}
		return "", false
	}
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return fail("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var msg string
		t.ForEach(func(k, v lua.LValue) {
			if msg != "" {
				return
			}
			key, ok := luaStr(k)
			if !ok {
				msg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(key) {
			case "function_name":
				if name, hasName = luaStr(v); !hasName {
					msg = "function_name argument given to redis.register_function must be a string"
				}
			case "description":
				d, ok := luaStr(v)
				if !ok {
					msg = "description argument given to redis.register_function must be a string"
					return
				}
				desc = &d
			case "callback":
				f, ok := v.(*lua.LFunction)
				if !ok {
					msg = "callback argument given to redis.register_function must be a function"
					return
				}
				cb = f
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					msg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				for j := 1; ; j++ {
					fv := ft.RawGetInt(j)
					if fv == lua.LNil {
						break
					}
					s, ok := luaStr(fv)
					found := false
					for _, f := range scriptFlagNames {
						if ok && strings.EqualFold(f.name, s) {
							flags |= f.flag
							found = true
							break
						}
					}
					if !found {
						msg = "unknown flag given"
						return
					}
				}
			default:
				msg = "unknown argument given to redis.register_function"
			}
		})
		if msg != "" {
			return fail(msg)
		}
		if !hasName {
			return fail("redis.register_function must get a function name argument")
		}
		if cb == nil {
			return fail("redis.register_function must get a callback argument")
		}
	case 2:
		var ok bool
		if name, ok = luaStr(L.Get(1)); !ok {
			return fail("first argument to redis.register_function must be a string")
		}
		if cb, ok = L.Get(2).(*lua.LFunction); !ok {
			return fail("second argument to redis.register_function must be a function")
		}
	default:
		return fail("wrong number of arguments to redis.register_function")
	}
	if !validFuncName(name) {
		return fail(errBadLibName)
	}
	if lib.funcs[name] != nil {
		return fail("Function already exists in the library")
	}
	lib.funcs[name] = &funcInfo{name: name, desc: desc, flags: flags, fn: cb, lib: lib}
	return 0
}

// createLib is functionsCreateWithLibraryCtx: parse, compile, and link the
// library (replacing an existing one if replace). It returns the library
// name or the error text (without ERR).
func (fe *funcEngine) createLib(payload []byte, replace bool, timeout time.Duration) (string, string) {
	md, msg := parseLibMeta(payload)
	if msg != "" {
		return "", msg
	}
	if !validFuncName(md.name) {
		return "", errBadLibName
	}
	if !strings.EqualFold(md.engine, "lua") {
		return "", "Engine '" + md.engine + "' not found"
	}
	old := fe.libs[md.name]
	if old != nil && !replace {
		return "", "Library '" + md.name + "' already exists"
	}
	lib, msg := fe.compileLib(md, payload, timeout)
	if msg != "" {
		return "", msg
	}
	for _, f := range lib.sortedFuncs() {
		if other := fe.funcs[strings.ToLower(f.name)]; other != nil && other.lib != old {
			return "", "Function " + f.name + " already exists"
		}
	}
	if old != nil {
		fe.unlink(old)
	}
	fe.link(lib)
	return md.name, ""
}

func (fe *funcEngine) link(lib *funcLib) {
	fe.libs[lib.name] = lib
	for _, f := range lib.funcs {
		fe.funcs[strings.ToLower(f.name)] = f
	}
}

func (fe *funcEngine) unlink(lib *funcLib) {
	delete(fe.libs, lib.name)
	for _, f := range lib.funcs {
		delete(fe.funcs, strings.ToLower(f.name))
	}
}

// join adds the libraries of src (RESTORE APPEND/REPLACE), all or nothing
// (libraryJoin).
func (fe *funcEngine) join(src []*funcLib, replace bool) string {
	var olds []*funcLib
	for _, l := range src {
		if old := fe.libs[l.name]; old != nil {
			if !replace {
				return "Library " + l.name + " already exists"
			}
			olds = append(olds, old)
		}
	}
	for _, o := range olds {
		fe.unlink(o)
	}
	for _, l := range src {
		for _, f := range l.sortedFuncs() {
			if fe.funcs[strings.ToLower(f.name)] != nil {
				for _, o := range olds {
					fe.link(o)
				}
				return "Function " + f.name + " already exists"
			}
		}
	}
	for _, l := range src {
		fe.link(l)
	}
	return ""
}

// sortedLibs returns the libraries by name (Redis lists them in its dict
// order, which is not reproducible).
func (fe *funcEngine) sortedLibs() []*funcLib {
	out := make([]*funcLib, 0, len(fe.libs))
	for _, l := range fe.libs {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// compilePayloads compiles a sequence of libraries (FUNCTION RESTORE, RDB
// loading) into a scratch list, checking duplicate names among them.
func (fe *funcEngine) compilePayloads(codes [][]byte) ([]*funcLib, error) {
	var libs []*funcLib
	seen := map[string]bool{}
	seenFn := map[string]bool{}
	for _, code := range codes {
		md, msg := parseLibMeta(code)
		if msg == "" && !validFuncName(md.name) {
			msg = errBadLibName
		}
		if msg == "" && !strings.EqualFold(md.engine, "lua") {
			msg = "Engine '" + md.engine + "' not found"
		}
		if msg == "" && seen[md.name] {
			msg = "Library '" + md.name + "' already exists"
		}
		var lib *funcLib
		if msg == "" {
			lib, msg = fe.compileLib(md, code, 0)
		}
		if msg != "" {
			return nil, errors.New(msg)
		}
		for _, f := range lib.sortedFuncs() {
			if seenFn[strings.ToLower(f.name)] {
				return nil, errors.New("Function " + f.name + " already exists")
			}
			seenFn[strings.ToLower(f.name)] = true
		}
		seen[md.name] = true
		libs = append(libs, lib)
	}
	return libs, nil
}

// call runs function f for FCALL / FCALL_RO.
func (fe *funcEngine) call(c Caller, f *funcInfo, argv [][]byte, keys, args [][]byte, ro bool) {
	e := fe.e
	L := e.L
	e.ro = ro || f.flags&scriptFlagNoWrites != 0
	e.allowOOM = f.flags&(scriptFlagAllowOOM|scriptFlagNoWrites) != 0
	e.argv = argv
	defer func() { e.argv = nil }()
	e.exec(c, f.fn, f.name, false, bytesTable(L, keys), bytesTable(L, args))
}
