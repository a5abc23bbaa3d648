package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file makes the weir schema a schema like any other for psql and
// tools: it is listed by \dn and information_schema.schemata, its views
// are relations of pg_class (listed by \dt weir.*, described by \d+ with
// a comment on every column) and of information_schema.tables and
// columns; and it defines the monitoring views of the running system:
//
//	weir.checkpoints        the last checkpoints: epoch, start, duration,
//	                        bytes written, status and failure reason
//	weir.source_partitions  per source, job and partition: positions,
//	                        high watermark, lag, records and bytes read
//	weir.operators          per job and operator: rows in and out, state
//	                        size, cache use and backpressure
//
// It extends weir.jobs, weir.sources and weir.sinks with their status,
// restarts, lag and errors, and serves SHOW JOBS, SHOW PARAMETERS and
// SHOW COLUMNS FROM (as RisingWave has them) and EXPLAIN MATERIALIZED
// VIEW / EXPLAIN SINK of a running job.

// OIDs of the weir schema and its relations: below FirstNormalObjectId
// (16384), where Postgres keeps its own catalogs, so they never meet a
// user relation's.
const (
	oidWeirSchema = 13900
	oidWeirBase   = 13901
)

// weirSchema is the schema of weir's own views.
const weirSchema = "weir"

// sysDesc is the description of a weir view and of its columns.
type sysDesc struct {
	table string
	cols  map[string]string
}

// weirDescs holds the descriptions by view name.
var weirDescs = map[string]sysDesc{}

// describeSys records the description of weir view name and of its
// columns, given as "column: text" pairs.
func describeSys(name, table string, cols ...string) {
	d := sysDesc{table: table, cols: map[string]string{}}
	for _, c := range cols {
		n, text, _ := strings.Cut(c, ": ")
		d.cols[n] = text
	}
	weirDescs[name] = d
}

// weirRelation is one view of the weir schema with its OID.
type weirRelation struct {
	oid uint32
	t   *sysTable
}

// weirRelations lists the weir schema's views by name, numbered from
// oidWeirBase.
func weirRelations() []weirRelation {
	var names []string
	for _, t := range sysTables {
		if t.schema == weirSchema {
			names = append(names, t.name)
		}
	}
	slices.Sort(names)
	out := make([]weirRelation, len(names))
	for i, n := range names {
		out[i] = weirRelation{oid: uint32(oidWeirBase + i), t: sysTables[weirSchema+"."+n]}
	}
	return out
}

// weirRelationByOID finds a weir view by OID.
func weirRelationByOID(oid uint32) (weirRelation, bool) {
	rs := weirRelations()
	if oid < oidWeirBase || int(oid-oidWeirBase) >= len(rs) {
		return weirRelation{}, false
	}
	return rs[oid-oidWeirBase], true
}

// weirNamespaceRow is weir's row of pg_namespace.
func weirNamespaceRow() types.Row {
	return types.Row{vOid(oidWeirSchema), vStr(weirSchema), vOid(oidRoot), null}
}

// weirClassRows are the weir views' rows of pg_class. They are tables
// (relkind r), as pg_catalog's are, so that \dt weir.* lists them.
func weirClassRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		rows = append(rows, types.Row{vOid(r.oid), vStr(r.t.name), vOid(oidWeirSchema), vOid(0), vOid(0), vOid(oidRoot), vOid(oidHeapAM), vOid(0), vOid(0),
			vInt(0), vFloat(-1), vInt(0), vOid(0), vBool(false), vBool(false), vStr("p"), vStr("r"), vInt(len(r.t.cols)), vInt(0),
			vBool(false), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), null, null, null})
	}
	return rows
}

// weirAttributeRows are the weir views' columns in pg_attribute.
func weirAttributeRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		for i, c := range r.t.cols {
			coll := uint32(0)
			if c.T.IsString() && c.T.ID != types.Char && c.T.ID != types.Name {
				coll = 100
			}
			rows = append(rows, types.Row{vOid(r.oid), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(i + 1), vInt(0), vInt(-1), vInt(-1),
				vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr("i"), vStr(typStorage(c.T)), vStr(""), vBool(false), vBool(false), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(coll), null, null, null})
		}
	}
	return rows
}

// weirDescriptionRows are the weir views' rows of pg_description.
func weirDescriptionRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		d := weirDescs[r.t.name]
		if d.table != "" {
			rows = append(rows, types.Row{vOid(r.oid), vOid(oidPgClassRel), vInt(0), vStr(d.table)})
		}
		for i, c := range r.t.cols {
			if text := d.cols[c.Name]; text != "" {
				rows = append(rows, types.Row{vOid(r.oid), vOid(oidPgClassRel), vInt(i + 1), vStr(text)})
			}
		}
	}
	return rows
}

