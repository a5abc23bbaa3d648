package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file holds the redo log's side in the engine: how a small DML
// statement commits on one fsync, before its checkpoint.
//
// Without it, a statement's commit point is the checkpoint of its epoch:
// it waits for a barrier to pass through every job and for the epoch's
// write sets to commit. With it, a statement whose writes are small
// appends them to the redo log (storage.AppendRedo) as it applies them
// to the open epoch, and is acknowledged once the record is fsynced;
// its epoch commits with a later checkpoint, which deletes the record
// in the same batch. A recovery, after a crash or in the process, applies
// the records left again to the new open epoch and sends their changes
// to the rebuilt jobs after the Initial barrier (replayRedo), so an
// acknowledged statement is neither lost nor applied twice.
//
// Reads stay as before, as if each statement had waited for its
// checkpoint: a query reads the committed state, so it first waits for
// the epoch of the last statement acknowledged this way (readFence);
// DML reads the tables through the view of pending writes, which holds
// them already, and waits only when it reads a view.
//
// A statement takes this path when everything an epoch holds can be
// applied again from the log: its writes are not spilled to disk, no
// table it writes has a watermark or is temporary, and no statement of
// the open or sealed epoch before it was committed without a record
// (pendingEpoch.unlogged; applying a statement again without one it
// read would be wrong). Nor does it when its writes must be in the
// committed state before anything follows: a table a job looks up
// (FOR SYSTEM_TIME AS OF PROCTIME()) or a coupled sink reads, or any
// table while a recovery waits for its Initial barrier. Statements that change the catalog hold the
// path shut while they run (quiesceRedo) and wait for the records
// before them to be committed: a record is always applied again to the
// relations it was written for.

// redoMaxBytes is the largest redo record: a statement with more writes
// commits through its checkpoint.
const redoMaxBytes = 1 << 20

// redoEligible reports whether the statement w can commit through the
// redo log (see above). Called under writeMu by apply.
func (e *Engine) redoEligible(w *stmtWriter, spilled bool, wms map[uint32]*tableWatermark) bool {
	st := e.st
	if st.catalogChanges.Load() != 0 || spilled || len(wms) > 0 || len(w.late) > 0 ||
		len(w.areas) > 0 || len(w.keyAreas) > 0 || len(w.logs) > 0 {
		return false
	}
	if st.cur.unlogged || st.sealed != nil && st.sealed.unlogged {
		return false
	}
	// While a recovery waits for its Initial barrier a statement waits
	// too, as before, and reads of the tables answer meanwhile from the
	// committed rows instead of waiting for it.
	if !st.initialized {
		return false
	}
	shut := e.redoShutTables()
	for _, id := range w.order {
		if w.changes[id].rel.Temp || shut[id] {
			return false
		}
	}
	return !e.noRedo.Load()
}

// redoShutTables returns the tables whose statements the running jobs
// keep off the redo log: a job looking a table up (FOR SYSTEM_TIME AS OF
// PROCTIME()) reads its committed rows, and the rows that follow must
// find the statement's writes there; a coupled sink (sink.decouple =
// 'false') makes the writes to what it reads, directly or through views,
// wait for its delivery, which is in the checkpoint. The set is computed
// once per change of the jobs or the catalog. Called under writeMu.
func (e *Engine) redoShutTables() map[uint32]bool {
	st := e.st
	c := &st.redoShut
	if gen := e.cat.Generation(); !c.valid || c.jobsGen != st.jobsGen || c.catGen != gen {
		c.tables, c.jobsGen, c.catGen, c.valid = e.computeRedoShut(), st.jobsGen, gen, true
	}
	return c.tables
}

// computeRedoShut walks the running jobs for redoShutTables.
func (e *Engine) computeRedoShut() map[uint32]bool {
	st := e.st
	shut := map[uint32]bool{}
	var lookups func(n planner.StreamNode)
	lookups = func(n planner.StreamNode) {
		if lj, ok := n.(*planner.StreamLookupJoin); ok {
			shut[lj.Rel.ID] = true
		}
		for _, in := range n.StreamInputs() {
			lookups(in)
		}
	}
	seen := map[types.JobID]bool{}
	var reads func(j *jobRun)
	reads = func(j *jobRun) {
		if seen[j.id] {
			return
		}
		seen[j.id] = true
		for _, t := range j.job.Tables {
			shut[t.Rel.ID] = true
			if up := st.jobs[types.JobID(t.Rel.ID)]; up != nil {
				reads(up)
			}
		}
	}
	for _, j := range st.jobs {
		if j.root != nil {
			lookups(j.root)
		}
		if j.rel.Kind == catalog.KindSink && !stream.SinkDecoupled(j.rel.With) {
			reads(j)
		}
	}
	return shut
}

