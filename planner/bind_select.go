package planner

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// qopts are options for binding one query.
type qopts struct {
	// keepUnknown leaves untyped literals in the output unresolved, for
	// the leaves of a set operation (resolved by §10.5 across branches).
	keepUnknown bool
}

type result struct{ plan Plan }

// bindQuery binds a SELECT, VALUES or set operation.
func (b *binder) bindQuery(n ast.ResultSetNode, outer *scope, lvl *level, o *qopts) result {
	b.enterQuery()
	defer func() { b.queries-- }()
	if o == nil {
		o = &qopts{}
	}
	if b.notes != nil && isValuesList(n) {
		// When deparsing, a VALUES list prints as one: its rows are
		// bound here, not as a set operation's queries.
		b.notes.valuesRows[n] = true
		r := b.bindQuery1(n, outer, lvl, o)
		b.notes.values[r.plan] = true
		return r
	}
	return b.bindQuery1(n, outer, lvl, o)
}

// isValuesList reports whether n is a VALUES list as the bridge writes
// it (sql/doc.go #16): SELECTs marked SQL_NO_CACHE, UNION ALL, without
// ORDER BY or LIMIT.
func isValuesList(n ast.ResultSetNode) bool {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return isValuesRow(n)
	case *ast.SetOprStmt:
		if n.With != nil || n.OrderBy != nil || n.Limit != nil || n.SelectList == nil || n.SelectList.With != nil {
			return false
		}
		for i, s := range n.SelectList.Selects {
			sel, ok := s.(*ast.SelectStmt)
			if !ok || !isValuesRow(sel) || i > 0 && (sel.AfterSetOperator == nil || *sel.AfterSetOperator != ast.UnionAll) {
				return false
			}
		}
		return true
	}
	return false
}

// isValuesRow reports whether s is a SELECT the bridge wrote for a row
// of a VALUES list.
func isValuesRow(s *ast.SelectStmt) bool {
	return s.SelectStmtOpts != nil && !s.SelectStmtOpts.SQLCache && s.From == nil && s.OrderBy == nil && s.Limit == nil && s.With == nil
}

// bindQuery1 is bindQuery.
func (b *binder) bindQuery1(n ast.ResultSetNode, outer *scope, lvl *level, o *qopts) result {
	switch n := n.(type) {
	case *ast.SelectStmt:
		if b.notes != nil && n.SelectStmtOpts != nil && !n.SelectStmtOpts.SQLCache && !b.notes.valuesRows[n] {
			// A VALUES list with ORDER BY or LIMIT.
			failf(pgerr.FeatureNotSupported, "cannot deparse this VALUES list")
		}
		return b.bindSelect(n, outer, lvl, o)
	case *ast.SetOprStmt:
		if b.withs != nil && n.SelectList.With != nil {
			failf(pgerr.FeatureNotSupported, "cannot deparse WITH over a set operation")
		}
		if b.notes != nil && !b.notes.valuesRows[n] {
			for _, s := range n.SelectList.Selects {
				if sel, ok := s.(*ast.SelectStmt); ok && isValuesRow(sel) {
					// A VALUES list as a set operation's query.
					failf(pgerr.FeatureNotSupported, "cannot deparse VALUES in a set operation")
				}
			}
		}
		pop := b.pushWith(n.With)
		defer pop()
		var with []boundCTE
		if b.withs != nil && n.With != nil {
			with = b.bindWithForDeparse(n.With, outer, lvl)
		}
		plan := b.bindSetOpList(n.SelectList, outer, lvl)
		plan = b.setOpOrderLimit(plan, n.OrderBy, n.Limit, outer, lvl)
		if !o.keepUnknown {
			plan = b.resolveUnknownOutputs(plan)
		}
		if with != nil {
			b.withs[plan] = with
		}
		return result{plan}
	}
	failf(pgerr.FeatureNotSupported, "query %T is not supported", n)
	return result{}
}

// cteFrame is one WITH clause's CTEs, by name; idx is each CTE's
// position in the clause.
type cteFrame map[string]*cteDef

// cteScope is the chain of WITH clauses visible at one point, innermost
// first. A CTE sees only the CTEs before it in its own WITH (all of
// them in a WITH RECURSIVE): limit hides the later ones, so the CTEs of
// one clause share a frame and binding a WITH of n CTEs stays linear.
type cteScope struct {
	frame  cteFrame
	limit  int
	parent *cteScope
}

// pushWith makes a WITH clause's CTEs visible; the returned func pops them.
func (b *binder) pushWith(w *ast.WithClause) func() {
	if w == nil {
		return func() {}
	}
	saved := b.ctes
	m := cteFrame{}
	for i, c := range w.CTEs {
		if i%ctxPollInterval == 0 {
			b.poll()
		}
		if _, dup := m[c.Name.O]; dup {
			failf(pgerr.DuplicateAlias, "WITH query name \"%s\" specified more than once", c.Name.O)
		}
		// A CTE sees the ones before it in the same WITH; every CTE of
		// a WITH RECURSIVE sees all of them, itself included.
		vis := &cteScope{frame: m, limit: i, parent: saved}
		if w.IsRecursive {
			vis.limit = len(w.CTEs)
		}
		m[c.Name.O] = &cteDef{cte: c, idx: i, ctes: vis, recursive: w.IsRecursive}
	}
	b.ctes = &cteScope{frame: m, limit: len(w.CTEs), parent: saved}
	return func() { b.ctes = saved }
}

// boundCTE is a CTE of a WITH clause bound on its own, for deparsing.
type boundCTE struct {
	name string
	cols []string // its column list, if any
	plan Plan
	// recursive marks the CTEs of a WITH RECURSIVE clause, recursive or
	// not.
	recursive bool
}

// bindWithForDeparse binds each CTE of w (visible since pushWith) once,
// referenced or not, for the deparser to print the WITH clause.
func (b *binder) bindWithForDeparse(w *ast.WithClause, outer *scope, lvl *level) []boundCTE {
	var out []boundCTE
	for _, c := range w.CTEs {
		d := b.findCTE(c.Name.O)
		saved := b.ctes
		b.ctes = d.ctes
		var p Plan
		if d.recursive {
			p = b.bindRecursiveCTE(d, outer, lvl)
		} else {
			p = b.bindQuery(c.Query.Query, outer, lvl, nil).plan
		}
		b.ctes = saved
		bc := boundCTE{name: c.Name.O, plan: p, recursive: w.IsRecursive}
		for _, n := range c.ColNameList {
			bc.cols = append(bc.cols, n.O)
		}
		out = append(out, bc)
	}
	return out
}

func (b *binder) findCTE(name string) *cteDef {
	for s := b.ctes; s != nil; s = s.parent {
		if d, ok := s.frame[name]; ok && d.idx < s.limit {
			return d
		}
	}
	return nil
}

// resolveUnknownOutputs casts output columns still of unknown type to text.
func (b *binder) resolveUnknownOutputs(p Plan) Plan {
	sch := p.Schema()
	need := false
	for _, c := range sch {
		if c.T.ID == types.Unknown {
			need = true
		}
	}
	if !need {
		return p
	}
	if pr, ok := p.(*Project); ok {
		for i, e := range pr.Exprs {
			pr.Exprs[i] = b.finalize(e)
			pr.Out[i].T = pr.Exprs[i].Type()
		}
		return pr
	}
	if v, ok := p.(*Values); ok {
		for j := range v.Out {
			if v.Out[j].T.ID == types.Unknown {
				for _, r := range v.Rows {
					r[j] = b.finalize(r[j])
				}
				v.Out[j].T = types.TText
			}
		}
		return v
	}
	exprs := make([]Expr, len(sch))
	out := make(types.Schema, len(sch))
	for i, c := range sch {
		exprs[i] = &ColRef{Idx: i, T: c.T, Name: c.Name}
		if c.T.ID == types.Unknown {
			exprs[i] = &Cast{Arg: exprs[i], T: types.TText}
		}
		out[i] = types.Column{Name: c.Name, T: exprs[i].Type()}
	}
	return &Project{Input: p, Exprs: exprs, Out: out}
}

// selectItem is one output column of a SELECT being bound.
type selectItem struct {
	name string
	e    Expr
	node ast.ExprNode
}