// weirTablesRows are the weir views' rows of information_schema.tables.
func weirTablesRows(s *Session) []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		rows = append(rows, types.Row{vStr(s.database), vStr(weirSchema), vStr(r.t.name), vStr("BASE TABLE"), vStr("NO")})
	}
	return rows
}

// weirColumnsRows are the weir views' rows of information_schema.columns.
func weirColumnsRows(s *Session) []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		for i, c := range r.t.cols {
			udt := ""
			for _, tr := range pgTypes {
				if tr.t.ID == c.T.ID {
					udt = tr.name
				}
			}
			rows = append(rows, types.Row{vStr(s.database), vStr(weirSchema), vStr(r.t.name), vStr(c.Name), vInt(i + 1), null, vStr("YES"),
				vStr(types.T{ID: c.T.ID, Mod: -1}.String()), null, null, null, null, vStr(udt)})
		}
	}
	return rows
}

// describeWeir answers obj_description, col_description and
// pg_table_is_visible for the weir views (DescribeObject).
func (s *Session) describeWeir(fn string, oid uint32, col int) (string, bool) {
	r, ok := weirRelationByOID(oid)
	if !ok {
		return "", false
	}
	switch fn {
	case "obj_description":
		d := weirDescs[r.t.name].table
		return d, d != ""
	case "col_description":
		if col < 1 || col > len(r.t.cols) {
			return "", false
		}
		d := weirDescs[r.t.name].cols[r.t.cols[col-1].Name]
		return d, d != ""
	case "pg_table_is_visible":
		// Visible when weir is on the search path, as for any schema.
		for _, p := range strings.Split(s.vars["search_path"], ",") {
			if strings.Trim(strings.TrimSpace(p), `"`) == weirSchema {
				return "t", true
			}
		}
		return "f", true
	}
	return "", false
}

