package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// backfillNoticeEvery is how often CREATE MATERIALIZED VIEW reports the
// progress of a long backfill with a NOTICE.
var backfillNoticeEvery = 2 * time.Second

// planMView binds and plans the query of CREATE MATERIALIZED VIEW st into
// a stream plan over mv (whose Cols and PK it fills in), with state table
// ids from alloc.
func (s *Session) planMView(st *sql.CreateView, mv *catalog.Relation, alloc func() uint32) (*planner.StreamMaterialize, *planner.Bound, error) {
	if err := checkMViewOptions(st.With); err != nil {
		return nil, nil, err
	}
	if _, err := s.eng.jobRestartStrategy(st.With); err != nil {
		return nil, nil, err
	}
	b, err := planner.Bind(st.Query, s.catalogView(), nil)
	if err != nil {
		return nil, nil, err
	}
	if len(b.Params) > 0 {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "materialized views may not be defined using bound parameters")
	}
	if st.EmitOnWindowClose {
		// Kept with the view, so that planning it again after a restart
		// keeps the mode.
		if mv.With == nil {
			mv.With = map[string]string{}
		}
		mv.With[planner.WithEmitOnWindowClose] = "true"
	}
	root, err := planner.PlanStream(b.Plan, mv, alloc)
	if err != nil {
		return nil, nil, err
	}
	assignScanStates(root, alloc)
	// The visible columns are the query's, in order: they take the
	// collations PostgreSQL derives for them,
	// and the domains their values are of, as \d and pg_typeof name them.
	if colls := planner.Collations(b.Plan); len(colls) == len(b.Plan.Schema()) {
		doms := planner.Domains(b.Plan)
		k := 0
		for i := range mv.Cols {
			if !mv.Cols[i].Hidden && k < len(colls) {
				mv.Cols[i].Collation = colls[k]
				mv.Cols[i].Domain, mv.Cols[i].DomainArray = doms[k].OID, doms[k].Array
				k++
			}
		}
	}
	if len(st.Columns) > 0 {
		var visible []int
		for i, c := range mv.Cols {
			if !c.Hidden {
				visible = append(visible, i)
			}
		}
		if len(st.Columns) > len(visible) {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
		}
		seen := map[string]bool{}
		for i, name := range st.Columns {
			mv.Cols[visible[i]].Name = name
		}
		for _, c := range mv.Cols {
			if seen[c.Name] {
				return nil, nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name)
			}
			seen[c.Name] = true
		}
	}
	return root, b, nil
}

// mviewOptions are the options CREATE MATERIALIZED VIEW ... WITH (...)
// takes.
var mviewOptions = []string{"state_ttl", "streaming.barrier_alignment", "streaming_parallelism", optTimeZone}

// appendOnlyOption marks, in a relation's WITH options, a table created
// APPEND ONLY or a view whose plan never retracts.
const appendOnlyOption = "append_only"

// optTimeZone is the option of views and sinks holding the time zone
// their expressions compute timestamptz values in (date_trunc, casts to
// date, ...): the session's TimeZone when they were created, kept so
// that the job computes the same after a restart, whatever the session.
const optTimeZone = "timezone"

// jobLocation returns the time zone a job's expressions use: the
// relation's optTimeZone, UTC when it has none (or an unknown one).
func jobLocation(with map[string]string) *time.Location {
	if v, ok := with[optTimeZone]; ok {
		if loc, _, err := loadLocation(v); err == nil {
			return loc
		}
	}
	return time.UTC
}

// checkMViewOptions refuses unknown options of CREATE MATERIALIZED VIEW
// and bad values of those that the planner does not read itself (it
// checks state_ttl). Errors: 22023.
func checkMViewOptions(with map[string]string) error {
	keys := slices.Sorted(maps.Keys(with))
	for _, k := range keys {
		if !slices.Contains(mviewOptions, k) {
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized materialized view option \"%s\"", k).
				WithHint("The options are %s.", strings.Join(mviewOptions, ", "))
		}
	}
	if err := checkParallelism(with); err != nil {
		return err
	}
	if v, ok := with[optTimeZone]; ok {
		if _, _, err := loadLocation(v); err != nil {
			return err
		}
	}
	_, err := barrierAlignment(with)
	return err
}

