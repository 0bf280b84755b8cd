package scripting

import (
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// TestLuaLocalsWalkMatchesCompiler: the syntax-tree walk that recomputes
// the locals' ranges (luaFixLocals) declares the same locals, in the same
// order, and finds the same nested functions as gopher-lua's compiler, for
// every construct; where it did not, errors would lose their local names.
func TestLuaLocalsWalkMatchesCompiler(t *testing.T) {
	src := `
local a, b = 1, 2
local function f(x, y, ...) local z = x return function() return z, y end end
function g(p) local q = p return q end
local t = {h = function(self) return self end, [function() end] = 1, function(...) local v = ... return v end}
function t.m(k) return k end
function t:n(k) local s = self return s end
do local d1, d2 = 3 end
while a < 0 do local w = a a = a + 1 if w then break end end
repeat local r = 1 until r == 1
if a then local i1 = 1 elseif b then local i2 = 2 else local i3 = 3 end
for i = 1, 3, 1 do local fi = i end
for k, v in pairs({}) do local gk = k end
for k in next, {} do end
local x = (function(...) return select('#', ...) end)(1, 2)
local y = a and function() return 1 end or function() return 2 end
local s = "a" .. (function() return "b" end)()
local u = -(function() return 1 end)() + #{function() end}
t[function() end] = function() end
f(function() end, function() local inner = 1 return inner end)
t:n(function() end)
return f, g, x, y, s, u
`
	chunk, err := parse.Parse(strings.NewReader(src), "walk")
	if err != nil {
		t.Fatal(err)
	}
	main := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: chunk}
	luaMarkBlocks(main, false, true)
	proto, err := lua.Compile(main.Stmts, "walk")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var check func(p *lua.FunctionProto, f *ast.FunctionExpr, method, isMain bool)
	check = func(p *lua.FunctionProto, f *ast.FunctionExpr, method, isMain bool) {
		n++
		s := &luaScope{}
		s.walk(f, method, isMain)
		if len(s.names) != len(p.DbgLocals) || len(s.funcs) != len(p.FunctionPrototypes) {
			t.Fatalf("function at line %d: walk %d locals %d functions, compiler %d locals %d functions",
				p.LineDefined, len(s.names), len(s.funcs), len(p.DbgLocals), len(p.FunctionPrototypes))
		}
		for i, l := range p.DbgLocals {
			if l.Name != s.names[i] {
				t.Fatalf("function at line %d: local %d is %q, walk says %q", p.LineDefined, i, l.Name, s.names[i])
			}
		}
		for i, c := range p.FunctionPrototypes {
			check(c, s.funcs[i].f, s.funcs[i].method, false)
		}
	}
	check(proto, main, false, true)
	if n < 15 {
		t.Fatalf("only %d functions checked", n)
	}
}

// TestLuaCompileMarkerAtRegisterLimit: a block-end marker that would take
// a register past gopher-lua's limit is left out, and the chunk compiles
// as it would without it.
func TestLuaCompileMarkerAtRegisterLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("local x0")
	for i := 1; i < 199; i++ {
		b.WriteString(", x" + strconv.Itoa(i))
	}
	b.WriteString("\ndo local a = 1 end local r = 7 return r")
	L := lua.NewState()
	defer L.Close()
	if _, err := L.Load(strings.NewReader(b.String()), "plain"); err != nil {
		t.Skipf("gopher-lua refuses the chunk itself: %v", err)
	}
	fn, err := luaCompile(L, strings.NewReader(b.String()), "marked")
	if err != nil {
		t.Fatalf("luaCompile: %v", err)
	}
	L.Push(fn)
	L.Call(0, 1)
	if got := L.Get(-1); got != lua.LNumber(7) {
		t.Fatalf("the chunk returned %v", got)
	}
}