func init() {
	addSys("weir", "checkpoints", "epoch:int8 started_at:timestamptz duration_ms:float8 bytes:int8 status:text failure_reason:text", func(e *Engine, s *Session) []types.Row {
		var out []types.Row
		for _, c := range e.obs.checkpoints() {
			dur, bytes, status, reason := null, null, vStr(c.status), null
			if c.status == "" {
				status = vStr("in_progress")
			} else {
				dur = vFloat(float64(c.duration.Microseconds()) / 1000)
			}
			if c.status == ckptSucceeded {
				bytes = types.DInt(c.bytes)
			}
			if c.reason != "" {
				reason = vStr(c.reason)
			}
			out = append(out, types.Row{types.DInt(int64(c.epoch)), types.DInt(c.started.UnixMicro()), dur, bytes, status, reason})
		}
		return out
	})
	describeSys("checkpoints", fmt.Sprintf("The last %d checkpoints since the server started, newest first.", checkpointHistory),
		"epoch: The checkpoint's epoch.",
		"started_at: When its barrier was injected.",
		"duration_ms: Milliseconds from the barrier's injection to the commit (or the failure).",
		"bytes: Bytes the committed checkpoint wrote to storage.",
		"status: succeeded, failed, timed_out or in_progress.",
		"failure_reason: Why it failed.")

	addSys("weir", "source_partitions", "source:text job:text partition:int4 position:int8 committed_position:int8 high_watermark:int8 lag:int8 records:int8 bytes:int8 malformed:int8", func(e *Engine, s *Session) []types.Row {
		var out []types.Row
		for _, p := range e.sourcePartitions(context.Background()) {
			pos, com, hwm, lag := null, null, null, null
			if p.hasPosition {
				pos = types.DInt(p.position)
			}
			if p.hasCommitted {
				com = types.DInt(p.committed)
			}
			if p.hasHWM {
				hwm = types.DInt(p.hwm)
			}
			if l, ok := p.lag(); ok {
				lag = types.DInt(l)
			}
			out = append(out, types.Row{vStr(p.rel.Name), vStr(jobName(e, p.job)), vInt(int(p.partition)), pos, com, hwm, lag, types.DInt(p.records), types.DInt(p.bytes), types.DInt(p.malformed)})
		}
		return out
	})
	describeSys("source_partitions", "The partitions of every source as each job reading it reads them.",
		"source: The source (or table with a connector).",
		"job: The materialized view, sink or table whose job reads it (each has a reader of its own).",
		"partition: The Kafka partition.",
		"position: The offset of the next record the reader will read.",
		"committed_position: The offset reading resumes from after a recovery (the last committed checkpoint's).",
		"high_watermark: The partition's high watermark: the offset the next record produced will get.",
		"lag: Records not covered by a committed checkpoint: high_watermark - committed_position.",
		"records: Records read since the reader started.",
		"bytes: Key and value bytes read since the reader started.",
		"malformed: Records skipped as malformed since the reader started (weir.sources counts them across restarts).")

	addSys("weir", "operators", "job:text job_id:int8 operator_id:int4 operator:text rows_in:int8 rows_out:int8 state_tables:int4 state_rows:int8 state_bytes:int8 cache_hits:int8 cache_misses:int8 cache_evictions:int8 backpressure_ms:float8", func(e *Engine, s *Session) []types.Row {
		var out []types.Row
		for _, j := range e.runningJobs() {
			for _, op := range e.operatorStats(j, 0) {
				rowsIn := null
				if !op.isLeaf {
					rowsIn = types.DInt(op.rowsIn)
				}
				srows, sbytes, hits, misses, evs := null, null, null, null, null
				if op.hasState {
					srows, sbytes = types.DInt(op.stateRows), types.DInt(op.stateBytes)
					hits, misses, evs = types.DInt(op.hits), types.DInt(op.misses), types.DInt(op.evictions)
				}
				out = append(out, types.Row{vStr(j.rel.Name), types.DInt(int64(j.id)), vInt(op.op.ID), vStr(op.op.Name), rowsIn, types.DInt(op.rowsOut),
					vInt(len(op.op.Tables)), srows, sbytes, hits, misses, evs, vFloat(float64(op.backpressure.Microseconds()) / 1000)})
			}
		}
		return out
	})
	describeSys("operators", "The operators of every running job, in EXPLAIN's order, with what they did since the job started.",
		"job: The materialized view, sink or table the job maintains.",
		"job_id: The job's id.",
		"operator_id: The operator's number in EXPLAIN's order (depth first).",
		"operator: The operator, as EXPLAIN names it.",
		"rows_in: Rows into the operator from its inputs.",
		"rows_out: Rows out of the operator.",
		"state_tables: Its state tables.",
		"state_rows: Committed rows of its state tables.",
		"state_bytes: Committed key and value bytes of its state tables.",
		"cache_hits: State lookups answered from the state cache.",
		"cache_misses: State lookups that read storage.",
		"cache_evictions: State cache entries evicted to stay within the memory budget.",
		"backpressure_ms: Milliseconds its actors waited on a full output channel (the next operator is slower).")

	describeSys("jobs", "The streaming jobs: one per materialized view, sink and table fed by a connector.",
		"id: The job's id (its relation's).",
		"name: The relation the job maintains.",
		"actors: Actors (parallel instances of its operator chains).",
		"backfill_rows: Rows of existing data its backfill has read.",
		"backfill_done: Whether its backfill has finished.",
		"kind: materialized view, sink or table.",
		"status: running, backfilling, recovering, restarting, rebuilding or failed (out of restart attempts or its rebuild failed; see last_error; ALTER ... RESUME brings it back).",
		"parallelism: Actors per fragment (streaming_parallelism), 0 for the default.",
		"restarts: Times it was restarted (by its restart strategy or a recovery of every job).",
		"last_error: The error of its last restart or failure.",
		"last_error_at: When that error happened.",
		"backfill_progress: Fraction of its backfill done (1 when finished).",
		"restart_strategy: The restart strategy it fails over by (WITH (restart_strategy ...) or the system's).")
	describeSys("sources", "Sources and tables fed by a connector.",
		"name: The source.", "kind: source or table.", "topic: The Kafka topic.", "format: PLAIN or UPSERT.", "encode: JSON or CSV.",
		"malformed_count: Records skipped as malformed (committed with the checkpoints).",
		"late_rows: Rows dropped for arriving behind the watermark (committed with the checkpoints).",
		"partitions: Partitions of the topic read.",
		"lag: Records not yet covered by a committed checkpoint, for the job furthest behind (see weir.source_partitions).")
	describeSys("sinks", "Sinks and their Kafka transactions.",
		"name: The sink.", "topic: The Kafka topic.", "format: PLAIN, UPSERT or DEBEZIUM.", "guarantee: exactly-once or at-least-once.",
		"last_committed_epoch: The last checkpoint epoch whose transaction committed.",
		"pending_transactions: Transactions pre-committed and not yet committed in Kafka.",
		"records_written: Records written since the server started.",
		"records_skipped: Records over max.record.bytes, not written.",
		"decoupled: Whether the sink delivers from a log store of its own (sink.decouple).",
		"lag_epochs: Committed epochs in its log store not yet delivered.",
		"lag_rows: Rows in its log store not yet delivered.",
		"lag_bytes: Bytes in its log store not yet delivered.",
		"paused: Whether its log store is full, pausing its job's sources.",
		"state: running, paused (its log store is full), restarting or failed.",
		"last_committed_at: When the checkpoint of last_committed_epoch began.",
		"transactions_committed: Transactions committed since the server started.",
		"transactions_aborted: Transactions aborted since the server started.",
		"transactions_recommitted: Transactions of a committed checkpoint committed again by a recovery.",
		"last_error: The sink's last error (see weir.stream_errors).")
	describeSys("checkpoint", "The last committed checkpoint.",
		"committed_epoch: Its epoch.", "committed_at: When it began.", "barrier_interval_ms: The checkpoint interval (ALTER SYSTEM SET barrier_interval_ms).")
	describeSys("stream_errors", "Errors of streaming jobs: expressions turned into NULLs, sources' connection errors, sinks' failures.",
		"view: The job's relation.", "operator: Where the error happened.", "sqlstate: Its SQLSTATE.", "error_count: How often it happened.",
		"last_error: The last message.", "first_seen: When it first happened.", "last_seen: When it last happened.")
	describeSys("state_tables", "Every state table of every running job.",
		"job: The job's relation.", "job_id: The job's id.", "table_id: The state table's id.", "name: Its name in EXPLAIN.",
		"operator: The operator keeping it.", "rows: Its rows at the last committed checkpoint.")
	describeSys("source_errors", "The latest records skipped as malformed, per source.",
		"source: The source.", "partition: The record's partition.", "offset: Its offset.", "reason: Why it was skipped.", "seen_at: When.")
	describeSys("watermarks", "The watermarks of sources and tables with a WATERMARK FOR clause.",
		"name: The source or table.", "kind: source or table.", "watermark_column: The watermark's column.",
		"watermark_expr: Its expression.", "watermark: The current watermark.", "late_rows: Rows dropped for arriving behind it.")
}