// MaxStreamingParallelism is the most actors per fragment a streaming
// job may have. A hash exchange connects every actor of a fragment to
// every actor of the next, so a job's channels grow with the square of
// its parallelism: at 1,000 actors a shuffle has a million channels, and
// a two-core server spent its time there instead of checkpointing.
const MaxStreamingParallelism = 64

// checkParallelism checks a streaming job's streaming_parallelism
// option, when given: a number of actors per fragment from 1 to
// MaxStreamingParallelism. Errors: 22023.
func checkParallelism(with map[string]string) error {
	if v, ok := with["streaming_parallelism"]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 || n > MaxStreamingParallelism {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for streaming_parallelism: \"%s\"", v).
				WithHint("A number of actors from 1 to %d is expected.", MaxStreamingParallelism)
		}
	}
	return nil
}

// mviewDefinition returns the CREATE MATERIALIZED VIEW statement of rel:
// its options (streaming_parallelism as the view was planned with) and
// EMIT ON WINDOW CLOSE around its query as written, or as it reads
// today's names when it no longer does (shownQuery).
func (e *Engine) mviewDefinition(rel *catalog.Relation) string {
	// EMIT ON WINDOW CLOSE and append-only are recorded by weir from the
	// view's plan, not options.
	def := "CREATE MATERIALIZED VIEW " + sql.QuoteIdent(rel.Name) +
		withClause(rel.With, planner.WithEmitOnWindowClose, planner.WithFullJoinMarks, planner.WithPlanFormat, appendOnlyOption, planner.WithViewWatermarks) + " AS " + e.shownQuery(rel, rel.SQL)
	if rel.With[planner.WithEmitOnWindowClose] == "true" {
		def += " EMIT ON WINDOW CLOSE"
	}
	return def
}

// sinkDefinition is SHOW CREATE SINK's text: the sink's statement with
// every option it runs with in WITH, those weir recorded at creation
// included (the session's timezone), so that running it again sinks the
// same rows. The ENCODE options, merged with WITH's at creation, are
// shown in WITH. A statement that does not parse again is shown as
// written. A query that no longer reads, run afresh, what the sink reads
// under the names it writes is shown deparsed (shownQuery), a FROM
// relation as the query reading it.
func (e *Engine) sinkDefinition(rel *catalog.Relation) string {
	stmt, err := sql.ParseDefinition(rel.SQL)
	st, ok := stmt.(*sql.CreateSink)
	if err != nil || !ok {
		return rel.SQL
	}
	def := "CREATE SINK " + quoteObject(st.Name)
	if st.Query != nil {
		def += " AS " + e.shownQuery(rel, st.QueryText)
	} else if q := e.shownQuery(rel, "SELECT * FROM "+quoteObject(st.From)); !strings.HasPrefix(q, "SELECT * FROM ") {
		def += " AS " + q
	} else {
		def += " FROM " + quoteObject(st.From)
	}
	def += withClause(redactOptions(rel.With), optFormat, optEncode, planner.WithFullJoinMarks, planner.WithPlanFormat)
	if f := rel.With[optFormat]; f != "" {
		def += " FORMAT " + strings.ToUpper(f)
		if enc := rel.With[optEncode]; enc != "" {
			def += " ENCODE " + strings.ToUpper(enc)
		}
	}
	return def
}

// withClause returns " WITH (k = 'v', ...)" of the options in with but
// those in skip, sorted by key, or "" when none is left.
func withClause(with map[string]string, skip ...string) string {
	var opts []string
	for _, k := range slices.Sorted(maps.Keys(with)) {
		if !slices.Contains(skip, k) {
			opts = append(opts, k+" = '"+strings.ReplaceAll(with[k], "'", "''")+"'")
		}
	}
	if len(opts) == 0 {
		return ""
	}
	return " WITH (" + strings.Join(opts, ", ") + ")"
}

