package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// cursor is an open cursor of DECLARE, PostgreSQL's portal. Its query
// runs lazily over the snapshot it was declared in and FETCH pulls rows
// from it. A forward-only cursor holds no more rows in memory than the
// query's operators do; a scrollable one keeps the rows it has pulled in
// a rowStore (bounded memory, the rest on disk), which is what backward
// and absolute moves read, as PostgreSQL's Material node over a query
// that cannot scan backward.
//
// A cursor is insensitive: it shows the rows of its snapshot, so before
// the block writes, the cursors whose query reads the block's writes are
// materialised (freezeCursors). A WITH HOLD cursor is materialised at
// COMMIT and lives until CLOSE or the end of the session; the others
// until CLOSE or the end of their transaction block.
//
// The position is PostgreSQL's, in two layers. The scan's place, pos,
// is 0 before the first row, k on row k, Len()+1 past the last (once the
// query is done); next and prior move it one row, as an executor scan
// in either direction. The portal's atStart, atEnd and portalPos are
// kept exactly as pquery.c keeps them, and fetch follows
// DoPortalRunFetch, so every FETCH and MOVE answers as there.
type cursor struct {
	name string
	// text is the statement that declared the cursor (pg_cursors).
	text    string
	created time.Time
	fields  []wire.Field
	scroll  bool
	hold    bool
	// held is set once a WITH HOLD cursor outlived its transaction: the
	// block's end leaves it open.
	held bool

	// res is the query, until it returned its end (done set) or the
	// cursor was materialised; resErr is the error the query returned
	// while being materialised, which a FETCH reaching it returns.
	res    wire.Result
	done   bool
	resErr error
	// cancel cancels the query's context, which outlives the DECLARE:
	// a FETCH cancelled while it runs (a cancel request, a timeout, the
	// client gone) cancels the query with it.
	cancel context.CancelFunc
	// readsBatch is set when the query reads the block's pending writes,
	// which later statements of the block change.
	readsBatch bool

	// store holds the rows pulled so far (a scrollable cursor's from the
	// first, a materialised forward-only cursor's from where it stood);
	// nil while a forward-only cursor reads res directly.
	store *rowStore
	pos   int64

	atStart, atEnd bool
	portalPos      int64

	// depth is how many savepoints the block had at DECLARE: ROLLBACK
	// TO a savepoint set before the cursor closes it.
	depth int

	// scan is the table of a cursor that is a simply updatable scan of
	// one (WHERE CURRENT OF), nil for any other: the query's rows then
	// carry the table's key after the fields, and key holds the key of
	// the row the cursor stands on (nil when on none).
	scan *keyedScan
	key  []types.Datum

	// want is the number of rows the move running still needs, 0 for
	// all of them: the query makes chunks of no more rows.
	want int
}

// keyedScan is the table a simply updatable cursor scans and the types
// of its key columns, which the cursor's rows carry after its fields.
type keyedScan struct {
	rel  uint32
	keys []types.T
}

// errScanForward is PostgreSQL's refusal of a backward move on a NO
// SCROLL cursor.
func errScanForward() error {
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
		WithHint("Declare it with SCROLL option to enable backward scan.")
}

// cursorMemLimit is the most bytes of rows one cursor's store keeps in
// memory: 1/64 of the memory budget (4 MiB by default, PostgreSQL's
// default work_mem).
func (e *Engine) cursorMemLimit() int64 { return e.cfg.MemoryBudget() / 64 }

