package engine

import (
	"context"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// A materialized view created WITH NO DATA is unpopulated
// (catalog.Relation.Unpopulated, pg_class.relispopulated false): it has
// its columns, dependencies, owner and privileges, but no job and no
// rows, and a query that scans it fails with PostgreSQL's 55000, as does
// a CREATE that would backfill from it. pg_dump writes every
// materialized view so and fills it later with REFRESH MATERIALIZED
// VIEW, which here plans the view afresh, starts its job and waits for
// its backfill, as CREATE MATERIALIZED VIEW does: the catalog marks the
// view populated in the batch that drops whatever state it had, with its
// job registered under the same lock, so reads wait for the backfill
// rather than see part of it, and a restart during the backfill resumes
// it. A failed or cancelled REFRESH leaves the view unpopulated. Indexes
// on an unpopulated view are unpopulated too and are built by the
// REFRESH once the view's backfill is done.
//
// REFRESH ... WITH NO DATA stops the view's job (and its indexes') and
// drops its rows and state with the flag set again. PostgreSQL lets
// another materialized view reading it keep its rows; a weir job reading
// it would stop receiving its changes, so that is refused (0A000) while
// another job reads it.

// notPopulated is PostgreSQL's error for a scan of an unpopulated
// materialized view.
func notPopulated(name string) error {
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view \"%s\" has not been populated", name).
		WithHint("Use the REFRESH MATERIALIZED VIEW command.")
}

// unpopulatedRelation returns notPopulated for rel when it is
// unpopulated (an index names its view), nil otherwise.
func (e *Engine) unpopulatedRelation(rel *catalog.Relation) error {
	if !rel.Unpopulated {
		return nil
	}
	if rel.Kind == catalog.KindIndex {
		if on, ok := e.indexedRelation(rel); ok {
			return notPopulated(on.Name)
		}
	}
	return notPopulated(rel.Name)
}

// unpopulatedInput returns notPopulated for the first unpopulated view
// among deps, directly or through plain views.
func (e *Engine) unpopulatedInput(deps []uint32) error {
	seen := map[uint32]bool{}
	var walk func(ids []uint32) error
	walk = func(ids []uint32) error {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			r, ok := e.cat.ByID(id)
			if !ok {
				continue
			}
			if err := e.unpopulatedRelation(r); err != nil {
				return err
			}
			if r.Kind == catalog.KindView {
				if err := walk(r.Deps); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(deps)
}

// jobReading returns a relation with a job of its own (a materialized
// view or a sink, not an index on id) that reads relation id, directly
// or through plain views, or nil.
func (e *Engine) jobReading(id uint32) *catalog.Relation {
	var reads func(ids []uint32, seen map[uint32]bool) bool
	reads = func(ids []uint32, seen map[uint32]bool) bool {
		for _, d := range ids {
			if d == id {
				return true
			}
			if seen[d] {
				continue
			}
			seen[d] = true
			if r, ok := e.cat.ByID(d); ok && r.Kind == catalog.KindView && reads(r.Deps, seen) {
				return true
			}
		}
		return false
	}
	for _, r := range e.cat.All() {
		if !hasJob(r) || r.ID == id || r.Kind == catalog.KindIndex && len(r.Deps) == 1 && r.Deps[0] == id {
			continue
		}
		if reads(r.Deps, map[uint32]bool{}) {
			return r
		}
	}
	return nil
}

// indexesOn returns the indexes on relation id.
func (e *Engine) indexesOn(id uint32) []*catalog.Relation {
	var out []*catalog.Relation
	for _, d := range e.cat.Dependents(id) {
		if d.Kind == catalog.KindIndex && len(d.Deps) == 1 && d.Deps[0] == id {
			out = append(out, d)
		}
	}
	return out
}

// refresh runs REFRESH MATERIALIZED VIEW. On a populated view it waits,
// as FLUSH, until the view holds everything written before (its job
// keeps it up to date) and builds any of its indexes left unpopulated;
// on an unpopulated one it fills the view (populate). WITH NO DATA makes
// the view unpopulated (unpopulate). PostgreSQL's checks come first.
func (s *Session) refresh(ctx context.Context, st *sql.Refresh, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.String())
	}
	// PostgreSQL looks the name up as a table or materialized view
	// (42809 for other relations), checks ownership, and only then
	// refuses a table, with 0A000.
	if rel.Kind != catalog.KindMView && rel.Kind != catalog.KindTable {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a table or materialized view", st.Name.Name)
	}
	if err := s.mustOwn(st.Name); err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindMView {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "\"%s\" is not a materialized view", rel.Name)
	}
	if st.Concurrently && rel.Unpopulated {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CONCURRENTLY cannot be used when the materialized view is not populated")
	}
	if st.Concurrently && st.NoData {
		return nil, pgerr.New(pgerr.SyntaxError, "CONCURRENTLY and WITH NO DATA options cannot be used together")
	}
	// As PostgreSQL's refresh runs the query with the owner's
	// privileges: an owner that lost SELECT on an input gets the 42501
	// (its job failed with it), not a refresh that leaves the view as
	// it was.
	if !st.NoData {
		if err := e.ownerMayRead(rel); err != nil {
			return nil, err
		}
	}
	if !rel.Unpopulated && !st.NoData && len(e.unpopulatedIndexes(rel.ID)) == 0 {
		tctx, cancel := s.withTimeout(ctx)
		gone, err := e.jobGone(tctx, rel)
		cancel()
		if err != nil {
			return nil, err
		}
		if !gone {
			if err := s.flushWrites(ctx); err != nil {
				return nil, err
			}
			return done("REFRESH MATERIALIZED VIEW")
		}
	}
	if err := s.noDDLInBlock("REFRESH MATERIALIZED VIEW"); err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	// Again under ddlMu: another DDL may have changed it meanwhile.
	if rel, ok = e.cat.ByID(rel.ID); !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.String())
	}
	gone, err := e.jobGone(ctx, rel)
	if err != nil {
		return nil, err
	}
	switch {
	case st.NoData:
		err = e.unpopulate(ctx, rel)
	case rel.Unpopulated:
		err = e.populate(ctx, rel, io)
	case gone:
		err = e.rebuildGone(ctx, rel, io)
	default:
		err = e.populateIndexes(ctx, rel, io)
	}
	if err != nil {
		return nil, err
	}
	return done("REFRESH MATERIALIZED VIEW")
}

