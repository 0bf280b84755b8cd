package scripting

import (
	"bytes"
	"io"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// luaCompile is L.Load (parse, compile, a function over L.Env) whose
// protos carry the local variables' live ranges as Lua 5.1's compiler
// records them: runtime errors name a local by them ("attempt to index
// local 't'", luaF_getlocalname). gopher-lua v1.1.2 records each local's
// start right but writes the end of a block's locals into the DbgLocals
// entries numbered like their registers (EndScope), so its ranges end the
// wrong variables; the ends are recomputed from the syntax tree.
func luaCompile(L *lua.LState, r io.Reader, name string) (*lua.LFunction, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(err.Error()), Cause: err}
	}
	parseErr := func(err error) error {
		return &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(err.Error()), Cause: err}
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, parseErr(err)
	}
	main := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: chunk}
	marked := luaMarkBlocks(main, false, true)
	proto, err := lua.Compile(main.Stmts, name)
	if err != nil && marked {
		// a marker's register past the compiler's limit: the source as is
		chunk, _ = parse.Parse(bytes.NewReader(src), name)
		main = &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: chunk}
		proto, err = lua.Compile(main.Stmts, name)
	}
	if err != nil {
		return nil, parseErr(err)
	}
	luaFixLocals(proto, main, false, true)
	return L.NewFunctionFromProto(proto), nil
}

// luaBlockEnd names the marker locals luaMarkBlocks adds at the end of a
// block (no source can declare it).
const luaBlockEnd = "(block end)"

// luaScope replays, for one function, gopher-lua's compiler bookkeeping
// of locals (compile.go: RegisterLocalVar, EnterBlock, LeaveBlock): each
// local's register, and the order of the declarations and block ends.
type luaScope struct {
	regTop int
	regs   []int    // register of each DbgLocals entry, in declaration order
	names  []string // and its name
	events []luaScopeEvent
	funcs  []luaFuncDef // nested functions, in the order of their protos
}

// luaScopeEvent is a declaration (local >= 0) or a block end (the
// registers from..to-1 go out of scope; list: the block's statements, nil
// for one a marker cannot end; marker: the local ending it, -1 if none).
type luaScopeEvent struct {
	local    int
	from, to int
	list     *[]ast.Stmt
	marker   int
}

type luaFuncDef struct {
	f      *ast.FunctionExpr
	method bool
}

func (s *luaScope) declare(name string) {
	s.events = append(s.events, luaScopeEvent{local: len(s.regs)})
	s.regs = append(s.regs, s.regTop)
	s.names = append(s.names, name)
	s.regTop++
}

// block runs body, the walk of a block whose statements are *list (nil:
// a block a marker cannot end, repeat's: its condition still sees them).
func (s *luaScope) block(list *[]ast.Stmt, body func()) {
	from := s.regTop
	body()
	ev := luaScopeEvent{local: -1, from: from, to: s.regTop, list: list, marker: -1}
	if list != nil {
		if n := len(*list); n > 0 {
			if m, ok := (*list)[n-1].(*ast.LocalAssignStmt); ok && len(m.Names) == 1 && m.Names[0] == luaBlockEnd {
				ev.marker = len(s.regs) - 1
			}
		}
	}
	s.events = append(s.events, ev)
	s.regTop = from
}

// walk replays function f.
func (s *luaScope) walk(f *ast.FunctionExpr, method, main bool) {
	if method {
		s.declare("self")
	}
	for _, n := range f.ParList.Names {
		s.declare(n)
	}
	if f.ParList.HasVargs && lua.CompatVarArg && !main {
		s.declare("arg")
	}
	s.stmts(f.Stmts)
	// the function's end closes its own locals (EndScope after the final
	// RETURN)
	s.events = append(s.events, luaScopeEvent{local: -1, from: 0, to: s.regTop, marker: -1})
}