func (b *binder) bindSelect(n *ast.SelectStmt, outer *scope, lvl *level, o *qopts) result {
	pop := b.pushWith(n.With)
	defer pop()
	var with []boundCTE
	if b.withs != nil && n.With != nil {
		with = b.bindWithForDeparse(n.With, outer, lvl)
	}
	if n.Kind == ast.SelectStmtKindValues {
		p := b.bindValues(n.Lists, outer, lvl, o.keepUnknown)
		p = b.setOpOrderLimit(p, n.OrderBy, n.Limit, outer, lvl)
		return result{p}
	}
	if n.Kind == ast.SelectStmtKindTable {
		failf(pgerr.FeatureNotSupported, "TABLE statements are not supported")
	}
	// DISTINCT ON (doc.go #27 in package sql): the first field holds the
	// keys. Bind a copy without it, as a plain SELECT whose output is
	// sorted and then reduced to the first row of each key.
	var distinctOn []ast.ExprNode
	if n.Distinct && n.Fields != nil && len(n.Fields.Fields) > 0 {
		if fc, ok := n.Fields.Fields[0].Expr.(*ast.FuncCallExpr); ok && fc.FnName.L == "pg_distinct_on" {
			distinctOn = fc.Args
			cp := *n
			cp.Fields = &ast.FieldList{Fields: n.Fields.Fields[1:]}
			cp.Distinct = false
			n = &cp
		}
	}
	if n.Fields != nil && len(n.Fields.Fields) == 1 {
		// An empty target list (sql/doc.go): no output columns.
		if fc, ok := n.Fields.Fields[0].Expr.(*ast.FuncCallExpr); ok && fc.FnName.L == "pg_no_columns" && len(fc.Args) == 0 {
			cp := *n
			cp.Fields = &ast.FieldList{}
			n = &cp
		}
	}
	var plan Plan
	var sc *scope
	if n.From == nil {
		plan = &Values{Rows: [][]Expr{{}}}
		sc = &scope{parent: outer, lvl: lvl}
	} else {
		saved := b.lockTargets
		var targets []lockTarget
		b.lockTargets = &targets
		plan, sc = b.fromItem(n.From.TableRefs, outer, lvl)
		b.lockTargets = saved
		b.keepLockTargets(n.From, targets)
		b.lockedAccess(n.LockInfo, targets)
	}
	if n.Where != nil {
		cond := b.boolArg(b.expr(&exprCtx{s: sc, clause: "WHERE"}, n.Where), "WHERE")
		plan = &Filter{Input: plan, Cond: cond}
	}
	win := &winState{specs: map[string]*ast.WindowSpec{}}
	for i := range n.WindowSpecs {
		win.specs[n.WindowSpecs[i].Name.L] = &n.WindowSpecs[i]
		win.named = append(win.named, &n.WindowSpecs[i])
	}
	hasAgg := n.GroupBy != nil || n.Having != nil
	for _, f := range n.Fields.Fields {
		if f.Expr != nil && b.containsAgg(f.Expr) {
			hasAgg = true
		}
	}
	if n.OrderBy != nil {
		for _, it := range n.OrderBy.Items {
			if b.containsAgg(it.Expr) {
				hasAgg = true
			}
		}
	}
	post := &exprCtx{s: sc, win: win, clause: "SELECT", srf: &srfState{}}
	var agg *aggState
	if hasAgg {
		agg = &aggState{from: sc}
		if n.GroupBy == nil {
		} else if sets, distinct, ok := b.expandGroupingSets(n.GroupBy.Items); ok {
			b.bindGroupingSets(agg, sc, n.Fields.Fields, sets, distinct)
			if b.notes != nil {
				agg.written = &vdGrouping{distinct: distinct}
				if agg.sets != nil || len(agg.keys) == 0 {
					// One set of keys prints as a plain GROUP BY
					// (parseCheckAggregates drops the grouping sets).
					agg.written.sets = b.groupingTree(sc, n.Fields.Fields, n.GroupBy.Items)
				}
			}
		} else if n.GroupBy != nil {
			for _, it := range n.GroupBy.Items {
				if f := isSessionCall(it.Expr); f != nil {
					b.bindSessionGroup(agg, sc, f)
					continue
				}
				e := b.groupKey(sc, n.Fields.Fields, it.Expr)
				b.checkEquality(e.Type(), it.Expr)
				k := exprKey(e)
				dup := false
				for _, ks := range agg.keyStrs {
					if ks == k {
						dup = true
					}
				}
				if !dup {
					agg.keys = append(agg.keys, e)
					agg.keyStrs = append(agg.keyStrs, k)
				}
			}
		}
		sc.grouped = agg
		post.agg = agg
	}
	// The select list.
	var items []selectItem
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			items = append(items, b.expandStar(post, sc, f.WildCard, f)...)
			continue
		}
		if fields, ok := b.rowStar(post, f.Expr); ok {
			items = append(items, fields...)
			continue
		}
		e := b.expr(post, f.Expr)
		if !o.keepUnknown {
			e = b.finalize(e)
		}
		if !o.keepUnknown || outer == nil {
			// A set operation's branch inside a subquery keeps the
			// OID: its rows are compared (psql's \d reads confrelid IN
			// (... UNION ALL VALUES ('16385'::regclass))).
			e = b.regclassOut(f.Expr, e)
		}
		name := f.AsName.O
		if name == "" {
			name = b.colName(f.Expr)
		}
		items = append(items, selectItem{name: name, e: e, node: f.Expr})
	}
	var having Expr
	if n.Having != nil {
		hc := &exprCtx{s: sc, agg: agg, clause: "HAVING"}
		having = b.boolArg(b.expr(hc, n.Having.Expr), "HAVING")
	}
	// ORDER BY, possibly adding hidden columns.
	var keys []SortKey
	var extras []Expr
	var onKeys []Expr
	switch {
	case distinctOn != nil:
		// The keys are bound like ORDER BY items (output names and
		// ordinals allowed), ahead of the ORDER BY list.
		var by []*ast.ByItem
		for _, e := range distinctOn {
			by = append(by, &ast.ByItem{Expr: e, NullOrder: true})
		}
		nOn := len(by)
		if n.OrderBy != nil {
			by = append(by, n.OrderBy.Items...)
		}
		all, ex := b.orderBy(post, by, items, false)
		extras = ex
		for _, k := range all[:nOn] {
			onKeys = append(onKeys, k.Expr)
		}
		keys = all[nOn:]
		if n.OrderBy == nil {
			if b.aliases != nil {
				// The sort would print as an ORDER BY.
				failf(pgerr.FeatureNotSupported, "cannot deparse DISTINCT ON without ORDER BY")
			}
			keys = all[:nOn]
		}
		// Postgres: each DISTINCT ON key must be among the leading
		// ORDER BY keys, so equal keys are adjacent after the sort.
		lead := map[int]bool{}
		for i := 0; i < len(keys) && i < nOn; i++ {
			lead[keys[i].Expr.(*ColRef).Idx] = true
		}
		for i, k := range onKeys {
			if !lead[k.(*ColRef).Idx] {
				fail(pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions").WithPosition(b.pos(distinctOn[i])))
			}
		}
	case n.OrderBy != nil:
		keys, extras = b.orderBy(post, n.OrderBy.Items, items, n.Distinct)
	}
	// Assemble the plan.
	if agg != nil {
		out := types.Schema{}
		for _, k := range agg.keys {
			out = append(out, types.Column{Name: FormatExpr(k), T: k.Type()})
		}
		for _, a := range agg.aggs {
			out = append(out, types.Column{Name: FormatAgg(a), T: a.T})
		}
		if agg.sets != nil {
			plan = groupingPlan(plan, agg, out)
		} else if agg.session != nil {
			plan = sessionPlan(plan, agg, out)
		} else {
			plan = &Agg{Input: plan, GroupBy: agg.keys, Aggs: agg.aggs, Out: out}
		}
		if agg.written != nil {
			b.notes.groupings[plan] = agg.written
		}
		if having != nil {
			plan = &Filter{Input: plan, Cond: having}
		}
	}
	if len(win.calls) > 0 {
		in := plan.Schema()
		out := append(types.Schema{}, in...)
		for _, c := range win.calls {
			out = append(out, types.Column{Name: c.Fn, T: c.T})
		}
		win.patch(len(in))
		plan = &Window{Input: plan, Calls: win.calls, Out: out}
		if b.notes != nil {
			b.notes.windows[plan] = vdWindows{defs: win.defs, refs: win.winrefs}
		}
	}
	if len(win.calls) == 0 && len(win.named) > 0 && b.notes != nil {
		// PostgreSQL prints a WINDOW clause no call reads.
		failf(pgerr.FeatureNotSupported, "cannot deparse a WINDOW clause without window calls")
	}
	if len(post.srf.calls) > 0 {
		plan = projectSet(plan, post.srf)
	}
	proj := &Project{Input: plan}
	for _, it := range items {
		proj.Exprs = append(proj.Exprs, it.e)
		proj.Out = append(proj.Out, types.Column{Name: it.name, T: it.e.Type()})
	}
	for i, e := range extras {
		proj.Exprs = append(proj.Exprs, e)
		proj.Out = append(proj.Out, types.Column{Name: fmt.Sprintf("?order%d?", i+1), T: e.Type(), Hidden: true})
	}
	plan = proj
	if n.Distinct {
		for i, it := range items {
			var at ast.ExprNode
			if len(items) == len(n.Fields.Fields) {
				at = n.Fields.Fields[i].Expr
			}
			b.checkEquality(it.e.Type(), at)
		}
		plan = &Distinct{Input: plan}
	}
	if len(keys) > 0 {
		plan = &Sort{Input: plan, Keys: keys}
	}
	if onKeys != nil {
		plan = &Distinct{Input: plan, On: onKeys}
	}
	plan = b.limit(plan, n.Limit, sc, outer, lvl)
	if len(extras) > 0 {
		plan = dropHidden(plan, len(items))
	}
	if with != nil {
		b.withs[plan] = with
	}
	return result{plan}
}

// dropHidden projects away the columns after the first n.
func dropHidden(p Plan, n int) Plan {
	sch := p.Schema()
	out := &Project{Input: p}
	for i := 0; i < n; i++ {
		out.Exprs = append(out.Exprs, &ColRef{Idx: i, T: sch[i].T, Name: sch[i].Name})
		out.Out = append(out.Out, types.Column{Name: sch[i].Name, T: sch[i].T})
	}
	return out
}