// jobGone reports whether the populated view rel has no job and none is
// coming: neither running nor restarting after a failure, nor FAILED
// (RESUME's to restart). No statement leaves a view so; should one
// (a bug), REFRESH rebuilds it (rebuildGone).
func (e *Engine) jobGone(ctx context.Context, rel *catalog.Relation) (bool, error) {
	if !hasJob(rel) || !materialized(rel) {
		return false, nil
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return false, err
	}
	running := e.st.jobs[types.JobID(rel.ID)] != nil
	e.writeMu.Unlock()
	if running {
		return false, nil
	}
	snap, ok := e.st.health.snapshot(types.JobID(rel.ID))
	return !ok || snap.status != jobRestarting && snap.status != jobFailed, nil
}

// rebuildGone is REFRESH MATERIALIZED VIEW of a view whose job is gone
// (jobGone): its rows and state, which missed the changes of its inputs
// since the job stopped, are dropped and it is filled again from its
// inputs' current contents, as by CREATE. Refused (55000) while a
// running job reads it, which would get none of the new job's changes.
// Called under ddlMu.
func (e *Engine) rebuildGone(ctx context.Context, rel *catalog.Relation, io wire.ExecIO) error {
	e.writeMu.Lock()
	for _, j := range e.st.jobs {
		for _, t := range j.job.Tables {
			if t.Rel.ID == rel.ID {
				e.writeMu.Unlock()
				return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot refresh materialized view \"%s\": %s \"%s\" reads it", rel.Name, kindWords[j.rel.Kind], j.rel.Name).
					WithHint("Drop %s first.", sql.QuoteIdent(j.rel.Name))
			}
		}
	}
	e.writeMu.Unlock()
	e.log.Warn("rebuilding a materialized view that had no streaming job", "name", rel.Name, "id", rel.ID)
	e.forgetJobHealth(types.JobID(rel.ID))
	return e.populate(ctx, rel, io)
}

// unpopulatedIndexes returns the unpopulated indexes on relation id.
func (e *Engine) unpopulatedIndexes(id uint32) []*catalog.Relation {
	var out []*catalog.Relation
	for _, idx := range e.indexesOn(id) {
		if idx.Unpopulated {
			out = append(out, idx)
		}
	}
	return out
}