// prepareDeclare binds DECLARE's query now; running it checks that a
// transaction block is open unless WITH HOLD (25P01) and opens the
// cursor (42P03 when the name is taken). BINARY cursors are refused with
// 0A000.
func (s *Session) prepareDeclare(ctx context.Context, st *sql.DeclareCursor, text string) (wire.Prepared, error) {
	stmt, err := s.parseCtx(ctx, st.Body)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	if _, ok := stmt.(*sql.Query); !ok {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", st.Body).WithPosition(st.BodyAt + 1)
	}
	if st.Scroll && st.NoScroll {
		return nil, pgerr.New(pgerr.InvalidCursorDefinition, "cannot specify both SCROLL and NO SCROLL")
	}
	if st.Asensitive && st.Insensitive {
		return nil, pgerr.New(pgerr.InvalidCursorDefinition, "cannot specify both ASENSITIVE and INSENSITIVE")
	}
	p, err := s.prepare(ctx, stmt, st.Body, nil)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	// A cursor that locks its rows (FOR UPDATE, FOR SHARE) is read
	// positioned, never materialised: PostgreSQL refuses it WITH HOLD,
	// SCROLL or INSENSITIVE and does not scroll it otherwise.
	locks := ""
	// Without FROM there is no row to lock.
	if sel, ok := stmt.(*sql.Query).Node.(*ast.SelectStmt); ok && sel.From != nil && sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone {
		locks = strings.ToUpper(sel.LockInfo.LockType.String())
		for _, refuse := range []struct {
			on                bool
			code              pgerr.Code
			what, verdict, by string
		}{
			{st.Hold, pgerr.FeatureNotSupported, "DECLARE CURSOR WITH HOLD", "supported", "Holdable"},
			{st.Scroll, pgerr.FeatureNotSupported, "DECLARE SCROLL CURSOR", "supported", "Scrollable"},
			{st.Insensitive, pgerr.InvalidCursorDefinition, "DECLARE INSENSITIVE CURSOR", "valid", "Insensitive"},
		} {
			if refuse.on {
				return nil, pgerr.New(refuse.code, "%s ... %s is not %s", refuse.what, locks, refuse.verdict).
					WithDetail("%s cursors must be READ ONLY.", refuse.by)
			}
		}
	}
	if p.Fields() == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR must be a query that returns rows")
	}
	scroll := st.Scroll
	if !st.Scroll && !st.NoScroll && locks == "" {
		if cq, ok := p.(*cachedQuery); ok {
			plan := cq.q.bound.Plan
			_, rows := plan.(*planner.SetOp)
			// A VALUES list of several rows is one ValuesScan for
			// PostgreSQL; weir binds it as UNION ALL of its rows.
			rows = rows && startsValues(st.Body)
			scroll = rows || backwardScan(plan)
		}
	}
	source := s.source
	if source == "" {
		source = text
	}
	return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
		if st.Binary {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE BINARY CURSOR is not supported")
		}
		// The implicit transaction of a multi-statement Query is a block
		// for DECLARE, as in PostgreSQL: its cursors close at its end.
		// An extended-protocol batch's is not (txnBlock).
		inBlock := s.txnBlock()
		if !st.Hold && !inBlock {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, dup := s.cursors[st.Name]; dup {
			return nil, pgerr.New(pgerr.DuplicateCursor, "cursor \"%s\" already exists", st.Name)
		}
		// The cursor outlives this statement: its query must not be
		// cancelled when the DECLARE returns.
		qctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		c := &cursor{}
		run, scan, err := cursorQuery(qctx, p, func() int { return c.want })
		if err != nil {
			cancel()
			return nil, err
		}
		res, err := run.Execute(qctx, nil, io)
		if err != nil {
			cancel()
			return nil, shiftPosition(err, st.BodyAt)
		}
		*c = cursor{
			name: st.Name, text: source, created: time.Now(), fields: p.Fields(),
			scroll: scroll, hold: st.Hold, res: res, cancel: cancel,
			readsBatch: s.tx != nil, atStart: true, scan: scan,
		}
		if s.tx != nil {
			c.depth = len(s.tx.savepoints)
		}
		if scroll {
			c.store = s.newCursorStore(c)
		}
		if !inBlock {
			// Outside a block the statement's own transaction commits
			// now: the cursor is held from here on.
			if err := s.persist(ctx, c); err != nil {
				c.close()
				return nil, err
			}
			c.held = true
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		s.cursors[st.Name] = c
		return done("DECLARE CURSOR")
	}}, nil
}

