package server

import (
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
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(err.Error()), Cause: err}
	}
	main := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: chunk}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(err.Error()), Cause: err}
	}
	if luaFixLocals(proto, main, false, true, true) {
		// some blocks' ends are not known: compiled again with a marker
		// ending each (a LOADNIL of a spare register, one instruction at
		// the block's exit), the ends are exact
		if p2, err := lua.Compile(main.Stmts, name); err == nil {
			proto = p2
			luaFixLocals(proto, main, false, true, false)
		}
	}
	return L.NewFunctionFromProto(proto), nil
}

// luaBlockEnd names the marker locals luaCompile adds at the end of a
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
// registers from..to-1 go out of scope; marker: the local that marks its
// end, -1 if none; mark adds one to the tree).
type luaScopeEvent struct {
	local    int
	from, to int
	marker   int
	mark     func()
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
	ev := luaScopeEvent{local: -1, from: from, to: s.regTop, marker: -1}
	if list != nil {
		stmts := *list
		if n := len(stmts); n > 0 {
			if m, ok := stmts[n-1].(*ast.LocalAssignStmt); ok && len(m.Names) == 1 && m.Names[0] == luaBlockEnd {
				ev.marker = len(s.regs) - 1
			} else {
				ev.mark = func() {
					m := &ast.LocalAssignStmt{Names: []string{luaBlockEnd}}
					m.SetLine(stmts[n-1].LastLine())
					m.SetLastLine(stmts[n-1].LastLine())
					*list = append(stmts, m)
				}
			}
		}
	}
	s.events = append(s.events, ev)
	s.regTop = from
}

// luaFixLocals sets the EndPc of p's locals (and its nested functions'),
// in Lua 5.1's sense: the first instruction out of scope. Where the tree
// and the proto disagree (a compiler this code does not know), every
// range is emptied: errors then name no local rather than a wrong one.
// With mark, a block whose end is not known gets a marker in the tree
// (reported: the chunk needs compiling again); without, its end is
// bounded by the next known position.
func luaFixLocals(p *lua.FunctionProto, f *ast.FunctionExpr, method, main, mark bool) (marked bool) {
	s := &luaScope{}
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
	ok := len(s.regs) == len(p.DbgLocals) && len(s.funcs) == len(p.FunctionPrototypes)
	if ok {
		// the end of a block is the last instruction of its scope; gopher
		// wrote it, for the last block holding a local in register r, into
		// DbgLocals[r] (Lua's endpc is one more)
		last := map[int]int{} // register -> index of the last block end holding it
		for i, ev := range s.events {
			if ev.local < 0 {
				for r := ev.from; r < ev.to; r++ {
					last[r] = i
				}
			}
		}
		ends := make([]int, len(s.events)) // known end of each block event, -1 unknown
		for i := range ends {
			ends[i] = -1
		}
		for r, i := range last {
			if r < len(p.DbgLocals) {
				ends[i] = p.DbgLocals[r].EndPc + 1
			}
		}
		for i, ev := range s.events {
			switch {
			case ev.local >= 0:
			case ev.marker >= 0:
				ends[i] = p.DbgLocals[ev.marker].StartPc - 1 // its LOADNIL
			case ends[i] < 0 && mark && ev.mark != nil && ev.to > ev.from:
				ev.mark()
				marked = true
			}
		}
		// an unknown end is at the latest where the next known position is
		// (the next declaration's start, or a later block's end)
		bound := len(p.Code)
		for i := len(s.events) - 1; i >= 0; i-- {
			ev := s.events[i]
			if ev.local >= 0 {
				bound = min(bound, p.DbgLocals[ev.local].StartPc)
				continue
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
		open := []int{} // declared, not yet ended
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
			if l.Name != s.names[i] {
				ok = false
				break
			}
		}
		if ok {
			for i, l := range p.DbgLocals {
				l.EndPc = max(endOf[i], l.StartPc)
				if l.Name == luaBlockEnd {
					l.EndPc = l.StartPc
				}
			}
		}
	}
	if !ok {
		for _, l := range p.DbgLocals {
			l.EndPc = l.StartPc
		}
	}
	for i, child := range p.FunctionPrototypes {
		if ok {
			marked = luaFixLocals(child, s.funcs[i].f, s.funcs[i].method, false, mark) || marked
		} else {
			luaFixLocals(child, &ast.FunctionExpr{ParList: &ast.ParList{}}, false, false, false)
		}
	}
	return marked
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
