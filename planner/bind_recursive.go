package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// bindRecursiveCTE binds the query of a CTE of a WITH RECURSIVE (Postgres
// docs §7.8.2, parser/parse_cte.c): a non-recursive term UNION [ALL] a
// recursive term that refers to the CTE once becomes a RecursiveUnion
// whose working table the reference reads. The CTE's column types are
// those of the non-recursive term; the recursive term's columns are cast
// to them, and a column whose UNION type differs fails with 42804 as in
// Postgres. A query without a self-reference is bound as an ordinary one.
func (b *binder) bindRecursiveCTE(d *cteDef, outer *scope, lvl *level) Plan {
	name := d.cte.Name.O
	q := d.cte.Query.Query
	defer func() { d.state, d.refs = cteIdle, 0 }()
	so, _ := q.(*ast.SetOprStmt)
	var op *ast.SetOprType
	var sel []ast.Node
	if so != nil && so.SelectList != nil && len(so.SelectList.Selects) >= 2 {
		sel = so.SelectList.Selects
		switch last := sel[len(sel)-1].(type) {
		case *ast.SelectStmt:
			op = last.AfterSetOperator
		case *ast.SetOprSelectList:
			op = last.AfterSetOperator
		}
	}
	if op == nil || (*op != ast.Union && *op != ast.UnionAll) {
		d.state = cteWhole
		return b.bindQuery(q, outer, lvl, nil).plan
	}
	// Bind the terms once to find out whether the CTE refers to itself.
	pop := b.pushWith(so.With)
	defer pop()
	popList := b.pushWith(so.SelectList.With)
	defer popList()
	d.state = cteNonRecursive
	nonRec := b.bindSetOpList(&ast.SetOprSelectList{Selects: sel[:len(sel)-1]}, outer, lvl)
	nonRec = b.resolveUnknownOutputs(nonRec)
	ns := nonRec.Schema()
	out := make(types.Schema, len(ns))
	for i, c := range ns {
		out[i] = types.Column{Name: c.Name, T: c.T}
		if i < len(d.cte.ColNameList) {
			out[i].Name = d.cte.ColNameList[i].O
		}
	}
	if len(d.cte.ColNameList) > len(ns) {
		failf(pgerr.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", name, len(ns), len(d.cte.ColNameList))
	}
	b.workTables++
	d.work = WorkTableScan{Name: name, WorkTable: b.workTables, Out: out}
	d.state, d.refs = cteRecursive, 0
	rec := b.bindSetOpList(&ast.SetOprSelectList{Selects: sel[len(sel)-1:]}, outer, lvl)
	if d.refs == 0 {
		// No recursion after all: an ordinary UNION.
		d.state = cteIdle
		popList()
		pop()
		return b.bindQuery(q, outer, lvl, nil).plan
	}
	if so.OrderBy != nil {
		failf(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented")
	}
	if so.Limit != nil {
		if so.Limit.Offset != nil {
			failf(pgerr.FeatureNotSupported, "OFFSET in a recursive query is not implemented")
		}
		failf(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented")
	}
	rs := rec.Schema()
	if len(rs) != len(ns) {
		failf(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	casts := make([]Expr, len(rs))
	need := false
	for i := range rs {
		nt, rt := ns[i].T, rs[i].T
		t, err := commonType("UNION", []types.T{nt, rt})
		if err != nil {
			fail(pgerr.As(err))
		}
		if rt.ID != types.Unknown && rt.ID == nt.ID && rt.Mod != nt.Mod {
			t.Mod = -1
		}
		if t.ID != nt.ID || t.Mod != nt.Mod {
			e := pgerr.New(pgerr.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", name, i+1, nt, t).
				WithHint("Cast the output of the non-recursive term to the correct type.")
			if pr, ok := nonRec.(*Project); ok {
				if p := b.epos[pr.Exprs[i]]; p > 0 {
					e = e.WithPosition(p)
				}
			}
			fail(e)
		}
		casts[i] = b.castCol(i, rs[i], nt, &need)
	}
	if need {
		rec = b.coerceOutputs(rec, casts, out)
	}
	all := *op == ast.UnionAll
	return &RecursiveUnion{Name: name, NonRecursive: nonRec, Recursive: rec, All: all, WorkTable: d.work.WorkTable, Out: out}
}

// recursiveRef binds a reference to a recursive CTE from inside its own
// query: from its recursive term it reads the working table; elsewhere
// it is an error, as in Postgres.
func (b *binder) recursiveRef(d *cteDef, tn *ast.TableName, alias string, outer *scope, lvl *level) (Plan, *scope) {
	name := d.cte.Name.O
	switch d.state {
	case cteWhole:
		fail(pgerr.New(pgerr.InvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", name).
			WithPosition(b.pos(tn)))
	case cteNonRecursive:
		fail(pgerr.New(pgerr.InvalidRecursion, "recursive reference to query \"%s\" must not appear within its non-recursive term", name).
			WithPosition(b.pos(tn)))
	}
	d.refs++
	if d.refs > 1 {
		fail(pgerr.New(pgerr.InvalidRecursion, "recursive reference to query \"%s\" must not appear more than once", name).
			WithPosition(b.pos(tn)))
	}
	ws := d.work
	ws.Out = append(types.Schema(nil), d.work.Out...)
	p, sc := b.derived(&ws, alias, nil, outer, lvl)
	if b.cteRefs != nil {
		b.cteRefs[p] = [2]string{name, alias}
	}
	return p, sc
}