// quoteObject is n as SQL text, each part quoted when it needs it.
func quoteObject(n sql.ObjectName) string {
	if n.Schema == "" {
		return sql.QuoteIdent(n.Name)
	}
	return sql.QuoteIdent(n.Schema) + "." + sql.QuoteIdent(n.Name)
}

// assignScanStates gives every table scan of the plan that has none a
// state table for its backfill progress, allocated after the planner's
// own in a fixed (depth-first) order, so that planning again replays the
// same ids.
func assignScanStates(n planner.StreamNode, alloc func() uint32) {
	if s, ok := n.(*planner.StreamTableScan); ok && s.State.ID == 0 {
		s.State = planner.StateTableDesc{
			ID:   alloc(),
			Name: "backfill",
			Cols: types.Schema{
				{Name: "actor", T: types.TInt4}, {Name: "done", T: types.TBool},
				{Name: "rows", T: types.TInt8}, {Name: "position", T: types.TBytea},
			},
			KeyCols: []int{0},
		}
	}
	for _, in := range n.StreamInputs() {
		assignScanStates(in, alloc)
	}
}

// createMView runs CREATE MATERIALIZED VIEW: it plans the view, records
// it in the catalog with its state table ids, builds its job and adds it
// with a barrier (from which the job reads the tables' changes), then
// waits until the backfill of the existing rows is done and committed,
// sending NOTICEs with the progress of a long backfill.
func (s *Session) createMView(ctx context.Context, st *sql.CreateView, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	if st.OrReplace {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE OR REPLACE MATERIALIZED VIEW is not supported")
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	// The new view backfills from the views it reads: none may be half
	// built (after a restart during its own backfill).
	if err := e.awaitReadable(ctx, nil); err != nil {
		return nil, err
	}

	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	j, created, err := s.addMViewLocked(st, catalog.KindMView, nil, io)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	if !created || st.NoData {
		return done("CREATE MATERIALIZED VIEW")
	}
	if err := e.launch(ctx, j, io, true); err != nil {
		return nil, err
	}
	e.log.Info("created materialized view", "name", j.rel.Name, "id", j.rel.ID)
	// PostgreSQL's tag is SELECT n, n the rows the view was populated
	// with: here the rows it holds once its backfill is committed.
	n, err := s.countRows(ctx, j.rel)
	if err != nil {
		// The view is created; only its tag lacks the count.
		e.log.Warn("counting the rows of a new materialized view", "name", j.rel.Name, "err", err)
		return done("CREATE MATERIALIZED VIEW")
	}
	return done(fmt.Sprintf("SELECT %d", n))
}

// countRows returns the number of rows rel holds now.
func (s *Session) countRows(ctx context.Context, rel *catalog.Relation) (int64, error) {
	q, err := sql.Parse("SELECT count(*) FROM " + sql.QuoteIdent(rel.Schema) + "." + sql.QuoteIdent(rel.Name))
	if err != nil {
		return 0, err
	}
	b, err := planner.Bind(q.(*sql.Query), s.catalogView(), nil)
	if err != nil {
		return 0, err
	}
	snap := s.eng.db.NewSnapshot()
	defer snap.Close()
	rows, err := s.collectThrough(ctx, b, snap, nil)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("count(*) returned %d rows", len(rows))
	}
	return rows[0][0].I, nil
}

