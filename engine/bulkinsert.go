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
// views and all-or-nothing are the statement's as before. Before its
// template is bound, every row is bound once a piece at a time and let
// go (checkBulk), so that a bad value in a later piece fails the
// statement at prepare time, before anything runs and before ON
// CONFLICT and RETURNING are bound, at its position in the statement's
// text, as PostgreSQL's analysis does.

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
	rows, _, err := r.s.bindPiece(ctx, text, r.head, shift)
	if err == nil && rows == nil {
		err = pgerr.New(pgerr.InternalError, "a piece of a bulk INSERT does not bind as one")
	}
	return rows, err
}

// bindPiece parses and binds text, an INSERT of some of a bulk INSERT's
// rows, and returns its bound rows, or nil when it does not bind as an
// INSERT of them, and its late error under planner.WithLateErrors. An
// error's position beyond head characters is moved by shift, to its
// place in the statement.
func (s *Session) bindPiece(ctx context.Context, text string, head, shift int) ([][]planner.Expr, error, error) {
	stmt, err := sql.Parse(text)
	if err != nil {
		return nil, nil, shiftBeyond(err, head, shift)
	}
	q, ok := stmt.(*sql.Query)
	if !ok {
		return nil, nil, pgerr.New(pgerr.InternalError, "a piece of a bulk INSERT does not parse as one")
	}
	b, err := planner.BindContext(ctx, q, s.catalogView(), nil)
	if err != nil {
		return nil, nil, shiftBeyond(err, head, shift)
	}
	vals := insertValues(b.Plan)
	if vals == nil {
		return nil, nil, nil
	}
	return vals.Rows, b.Late, nil
}

// checkBulk binds every row of bulk before its template is bound, a
// piece at a time, and lets each piece's result go: PostgreSQL analyses
// every row of a VALUES list (each literal coerced to its column's
// type, each row's length, where DEFAULT may stand) before ON CONFLICT
// and RETURNING, and all of it before anything runs, so a bad value in
// row 90,000 is its error, at prepare time (at Parse through the
// extended protocol), and not one of the tail's or of an earlier row's
// execution (a serial's sequence has not moved). A value too long for
// its column is found by PostgreSQL's planner, after all of that: it
// is returned as late, for after the template is bound. Memory stays
// that of one piece; execution binds the pieces again as it reads them.
// It stops, reporting nothing, at a piece that does not bind as an
// INSERT of its rows: the statement is then prepared whole.
func (s *Session) checkBulk(ctx context.Context, bulk *sql.BulkInsert) (late, err error) {
	head := bulk.HeadChars()
	lctx := planner.WithLateErrors(ctx)
	rows, late, err := s.bindPiece(lctx, bulk.First(), head, 0)
	if err != nil || rows == nil {
		return nil, err
	}
	for i := range bulk.Pieces() {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		text, shift := bulk.Piece(i)
		rows, l, err := s.bindPiece(lctx, text, head, shift)
		if err != nil || rows == nil {
			return nil, err
		}
		if late == nil && l != nil {
			late = shiftBeyond(l, head, shift)
		}
	}
	return late, nil
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