// cursorQuery returns the statement a cursor over the query p runs: p
// making chunks of at most want() rows (the rows the FETCH running
// needs), so that rows are computed as they are fetched; when p is a
// simply updatable scan of a table (keyScanPlan), with the table's key
// columns added after its fields, and the table.
func cursorQuery(ctx context.Context, p wire.Prepared, want func() int) (wire.Prepared, *keyedScan, error) {
	cq, ok := p.(*cachedQuery)
	if !ok {
		return p, nil, nil
	}
	if err := cq.Revalidate(ctx); err != nil {
		return nil, nil, err
	}
	q := *cq.q
	q.chunkRows = want
	plan, scan := keyScanPlan(q.bound.Plan)
	if scan != nil {
		b := *q.bound
		b.Plan = plan
		q.bound = &b
		q.fields = slices.Clone(q.fields)
		for i, t := range scan.keys {
			q.fields = append(q.fields, wire.Field{Name: fmt.Sprintf("?key%d?", i), T: t})
		}
	}
	return &q, scan, nil
}

// keyScanPlan returns, when p is what PostgreSQL's execCurrentOf finds a
// simply updatable scan of one table in (a scan of it under filters and
// a projection, optionally limited), a copy of p whose projection adds
// the table's key columns after its own, and the table; p and nil
// otherwise. PostgreSQL identifies the row by its ctid; the key does so
// here.
func keyScanPlan(p planner.Plan) (planner.Plan, *keyedScan) {
	switch p := p.(type) {
	case *planner.Limit:
		in, scan := keyScanPlan(p.Input)
		if scan == nil {
			return p, nil
		}
		cp := *p
		cp.Input = in
		return &cp, scan
	case *planner.Project:
		for _, c := range p.Out {
			if c.Hidden {
				return p, nil
			}
		}
		q := p.Input
		for {
			f, ok := q.(*planner.Filter)
			if !ok {
				break
			}
			q = f.Input
		}
		var rel *catalog.Relation
		var cols []int
		switch q := q.(type) {
		case *planner.Scan:
			if q.ProcTime {
				return p, nil
			}
			rel, cols = q.Rel, q.Cols
		case *planner.IndexScan:
			if q.Covering != nil {
				return p, nil
			}
			rel, cols = q.Rel, q.Cols
		default:
			return p, nil
		}
		if rel.Kind != catalog.KindTable {
			return p, nil
		}
		cp := *p
		cp.Exprs, cp.Out = slices.Clone(p.Exprs), slices.Clone(p.Out)
		scan := &keyedScan{rel: rel.ID}
		for _, k := range rel.PK {
			j := slices.Index(cols, k)
			if j < 0 {
				return p, nil
			}
			col := rel.Cols[k]
			cp.Exprs = append(cp.Exprs, &planner.ColRef{Idx: j, T: col.T, Name: col.Name})
			cp.Out = append(cp.Out, types.Column{Name: col.Name, T: col.T})
			scan.keys = append(scan.keys, col.T)
		}
		return &cp, scan
	}
	return p, nil
}

// CurrentOf implements functions.Cursors: the key of the row of table
// rel the cursor stands on, for WHERE CURRENT OF, with PostgreSQL's
// checks in execCurrentOf's order.
func (s *Session) CurrentOf(name, table string, rel uint32) ([]types.Datum, error) {
	c, err := s.lookupCursor(name)
	if err != nil {
		return nil, err
	}
	if c.held {
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor \"%s\" is held from a previous transaction", name)
	}
	if c.scan == nil || c.scan.rel != rel {
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor \"%s\" is not a simply updatable scan of table \"%s\"", name, table)
	}
	if c.atStart || c.atEnd || c.key == nil {
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor \"%s\" is not positioned on a row", name)
	}
	return c.key, nil
}