// addMViewLocked creates the catalog entry and the (not yet added) job of
// a new view, or of an index (kind KindIndex, planned as a view of its
// query with its own options in extra). It reports false when the
// relation exists and IF NOT EXISTS was given. With st.NoData the
// relation is created unpopulated, and without a job (nil). Called
// under writeMu.
func (s *Session) addMViewLocked(st *sql.CreateView, kind catalog.Kind, extra map[string]string, io wire.ExecIO) (*jobRun, bool, error) {
	e := s.eng
	var schema string
	if kind == catalog.KindIndex {
		schema = s.schemaOf(st.Name)
	} else {
		sc, _, err := s.creationSchema(st.Name, false)
		if err != nil {
			return nil, false, err
		}
		schema = sc
	}
	if _, ok := e.cat.Lookup(schema, st.Name.Name); ok {
		if st.IfNotExists {
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", st.Name.Name))
			return nil, false, nil
		}
		return nil, false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Name.Name)
	}
	with := maps.Clone(st.With)
	if with == nil {
		with = map[string]string{}
	}
	if _, ok := with["streaming_parallelism"]; !ok {
		par, _ := strconv.Atoi(s.get(settingsByName["streaming_parallelism"]))
		if par <= 0 {
			par = runtime.NumCPU()
		}
		with["streaming_parallelism"] = strconv.Itoa(par)
	}
	if _, ok := with[optTimeZone]; !ok {
		with[optTimeZone] = s.get(settingsByName["timezone"])
	}
	maps.Copy(with, extra)
	// Its definition is bound again (a restart, a rebuild) under the
	// search path it is created under.
	mv := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: kind, SQL: st.QueryText, With: with, SearchPath: s.storedSearchPath()}
	alloc, allocErr := e.stateTableAlloc(mv)
	root, b, err := s.planMView(st, mv, alloc)
	if err != nil {
		return nil, false, err
	}
	if err := allocErr(); err != nil {
		return nil, false, err
	}
	mv.Deps, mv.Funcs, mv.FuncDeps = b.Deps, b.Funcs, b.FuncDeps
	if !st.NoData {
		// The job backfills from its inputs and follows their jobs.
		if err := e.unpopulatedInput(b.Deps); err != nil {
			return nil, false, err
		}
		if err := e.failedInput(b.Deps); err != nil {
			return nil, false, err
		}
	}
	if kind != catalog.KindIndex && e.usesTemp(b.Deps) != nil {
		// The job outlives the session, which drops the relation.
		return nil, false, pgerr.New(pgerr.FeatureNotSupported, "materialized views must not use temporary tables or views")
	}
	if _, ok := with[planner.WithStateTTL]; ok && !root.Upsert {
		// The planner gives a TTL to aggregations not emitting on
		// window close and to joins no watermark cleans (Upsert is set
		// when it did).
		io.Notice("NOTICE", "00000", fmt.Sprintf("state_ttl has no effect on materialized view \"%s\": it keeps no aggregation or join state a TTL applies to", st.Name.Name))
	}
	if root.AppendOnly && !root.Upsert {
		// Readers of the view plan it as append-only (a PLAIN sink
		// FROM it, say), as they do a source.
		mv.With[appendOnlyOption] = "true"
	}
	if wm := planner.ViewWatermarkColumns(root); wm != "" && kind == catalog.KindMView {
		// Readers of the view get its watermarks (the relay forwards
		// them), so they plan windows that close over it.
		mv.With[planner.WithViewWatermarks] = wm
	}
	mv.Owner = s.role().OID
	mv.StateLayout = stateLayout(root, mv.StateTables)
	mv.Unpopulated = st.NoData
	if err := e.cat.Create(mv); err != nil {
		return nil, false, err
	}
	if st.NoData {
		// Unpopulated: no job until REFRESH MATERIALIZED VIEW.
		return nil, true, nil
	}
	rel, _ := e.cat.ByID(mv.ID)
	root.Rel = rel
	root.State.ID = rel.ID
	j, err := e.newJob(rel, root)
	if err == nil {
		if err = e.joblessInput(j); err != nil {
			j.cancel()
		}
	}
	if err != nil {
		_ = e.cat.Drop(rel.ID)
		return nil, false, err
	}
	e.subscribe(j, false)
	e.st.setJob(j)
	e.runJob(j)
	return j, true, nil
}