// lastEnds: for each register, the last block end dropping it (gopher
// wrote that block's end into DbgLocals[register]); -1 for none.
func (s *luaScope) lastEnds() []int {
	last := make([]int, s.regTop+len(s.regs)+1)
	for i := range last {
		last[i] = -1
	}
	for i, ev := range s.events {
		if ev.local < 0 {
			for r := ev.from; r < ev.to && r < len(last); r++ {
				last[r] = i
			}
		}
	}
	return last
}

// luaMarkBlocks adds a marker local at the end of each block (in f and
// the functions it defines) whose end the compiled proto would not tell:
// a block is known when it is the last to drop one of its registers (see
// lastEnds). The marker costs a LOADNIL of a spare register at the
// block's exit.
func luaMarkBlocks(f *ast.FunctionExpr, method, main bool) (marked bool) {
	s := &luaScope{}
	s.walk(f, method, main)
	known := make([]bool, len(s.events))
	for _, i := range s.lastEnds() {
		if i >= 0 {
			known[i] = true
		}
	}
	for i, ev := range s.events {
		if ev.local >= 0 || known[i] || ev.list == nil || ev.marker >= 0 || ev.to == ev.from || len(*ev.list) == 0 {
			continue
		}
		list := *ev.list
		m := &ast.LocalAssignStmt{Names: []string{luaBlockEnd}}
		m.SetLine(list[len(list)-1].LastLine())
		m.SetLastLine(list[len(list)-1].LastLine())
		*ev.list = append(list, m)
		marked = true
	}
	for _, fn := range s.funcs {
		marked = luaMarkBlocks(fn.f, fn.method, false) || marked
	}
	return marked
}

// luaFixLocals sets the EndPc of p's locals (and its nested functions'),
// in Lua 5.1's sense: the first instruction out of scope. Where the tree
// and the proto disagree (a compiler this code does not know), every
// range is emptied: errors then name no local rather than a wrong one.
func luaFixLocals(p *lua.FunctionProto, f *ast.FunctionExpr, method, main bool) {
	s := &luaScope{}
	s.walk(f, method, main)
	ok := len(s.regs) == len(p.DbgLocals) && len(s.funcs) == len(p.FunctionPrototypes)
	for i := 0; ok && i < len(p.DbgLocals); i++ {
		ok = p.DbgLocals[i].Name == s.names[i]
	}
	if ok {
		// a block's end: the one gopher wrote (the last instruction in
		// scope, Lua's endpc is one more), its marker's LOADNIL, or at the
		// latest the next known position (a later declaration's start, a
		// later block's end)
		ends := make([]int, len(s.events))
		for i := range ends {
			ends[i] = -1
		}
		for r, i := range s.lastEnds() {
			if i >= 0 && r < len(p.DbgLocals) {
				ends[i] = p.DbgLocals[r].EndPc + 1
			}
		}
		bound := len(p.Code)
		for i := len(s.events) - 1; i >= 0; i-- {
			ev := s.events[i]
			switch {
			case ev.local >= 0:
				bound = min(bound, p.DbgLocals[ev.local].StartPc)
				continue
			case ev.marker >= 0:
				ends[i] = p.DbgLocals[ev.marker].StartPc - 1
			}
			if ends[i] < 0 || ends[i] > bound {
				ends[i] = bound
			}
			bound = ends[i]
		}
		// each local ends with the first block end that drops its register
		endOf := make([]int, len(s.regs))
		for i := range endOf {
			endOf[i] = len(p.Code)
		}
		var open []int // declared, not yet ended
		for i, ev := range s.events {
			if ev.local >= 0 {
				open = append(open, ev.local)
				continue
			}
			keep := open[:0]
			for _, l := range open {
				if s.regs[l] >= ev.from && s.regs[l] < ev.to {
					endOf[l] = ends[i]
				} else {
					keep = append(keep, l)
				}
			}
			open = keep
		}
		for i, l := range p.DbgLocals {
			l.EndPc = max(endOf[i], l.StartPc)
			if l.Name == luaBlockEnd {
				l.EndPc = l.StartPc
			}
		}
	} else {
		for _, l := range p.DbgLocals {
			l.EndPc = l.StartPc
		}
	}
	for i, child := range p.FunctionPrototypes {
		if ok {
			luaFixLocals(child, s.funcs[i].f, s.funcs[i].method, false)
		} else {
			luaFixLocals(child, &ast.FunctionExpr{ParList: &ast.ParList{}}, false, false)
		}
	}
}

