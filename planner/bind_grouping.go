package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Grouping sets (PostgreSQL 15 §7.2.4). The bridge writes ROLLUP (...),
// CUBE (...), GROUPING SETS (...) and () of a GROUP BY list as
// pg_rollup(...), pg_cube(...), pg_grouping_sets(...) and pg_empty_set(),
// and GROUP BY DISTINCT as a leading pg_group_distinct(). The binder
// expands the list into its grouping sets as PostgreSQL's
// expand_grouping_sets does (the cross product of the items' sets, each
// set's keys concatenated; duplicate sets kept unless DISTINCT) and, when
// there is more than one set, plans
//
//	Agg [group: keys..., set; aggs]    the set's number as the last key
//	└─Expand [sets]                    one copy of a row per set, the keys
//	  └─Project [input..., keys...]    not in it NULL, then its number
//
// The Agg's extra key keeps apart groups of different sets whose keys
// are equal; GROUPING(args) is a CASE over it. Empty sets are listed in
// Agg.EmptySets: like a global aggregate, each has its row over no input.

// gsetMarker is the key string of the grouping set number among an
// aggregation's keys; no expression has it.
const gsetMarker = "\x00grouping set"

// maxGroupingSets is PostgreSQL's limit on the number of grouping sets.
const maxGroupingSets = 4096

// groupingForm reports whether e is one of the bridge's grouping-set
// forms.
func groupingForm(e ast.ExprNode) (*ast.FuncCallExpr, bool) {
	f, ok := e.(*ast.FuncCallExpr)
	if !ok {
		return nil, false
	}
	switch f.FnName.L {
	case "pg_rollup", "pg_cube", "pg_grouping_sets", "pg_empty_set", "pg_group_distinct":
		return f, true
	}
	return nil, false
}

