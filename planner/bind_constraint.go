package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// BoundCheck is a CHECK constraint bound over its table's row (Rel.Cols
// order): a row passes when Expr is true or NULL.
type BoundCheck struct {
	Name string
	Expr Expr
}

// RowRules are what a table makes of every row written to it beyond its
// types and NOT NULL: Generated[i] computes stored generated column i
// from the row (nil for other columns), and Checks, in the order of
// their names, must then hold. Both are bound over the row in Rel.Cols
// order. The zero value has none.
type RowRules struct {
	Generated []Expr
	Checks    []BoundCheck
	// Domains[i] is the domain of column i (nil for other columns): a
	// value written to it must satisfy the domain's constraints.
	Domains []*Domain
	// Indexes are the table's expression and partial indexes: every
	// row written computes their keys (when their predicate holds for
	// it), as PostgreSQL's index insertion does, so that a key failing
	// on a row (a division by zero) fails the statement.
	Indexes []IndexRule
}

// IndexRule is an expression or partial index as a row written computes
// it: Pred (nil for none) and, when it holds, Keys (nil entries are
// columns), bound over the row.
type IndexRule struct {
	Pred Expr
	Keys []Expr
}

// exprs lists r's expressions (nil entries included).
func (r RowRules) exprs() []Expr {
	out := append([]Expr(nil), r.Generated...)
	for _, c := range r.Checks {
		out = append(out, c.Expr)
	}
	for _, ix := range r.Indexes {
		out = append(out, ix.Pred)
		out = append(out, ix.Keys...)
	}
	return out
}

// BindCheck binds a CHECK constraint's expression, text as written, over
// rel's row (its column references are positions in rel.Cols), and
// returns it with the columns it reads (ascending, each once). Errors are
// PostgreSQL's: 42804 when it is not boolean, 0A000 for a subquery,
// 42803 for an aggregate, 42703 for an unknown column; pos, the
// character of the statement the text starts at, places their positions
// in the statement (0: no positions).
func BindCheck(ctx context.Context, rel *catalog.Relation, text string, pos int, cat Catalog) (e Expr, cols []int, err error) {
	defer recoverAt(&err, pos)
	b, n := rowExprBinder(ctx, text, cat, "check constraint", true)
	x := b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "check constraints"}, n)
	x = markRowCLocale(b.boolArg(x, "CHECK"), rel)
	return x, colsRead(x), nil
}

// BindRowExpr binds text, an expression of any type, over rel's row
// (the stored expressions pg_get_expr prints), with BindCheck's errors.
func BindRowExpr(ctx context.Context, rel *catalog.Relation, text string, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, 0)
	b, n := rowExprBinder(ctx, text, cat, "expression", false)
	return b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "check constraints"}, n), nil
}

// BindGenerated binds the expression of rel's stored generated column i,
// text as written, over rel's row, converted to the column's type by the
// assignment cast. Beyond BindCheck's errors (for "column generation
// expression"), it must not read a generated column (42P17) nor call a
// function whose value may change (42P17, "generation expression is
// not immutable").
func BindGenerated(ctx context.Context, rel *catalog.Relation, i int, text string, pos int, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, pos)
	b, n := rowExprBinder(ctx, text, cat, "column generation expression", true)
	x := markRowCLocale(b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "column generation expressions"}, n), rel)
	WalkExpr(x, func(e Expr) {
		if c, ok := e.(*ColRef); ok && rel.Cols[c.Idx].Generated != "" {
			fail(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use generated column \"%s\" in column generation expression", rel.Cols[c.Idx].Name).
				WithDetail("A generated column cannot reference another generated column.").WithPosition(b.exprPos(e)))
		}
	})
	if b.isMutable(x) {
		fail(pgerr.New(pgerr.InvalidObjectDefinition, "generation expression is not immutable"))
	}
	col := rel.Cols[i]
	out := b.tryCoerce(x, col.T, ctxAssignment)
	if out == nil {
		fail(typeErrorf("column \"%s\" is of type %s but default expression is of type %s", col.Name, col.T, b.typeOf(x)).
			WithHint("You will need to rewrite or cast the expression."))
	}
	if c, ok := out.(*Cast); ok && out != x {
		c.Assign = true
	}
	return out, nil
}

// recoverAt turns a binder failure into *err, its position moved from
// the expression's text to the statement's, pos being where the text
// starts there (0: the error gets no position).
func recoverAt(err *error, pos int) {
	r := recover()
	if r == nil {
		return
	}
	pe, ok := r.(*pgerr.Error)
	if !ok {
		panic(r)
	}
	if pe.Position > 0 && pos > 0 {
		pe.Position += pos - 1
	} else {
		pe.Position = 0
	}
	*err = pe
}

