package engine

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is what the engine shows its system catalog (package
// syscat, which builds pg_catalog, information_schema and the weir
// schema): the facts of the running system as plain records, read anew
// at every scan. The facts of connectors are in connector_system.go,
// of watermarks in watermark.go.

// liveSystem is the running engine as the weir schema sees it
// (syscat.System).
type liveSystem struct{ e *Engine }

// sessionCatalog is the engine as one session's system catalog sees it
// (syscat.Provider).
type sessionCatalog struct {
	liveSystem
	s *Session
}

var _ syscat.Provider = sessionCatalog{}

// sysCatalog is the system catalog's provider for session s.
func (s *Session) sysCatalog() syscat.Provider { return sessionCatalog{liveSystem{s.eng}, s} }

// systemRows returns the rows of system table schema.name as session s
// sees them.
func (e *Engine) systemRows(s *Session, schema, name string) ([]types.Row, error) {
	if schema == planner.SequenceRow {
		return s.sequenceRow(name)
	}
	return syscat.Rows(s.sysCatalog(), schema, name)
}

// DescribeExpr implements functions.ExprDescriber: text, bound again
// over the row of relation relid, printed without the pretty flag when
// its pretty form is text itself (a DEFAULT whose constants the row
// deparser would print otherwise keeps its text); with relid 0, the
// expression of the domain constraint whose plain form text is.
func (s *Session) DescribeExpr(text string, relid uint32, pretty bool) (string, bool) {
	if relid == 0 {
		for _, u := range s.eng.cat.Types() {
			for _, c := range u.Checks {
				plain, _ := s.DescribeObject("pg_get_constraintdef", c.OID, 0, false)
				if constraintExpr(plain) != text {
					continue
				}
				if !pretty {
					return text, true
				}
				def, _ := s.DescribeObject("pg_get_constraintdef", c.OID, 0, true)
				return constraintExpr(def), true
			}
		}
		return "", false
	}
	if pretty {
		return "", false
	}
	r, ok := s.eng.cat.ByOID(relid)
	if !ok {
		return "", false
	}
	ctx, calls := planner.WithCalls(context.Background())
	e, err := planner.BindRowExpr(ctx, r, text, s.catalogView())
	if err != nil || calls.RowExprText(r, e, true) != text {
		return "", false
	}
	return calls.RowExprText(r, e, false), true
}

// constraintExpr is the expression of a CHECK constraint as
// pg_get_constraintdef prints it: without CHECK ( ... ) and NOT VALID.
func constraintExpr(def string) string {
	def = strings.TrimSuffix(def, " NOT VALID")
	return strings.TrimSuffix(strings.TrimPrefix(def, "CHECK ("), ")")
}

// DescribeObject implements executor.CatalogDescriber (see
// syscat.Describe).
func (s *Session) DescribeObject(fn string, oid uint32, col int, pretty bool) (string, bool) {
	switch fn {
	case "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_functiondef":
		f, ok := s.eng.cat.FunctionByOID(oid)
		if !ok {
			return "", false
		}
		return s.describeFunction(fn, f), true
	case "pg_get_function_sqlbody":
		f, ok := s.eng.cat.FunctionByOID(oid)
		if !ok || !f.Return {
			return "", false
		}
		return "RETURN " + s.returnBodyText(f), true
	}
	if fn == "pg_get_constraintdef" && !pretty {
		if r, k, ok := syscat.CheckByOID(s.eng.cat, oid); ok {
			return s.checkText(r, k, false), true
		}
	}
	if fn == "pg_get_constraintdef" {
		if u, c, ok := domainCheckByOID(s.eng.cat, oid); ok {
			text := c.Expr
			if e, err := planner.BindDomainCheck(context.Background(), u, c.Expr, 0, s.catalogView()); err == nil {
				cast := ""
				if u.BaseDomain != 0 {
					cast = u.T.String()
				}
				text = planner.DomainCheckText(e, pretty, cast)
			}
			text = "CHECK (" + text + ")"
			if c.NotValid {
				text += " NOT VALID"
			}
			return text, true
		}
	}
	if fn == "format_type" || fn == "pg_type_is_visible" {
		u, ok := s.eng.cat.TypeByOID(oid)
		arr := false
		if !ok {
			// An array type is visible when its element type is.
			if u, ok = s.eng.cat.TypeByArrayOID(oid); !ok {
				return "", false
			}
			arr = true
		}
		if fn == "format_type" {
			if arr {
				return s.userTypeName(u) + "[]", true
			}
			return s.userTypeName(u), true
		}
		if v, ok := s.lookupUserType(sql.ObjectName{Name: u.Name}); ok && v.OID == u.OID {
			return "t", true
		}
		return "f", true
	}
	if fn == "pg_get_indexdef" && pretty {
		if idx, ok := s.eng.cat.ByOID(oid); ok && idx.Kind == catalog.KindIndex {
			if on, ok := s.eng.indexedRelation(idx); ok {
				x := s.eng.indexTexts(idx, on, true)
				if col > 0 {
					return syscat.IndexColumnDef(idx, on, col, x), true
				}
				return syscat.IndexDefPretty(s.sysCatalog(), idx, on, x), true
			}
		}
	}
	if fn == "pg_get_viewdef" && pretty {
		if r, ok := s.eng.cat.ByOID(oid); ok && (r.Kind == catalog.KindView || r.Kind == catalog.KindMView) {
			return s.eng.viewText(r, true, s), true
		}
	}
	return syscat.Describe(s.sysCatalog(), fn, oid, col)
}

// Catalog implements syscat.Provider.
func (c sessionCatalog) Catalog() syscat.Catalog { return c.e.cat }

// Database implements syscat.Provider.
func (c sessionCatalog) Database() string { return c.s.database }

// Setting implements syscat.Provider.
func (c sessionCatalog) Setting(name string) string { return c.s.vars[name] }

// TempSchema implements syscat.Provider.
func (c sessionCatalog) TempSchema() string { return c.s.tempSchema }

// ActiveSearchPath implements syscat.Provider.
func (c sessionCatalog) ActiveSearchPath(implicit bool) []string {
	if implicit {
		return c.s.relationSearch(c.s.searchPath(), false, "")
	}
	path, _ := c.s.explicitPath(c.s.searchPath(), false)
	return path
}

// SearchPath implements syscat.Provider.
func (c sessionCatalog) SearchPath() []string {
	path := syscat.SplitSearchPath(c.s.searchPath())
	for i, n := range path {
		if n == "$user" {
			path[i] = c.s.role().Name
		}
	}
	return path
}

// Settings implements syscat.Provider.
func (c sessionCatalog) Settings() []syscat.Setting {
	var out []syscat.Setting
	for _, n := range sortedSettingNames() {
		if hiddenSettings[n] {
			continue
		}
		st, _ := lookupSetting(n)
		out = append(out, c.s.pgSetting(st))
	}
	return out
}

// SequenceLast implements syscat.Provider.
func (c sessionCatalog) SequenceLast(r *catalog.Relation, col int) (int64, bool) {
	if c.s.checkSequence(r, col, catalog.PrivSelect|catalog.PrivUsage) != nil {
		// pg_sequences shows NULL to a role without SELECT or USAGE.
		return 0, false
	}
	return c.s.eng.sequenceLast(r, col)
}

// Cursors implements syscat.Provider.
func (c sessionCatalog) Cursors() []syscat.Cursor {
	var out []syscat.Cursor
	for _, cur := range c.s.cursors {
		out = append(out, syscat.Cursor{Name: cur.name, Statement: cur.text, Holdable: cur.hold,
			Scrollable: cur.scroll, CreationTime: cur.created.UnixMicro()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PreparedStatements implements syscat.Provider.
func (c sessionCatalog) PreparedStatements() []syscat.PreparedStatement {
	var out []syscat.PreparedStatement
	for name, sp := range c.s.sqlPrepared {
		var ts []string
		for _, t := range sp.p.ParamTypes() {
			ts = append(ts, t.TypeName())
		}
		ps := syscat.PreparedStatement{Name: name, Statement: sp.text, PrepareTime: sp.at.UnixMicro(), ParamTypes: ts}
		if len(ts) == 0 {
			ps.GenericPlans = sp.runs
		} else {
			ps.CustomPlans = sp.runs
		}
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DefaultText implements syscat.Provider: column i's DEFAULT as
// pg_get_expr prints it, or as written if it no longer binds.
func (c sessionCatalog) DefaultText(r *catalog.Relation, i int) string {
	if col := r.Cols[i]; col.Seq != "" && col.Identity == "" {
		// A serial column's default, as PostgreSQL writes it (its
		// sequence is a regclass there).
		return "nextval('" + strings.ReplaceAll(sql.QuoteIdent(col.Seq), "'", "''") + "'::regclass)"
	}
	if t, err := planner.DefaultText(r, i, c.s.catalogView()); err == nil {
		return t
	}
	return r.Cols[i].Default
}

// GeneratedText implements syscat.Provider.
func (c sessionCatalog) GeneratedText(r *catalog.Relation, i int) string {
	return c.s.generatedText(r, i)
}

// IndexTexts implements syscat.Provider.
func (c sessionCatalog) IndexTexts(idx, on *catalog.Relation, pretty bool) syscat.IndexTexts {
	return c.e.indexTexts(idx, on, pretty)
}

// CheckText implements syscat.Provider.
func (c sessionCatalog) CheckText(r *catalog.Relation, k int) string {
	return c.s.checkText(r, k, true)
}

// ViewText implements syscat.Provider.
func (c sessionCatalog) ViewText(r *catalog.Relation, pretty bool) string {
	return c.e.viewText(r, pretty, c.s)
}

// viewText is the query of view or materialized view r as
// pg_get_viewdef prints it: deparsed from its binding, with the names
// relations and columns have now (planner.ViewDefinition), or, for a
// query of a shape the deparser does not print, as stored, in
// PostgreSQL's layout (a leading space, a closing semicolon). The names
// of relations are qualified when the search path of asker (nil: none)
// does not find them, as PostgreSQL's are.
func (e *Engine) viewText(r *catalog.Relation, pretty bool, asker *Session) string {
	s := e.definitionSession(r, nil)
	cat := s.catalogView()
	if r.Temp {
		s.tempSchema = r.Schema
	} else if pc, ok := cat.(planner.PermanentCatalog); ok {
		cat = pc.Permanent()
	}
	var visible func(schema, name string) bool
	if asker != nil {
		visible = asker.relVisible
	}
	text, err := planner.ViewDefinitionFor(r, cat, e.cat.ByID, pretty, visible)
	if err == nil {
		return text
	}
	e.log.Debug("view definition shown as stored", "view", r.Name, "err", err)
	return " " + strings.TrimRight(strings.TrimSpace(r.SQL), ";") + ";"
}

// CheckColumns implements syscat.Provider.
func (c sessionCatalog) CheckColumns(r *catalog.Relation, k int) []int {
	_, cols, _ := planner.BindCheck(context.Background(), r, r.Checks[k].Expr, 0, c.s.catalogView())
	return cols
}

// HasPrivsOfRole implements syscat.Provider.
func (c sessionCatalog) HasPrivsOfRole(oid uint32) bool { return c.s.hasPrivsOfRole(oid) }

// HoldsAny implements syscat.Provider (a seqRef with col -1 is the
// relation itself).
func (c sessionCatalog) HoldsAny(r *catalog.Relation, col int, p catalog.Privilege) bool {
	return c.e.holdsSequenceAny(c.s.role(), seqRef{r, col}, p)
}

// ACL implements syscat.Provider.
func (c sessionCatalog) ACL(r *catalog.Relation) []string { return c.e.aclText(r) }

// FuncACL implements syscat.Provider.
func (c sessionCatalog) FuncACL(f *catalog.Function) []string { return c.e.funcACLText(f) }

// SequenceACL implements syscat.Provider.
func (c sessionCatalog) SequenceACL(r *catalog.Relation, col int) []string {
	return c.e.relACLText(r.Owner, r.Cols[col].SeqACL)
}

// Committed implements syscat.System.
func (v liveSystem) Committed() syscat.Committed {
	e := v.e
	ep := e.st.committed.Load()
	c := syscat.Committed{Epoch: ep, BarrierInterval: e.st.interval.Load()}
	if ep > 0 {
		c.At = checkpoint.EpochTime(ep)
	}
	return c
}

// Checkpoints implements syscat.System.
func (v liveSystem) Checkpoints() []syscat.Checkpoint {
	var out []syscat.Checkpoint
	for _, c := range v.e.obs.checkpoints() {
		out = append(out, syscat.Checkpoint{Epoch: c.epoch, Started: c.started, Duration: c.duration, Bytes: c.bytes, Status: c.status, Reason: c.reason})
	}
	return out
}

// Jobs implements syscat.System.
func (v liveSystem) Jobs() []syscat.Job { return v.e.jobRecords(nil) }

// jobRecords are weir.jobs' rows, of the jobs whose relation visible
// accepts (all when nil).
func (e *Engine) jobRecords(visible func(*catalog.Relation) bool) []syscat.Job {
	rels, running := e.jobStatuses()
	var out []syscat.Job
	for _, r := range rels {
		if visible != nil && !visible(r) {
			continue
		}
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
		job := syscat.Job{ID: int64(r.ID), Name: r.Name, Kind: jobKind(r), Status: e.jobStatus(r, j), Parallelism: par,
			Restarts: e.jobRestarts(id), BackfillProgress: 1, RestartStrategy: h.strategy, Statement: e.jobStatement(r)}
		if j != nil {
			job.Actors = int64(len(j.job.ActorIDs()))
			rows, total, n, done := j.backfillState()
			job.BackfillRows, job.BackfillDone = rows, j.backfillDone()
			job.BackfillProgress = backfillRatio(rows, total, n, job.BackfillDone)
			job.BackfillTotal, job.Backfilling = total, n > 0 && !done
		}
		switch {
		case h.lastErr != "":
			job.LastError, job.LastErrorAt = h.lastErr, obs.lastAt
		case obs.lastError != "":
			job.LastError, job.LastErrorAt = obs.lastError, obs.lastAt
		}
		out = append(out, job)
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

// jobStatement is the statement that created a job's relation.
func (e *Engine) jobStatement(r *catalog.Relation) string {
	switch r.Kind {
	case catalog.KindMView:
		return e.mviewDefinition(r)
	case catalog.KindIndex:
		if on, ok := e.indexedRelation(r); ok {
			return syscat.IndexDef(r, on, e.indexTexts(r, on, false))
		}
		return r.SQL
	case catalog.KindSink:
		return e.sinkDefinition(r)
	}
	return r.SQL
}

// Operators implements syscat.System.
func (v liveSystem) Operators() []syscat.Operator { return v.e.operatorRecords(nil) }

// operatorRecords are weir.operators' rows, of the jobs whose relation
// visible accepts (all when nil).
func (e *Engine) operatorRecords(visible func(*catalog.Relation) bool) []syscat.Operator {
	var out []syscat.Operator
	for _, j := range e.runningJobs() {
		if visible != nil && !visible(j.rel) {
			continue
		}
		for _, op := range e.operatorStats(j, 0) {
			o := syscat.Operator{Job: j.rel.Name, JobID: int64(j.id), ID: op.op.ID, Name: op.op.Name, RowsIn: syscat.Null[int64]{V: op.rowsIn, Valid: !op.isLeaf},
				RowsOut: op.rowsOut, StateTables: len(op.op.Tables), Backpressure: op.backpressure}
			if op.hasState {
				o.StateRows, o.StateBytes = syscat.Null[int64]{V: op.stateRows, Valid: true}, syscat.Null[int64]{V: op.stateBytes, Valid: true}
				o.CacheHits, o.CacheMisses = syscat.Null[int64]{V: op.hits, Valid: true}, syscat.Null[int64]{V: op.misses, Valid: true}
				o.CacheEvictions = syscat.Null[int64]{V: op.evictions, Valid: true}
			}
			out = append(out, o)
		}
	}
	return out
}

// StateTables implements syscat.System.
func (v liveSystem) StateTables() []syscat.StateTable { return v.e.stateTableRecords(nil) }

// stateTableRecords are weir.state_tables' rows, of the jobs whose
// relation visible accepts (all when nil).
func (e *Engine) stateTableRecords(visible func(*catalog.Relation) bool) []syscat.StateTable {
	var jobs []*jobRun
	for _, j := range e.runningJobs() {
		if visible == nil || visible(j.rel) {
			jobs = append(jobs, j)
		}
	}
	// Rows are counted in one snapshot, so every table is read at the
	// same committed checkpoint; a state table holds exactly the entries
	// committed (the open epoch's writes are in memory).
	snap := e.db.NewSnapshot()
	defer snap.Close()
	var out []syscat.StateTable
	for _, j := range jobs {
		for _, t := range planner.StateTables(j.root) {
			n := int64(0)
			count := func(_, _ []byte) error { n++; return nil }
			err := snap.ScanPrefix(storage.TablePrefix(t.Table.ID), count)
			out = append(out, syscat.StateTable{Job: j.rel.Name, JobID: int64(j.id), TableID: int64(t.Table.ID), Name: t.Table.Name,
				Operator: t.Operator, Rows: syscat.Null[int64]{V: n, Valid: err == nil}})
		}
	}
	return out
}

// SourcePartitions implements syscat.System.
func (v liveSystem) SourcePartitions() []syscat.SourcePartition {
	return v.e.sourcePartitionRecords(nil)
}

// sourcePartitionRecords are weir.source_partitions' rows, of the
// sources read by jobs whose relations visible accepts, both of them
// (all when nil).
func (e *Engine) sourcePartitionRecords(visible func(*catalog.Relation) bool) []syscat.SourcePartition {
	var out []syscat.SourcePartition
	for _, p := range e.sourcePartitions(context.Background()) {
		if visible != nil {
			job, _ := e.cat.ByID(uint32(p.job))
			if !visible(p.rel) || !visible(job) {
				continue
			}
		}
		lag, ok := p.lag()
		out = append(out, syscat.SourcePartition{Source: p.rel.Name, Job: jobName(e, p.job), Partition: p.partition,
			Position: syscat.Null[int64]{V: p.position, Valid: p.hasPosition}, Committed: syscat.Null[int64]{V: p.committed, Valid: p.hasCommitted},
			HighWatermark: syscat.Null[int64]{V: p.hwm, Valid: p.hasHWM}, Lag: syscat.Null[int64]{V: lag, Valid: ok},
			Records: p.records, Bytes: p.bytes, Malformed: p.malformed})
	}
	return out
}

// StreamErrors implements syscat.System.
func (v liveSystem) StreamErrors() []syscat.StreamError { return v.e.streamErrorRecords(nil) }

// StreamErrors implements syscat.System for a session: an error's text
// holds the values of the rows that caused it, so a role sees the errors
// of the jobs it owns (or whose owner's privileges it has), a superuser
// all of them, as pg_stat_activity shows others' queries only to whom
// may see them. A job whose relation is gone is a superuser's to see.
func (c sessionCatalog) StreamErrors() []syscat.StreamError {
	return c.e.streamErrorRecords(c.seesErrorsOf())
}

// seesErrorsOf returns whether the session's role may read the error
// texts of the job or connector of a relation (nil: every one, for a
// superuser): it owns the relation or has its owner's privileges.
func (c sessionCatalog) seesErrorsOf() func(rel *catalog.Relation) bool {
	me := c.s.role()
	if me.Superuser {
		return nil
	}
	mine := c.e.effectiveRoles(me)
	return func(rel *catalog.Relation) bool {
		return rel != nil && slices.Contains(mine, rel.Owner)
	}
}

// hiddenError is what a role reads in place of another's error text, as
// in pg_stat_activity.
const hiddenError = "<insufficient privilege>"

// seesStateOf is the session's Session.seesStateOf.
func (c sessionCatalog) seesStateOf() func(rel *catalog.Relation) bool {
	return c.s.seesStateOf()
}

// seesStateOf returns whether the session's role may see the state of
// the job or connector of a relation (nil: every one, for a superuser):
// what weir.jobs, weir.operators, weir.state_tables, weir.sources,
// weir.source_partitions, weir.sinks and weir.watermarks show of it,
// and EXPLAIN MATERIALIZED VIEW's live counts. It owns the relation or
// may SELECT it (of an index, the table it indexes), as PostgreSQL's
// information_schema shows a relation to a role holding a privilege on
// it; the row counts of a role's pipeline are no business of the others.
// weir has no predefined roles (pg_monitor, pg_read_all_stats) to see
// them all without being a superuser.
func (s *Session) seesStateOf() func(rel *catalog.Relation) bool {
	me := s.role()
	if me.Superuser {
		return nil
	}
	return func(rel *catalog.Relation) bool {
		if rel == nil {
			return false
		}
		// A running job holds its relation as it was when the job
		// started; the grants are today's.
		rel, _ = s.eng.cat.ByID(rel.ID)
		if rel != nil && rel.Kind == catalog.KindIndex {
			rel, _ = s.eng.indexedRelation(rel)
		}
		return rel != nil && s.eng.holds(me, rel, catalog.PrivSelect)
	}
}

// Operators implements syscat.System for a session: the operators of
// the jobs the role may see (seesStateOf).
func (c sessionCatalog) Operators() []syscat.Operator {
	return c.e.operatorRecords(c.seesStateOf())
}

// StateTables implements syscat.System for a session, as Operators.
func (c sessionCatalog) StateTables() []syscat.StateTable {
	return c.e.stateTableRecords(c.seesStateOf())
}

// SourcePartitions implements syscat.System for a session: the
// partitions of the sources the role may see as read by the jobs it may
// see (seesStateOf).
func (c sessionCatalog) SourcePartitions() []syscat.SourcePartition {
	return c.e.sourcePartitionRecords(c.seesStateOf())
}

// Sources implements syscat.System for a session, as Operators.
func (c sessionCatalog) Sources() []syscat.Source {
	return c.e.sourceRecords(c.seesStateOf())
}

// Watermarks implements syscat.System for a session, as Operators.
func (c sessionCatalog) Watermarks() []syscat.Watermark {
	return c.e.watermarkRecords(c.seesStateOf())
}

// Jobs implements syscat.System for a session: the jobs the role may
// see (seesStateOf); the last error of one it may not see the errors of
// (seesErrorsOf) reads <insufficient privilege>.
func (c sessionCatalog) Jobs() []syscat.Job {
	jobs := c.e.jobRecords(c.seesStateOf())
	if sees := c.seesErrorsOf(); sees != nil {
		for i := range jobs {
			rel, _ := c.e.cat.ByID(uint32(jobs[i].ID))
			if jobs[i].LastError != "" && !sees(rel) {
				jobs[i].LastError = hiddenError
			}
		}
	}
	return jobs
}

// Sinks implements syscat.System for a session: the sinks the role may
// see, hiding the last error of those it may not see the errors of, as
// Jobs does.
func (c sessionCatalog) Sinks() []syscat.Sink {
	sinks := c.e.sinkRecords(c.seesStateOf())
	if sees := c.seesErrorsOf(); sees != nil {
		byName := map[string]*catalog.Relation{}
		for _, r := range connectorRels(c.e, true) {
			byName[r.Name] = r
		}
		for i := range sinks {
			if sinks[i].LastError != "" && !sees(byName[sinks[i].Name]) {
				sinks[i].LastError = hiddenError
			}
		}
	}
	return sinks
}

// SourceErrors implements syscat.System for a session: the malformed
// records of the sources the role may see the errors of.
func (c sessionCatalog) SourceErrors() []syscat.SourceError {
	return c.e.sourceErrors(c.seesErrorsOf())
}

// TableBytes implements syscat.Provider.
func (c sessionCatalog) TableBytes(id uint32) int64 {
	n, err := c.e.db.TableBytes(id)
	if err != nil {
		return 0
	}
	return n
}

// domainCheckByOID finds the domain CHECK constraint of pg_constraint
// OID oid.
func domainCheckByOID(cat *catalog.Catalog, oid uint32) (*catalog.UserType, catalog.DomainCheck, bool) {
	for _, u := range cat.Types() {
		for _, c := range u.Checks {
			if c.OID == oid {
				return u, c, true
			}
		}
	}
	return nil, catalog.DomainCheck{}, false
}

// ConstraintDef implements syscat.Provider.
func (c sessionCatalog) ConstraintDef(oid uint32) string {
	s, _ := c.s.DescribeObject("pg_get_constraintdef", oid, 0, false)
	return s
}

// DomainDefaultText implements syscat.Provider: the default deparsed as
// a column's of the domain's base type is, or as written if it no longer
// binds.
func (c sessionCatalog) DomainDefaultText(u *catalog.UserType) string {
	r := &catalog.Relation{Name: u.Name, Cols: []catalog.Column{{Name: "value", T: u.T, Default: u.Default}}}
	if t, err := planner.DefaultText(r, 0, c.s.catalogView()); err == nil {
		return t
	}
	return u.Default
}

// ResolveReg implements functions.RegResolver: name is read as the
// literal 'name'::kind is, with the binder's resolution and errors.
func (s *Session) ResolveReg(kind, name string) (uint32, error) {
	if strings.ContainsRune(name, 0) {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", kind, name)
	}
	q, err := parseQuery("SELECT '" + strings.ReplaceAll(name, "'", "''") + "'::" + kind + "::oid")
	if err != nil {
		return 0, err
	}
	b, err := planner.Bind(q, s.catalogView(), nil)
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			// The position is in the text made here, not the user's.
			c := *pe
			c.Position = 0
			return 0, &c
		}
		return 0, err
	}
	var oid *planner.Const
	planner.WalkPlanExprs(b.Plan, func(x planner.Expr) {
		if k, ok := x.(*planner.Const); ok && k.T.ID == types.Oid && !k.V.Null {
			oid = k
		}
	})
	if oid == nil {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", kind, name)
	}
	return uint32(oid.V.I), nil
}

// RegText implements functions.RegResolver: oid printed as the output
// function of reg* type kind prints it (regproc, regprocedure,
// regnamespace, regrole), names looked up in the session's catalog.
func (s *Session) RegText(kind string, oid uint32) (string, error) {
	return planner.RegOutText(s.catalogView(), kind, oid), nil
}