// checkCurrentOf checks the cursors a write's WHERE CURRENT OF names
// before it runs, as PostgreSQL does when its scan starts: its errors
// do not wait for a row of the table to test (an empty table has none).
func (s *Session) checkCurrentOf(p planner.Plan) error {
	var err error
	planner.WalkPlanExprs(p, func(e planner.Expr) {
		c, ok := e.(*planner.Call)
		if !ok || c.Fn != "pg_current_of" || err != nil || len(c.Args) < 3 {
			return
		}
		var args [3]types.Datum
		for i := range args {
			k, ok := c.Args[i].(*planner.Const)
			if !ok {
				return
			}
			args[i] = k.V
		}
		_, err = s.CurrentOf(args[0].S, args[1].S, uint32(args[2].I))
	})
	return err
}

func (s *Session) newCursorStore(c *cursor) *rowStore {
	ts := make([]types.T, len(c.fields))
	for i, f := range c.fields {
		ts[i] = f.T
	}
	if c.scan != nil {
		ts = append(ts, c.scan.keys...)
	}
	return newRowStore(s.eng.db, ts, s.eng.cursorMemLimit())
}

// backwardScan reports whether PostgreSQL would let a cursor over plan
// scroll without SCROLL: whether the plan PostgreSQL makes of the same
// query can run backward (ExecSupportsBackwardScan). Scans, multi-row
// VALUES, set-returning functions in FROM and sorts can; aggregates,
// joins, DISTINCT, windows, set operations other than UNION ALL and a
// SELECT without FROM (a Result node) cannot; filters, projections and
// LIMIT take their input's answer.
func backwardScan(p planner.Plan) bool {
	switch p := p.(type) {
	case *planner.Sort, *planner.Scan, *planner.IndexScan, *planner.TableFunc:
		return true
	case *planner.Values:
		return len(p.Rows) > 1
	case *planner.Filter:
		return backwardScan(p.Input)
	case *planner.Project:
		return backwardScan(p.Input)
	case *planner.Limit:
		return backwardScan(p.Input)
	case *planner.SetOp:
		return p.Kind == planner.Union && p.All && backwardScan(p.Left) && backwardScan(p.Right)
	}
	return false
}

// startsValues reports whether query text starts with the word VALUES.
func startsValues(text string) bool {
	t := strings.TrimLeft(text, "( \t\r\n")
	if len(t) < 6 || !strings.EqualFold(t[:6], "values") {
		return false
	}
	return len(t) == 6 || !(t[6] == '_' || t[6] >= '0' && t[6] <= '9' || t[6]|0x20 >= 'a' && t[6]|0x20 <= 'z')
}

// lookupCursor returns the open cursor name, or 34000.
func (s *Session) lookupCursor(name string) (*cursor, error) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	return c, nil
}

// prepareFetch binds FETCH and MOVE.
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
		r, n, err := c.fetch(ctx, st.Dir, st.Count, st.Move)
		if err != nil {
			return nil, err
		}
		if !st.Move {
			return r, nil
		}
		if r != nil {
			if n, err = r.drain(ctx); err != nil {
				return nil, err
			}
		}
		return done(fmt.Sprintf("MOVE %d", n))
	}}, nil
}

