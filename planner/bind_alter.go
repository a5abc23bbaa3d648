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
// parameter. They carry no position: the text bound is not the
// statement's.
func BindTransform(ctx context.Context, rel *catalog.Relation, col int, t types.T, using string, cat Catalog) (e Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			e, err = nil, pe.WithPosition(0)
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
	x := b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "transform expressions"}, sel.Fields.Fields[0].Expr)
	WalkExpr(x, func(s Expr) {
		if _, ok := s.(*Subquery); ok {
			failf(pgerr.FeatureNotSupported, "cannot use subquery in transform expression")
		}
	})
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