// joblessInput returns an error (55000) when the new job j reads a view
// that has no running job: restarting after a failure, say. The view's
// job would relay the barrier adding j, and its changes; without it j
// never passes a barrier and holds up every checkpoint, and with them
// every write, until checkpoint_timeout_ms. Called under writeMu.
func (e *Engine) joblessInput(j *jobRun) error {
	for _, t := range j.job.Tables {
		if !relayed(t.Rel) || e.st.jobs[types.JobID(t.Rel.ID)] != nil {
			continue
		}
		status := "not running"
		if snap, ok := e.st.health.snapshot(types.JobID(t.Rel.ID)); ok && snap.status != jobRunning {
			status = snap.status
		}
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" has no running streaming job", kindWords[t.Rel.Kind], t.Rel.Name).
			WithDetail("Its job is %s: a job reading it would get none of its changes.", status).
			WithHint("Retry when weir.jobs shows its job running; REFRESH MATERIALIZED VIEW %s rebuilds a view whose job is gone.", sql.QuoteIdent(t.Rel.Name))
	}
	return nil
}

// awaitBackfill waits until every backfilling actor of the view's job is
// done and that is committed. Each round asks for a checkpoint: actors
// report their progress at every barrier, so after one committed round
// every actor has reported.
func (e *Engine) awaitBackfill(ctx context.Context, j *jobRun, io wire.ExecIO) error {
	lastNotice := time.Now()
	pause := 5 * time.Millisecond
	for {
		if err := e.st.drv.Barrier(ctx); err != nil {
			return err
		}
		e.writeMu.Lock()
		cur := e.st.jobs[j.id]
		e.writeMu.Unlock()
		if cur == nil {
			// The job failed while backfilling: its error, with its
			// SQLSTATE, is the statement's.
			if cause := e.st.health.cause(j.id); cause != nil {
				// Without the hint of a restart: the view is removed.
				pe := pgerr.As(cause)
				return pgerr.New(pe.Code, "%s", pe.Message)
			}
			return pgerr.New(pgerr.InternalError, "the job of materialized view \"%s\" could not be started; see weir.stream_errors", j.rel.Name)
		}
		// A recovery rebuilds the job; follow the new one.
		j = cur
		rows, total, _, finished := j.backfillState()
		if finished {
			return nil
		}
		if time.Since(lastNotice) >= backfillNoticeEvery {
			lastNotice = time.Now()
			// An index is built by a job as a view is filled.
			what := kindWords[j.rel.Kind]
			msg := fmt.Sprintf("%s \"%s\": backfilled %d rows", what, j.rel.Name, rows)
			if total > 0 {
				msg = fmt.Sprintf("%s \"%s\": backfilled %d of about %d rows (%d%%)", what, j.rel.Name, rows, total, min(100, rows*100/total))
			}
			io.Notice("NOTICE", "00000", msg)
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctxError(ctx)
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// stopJob stops the job of view id with a barrier and waits until its
// actors ended. Called under ddlMu, without writeMu.
func (e *Engine) stopJob(ctx context.Context, id uint32) error {
	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	j := e.st.jobs[types.JobID(id)]
	e.writeMu.Unlock()
	if ctx.Err() != nil {
		return ctxError(ctx)
	}
	e.forgetJobHealth(types.JobID(id))
	if j == nil {
		return nil
	}
	// Once the stop is asked for, the job ends at its barrier whatever
	// the statement does: the wait for that barrier is no longer the
	// statement's to cancel, or the job would be gone and its relation
	// still there.
	sctx, cancel := e.pastCancel(ctx)
	defer cancel()
	pause := time.Millisecond
	for {
		err := e.st.drv.StopJob(sctx, j.id)
		if err == nil {
			break
		}
		if !errors.Is(err, checkpoint.ErrUnknownJob) {
			return err
		}
		// The job runs but the coordinator does not know it yet: a
		// recovery rebuilt it and has not reported it (its Initial
		// barrier is still to come), or a restart has not added it yet.
		// The refused stop changed nothing; it is asked for again once
		// the job is registered, and the statement may be canceled
		// until then.
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctxError(ctx)
		}
		pause = min(2*pause, 50*time.Millisecond)
		if err := e.writeMu.lockContext(ctx); err != nil {
			return err
		}
		cur := e.st.jobs[j.id]
		e.writeMu.Unlock()
		if cur == nil {
			// Gone meanwhile (failed, or a recovery left it out).
			e.st.errs.forget(j.id)
			return nil
		}
		// A recovery rebuilds the job; stop the new one.
		j = cur
	}
	e.writeMu.Lock()
	if e.st.jobs[j.id] == j {
		e.st.dropJob(j.id)
	}
	e.writeMu.Unlock()
	// The actors end after acknowledging the stop barrier; the relay after
	// forwarding it.
	select {
	case <-j.ended:
	case <-time.After(10 * time.Second):
		j.cancel()
		<-j.ended
	}
	e.st.errs.forget(j.id)
	return nil
}

// prepareExplainMView is EXPLAIN CREATE MATERIALIZED VIEW: the stream
// plan as a tree, with state tables numbered from 1 in planning order
// (the view's own table is #0).
func (s *Session) prepareExplainMView(st *sql.CreateView) (wire.Prepared, error) {
	return &utilPrepared{fields: textFields("QUERY PLAN"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		mv := &catalog.Relation{Schema: s.schemaOf(st.Name), Name: st.Name.Name, Kind: catalog.KindMView, With: maps.Clone(st.With)}
		var next uint32
		root, _, err := s.planMView(st, mv, func() uint32 { next++; return next })
		if err != nil {
			return nil, err
		}
		var rows []types.Row
		for _, line := range strings.Split(strings.TrimRight(planner.ExplainStream(root), "\n"), "\n") {
			rows = append(rows, textRow(line))
		}
		return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
	}}, nil
}

// alterSystem runs ALTER SYSTEM SET: barrier_interval_ms changes the
// periodic checkpoint interval at once and is kept across restarts.
// RESET (or SET ... TO DEFAULT) of a weir setting forgets it and puts
// its default in force at once.
//
// The session settings (work_mem, ...) are PostgreSQL's: ALTER SYSTEM
// keeps them for pg_reload_conf() (autoconf.go). Every form is refused in
// a transaction block (25001) and for any role but a superuser (42501).
func (s *Session) alterSystem(ctx context.Context, st *sql.AlterSystem) (wire.Result, error) {
	e := s.eng
	if err := s.noAlterSystemHere(st); err != nil {
		return nil, err
	}
	if st.All {
		return s.alterSystemResetAll(ctx)
	}
	switch strings.ToLower(st.Name) {
	case "barrier_interval_ms":
		if st.Value == "" {
			// RESET or SET ... TO DEFAULT.
			if err := e.deleteMeta(metaBarrierInterval); err != nil {
				return nil, err
			}
			if err := e.setBarrierInterval(ctx, defaultBarrierInterval); err != nil {
				return nil, err
			}
			return done("ALTER SYSTEM")
		}
		v := unquoteSetting(st.Value)
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 || ms > 3600_000 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"barrier_interval_ms\": \"%s\"", v).
				WithHint("A positive number of milliseconds up to 3600000 is expected.")
		}
		b := e.db.NewBatch()
		defer b.Close()
		if err := b.SetMeta(metaBarrierInterval, []byte(strconv.Itoa(ms))); err != nil {
			return nil, err
		}
		if err := b.Commit(); err != nil {
			return nil, err
		}
		if err := e.setBarrierInterval(ctx, time.Duration(ms)*time.Millisecond); err != nil {
			return nil, err
		}
		return done("ALTER SYSTEM")
	case sysSinkLogMaxBytes:
		if st.Value == "" {
			if err := e.deleteMeta(metaSinkLogMaxBytes); err != nil {
				return nil, err
			}
			return done("ALTER SYSTEM")
		}
		return s.alterSinkLogMaxBytes(unquoteSetting(st.Value))
	}
	if sys := lookupSystemSetting(st.Name); sys != nil {
		if err := e.setSystemSetting(ctx, sys, st.Value); err != nil {
			return nil, err
		}
		return done("ALTER SYSTEM")
	}
	return s.alterSystemConf(st)
}