// fetch is PostgreSQL's DoPortalRunFetch: it makes the moves of FETCH or
// MOVE dir count that return no rows, and returns the last move, whose
// rows the statement returns (FETCH) or counts (MOVE). For the two MOVEs
// PostgreSQL answers without a last move (MOVE 0, MOVE BACKWARD ALL) r is
// nil and n is the count.
func (c *cursor) fetch(ctx context.Context, dir sql.FetchDir, count int64, move bool) (r *fetchResult, n int64, err error) {
	verb := "FETCH"
	if move {
		verb = "MOVE"
	}
	skip := func(forward bool, count int64) error {
		r, err := c.run(forward, count, "")
		if err == nil {
			_, err = r.drain(ctx)
		}
		return err
	}
	switch dir {
	case sql.FetchForward, sql.FetchBackward:
		if count < 0 {
			count = -count
			if dir == sql.FetchForward {
				dir = sql.FetchBackward
			} else {
				dir = sql.FetchForward
			}
		}
	case sql.FetchAbsolute:
		switch {
		case count > 0:
			// Rewind and skip count-1 rows, or get there from here when
			// that is shorter.
			if c.portalPos == sql.FetchAll || count-1 < c.portalPos/2 {
				if err := c.rewind(); err != nil {
					return nil, 0, err
				}
				if count > 1 {
					if err := skip(true, count-1); err != nil {
						return nil, 0, err
					}
				}
			} else {
				pos := c.portalPos
				if c.atEnd {
					pos++
				}
				if count <= pos {
					err = skip(false, pos-count+1)
				} else if count > pos+1 {
					err = skip(true, count-pos-1)
				}
				if err != nil {
					return nil, 0, err
				}
			}
			r, err := c.run(true, 1, verb)
			return r, 0, err
		case count < 0:
			// Run to the end, back up -count-1 rows and return the one
			// before.
			if err := skip(true, sql.FetchAll); err != nil {
				return nil, 0, err
			}
			if count < -1 {
				if err := skip(false, -count-1); err != nil {
					return nil, 0, err
				}
			}
			r, err := c.run(false, 1, verb)
			return r, 0, err
		default:
			if err := c.rewind(); err != nil {
				return nil, 0, err
			}
			r, err := c.run(true, 0, verb)
			return r, 0, err
		}
	case sql.FetchRelative:
		switch {
		case count > 0:
			if count > 1 {
				if err := skip(true, count-1); err != nil {
					return nil, 0, err
				}
			}
			r, err := c.run(true, 1, verb)
			return r, 0, err
		case count < 0:
			if count < -1 {
				if err := skip(false, -count-1); err != nil {
					return nil, 0, err
				}
			}
			r, err := c.run(false, 1, verb)
			return r, 0, err
		}
		dir = sql.FetchForward
	}
	forward := dir == sql.FetchForward
	if count == 0 {
		// Zero re-fetches the current row, if any.
		onRow := !c.atStart && !c.atEnd
		if move {
			if onRow {
				return nil, 1, nil
			}
			return nil, 0, nil
		}
		if onRow {
			if err := skip(false, 1); err != nil {
				return nil, 0, err
			}
			count, forward = 1, true
		}
	}
	if !forward && count == sql.FetchAll && move {
		n := c.portalPos
		if n > 0 && !c.atEnd {
			n--
		}
		if err := c.rewind(); err != nil {
			return nil, 0, err
		}
		return nil, n, nil
	}
	r, err = c.run(forward, count, verb)
	return r, 0, err
}

// rewind is DoPortalRewind: back before the first row, which a NO
// SCROLL cursor refuses unless it has not moved.
func (c *cursor) rewind() error {
	if c.atStart && !c.atEnd {
		return nil
	}
	if !c.scroll {
		return errScanForward()
	}
	c.pos, c.key = 0, nil
	c.atStart, c.atEnd, c.portalPos = true, false, 0
	return nil
}

// run starts PortalRunSelect: a move of count rows (sql.FetchAll: all)
// forward or backward, whose rows the returned result yields; the
// portal's position is updated once it ended. A backward move of a NO
// SCROLL cursor is refused.
func (c *cursor) run(forward bool, count int64, verb string) (*fetchResult, error) {
	if !forward && !c.scroll {
		return nil, errScanForward()
	}
	r := &fetchResult{c: c, forward: forward, count: count, verb: verb}
	if forward {
		r.moving = !c.atEnd && count > 0
	} else {
		r.moving = !c.atStart && count > 0
	}
	return r, nil
}

