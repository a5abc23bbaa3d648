package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// queryPrepared is a bound SELECT / INSERT / UPDATE / DELETE.
type queryPrepared struct {
	s      *Session
	bound  *planner.Bound
	fields []wire.Field
	// chunkRows, when set, is a read's executor.ExecCtx.ChunkRows (a
	// cursor's query).
	chunkRows func() int
	// facts are what execute needs to know of bound's plan (planFacts).
	facts *planFacts
}

// planFacts are what execute learns by walking a prepared statement's
// plan, the same at every run: they are found on its first run (and
// again if the plan is replaced), not walked again on each.
type planFacts struct {
	plan planner.Plan
	// indexes are the secondary indexes the plan reads
	// (planner.IndexesRead).
	indexes []uint32
	// relations are the relations the plan reads or writes as they
	// were bound (planner.RelationsBound), for staleTypes.
	relations []*catalog.Relation
	// currentOf is set when the plan calls pg_current_of (WHERE
	// CURRENT OF), which checkCurrentOf checks at each run.
	currentOf bool
}

// planFacts returns the facts of p's plan, finding them on first use.
func (p *queryPrepared) planFacts() *planFacts {
	plan := p.bound.Plan
	if f := p.facts; f != nil && f.plan == plan {
		return f
	}
	f := &planFacts{plan: plan, indexes: planner.IndexesRead(plan), relations: planner.RelationsBound(plan)}
	planner.WalkPlanExprs(plan, func(e planner.Expr) {
		if c, ok := e.(*planner.Call); ok && c.Fn == "pg_current_of" {
			f.currentOf = true
		}
	})
	p.facts = f
	return f
}

func (s *Session) prepareQuery(ctx context.Context, q *sql.Query, hints []types.T) (*queryPrepared, error) {
	b, err := planner.BindContext(ctx, q, s.catalogView(), hints)
	if err != nil {
		return nil, err
	}
	if err := s.noSourceReads(b); err != nil {
		return nil, err
	}
	b.Plan = s.eng.useIndexes(b)
	return &queryPrepared{s: s, bound: b, fields: fieldsOf(b.Plan.Schema(), b.Tag == "SELECT" || len(b.Plan.Schema()) > 0)}, nil
}

// fieldsOf converts a plan schema to wire fields; returnsRows false yields
// nil (NoData).
func fieldsOf(sc types.Schema, returnsRows bool) []wire.Field {
	if !returnsRows {
		return nil
	}
	fs := make([]wire.Field, 0, len(sc))
	for _, c := range sc {
		if c.Hidden {
			continue
		}
		fs = append(fs, wire.Field{Name: c.Name, T: c.T})
	}
	return fs
}

func (p *queryPrepared) ParamTypes() []types.T { return p.bound.Params }
func (p *queryPrepared) Fields() []wire.Field  { return p.fields }

// Execute runs the statement. A read runs lazily over one snapshot; a
// write runs to completion under the engine's write lock and commits one
// durable batch before anything is returned, so an acknowledged write is
// on disk and a failed one leaves nothing behind.
func (p *queryPrepared) Execute(ctx context.Context, params []types.Datum, _ wire.ExecIO) (wire.Result, error) {
	return p.execute(ctx, params, nil)
}

// execute is Execute, collecting each operator's actual rows and time
// into an when it is not nil (EXPLAIN ANALYZE).
func (p *queryPrepared) execute(ctx context.Context, params []types.Datum, an *executor.Analyze) (wire.Result, error) {
	s := p.s
	// Privileges are checked at every run, as PostgreSQL checks a cached
	// plan's range table at executor start: the role may have changed
	// (SET ROLE, ALTER ROLE) or lost a grant since it was bound.
	if err := s.checkAccess(p.bound.Access); err != nil {
		return nil, err
	}
	if err := s.eng.checkReadable(p.bound.Deps); err != nil {
		return nil, err
	}
	if err := s.eng.unpopulatedInput(p.bound.Deps); err != nil {
		return nil, err
	}
	if err := checkParams(p.bound.Params, params); err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	// The table locks of what it reads and writes, held to the end of
	// the statement: it waits for the blocks whose LOCK conflicts
	// (locks.go).
	if err := s.lockAccesses(ctx, p.bound.Access); err != nil {
		cancel()
		s.endStatementLocks()
		return nil, err
	}
	// An index read is consistent with its relation only once its
	// backfill is committed (after a restart during it, say): wait, as
	// for a view. A statement that reads no relation waits for none (a
	// nil list would mean every view, and SELECT 1 or an INSERT of
	// generate_series waited for every view after a restart).
	facts := p.planFacts()
	indexes := facts.indexes
	reads := append(slices.Clip(indexes), p.bound.Deps...)
	if reads == nil {
		reads = []uint32{}
	}
	if err := s.eng.awaitReadable(ctx, reads); err != nil {
		cancel()
		s.endStatementLocks()
		return nil, err
	}
	if p.bound.Tag != "SELECT" {
		defer cancel()
		defer s.endStatementLocks()
		if err := s.eng.checkDiskSpace(); err != nil {
			return nil, err
		}
		// DML reads the tables with their pending writes; a view or an
		// index it reads, or a block's snapshot, has the statements
		// acknowledged through the redo log once they are committed
		// (redo.go).
		if s.txn == 'T' || len(p.bound.Funcs) > 0 || len(indexes) > 0 || s.eng.readsDerived(p.bound.Deps) {
			if err := s.eng.readFence(ctx); err != nil {
				return nil, err
			}
		}
		if facts.currentOf {
			if err := s.checkCurrentOf(p.bound.Plan); err != nil {
				return nil, err
			}
		}
		return s.eng.runWrite(ctx, s, p.bound, facts.relations, params, an)
	}
	cancel = func(cancelCtx context.CancelFunc) context.CancelFunc {
		return func() { cancelCtx(); s.endStatementLocks() }
	}(cancel)
	// The snapshot holds every statement acknowledged before (redo.go).
	if readsRelations(p.bound) {
		if err := s.eng.readFence(ctx); err != nil {
			cancel()
			return nil, err
		}
	}
	s.eng.rewriteMu.RLock()
	if err := s.eng.staleTypes(facts.relations); err != nil {
		s.eng.rewriteMu.RUnlock()
		cancel()
		return nil, err
	}
	snap := s.eng.db.NewSnapshot()
	s.eng.rewriteMu.RUnlock()
	src := &snapshotSource{eng: s.eng, snap: snap, s: s, ctx: ctx}
	if s.tx != nil {
		src.batch = s.tx.batch
	}
	ec := s.execCtx(ctx, params, src, nil)
	ec.Analyze = an
	ec.ChunkRows = p.chunkRows
	op, err := executor.Build(p.bound.Plan, ec)
	if err != nil {
		ec.Release()
		snap.Close()
		cancel()
		return nil, err
	}
	p.s.eng.metrics.countStatement("SELECT")
	return &operatorResult{ctx: ctx, op: op, verb: "SELECT", ncols: len(p.fields), closers: []func(){ec.Release, func() { snap.Close() }, cancel}}, nil
}

