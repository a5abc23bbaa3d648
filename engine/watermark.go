package engine

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file holds the engine's side of watermarks (DESIGN.md §2).
//
// A table or source keeps its WATERMARK FOR clause in WITH options
// (planner.WithWatermarkColumn, planner.WithWatermarkExpr). A source
// generates its watermark inside every job that reads it (the Source
// operator). A table's rows come from DML, so the engine generates the
// table's watermark: the largest value of the watermark expression over
// the rows inserted so far, leaving out NULLs, failures and infinities
// (none of them ever moves the watermark). A statement's rows whose
// watermark column is below the watermark as the statement begins are
// late: they are dropped (not stored, not sent to the views, not counted
// in the command tag nor returned by RETURNING) and counted as late.
// Inside a transaction block the rows are judged at COMMIT, against the
// watermark then. NULLs are never late; -infinity is below every
// watermark, so it is late once the table has one, and infinity never
// is. Before every barrier the engine sends the table's watermark to the
// jobs that scan it, and the watermark is stored with the epoch's writes
// (a meta entry), so it never goes back, not even across a restart; so
// is the count of the table's late rows.
//
// weir.watermarks shows every relation with a watermark: its current
// watermark and how many rows were dropped for arriving behind it.

// tableWatermark is the watermark of one table fed by DML. Guarded by
// Engine.writeMu.
type tableWatermark struct {
	def *planner.SourceWatermark
	ev  executor.Evaluator
	// loaded: cur was read from storage (after a start or a recovery).
	loaded bool
	cur    types.Datum
	has    bool
	// stored is the value written into an epoch last (has: storedOK).
	stored   int64
	storedOK bool
	// late counts the table's rows dropped for arriving late, stored
	// with the watermark (storedLate is the value written last), so the
	// count survives a restart.
	late, storedLate int64
}

// watermarkState is the engine's record of watermarks: tables' own, and
// what the sources' jobs report (stream.WatermarkRecorder).
type watermarkState struct {
	// tables is guarded by Engine.writeMu.
	tables map[uint32]*tableWatermark

	mu sync.Mutex
	// late counts rows dropped per relation and job (job 0 for a table's
	// DML, counted since the server started; a source's jobs count from
	// their committed counts, RestoreSourceCounts); malformed counts the
	// records a source skipped, per job, the same way. current is the
	// latest watermark per relation (the highest over the jobs reading a
	// source).
	late      map[uint32]map[types.JobID]int64
	malformed map[uint32]map[types.JobID]int64
	current   map[uint32]types.Watermark
	log       func(rel uint32, n int64, w types.Watermark)
}

func newWatermarkState() *watermarkState {
	return &watermarkState{tables: map[uint32]*tableWatermark{}, late: map[uint32]map[types.JobID]int64{},
		malformed: map[uint32]map[types.JobID]int64{}, current: map[uint32]types.Watermark{}}
}

// LateRows implements stream.WatermarkRecorder.
func (ws *watermarkState) LateRows(job types.JobID, rel uint32, n int64, w types.Watermark) {
	ws.mu.Lock()
	perJob(ws.late, rel)[job] += n
	log := ws.log
	ws.mu.Unlock()
	if log != nil {
		log(rel, n, w)
	}
}

// MalformedRecords implements stream.WatermarkRecorder.
func (ws *watermarkState) MalformedRecords(job types.JobID, rel uint32, n int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	perJob(ws.malformed, rel)[job] += n
}

// RestoreSourceCounts implements stream.WatermarkRecorder.
func (ws *watermarkState) RestoreSourceCounts(job types.JobID, rel uint32, late, malformed int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	perJob(ws.late, rel)[job] = late
	perJob(ws.malformed, rel)[job] = malformed
}

// restoreTableLate sets the late rows of table rel's DML (job 0) to the
// count stored with its watermark.
func (ws *watermarkState) restoreTableLate(rel uint32, n int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	perJob(ws.late, rel)[0] = n
}

// perJob returns the per-job counts of relation rel in m, creating them.
// Called with ws.mu held.
func perJob(m map[uint32]map[types.JobID]int64, rel uint32) map[types.JobID]int64 {
	if m[rel] == nil {
		m[rel] = map[types.JobID]int64{}
	}
	return m[rel]
}

// lateRows returns the number of rows of relation rel dropped for
// arriving late: every job reading a source has a reader of its own,
// which sees every record, so a source's count is the highest of one
// job's. Called with ws.mu held.
func (ws *watermarkState) lateRows(rel uint32) int64 { return maxCount(ws.late[rel]) }

// malformedRecords returns the number of records of source rel skipped
// as malformed, the highest of one job's as for lateRows.
func (ws *watermarkState) malformedRecords(rel uint32) int64 {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return maxCount(ws.malformed[rel])
}