// encodeRedo returns the redo record of a statement: the writes of rec
// (its tables' and key stores' writes, as a batch's Repr) and, per table
// written, its changelog. nil when the record would pass redoMaxBytes.
//
//	record  = uvarint len(repr) | repr | uvarint tables | table...
//	table   = u32 relation id | uvarint columns | uvarint changes | change...
//	change  = uvarint len | appendChange
func encodeRedo(rec *storage.Batch, w *stmtWriter) []byte {
	repr := rec.Repr()
	b := binary.AppendUvarint(make([]byte, 0, len(repr)+64), uint64(len(repr)))
	b = append(b, repr...)
	b = binary.AppendUvarint(b, uint64(len(w.order)))
	var ch []byte
	for _, id := range w.order {
		tc := w.changes[id]
		b = binary.BigEndian.AppendUint32(b, id)
		b = binary.AppendUvarint(b, uint64(len(tc.ts)))
		b = binary.AppendUvarint(b, uint64(len(tc.ops)))
		for i, op := range tc.ops {
			ch = appendChange(ch[:0], op, tc.rows[i], tc.ts)
			b = binary.AppendUvarint(b, uint64(len(ch)))
			b = append(b, ch...)
			if len(b) > redoMaxBytes {
				return nil
			}
		}
	}
	if len(b) > redoMaxBytes {
		return nil
	}
	return b
}

// redoTable is one table's changelog in a decoded redo record.
type redoTable struct {
	rel *catalog.Relation
	tc  tableChanges
}

// decodeRedo decodes a redo record against the catalog: its writes'
// Repr and each table's changelog. A record naming a relation that is
// gone, or whose columns changed, is refused (quiesceRedo keeps that
// from happening).
func (e *Engine) decodeRedo(rec []byte) (repr []byte, tables []redoTable, err error) {
	bad := func(what string) error {
		return pgerr.New(pgerr.DataCorrupted, "corrupt redo record: %s", what)
	}
	n, k := binary.Uvarint(rec)
	if k <= 0 || uint64(len(rec)-k) < n {
		return nil, nil, bad("writes")
	}
	repr, rec = rec[k:k+int(n)], rec[k+int(n):]
	if err := storage.CheckRedoWrites(repr); err != nil {
		return nil, nil, err
	}
	nt, k := binary.Uvarint(rec)
	if k <= 0 {
		return nil, nil, bad("table count")
	}
	rec = rec[k:]
	for range nt {
		if len(rec) < 4 {
			return nil, nil, bad("table id")
		}
		id := binary.BigEndian.Uint32(rec)
		rec = rec[4:]
		ncols, k := binary.Uvarint(rec)
		if k <= 0 {
			return nil, nil, bad("column count")
		}
		rec = rec[k:]
		nch, k := binary.Uvarint(rec)
		if k <= 0 {
			return nil, nil, bad("change count")
		}
		rec = rec[k:]
		rel, ok := e.cat.ByID(id)
		if !ok {
			return nil, nil, fmt.Errorf("relation %d no longer exists", id)
		}
		ts := relTypes(rel)
		if uint64(len(ts)) != ncols {
			return nil, nil, fmt.Errorf("relation %s has %d columns where the record has %d", rel.Name, len(ts), ncols)
		}
		t := redoTable{rel: rel, tc: tableChanges{rel: rel, ts: ts}}
		for range nch {
			l, k := binary.Uvarint(rec)
			if k <= 0 || uint64(len(rec)-k) < l {
				return nil, nil, bad("change")
			}
			op, row, err := decodeChange(rec[k:k+int(l)], ts)
			if err != nil {
				return nil, nil, err
			}
			rec = rec[k+int(l):]
			t.tc.ops = append(t.tc.ops, op)
			t.tc.rows = append(t.tc.rows, row)
		}
		tables = append(tables, t)
	}
	if len(rec) != 0 {
		return nil, nil, bad("trailing bytes")
	}
	return repr, tables, nil
}