// expandGroupingSets expands a GROUP BY list holding grouping-set forms
// into its grouping sets of expressions. ok is false for a plain list.
func (b *binder) expandGroupingSets(items []*ast.ByItem) (sets [][]ast.ExprNode, distinct, ok bool) {
	for _, it := range items {
		if _, f := groupingForm(it.Expr); f {
			ok = true
		}
	}
	if !ok {
		return nil, false, false
	}
	sets = [][]ast.ExprNode{{}}
	for _, it := range items {
		var item [][]ast.ExprNode
		if f, isForm := groupingForm(it.Expr); isForm {
			if f.FnName.L == "pg_group_distinct" {
				distinct = true
				continue
			}
			item = b.groupingSetsOf(f)
		} else if r, ok := unparen(it.Expr).(*ast.RowExpr); ok {
			// (a, b) beside grouping sets is its keys
			// (flatten_grouping_sets).
			item = [][]ast.ExprNode{r.Values}
		} else {
			item = [][]ast.ExprNode{{it.Expr}}
		}
		var next [][]ast.ExprNode
		for _, s := range sets {
			for _, t := range item {
				next = append(next, append(slices.Clip(s), t...))
			}
		}
		sets = next
		if len(sets) > maxGroupingSets {
			failf(pgerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
	}
	return sets, distinct, true
}

// groupingSetsOf returns the grouping sets of one form.
func (b *binder) groupingSetsOf(f *ast.FuncCallExpr) [][]ast.ExprNode {
	switch f.FnName.L {
	case "pg_empty_set":
		return [][]ast.ExprNode{{}}
	case "pg_rollup":
		elems := groupingElems(f.Args)
		var out [][]ast.ExprNode
		for n := len(elems); n >= 0; n-- {
			var s []ast.ExprNode
			for _, e := range elems[:n] {
				s = append(s, e...)
			}
			out = append(out, s)
		}
		return out
	case "pg_cube":
		if len(f.Args) > 12 {
			fail(pgerr.New(pgerr.TooManyColumns, "CUBE is limited to 12 elements").WithPosition(b.pos(f)))
		}
		elems := groupingElems(f.Args)
		var out [][]ast.ExprNode
		// PostgreSQL lists the full set first, the empty set last.
		n := len(elems)
		for m := (1 << n) - 1; m >= 0; m-- {
			var s []ast.ExprNode
			for i, e := range elems {
				if m&(1<<(n-1-i)) != 0 {
					s = append(s, e...)
				}
			}
			out = append(out, s)
		}
		return out
	}
	// pg_grouping_sets: the sets of every element, in order.
	var out [][]ast.ExprNode
	for _, a := range f.Args {
		if g, ok := groupingForm(a); ok && g.FnName.L != "pg_group_distinct" {
			out = append(out, b.groupingSetsOf(g)...)
			continue
		}
		out = append(out, groupingElems([]ast.ExprNode{a})...)
	}
	if len(out) > maxGroupingSets {
		failf(pgerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets)
	}
	return out
}

// groupingElems splits the elements of ROLLUP, CUBE or GROUPING SETS: a
// parenthesised list (a, b) is one element of several keys.
func groupingElems(args []ast.ExprNode) [][]ast.ExprNode {
	var out [][]ast.ExprNode
	for _, a := range args {
		if r, ok := unparen(a).(*ast.RowExpr); ok {
			out = append(out, r.Values)
			continue
		}
		out = append(out, []ast.ExprNode{a})
	}
	return out
}

// bindGroupingSets binds the keys of the grouping sets into agg (each
// expression once) and records the sets as positions among them. With
// a single set the aggregation is a plain one over that set's keys;
// otherwise the grouping set number is appended as the last key.
func (b *binder) bindGroupingSets(agg *aggState, sc *scope, fields []*ast.SelectField, sets [][]ast.ExprNode, distinct bool) {
	var bound [][]int
	seen := map[string]bool{}
	for _, s := range sets {
		var idx []int
		for _, n := range s {
			e := b.groupKey(sc, fields, n)
			k := exprKey(e)
			i := slices.Index(agg.keyStrs, k)
			if i < 0 {
				i = len(agg.keys)
				agg.keys = append(agg.keys, e)
				agg.keyStrs = append(agg.keyStrs, k)
			}
			if !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
		if distinct {
			sorted := slices.Sorted(slices.Values(idx))
			k := ""
			for _, i := range sorted {
				k += string(rune(i + 1))
			}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		bound = append(bound, idx)
	}
	if len(bound) == 1 {
		// One set: a plain GROUP BY of its keys (of none: a global
		// aggregate, one row even over no input).
		keys, strs := agg.keys, agg.keyStrs
		agg.keys, agg.keyStrs = nil, nil
		for _, i := range bound[0] {
			agg.keys = append(agg.keys, keys[i])
			agg.keyStrs = append(agg.keyStrs, strs[i])
		}
		return
	}
	agg.sets = bound
	agg.keys = append(agg.keys, &ColRef{Idx: -1, T: types.TInt8, Name: "grouping_set"})
	agg.keyStrs = append(agg.keyStrs, gsetMarker)
}

// groupingTree returns a GROUP BY list with grouping sets as
// PostgreSQL's transformGroupClause keeps it (after
// flatten_grouping_sets): the top-level items, each plain expression
// (the fields of a row constructor each) a simple set of one key unless
// it repeats one before it, the empty sets left out unless nothing else
// is left; in ROLLUP, CUBE and GROUPING SETS each element a simple set
// (a parenthesised list one of several keys), a GROUPING SETS nested in
// another spliced into it.
func (b *binder) groupingTree(sc *scope, fields []*ast.SelectField, items []*ast.ByItem) []vdGroupingSet {
	var out []vdGroupingSet
	seen := map[string]bool{}
	for _, it := range items {
		f, isForm := groupingForm(it.Expr)
		switch {
		case isForm && (f.FnName.L == "pg_group_distinct" || f.FnName.L == "pg_empty_set"):
		case isForm:
			out = append(out, b.groupingSetTree(sc, fields, f))
		default:
			keys := []ast.ExprNode{it.Expr}
			if r, ok := unparen(it.Expr).(*ast.RowExpr); ok {
				keys = r.Values
			}
			for _, k := range keys {
				e := b.groupKey(sc, fields, k)
				if key := exprKey(e); !seen[key] {
					seen[key] = true
					out = append(out, vdGroupingSet{kind: "simple", keys: []Expr{e}})
				}
			}
		}
	}
	if len(out) == 0 {
		out = []vdGroupingSet{{kind: "empty"}}
	}
	return out
}

// groupingSetTree is groupingTree of one ROLLUP, CUBE or GROUPING SETS.
func (b *binder) groupingSetTree(sc *scope, fields []*ast.SelectField, f *ast.FuncCallExpr) vdGroupingSet {
	out := vdGroupingSet{kind: map[string]string{"pg_rollup": "rollup", "pg_cube": "cube", "pg_grouping_sets": "sets"}[f.FnName.L]}
	for _, a := range f.Args {
		if g, ok := groupingForm(a); ok {
			switch {
			case g.FnName.L == "pg_empty_set":
				out.content = append(out.content, vdGroupingSet{kind: "empty"})
			case g.FnName.L == "pg_grouping_sets" && out.kind == "sets":
				out.content = append(out.content, b.groupingSetTree(sc, fields, g).content...)
			default:
				out.content = append(out.content, b.groupingSetTree(sc, fields, g))
			}
			continue
		}
		keys := []ast.ExprNode{a}
		if r, ok := unparen(a).(*ast.RowExpr); ok {
			keys = r.Values
		}
		set := vdGroupingSet{kind: "simple"}
		seen := map[string]bool{}
		for _, k := range keys {
			e := b.groupKey(sc, fields, k)
			if key := exprKey(e); !seen[key] {
				seen[key] = true
				set.keys = append(set.keys, e)
			}
		}
		out.content = append(out.content, set)
	}
	return out
}

// groupingCall binds GROUPING(args): a bit per argument, the last
// argument's the lowest, set when the row's grouping set leaves that key
// out. Every argument must be a group key.
func (b *binder) groupingCall(c *exprCtx, f *ast.FuncCallExpr) Expr {
	if c.agg == nil {
		if c.clause == "SELECT" && len(f.Args) > 0 {
			fail(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(b.pos(f.Args[0])))
		}
		fail(pgerr.New(pgerr.GroupingError, "grouping operations are not allowed in %s", c.clauseName()).WithPosition(b.pos(f)))
	}
	if len(f.Args) >= 32 {
		fail(pgerr.New(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments").WithPosition(b.pos(f)))
	}
	plain := &exprCtx{s: c.agg.from, clause: c.clause}
	pos := make([]int, len(f.Args))
	for i, a := range f.Args {
		e := b.expr(plain, a)
		k := exprKey(e)
		pos[i] = -1
		for j, ks := range c.agg.keyStrs {
			if ks == k {
				pos[i] = j
			}
		}
		if pos[i] < 0 {
			fail(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(b.pos(a)))
		}
	}
	zero := &Const{V: types.DInt(0), T: types.TInt4}
	var args []Expr
	if b.notes != nil {
		for _, a := range f.Args {
			args = append(args, b.expr(plain, a))
		}
	}
	out := b.grouping(c, f, pos, zero)
	if b.notes != nil {
		b.notes.groupingCalls[out] = args
	}
	return out
}

// grouping is GROUPING's value: zero without grouping sets, else a CASE
// over the row's grouping set of the bits of the keys at pos it leaves
// out.
func (b *binder) grouping(c *exprCtx, f *ast.FuncCallExpr, pos []int, zero *Const) Expr {
	if c.agg.sets == nil {
		return zero
	}
	gid := len(c.agg.keys) - 1
	ref := &ColRef{Idx: gid, T: types.TInt8, Name: "grouping_set"}
	cs := &Case{Else: zero, T: types.TInt4}
	for s, set := range c.agg.sets {
		mask := int64(0)
		for i, p := range pos {
			if !slices.Contains(set, p) {
				mask |= 1 << (len(pos) - 1 - i)
			}
		}
		if mask != 0 {
			cond := b.op("=", []Expr{ref, &Const{V: types.DInt(int64(s)), T: types.TInt8}}, f)
			cs.Whens = append(cs.Whens, When{Cond: cond, Then: &Const{V: types.DInt(mask), T: types.TInt4}})
		}
	}
	if len(cs.Whens) == 0 {
		return zero
	}
	return cs
}

// groupingPlan builds Project → Expand → Agg for an aggregation over
// grouping sets (agg.sets non-nil) over the FROM plan in.
func groupingPlan(in Plan, agg *aggState, out types.Schema) Plan {
	inSch := in.Schema()
	nIn := len(inSch)
	keys := agg.keys[:len(agg.keys)-1]
	pre := &Project{Input: in}
	for i, c := range inSch {
		pre.Exprs = append(pre.Exprs, &ColRef{Idx: i, T: c.T, Name: c.Name})
		pre.Out = append(pre.Out, types.Column{Name: c.Name, T: c.T, Hidden: c.Hidden})
	}
	exp := &Expand{Input: pre, Sets: agg.sets}
	for i, k := range keys {
		pre.Exprs = append(pre.Exprs, k)
		pre.Out = append(pre.Out, types.Column{Name: FormatExpr(k), T: k.Type()})
		exp.Keys = append(exp.Keys, nIn+i)
	}
	exp.Out = append(append(types.Schema(nil), pre.Out...), types.Column{Name: "grouping_set", T: types.TInt8})
	a := &Agg{Input: exp, Aggs: agg.aggs, Out: out}
	for i, k := range keys {
		a.GroupBy = append(a.GroupBy, &ColRef{Idx: nIn + i, T: k.Type(), Name: FormatExpr(k)})
	}
	a.GroupBy = append(a.GroupBy, &ColRef{Idx: nIn + len(keys), T: types.TInt8, Name: "grouping_set"})
	for s, set := range agg.sets {
		if len(set) == 0 {
			a.EmptySets = append(a.EmptySets, int64(s))
		}
	}
	return a
}

// describeSets prints grouping sets for EXPLAIN: each set's key columns
// (named from the input schema in) in parentheses.
func describeSets(in types.Schema, keys []int, sets [][]int) string {
	s := ""
	for i, set := range sets {
		if i > 0 {
			s += ", "
		}
		s += "("
		for j, k := range set {
			if j > 0 {
				s += ", "
			}
			s += colName(in, keys[k])
		}
		s += ")"
	}
	return s
}