// maxCount is the highest of a relation's per-job counts (0 for none).
func maxCount(perJob map[types.JobID]int64) int64 {
	var n int64
	for _, v := range perJob {
		n = max(n, v)
	}
	return n
}

// Watermark implements stream.WatermarkRecorder.
func (ws *watermarkState) Watermark(job types.JobID, rel uint32, w types.Watermark) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if cur, ok := ws.current[rel]; !ok || types.Compare(w.Val, cur.Val, w.T) > 0 {
		ws.current[rel] = w
	}
}

// watermarkMetaKey names the meta entry holding table relID's watermark
// (decimal Datum.I).
func watermarkMetaKey(relID uint32) string {
	return "table/watermark/" + strconv.FormatUint(uint64(relID), 10)
}

// lateRowsMetaKey names the meta entry holding how many rows of table
// relID were dropped for arriving late (decimal).
func lateRowsMetaKey(relID uint32) string {
	return "table/late_rows/" + strconv.FormatUint(uint64(relID), 10)
}

// setWatermarkOptions records a WATERMARK FOR clause in with and checks
// it against the relation's columns (rel.With must be with). A table
// with a watermark must be APPEND ONLY (appendOnly), since its late rows
// are dropped as they come: a row that could be updated or deleted later
// would make the watermark a promise about a changing set.
func setWatermarkOptions(rel *catalog.Relation, wm *sql.WatermarkDef, appendOnly bool) error {
	if wm == nil {
		if _, ok := rel.With[planner.WithWatermarkIdleTimeout]; ok {
			return pgerr.New(pgerr.InvalidParameterValue, "%s needs a WATERMARK FOR clause", planner.WithWatermarkIdleTimeout)
		}
		return nil
	}
	if rel.Kind == catalog.KindTable && !appendOnly {
		return pgerr.New(pgerr.InvalidTableDefinition, "a table with a watermark must be APPEND ONLY").
			WithHint("Add APPEND ONLY after the column list: rows behind the watermark are dropped, so rows cannot be updated or deleted.")
	}
	if strings.EqualFold(rel.With[optFormat], "upsert") {
		return pgerr.New(pgerr.InvalidTableDefinition, "a watermark cannot be defined with FORMAT UPSERT")
	}
	rel.With[planner.WithWatermarkColumn] = wm.Column
	rel.With[planner.WithWatermarkExpr] = wm.Expr
	_, err := planner.RelWatermark(rel)
	return err
}

// appendOnlyTable reports whether rel was created APPEND ONLY.
func appendOnlyTable(rel *catalog.Relation) bool {
	return strings.EqualFold(rel.With[appendOnlyOption], "true")
}

// errAppendOnly is the error for an UPDATE or DELETE of an append-only
// table.
func errAppendOnly(rel *catalog.Relation, what string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "cannot %s table \"%s\": it is APPEND ONLY", what, rel.Name)
}

// tableWatermark returns the watermark state of table rel (nil when it
// has none), loading the stored watermark on first use. Called under
// writeMu.
func (e *Engine) tableWatermark(rel *catalog.Relation) (*tableWatermark, error) {
	if rel.Kind != catalog.KindTable || planner.HasConnector(rel) || rel.With[planner.WithWatermarkColumn] == "" {
		return nil, nil
	}
	tw := e.wms.tables[rel.ID]
	if tw == nil {
		def, err := planner.RelWatermark(rel)
		if err != nil || def == nil {
			return nil, err
		}
		ev, err := executor.Compile(def.Expr)
		if err != nil {
			return nil, err
		}
		tw = &tableWatermark{def: def, ev: ev}
		e.wms.tables[rel.ID] = tw
	}
	if !tw.loaded {
		if err := e.loadTableWatermark(rel.ID, tw); err != nil {
			return nil, err
		}
	}
	return tw, nil
}

// loadTableWatermark reads table relID's committed watermark into tw.
func (e *Engine) loadTableWatermark(relID uint32, tw *tableWatermark) error {
	v, ok, err := e.db.Meta(watermarkMetaKey(relID))
	if err != nil {
		return err
	}
	lv, lok, err := e.db.Meta(lateRowsMetaKey(relID))
	if err != nil {
		return err
	}
	tw.late, tw.storedLate = 0, 0
	if lok {
		n, err := strconv.ParseInt(string(lv), 10, 64)
		if err != nil {
			return pgerr.New(pgerr.DataCorrupted, "table %d: stored late row count %q", relID, lv)
		}
		tw.late, tw.storedLate = n, n
	}
	e.wms.restoreTableLate(relID, tw.late)
	tw.has, tw.storedOK = false, false
	if ok {
		i, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return pgerr.New(pgerr.DataCorrupted, "table %d: stored watermark %q", relID, v)
		}
		tw.cur, tw.has, tw.stored, tw.storedOK = types.DInt(i), true, i, true
		e.wms.mu.Lock()
		e.wms.current[relID] = types.Watermark{Col: tw.def.Col, T: tw.def.T, Val: tw.cur}
		e.wms.mu.Unlock()
	}
	tw.loaded = true
	return nil
}

