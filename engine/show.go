package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file serves the utility statements that show the running system:
// SHOW JOBS, SHOW COLUMNS FROM and SHOW PARAMETERS (as RisingWave has
// them) and EXPLAIN MATERIALIZED VIEW / EXPLAIN SINK of a running job.

// prepareShowJobs is SHOW JOBS, as RisingWave has it: the jobs still
// being created (backfilling), with their progress.
func (s *Session) prepareShowJobs() (wire.Prepared, error) {
	return &utilPrepared{fields: textFields("Id", "Statement", "Progress"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		var rows []types.Row
		for _, r := range syscat.ShowJobs(s.sysCatalog()) {
			rows = append(rows, textRow(r...))
		}
		return &rowsResult{rows: rows, tag: "SHOW"}, nil
	}}, nil
}

// prepareShowColumns is SHOW COLUMNS FROM name, as RisingWave has it:
// the relation's columns, hidden ones included.
func (s *Session) prepareShowColumns(name sql.ObjectName) (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("Name", "Type", "Is Hidden", "Description"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		var cols types.Schema
		var hidden []bool
		if rel, ok := e.cat.Lookup(s.schemaOf(name), name.Name); ok {
			for _, c := range rel.Cols {
				if c.Dropped {
					continue
				}
				cols = append(cols, types.Column{Name: c.Name, T: c.T})
				hidden = append(hidden, c.Hidden)
			}
		} else if _, cs, ok := syscat.Lookup(name.Schema, name.Name); ok && name.Schema != "" {
			cols, hidden = cs, make([]bool, len(cs))
		} else {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name.Name)
		}
		var rows []types.Row
		for i, c := range cols {
			r := textRow(c.Name, c.T.String(), strconv.FormatBool(hidden[i]), "")
			r[3] = types.NullDatum
			if d := syscat.ColumnDescription(name.Schema, name.Name, c.Name); d != "" {
				r[3] = types.DString(d)
			}
			rows = append(rows, r)
		}
		return &rowsResult{rows: rows, tag: "SHOW"}, nil
	}}, nil
}

// prepareShowParameters is SHOW PARAMETERS, as RisingWave has it: the
// system parameters, their values and whether ALTER SYSTEM changes them.
func (s *Session) prepareShowParameters() (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("Name", "Value", "Description", "Mutable"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		budget := e.cfg.MemoryBudget()
		// The settings ALTER SYSTEM changes, with their current values,
		// then what weir serve's flags fixed.
		var rows []types.Row
		for _, r := range e.systemSettingRows() {
			rows = append(rows, textRow(r[0], r[1], r[2], "true"))
		}
		rows = append(rows,
			textRow("data_directory", e.db.Dir(), "Where the database keeps its files (weir serve --data-dir).", "false"),
			textRow("state_cache_bytes", strconv.FormatInt(budget, 10), "The memory budget of everything streaming holds (weir serve --memory-budget, formerly --state-cache-mb).", "false"))
		return &rowsResult{rows: rows, tag: "SHOW"}, nil
	}}, nil
}

// prepareExplainJob is EXPLAIN MATERIALIZED VIEW name / EXPLAIN SINK
// name: the running job's dataflow, each operator with its live counts.
func (s *Session) prepareExplainJob(st *sql.ExplainJob) (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("QUERY PLAN"), run: func(ctx context.Context, _ []types.Datum, _ wire.ExecIO) (wire.Result, error) {
		// Its state counts are the committed ones: of every statement
		// acknowledged before (redo.go).
		ctx, cancel := s.withTimeout(ctx)
		defer cancel()
		if err := e.readFence(ctx); err != nil {
			return nil, err
		}
		rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "%s \"%s\" does not exist", st.Kind, st.Name.Name)
		}
		if want := map[string]catalog.Kind{"materialized view": catalog.KindMView, "sink": catalog.KindSink}[st.Kind]; rel.Kind != want {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind).
				WithHint("It is a %s.", kindWords[rel.Kind])
		}
		if sees := s.seesStateOf(); sees != nil && !sees(rel) {
			// Its live counts are weir.operators', for whom may see them.
			return nil, denied(rel)
		}
		var j *jobRun
		for _, r := range e.runningJobs() {
			if r.id == types.JobID(rel.ID) {
				j = r
			}
		}
		if j == nil {
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" has no running job", st.Kind, rel.Name).
				WithHint("See weir.jobs and weir.stream_errors for why.")
		}
		byNode := map[planner.StreamNode]operatorStat{}
		for _, op := range e.operatorStats(j, 0) {
			byNode[op.op.Node] = op
		}
		text := planner.ExplainStreamLive(j.root, func(n planner.StreamNode) string {
			op, ok := byNode[n]
			if !ok {
				return ""
			}
			var parts []string
			if !op.isLeaf {
				parts = append(parts, "rows_in: "+strconv.FormatInt(op.rowsIn, 10))
			}
			if op.counted {
				parts = append(parts, "rows_out: "+strconv.FormatInt(op.rowsOut, 10))
			}
			if op.hasState {
				parts = append(parts, "state_rows: "+strconv.FormatInt(op.stateRows, 10), "state_bytes: "+strconv.FormatInt(op.stateBytes, 10))
			}
			if op.backpressure > 0 {
				parts = append(parts, "backpressure_ms: "+strconv.FormatFloat(float64(op.backpressure.Microseconds())/1000, 'f', 1, 64))
			}
			if len(parts) == 0 {
				return ""
			}
			return "(actual " + strings.Join(parts, ", ") + ")"
		})
		var rows []types.Row
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			rows = append(rows, textRow(line))
		}
		return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
	}}, nil
}
