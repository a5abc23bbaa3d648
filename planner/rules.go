package planner

// This file holds the rewrite rules Bind applies to every plan:
//
//  1. Filter pushdown: the conjuncts of a Filter over a Join move into the
//     join (inner joins) or below it, into the side that owns their
//     columns, but never into the null-supplying side of an outer join
//     (that would turn NULL-extended rows into missing rows). Join ON
//     conjuncts over only the null-supplying side move into that side.
//  2. Equi-join keys: conjuncts `l = r` of a join condition whose sides
//     reference only the left and only the right input become
//     LeftKeys/RightKeys, which the executor hashes on.
//
// Conjuncts holding subqueries stay where they are, since a correlated
// subquery's outer references point into the row it was bound against.

// Rewrite applies the rules to p and the plans of its subqueries,
// returning the new plan. Nodes are rebuilt, never shared with the input.
import "github.com/weirdb/weir/types"

func Rewrite(p Plan) Plan {
	p = rewriteNode(p)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			s.Plan = rewriteNode(s.Plan)
		}
	})
	return p
}

func rewriteNode(p Plan) Plan {
	switch n := p.(type) {
	case *Filter:
		n.Input = rewriteNode(n.Input)
		if j, ok := n.Input.(*Join); ok {
			return pushFilterIntoJoin(n, j)
		}
		if f, ok := n.Input.(*Filter); ok {
			return &Filter{Input: f.Input, Cond: conjoin(append(conjuncts(f.Cond), conjuncts(n.Cond)...))}
		}
		return n
	case *Join:
		n.Left = rewriteNode(n.Left)
		n.Right = rewriteNode(n.Right)
		return optimizeJoin(n)
	case *Project:
		n.Input = rewriteNode(n.Input)
	case *Agg:
		n.Input = rewriteNode(n.Input)
	case *Sort:
		n.Input = rewriteNode(n.Input)
	case *Limit:
		n.Input = rewriteNode(n.Input)
	case *Distinct:
		n.Input = rewriteNode(n.Input)
	case *Window:
		n.Input = rewriteNode(n.Input)
	case *HopWindow:
		n.Input = rewriteNode(n.Input)
	case *SessionWindow:
		n.Input = rewriteNode(n.Input)
	case *Expand:
		n.Input = rewriteNode(n.Input)
	case *ProjectSet:
		n.Input = rewriteNode(n.Input)
	case *SetOp:
		n.Left = rewriteNode(n.Left)
		n.Right = rewriteNode(n.Right)
	case *RecursiveUnion:
		n.NonRecursive = rewriteNode(n.NonRecursive)
		n.Recursive = rewriteNode(n.Recursive)
	case *Insert:
		n.Input = rewriteNode(n.Input)
	case *Update:
		n.Input = rewriteNode(n.Input)
	case *Delete:
		n.Input = rewriteNode(n.Input)
	}
	return p
}

// conjuncts splits an AND into its arguments.
func conjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	if a, ok := e.(*And); ok {
		var out []Expr
		for _, x := range a.Args {
			out = append(out, conjuncts(x)...)
		}
		return out
	}
	return []Expr{e}
}

// foldConstBool simplifies the constant booleans out of e's AND, OR and
// NOT, as PostgreSQL's eval_const_expressions does before the planner
// looks for join clauses: x OR false is x, x AND true is x, x OR true
// is true, x AND false is false. With qual set e is a condition (WHERE,
// ON), where NULL rejects a row as false does: outside any NOT a NULL
// constant then counts as false, as find_duplicate_ors drops it.
func foldConstBool(e Expr, qual bool) Expr {
	isConst := func(x Expr, qual bool) (bool, bool) {
		if c, ok := x.(*Const); ok && c.T.ID == types.Bool {
			if c.V.Null {
				return false, qual
			}
			return c.V.I != 0, true
		}
		return false, false
	}
	boolConst := func(b bool) Expr { return &Const{V: types.DBool(b), T: types.TBool} }
	switch x := e.(type) {
	case *And, *Or:
		and := false
		args := []Expr(nil)
		if a, ok := x.(*And); ok {
			and, args = true, a.Args
		} else {
			args = x.(*Or).Args
		}
		var kept []Expr
		for _, a := range args {
			a = foldConstBool(a, qual)
			if v, ok := isConst(a, qual); ok {
				if v != and {
					// false in an AND, true in an OR decides it.
					return boolConst(v)
				}
				continue
			}
			kept = append(kept, a)
		}
		switch {
		case len(kept) == 0:
			return boolConst(and)
		case len(kept) == 1:
			return kept[0]
		case and:
			return &And{Args: kept}
		}
		return &Or{Args: kept}
	case *Not:
		a := foldConstBool(x.Arg, false)
		if v, ok := isConst(a, false); ok {
			return boolConst(!v)
		}
		return &Not{Arg: a}
	}
	return e
}