// setBarrierInterval hands a new checkpoint interval to the running
// coordinator and to SHOW barrier_interval_ms.
func (e *Engine) setBarrierInterval(ctx context.Context, d time.Duration) error {
	if err := e.st.drv.SetInterval(ctx, d); err != nil {
		return err
	}
	e.st.interval.Store(d.Milliseconds())
	return nil
}

// deleteMeta removes a meta entry (a setting ALTER SYSTEM kept), so that
// the next start uses the default.
func (e *Engine) deleteMeta(key string) error {
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.DeleteKey(storage.MetaKey(key)); err != nil {
		return err
	}
	return b.Commit()
}

// undoCreate removes a relation whose CREATE failed or was cancelled after
// its job was started (while waiting for its backfill, say): the job is
// stopped and the catalog entry goes with its state, so a failed CREATE
// leaves nothing behind, as in Postgres. Called under ddlMu, so nothing
// can have come to depend on rel meanwhile.
func (e *Engine) undoCreate(j *jobRun) {
	start := time.Now()
	e.writeMu.Lock()
	cur := e.st.jobs[j.id]
	active := cur != nil && cur.active
	if cur != nil && !active {
		// Never added by a barrier: no barrier will reach it.
		e.st.dropJob(j.id)
	}
	e.writeMu.Unlock()
	if cur != nil && !active {
		cur.cancel()
		<-cur.ended
	} else if cur != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := e.stopJob(ctx, j.rel.ID); err != nil {
			e.log.Error("stopping the job of a failed CREATE", "relation", j.rel.Name, "err", err)
		}
		cancel()
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.cat.Drop(j.rel.ID); err != nil {
		e.log.Error("removing the relation of a failed CREATE", "relation", j.rel.Name, "err", err)
		return
	}
	e.dropPendingKeys(j.rel)
	e.st.errs.forget(j.id)
	e.log.Info("removed the relation of a failed CREATE", "relation", j.rel.Name, "took", time.Since(start))
}

