package scripting

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// luaFrameNRet locates, in gopher-lua's LState, the number of results the
// caller of the running Go function keeps (its call frame's NRet: 0 for a
// call made as a statement, `redis.call('ping')` in a loop). gopher-lua
// has no API for it; the offsets are read once by reflection and are zero
// (the fast path off) if its layout is not the expected one.
var luaFrameNRet = func() (frame, nret uintptr) {
	f, ok := reflect.TypeFor[lua.LState]().FieldByName("currentFrame")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
		return 0, 0
	}
	n, ok := f.Type.Elem().FieldByName("NRet")
	if !ok || n.Type.Kind() != reflect.Int || len(n.Index) != 1 {
		return 0, 0
	}
	return f.Offset, n.Offset
}

var luaFrameOff, luaNRetOff = luaFrameNRet()

// luaResultDiscarded reports that the Lua code calling the running Go
// function throws its results away, so that redis.call need not build the
// reply's Lua value (a {ok=...} table is four allocations: 40% of a loop
// of redis.call('ping'), Redis's "AOF with a slow script").
func luaResultDiscarded(L *lua.LState) bool {
	if luaFrameOff == 0 && luaNRetOff == 0 {
		return false
	}
	fp := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), luaFrameOff))
	return fp != nil && *(*int)(unsafe.Add(fp, luaNRetOff)) == 0
}
