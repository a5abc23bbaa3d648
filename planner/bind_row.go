package planner

import (
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Row constructors, (a, b) and ROW(a, b), are bound where PostgreSQL
// compares them: weir has no composite values, so a comparison of two
// rows is expanded into comparisons of their fields, as PostgreSQL's
// make_row_comparison_op defines it (manual §9.24.5):
//
//	(a, b) = (c, d)                  a = c AND b = d
//	(a, b) <> (c, d)                 a <> c OR b <> d
//	(a, b) < (c, d)                  a < c OR (a = c AND b < d)
//	(a, b) <= (c, d)                 a < c OR (a = c AND b <= d)
//	(a, b) IS NOT DISTINCT FROM ...  per field, AND
//	ROW(a, b) IS NULL                a IS NULL AND b IS NULL
//	ROW(a, b) IS NOT NULL            a IS NOT NULL AND b IS NOT NULL
//	(a, b) IN ((1, 2), (3, 4))       (a, b) = (1, 2) OR (a, b) = (3, 4)
//
// The ordering comparisons stop at the first pair of fields that are
// unequal or NULL: NULL when that pair holds a NULL, else that pair's
// answer. The expansion gives the same three-valued answer: an earlier
// equal pair contributes `false OR (true AND rest)`, a NULL pair `NULL OR
// (NULL AND rest)`, which is NULL whatever rest is. Each pair's operator
// is resolved on its own, so the fields' types need not agree across
// pairs. A row compared with a subquery's row, (a, b) op ANY|ALL
// (SELECT x, y ...), (a, b) IN (SELECT ...) and (a, b) op (SELECT ...),
// is a Subquery whose Row holds the left fields.

// rowFields returns the fields of a row constructor, or nil when n is not
// one.
func rowFields(n ast.ExprNode) []ast.ExprNode {
	switch r := unparen(n).(type) {
	case *ast.RowExpr:
		return r.Values
	case *ast.FuncCallExpr:
		// The bridge's ROW(x) (sql/doc.go #39).
		if r.FnName.L == "pg_row1" && len(r.Args) > 0 {
			return r.Args
		}
	}
	return nil
}

// rowOps are the operators a row comparison may use.
var rowOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// rowBinary binds a comparison whose left operand is a row constructor:
// against another row, or against a subquery's single row.
func (b *binder) rowBinary(c *exprCtx, n *ast.BinaryOperationExpr) Expr {
	op := cmpOp(n.Op)
	if n.Op == opcode.NullEQ {
		op = "<=>"
	}
	ls := b.rowExprs(c, rowFields(n.L))
	if sq, ok := unparen(n.R).(*ast.SubqueryExpr); ok && op != "<=>" {
		return b.rowSubquery(c, sq, SubRow, ls, op, n)
	}
	rf := rowFields(n.R)
	if rf == nil {
		b.recordOpFail("record", opSymbol(n.Op, op), b.typeOf(b.expr(c, n.R)).String(), n)
	}
	rs := b.rowExprs(c, rf)
	if op == "" {
		// PostgreSQL resolves any operator between two rows field by
		// field, and then refuses one that is not a comparison.
		if len(ls) != len(rs) {
			fail(pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions").WithPosition(b.opPos(n)))
		}
		sym := opSymbol(n.Op, op)
		if t := b.op(sym, []Expr{ls[0], rs[0]}, n).Type(); t.ID != types.Bool {
			fail(typeErrorf("row comparison operator must yield type boolean, not type %s", t).WithPosition(b.opPos(n)))
		}
		fail(pgerr.New(pgerr.FeatureNotSupported, "could not determine interpretation of row comparison operator %s", sym).
			WithHint("Row comparison operators must be associated with btree operator families.").WithPosition(b.opPos(n)))
	}
	return b.rowCompare(op, ls, rs, n)
}

// opSymbol names the operator of a binary expression in an error.
func opSymbol(o opcode.Op, op string) string {
	if op == "<=>" {
		return "="
	}
	if op != "" {
		return op
	}
	switch o {
	case opcode.Plus:
		return "+"
	case opcode.Minus:
		return "-"
	case opcode.Mul:
		return "*"
	case opcode.Div:
		return "/"
	case opcode.Mod:
		return "%"
	}
	return o.String()
}

// recordOpFail is PostgreSQL's error for an operator over a row and a
// value that is not a row, or over two rows and no comparison.
func (b *binder) recordOpFail(lt, op, rt string, n ast.Node) {
	fail(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.").
		WithPosition(b.opPos(n)))
}

// rowCompare expands ls op rs (op a comparison, or "<=>" for IS NOT
// DISTINCT FROM) into comparisons of the fields.
func (b *binder) rowCompare(op string, ls, rs []Expr, n ast.Node) Expr {
	if len(ls) != len(rs) {
		fail(pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions").WithPosition(b.opPos(n)))
	}
	if len(ls) == 0 {
		failf(pgerr.FeatureNotSupported, "cannot compare rows of zero length")
	}
	switch op {
	case "<=>":
		parts := make([]Expr, len(ls))
		for i := range ls {
			parts[i] = b.notDistinct(ls[i], rs[i], n)
		}
		return andOf(parts)
	case "=", "<>":
		parts := make([]Expr, len(ls))
		for i := range ls {
			parts[i] = b.op(op, []Expr{ls[i], rs[i]}, n)
		}
		if op == "=" {
			return andOf(parts)
		}
		return orOf(parts)
	case "<", "<=", ">", ">=":
		last := len(ls) - 1
		out := b.op(op, []Expr{ls[last], rs[last]}, n)
		strict := op[:1]
		for i := last - 1; i >= 0; i-- {
			lt := b.op(strict, []Expr{ls[i], rs[i]}, n).(*Call)
			eq := b.op("=", []Expr{lt.Args[0], lt.Args[1]}, n)
			out = &Or{Args: []Expr{lt, &And{Args: []Expr{eq, out}}}}
		}
		return out
	}
	b.recordOpFail("record", op, "record", n)
	return nil
}

// tokenBefore is a node placed at the bridged token back tokens before
// n, for errors PostgreSQL reports at a keyword the AST keeps no node
// of (the IN of x IN (subquery)); n itself when the text has no such
// token.
func (b *binder) tokenBefore(n ast.Node, back int) ast.Node {
	m := b.curMap()
	if m == nil {
		return n
	}
	off := n.OriginTextPosition()
	for i := 0; i < back; i++ {
		if off = m.OffBefore(off); off < 0 {
			return n
		}
	}
	at := &ast.DefaultExpr{}
	at.SetOriginTextPosition(off)
	return at
}

// notDistinct binds l IS NOT DISTINCT FROM r with the existing nodes:
// CASE WHEN l IS NULL THEN r IS NULL WHEN r IS NULL THEN false ELSE l = r
// END.
func (b *binder) notDistinct(l, r Expr, n ast.Node) Expr {
	eq := b.op("=", []Expr{l, r}, n)
	call := eq.(*Call)
	l, r = call.Args[0], call.Args[1]
	e := &Case{Whens: []When{
		{Cond: &IsNull{Arg: l}, Then: &IsNull{Arg: r}},
		{Cond: &IsNull{Arg: r}, Then: &Const{V: types.DBool(false), T: types.TBool}},
	}, Else: eq, T: types.TBool}
	if b.written != nil {
		b.written[e] = "notdistinct"
	}
	return e
}

// rowIsNull binds ROW(...) IS [NOT] NULL: every field NULL (IS NULL) or
// every field not NULL (IS NOT NULL).
func (b *binder) rowIsNull(c *exprCtx, fields []ast.ExprNode, not bool) Expr {
	es := b.rowExprs(c, fields)
	parts := make([]Expr, len(es))
	for i, e := range es {
		parts[i] = &IsNull{Arg: e, Not: not}
	}
	return andOf(parts)
}

// rowIn binds (a, b) [NOT] IN ((1, 2), ...) as an OR of row equalities.
func (b *binder) rowIn(c *exprCtx, n *ast.PatternInExpr) Expr {
	ls := b.rowExprs(c, rowFields(n.Expr))
	if n.Sel != nil {
		sq, ok := unparen(n.Sel).(*ast.SubqueryExpr)
		if !ok {
			failf(pgerr.FeatureNotSupported, "IN over %T is not supported", n.Sel)
		}
		if n.Not {
			return notIn(b.rowSubquery(c, sq, SubAny, ls, "=", b.tokenBefore(sq, 2)))
		}
		return b.rowSubquery(c, sq, SubAny, ls, "=", b.tokenBefore(sq, 1))
	}
	// Errors point at IN (at NOT of NOT IN): the tokens before the
	// list's opening parenthesis.
	back, op := 2, "="
	if n.Not {
		back, op = 3, "<>"
	}
	at := b.tokenBefore(n.List[0], back)
	ors := make([]Expr, len(n.List))
	for i, e := range n.List {
		rf := rowFields(e)
		if rf == nil {
			b.recordOpFail("record", op, b.typeOf(b.expr(c, e)).String(), at)
		}
		ors[i] = b.rowCompare("=", ls, b.rowExprs(c, rf), at)
	}
	out := orOf(ors)
	if n.Not {
		return &Not{Arg: out}
	}
	return out
}

// rowSubquery binds a row compared with the rows of a subquery: ANY, ALL,
// or (kind SubRow) its single row. node is the comparison, where
// operator errors point.
func (b *binder) rowSubquery(c *exprCtx, sq *ast.SubqueryExpr, kind SubqueryKind, ls []Expr, op string, node ast.Node) Expr {
	if !rowOps[op] {
		b.recordOpFail("record", op, "record", node)
	}
	lvl := &level{parent: c.s.lvl}
	r := b.bindQuery(sq.Query, c.s, lvl, nil)
	plan := r.plan
	cols := plan.Schema()
	if len(cols) > len(ls) {
		fail(pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(b.opPos(node)))
	}
	if len(cols) < len(ls) {
		fail(pgerr.New(pgerr.SyntaxError, "subquery has too few columns").WithPosition(b.opPos(node)))
	}
	out := &Subquery{Kind: kind, Op: op, Row: make([]Expr, len(ls)), T: types.TBool}
	exprs := make([]Expr, len(cols))
	project := false
	for i, l := range ls {
		col := &ColRef{Idx: i, T: cols[i].T, Name: cols[i].Name}
		call := b.op(op, []Expr{l, col}, node).(*Call)
		if op != "=" && op != "<>" {
			// The ordering comparisons test equality too.
			b.op("=", []Expr{call.Args[0], call.Args[1]}, node)
		}
		out.Row[i] = call.Args[0]
		exprs[i] = call.Args[1]
		if call.Args[1] != Expr(col) {
			project = true
		}
	}
	if project {
		s := make(types.Schema, len(cols))
		for i, e := range exprs {
			s[i] = types.Column{Name: cols[i].Name, T: e.Type()}
		}
		plan = projectOver(plan, exprs, s)
	}
	out.Plan = plan
	out.Correlated = lvl.correlated
	return out
}

// notIn turns x = ANY (subquery), bound for x NOT IN (subquery), into x
// <> ALL (subquery), its negation. PostgreSQL resolves NOT IN's operator
// as =, which its errors name; = and <> resolve alike.
func notIn(e Expr) Expr {
	s := e.(*Subquery)
	s.Kind, s.Op = SubAll, "<>"
	return s
}

// rowComparison is ls op rs over fields whose operators are resolved (a
// row subquery's fields and columns): the expansion rowCompare makes, of
// plain calls.
func rowComparison(op string, ls, rs []Expr) Expr {
	cmp := func(op string, i int) Expr {
		return &Call{Fn: op, Args: []Expr{ls[i], rs[i]}, T: types.TBool}
	}
	switch op {
	case "=", "<>":
		parts := make([]Expr, len(ls))
		for i := range ls {
			parts[i] = cmp(op, i)
		}
		if op == "=" {
			return andOf(parts)
		}
		return orOf(parts)
	}
	last := len(ls) - 1
	out := cmp(op, last)
	for i := last - 1; i >= 0; i-- {
		out = &Or{Args: []Expr{cmp(op[:1], i), &And{Args: []Expr{cmp("=", i), out}}}}
	}
	return out
}

// projectOver is a Project of exprs over plan, merged into plan when it
// is a Project itself (each of exprs reads its own column once), so a
// subquery keeps the `[Project] [Filter] rest` shape its joins in
// materialized views need.
func projectOver(plan Plan, exprs []Expr, out types.Schema) Plan {
	if p, ok := plan.(*Project); ok {
		merged := make([]Expr, len(exprs))
		for i, e := range exprs {
			merged[i] = mapExpr(e, func(x Expr) Expr {
				if c, ok := x.(*ColRef); ok {
					return p.Exprs[c.Idx]
				}
				return x
			})
		}
		return &Project{Input: p.Input, Exprs: merged, Out: out}
	}
	return &Project{Input: plan, Exprs: exprs, Out: out}
}

// andOf is the conjunction of es (es itself when there is one).
func andOf(es []Expr) Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &And{Args: es}
}

// orOf is the disjunction of es (es itself when there is one).
func orOf(es []Expr) Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &Or{Args: es}
}

// quantifiedArray binds x op ANY|ALL (array) as the bridge writes it,
// pg_any(x, 'op', array) or pg_all(...). Over ARRAY[e1, e2] it is x op e1
// OR x op e2 (AND for ALL), whose three-valued answer is ANY's (ALL's);
// over ARRAY(subquery) it is x op ANY|ALL (subquery); over any other
// array a call of pg_any or pg_all, with x and the elements of one type.
func (b *binder) quantifiedArray(c *exprCtx, n *ast.FuncCallExpr, all bool, op string) Expr {
	if op == "!=" {
		op = "<>"
	}
	x := b.expr(c, n.Args[0])
	if arr, ok := unparen(n.Args[2]).(*ast.FuncCallExpr); ok {
		switch {
		case arr.FnName.L == "pg_array" && len(arr.Args) > 0:
			if len(rowFields(arr.Args[0])) == 0 {
				es, _ := b.unify("ARRAY", b.exprs(c, arr.Args), arr)
				parts := make([]Expr, len(es))
				for i, e := range es {
					parts[i] = b.op(op, []Expr{x, e}, n.Args[1])
				}
				if all {
					return andOf(parts)
				}
				return orOf(parts)
			}
		case arr.FnName.L == "pg_array_subquery" && len(arr.Args) == 1:
			if sq, ok := unparen(arr.Args[0]).(*ast.SubqueryExpr); ok {
				kind := SubAny
				if all {
					kind = SubAll
				}
				return b.subquery(c, sq, kind, x, op, n.Args[1])
			}
		}
	}
	a := b.expr(c, n.Args[2])
	if b.isUnknown(a) {
		// An untyped literal is an array of x's type, text[] when x
		// is untyped too.
		if b.isUnknown(x) {
			x = b.coerce(x, types.TText, ctxImplicit, "ANY/ALL")
		}
		if at, ok := types.ArrayOf(b.typeOf(x)); ok {
			a = b.coerce(a, at, ctxImplicit, "ANY/ALL")
		}
	}
	at := b.typeOf(a)
	if !at.IsArray() {
		fail(pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(b.pos(n.Args[1])))
	}
	call := b.op(op, []Expr{x, &Const{V: types.NullDatum, T: at.Elem()}}, n.Args[1]).(*Call)
	lt, rt := call.Args[0].Type(), call.Args[1].Type()
	x = call.Args[0]
	if rt.ID != at.Elem().ID {
		wide, ok := types.ArrayOf(rt)
		if !ok {
			failf(pgerr.FeatureNotSupported, "ANY/ALL over %s with operator %s %s %s is not supported", at, lt, op, rt)
		}
		a = b.coerce(a, wide, ctxImplicit, "ANY/ALL")
		at = wide
	}
	if lt.ID != at.Elem().ID {
		cx := b.tryCoerce(x, at.Elem(), ctxImplicit)
		if cx == nil {
			failf(pgerr.FeatureNotSupported, "ANY/ALL over %s with operator %s %s %s is not supported", at, lt, op, rt)
		}
		x = cx
	}
	fn := "pg_any"
	if all {
		fn = "pg_all"
	}
	return &Call{Fn: fn, Args: []Expr{x, &Const{V: types.DString(op), T: types.TText}, a}, T: types.TBool}
}

// rowValue is a row constructor or whole-row reference used as a value:
// a record (types.Record), in its output form. checkRecords keeps it out
// of everything but a query's output.
func (b *binder) rowValue(fields []Expr) Expr {
	args := make([]Expr, len(fields))
	unknown := false
	for i, f := range fields {
		unknown = unknown || b.isUnknown(f)
		args[i] = b.finalize(f)
	}
	r := &Call{Fn: "pg_row", Args: args, T: types.TRecord}
	if unknown {
		if b.rowUnknown == nil {
			b.rowUnknown = map[Expr]bool{}
		}
		b.rowUnknown[r] = true
	}
	return r
}

// fieldNames records the field names of row, a whole-row reference
// (the columns'); a row constructor's fields are f1, f2, ... as in
// PostgreSQL.
func (b *binder) fieldNames(row Expr, names []string) {
	if b.rowNames == nil {
		b.rowNames = map[Expr][]string{}
	}
	b.rowNames[row] = names
}

// rowToJSON binds row_to_json(r), to_json(r) and to_jsonb(r) of a record
// r (a pg_row call) as pg_row_to_json over its field names and values,
// which keeps the record out of everything but its fields (see
// checkRecords).
func (b *binder) rowToJSON(fn string, r *Call) *Call {
	names := b.rowNames[r]
	args := make([]Expr, 0, 2*len(r.Args))
	for i, a := range r.Args {
		name := "f" + strconv.Itoa(i+1)
		if i < len(names) {
			name = names[i]
		}
		args = append(args, &Const{V: types.DString(name), T: types.TText}, a)
	}
	t := types.TJson
	if fn == "to_jsonb" {
		t = types.TJsonb
	}
	return &Call{Fn: "pg_row_to_json", Args: args, T: t}
}

// checkRecords fails with 0A000 where p uses a record other than as an
// output: weir has no record comparison, hashing or storage, so a record
// may be a top-level expression of a Project (or a field of another
// record) and pass through nodes that carry rows unchanged, but not be
// compared, sorted, grouped, deduplicated or computed with. Subquery
// plans are checked too; inStream is set for a materialized view, whose
// output is stored.
func checkRecords(p Plan, inStream bool) {
	refuse := func() {
		failf(pgerr.FeatureNotSupported, "record values are supported only in a query's output")
	}
	hasRecord := func(s types.Schema) bool {
		for _, c := range s {
			if c.T.ID == types.Record {
				return true
			}
		}
		return false
	}
	var walkPlan func(p Plan)
	var walk func(e Expr, allowed bool)
	walk = func(e Expr, allowed bool) {
		if e == nil {
			return
		}
		if e.Type().ID == types.Record && !allowed {
			refuse()
		}
		if s, ok := e.(*Subquery); ok {
			walkPlan(s.Plan)
		}
		inRow := false
		if c, ok := e.(*Call); ok && c.Fn == "pg_row" {
			inRow = true
		}
		for _, k := range exprChildren(e) {
			walk(k, inRow)
		}
	}
	walkPlan = func(p Plan) {
		if p == nil {
			return
		}
		switch n := p.(type) {
		case *Project:
			for _, e := range n.Exprs {
				walk(e, true)
			}
		case *Distinct, *RecursiveUnion:
			if hasRecord(p.Schema()) {
				refuse()
			}
		case *SetOp:
			if !(n.Kind == Union && n.All) && hasRecord(p.Schema()) {
				refuse()
			}
		}
		if _, ok := p.(*Project); !ok {
			for _, e := range planExprs(p) {
				walk(e, false)
			}
		}
		for _, in := range p.Inputs() {
			walkPlan(in)
		}
	}
	if inStream {
		for _, c := range p.Schema() {
			if c.T.ID == types.Record {
				fail(pgerr.New(pgerr.InvalidTableDefinition, "column \"%s\" has pseudo-type record", c.Name))
			}
		}
	}
	walkPlan(p)
}

// rowExprs binds the fields of a row constructor, t.* (the bridge's
// pg_row_star(t)) standing for the columns of t.
func (b *binder) rowExprs(c *exprCtx, ns []ast.ExprNode) []Expr {
	var out []Expr
	for _, n := range ns {
		f, ok := n.(*ast.FuncCallExpr)
		if !ok || f.FnName.L != "pg_row_star" || len(f.Args) != 1 {
			out = append(out, b.expr(c, n))
			continue
		}
		cn, ok := f.Args[0].(*ast.ColumnNameExpr)
		if !ok {
			failf(pgerr.SyntaxError, "syntax error at or near \"*\"")
		}
		name := cn.Name.Name.O
		if c.agg != nil {
			fail(pgerr.New(pgerr.FeatureNotSupported, "%s.* in a row constructor is not supported in an aggregated query", name).WithPosition(b.pos(f)))
		}
		if !c.s.hasTable(name) || name == c.s.invisible {
			fail(pgerr.New(pgerr.FeatureNotSupported, "%s.* is supported only for a table of the same query", name).WithPosition(b.pos(f)))
		}
		for i, col := range c.s.cols {
			if col.table == name && !col.hidden {
				out = append(out, &ColRef{Idx: i, T: col.t, Name: col.table + "." + col.name})
			}
		}
	}
	return out
}