// rowExprBinder parses text as one expression and returns a binder for
// it with the expression; a subquery in it is 0A000 "cannot use
// subquery in <what>". user marks text kept as the user wrote it, which
// is parsed as user text (sql.ParseUserExpr); otherwise it is text the
// bridge wrote.
func rowExprBinder(ctx context.Context, text string, cat Catalog, what string, user bool) (*binder, ast.ExprNode) {
	parse := parseExpr
	if user {
		parse = parseUserExpr
	}
	q, err := parse(text)
	if err != nil {
		fail(pgerr.As(err))
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		failf(pgerr.SyntaxError, "syntax error in %s", what)
	}
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: ctx, fnUses: callsOf(ctx)}
	n := sel.Fields.Fields[0].Expr
	var sub subqueryFinder
	n.Accept(&sub)
	if sub.found != nil {
		fail(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in %s", what).WithPosition(b.pos(sub.found)))
	}
	return b, n
}

// colsRead returns the columns of the row e reads, ascending.
func colsRead(e Expr) []int {
	var cols []int
	WalkExpr(e, func(e Expr) {
		if c, ok := e.(*ColRef); ok && !slices.Contains(cols, c.Idx) {
			cols = append(cols, c.Idx)
		}
	})
	slices.Sort(cols)
	return cols
}

// BindRowRules binds rel's generated columns and CHECK constraints, for
// a writer that builds rows without a plan (COPY FROM).
func BindRowRules(ctx context.Context, rel *catalog.Relation, cat Catalog) (r RowRules, err error) {
	defer recoverAt(&err, 0)
	b := &binder{cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	return b.rowRules(rel), nil
}

// rowRules binds rel's generated columns and CHECK constraints for a
// statement writing to it. They were checked when made; one that no
// longer binds fails the statement.
func (b *binder) rowRules(rel *catalog.Relation) RowRules {
	var r RowRules
	for i, c := range rel.Cols {
		if c.Generated == "" || c.Dropped {
			continue
		}
		e, err := BindGenerated(b.ctx, rel, i, c.Generated, 0, b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		if r.Generated == nil {
			r.Generated = make([]Expr, len(rel.Cols))
		}
		r.Generated[i] = e
	}
	for _, c := range rel.Checks {
		e, _, err := BindCheck(b.ctx, rel, c.Expr, 0, b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		r.Checks = append(r.Checks, BoundCheck{Name: c.Name, Expr: e})
	}
	// PostgreSQL applies a table's checks in the order of their names
	// (CheckConstraintFetch sorts them), which decides the one a row
	// failing several is reported against.
	slices.SortStableFunc(r.Checks, func(x, y BoundCheck) int { return strings.Compare(x.Name, y.Name) })
	r.Domains = b.domainRules(rel)
	if ic, ok := b.cat.(IndexCatalog); ok {
		for _, idx := range ic.Indexes(rel.ID) {
			if !idx.PlainIndex() {
				r.Indexes = append(r.Indexes, b.indexRule(idx, rel))
			}
		}
	}
	return r
}

// indexRule binds expression or partial index idx over the row of rel,
// the table it indexes, which it names as it was called when the index
// was made (idx.DepCols). One that no longer binds fails the statement.
func (b *binder) indexRule(idx, rel *catalog.Relation) IndexRule {
	pinned := PinRelation(rel, idx.DepCols)
	var ix IndexRule
	if text := idx.IndexPredicate(); text != "" {
		e, err := BindIndexPredicate(b.ctx, pinned, text, 0, b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		ix.Pred = e
	}
	for _, text := range idx.IndexExprs() {
		if text == "" {
			ix.Keys = append(ix.Keys, nil)
			continue
		}
		e, err := BindIndexExpr(b.ctx, pinned, text, 0, b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		ix.Keys = append(ix.Keys, e)
	}
	return ix
}

// generatedColumn fails with 428C9 when column i is a generated column
// given a value other than DEFAULT (update: by UPDATE's SET), as
// PostgreSQL's rewriter does; OVERRIDING does not apply to it.
func (b *binder) generatedColumn(rel *catalog.Relation, i int, update bool) {
	c := rel.Cols[i]
	if c.Generated == "" {
		return
	}
	var err *pgerr.Error
	if update {
		err = pgerr.New(pgerr.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", c.Name)
	} else {
		err = pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", c.Name)
	}
	fail(err.WithDetail("Column \"%s\" is a generated column.", c.Name))
}
