package planner

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// BindTransform binds the expression ALTER TABLE ... ALTER COLUMN ...
// TYPE computes column col's new values with (PostgreSQL's transform
// expression): using, the USING expression's text, or, when it is "",
// the column itself; converted to t by the assignment cast. It reads a
// whole stored row of rel: its column references are positions in
// rel.Cols. Errors are PostgreSQL's: 42804 when no assignment cast leads
// to t, 0A000 for a subquery, 42803 for an aggregate, 42P02 for a
// parameter; usingPos, the character of the statement USING's text
// starts at, places their positions in the statement.
func BindTransform(ctx context.Context, rel *catalog.Relation, col int, t types.T, using string, usingPos int, cat Catalog) (e Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			if pe.Position > 0 && usingPos > 0 && using != "" {
				pe.Position += usingPos - 1
			} else {
				pe.Position = 0
			}
			e, err = nil, pe
		}
	}()
	name := rel.Cols[col].Name
	text := using
	if text == "" {
		text = sql.QuoteIdent(name)
	}
	q, err := parseExpr(text)
	if err != nil {
		return nil, err
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error in the USING expression of column \"%s\"", name)
	}
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	var sub subqueryFinder
	sel.Fields.Fields[0].Expr.Accept(&sub)
	if sub.found != nil {
		fail(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in transform expression").WithPosition(b.pos(sub.found)))
	}
	x := b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "transform expressions"}, sel.Fields.Fields[0].Expr)
	out := b.tryCoerce(x, t, ctxAssignment)
	if out == nil {
		if using == "" {
			fail(typeErrorf("column \"%s\" cannot be cast automatically to type %s", name, t).
				WithHint("You might need to specify \"USING %s::%s\".", sql.QuoteIdent(name), t))
		}
		fail(typeErrorf("result of USING clause for column \"%s\" cannot be cast automatically to type %s", name, t).
			WithHint("You might need to add an explicit cast."))
	}
	if c, ok := out.(*Cast); ok && out != x {
		c.Assign = true
	}
	return out, nil
}

// AssignmentCastable reports whether a value of type from converts to
// type to by an assignment cast (or needs none), as a column's DEFAULT,
// stored as an expression of the column's old type, must for ALTER
// COLUMN ... TYPE to keep it.
func AssignmentCastable(from, to types.T) bool {
	return from.ID == to.ID || canCoerce(from.ID, to.ID, ctxAssignment)
}

// subqueryFinder finds the first subquery of an expression, or with
// colRefs the first subquery or column reference.
type subqueryFinder struct {
	found   ast.Node
	colRefs bool
}

// Enter records the first subquery (or column reference) and stops
// there.
func (f *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f.found != nil {
		return n, true
	}
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		f.found = n
		return n, true
	case *ast.ColumnNameExpr:
		if f.colRefs {
			f.found = n
			return n, true
		}
	}
	return n, false
}