// groupKey binds one GROUP BY item: an ordinal, an input column, an
// output column alias, or an expression over the input (Postgres's order
// of preference).
func (b *binder) groupKey(sc *scope, fields []*ast.SelectField, e ast.ExprNode) Expr {
	plain := &exprCtx{s: sc, clause: "GROUP BY"}
	if pe, ok := unparen(e).(*ast.PositionExpr); ok {
		k := pe.N
		if k < 1 || k > len(fields) || fields[k-1].WildCard != nil {
			fail(pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", k).WithPosition(b.pos(e)))
		}
		return b.finalize(b.expr(plain, fields[k-1].Expr))
	}
	if l, ok := unparen(e).(*sql.Literal); ok {
		if k, ok := l.Value.(int64); ok {
			if k < 1 || int(k) > len(fields) || fields[k-1].WildCard != nil {
				fail(pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", k).WithPosition(b.pos(e)))
			}
			return b.finalize(b.expr(plain, fields[k-1].Expr))
		}
	}
	if cn, ok := unparen(e).(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
		found := false
		for _, c := range sc.cols {
			if c.name == cn.Name.Name.O && !c.merged {
				found = true
			}
		}
		if !found {
			for _, f := range fields {
				if f.WildCard == nil && f.AsName.O == cn.Name.Name.O {
					return b.finalize(b.expr(plain, f.Expr))
				}
			}
		}
	}
	return b.finalize(b.expr(plain, e))
}

// fieldStar reports whether tbl.* was written (tbl).*, and tbl's
// position.
func (b *binder) fieldStar(tbl string) (int, bool) {
	if b.q == nil {
		return 0, false
	}
	pos, ok := b.q.FieldStars[tbl]
	return pos, ok
}

// rowStar expands (row).* in a select list, the bridge's
// pg_field(row, '*'), into the fields of the row: columns named as
// PostgreSQL names them (f1, f2, ... for a row constructor, the columns'
// names for a whole-row reference). It reports false for any other
// field, and for a value whose fields the binder does not know, which
// fieldOf then refuses.
func (b *binder) rowStar(c *exprCtx, n ast.ExprNode) ([]selectItem, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_field" || len(f.Args) != 2 {
		return nil, false
	}
	if l, ok := f.Args[1].(*sql.Literal); !ok || l.Value != "*" {
		return nil, false
	}
	var written []ast.ExprNode
	switch x := unparen(f.Args[0]).(type) {
	case *ast.RowExpr:
		written = x.Values
	case *ast.FuncCallExpr:
		if x.FnName.L == "pg_row1" {
			written = x.Args
		}
	}
	for _, a := range b.rowExprs(c, written) {
		if b.isUnknown(a) {
			// PostgreSQL keeps the field's type unknown in the row
			// and fails as it expands it (its XX000).
			fail(pgerr.New(pgerr.InternalError, "failed to find conversion function from unknown to text"))
		}
	}
	x := b.expr(c, f.Args[0])
	if fields, ok := b.subqueryRow(c.s, x); ok {
		for i := range fields {
			fields[i].node = n
		}
		return fields, true
	}
	r, ok := x.(*Call)
	if !ok || r.Fn != "pg_row" {
		return nil, false
	}
	names := b.rowNames[r]
	var out []selectItem
	for i, a := range r.Args {
		name := "f" + strconv.Itoa(i+1)
		if i < len(names) {
			name = names[i]
		}
		out = append(out, selectItem{name: name, e: b.finalize(a), node: n})
	}
	return out, true
}

// expandStar expands * or t.* into column references.
func (b *binder) expandStar(c *exprCtx, sc *scope, w *ast.WildCardField, f *ast.SelectField) []selectItem {
	tbl := w.Table.O
	if tbl == "" && len(sc.tables) == 0 {
		fail(pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid").WithPosition(b.pos(f)))
	}
	if tbl != "" && !sc.hasTable(tbl) {
		if pos, ok := b.fieldStar(tbl); ok {
			// (x).* where x is no range variable: PostgreSQL reads the
			// column x, whose type has no fields (sql doc.go #42).
			var x Expr
			func() {
				defer func() {
					if r := recover(); r != nil {
						if e, ok := r.(*pgerr.Error); ok && e.Position == 0 {
							e.WithPosition(pos)
						}
						panic(r)
					}
				}()
				x = b.resolveColumn(sc, &ast.ColumnName{Name: w.Table}, f)
			}()
			if fields, ok := b.subqueryRow(sc, x); ok {
				var out []selectItem
				for _, fe := range fields {
					out = append(out, selectItem{name: fe.name, e: fe.e, node: f.Expr})
				}
				return out
			}
			fail(pgerr.New(pgerr.WrongObjectType, "type %s is not composite", x.Type()))
		}
		fail(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", tbl).WithPosition(b.pos(f)))
	}
	var out []selectItem
	for _, col := range sc.cols {
		if col.hidden {
			continue
		}
		if tbl == "" && col.merged {
			continue
		}
		if tbl != "" && col.table != tbl {
			continue
		}
		node := &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(col.table), Name: ast.NewCIStr(col.name)}}
		e := b.expr(c, node)
		out = append(out, selectItem{name: col.name, e: e, node: node})
	}
	return out
}

// orderBy binds ORDER BY items of a SELECT. A bare name or an ordinal
// refers to an output column; anything else is an expression over the
// input, matched against the select list or else computed as a hidden
// column.
func (b *binder) orderBy(c *exprCtx, items []*ast.ByItem, sel []selectItem, distinct bool) ([]SortKey, []Expr) {
	var keys []SortKey
	var extras []Expr
	for _, it := range items {
		e, nf := unwrapNulls(it.Expr, it.Desc)
		idx := b.outputRef(e, sel)
		if idx < 0 {
			x := b.finalize(b.expr(c, e))
			k := exprKey(x)
			for i, s := range sel {
				if exprKey(s.e) == k {
					idx = i
					break
				}
			}
			if idx < 0 {
				if distinct {
					fail(pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list").WithPosition(b.pos(e)))
				}
				for j, ex := range extras {
					if exprKey(ex) == k {
						idx = len(sel) + j
					}
				}
				if idx < 0 {
					extras = append(extras, x)
					idx = len(sel) + len(extras) - 1
				}
			}
		}
		var t types.T
		var name string
		if idx < len(sel) {
			t, name = sel[idx].e.Type(), sel[idx].name
		} else {
			t, name = extras[idx-len(sel)].Type(), FormatExpr(extras[idx-len(sel)])
		}
		if t.ID == types.Json || t.ID == types.Jsonpath {
			fail(pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type %s", t.ID.Name()).
				WithHint("Use an explicit ordering operator or modify the query.").WithPosition(b.pos(e)))
		}
		keys = append(keys, SortKey{Expr: &ColRef{Idx: idx, T: t, Name: name}, Desc: it.Desc, NullsFirst: nf})
	}
	return keys, extras
}

// checkEquality refuses to group or deduplicate by a type without an
// equality operator (json, jsonpath), as PostgreSQL does; at (nil: none)
// is where the error points.
func (b *binder) checkEquality(t types.T, at ast.ExprNode) {
	if t.ID != types.Json && t.ID != types.Jsonpath {
		return
	}
	err := pgerr.New(pgerr.UndefinedFunction, "could not identify an equality operator for type %s", t.ID.Name())
	if at != nil {
		err = err.WithPosition(b.pos(at))
	}
	fail(err)
}

// outputRef resolves an ORDER BY item that is an ordinal or a bare output
// column name; -1 when it is neither.
func (b *binder) outputRef(e ast.ExprNode, sel []selectItem) int {
	switch x := unparen(e).(type) {
	case *ast.PositionExpr:
		if x.N < 1 || x.N > len(sel) {
			fail(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", x.N).WithPosition(b.pos(e)))
		}
		return x.N - 1
	case *sql.Literal:
		if k, ok := x.Value.(int64); ok {
			if k < 1 || int(k) > len(sel) {
				fail(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", k).WithPosition(b.pos(e)))
			}
			return int(k - 1)
		}
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return -1
		}
		idx := -1
		for i, s := range sel {
			if s.name == x.Name.Name.O {
				if idx >= 0 && exprKey(sel[idx].e) != exprKey(s.e) {
					fail(pgerr.New(pgerr.AmbiguousColumn, "ORDER BY \"%s\" is ambiguous", s.name).WithPosition(b.pos(e)))
				}
				if idx < 0 {
					idx = i
				}
			}
		}
		return idx
	}
	return -1
}

// limit adds LIMIT/OFFSET (int8 expressions without column references,
// assignment-coerced as Postgres's transformLimitClause does, so 2.5
// rounds to 3 and '3' is read as a number). The bridge writes OFFSET
// without LIMIT as LIMIT 18446744073709551615, which means no limit.
//
// from is the query's FROM scope (nil for a set operation's): as in
// PostgreSQL, the count sees the query's columns only to refuse them
// (42P10, checkExprIsVarFree), where a name found nowhere is 42703.
func (b *binder) limit(p Plan, l *ast.Limit, from, outer *scope, lvl *level) Plan {
	if l == nil {
		return p
	}
	// arg binds n, the argument of clause, over no columns of the
	// query; a name it does not find there that the query's FROM scope
	// has is a variable of the query, refused where the first binding
	// failed.
	arg := func(n ast.ExprNode, clause string) Expr {
		x, err := b.tryExpr(&exprCtx{s: &scope{parent: outer, lvl: lvl}, clause: clause}, n)
		if err == nil {
			return x
		}
		if from != nil && (err.Code == pgerr.UndefinedColumn || err.Code == pgerr.UndefinedTable) {
			sc := &scope{cols: from.cols, tables: from.tables, parent: outer, lvl: lvl}
			if _, again := b.tryExpr(&exprCtx{s: sc, clause: clause}, n); again != nil {
				err = again
			} else {
				err = pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", clause).WithPosition(err.Position)
			}
		}
		fail(err)
		return nil
	}
	out := &Limit{Input: p}
	count := l.Count
	if f, ok := count.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_with_ties" && len(f.Args) == 1 {
		// FETCH FIRST ... WITH TIES (the bridge's form).
		count = f.Args[0]
		if out.Ties = tieKeys(p); out.Ties == nil {
			fail(pgerr.New(pgerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause"))
		}
		if lit, ok := unparen(count).(*sql.Literal); ok && lit.Value == nil {
			fail(pgerr.New(pgerr.InvalidRowCountInLimit, "row count cannot be null in FETCH FIRST ... WITH TIES clause"))
		}
	}
	if count != nil && !isNoLimit(count) {
		out.Limit = b.coerce(arg(count, "LIMIT"), types.TInt8, ctxAssignment, "argument of LIMIT")
	}
	if l.Offset != nil {
		out.Offset = b.coerce(arg(l.Offset, "OFFSET"), types.TInt8, ctxAssignment, "argument of OFFSET")
	}
	if out.Limit == nil && out.Offset == nil {
		return p
	}
	return out
}

// tryExpr binds n, returning the error a failure raises.
func (b *binder) tryExpr(c *exprCtx, n ast.ExprNode) (x Expr, err *pgerr.Error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			err = pe
		}
	}()
	return b.expr(c, n), nil
}

// tieKeys returns the ORDER BY keys of p, the input of a LIMIT: the keys
// of the Sort it is (or that a DISTINCT ON reads), nil when unsorted.
func tieKeys(p Plan) []SortKey {
	if d, ok := p.(*Distinct); ok && len(d.On) > 0 {
		p = d.Input
	}
	if s, ok := p.(*Sort); ok && len(s.Keys) > 0 {
		return s.Keys
	}
	return nil
}

// isNoLimit reports the bridge's LIMIT for OFFSET without LIMIT.
func isNoLimit(e ast.ExprNode) bool {
	l, ok := e.(*sql.Literal)
	if !ok {
		return false
	}
	u, ok := l.Value.(uint64)
	return ok && u == math.MaxUint64
}

// setOpOrderLimit applies ORDER BY / LIMIT to a set operation or VALUES,
// whose ORDER BY may name only output columns.
func (b *binder) setOpOrderLimit(p Plan, ob *ast.OrderByClause, l *ast.Limit, outer *scope, lvl *level) Plan {
	if ob != nil {
		sch := p.Schema()
		sel := make([]selectItem, len(sch))
		for i, c := range sch {
			sel[i] = selectItem{name: c.Name, e: &ColRef{Idx: i, T: c.T, Name: c.Name}}
		}
		var keys []SortKey
		for _, it := range ob.Items {
			e, nf := unwrapNulls(it.Expr, it.Desc)
			idx := b.outputRef(e, sel)
			if idx < 0 {
				if cn, ok := unparen(e).(*ast.ColumnNameExpr); ok {
					fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", cn.Name.Name.O).WithPosition(b.pos(e)))
				}
				fail(pgerr.New(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
					WithDetail("Only result column names can be used, not expressions or functions.").WithPosition(b.pos(e)))
			}
			if sch[idx].T.ID == types.Json {
				fail(pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type json").
					WithHint("Use an explicit ordering operator or modify the query.").WithPosition(b.pos(e)))
			}
			keys = append(keys, SortKey{Expr: sel[idx].e, Desc: it.Desc, NullsFirst: nf})
		}
		p = &Sort{Input: p, Keys: keys}
	}
	return b.limit(p, l, nil, outer, lvl)
}

// bindSetOpList folds a list of set-operation branches left to right.
func (b *binder) bindSetOpList(l *ast.SetOprSelectList, outer *scope, lvl *level) Plan {
	if b.withs != nil && l.With != nil {
		failf(pgerr.FeatureNotSupported, "cannot deparse WITH over a set operation")
	}
	pop := b.pushWith(l.With)
	defer pop()
	var acc Plan
	for i, s := range l.Selects {
		var p Plan
		var op *ast.SetOprType
		switch s := s.(type) {
		case *ast.SelectStmt:
			p = b.bindSelect(s, outer, lvl, &qopts{keepUnknown: true}).plan
			op = s.AfterSetOperator
		case *ast.SetOprSelectList:
			p = b.bindSetOpList(s, outer, lvl)
			p = b.setOpOrderLimit(p, s.OrderBy, s.Limit, outer, lvl)
			op = s.AfterSetOperator
		default:
			failf(pgerr.FeatureNotSupported, "set operation branch %T is not supported", s)
		}
		if i == 0 {
			acc = p
			continue
		}
		if op == nil || *op != ast.UnionAll {
			b.checkSetOpCollations(acc, p, s)
		}
		acc = b.combine(acc, p, op)
		if op == nil || *op != ast.UnionAll {
			// Every set operation but UNION ALL compares rows: json has
			// no equality (42883, at the column of the first query, as
			// PostgreSQL points).
			for c, col := range acc.Schema() {
				b.checkEquality(col.T, firstSetOpField(l, c))
			}
		}
	}
	return acc
}

// checkSetOpCollations refuses, as PostgreSQL does, a set operation
// other than UNION ALL whose queries l and r give a column two
// different implicit collations (neither the default, which yields), or
// two different explicit ones: its rows are compared under one (42P21,
// at r's column, the query r is bound from). A statement with a COLLATE
// clause the front end dropped is not checked (sql.Query.Collated).
func (b *binder) checkSetOpCollations(l, r Plan, rq ast.Node) {
	if b.q == nil || b.q.Collated {
		return
	}
	lc, rc := outputCollations(l), outputCollations(r)
	for i := range min(len(lc), len(rc)) {
		if lc[i].name == conflicting || rc[i].name == conflicting || merge(lc[i], rc[i]).name != conflicting {
			continue
		}
		fail(pgerr.New(pgerr.CollationMismatch, "collation mismatch between implicit collations \"%s\" and \"%s\"", lc[i].name, rc[i].name).
			WithHint("You can choose the collation by applying the COLLATE clause to one or both expressions.").
			WithPosition(b.setOpFieldPos(rq, i)))
	}
}

// collationSource returns the part of x PostgreSQL names as where its
// collation comes from: the argument of a function that is no literal
// (p in upper(p)), as deep as that goes.
func collationSource(x ast.ExprNode) ast.ExprNode {
	for {
		fc, ok := x.(*ast.FuncCallExpr)
		if !ok {
			return x
		}
		var next ast.ExprNode
		for _, a := range fc.Args {
			if _, lit := a.(ast.ValueExpr); !lit {
				next = a
				break
			}
		}
		if next == nil {
			return x
		}
		x = next
	}
}

// setOpFieldPos returns the position of the select list item giving
// column i of query q of a set operation (or of the first query of a
// parenthesized one); 0 when unknown (a wildcard).
func (b *binder) setOpFieldPos(q ast.Node, i int) int {
	for {
		switch s := q.(type) {
		case *ast.SetOprSelectList:
			if len(s.Selects) == 0 {
				return 0
			}
			q = s.Selects[0]
			continue
		case *ast.SelectStmt:
			if s.Fields == nil {
				return 0
			}
			for _, f := range s.Fields.Fields {
				if f.WildCard != nil {
					return 0
				}
			}
			if i < len(s.Fields.Fields) {
				return b.pos(collationSource(s.Fields.Fields[i].Expr))
			}
		}
		return 0
	}
}

// firstSetOpField returns select list item i of the first query of a set
// operation, or nil (a wildcard, or no such item).
func firstSetOpField(l *ast.SetOprSelectList, i int) ast.ExprNode {
	for len(l.Selects) > 0 {
		switch s := l.Selects[0].(type) {
		case *ast.SelectStmt:
			if s.Fields == nil || i >= len(s.Fields.Fields) || s.Fields.Fields[i].WildCard != nil {
				return nil
			}
			return s.Fields.Fields[i].Expr
		case *ast.SetOprSelectList:
			l = s
		default:
			return nil
		}
	}
	return nil
}

func (b *binder) combine(l, r Plan, op *ast.SetOprType) Plan {
	kind, all, word := Union, false, "UNION"
	if op != nil {
		switch *op {
		case ast.UnionAll:
			all = true
		case ast.Intersect:
			kind, word = Intersect, "INTERSECT"
		case ast.IntersectAll:
			kind, all, word = Intersect, true, "INTERSECT"
		case ast.Except:
			kind, word = Except, "EXCEPT"
		case ast.ExceptAll:
			kind, all, word = Except, true, "EXCEPT"
		}
	}
	ls, rs := l.Schema(), r.Schema()
	if len(ls) != len(rs) {
		failf(pgerr.SyntaxError, "each %s query must have the same number of columns", word)
	}
	out := make(types.Schema, len(ls))
	lc, rc := make([]Expr, len(ls)), make([]Expr, len(ls))
	lneed, rneed := false, false
	for i := range ls {
		t, err := commonType(word, []types.T{ls[i].T, rs[i].T})
		if err != nil {
			fail(pgerr.As(err))
		}
		out[i] = types.Column{Name: ls[i].Name, T: t}
		lc[i] = b.castCol(i, ls[i], t, &lneed)
		rc[i] = b.castCol(i, rs[i], t, &rneed)
	}
	if lneed {
		l = b.coerceOutputs(l, lc, out)
	}
	if rneed {
		r = b.coerceOutputs(r, rc, out)
	}
	return &SetOp{Kind: kind, All: all, Left: l, Right: r, Out: out}
}

func withTypes(names, ts types.Schema) types.Schema {
	out := make(types.Schema, len(names))
	for i := range names {
		out[i] = types.Column{Name: names[i].Name, T: ts[i].T}
	}
	return out
}

// coerceOutputs converts a set-operation branch's columns to the unified
// types: in place when the branch ends in a projection (so untyped
// literals become typed constants), else through a new projection.
func (b *binder) coerceOutputs(p Plan, casts []Expr, want types.Schema) Plan {
	if pr, ok := p.(*Project); ok {
		for i := range pr.Exprs {
			if pr.Out[i].T == want[i].T {
				continue
			}
			x := pr.Exprs[i]
			orig := x
			if b.typeOf(x).ID == types.Unknown && !b.isUnknown(x) {
				x = &Cast{Arg: x, T: types.TText}
			}
			if c := b.tryCoerce(x, want[i].T, ctxImplicit); c != nil {
				pr.Exprs[i] = c
			} else {
				pr.Exprs[i] = &Cast{Arg: x, T: want[i].T}
			}
			if b.notes != nil {
				b.notes.implicit[pr.Exprs[i]] = orig
			}
			b.notePosAt(pr.Exprs[i], b.exprPos(orig))
			pr.Out[i].T = want[i].T
		}
		return pr
	}
	if v, ok := p.(*Values); ok {
		for j := range v.Out {
			if v.Out[j].T == want[j].T {
				continue
			}
			for _, r := range v.Rows {
				if c := b.tryCoerce(r[j], want[j].T, ctxImplicit); c != nil {
					r[j] = c
				}
			}
			v.Out[j].T = want[j].T
		}
		return v
	}
	return &Project{Input: p, Exprs: casts, Out: withTypes(p.Schema(), want)}
}

// castCol references column i of a branch, cast to t when needed.
func (b *binder) castCol(i int, c types.Column, t types.T, need *bool) Expr {
	var e Expr = &ColRef{Idx: i, T: c.T, Name: c.Name}
	if c.T == t {
		return e
	}
	*need = true
	if c.T.ID == types.Unknown {
		return &Cast{Arg: &Cast{Arg: e, T: types.TText}, T: t}
	}
	return &Cast{Arg: e, T: t}
}

// bindValues binds a VALUES list: column types per §10.5, names column1..n.
func (b *binder) bindValues(lists []*ast.RowExpr, outer *scope, lvl *level, keepUnknown bool) Plan {
	c := &exprCtx{s: &scope{parent: outer, lvl: lvl}, clause: "VALUES"}
	var rows [][]Expr
	for _, r := range lists {
		row := b.exprs(c, r.Values)
		if len(rows) > 0 && len(row) != len(rows[0]) {
			failf(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		failf(pgerr.SyntaxError, "syntax error at end of input")
	}
	out := make(types.Schema, len(rows[0]))
	for j := range rows[0] {
		col := make([]Expr, len(rows))
		for i := range rows {
			col[i] = rows[i][j]
		}
		var t types.T
		allUnknown := true
		for _, e := range col {
			if !b.isUnknown(e) {
				allUnknown = false
			}
		}
		if allUnknown && keepUnknown {
			t = types.TUnknown
		} else {
			col, t = b.unify("VALUES", col, nil)
		}
		for i := range rows {
			rows[i][j] = col[i]
		}
		out[j] = types.Column{Name: fmt.Sprintf("column%d", j+1), T: t}
	}
	return &Values{Rows: rows, Out: out}
}

// fromItem binds a FROM item: a table, a derived table, a table function
// or a join tree.
func (b *binder) fromItem(n ast.ResultSetNode, outer *scope, lvl *level) (Plan, *scope) {
	procTime := b.procTimeOK
	b.procTimeOK = false
	switch n := n.(type) {
	case *ast.Join:
		if n.Right == nil {
			return b.fromItem(n.Left, outer, lvl)
		}
		return b.join(n, outer, lvl)
	case *ast.TableSource:
		start := b.accesses()
		plan, sc := b.tableSource(n, procTime, outer, lvl)
		b.addLockTarget(n, start)
		return plan, sc
	}
	failf(pgerr.FeatureNotSupported, "FROM item %T is not supported", n)
	return nil, nil
}

// tableSource binds one item of FROM: a table, view, CTE or function
// by name, a subquery, or a parenthesized join.
func (b *binder) tableSource(n *ast.TableSource, procTime bool, outer *scope, lvl *level) (Plan, *scope) {
	alias := n.AsName.O
	switch src := n.Source.(type) {
	case *ast.TableName:
		if src.AsOf != nil {
			return b.procTimeRef(src, alias, procTime, outer, lvl)
		}
		if src.TableSample != nil {
			return b.sampledRef(src, alias, outer, lvl)
		}
		return b.tableRef(src, alias, outer, lvl)
	case *ast.SelectStmt, *ast.SetOprStmt:
		if alias == "" {
			failf(pgerr.SyntaxError, "subquery in FROM must have an alias")
		}
		r := b.bindQuery(src, outer, lvl, nil)
		if b.subAliases != nil {
			b.subAliases[r.plan] = alias
			b.noteRowsFrom(src, r.plan, alias)
		}
		p, sc := b.derived(r.plan, alias, b.q.Aliases[alias], outer, lvl)
		if cols := b.q.Aliases[alias]; cols != nil && b.notes != nil {
			b.notes.colAliases[p] = cols
		}
		return p, sc
	case *ast.Join:
		return b.fromItem(src, outer, lvl)
	}
	failf(pgerr.FeatureNotSupported, "FROM item %T is not supported", n.Source)
	return nil, nil
}

// noteRowsFrom notes, when deparsing, the derived table the bridge
// writes for ROWS FROM (sql/doc.go #10), src bound to p.
func (b *binder) noteRowsFrom(src ast.Node, p Plan, alias string) {
	s, ok := src.(*ast.SelectStmt)
	if !ok || b.notes == nil || s.SelectStmtOpts == nil || !s.SelectStmtOpts.SQLSmallResult {
		return
	}
	if alias == "__weir_rows" {
		failf(pgerr.FeatureNotSupported, "cannot deparse ROWS FROM without an alias")
	}
	b.notes.rowsFrom[p] = true
}

// derived makes a scope for a subquery (or CTE, view) in FROM named
// alias, renaming its columns by colAliases.
func (b *binder) derived(p Plan, alias string, colAliases []string, outer *scope, lvl *level) (Plan, *scope) {
	sch := p.Schema()
	if len(colAliases) > len(sch) {
		failf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, len(sch), len(colAliases))
	}
	p, rowInfo := b.rowFields(p)
	sch = p.Schema()
	sc := &scope{parent: outer, lvl: lvl, tables: []string{alias}}
	renamed := false
	doms := Domains(p)
	for i, c := range sch {
		name := c.Name
		if i < len(colAliases) && colAliases[i] != "" {
			name = colAliases[i]
			renamed = renamed || name != c.Name
		}
		sc.cols = append(sc.cols, colInfo{table: alias, name: name, t: c.T, hidden: c.Hidden, domain: doms[i].OID, domainArray: doms[i].Array})
	}
	for i, f := range rowInfo {
		sc.cols[i].fields, sc.cols[i].fieldNames, sc.cols[i].unknownField = f.fields, f.names, f.unknown
	}
	if renamed {
		pr := &Project{Input: p}
		for i, c := range sch {
			pr.Exprs = append(pr.Exprs, &ColRef{Idx: i, T: c.T, Name: c.Name})
			pr.Out = append(pr.Out, types.Column{Name: sc.cols[i].name, T: c.T, Hidden: c.Hidden})
		}
		p = pr
	}
	return p, sc
}

// subqueryRow returns the fields of x when it reads a column of a
// subquery in FROM of this query level that is a row constructor (see
// rowFields), each as a reference to its hidden column; PostgreSQL's
// XX000 when a field's type was unknown.
func (b *binder) subqueryRow(sc *scope, x Expr) ([]selectItem, bool) {
	r, ok := x.(*ColRef)
	if !ok || sc == nil || sc.grouped != nil || r.Idx < 0 || r.Idx >= len(sc.cols) || sc.cols[r.Idx].fields == nil {
		return nil, false
	}
	col := sc.cols[r.Idx]
	if col.unknownField {
		fail(pgerr.New(pgerr.InternalError, "failed to find conversion function from unknown to text"))
	}
	var out []selectItem
	for j, off := range col.fields {
		k := r.Idx + off
		out = append(out, selectItem{name: col.fieldNames[j], e: &ColRef{Idx: k, T: sc.cols[k].t, Name: col.table + "." + col.fieldNames[j]}})
	}
	return out, true
}

// subqueryField is field of x, a subquery's row constructor column (see
// subqueryRow), or false when x is none or has no such field (fieldOf
// then decides).
func (b *binder) subqueryField(sc *scope, x Expr, field string) (Expr, bool) {
	if field == "*" {
		return nil, false
	}
	r, ok := x.(*ColRef)
	if !ok || sc == nil || sc.grouped != nil || r.Idx < 0 || r.Idx >= len(sc.cols) || sc.cols[r.Idx].fields == nil || sc.cols[r.Idx].unknownField {
		return nil, false
	}
	fields, _ := b.subqueryRow(sc, x)
	for _, f := range fields {
		if f.name == field {
			return f.e, true
		}
	}
	return nil, false
}

// rowField describes a row constructor among a subquery's outputs: the
// offsets from its column to the hidden columns holding its fields,
// their names, and whether one was of unknown type.
type rowField struct {
	fields  []int
	names   []string
	unknown bool
}

// rowFields returns p, the plan of a subquery in FROM, with the fields
// of each row constructor it outputs (ROW(a, b) AS x) added as hidden
// columns after its own, so that (x).* and (x).f read them, as
// PostgreSQL expands a subquery's record column by looking into it. A
// plan that is no projection is returned as it is. The projection is
// copied: a CTE's plan may be read elsewhere.
func (b *binder) rowFields(p Plan) (Plan, map[int]rowField) {
	pr, ok := p.(*Project)
	if !ok || len(pr.Exprs) != len(pr.Out) {
		return p, nil
	}
	var info map[int]rowField
	var np *Project
	for i, x := range pr.Exprs {
		r, ok := x.(*Call)
		if !ok || r.Fn != "pg_row" || pr.Out[i].Hidden {
			continue
		}
		if np == nil {
			np = &Project{Input: pr.Input, Exprs: slices.Clone(pr.Exprs), Out: slices.Clone(pr.Out)}
			info = map[int]rowField{}
		}
		names := b.rowNames[r]
		f := rowField{unknown: b.rowUnknown[r]}
		for j, a := range r.Args {
			name := "f" + strconv.Itoa(j+1)
			if j < len(names) {
				name = names[j]
			}
			f.fields = append(f.fields, len(np.Exprs)-i)
			f.names = append(f.names, name)
			np.Exprs = append(np.Exprs, a)
			np.Out = append(np.Out, types.Column{Name: "?field?" + pr.Out[i].Name + "." + name, T: a.Type(), Hidden: true})
		}
		info[i] = f
	}
	if np == nil {
		return p, nil
	}
	return np, info
}

// tableRef binds a table name: a CTE, a table function placeholder, a
// user relation or a system table.
func (b *binder) tableRef(tn *ast.TableName, alias string, outer *scope, lvl *level) (Plan, *scope) {
	schema, name := tn.Schema.O, tn.Name.O
	if schema == "" {
		if d := b.findCTE(name); d != nil {
			if b.aliases != nil && b.withs == nil {
				failf(pgerr.FeatureNotSupported, "cannot deparse WITH RECURSIVE")
			}
			if alias == "" {
				alias = name
			}
			if d.state != cteIdle {
				return b.recursiveRef(d, tn, alias, outer, lvl)
			}
			saved := b.ctes
			b.ctes = d.ctes
			var plan Plan
			if d.recursive {
				plan = b.bindRecursiveCTE(d, outer, lvl)
			} else {
				plan = b.bindQuery(d.cte.Query.Query, outer, lvl, nil).plan
			}
			b.ctes = saved
			var cols []string
			for _, c := range d.cte.ColNameList {
				cols = append(cols, c.O)
			}
			p, sc := b.derived(plan, alias, cols, outer, lvl)
			if b.cteRefs != nil {
				b.cteRefs[p] = [2]string{name, alias}
			}
			return p, sc
		}
		if tvf, ok := b.q.TVFs[name]; ok {
			return b.tableFunc(tvf, alias, outer, lvl, b.pos(tn))
		}
	}
	// Only an alias written after the name has a column alias list
	// (t AS t(a, b) too); Aliases is keyed by alias.
	written := alias != ""
	if alias == "" {
		alias = name
	}
	priv := catalog.PrivSelect
	if tn == b.targetRef {
		priv = 0
	}
	rel, ok := b.relation(schema, name, priv)
	if !ok {
		if oc, isOC := b.cat.(OwnedSequenceCatalog); isOC {
			if t, col, ok := oc.OwnedSequence(schema, name); ok {
				// The engine checks SELECT on the sequence when it reads
				// the row.
				b.deps[t.ID] = true
				return sequenceScan(t, alias, outer, lvl, fmt.Sprintf("%d/%d", t.ID, col), t.Cols[col].Seq)
			}
		}
		if sch, cols, ok := b.systemTable(schema, name); ok {
			sc := &scope{parent: outer, lvl: lvl, tables: []string{alias}}
			out := make(types.Schema, len(cols))
			for i, c := range cols {
				sc.cols = append(sc.cols, colInfo{table: alias, name: c.Name, t: c.T, notNull: c.NotNull, hidden: c.Hidden})
				out[i] = c
			}
			return &SystemScan{Schema_: sch, Name: name, Out: out}, sc
		}
		full := name
		if schema != "" {
			full = schema + "." + name
		}
		fail(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", full).WithPosition(b.pos(tn)))
	}
	b.deps[rel.ID] = true
	switch rel.Kind {
	case catalog.KindView:
		if b.aliases == nil {
			return b.expandView(rel, alias, outer, lvl)
		}
	case catalog.KindSink:
		failf(pgerr.WrongObjectType, "\"%s\" is a sink, not a table", name)
	case catalog.KindSequence:
		return sequenceScan(rel, alias, outer, lvl, strconv.FormatUint(uint64(rel.ID), 10), rel.Name)
	case catalog.KindIndex:
		failf(pgerr.WrongObjectType, "\"%s\" is an index", name)
	}
	sc := &scope{parent: outer, lvl: lvl, tables: []string{alias}}
	scan := &Scan{Rel: rel}
	for i, c := range rel.Cols {
		scan.Cols = append(scan.Cols, i)
		scan.Out = append(scan.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull, Hidden: c.Hidden})
		sc.cols = append(sc.cols, colInfo{table: alias, name: scopeName(c), t: c.T, notNull: c.NotNull, hidden: c.Hidden, domain: c.Domain, domainArray: c.DomainArray})
	}
	for _, i := range rel.PK {
		// A generated row id is no declared key (Postgres has none).
		if i < len(sc.cols) && !sc.cols[i].hidden {
			sc.cols[i].pk = true
		}
	}
	if b.aliases != nil {
		b.aliases[scan] = alias
	}
	if cols := b.q.Aliases[alias]; cols != nil && written {
		p, sc := b.renameColumns(scan, sc, alias, cols)
		if b.notes != nil {
			b.notes.colAliases[p] = cols
		}
		return p, sc
	}
	return scan, sc
}

// procTimeRef binds `rel FOR SYSTEM_TIME AS OF PROCTIME()` (the bridge
// hands it over as TiDB's AS OF TIMESTAMP clause): the lookup side of a
// process-time temporal join, which must be the right side of an inner
// or left join (ok) and a table or materialized view. The stream planner
// checks that the join's keys cover its primary key.
func (b *binder) procTimeRef(tn *ast.TableName, alias string, ok bool, outer *scope, lvl *level) (Plan, *scope) {
	call, isCall := tn.AsOf.TsExpr.(*ast.FuncCallExpr)
	if !isCall || !strings.EqualFold(call.FnName.O, "proctime") || len(call.Args) > 0 {
		fail(pgerr.New(pgerr.FeatureNotSupported, "FOR SYSTEM_TIME AS OF supports only PROCTIME()").WithPosition(b.pos(tn)))
	}
	if !ok {
		fail(pgerr.New(pgerr.FeatureNotSupported, "FOR SYSTEM_TIME AS OF PROCTIME() is supported only on the right side of a JOIN or LEFT JOIN with an ON condition").
			WithPosition(b.pos(tn)))
	}
	p, sc := b.tableRef(tn, alias, outer, lvl)
	scan, _ := p.(*Scan)
	if scan == nil {
		if pr, isProj := p.(*Project); isProj {
			scan, _ = pr.Input.(*Scan)
		}
	}
	if scan == nil || (scan.Rel.Kind != catalog.KindTable && scan.Rel.Kind != catalog.KindMView) {
		fail(pgerr.New(pgerr.FeatureNotSupported, "FOR SYSTEM_TIME AS OF PROCTIME() needs a table or materialized view, and \"%s\" is not one", tn.Name.O).
			WithPosition(b.pos(tn)))
	}
	scan.ProcTime = true
	return p, sc
}

// expandView binds a view's definition in place of its name.
func (b *binder) expandView(rel *catalog.Relation, alias string, outer *scope, lvl *level) (Plan, *scope) {
	if b.viewDepth > 32 {
		failf(pgerr.InvalidRecursion, "infinite recursion detected in rules for relation \"%s\"", rel.Name)
	}
	st, err := parseDefinition(rel.SQL)
	if err != nil {
		// Its position is in the stored text, not in the statement.
		fail(pgerr.New(pgerr.ObjectNotInPrerequisiteState, "view \"%s\" cannot be read: its stored definition does not parse", rel.Name).
			WithDetail("%s", pgerr.As(err).Message).
			WithHint("Drop it and create it again."))
	}
	vq, ok := st.(*sql.Query)
	if !ok {
		failf(pgerr.InternalError, "view \"%s\" has no query", rel.Name)
	}
	// The view reads its tables as they were when it was bound; a
	// permanent view's names never meant temporary tables.
	cat := b.cat
	if p, ok := cat.(pinnedCatalog); ok {
		cat = p.Catalog
	}
	if pc, ok := cat.(PermanentCatalog); ok && !rel.Temp {
		cat = pc.Permanent()
	}
	if sp, ok := cat.(SearchPathCatalog); ok {
		// Its names mean what they meant under the search path it
		// was created with, whatever the reading session's.
		cat = sp.SearchPath(rel.SearchPath)
	}
	if f := rel.With[catalog.SearchSchemaOption]; f != "" {
		if sc, ok := cat.(SchemaFirstCatalog); ok {
			cat = sc.SchemaFirst(f)
		}
	}
	at := b.accesses() - 1 // the view's own read, just recorded
	vb := &binder{q: vq, cat: PinnedCatalog(cat, rel.DepCols), deps: b.deps, viewDepth: b.viewDepth + 1, access: b.access, view: rel, fnUses: b.uses(), ctx: b.ctx, late: b.late}
	r := vb.bindQuery(vq.Node.(ast.ResultSetNode), nil, &level{}, nil)
	b.keepViewLocks(at, rel, vb, vq.Node)
	var names []string
	for _, c := range rel.Cols {
		names = append(names, c.Name)
	}
	return b.derived(r.plan, alias, names, outer, lvl)
}

// fromFunction returns the table function (and its alias) that FROM
// item n is, other than the window functions TUMBLE and HOP, which take
// a relation.
func (b *binder) fromFunction(n ast.ResultSetNode) (*sql.TVF, string, bool) {
	ts, ok := n.(*ast.TableSource)
	if !ok {
		return nil, "", false
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok || tn.Schema.O != "" || b.findCTE(tn.Name.O) != nil {
		return nil, "", false
	}
	tvf, ok := b.q.TVFs[tn.Name.O]
	if !ok || tvf.Name == "tumble" || tvf.Name == "hop" {
		return nil, "", false
	}
	return tvf, ts.AsName.O, true
}

// tableFunc binds a table function in FROM; namePos is the position of
// its name.
func (b *binder) tableFunc(f *sql.TVF, alias string, outer *scope, lvl *level, namePos int) (Plan, *scope) {
	if b.subAliases != nil && hasNamedArgs(f.Args) {
		failf(pgerr.FeatureNotSupported, "cannot deparse a function in FROM with named arguments")
	}
	p, sc := b.tableFuncPlan(f, alias, outer, lvl, namePos)
	if tf, ok := p.(*TableFunc); ok && b.subAliases != nil {
		// When deparsing, the name of a function in FROM is kept as a
		// subquery's alias is, and LATERAL as written.
		b.subAliases[tf] = sc.tables[0]
		if f.Lateral {
			b.laterals[tf] = true
		}
	}
	return p, sc
}

// tableFuncPlan binds a function in FROM (tableFunc).
func (b *binder) tableFuncPlan(f *sql.TVF, alias string, outer *scope, lvl *level, namePos int) (Plan, *scope) {
	if alias == "" {
		alias = f.Alias
	}
	if f.Name == "tumble" || f.Name == "hop" {
		return b.windowFunc(f, alias, outer, lvl)
	}
	c := &exprCtx{s: &scope{parent: outer, lvl: lvl}, clause: "functions in FROM"}
	if f.Map != nil {
		saved := b.tvfMap
		b.tvfMap = f.Map
		defer func() { b.tvfMap = saved }()
	}
	if hasNamedArgs(f.Args) {
		tvf := *f
		tvf.Args = b.positionalArgs(c, f.Name, f.Args, namePos)
		f = &tvf
	}
	if f.Name == "pg_options_to_table" && len(f.Args) == 1 {
		// psql's \d of a foreign table (how sources appear) lists the
		// table's options; weir keeps none in pg_foreign_table, so the
		// function is only ever called on NULL and returns no rows.
		b.expr(c, f.Args[0])
		tf := &TableFunc{Fn: "pg_options_to_table", Args: []Expr{&Const{V: types.NullDatum, T: types.TTextArray}},
			Out: types.Schema{{Name: "option_name", T: types.TText}, {Name: "option_value", T: types.TText}}}
		tableName := cmpOr(alias, tf.Fn)
		sc := &scope{parent: outer, lvl: lvl, tables: []string{tableName}}
		for _, col := range tf.Out {
			sc.cols = append(sc.cols, colInfo{table: tableName, name: col.Name, t: col.T})
		}
		return tf, sc
	}
	var tf *TableFunc
	switch f.Name {
	case "generate_series", "regexp_split_to_table", "regexp_matches", "pg_partition_ancestors", "json_array_elements", "json_array_elements_text", "json_object_keys",
		"jsonb_array_elements", "jsonb_array_elements_text", "jsonb_object_keys", "jsonb_path_query", "jsonb_path_query_tz":
		tf = b.bindSRF(f.Name, b.srfArgs(c, f.Name, f.Args, 0), nil)
	case "unnest":
		if len(f.Args) == 1 {
			// unnest(array value), possibly of an outer column (psql's
			// \d+ unnests pg_class.reloptions).
			if arg := b.expr(c, f.Args[0]); b.typeOf(arg).IsArray() {
				tf = &TableFunc{Fn: "unnest", Args: []Expr{arg}, Out: types.Schema{{Name: "unnest", T: b.typeOf(arg).Elem()}}}
			}
		}
		if tf == nil {
			failf(pgerr.FeatureNotSupported, "unnest is supported only over one-dimensional arrays")
		}
	default:
		if sig, ok := functions.JSONEachFuncs[f.Name]; ok {
			// json[b]_each[_text]: two columns, key and value, which
			// column aliases rename and a table alias does not.
			args := b.exprs(c, f.Args)
			call := b.resolveLocal(f.Name, []*Overload{{Name: f.Name, Args: []types.TypeID{sig[0]}, Ret: sig[1]}}, args)
			tf = &TableFunc{Fn: f.Name, Args: call.Args, Out: types.Schema{{Name: "key", T: types.TText}, {Name: "value", T: types.T{ID: sig[1], Mod: -1}}}}
			return tf, b.tableFuncScope(f, tf, cmpOr(alias, tf.Fn), outer, lvl)
		}
		failf(pgerr.FeatureNotSupported, "function %s in FROM is not supported", f.Name)
	}
	// The json[b]_array_elements functions name their column (OUT
	// value), which a table alias does not rename.
	named := strings.Contains(tf.Fn, "_array_elements")
	if named {
		tf.Out[0].Name = "value"
	}
	tableName := alias
	if tableName == "" {
		tableName = tf.Fn
	} else if len(f.Columns) == 0 && !named {
		// A scalar function's single column takes the table alias.
		tf.Out[0].Name = alias
	}
	return tf, b.tableFuncScope(f, tf, tableName, outer, lvl)
}

// tableFuncScope appends WITH ORDINALITY's column to tf, names tf's
// columns by f's column aliases (42804 for more aliases than columns, as
// PostgreSQL) and returns the scope of its columns under tableName.
func (b *binder) tableFuncScope(f *sql.TVF, tf *TableFunc, tableName string, outer *scope, lvl *level) *scope {
	scalar := len(tf.Out) == 1 && !f.Ordinality
	if f.Ordinality {
		tf.Ordinality = true
		tf.Out = append(tf.Out, types.Column{Name: "ordinality", T: types.TInt8, NotNull: true})
	}
	if len(f.Columns) > len(tf.Out) {
		failf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", tableName, len(tf.Out), len(f.Columns))
	}
	for i, name := range f.Columns {
		if name != "" {
			tf.Out[i].Name = name
		}
	}
	sc := &scope{parent: outer, lvl: lvl, tables: []string{tableName}}
	for _, col := range tf.Out {
		sc.cols = append(sc.cols, colInfo{table: tableName, name: col.Name, t: col.T, scalarRow: scalar})
	}
	return sc
}

// generateSeries lists generate_series's signatures (Postgres 15 §9.25).
var generateSeries = []*Overload{
	{Name: "generate_series", Args: []types.TypeID{types.Int4, types.Int4}, Ret: types.Int4},
	{Name: "generate_series", Args: []types.TypeID{types.Int4, types.Int4, types.Int4}, Ret: types.Int4},
	{Name: "generate_series", Args: []types.TypeID{types.Int8, types.Int8}, Ret: types.Int8},
	{Name: "generate_series", Args: []types.TypeID{types.Int8, types.Int8, types.Int8}, Ret: types.Int8},
	{Name: "generate_series", Args: []types.TypeID{types.Numeric, types.Numeric}, Ret: types.Numeric},
	{Name: "generate_series", Args: []types.TypeID{types.Numeric, types.Numeric, types.Numeric}, Ret: types.Numeric},
	{Name: "generate_series", Args: []types.TypeID{types.Timestamp, types.Timestamp, types.Interval}, Ret: types.Timestamp},
	{Name: "generate_series", Args: []types.TypeID{types.Timestamptz, types.Timestamptz, types.Interval}, Ret: types.Timestamptz},
}

// resolveLocal resolves a call against a local overload list.
func (b *binder) resolveLocal(name string, cands []*Overload, args []Expr) *Call {
	an := make([]argNode, len(args))
	for i, a := range args {
		an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
	}
	o, _ := resolveOverload(cands, an)
	if o == nil {
		fail(b.noSuchFunc(name, an, false, nil))
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		out[i] = b.tryCoerce(a, types.T{ID: o.Args[i], Mod: -1}, ctxImplicit)
	}
	return &Call{Fn: name, Args: out, T: o.Result(nil)}
}

// join binds a join of two FROM items.
func (b *binder) join(n *ast.Join, outer *scope, lvl *level) (Plan, *scope) {
	cross := n.StraightJoin && n.On == nil && len(n.Using) == 0 && !n.NaturalJoin
	if cross {
		// CROSS JOIN as the bridge writes it (sql/doc.go #14): a comma
		// list's join.
		c := *n
		c.StraightJoin, c.Tp = false, ast.CrossJoin
		n = &c
	}
	lp, ls := b.fromItem(n.Left, outer, lvl)
	var rp Plan
	var rs *scope
	lateral := false
	// lateralLvl is the level the right side was bound at when it may
	// read the left's columns.
	var lateralLvl *level
	if ts, ok := n.Right.(*ast.TableSource); ok && ts.Lateral {
		switch src := ts.Source.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt:
			// A LATERAL subquery sees the columns to its left as those
			// of an enclosing query: it is re-run for each left row.
			alias := ts.AsName.O
			if alias == "" {
				failf(pgerr.SyntaxError, "subquery in FROM must have an alias")
			}
			left := ls
			if b.dmlTarget != "" && ls.hasTable(b.dmlTarget) {
				// UPDATE's and DELETE's target is no FROM item the
				// others may reference, as in PostgreSQL.
				hidden := *ls
				hidden.invisible = b.dmlTarget
				left = &hidden
			}
			lateralLvl = &level{parent: lvl}
			r := b.bindQuery(src.(ast.ResultSetNode), left, lateralLvl, nil)
			if b.subAliases != nil {
				b.subAliases[r.plan] = alias
				b.laterals[r.plan] = true
				b.noteRowsFrom(src, r.plan, alias)
			}
			rp, rs = b.derived(r.plan, alias, b.q.Aliases[alias], outer, lvl)
			if cols := b.q.Aliases[alias]; cols != nil && b.notes != nil {
				b.notes.colAliases[rp] = cols
			}
			// A LATERAL subquery that reads nothing to its left is an
			// ordinary one: run once, and allowed in views.
			lateral = lateralLvl.correlated
		}
	}
	if tvf, alias, ok := b.fromFunction(n.Right); ok && rp == nil {
		namePos := 0
		if ts, ok := n.Right.(*ast.TableSource); ok {
			namePos = b.pos(ts.Source)
		}
		// A function in FROM may read the columns of the items to its
		// left, LATERAL or not, as in PostgreSQL: bound with them as an
		// enclosing query's, it is re-run for each left row when it
		// does (a correlated level), and joined as any item otherwise.
		lateralLvl = &level{parent: lvl}
		rp, rs = b.tableFunc(tvf, alias, ls, lateralLvl, namePos)
		rs = &scope{parent: outer, lvl: lvl, tables: rs.tables, cols: rs.cols}
		lateral = lateralLvl.correlated
	}
	if rp == nil {
		saved := b.procTimeOK
		b.procTimeOK = !n.StraightJoin && (n.Tp == ast.CrossJoin || n.Tp == ast.LeftJoin) && !n.NaturalJoin && len(n.Using) == 0
		if _, ok := n.Right.(*ast.TableSource); !ok {
			b.procTimeOK = false
		}
		rp, rs = b.fromItem(n.Right, outer, lvl)
		b.procTimeOK = saved
	}
	for _, t := range rs.tables {
		if ls.hasTable(t) {
			failf(pgerr.DuplicateAlias, "table name \"%s\" specified more than once", t)
		}
	}
	kind := InnerJoin
	switch {
	case n.StraightJoin:
		kind = FullJoin
	case n.Tp == ast.LeftJoin:
		kind = LeftJoin
	case n.Tp == ast.RightJoin:
		kind = RightJoin
	}
	sc := &scope{parent: outer, lvl: lvl, tables: append(append([]string{}, ls.tables...), rs.tables...)}
	sc.cols = append(append([]colInfo{}, ls.cols...), rs.cols...)
	out := append(append(types.Schema{}, lp.Schema()...), rp.Schema()...)
	j := &Join{Kind: kind, Left: lp, Right: rp, Out: out, Lateral: lateral}
	if cross && b.notes != nil {
		b.notes.crossJoins[j] = true
	}
	if lateral && kind != InnerJoin && kind != LeftJoin {
		table, pos := ls.tables[0], 0
		if lateralLvl != nil && lateralLvl.outerTable != "" {
			table, pos = lateralLvl.outerTable, lateralLvl.outerPos
		}
		fail(pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table \"%s\"", table).
			WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.").WithPosition(pos))
	}
	if kind == LeftJoin || kind == FullJoin {
		for i := len(ls.cols); i < len(sc.cols); i++ {
			j.Out[i].NotNull = false
		}
	}
	if n.NaturalJoin || len(n.Using) > 0 {
		var names []string
		if n.NaturalJoin {
			for _, c := range ls.cols {
				if c.hidden || c.merged {
					continue
				}
				for _, rc := range rs.cols {
					if rc.name == c.name && !rc.hidden && !rc.merged {
						names = append(names, c.name)
						break
					}
				}
			}
		} else {
			for _, u := range n.Using {
				names = append(names, u.Name.O)
			}
		}
		if len(names) == 0 && kind == InnerJoin && b.notes != nil {
			// PostgreSQL prints a NATURAL join without common columns
			// as a CROSS JOIN.
			b.notes.crossJoins[j] = true
			return j, sc
		}
		p, nsc := b.usingJoin(j, ls, rs, sc, names)
		if b.usingJoins != nil {
			// PostgreSQL prints a NATURAL join as the USING join it
			// stands for, and one without common columns of another
			// kind with ON TRUE.
			if len(names) == 0 {
				failf(pgerr.FeatureNotSupported, "cannot deparse a NATURAL join without common columns")
			}
			b.usingJoins[p] = names
		}
		return p, nsc
	}
	if n.On != nil {
		// Constant booleans fold away first, so that x = y OR false is
		// the equality a hash join (and a FULL JOIN) needs.
		j.Cond = foldConstBool(b.boolArg(b.expr(&exprCtx{s: sc, clause: "JOIN conditions"}, n.On.Expr), "JOIN/ON"), true)
		if kind == FullJoin && !fullJoinable(j.Cond, len(lp.Schema())) {
			failf(pgerr.FeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
		}
	}
	return j, sc
}

// fullJoinable reports whether PostgreSQL would plan a FULL JOIN with
// condition cond over a row of nl left columns: it needs a hash or merge
// join, so an equality between the two sides among cond's conjuncts
// (the other conjuncts are then checked on each match), unless cond
// reads no column at all and folds to a constant.
func fullJoinable(cond Expr, nl int) bool {
	constant := true
	for _, c := range conjuncts(cond) {
		if side(c, nl) != 'c' {
			constant = false
		}
		if call, ok := c.(*Call); ok && call.Fn == "=" && len(call.Args) == 2 {
			sa, sb := side(call.Args[0], nl), side(call.Args[1], nl)
			if sa == 'l' && sb == 'r' || sa == 'r' && sb == 'l' {
				return true
			}
		}
	}
	return constant
}

// usingJoin completes a USING / NATURAL join: the join condition is the
// equality of the named columns, and a projection puts the merged columns
// first, as Postgres's * shows them.
func (b *binder) usingJoin(j *Join, ls, rs, sc *scope, names []string) (Plan, *scope) {
	find := func(s *scope, name, side string) int {
		idx := -1
		for i, c := range s.cols {
			if c.name == name && !c.merged {
				if idx >= 0 {
					failf(pgerr.AmbiguousColumn, "common column name \"%s\" appears more than once in %s table", name, side)
				}
				idx = i
			}
		}
		if idx < 0 {
			failf(pgerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, side)
		}
		return idx
	}
	nl := len(ls.cols)
	var conds []Expr
	proj := &Project{Input: j}
	var pairs [][2]int
	nsc := &scope{parent: sc.parent, lvl: sc.lvl, tables: sc.tables}
	mergedL, mergedR := map[int]bool{}, map[int]bool{}
	for _, name := range names {
		li, ri := find(ls, name, "left"), nl+find(rs, name, "right")
		mergedL[li], mergedR[ri] = true, true
		pairs = append(pairs, [2]int{li, ri})
		l := &ColRef{Idx: li, T: sc.cols[li].t, Name: sc.cols[li].table + "." + name}
		r := &ColRef{Idx: ri, T: sc.cols[ri].t, Name: sc.cols[ri].table + "." + name}
		eq := b.op("=", []Expr{l, r}, nil).(*Call)
		conds = append(conds, eq)
		t, err := commonType("JOIN/USING", []types.T{l.T, r.T})
		if err != nil {
			fail(pgerr.As(err))
		}
		var m Expr
		switch j.Kind {
		case RightJoin:
			m = b.mustCoerce(r, t, "JOIN/USING")
		case FullJoin:
			m = &Coalesce{Args: []Expr{b.mustCoerce(l, t, "JOIN/USING"), b.mustCoerce(r, t, "JOIN/USING")}, T: t}
		default:
			m = b.mustCoerce(l, t, "JOIN/USING")
		}
		proj.Exprs = append(proj.Exprs, m)
		proj.Out = append(proj.Out, types.Column{Name: name, T: t})
		nsc.cols = append(nsc.cols, colInfo{name: name, t: t})
	}
	for i, c := range sc.cols {
		proj.Exprs = append(proj.Exprs, &ColRef{Idx: i, T: c.t, Name: c.table + "." + c.name})
		proj.Out = append(proj.Out, types.Column{Name: c.name, T: c.t, Hidden: c.hidden})
		c.merged = c.merged || mergedL[i] || mergedR[i]
		nsc.cols = append(nsc.cols, c)
	}
	if len(conds) == 1 {
		j.Cond = conds[0]
	} else if len(conds) > 1 {
		j.Cond = &And{Args: conds}
	}
	if b.notes != nil {
		b.notes.usingCols[proj] = pairs
	}
	return proj, nsc
}

var _ = strings.ToLower

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// renameColumns applies the column aliases of FROM tbl AS t(a, b) to the
// table's visible columns, in order; the columns not named keep their
// names.
func (b *binder) renameColumns(p Plan, sc *scope, alias string, cols []string) (Plan, *scope) {
	visible := 0
	for _, c := range sc.cols {
		if !c.hidden {
			visible++
		}
	}
	if len(cols) > visible {
		failf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, visible, len(cols))
	}
	k := 0
	pr := &Project{Input: p}
	for i := range sc.cols {
		c := &sc.cols[i]
		if !c.hidden && k < len(cols) {
			c.name = cols[k]
			k++
		}
		pr.Exprs = append(pr.Exprs, &ColRef{Idx: i, T: c.t, Name: c.name})
		pr.Out = append(pr.Out, types.Column{Name: c.name, T: c.t, NotNull: c.notNull, Hidden: c.hidden})
	}
	return pr, sc
}

// sequenceScan reads a sequence as PostgreSQL shows it as a relation: one
// row of last_value, log_cnt and is_called. rel is the sequence, or the
// table owning it; id is the relation id, or "<table id>/<column>" for a
// column's sequence.
func sequenceScan(rel *catalog.Relation, alias string, outer *scope, lvl *level, id, seqName string) (Plan, *scope) {
	sc := &scope{parent: outer, lvl: lvl, tables: []string{alias}}
	out := types.Schema{
		{Name: "last_value", T: types.T{ID: types.Int8, Mod: -1}, NotNull: true},
		{Name: "log_cnt", T: types.T{ID: types.Int8, Mod: -1}, NotNull: true},
		{Name: "is_called", T: types.T{ID: types.Bool, Mod: -1}, NotNull: true},
	}
	for _, c := range out {
		sc.cols = append(sc.cols, colInfo{table: alias, name: c.Name, t: c.T, notNull: true})
	}
	return &SystemScan{Schema_: SequenceRow, Name: id, Out: out, Seq: rel, SeqName: seqName}, sc
}

// sampleArgError turns err, raised binding an argument of the clause
// (TABLESAMPLE or REPEATABLE) of a sample of the relation whose scope is
// sc, into PostgreSQL's error: a reference to the relation or one of its
// columns is one it cannot make there (with PostgreSQL's hint), and a
// set-returning function is an argument that returns a set.
func sampleArgError(err *pgerr.Error, sc *scope, clause string) *pgerr.Error {
	switch {
	case err.Code == pgerr.UndefinedColumn && err.Hint == "":
		name, ok := strings.CutPrefix(err.Message, "column \"")
		if name, ok = strings.CutSuffix(name, "\" does not exist"); !ok || sc == nil {
			return err
		}
		for _, c := range sc.cols {
			if c.name == name && !c.hidden {
				out := *err
				out.Hint = fmt.Sprintf("There is a column named \"%s\" in table \"%s\", but it cannot be referenced from this part of the query.", name, c.table)
				return &out
			}
		}
	case err.Code == pgerr.UndefinedTable && sc != nil:
		name, ok := strings.CutPrefix(err.Message, "missing FROM-clause entry for table \"")
		if name, ok = strings.CutSuffix(name, "\""); ok && sc.hasTable(name) {
			out := *err
			out.Message = fmt.Sprintf("invalid reference to FROM-clause entry for table \"%s\"", name)
			out.Hint = fmt.Sprintf("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", name)
			return &out
		}
	case strings.HasPrefix(err.Message, "set-returning functions are not allowed in "):
		out := *err
		out.Code, out.Message, out.Hint = pgerr.DatatypeMismatch, fmt.Sprintf("argument of %s must not return a set", clause), ""
		return &out
	}
	return err
}

// sampledRef binds `rel [alias] TABLESAMPLE method (percent) [REPEATABLE
// (seed)]`: rel must be a table or materialized view (0A000, as
// PostgreSQL says for a view), percent is coerced to real and seed to
// double precision (42804 otherwise). Neither may refer to the query's
// columns.
func (b *binder) sampledRef(tn *ast.TableName, alias string, outer *scope, lvl *level) (Plan, *scope) {
	ts := tn.TableSample
	method := "bernoulli"
	switch ts.SampleMethod {
	case ast.SampleMethodTypeBernoulli:
	case ast.SampleMethodTypeSystem:
		method = "system"
	default:
		failf(pgerr.SyntaxError, "syntax error at or near \"TABLESAMPLE\"")
	}
	notTable := func() {
		fail(pgerr.New(pgerr.FeatureNotSupported, "TABLESAMPLE clause can only be applied to tables and materialized views").WithPosition(b.pos(tn)))
	}
	if tn.Schema.O == "" {
		if b.findCTE(tn.Name.O) != nil {
			notTable()
		}
		if _, ok := b.q.TVFs[tn.Name.O]; ok {
			notTable()
		}
	}
	if rel, ok := b.relation(tn.Schema.O, tn.Name.O, catalog.PrivSelect); ok && rel.Kind == catalog.KindView {
		notTable()
	}
	p, sc := b.tableRef(tn, alias, outer, lvl)
	scan, ok := p.(*Scan)
	if pr, isProject := p.(*Project); isProject && !ok {
		scan, ok = pr.Input.(*Scan)
	}
	if !ok || scan.Rel == nil || scan.Rel.Kind != catalog.KindTable && scan.Rel.Kind != catalog.KindMView {
		notTable()
	}
	if ts.Expr == nil {
		failf(pgerr.SyntaxError, "syntax error at or near \")\"")
	}
	empty := &scope{lvl: &level{}}
	s := &TableSample{Method: method}
	arg := func(n ast.ExprNode, t types.T, clause string) Expr {
		// PostgreSQL analyses the arguments as those of a function in
		// FROM (the words of its aggregate and window errors), unable
		// to see the sampled relation.
		defer func() {
			if r := recover(); r != nil {
				if pe, ok := r.(*pgerr.Error); ok {
					r = sampleArgError(pe, sc, clause)
				}
				panic(r)
			}
		}()
		e := b.expr(&exprCtx{s: empty, clause: "functions in FROM"}, n)
		// An assignment coercion, as PostgreSQL's
		// coerce_to_specific_type (random() * 100 is a real there).
		out := b.coerce(e, t, ctxAssignment, "argument of "+clause)
		if c, ok := out.(*Cast); ok && c.Arg == e && c.Domain == nil {
			// PostgreSQL's implicit coercion, which its deparser does
			// not show (an assignment cast of a number to a float is
			// the same cast).
			c.Assign = true
		}
		return out
	}
	s.Percent = arg(ts.Expr, types.TFloat4, "TABLESAMPLE")
	if ts.RepeatableSeed != nil {
		s.Seed = arg(ts.RepeatableSeed, types.TFloat8, "REPEATABLE")
	}
	scan.Sample = s
	return p, sc
}