// addJob adds a started job with a barrier and waits for it to commit.
// Once asked for, the addition is not abandoned when the statement is
// cancelled: the coordinator would then wait for acknowledgements from
// actors that were stopped. One barrier round takes little time; a
// cancellation is honoured by the caller afterwards.
func (e *Engine) addJob(ctx context.Context, j *jobRun) error {
	if err := e.st.drv.AddJob(context.WithoutCancel(ctx), j.job.Spec()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctxError(ctx)
	}
	return nil
}

// stateTableAlloc returns an allocator of fresh state table ids for a new
// relation, recording each in rel.StateTables in allocation order (so
// planning again after a restart replays them), and the first allocation
// error, if any.
func (e *Engine) stateTableAlloc(rel *catalog.Relation) (alloc func() uint32, firstErr func() error) {
	var allocErr error
	alloc = func() uint32 {
		id, err := e.cat.NextStateTableID()
		if err != nil && allocErr == nil {
			allocErr = err
		}
		rel.StateTables = append(rel.StateTables, id)
		return id
	}
	return alloc, func() error { return allocErr }
}

// carriesWatermarks reports whether a node of the plan rooted at n
// carries a watermark.
func carriesWatermarks(n planner.StreamNode) bool {
	if len(n.Base().Watermarks) > 0 {
		return true
	}
	return slices.ContainsFunc(n.StreamInputs(), carriesWatermarks)
}

// launch adds a job just deployed by a CREATE and, with backfill, waits
// until its backfill is done and committed (sending progress NOTICEs to
// io). On failure or cancellation the job and its relation are removed
// (undoCreate), so the CREATE leaves nothing behind.
func (e *Engine) launch(ctx context.Context, j *jobRun, io wire.ExecIO, backfill bool) error {
	err := e.addJob(ctx, j)
	if err == nil && backfill {
		err = e.awaitBackfill(ctx, j, io)
	}
	if err == nil {
		j.readable.Store(true)
	}
	if err == nil && backfill && carriesWatermarks(j.root) {
		// The tables' watermarks reach a backfilled job with the next
		// barrier: one more checkpoint, and the view already shows what
		// they do (windows closed, state cleaned) as CREATE returns.
		err = e.st.drv.Barrier(ctx)
	}
	if err != nil {
		e.undoCreate(j)
	}
	return err
}