func (s *luaScope) stmts(list []ast.Stmt) {
	for _, st := range list {
		s.stmt(st)
	}
}

func (s *luaScope) stmt(st ast.Stmt) {
	switch x := st.(type) {
	case *ast.AssignStmt:
		s.exprs(x.Lhs)
		s.exprs(x.Rhs)
	case *ast.LocalAssignStmt:
		if len(x.Names) == 1 && len(x.Exprs) == 1 {
			if _, ok := x.Exprs[0].(*ast.FunctionExpr); ok {
				s.declare(x.Names[0]) // before its body: a local function sees itself
				s.exprs(x.Exprs)
				return
			}
		}
		s.exprs(x.Exprs)
		for _, n := range x.Names {
			s.declare(n)
		}
	case *ast.FuncCallStmt:
		s.expr(x.Expr)
	case *ast.DoBlockStmt:
		s.block(&x.Stmts, func() { s.stmts(x.Stmts) })
	case *ast.WhileStmt:
		s.expr(x.Condition)
		s.block(&x.Stmts, func() { s.stmts(x.Stmts) })
	case *ast.RepeatStmt:
		s.block(nil, func() { s.stmts(x.Stmts); s.expr(x.Condition) })
	case *ast.FuncDefStmt:
		if x.Name.Func == nil {
			s.expr(x.Name.Receiver)
			s.funcs = append(s.funcs, luaFuncDef{f: x.Func, method: true})
		} else {
			s.expr(x.Name.Func)
			s.expr(x.Func)
		}
	case *ast.ReturnStmt:
		s.exprs(x.Exprs)
	case *ast.IfStmt:
		s.expr(x.Condition)
		if len(x.Then) > 0 {
			s.block(&x.Then, func() { s.stmts(x.Then) })
		}
		if len(x.Else) > 0 {
			s.block(&x.Else, func() { s.stmts(x.Else) })
		}
	case *ast.NumberForStmt:
		s.block(&x.Stmts, func() {
			s.declare("(for index)")
			s.expr(x.Init)
			s.declare("(for limit)")
			s.expr(x.Limit)
			s.declare("(for step)")
			if x.Step != nil {
				s.expr(x.Step)
			}
			s.declare(x.Name)
			s.stmts(x.Stmts)
		})
	case *ast.GenericForStmt:
		s.block(&x.Stmts, func() {
			s.declare("(for generator)")
			s.declare("(for state)")
			s.declare("(for control)")
			s.exprs(x.Exprs)
			for _, n := range x.Names {
				s.declare(n)
			}
			s.stmts(x.Stmts)
		})
	}
}

func (s *luaScope) exprs(list []ast.Expr) {
	for _, e := range list {
		s.expr(e)
	}
}

// expr finds the functions an expression defines, in the order the
// compiler emits their closures.
func (s *luaScope) expr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.FunctionExpr:
		s.funcs = append(s.funcs, luaFuncDef{f: x})
	case *ast.AttrGetExpr:
		s.expr(x.Object)
		s.expr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				s.expr(f.Key)
			}
			s.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			s.expr(x.Func)
		}
		if x.Receiver != nil {
			s.expr(x.Receiver)
		}
		s.exprs(x.Args)
	case *ast.LogicalOpExpr:
		s.expr(x.Lhs)
		s.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		s.expr(x.Lhs)
		s.expr(x.Rhs)
	case *ast.StringConcatOpExpr:
		s.expr(x.Lhs)
		s.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		s.expr(x.Lhs)
		s.expr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		s.expr(x.Expr)
	case *ast.UnaryNotOpExpr:
		s.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		s.expr(x.Expr)
	}
}