func checkParams(want []types.T, got []types.Datum) error {
	if len(got) != len(want) {
		return pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(got), len(want))
	}
	return nil
}

// withTimeout applies statement_timeout to ctx, and marks it as the
// session's statement, so its waits for the engine's locks observe
// lock_timeout (stmtMutex.lockContext).
func (s *Session) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, stmtSessionKey{}, s)
	if d := s.statementTimeout(); d > 0 {
		ctx, cancel := context.WithTimeoutCause(ctx, d, pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout"))
		return ctx, cancel
	}
	return context.WithCancel(ctx)
}

// execCtx builds the executor context for one statement: now() is the
// transaction's start time, ctx (with statement_timeout) cancels the
// functions that wait.
func (s *Session) execCtx(ctx context.Context, params []types.Datum, src executor.Source, w executor.Writer) *executor.ExecCtx {
	ec := &executor.ExecCtx{Source: src, Writer: w, WorkMem: s.workMem(), Temp: s.eng.db}
	if w != nil && !s.superuser() {
		// A write's constraint violations show the role only what it
		// may read of the row (executor.ExecCtx.MaySelect).
		ec.MaySelect = func(rel *catalog.Relation) bool {
			if cur, ok := s.eng.cat.ByID(rel.ID); ok {
				rel = cur
			}
			return s.hasPrivilege(rel, catalog.PrivSelect)
		}
	}
	stmt := time.Now().UnixMicro()
	ec.Eval = executor.EvalCtx{
		Context: functions.Context{Now: s.transactionStart(stmt), Statement: stmt, Location: s.loc, Session: s, Cancel: ctx},
		Params:  params,
		Exec:    ec,
	}
	return ec
}

// operatorResult streams the rows of a batch operator tree.
type operatorResult struct {
	// ctx is the statement's context (carrying statement_timeout); it is
	// cancelled too when the caller's context is.
	ctx     context.Context
	op      executor.Operator
	verb    string
	ncols   int
	chunk   *types.Chunk
	pos     int
	n       int64
	done    bool
	closers []func()
}

func (r *operatorResult) Next(callerCtx context.Context) (types.Row, error) {
	ctx := r.ctx
	if err := callerCtx.Err(); err != nil {
		return nil, ctxError(callerCtx)
	}
	for !r.done {
		if r.chunk != nil {
			for r.pos < r.chunk.Len() {
				i := r.pos
				r.pos++
				if !r.chunk.Visible(i) {
					continue
				}
				r.n++
				row := r.chunk.Row(i)
				if len(row) > r.ncols {
					row = row[:r.ncols]
				}
				return row, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, ctxError(ctx)
		}
		c, err := r.op.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			return nil, err
		}
		if c == nil {
			r.done = true
			r.Close()
			break
		}
		r.chunk, r.pos = c, 0
	}
	return nil, nil
}

func (r *operatorResult) Tag() string { return fmt.Sprintf("%s %d", r.verb, r.n) }

func (r *operatorResult) Close() {
	if r.op != nil {
		r.op.Close()
		r.op = nil
	}
	for _, c := range r.closers {
		c()
	}
	r.closers = nil
}

// ctxError turns a cancelled context into the Postgres error the client
// expects.
func ctxError(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		if pe, ok := c.(*pgerr.Error); ok {
			return pe
		}
	}
	return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
}

// rowsResult is a fully computed result.
type rowsResult struct {
	rows []types.Row
	pos  int
	tag  string
}

func (r *rowsResult) Next(context.Context) (types.Row, error) {
	if r.pos >= len(r.rows) {
		return nil, nil
	}
	r.pos++
	return r.rows[r.pos-1], nil
}
func (r *rowsResult) Tag() string { return r.tag }
func (r *rowsResult) Close()      {}

// noSourceReads fails with 0A000 when a batch statement reads a source:
// a source stores no rows, so the answer would be silently empty.
func (s *Session) noSourceReads(b *planner.Bound) error {
	for _, id := range b.Deps {
		if rel, ok := s.eng.cat.ByID(id); ok && rel.Kind == catalog.KindSource {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot query source \"%s\" directly: a source stores no rows", rel.Name).
				WithHint("Create a materialized view over the source, or a table with the connector, and query that.")
		}
	}
	return nil
}
