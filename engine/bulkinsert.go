package engine

import (
	"context"
	"errors"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
)

// A multi-row INSERT ... VALUES of literals (sql.BulkInsert) of at least
// bulkInsertMinBytes is not parsed whole: parsing holds a few hundred
// bytes per byte of text, and such statements (ORMs' batches, pg_dump
// --inserts, bulk loaders) run to tens of megabytes. The statement is
// prepared from its template (the statement with its first row only)
// through the ordinary path, and when it runs the Values under its
// Insert reads the later rows a piece at a time (bulkRows), each piece
// parsed and bound as an INSERT of its rows through the ordinary parser
// and binder, so each row is read, coerced and defaulted as the whole
// statement's would be. Every row goes through the one Insert operator
// and the statement's one writer: ON CONFLICT, RETURNING, constraints,
// views and all-or-nothing are the statement's as before. A bad value in
// a later piece fails the statement when its piece is bound, at its
// position in the statement's text; through the extended protocol that
// is at Execute rather than at Parse.

// bulkInsertMinBytes is the least text of a statement taken as a bulk
// INSERT: below the parse gate's threshold parsing holds little.
const bulkInsertMinBytes = parseInlineBytes

// scanBulkInsert reports whether text is to run as a bulk INSERT.
func (e *Engine) scanBulkInsert(text string) *sql.BulkInsert {
	if len(text) < e.bulkInsertMin {
		return nil
	}
	b, ok := sql.ScanBulkInsert(text)
	if !ok {
		return nil
	}
	return b
}

// shiftBeyond moves err's position by shift characters when it lies
// beyond from: an error in a text made of parts of the statement's text
// placed where it is in the statement.
func shiftBeyond(err error, from, shift int) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Position <= from || shift == 0 {
		return err
	}
	cp := *pe
	cp.Position += shift
	return &cp
}

// templateError places an error in bulk's template in the statement.
func templateError(bulk *sql.BulkInsert, err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Position <= 0 {
		return err
	}
	if p := bulk.TemplatePos(pe.Position); p != pe.Position {
		cp := *pe
		cp.Position = p
		return &cp
	}
	return err
}

// attachBulk gives q's Values the later rows of bulk. It reports false
// when q is not the plain INSERT of one row of constants it expects, for
// the statement to be prepared whole instead.
func (s *Session) attachBulk(q *queryPrepared, bulk *sql.BulkInsert) bool {
	if len(q.bound.Params) > 0 {
		return false
	}
	vals := insertValues(q.bound.Plan)
	if vals == nil || len(vals.Rows) != 1 {
		return false
	}
	vals.More = func() planner.RowSource { return &bulkRows{s: s, bulk: bulk, head: bulk.HeadChars()} }
	return true
}

// insertValues is the Values an INSERT plan reads its rows from, or nil.
func insertValues(p planner.Plan) *planner.Values {
	ins, ok := p.(*planner.Insert)
	if !ok {
		return nil
	}
	vals, _ := ins.Input.(*planner.Values)
	return vals
}

// bulkRows binds the pieces of a bulk INSERT's later rows, one a call.
type bulkRows struct {
	s    *Session
	bulk *sql.BulkInsert
	head int
	next int
}

var _ planner.RowSource = (*bulkRows)(nil)

// Next implements planner.RowSource.
func (r *bulkRows) Next(ctx context.Context) ([][]planner.Expr, error) {
	if r.next >= r.bulk.Pieces() {
		return nil, nil
	}
	text, shift := r.bulk.Piece(r.next)
	r.next++
	stmt, err := sql.Parse(text)
	if err != nil {
		return nil, shiftBeyond(err, r.head, shift)
	}
	q, ok := stmt.(*sql.Query)
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "a piece of a bulk INSERT does not parse as one")
	}
	b, err := planner.BindContext(ctx, q, r.s.catalogView(), nil)
	if err != nil {
		return nil, shiftBeyond(err, r.head, shift)
	}
	vals := insertValues(b.Plan)
	if vals == nil {
		return nil, pgerr.New(pgerr.InternalError, "a piece of a bulk INSERT does not bind as one")
	}
	return vals.Rows, nil
}

// noBulkKey marks a context whose statement is prepared whole.
type noBulkKey struct{}

// withNoBulk returns ctx marked for preparing its statement whole.
func withNoBulk(ctx context.Context) context.Context {
	return context.WithValue(ctx, noBulkKey{}, true)
}

// noBulk reports whether ctx's statement is to be prepared whole.
func noBulk(ctx context.Context) bool {
	v, _ := ctx.Value(noBulkKey{}).(bool)
	return v
}

// parseSyntax parses text to check its syntax, a bulk INSERT through its
// template: its rows have been read by sql.ScanBulkInsert already.
func (s *Session) parseSyntax(text string) (sql.Stmt, error) {
	if bulk := s.eng.scanBulkInsert(text); bulk != nil {
		stmt, err := sql.Parse(bulk.Template())
		if err != nil {
			return nil, templateError(bulk, err)
		}
		return stmt, nil
	}
	return sql.Parse(text)
}