// Leave goes on.
func (f *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// BindDefault checks a DEFAULT expression of a column named name of
// type t (a domain's: its name and base type), text as written, as
// PostgreSQL's cookDefault does: it binds by itself, without subqueries
// or column references (0A000, the first of them in the text),
// aggregates or window functions, and converts to t by an assignment
// cast (42804 "column ... is of type ... but default expression is of
// type ..." otherwise). pos is the character of the statement the text
// starts at, for the errors' positions (0: none, as ALTER TABLE has).
// Text with a position is the user's and is parsed as user text
// (sql.ParseUserExpr); text without one is the bridge's.
func BindDefault(ctx context.Context, text string, pos int, name string, t types.T, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, pos)
	parse := parseExpr
	if pos > 0 {
		parse = parseUserExpr
	}
	q, err := parse(text)
	if err != nil {
		return nil, err
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		failf(pgerr.SyntaxError, "syntax error in DEFAULT expression")
	}
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	n := sel.Fields.Fields[0].Expr
	f := subqueryFinder{colRefs: true}
	n.Accept(&f)
	switch f.found.(type) {
	case nil:
	case *ast.ColumnNameExpr:
		fail(pgerr.New(pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression").WithPosition(b.pos(f.found)))
	default:
		fail(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression").WithPosition(b.pos(f.found)))
	}
	newSeqs, _ := ctx.Value(newSeqsKey{}).(map[string]bool)
	n.Accept(&seqNameChecker{b: b, skip: newSeqs})
	x := b.expr(&exprCtx{s: &scope{lvl: &level{}}, clause: "DEFAULT expressions"}, n)
	out := b.tryCoerce(x, t, ctxAssignment)
	if out == nil {
		fail(typeErrorf("column \"%s\" is of type %s but default expression is of type %s", name, t, b.typeOf(x)).
			WithHint("You will need to rewrite or cast the expression."))
	}
	return out, nil
}

// seqNameChecker resolves the sequence a sequence function's literal
// argument names (nextval('s'), currval('s'::regclass)), failing with
// 42P01 at the literal when there is none: PostgreSQL's argument is a
// regclass, which the literal becomes when the expression is analysed,
// so a DEFAULT naming no sequence fails when it is set. weir keeps the
// name and resolves it when the call runs.
type seqNameChecker struct {
	b    *binder
	skip map[string]bool // sequences the statement creates (WithNewSequences)
}

type newSeqsKey struct{}

// WithNewSequences returns ctx naming the sequences the statement whose
// DEFAULTs BindDefault checks under it creates (CREATE TABLE's serial
// columns'), which a DEFAULT may name before they exist.
func WithNewSequences(ctx context.Context, names []string) context.Context {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return context.WithValue(ctx, newSeqsKey{}, m)
}

// Enter checks one call.
func (v *seqNameChecker) Enter(n ast.Node) (ast.Node, bool) {
	fc, ok := n.(*ast.FuncCallExpr)
	if !ok || !seqFuncs[fc.FnName.L] || len(fc.Args) == 0 || fc.Schema.O != "" && fc.Schema.L != "pg_catalog" {
		return n, false
	}
	arg := fc.Args[0]
	name, ok := regclassLiteral(arg)
	if !ok {
		if l, isLit := unparen(arg).(*sql.Literal); isLit {
			name, ok = l.Value.(string)
		}
	}
	if ok {
		if names, valid := regNameList(name); valid && v.skip[names[len(names)-1]] {
			return n, false
		}
		v.b.relationOID(name, arg)
	}
	return n, false
}

// Leave goes on.
func (v *seqNameChecker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// DefaultType returns the type of a DEFAULT expression's text bound by
// itself, as PostgreSQL stores it, or t, the column's type, for an
// untyped literal (which took the column's type when the DEFAULT was
// set).
func DefaultType(ctx context.Context, text string, t types.T, cat Catalog) (dt types.T, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			dt, err = t, pe
		}
	}()
	q, err := parseExpr(text)
	if err != nil {
		return t, err
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return t, nil
	}
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	x := b.expr(&exprCtx{s: &scope{lvl: &level{}}, clause: "DEFAULT expressions"}, sel.Fields.Fields[0].Expr)
	if xt := b.typeOf(x); xt.ID != types.Unknown {
		return xt, nil
	}
	return t, nil
}

// RelationsBound returns the relations p reads or writes, as they were
// when p was bound (its scans, index scans and DML target, in p and in
// its subqueries' plans), so that the engine can tell a plan bound
// before ALTER TABLE changed a column's type from one bound after.
func RelationsBound(p Plan) []*catalog.Relation {
	var out []*catalog.Relation
	var walk func(Plan)
	walk = func(q Plan) {
		switch x := q.(type) {
		case *Scan:
			out = append(out, x.Rel)
		case *IndexScan:
			out = append(out, x.Rel)
		case *Insert:
			out = append(out, x.Rel)
		case *Update:
			out = append(out, x.Rel)
		case *Delete:
			out = append(out, x.Rel)
		}
		for _, in := range q.Inputs() {
			walk(in)
		}
	}
	walk(p)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			walk(s.Plan)
		}
	})
	return out
}
