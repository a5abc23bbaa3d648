package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// variadicArg returns the argument marked VARIADIC in a call, which the
// bridge writes pg_variadic(x) as the last argument, or
// pg_named_arg('name', pg_variadic(x)) in named notation (sql doc.go
// #43), with its name ("" when positional).
func variadicArg(args []ast.ExprNode) (name string, x ast.ExprNode, ok bool) {
	if len(args) == 0 {
		return "", nil, false
	}
	last := args[len(args)-1]
	if nm, v, named := namedArg(last); named {
		name, last = nm, v
	}
	f, ok := last.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_variadic" || len(f.Args) != 1 {
		return "", nil, false
	}
	return name, f.Args[0], true
}

// variadicParams are the parameter names of the variadic functions that
// take named notation, as pg_proc lists them.
var variadicParams = map[string][]string{
	"jsonb_extract_path":      {"from_json", "path_elems"},
	"jsonb_extract_path_text": {"from_json", "path_elems"},
	"json_extract_path":       {"from_json", "path_elems"},
	"json_extract_path_text":  {"from_json", "path_elems"},
}

// variadicCall binds f(a, VARIADIC arr): arr, an array, supplies all of
// f's variadic arguments. As in PostgreSQL a non-array is 42804 for
// VARIADIC "any", and when f has no variadic parameter that fits, arr
// is an ordinary argument. The call runs through
// functions.VariadicCallFn, which spreads the array per row, so the
// array may come from a column.
func (b *binder) variadicCall(c *exprCtx, n *ast.FuncCallExpr, name, label string, x ast.ExprNode) Expr {
	rest := n.Args[:len(n.Args)-1]
	var prefix []Expr
	an := make([]argNode, 0, len(n.Args))
	labels := make([]string, 0, len(n.Args))
	named := label != ""
	for _, a := range rest {
		if nm, v, ok := namedArg(a); ok {
			a, named = v, true
			labels = append(labels, nm)
		} else {
			labels = append(labels, "")
		}
		e := b.expr(c, a)
		prefix = append(prefix, e)
		an = append(an, argNode{t: b.typeOf(e), unknown: b.isUnknown(e)})
	}
	var cands []*Overload
	anyVariadic := false
	for _, o := range Overloads(name) {
		if o.Kind == Scalar && o.Variadic && len(o.Args) == len(prefix)+1 {
			cands = append(cands, o)
			anyVariadic = anyVariadic || o.Args[len(o.Args)-1] == types.Unknown
		}
	}
	if len(cands) == 0 {
		// No variadic parameter fits: as in PostgreSQL the array is an
		// ordinary argument (cardinality(VARIADIC a) is cardinality(a)).
		call := *n
		call.Args = append(slices.Clone(rest), unwrapVariadic(n.Args[len(n.Args)-1]))
		return b.funcCall(c, &call)
	}
	arr := b.expr(c, x)
	if anyVariadic {
		// VARIADIC "any" takes any array as it is; PostgreSQL checks
		// that it is one before anything else.
		if !b.typeOf(arr).IsArray() {
			fail(pgerr.New(pgerr.DatatypeMismatch, "VARIADIC argument must be an array").WithPosition(b.pos(x)))
		}
	} else if b.isUnknown(arr) && len(cands) > 0 {
		// An untyped literal is read as the variadic parameter's array
		// type ('{a,b}' and NULL as text[]).
		if at, ok := types.ArrayOf(types.T{ID: cands[0].Args[len(cands[0].Args)-1], Mod: -1}); ok {
			arr = b.coerce(arr, at, ctxImplicit, "VARIADIC")
		}
	}
	at := b.typeOf(arr)
	an = append(an, argNode{t: at, unknown: b.isUnknown(arr)})
	labels = append(labels, label)
	noSuch := func() {
		if named {
			fail(b.noSuchNamedFunc(name, an, labels, b.pos(n)))
		}
		fail(b.noSuchFunc(name, an, false, n))
	}
	if !at.IsArray() {
		noSuch()
	}
	if named {
		ps := variadicParams[name]
		if len(ps) != len(labels) || label != ps[len(ps)-1] {
			noSuch()
		}
		slots := make([]Expr, len(prefix))
		for i, l := range labels[:len(prefix)] {
			k := i
			if l != "" {
				k = slices.Index(ps, l)
			}
			if k < 0 || k >= len(prefix) || slots[k] != nil {
				noSuch()
			}
			slots[k] = prefix[i]
		}
		prefix = slots
	}
	elemAn := append(slices.Clone(an[:len(an)-1]), argNode{t: at.Elem()})
	if named {
		for i, e := range prefix {
			elemAn[i] = argNode{t: b.typeOf(e), unknown: b.isUnknown(e)}
		}
	}
	if o, _ := resolveOverload(cands, elemAn); o == nil {
		noSuch()
	}
	hole := &Const{V: types.NullDatum, T: at.Elem()}
	call := b.call(name, append(slices.Clone(prefix), hole), n, false, Scalar)
	if last := call.Args[len(call.Args)-1]; last != Expr(hole) {
		pt, ok := types.ArrayOf(last.Type())
		if !ok {
			noSuch()
		}
		arr = b.coerce(arr, pt, ctxImplicit, "VARIADIC")
	}
	args := append([]Expr{&Const{V: types.DString(call.Fn), T: types.TText}}, call.Args[:len(call.Args)-1]...)
	return &Call{Fn: functions.VariadicCallFn, Args: append(args, arr), T: call.T}
}

// unwrapVariadic returns a call's last argument without its VARIADIC
// marker: pg_variadic(x) as x, pg_named_arg('n', pg_variadic(x)) as
// pg_named_arg('n', x).
func unwrapVariadic(a ast.ExprNode) ast.ExprNode {
	if f, ok := a.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_named_arg" && len(f.Args) == 2 {
		named := *f
		named.Args = []ast.ExprNode{f.Args[0], unwrapVariadic(f.Args[1])}
		return &named
	}
	if f, ok := a.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_variadic" && len(f.Args) == 1 {
		return f.Args[0]
	}
	return a
}
