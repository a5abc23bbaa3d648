package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// prepareExplain binds EXPLAIN [ANALYZE] of a query, an INSERT, UPDATE
// or DELETE, or EXECUTE of a prepared statement. EXPLAIN prints the
// plan; EXPLAIN ANALYZE runs the statement as it would run on its own
// (rows are discarded; a write commits, or joins the open transaction
// block and goes with it) and prints each node's actual rows, loops and,
// with TIMING, time, in PostgreSQL's form.
func (s *Session) prepareExplain(ctx context.Context, st *sql.Explain, hints []types.T) (wire.Prepared, error) {
	if cv, ok := st.Stmt.(*sql.CreateView); ok && cv.Materialized && !st.Analyze {
		return s.prepareExplainMView(cv)
	}
	if cs, ok := st.Stmt.(*sql.CreateSink); ok && !st.Analyze {
		return s.prepareExplainSink(cs)
	}
	if ex, ok := st.Stmt.(*sql.Execute); ok {
		return s.prepareExplainExecute(ctx, st, ex)
	}
	q, ok := st.Stmt.(*sql.Query)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of this statement is not supported yet")
	}
	t0 := time.Now()
	gen, path := s.eng.cat.Generation(), s.searchPath()
	qp, err := s.bindExplained(ctx, q, hints, st.Analyze)
	if err != nil {
		return nil, err
	}
	planning := time.Since(t0)
	paramTypes := qp.bound.Params
	return &utilPrepared{fields: textFields("QUERY PLAN"), params: paramTypes, run: func(ctx context.Context, params []types.Datum, _ wire.ExecIO) (wire.Result, error) {
		// Prepared once and run after DDL (the extended protocol), the
		// statement is bound again, as a prepared query is.
		if g, p := s.eng.cat.Generation(), s.searchPath(); g != gen || p != path {
			t0 := time.Now()
			again, err := s.bindExplained(ctx, q, paramTypes, st.Analyze)
			if err != nil {
				return nil, err
			}
			qp, planning, gen, path = again, time.Since(t0), g, p
		}
		return s.runExplain(ctx, st, qp, params, planning)
	}}, nil
}

// bindExplained binds the query EXPLAIN prints. Only a query that will
// run must not read a source (EXPLAIN of one shows what it would read).
func (s *Session) bindExplained(ctx context.Context, q *sql.Query, hints []types.T, analyze bool) (*queryPrepared, error) {
	b, err := planner.BindContext(ctx, q, s.catalogView(), hints)
	if err != nil {
		return nil, err
	}
	if analyze {
		if err := s.noSourceReads(b); err != nil {
			return nil, err
		}
	}
	if err := s.authorizeTargetReads(q, b); err != nil {
		return nil, err
	}
	b.Plan = s.eng.useIndexes(b)
	return &queryPrepared{s: s, bound: b, fields: fieldsOf(b.Plan.Schema(), b.Tag == "SELECT" || len(b.Plan.Schema()) > 0)}, nil
}

// prepareExplainExecute is EXPLAIN [ANALYZE] EXECUTE name (args): the
// plan of the prepared statement, bound again if the catalog moved since
// PREPARE, run with the arguments when analyzing.
func (s *Session) prepareExplainExecute(ctx context.Context, st *sql.Explain, ex *sql.Execute) (wire.Prepared, error) {
	t0 := time.Now()
	x, err := s.bindExecute(ctx, ex)
	if err != nil {
		return nil, err
	}
	planning := time.Since(t0)
	return &utilPrepared{fields: textFields("QUERY PLAN"), params: x.params(), run: func(ctx context.Context, given []types.Datum, io wire.ExecIO) (wire.Result, error) {
		params, err := x.start(ctx, given, io)
		if err != nil {
			return nil, err
		}
		cq, ok := x.sp.p.(*cachedQuery)
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of this prepared statement is not supported yet")
		}
		return s.runExplain(ctx, st, cq.q, params, planning)
	}}, nil
}

// runExplain prints qp's plan; analyzing, it first runs qp with params,
// reading and discarding its rows, and annotates each node with what it
// did.
func (s *Session) runExplain(ctx context.Context, st *sql.Explain, qp *queryPrepared, params []types.Datum, planning time.Duration) (wire.Result, error) {
	var annotate func(planner.Plan) string
	var execution time.Duration
	if st.Analyze {
		an := executor.NewAnalyze(st.Timing)
		t0 := time.Now()
		res, err := qp.execute(ctx, params, an)
		if err != nil {
			return nil, err
		}
		for {
			row, err := res.Next(ctx)
			if err != nil {
				res.Close()
				return nil, err
			}
			if row == nil {
				break
			}
		}
		res.Close()
		execution = time.Since(t0)
		annotate = func(p planner.Plan) string { return actualText(an, p) }
	} else if err := checkParams(qp.bound.Params, params); err != nil {
		return nil, err
	}
	var rows []types.Row
	for _, line := range strings.Split(strings.TrimRight(planner.ExplainAnnotated(qp.bound.Plan, annotate), "\n"), "\n") {
		rows = append(rows, textRow(line))
	}
	if st.Summary {
		rows = append(rows, textRow(fmt.Sprintf("Planning Time: %.3f ms", millis(planning))))
		if st.Analyze {
			rows = append(rows, textRow(fmt.Sprintf("Execution Time: %.3f ms", millis(execution))))
		}
	}
	return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
}

// actualText is a node's EXPLAIN ANALYZE annotation as PostgreSQL prints
// it: rows and times are averages per loop.
func actualText(an *executor.Analyze, p planner.Plan) string {
	ns, ok := an.Stats(p)
	if !ok || ns.Loops == 0 {
		return "(never executed)"
	}
	loops := float64(ns.Loops)
	rows := float64(ns.Rows) / loops
	var s string
	if !an.Timing {
		s = fmt.Sprintf("(actual rows=%.0f loops=%d)", rows, ns.Loops)
	} else {
		s = fmt.Sprintf("(actual time=%.3f..%.3f rows=%.0f loops=%d)", millis(ns.Startup)/loops, millis(ns.Total)/loops, rows, ns.Loops)
	}
	// What a sort, a hash aggregation or a hash join used follows, in
	// PostgreSQL's words (which it prints on a line of its own).
	if ns.Memory != "" {
		s += "  " + ns.Memory
	}
	return s
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