// populate fills the unpopulated view rel: it is planned afresh (new
// state tables, dropping any it had), marked populated and its job
// started in one step under writeMu, and backfilled as by CREATE; then
// its indexes are built. Called under ddlMu.
func (e *Engine) populate(ctx context.Context, rel *catalog.Relation, io wire.ExecIO) error {
	// The view backfills from the views it reads: none may be half
	// built, failed or unpopulated.
	if err := e.awaitReadable(ctx, nil); err != nil {
		return err
	}
	if err := e.unpopulatedInput(rel.Deps); err != nil {
		return err
	}
	if err := e.failedInput(rel.Deps); err != nil {
		return err
	}
	// The job reads with the owner's privileges, as PostgreSQL's
	// REFRESH does.
	if err := e.ownerMayRead(rel); err != nil {
		return err
	}
	j, err := e.startPopulated(rel)
	if err != nil {
		return err
	}
	if err := e.backfillPopulated(ctx, j, io); err != nil {
		return err
	}
	e.log.Info("refreshed materialized view", "name", rel.Name, "id", rel.ID)
	return e.populateIndexes(ctx, rel, io)
}

// populateIndexes builds the unpopulated indexes on the populated view
// rel, one after another. Called under ddlMu.
func (e *Engine) populateIndexes(ctx context.Context, rel *catalog.Relation, io wire.ExecIO) error {
	for _, idx := range e.unpopulatedIndexes(rel.ID) {
		j, err := e.startPopulated(idx)
		if err != nil {
			return err
		}
		if err := e.backfillPopulated(ctx, j, io); err != nil {
			return err
		}
	}
	return nil
}

// startPopulated plans the unpopulated relation rel (a view or an index
// on one) afresh, and in one step under writeMu marks it populated with
// the plan's state tables, drops the state tables it had, and registers
// and runs its job (not yet added by a barrier).
func (e *Engine) startPopulated(rel *catalog.Relation) (*jobRun, error) {
	up, root, err := e.planFresh(rel)
	if err != nil {
		return nil, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	err = e.cat.ReplaceAllWith(func(b *storage.Batch) error { return deleteTables(b, jobTables(rel)) }, up)
	if err != nil {
		return nil, err
	}
	stored, _ := e.cat.ByID(rel.ID)
	root.Rel = stored
	root.State.ID = stored.ID
	j, err := e.newJob(stored, root)
	if err == nil {
		err = e.st.checkUpstreams(j)
	}
	if err != nil {
		if uerr := e.markUnpopulated(stored); uerr != nil {
			e.log.Error("marking a materialized view unpopulated again after a failed REFRESH", "relation", rel.Name, "err", uerr)
		}
		return nil, err
	}
	e.subscribe(j, false)
	e.st.setJob(j)
	e.runJob(j)
	return j, nil
}

// planFresh plans the query of rel, a view or an index, with new state
// tables, and returns rel populated with them and the plan. The hidden
// columns (the stream key) are as planned now: a table the view reads
// may have got a primary key since it was created (pg_dump adds them
// after creating the views); the visible ones keep the catalog's names,
// collations and domains, which the check of the ALTER that changed
// the table kept of the same number and types.
func (e *Engine) planFresh(rel *catalog.Relation) (*catalog.Relation, *planner.StreamMaterialize, error) {
	q, err := parseQuery(rel.SQL)
	if err != nil {
		return nil, nil, err
	}
	b, err := planner.Bind(q, e.definitionSession(rel, nil).catalogView(), nil)
	if err != nil {
		return nil, nil, err
	}
	up := rel.Clone()
	up.StateTables, up.StateLayout, up.Unpopulated = nil, nil, false
	alloc, allocErr := e.stateTableAlloc(up)
	root, err := planner.PlanStream(b.Plan, up, alloc)
	if err != nil {
		return nil, nil, err
	}
	assignScanStates(root, alloc)
	if err := allocErr(); err != nil {
		return nil, nil, err
	}
	var visible []catalog.Column
	for _, c := range rel.Cols {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	k := 0
	for i := range up.Cols {
		if up.Cols[i].Hidden {
			continue
		}
		if k < len(visible) {
			if visible[k].T.OID() != up.Cols[i].T.OID() {
				k = -1
				break
			}
			up.Cols[i] = visible[k]
		}
		k++
	}
	if k != len(visible) {
		return nil, nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" no longer reads its inputs as it was created to", kindWords[rel.Kind], rel.Name).
			WithHint("Drop it and create it again.")
	}
	up.StateLayout = stateLayout(root, up.StateTables)
	return up, root, nil
}

// backfillPopulated adds the job startPopulated ran and waits until its
// backfill is committed, as CREATE's launch does. On failure or
// cancellation the job is stopped and the relation is unpopulated again.
func (e *Engine) backfillPopulated(ctx context.Context, j *jobRun, io wire.ExecIO) error {
	err := e.addJob(ctx, j)
	if err == nil {
		err = e.awaitBackfill(ctx, j, io)
	}
	if err == nil {
		e.writeMu.Lock()
		if cur := e.st.jobs[j.id]; cur != nil {
			cur.readable.Store(true)
		}
		e.writeMu.Unlock()
		j.readable.Store(true)
		if carriesWatermarks(j.root) {
			// As CREATE: the tables' watermarks reach the job with the
			// next barrier.
			err = e.st.drv.Barrier(ctx)
		}
	}
	if err != nil {
		e.undoPopulate(j.rel)
	}
	return err
}

// undoPopulate stops the job of a REFRESH that failed or was cancelled
// and makes its relation unpopulated again.
func (e *Engine) undoPopulate(rel *catalog.Relation) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e.writeMu.Lock()
	cur := e.st.jobs[types.JobID(rel.ID)]
	added := cur != nil && cur.active
	if cur != nil && !added {
		// Never added by a barrier: no barrier will reach it.
		e.st.dropJob(cur.id)
		e.unsubscribe(cur)
	}
	e.writeMu.Unlock()
	if cur != nil && !added {
		cur.cancel()
		<-cur.ended
	} else if err := e.stopJob(ctx, rel.ID); err != nil {
		e.log.Error("stopping the job of a failed REFRESH", "relation", rel.Name, "err", err)
	}
	e.forgetJobHealth(types.JobID(rel.ID))
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if stored, ok := e.cat.ByID(rel.ID); ok {
		if err := e.markUnpopulated(stored); err != nil {
			e.log.Error("marking a materialized view unpopulated again after a failed REFRESH", "relation", rel.Name, "err", err)
		}
	}
}