// next moves the scan one row forward and returns that row, or nil past
// the last.
func (c *cursor) next(ctx context.Context) (types.Row, error) {
	if c.store == nil {
		if c.done {
			return nil, nil
		}
		return c.pull(ctx)
	}
	if c.pos < c.store.Len() {
		c.pos++
		return c.store.Row(c.pos - 1)
	}
	if !c.done {
		row, err := c.pull(ctx)
		if row != nil || err != nil {
			if row != nil {
				c.pos++
			}
			return row, err
		}
	}
	if c.resErr != nil {
		return nil, c.resErr
	}
	c.pos = c.store.Len() + 1
	return nil, nil
}

// prior moves the scan one row backward and returns that row, or nil
// before the first.
func (c *cursor) prior() (types.Row, error) {
	if c.pos == 0 {
		return nil, nil
	}
	c.pos--
	if c.pos == 0 {
		return nil, nil
	}
	return c.store.Row(c.pos - 1)
}

// pull returns the query's next row, kept in the store when there is
// one, or nil at its end.
func (c *cursor) pull(ctx context.Context) (types.Row, error) {
	stop := context.AfterFunc(ctx, c.cancel)
	row, err := c.res.Next(ctx)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		return nil, err
	}
	if row == nil {
		c.finishQuery()
		return nil, nil
	}
	if c.store != nil {
		if err := c.store.Append(row); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// finishQuery releases the query once it has given its last row.
func (c *cursor) finishQuery() {
	c.done = true
	if c.res != nil {
		c.res.Close()
		c.cancel()
	}
}

// materialize pulls the rest of the query into the store, which a
// forward-only cursor starts here with the rows it has not fetched yet
// (PostgreSQL's PersistHoldablePortal keeps the same). An error of the
// query stops it and waits in resErr for the FETCH that reaches it.
func (s *Session) materialize(ctx context.Context, c *cursor) error {
	if c.done {
		return nil
	}
	if c.store == nil {
		c.store = s.newCursorStore(c)
		c.pos = 0
	}
	// One row at a time, as PostgreSQL computes them: an error of the
	// query leaves every row before it in the store.
	c.want = 1
	defer func() { c.want = 0 }()
	for {
		row, err := c.pull(ctx)
		if err != nil {
			if pgerr.CodeOf(err) == pgerr.QueryCanceled || ctx.Err() != nil {
				return err
			}
			c.resErr = err
			c.finishQuery()
			return nil
		}
		if row == nil {
			return nil
		}
	}
}

// persist materialises a WITH HOLD cursor as its transaction commits.
// Unlike a cursor frozen inside its block, an error of the query fails
// the commit, as in PostgreSQL.
func (s *Session) persist(ctx context.Context, c *cursor) error {
	if err := s.materialize(ctx, c); err != nil {
		return err
	}
	if c.resErr != nil {
		err := c.resErr
		c.resErr = nil
		return err
	}
	return nil
}

// freezeCursors materialises the open cursors that read the block's
// pending writes, before a statement of the block changes them: a cursor
// shows the rows of its snapshot, not the block's later writes.
func (s *Session) freezeCursors(ctx context.Context) error {
	for _, name := range slices.Sorted(maps.Keys(s.cursors)) {
		if c := s.cursors[name]; c.readsBatch && !c.done {
			if err := s.materialize(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetchResult is one move of a cursor (PortalRunSelect): it yields up to
// count rows (sql.FetchAll: all) and, once it ended, updates the
// portal's position as PostgreSQL does.
type fetchResult struct {
	c       *cursor
	forward bool
	count   int64
	// moving is false when the move cannot yield a row (count 0, or
	// already at the end it moves to): the scan is not touched.
	moving bool
	n      int64
	ended  bool
	verb   string
}

func (r *fetchResult) Next(ctx context.Context) (types.Row, error) {
	if r.ended {
		return nil, nil
	}
	if !r.moving || r.count != sql.FetchAll && r.n >= r.count {
		r.end()
		return nil, nil
	}
	var row types.Row
	var err error
	if r.forward {
		r.c.want = 0
		if r.count != sql.FetchAll {
			r.c.want = int(min(r.count-r.n, types.ChunkCap))
		}
		row, err = r.c.next(ctx)
		r.c.want = 0
	} else {
		row, err = r.c.prior()
	}
	if err != nil {
		return nil, err
	}
	if row == nil {
		r.c.key = nil
		r.end()
		return nil, nil
	}
	r.n++
	if n := len(r.c.fields); r.c.scan != nil && len(row) > n {
		// The key of the table's row, kept for WHERE CURRENT OF
		// (detached from the chunk, which may be reused).
		key := make([]types.Datum, len(row)-n)
		for i, d := range row[n:] {
			key[i] = d
			if d.D != nil {
				key[i].D = new(apd.Decimal).Set(d.D)
			}
		}
		r.c.key = key
		row = row[:n]
	}
	return row, nil
}

// end updates the portal's position after the move.
func (r *fetchResult) end() {
	if r.ended {
		return
	}
	r.ended = true
	if !r.moving {
		return
	}
	c := r.c
	all := r.count == sql.FetchAll || r.n < r.count
	if r.forward {
		if r.n > 0 {
			c.atStart = false
		}
		if all {
			c.atEnd = true
		}
		c.portalPos += r.n
		return
	}
	if r.n > 0 && c.atEnd {
		c.atEnd = false
		c.portalPos++
	}
	if all {
		c.atStart, c.portalPos = true, 0
	} else {
		c.portalPos -= r.n
	}
}

// drain makes the whole move and returns how many rows it passed.
func (r *fetchResult) drain(ctx context.Context) (int64, error) {
	for {
		row, err := r.Next(ctx)
		if err != nil {
			return r.n, err
		}
		if row == nil {
			return r.n, nil
		}
	}
}

func (r *fetchResult) Tag() string { return fmt.Sprintf("%s %d", r.verb, r.n) }

// Close ends the move where it stands; the cursor stays open: only CLOSE
// and the block's end close it.
func (r *fetchResult) Close() { r.end() }

// close releases the cursor's query and store.
func (c *cursor) close() {
	if c.res != nil {
		c.res.Close()
		c.cancel()
		c.res = nil
	}
	if c.store != nil {
		c.store.Close()
	}
}

// closeCursor runs CLOSE name | CLOSE ALL.
func (s *Session) closeCursor(st *sql.CloseCursor) (wire.Result, error) {
	if st.All {
		s.closeCursors(true)
		return done("CLOSE CURSOR ALL")
	}
	c, err := s.lookupCursor(st.Name)
	if err != nil {
		return nil, err
	}
	c.close()
	delete(s.cursors, st.Name)
	return done("CLOSE CURSOR")
}

// closeCursors closes the open cursors: all of them (CLOSE ALL, the end
// of the session), or those of the transaction block, as its end does.
// A WITH HOLD cursor belongs to the block until the block commits.
func (s *Session) closeCursors(all bool) {
	for name, c := range s.cursors {
		if all || !c.held {
			c.close()
			delete(s.cursors, name)
		}
	}
}

// holdCursors materialises the block's WITH HOLD cursors as it commits,
// which keeps them open past its end, and returns their names.
func (s *Session) holdCursors(ctx context.Context) ([]string, error) {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(s.cursors)) {
		c := s.cursors[name]
		if !c.hold || c.held {
			continue
		}
		if err := s.persist(ctx, c); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	for _, name := range names {
		c := s.cursors[name]
		c.held, c.readsBatch, c.depth = true, false, 0
	}
	return names, nil
}

// cursorsToSavepoint adjusts the cursors to the block's savepoints being
// cut to the first n: ROLLBACK TO (rollback set) closes the cursors
// declared after them, RELEASE hands those to the enclosing savepoint.
func (s *Session) cursorsToSavepoint(n int, rollback bool) {
	for name, c := range s.cursors {
		if c.held || c.depth <= n {
			continue
		}
		if rollback {
			c.close()
			delete(s.cursors, name)
			continue
		}
		c.depth = n
	}
}
