package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// namedArg returns the name and value of an argument in named notation,
// which the bridge writes pg_named_arg('name', value) (sql doc.go #43).
func namedArg(a ast.ExprNode) (string, ast.ExprNode, bool) {
	f, ok := a.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_named_arg" || len(f.Args) != 2 {
		return "", nil, false
	}
	l, ok := f.Args[0].(*sql.Literal)
	if !ok {
		return "", nil, false
	}
	s, ok := l.Value.(string)
	return s, f.Args[1], ok
}

// hasNamedArgs reports whether a call has an argument in named notation.
func hasNamedArgs(args []ast.ExprNode) bool {
	for _, a := range args {
		if _, _, ok := namedArg(a); ok {
			return true
		}
	}
	return false
}

// scalarArity reports whether name has a scalar overload taking n
// arguments.
func scalarArity(name string, n int) bool {
	for _, o := range Overloads(name) {
		if _, ok := expandParams(o, n); ok && o.Kind == Scalar {
			return true
		}
	}
	return false
}

// needsParams reports whether the call of name with args goes through
// parameter matching: it has named arguments, or it leaves out
// parameters that have defaults (make_interval(1)).
func needsParams(name string, args []ast.ExprNode) bool {
	return hasNamedArgs(args) || functions.NamedParams(name) != nil && !scalarArity(name, len(args))
}

// paramCall binds a call in named or mixed notation, or one leaving out
// defaulted parameters, as PostgreSQL does: the positional arguments
// take the first parameters, each named one the parameter of its name,
// and every parameter left must have a default. A call no parameter
// list of name fits is 42883, naming the arguments as written.
func (b *binder) paramCall(c *exprCtx, n *ast.FuncCallExpr, name string) Expr {
	var pos, vals []Expr
	var names []string
	an := make([]argNode, len(n.Args))
	labels := make([]string, len(n.Args))
	for i, a := range n.Args {
		if nm, v, ok := namedArg(a); ok {
			e := b.expr(c, v)
			names, vals = append(names, nm), append(vals, e)
			an[i], labels[i] = argNode{t: b.typeOf(e), unknown: b.isUnknown(e)}, nm
			continue
		}
		e := b.expr(c, a)
		pos = append(pos, e)
		an[i] = argNode{t: b.typeOf(e), unknown: b.isUnknown(e)}
	}
	for _, ps := range functions.NamedParams(name) {
		if args, written := b.fillParams(name, ps, pos, names, vals); args != nil {
			call := b.call(name, args, n, false, Scalar)
			call.ArgNames = written
			return call
		}
	}
	fail(b.noSuchNamedFunc(shownName(name, n), an, labels, b.pos(n)))
	return nil
}

// fillParams lays pos and the named vals out along the parameter list
// ps, filling in defaults, or returns nil when they do not fit it or no
// overload takes the result. written says how each argument was given
// (Call.ArgNames).
func (b *binder) fillParams(name string, ps functions.Params, pos []Expr, names []string, vals []Expr) (args []Expr, written []string) {
	if len(pos) > len(ps.Names) {
		return nil, nil
	}
	var full *Overload
	for _, o := range Overloads(name) {
		if o.Kind == Scalar && !o.Variadic && len(o.Args) == len(ps.Names) {
			full = o
			break
		}
	}
	if full == nil {
		return nil, nil
	}
	slots := make([]Expr, len(ps.Names))
	written = make([]string, len(ps.Names))
	copy(slots, pos)
	for k, nm := range names {
		i := slices.Index(ps.Names, nm)
		if i < 0 || slots[i] != nil {
			return nil, nil
		}
		slots[i], written[i] = vals[k], nm
	}
	firstDefault := len(ps.Names) - len(ps.Defaults)
	for i, s := range slots {
		if s != nil {
			continue
		}
		if i < firstDefault {
			return nil, nil
		}
		written[i] = DefaultArg
		slots[i] = &Const{V: ps.Defaults[i-firstDefault], T: types.T{ID: full.Args[i], Mod: -1}}
	}
	an := make([]argNode, len(slots))
	for i, a := range slots {
		an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
	}
	var cands []*Overload
	for _, o := range Overloads(name) {
		if o.Kind == Scalar {
			cands = append(cands, o)
		}
	}
	if o, _ := resolveOverload(cands, an); o == nil {
		return nil, nil
	}
	return slots, written
}

// noNamedArgs fails with 42883 when a call of a function without
// parameter names (an aggregate, a window function) has named arguments.
func (b *binder) noNamedArgs(c *exprCtx, name string, args []ast.ExprNode, node ast.Node) {
	if hasNamedArgs(args) {
		b.noNamedArgsAt(c, shownName(name, node), args, b.pos(node))
	}
}

// noNamedArgsAt is noNamedArgs with the error at position pos.
func (b *binder) noNamedArgsAt(c *exprCtx, name string, args []ast.ExprNode, pos int) {
	if !hasNamedArgs(args) {
		return
	}
	an := make([]argNode, len(args))
	labels := make([]string, len(args))
	for i, a := range args {
		if nm, v, ok := namedArg(a); ok {
			a, labels[i] = v, nm
		}
		e := b.expr(c, a)
		an[i] = argNode{t: b.typeOf(e), unknown: b.isUnknown(e)}
	}
	fail(b.noSuchNamedFunc(name, an, labels, pos))
}

// noSuchNamedFunc is noSuchFunc for a call with named arguments:
// PostgreSQL writes them name => type.
func (b *binder) noSuchNamedFunc(name string, an []argNode, labels []string, pos int) *pgerr.Error {
	parts := make([]string, len(an))
	for i, a := range an {
		parts[i] = a.t.String()
		if labels[i] != "" {
			parts[i] = labels[i] + " => " + parts[i]
		}
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(parts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(pos)
}

// positionalArgs lays out the arguments of a set-returning function
// call in named or mixed notation along its parameter names (all
// required), failing as noNamedArgs when they do not fit; a call
// without named arguments is returned as it is.
func (b *binder) positionalArgs(c *exprCtx, name string, args []ast.ExprNode, pos int) []ast.ExprNode {
	if !hasNamedArgs(args) {
		return args
	}
	for _, ps := range functions.NamedParams(name) {
		if len(args) > len(ps.Names) {
			continue
		}
		slots := make([]ast.ExprNode, len(ps.Names))
		ok := true
		for i, a := range args {
			if nm, v, named := namedArg(a); named {
				k := slices.Index(ps.Names, nm)
				if k < 0 || slots[k] != nil {
					ok = false
					break
				}
				slots[k] = v
				continue
			}
			slots[i] = a
		}
		if ok && !slices.Contains(slots, nil) {
			return slots
		}
	}
	b.noNamedArgsAt(c, name, args, pos)
	return nil
}