// jobRows are weir.jobs' rows.
func (e *Engine) jobRows() []types.Row {
	rels, running := e.jobStatuses()
	var out []types.Row
	for _, r := range rels {
		id := types.JobID(r.ID)
		j := running[id]
		obs := e.obs.jobHealthOf(id)
		h, known := e.st.health.snapshot(id)
		if !known {
			h.status = jobRunning
			if st, err := e.jobRestartStrategy(r.With); err == nil {
				h.strategy = st.String()
			}
		}
		if j == nil && h.status == jobRunning {
			// Not started yet (a CREATE under way) or not rebuilt.
			continue
		}
		par, _ := strconv.Atoi(r.With["streaming_parallelism"])
		actors, brows, bdone, prog := int64(0), int64(0), false, 0.0
		if j != nil {
			actors = int64(len(j.job.ActorIDs()))
			rows, total, n, _ := j.backfillState()
			done := j.backfillDone()
			brows, bdone, prog = rows, done, backfillRatio(rows, total, n, done)
		}
		restarts := e.jobRestarts(id)
		lastErr, lastAt := null, null
		switch {
		case h.lastErr != "":
			lastErr = vStr(h.lastErr)
			if !obs.lastAt.IsZero() {
				lastAt = types.DInt(obs.lastAt.UnixMicro())
			}
		case obs.lastError != "":
			lastErr, lastAt = vStr(obs.lastError), types.DInt(obs.lastAt.UnixMicro())
		}
		out = append(out, types.Row{types.DInt(int64(r.ID)), vStr(r.Name), types.DInt(actors), types.DInt(brows), vBool(bdone),
			vStr(jobKind(r)), vStr(e.jobStatus(r, j)), vInt(par), types.DInt(restarts), lastErr, lastAt, vFloat(prog), vStr(h.strategy)})
	}
	return out
}

// jobRestarts is how often job id was restarted: a job that failed
// itself counts the restarts of its strategy, any other the recoveries
// of every job it went through.
func (e *Engine) jobRestarts(id types.JobID) int64 {
	if h, ok := e.st.health.snapshot(id); ok {
		return int64(h.count)
	}
	return e.obs.jobHealthOf(id).restarts
}