// behind reports whether a row to be inserted is behind the table's
// watermark (late). Called under writeMu.
func (tw *tableWatermark) behind(row types.Row) bool {
	v := row[tw.def.Col]
	return tw.has && !v.Null && types.Compare(v, tw.cur, tw.def.T) < 0
}

// filterLate drops the late rows of a statement's changes of one table
// and returns how many it dropped. Called under writeMu, before the
// changes are applied.
func (e *Engine) filterLate(tc *tableChanges, tw *tableWatermark) int64 {
	if !tw.has {
		return 0
	}
	keep := 0
	for i, op := range tc.ops {
		if op.IsInsert() && tw.behind(tc.rows[i]) {
			continue
		}
		tc.ops[keep], tc.rows[keep], tc.keys[keep] = op, tc.rows[i], tc.keys[i]
		keep++
	}
	n := int64(len(tc.ops) - keep)
	clear(tc.rows[keep:])
	tc.ops, tc.rows, tc.keys = tc.ops[:keep], tc.rows[:keep], tc.keys[:keep]
	e.countLate(tc.rel.ID, tw, n)
	return n
}

// countLate counts n rows of table id dropped behind its watermark tw.
// Called under writeMu.
func (e *Engine) countLate(id uint32, tw *tableWatermark, n int64) {
	if n <= 0 {
		return
	}
	tw.late += n
	e.wms.LateRows(0, id, n, types.Watermark{Col: tw.def.Col, T: tw.def.T, Val: tw.cur})
}

// advanceWatermark raises the table's watermark over the statement's
// inserted rows, after they were sent to the jobs (so the watermark
// reaches every job after them). Rows whose expression fails, is NULL or
// is infinite do not count: an infinity would make every later row late
// and no window could ever be computed from it (window functions fail
// on infinite times), so one row would stop the table's views for good.
func (e *Engine) advanceWatermark(tc *tableChanges, tw *tableWatermark) {
	c := types.NewChunk(tc.ts, len(tc.rows))
	for i, op := range tc.ops {
		if op.IsInsert() {
			c.AppendRow(types.OpInsert, tc.rows[i])
		}
	}
	if c.Len() == 0 {
		return
	}
	ec := &executor.EvalCtx{Context: functions.Context{Location: time.UTC}}
	v, err := tw.ev.Eval(ec, c)
	if err != nil {
		// One row failed: evaluate row by row, leaving the failing ones
		// out.
		v = types.NewVec(tw.def.T, c.Len())
		one := types.NewChunk(tc.ts, 1)
		for i := 0; i < c.Len(); i++ {
			one.Reset()
			one.AppendRow(types.OpInsert, c.Row(i))
			if rv, err := tw.ev.Eval(ec, one); err == nil {
				v.Append(rv.Get(0))
			} else {
				v.Append(types.NullDatum)
			}
		}
	}
	for i := 0; i < v.Len(); i++ {
		if v.Nulls[i] {
			continue
		}
		d := v.Get(i)
		if types.IsInfinite(d, tw.def.T) {
			continue
		}
		if !tw.has || types.Compare(d, tw.cur, tw.def.T) > 0 {
			tw.cur, tw.has = d, true
		}
	}
	if tw.has {
		e.wms.Watermark(0, tc.rel.ID, types.Watermark{Col: tw.def.Col, T: tw.def.T, Val: tw.cur})
	}
}

// injectTableWatermarks sends every table's watermark to job j's inputs
// that scan the table, ahead of a barrier, and stores the watermarks
// that moved into the sealed epoch's batch. Called under writeMu by
// Inject.
func (e *Engine) injectTableWatermarks(ctx context.Context, j *jobRun) error {
	for _, t := range j.job.Tables {
		if t.Relayed {
			continue
		}
		tw := e.wms.tables[t.Rel.ID]
		if tw == nil || !tw.has {
			continue
		}
		if err := t.Inject(ctx, types.Watermark{Col: tw.def.Col, T: tw.def.T, Val: tw.cur}); err != nil {
			return err
		}
	}
	return nil
}