// logRedo appends the statement's record (see encodeRedo) for the
// epoch pe and returns the wait for its fsync; nil when the record is
// too large, and the epoch then counts as holding an unlogged
// statement. Called under writeMu by apply, after the writes.
func (e *Engine) logRedo(pe *pendingEpoch, rec *storage.Batch, w *stmtWriter) (*storage.RedoWait, error) {
	b := encodeRedo(rec, w)
	if b == nil {
		pe.unlogged = true
		return nil, nil
	}
	st := e.st
	wait, err := e.db.AppendRedo(st.lsn+1, b)
	if err != nil {
		pe.unlogged = true
		return nil, err
	}
	st.lsn++
	pe.lastLSN = st.lsn
	st.lastLogged.Store(pe)
	e.obs.redoAppended(len(b))
	return wait, nil
}

// batchChanges adds the changes of a statement committed through the
// redo log to its table's batch for the jobs, which goes to them once it
// holds about types.ChunkCap rows or at the epoch's barrier
// (flushBatched): the jobs then take many small statements' changes in
// one chunk, as RisingWave's DML executor batches them, and nothing is
// visible sooner anyway (a view shows an epoch once it is committed).
// Called under writeMu.
func (e *Engine) batchChanges(tc *tableChanges) error {
	st := e.st
	id := tc.rel.ID
	for i, op := range tc.ops {
		c := st.batched[id]
		if c != nil && c.Len() >= types.ChunkCap && op != types.OpUpdateInsert {
			delete(st.batched, id)
			if err := e.pushChanges(id, []*types.Chunk{c}); err != nil {
				return err
			}
			c = nil
		}
		if c == nil {
			if st.batched == nil {
				st.batched = map[uint32]*types.Chunk{}
			}
			c = types.NewChunk(tc.ts, types.ChunkCap+1)
			st.batched[id] = c
		}
		c.AppendRow(op, tc.rows[i])
	}
	return nil
}

// flushBatched sends the batched changes to the jobs, table by table:
// before a barrier seals their epoch, and before the changes of a
// statement that are not batched. Called under writeMu.
func (e *Engine) flushBatched() error {
	st := e.st
	if len(st.batched) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(st.batched))
	for _, id := range ids {
		c := st.batched[id]
		delete(st.batched, id)
		if err := e.pushChanges(id, []*types.Chunk{c}); err != nil {
			return err
		}
	}
	return nil
}

// replayRedo applies the redo log's records to the open epoch, as their
// statements applied them, and holds their changes for the rebuilt jobs
// until the Initial barrier. A recovery calls it under writeMu, once the
// epochs that did not commit are discarded: the records left are the
// acknowledged statements the committed state lacks.
func (e *Engine) replayRedo() error {
	st := e.st
	n := 0
	err := e.db.EachRedo(func(lsn uint64, rec []byte) error {
		repr, tables, err := e.decodeRedo(rec)
		if err != nil {
			// Never expected (see quiesceRedo): the statement is lost,
			// and said so, rather than the database never starting.
			e.log.Error("a statement in the redo log cannot be applied again", "lsn", lsn, "err", err)
			return nil
		}
		for _, b := range []*storage.Batch{st.view, st.cur.batch} {
			if err := b.ApplyRedo(repr); err != nil {
				return err
			}
		}
		for _, t := range tables {
			st.cur.tables[t.rel.ID] = true
			if len(t.tc.ops) > 0 {
				if err := e.pushChanges(t.rel.ID, t.tc.chunks()); err != nil {
					return err
				}
			}
		}
		st.cur.lastLSN = lsn
		st.lsn = max(st.lsn, lsn)
		n++
		return nil
	})
	if n > 0 {
		st.lastLogged.Store(st.cur)
		e.log.Info("applied the statements of the redo log again", "statements", n, "through_lsn", st.cur.lastLSN)
	}
	return err
}

// readFence waits until every statement acknowledged through the redo
// log so far is committed: a read of the committed state then sees it,
// as it would had the statement waited for its checkpoint. When nothing
// waits, it costs an atomic load.
func (e *Engine) readFence(ctx context.Context) error {
	for {
		p := e.st.lastLogged.Load()
		if p == nil {
			return nil
		}
		if res, ok := p.result(); ok {
			if res == nil {
				return nil
			}
			// A recovery discarded the epoch and applied its records
			// again to a later one, holding writeMu from the one to the
			// other: wait for it, then for the later epoch.
			if err := e.writeMu.lockContext(ctx); err != nil {
				return err
			}
			e.writeMu.Unlock()
			if e.st.lastLogged.Load() == p {
				return errNotCommitted(res)
			}
			continue
		}
		if err := e.waitCommitted(ctx, p); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return err
		}
		// The checkpoint failed: the recovery it starts decides the
		// epoch's outcome.
		select {
		case <-p.done:
		case <-ctx.Done():
			return ctxError(ctx)
		}
	}
}