func conjoin(es []Expr) Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return &And{Args: es}
}

// colSpan reports which input columns e reads: min and max ColRef index,
// and whether it holds a subquery (then it is never moved).
func colSpan(e Expr) (lo, hi int, sub bool) {
	lo, hi = 1<<30, -1
	WalkExpr(e, func(x Expr) {
		switch c := x.(type) {
		case *ColRef:
			if c.Idx < lo {
				lo = c.Idx
			}
			if c.Idx > hi {
				hi = c.Idx
			}
		case *Subquery:
			sub = true
		}
	})
	return
}

// side classifies e against a join with nl left columns: 'l', 'r', 'b'
// (both), 'c' (no columns) or 's' (holds a subquery).
func side(e Expr, nl int) byte {
	lo, hi, sub := colSpan(e)
	switch {
	case sub:
		return 's'
	case hi < 0:
		return 'c'
	case hi < nl:
		return 'l'
	case lo >= nl:
		return 'r'
	}
	return 'b'
}

// shift returns a copy of e with ColRef indexes moved by -d.
func shift(e Expr, d int) Expr {
	return mapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			return &ColRef{Idx: c.Idx - d, T: c.T, Name: c.Name}
		}
		return x
	})
}

// mapExpr rebuilds e bottom-up, replacing each node by fn's result.
func mapExpr(e Expr, fn func(Expr) Expr) Expr { return mapExprOutside(e, fn, 0) }

// mapExprOutside is mapExpr leaving the bodies of the Lets of ID let as
// they are (let 0: none), for the references of an enclosing Let of the
// ID, which the inner one shadows.
func mapExprOutside(e Expr, fn func(Expr) Expr, let int64) Expr {
	if e == nil {
		return nil
	}
	mapExpr := func(e Expr, fn func(Expr) Expr) Expr { return mapExprOutside(e, fn, let) }
	m := func(es []Expr) []Expr {
		out := make([]Expr, len(es))
		for i, x := range es {
			out[i] = mapExpr(x, fn)
		}
		return out
	}
	switch n := e.(type) {
	case *Call:
		return fn(&Call{Fn: n.Fn, Args: m(n.Args), T: n.T, CLocale: n.CLocale})
	case *Cast:
		return fn(&Cast{Arg: mapExpr(n.Arg, fn), T: n.T, Assign: n.Assign, Domain: n.Domain})
	case *And:
		return fn(&And{Args: m(n.Args)})
	case *Or:
		return fn(&Or{Args: m(n.Args)})
	case *Not:
		return fn(&Not{Arg: mapExpr(n.Arg, fn)})
	case *IsNull:
		return fn(&IsNull{Arg: mapExpr(n.Arg, fn), Not: n.Not})
	case *IsBool:
		return fn(&IsBool{Arg: mapExpr(n.Arg, fn), Want: n.Want, Not: n.Not})
	case *Case:
		c := &Case{T: n.T, Else: mapExpr(n.Else, fn)}
		for _, w := range n.Whens {
			c.Whens = append(c.Whens, When{Cond: mapExpr(w.Cond, fn), Then: mapExpr(w.Then, fn)})
		}
		return fn(c)
	case *Coalesce:
		return fn(&Coalesce{Args: m(n.Args), T: n.T})
	case *InList:
		return fn(&InList{Arg: mapExpr(n.Arg, fn), List: m(n.List), Not: n.Not})
	case *Subquery:
		c := *n
		c.Arg = mapExpr(n.Arg, fn)
		if n.Row != nil {
			c.Row = m(n.Row)
		}
		return fn(&c)
	case *Let:
		if n.ID == let {
			return fn(&Let{ID: n.ID, Vals: m(n.Vals), Body: n.Body, Names: n.Names})
		}
		return fn(&Let{ID: n.ID, Vals: m(n.Vals), Body: mapExpr(n.Body, fn), Names: n.Names})
	}
	return fn(e)
}