// storeTableWatermarks writes the table watermarks that moved into b,
// the batch of the epoch being sealed. Called under writeMu.
func (e *Engine) storeTableWatermarks(b *storage.Batch) {
	for id, tw := range e.wms.tables {
		if tw.late != tw.storedLate {
			if err := b.SetMeta(lateRowsMetaKey(id), []byte(strconv.FormatInt(tw.late, 10))); err != nil {
				e.log.Error("storing a table's late row count", "table", id, "err", err)
			} else {
				tw.storedLate = tw.late
			}
		}
		if !tw.has || tw.storedOK && tw.stored == tw.cur.I {
			continue
		}
		if err := b.SetMeta(watermarkMetaKey(id), []byte(strconv.FormatInt(tw.cur.I, 10))); err != nil {
			e.log.Error("storing a table's watermark", "table", id, "err", err)
			continue
		}
		tw.stored, tw.storedOK = tw.cur.I, true
	}
}

// reloadTableWatermarks reads the tables' watermarks (again) from
// storage, at the start and after a recovery, which discards the epochs
// that moved them since. A watermark that cannot be read is read again
// at the table's next write. Called under writeMu.
func (e *Engine) reloadTableWatermarks() {
	for _, tw := range e.wms.tables {
		tw.loaded = false
	}
	for _, rel := range e.cat.All() {
		if _, err := e.tableWatermark(rel); err != nil {
			if tw := e.wms.tables[rel.ID]; tw != nil {
				tw.loaded, tw.has = false, false
			}
			e.log.Error("reading a table's watermark", "table", rel.Name, "err", err)
		}
	}
}

// dropWatermark forgets a dropped relation's watermark; b is the batch
// of the open epoch, which removes the stored one.
func (e *Engine) dropWatermark(rel *catalog.Relation, b *storage.Batch) {
	if _, ok := e.wms.tables[rel.ID]; ok {
		delete(e.wms.tables, rel.ID)
		_ = b.DeleteKey(storage.MetaKey(watermarkMetaKey(rel.ID)))
		_ = b.DeleteKey(storage.MetaKey(lateRowsMetaKey(rel.ID)))
	}
	if rel.Kind == catalog.KindMView {
		_ = b.DeleteKey(storage.MetaKey(viewWatermarkMetaKey(rel.ID)))
	}
	e.wms.mu.Lock()
	delete(e.wms.late, rel.ID)
	delete(e.wms.malformed, rel.ID)
	delete(e.wms.current, rel.ID)
	e.wms.mu.Unlock()
}

// Watermarks implements syscat.System: the watermarks of sources and
// tables with a WATERMARK FOR clause, by name.
func (v liveSystem) Watermarks() []syscat.Watermark { return v.e.watermarkRecords(nil) }

// watermarkRecords are weir.watermarks' rows, of the relations visible
// accepts (all when nil).
func (e *Engine) watermarkRecords(visible func(*catalog.Relation) bool) []syscat.Watermark {
	var rels []*catalog.Relation
	for _, r := range e.cat.All() {
		if r.With[planner.WithWatermarkColumn] != "" && (visible == nil || visible(r)) {
			rels = append(rels, r)
		}
	}
	slices.SortFunc(rels, func(a, b *catalog.Relation) int { return cmp.Compare(a.Name, b.Name) })
	e.wms.mu.Lock()
	defer e.wms.mu.Unlock()
	var out []syscat.Watermark
	for _, r := range rels {
		w := syscat.Watermark{Name: r.Name, Kind: kindWords[r.Kind], Column: r.With[planner.WithWatermarkColumn],
			Expr: watermarkExprText(r), LateRows: e.wms.lateRows(r.ID)}
		if cur, ok := e.wms.current[r.ID]; ok {
			w.Value = syscat.Null[string]{V: types.FormatText(cur.Val, cur.T, nil), Valid: true}
		}
		out = append(out, w)
	}
	return out
}

// logLateRows logs, at debug level, rows dropped behind a watermark.
func (e *Engine) logLateRows(rel uint32, n int64, w types.Watermark) {
	name := strconv.FormatUint(uint64(rel), 10)
	if r, ok := e.cat.ByID(rel); ok {
		name = r.Name
	}
	e.log.Debug("rows behind the watermark dropped", "relation", name, "rows", n, "watermark", types.FormatText(w.Val, w.T, nil))
}

// watermarkExprText is rel's watermark expression as weir.watermarks
// shows it: bound and printed as EXPLAIN prints expressions (with
// Postgres's literal forms), or as recorded if it no longer binds.
func watermarkExprText(rel *catalog.Relation) string {
	w, err := planner.RelWatermark(rel)
	if err != nil || w == nil || w.Expr == nil {
		return rel.With[planner.WithWatermarkExpr]
	}
	return planner.FormatExpr(w.Expr)
}