// sourceExtra are the columns weir.sources has beyond its first ones:
// late rows, partitions read, and the lag of the job furthest behind.
func (e *Engine) sourceExtra(parts []sourcePartition, r *catalog.Relation) types.Row {
	byJob := map[types.JobID]int64{}
	seen := map[int32]bool{}
	known := false
	for _, p := range parts {
		if p.rel.ID != r.ID {
			continue
		}
		seen[p.partition] = true
		if l, ok := p.lag(); ok {
			byJob[p.job] += l
			known = true
		}
	}
	lag := null
	if known {
		m := int64(0)
		for _, l := range byJob {
			m = max(m, l)
		}
		lag = types.DInt(m)
	}
	return types.Row{types.DInt(e.wms.lateRows(r.ID)), vInt(len(seen)), lag}
}

// sinkExtra are the columns weir.sinks has beyond its first ones.
func (e *Engine) sinkExtra(r *catalog.Relation, running map[types.JobID]*jobRun) types.Row {
	at, lastErr := null, null
	var c, a, rc int64
	if info := e.conns.sinkInfo(r.ID); info != nil {
		if ep, _ := info.snapshot(); ep > 0 {
			at = types.DInt(checkpoint.EpochTime(ep).UnixMicro())
		}
		c, a, rc = info.txCommitted.Load(), info.txAborted.Load(), info.txRecommitted.Load()
	}
	// The sink's last error: its own (weir.stream_errors) or the cause
	// of its last restart, whichever is later.
	var last string
	var lastAt time.Time
	for _, er := range e.st.errs.rows() {
		if er.key.job == types.JobID(r.ID) && er.lastAt.After(lastAt) {
			last, lastAt = er.last, er.lastAt
		}
	}
	if h := e.obs.jobHealthOf(types.JobID(r.ID)); h.lastError != "" && h.lastAt.After(lastAt) {
		last = h.lastError
	}
	if last != "" {
		lastErr = vStr(last)
	}
	return types.Row{vStr(e.sinkState(r, running[types.JobID(r.ID)])), at, types.DInt(c), types.DInt(a), types.DInt(rc), lastErr}
}

// prepareShowJobs is SHOW JOBS, as RisingWave has it: the jobs still
// being created (backfilling), with their progress.
func (s *Session) prepareShowJobs() (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("Id", "Statement", "Progress"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		rels, running := e.jobStatuses()
		var rows []types.Row
		for _, r := range rels {
			j := running[types.JobID(r.ID)]
			if j == nil {
				continue
			}
			n, total, reported, done := j.backfillState()
			if reported == 0 || done {
				continue
			}
			rows = append(rows, textRow(strconv.Itoa(int(r.ID)), jobStatement(r), fmt.Sprintf("%.2f%%", 100*backfillRatio(n, total, reported, done))))
		}
		return &rowsResult{rows: rows, tag: "SHOW"}, nil
	}}, nil
}

// jobStatement is the statement that created a job's relation.
func jobStatement(r *catalog.Relation) string {
	switch r.Kind {
	case catalog.KindMView:
		return mviewDefinition(r)
	case catalog.KindSink:
		return sinkDefinition(r)
	}
	return r.SQL
}

// prepareShowColumns is SHOW COLUMNS FROM name, as RisingWave has it:
// the relation's columns, hidden ones included.
func (s *Session) prepareShowColumns(name sql.ObjectName) (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("Name", "Type", "Is Hidden", "Description"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		var cols types.Schema
		var hidden []bool
		if rel, ok := e.cat.Lookup(schemaOf(name), name.Name); ok {
			for _, c := range rel.Cols {
				cols = append(cols, types.Column{Name: c.Name, T: c.T})
				hidden = append(hidden, c.Hidden)
			}
		} else if t, ok := sysTables[name.Schema+"."+name.Name]; ok {
			cols, hidden = t.cols, make([]bool, len(t.cols))
		} else {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name.Name)
		}
		var rows []types.Row
		for i, c := range cols {
			r := textRow(c.Name, c.T.String(), strconv.FormatBool(hidden[i]), "")
			r[3] = null
			if name.Schema == weirSchema {
				if d := weirDescs[name.Name].cols[c.Name]; d != "" {
					r[3] = vStr(d)
				}
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
	return &utilPrepared{fields: textFields("QUERY PLAN"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		rel, ok := e.cat.Lookup(schemaOf(st.Name), st.Name.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "%s \"%s\" does not exist", st.Kind, st.Name.Name)
		}
		if want := map[string]catalog.Kind{"materialized view": catalog.KindMView, "sink": catalog.KindSink}[st.Kind]; rel.Kind != want {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind).
				WithHint("It is a %s.", kindWords[rel.Kind])
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