// pushFilterIntoJoin distributes a Filter's conjuncts over a Join.
func pushFilterIntoJoin(f *Filter, j *Join) Plan {
	nl := len(j.Left.Schema())
	var keep, left, right, into []Expr
	for _, c := range conjuncts(f.Cond) {
		switch side(c, nl) {
		case 'l':
			if j.Kind == InnerJoin || j.Kind == LeftJoin || j.Kind == SemiJoin || j.Kind == AntiJoin {
				left = append(left, c)
				continue
			}
		case 'r':
			if j.Kind == InnerJoin || j.Kind == RightJoin {
				right = append(right, shift(c, nl))
				continue
			}
		case 'b':
			if j.Kind == InnerJoin {
				into = append(into, c)
				continue
			}
		}
		keep = append(keep, c)
	}
	if len(left)+len(right)+len(into) == 0 {
		return f
	}
	nj := *j
	if len(left) > 0 {
		nj.Left = rewriteNode(&Filter{Input: j.Left, Cond: conjoin(left)})
	}
	if len(right) > 0 {
		nj.Right = rewriteNode(&Filter{Input: j.Right, Cond: conjoin(right)})
	}
	if len(into) > 0 {
		nj.Cond = conjoin(append(conjuncts(j.Cond), into...))
	}
	var out Plan = optimizeJoin(&nj)
	if len(keep) > 0 {
		out = &Filter{Input: out, Cond: conjoin(keep)}
	}
	return out
}

// optimizeJoin pushes single-side ON conjuncts into the sides where that
// is safe and extracts equi-join keys from the rest.
func optimizeJoin(j *Join) Plan {
	if j.Kind == SemiJoin || j.Kind == AntiJoin || j.Lateral {
		return j
	}
	nl := len(j.Left.Schema())
	var rest, left, right []Expr
	for _, c := range conjuncts(j.Cond) {
		switch side(c, nl) {
		case 'l':
			// ON conditions filter the null-supplying side only.
			if j.Kind == InnerJoin || j.Kind == RightJoin {
				left = append(left, c)
				continue
			}
		case 'r':
			if j.Kind == InnerJoin || j.Kind == LeftJoin {
				right = append(right, shift(c, nl))
				continue
			}
		case 'b':
			if l, r, ok := equiKey(c, nl); ok {
				j.LeftKeys = append(j.LeftKeys, l)
				j.RightKeys = append(j.RightKeys, r)
				continue
			}
		}
		rest = append(rest, c)
	}
	if len(left) > 0 {
		j.Left = rewriteNode(&Filter{Input: j.Left, Cond: conjoin(left)})
	}
	if len(right) > 0 {
		j.Right = rewriteNode(&Filter{Input: j.Right, Cond: conjoin(right)})
	}
	j.Cond = conjoin(rest)
	return j
}

// equiKey reports whether conjunct c of a join condition over a row with
// nl left columns is an equality between a left-side and a right-side
// expression of the same type, and returns them as hash keys (the right
// one re-based onto the right input's columns).
func equiKey(c Expr, nl int) (l, r Expr, ok bool) {
	call, isCall := c.(*Call)
	if !isCall || call.Fn != "=" || len(call.Args) != 2 {
		return nil, nil, false
	}
	a, b := call.Args[0], call.Args[1]
	sa, sb := side(a, nl), side(b, nl)
	if sa == 'r' && sb == 'l' {
		a, b, sa, sb = b, a, sb, sa
	}
	if sa != 'l' || sb != 'r' || a.Type() != b.Type() {
		return nil, nil, false
	}
	return a, shift(b, nl), true
}
