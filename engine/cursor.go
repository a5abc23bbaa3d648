package engine

import (
	"context"
	"fmt"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// cursor is an open cursor of DECLARE: its query runs lazily over the
// snapshot it was declared in, and FETCH pulls rows from it, so a cursor
// holds no more rows in memory than the query's operators do. Cursors
// live until CLOSE or the end of their transaction block.
type cursor struct {
	fields []wire.Field
	res    wire.Result
	// done is set once res returned its end.
	done bool
	// depth is how many savepoints the block had at DECLARE: ROLLBACK
	// TO a savepoint set before the cursor closes it.
	depth int
	// cancel cancels the query's context, which outlives the DECLARE:
	// a FETCH cancelled while it runs (a cancel request, a timeout, the
	// client gone) cancels the query with it.
	cancel context.CancelFunc
}

// prepareDeclare binds DECLARE's query now; running it checks that a
// transaction block is open (25P01) and opens the cursor (42P03 when the
// name is taken). SCROLL, WITH HOLD and BINARY cursors are refused with
// 0A000.
func (s *Session) prepareDeclare(ctx context.Context, st *sql.DeclareCursor) (wire.Prepared, error) {
	stmt, err := parseCtx(ctx, st.Body)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	if _, ok := stmt.(*sql.Query); !ok {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", st.Body).WithPosition(st.BodyAt + 1)
	}
	p, err := s.prepare(ctx, stmt, st.Body, nil)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	if p.Fields() == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR must be a query that returns rows")
	}
	return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
		switch {
		case st.Hold:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR WITH HOLD is not supported")
		case st.Scroll:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE SCROLL CURSOR is not supported")
		case st.Binary:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE BINARY CURSOR is not supported")
		}
		if s.txn == 'I' || s.implicit {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, dup := s.cursors[st.Name]; dup {
			return nil, pgerr.New(pgerr.DuplicateCursor, "cursor \"%s\" already exists", st.Name)
		}
		// The cursor outlives this statement: its query must not be
		// cancelled when the DECLARE returns.
		qctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		res, err := p.Execute(qctx, nil, io)
		if err != nil {
			cancel()
			return nil, shiftPosition(err, st.BodyAt)
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		depth := 0
		if s.tx != nil {
			depth = len(s.tx.savepoints)
		}
		s.cursors[st.Name] = &cursor{fields: p.Fields(), res: res, depth: depth, cancel: cancel}
		return done("DECLARE CURSOR")
	}}, nil
}

// lookupCursor returns the open cursor name, or 34000.
func (s *Session) lookupCursor(name string) (*cursor, error) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	return c, nil
}

// prepareFetch binds FETCH and MOVE, which move forward only: backward
// directions are 55000 as for a NO SCROLL cursor in PostgreSQL, and
// absolute positions 0A000.
func (s *Session) prepareFetch(st *sql.Fetch) (wire.Prepared, error) {
	c, err := s.lookupCursor(st.Name)
	if err != nil {
		return nil, err
	}
	var fields []wire.Field
	if !st.Move {
		fields = c.fields
	}
	return &utilPrepared{fields: fields, run: func(ctx context.Context, _ []types.Datum, _ wire.ExecIO) (wire.Result, error) {
		c, err := s.lookupCursor(st.Name)
		if err != nil {
			return nil, err
		}
		verb := "FETCH"
		if st.Move {
			verb = "MOVE"
		}
		switch {
		case st.Dir == sql.FetchBackward:
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
				WithHint("Declare it with SCROLL option to enable backward scan.")
		case st.Dir == sql.FetchAbsolute:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s %s is not supported", verb, st.What)
		case st.Dir == sql.FetchForward && st.Count == 0:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s 0 is not supported", verb)
		}
		limit := st.Count
		if st.Dir == sql.FetchAll {
			limit = -1
		}
		r := &fetchResult{c: c, limit: limit, verb: verb}
		if st.Move {
			for {
				row, err := r.Next(ctx)
				if err != nil {
					return nil, err
				}
				if row == nil {
					break
				}
			}
			return done(r.Tag())
		}
		return r, nil
	}}, nil
}

// fetchResult returns up to limit rows (all when negative) of a cursor.
type fetchResult struct {
	c     *cursor
	limit int64
	n     int64
	verb  string
}

func (r *fetchResult) Next(ctx context.Context) (types.Row, error) {
	if r.c.done || r.limit >= 0 && r.n >= r.limit {
		return nil, nil
	}
	stop := context.AfterFunc(ctx, r.c.cancel)
	row, err := r.c.res.Next(ctx)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		return nil, err
	}
	if row == nil {
		r.c.done = true
		return nil, nil
	}
	r.n++
	return row, nil
}

func (r *fetchResult) Tag() string { return fmt.Sprintf("%s %d", r.verb, r.n) }

// Close leaves the cursor open: only CLOSE and the block's end close it.
func (r *fetchResult) Close() {}

// closeCursor runs CLOSE name | CLOSE ALL.
func (s *Session) closeCursor(st *sql.CloseCursor) (wire.Result, error) {
	if st.All {
		s.closeCursors()
		return done("CLOSE CURSOR ALL")
	}
	c, err := s.lookupCursor(st.Name)
	if err != nil {
		return nil, err
	}
	c.res.Close()
	c.cancel()
	delete(s.cursors, st.Name)
	return done("CLOSE CURSOR")
}

// closeCursors closes every open cursor, as the end of a transaction
// block does.
func (s *Session) closeCursors() {
	for name, c := range s.cursors {
		c.res.Close()
		c.cancel()
		delete(s.cursors, name)
	}
}

// cursorsToSavepoint adjusts the cursors to the block's savepoints being
// cut to the first n: ROLLBACK TO (rollback set) closes the cursors
// declared after them, RELEASE hands those to the enclosing savepoint.
func (s *Session) cursorsToSavepoint(n int, rollback bool) {
	for name, c := range s.cursors {
		if c.depth <= n {
			continue
		}
		if rollback {
			c.res.Close()
			c.cancel()
			delete(s.cursors, name)
			continue
		}
		c.depth = n
	}
}