// unpopulate runs REFRESH MATERIALIZED VIEW ... WITH NO DATA on the view
// rel: the jobs of its indexes and its own are stopped, and its rows and
// state dropped with the flag set, in one durable batch. Refused (0A000)
// while another job reads the view. Called under ddlMu.
func (e *Engine) unpopulate(ctx context.Context, rel *catalog.Relation) error {
	if rel.Unpopulated {
		return nil
	}
	if r := e.jobReading(rel.ID); r != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot refresh materialized view \"%s\" WITH NO DATA: %s \"%s\" reads it", rel.Name, kindWords[r.Kind], r.Name).
			WithDetail("A streaming job reading an unpopulated materialized view would stop receiving its changes.").
			WithHint("Drop %s first, or refresh it WITH NO DATA first.", sql.QuoteIdent(r.Name))
	}
	idxs := e.indexesOn(rel.ID)
	for _, r := range append(idxs, rel) {
		if err := e.stopJob(ctx, r.ID); err != nil {
			return err
		}
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	return e.markUnpopulated(append(idxs, rel)...)
}

// markUnpopulated sets the unpopulated flag of rels in the catalog and
// drops their rows and state tables in the same durable batch. Their
// jobs must be stopped. Called under writeMu.
func (e *Engine) markUnpopulated(rels ...*catalog.Relation) error {
	var ups []*catalog.Relation
	var tables []uint32
	for _, r := range rels {
		up := r.Clone()
		up.Unpopulated = true
		ups = append(ups, up)
		tables = append(tables, jobTables(r)...)
	}
	return e.cat.ReplaceAllWith(func(b *storage.Batch) error { return deleteTables(b, tables) }, ups...)
}

// deleteTables range-deletes the rows of tables in b.
func deleteTables(b *storage.Batch, tables []uint32) error {
	for _, t := range tables {
		if err := b.DeleteRange(t); err != nil {
			return err
		}
	}
	return nil
}

// unpopulatedScan returns notPopulated when relation relID (a scan's) is
// unpopulated: every read of its rows fails, as PostgreSQL's scan does.
func (e *Engine) unpopulatedScan(relID uint32) error {
	if rel, ok := e.cat.ByID(relID); ok {
		return e.unpopulatedRelation(rel)
	}
	return nil
}