// shutdownCheckpoint waits, as the database closes, for the statements
// acknowledged through the redo log to be committed, so that the next
// start has none to apply again (PostgreSQL's shutdown checkpoint). Past
// its time limit it gives up: the next start applies them.
func (e *Engine) shutdownCheckpoint() {
	if e.st == nil {
		return
	}
	if p := e.st.lastLogged.Load(); p == nil || p.isCommitted() {
		return
	}
	ctx, cancel := context.WithTimeout(e.st.running, shutdownCheckpointWait)
	defer cancel()
	if err := e.readFence(ctx); err != nil {
		e.log.Warn("no checkpoint at shutdown: the next start applies the redo log", "err", err)
	}
}

// shutdownCheckpointWait is how long shutdownCheckpoint waits.
const shutdownCheckpointWait = 10 * time.Second

// readsDerived reports whether a DML statement reading deps reads a
// relation whose rows its jobs write (a view, a table fed by a
// connector): those lag the tables' pending writes until the checkpoint,
// so the statement waits on readFence first.
func (e *Engine) readsDerived(deps []uint32) bool {
	for _, id := range deps {
		if rel, ok := e.cat.ByID(id); ok && (hasJob(rel) || materialized(rel)) {
			return true
		}
	}
	return false
}

// readsRelations reports whether a query reads any relation: a user
// relation, a function (whose body may), or a system table (weir's
// show the jobs' committed state). SELECT 1 does not wait on readFence.
func readsRelations(b *planner.Bound) bool {
	if len(b.Deps) > 0 || len(b.Funcs) > 0 {
		return true
	}
	found := false
	var walk func(planner.Plan)
	walk = func(p planner.Plan) {
		if _, ok := p.(*planner.SystemScan); ok {
			found = true
		}
		for _, in := range p.Inputs() {
			walk(in)
		}
	}
	walk(b.Plan)
	planner.WalkPlanExprs(b.Plan, func(x planner.Expr) {
		if s, ok := x.(*planner.Subquery); ok {
			walk(s.Plan)
		}
	})
	return found
}

// quiesceRedo shuts the redo log's path for a statement that changes the
// catalog (or reads the committed state to change it) and waits until
// the statements already acknowledged through it are committed: no
// record is then applied again to a relation changed after it was
// written. The returned function opens the path again.
func (e *Engine) quiesceRedo(ctx context.Context) (func(), error) {
	st := e.st
	st.catalogChanges.Add(1)
	end := func() { st.catalogChanges.Add(-1) }
	// A statement that found the path open records its epoch in
	// lastLogged under writeMu: taking it once orders that before the
	// load below.
	if err := e.writeMu.lockContext(ctx); err != nil {
		end()
		return nil, err
	}
	e.writeMu.Unlock()
	if err := e.readFence(ctx); err != nil {
		end()
		return nil, err
	}
	return end, nil
}

// waitRedo waits for the fsync of the statement's redo record: the
// statement's commit point. The writes are applied by then, so a cancel
// does not stop it (an fsync is short).
func (e *Engine) waitRedo(w *storage.RedoWait) (err error) {
	defer e.obs.redoSynced(time.Now(), &err)
	return w.Wait()
}

// awaitCommit waits for a statement whose writes apply put in epoch pe
// to commit: through its redo record's fsync when it has one (wait), else
// through the epoch's checkpoint. When the fsync fails, the record may be
// lost, but the writes are in the epoch: the statement then waits for
// the checkpoint, as PostgreSQL's commit cannot (it panics), and the
// redo log takes no more records until a restart (storage.ErrRedoFailed).
func (s *Session) awaitCommit(ctx context.Context, pe *pendingEpoch, wait *storage.RedoWait) error {
	e := s.eng
	if wait != nil {
		err := e.waitRedo(wait)
		if err == nil {
			return nil
		}
		e.redoFailed.Do(func() {
			e.log.Error("an fsync of the redo log failed: statements commit through their checkpoints until the server restarts", "err", err)
		})
	}
	return s.waitApplied(ctx, pe)
}
