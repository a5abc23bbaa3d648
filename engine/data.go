package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/cockroachdb/apd/v3"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// relTypes returns the column types of rel in Cols order.
func relTypes(rel *catalog.Relation) []types.T {
	ts := make([]types.T, len(rel.Cols))
	for i, c := range rel.Cols {
		ts[i] = c.T
	}
	return ts
}

// widen gives a row planned before columns were added to rel (a
// prepared statement's) the added columns: those of stored, the row the
// key holds now, when there is one, else their missing values, as a
// read of a row written without them would.
func widen(rel *catalog.Relation, row, stored types.Row) types.Row {
	if len(row) >= len(rel.Cols) {
		return row
	}
	if len(stored) < len(rel.Cols) {
		stored, _ = rel.MissingRow()
	}
	return append(slices.Clone(row), stored[len(row):]...)
}

// widenStored is widen with the row stored under row's key, read by get.
func widenStored(rel *catalog.Relation, row types.Row, get func(key []byte) (types.Row, bool, error)) (types.Row, error) {
	if len(row) >= len(rel.Cols) {
		return row, nil
	}
	cur, _, err := get(pkKey(rel, row))
	if err != nil {
		return nil, err
	}
	return widen(rel, row, cur), nil
}

// pkKey encodes the primary key of row (in rel.Cols order) as the
// memcomparable storage key.
func pkKey(rel *catalog.Relation, row types.Row) []byte {
	var k []byte
	for _, i := range rel.PK {
		k = types.AppendKey(k, row[i], rel.Cols[i].T, false)
	}
	return k
}

// snapshotSource serves scans from one storage snapshot, or, inside a
// transaction block that has written, from the block's batch over the
// committed data (so the block reads its own writes).
type snapshotSource struct {
	eng   *Engine
	snap  *storage.Snapshot
	s     *Session
	batch *storage.Batch
	// ctx is the statement's context, which ends IndexUsable's wait for
	// the write lock (nil: none).
	ctx context.Context
}

func (src *snapshotSource) ScanRelation(ctx context.Context, relID uint32, colTypes []types.T) (executor.RowIter, error) {
	if err := src.eng.unpopulatedScan(relID); err != nil {
		return nil, err
	}
	if src.batch != nil {
		return &countingIter{it: src.batch.Scan(relID, colTypes), n: &src.eng.rowsRead}, nil
	}
	return &countingIter{it: src.snap.Scan(relID, colTypes), n: &src.eng.rowsRead}, nil
}

// IndexUsable implements executor.IndexSource: an index serves reads
// once its backfill is committed, and not to a transaction block that
// has written (its reads see its own writes, which no index holds yet).
//
// A relation's primary key (planner.PrimaryIndex: idx is the relation
// itself) always serves: its ranges are read where a scan would read.
func (src *snapshotSource) IndexUsable(idx uint32) bool {
	rel, ok := src.eng.cat.ByID(idx)
	if ok && rel.Kind != catalog.KindIndex {
		return true
	}
	if src.batch != nil && src.batch.Len() > 0 {
		return false
	}
	if !ok {
		return false
	}
	if src.ctx == nil {
		src.eng.writeMu.Lock()
	} else if src.eng.writeMu.lockContext(src.ctx) != nil {
		// The statement is ending: it reads no further, by the index or
		// otherwise.
		return false
	}
	j := src.eng.st.jobs[types.JobID(idx)]
	src.eng.writeMu.Unlock()
	return j != nil && j.readable.Load()
}

// ScanRange implements executor.IndexSource. A relation's own ranges
// (its primary key's) come from the transaction block's batch when there
// is one, as its scans do; an index's from the snapshot (it serves only
// a block that has not written).
func (src *snapshotSource) ScanRange(ctx context.Context, relID uint32, lo, hi []byte, colTypes []types.T) (executor.RowIter, error) {
	if err := src.eng.unpopulatedScan(relID); err != nil {
		return nil, err
	}
	if src.batch != nil {
		if rel, ok := src.eng.cat.ByID(relID); ok && rel.Kind != catalog.KindIndex {
			return &countingIter{it: src.batch.ScanRange(relID, lo, hi, colTypes), n: &src.eng.rowsRead}, nil
		}
	}
	return &countingIter{it: src.snap.ScanRange(relID, lo, hi, colTypes), n: &src.eng.rowsRead}, nil
}

// Get implements executor.IndexSource.
func (src *snapshotSource) Get(ctx context.Context, relID uint32, key []byte, colTypes []types.T) (types.Row, bool, error) {
	row, ok, err := src.snap.Get(relID, key, colTypes)
	if ok {
		src.eng.rowsRead.Add(1)
	}
	return row, ok, err
}

// countingIter counts the rows an iterator returns into n, once closed.
type countingIter struct {
	it    executor.RowIter
	n     *atomic.Int64
	count int64
}

func (c *countingIter) Next() (types.Row, error) {
	r, err := c.it.Next()
	if r != nil {
		c.count++
	}
	return r, err
}

func (c *countingIter) Close() {
	c.n.Add(c.count)
	c.count = 0
	c.it.Close()
}

func (src *snapshotSource) ScanSystem(ctx context.Context, schema, name string) ([]types.Row, error) {
	return src.eng.systemRows(src.s, schema, name)
}

// batchWriter applies a statement's DML to one storage batch, checking
// primary keys against the batch (and through it, the database).
type batchWriter struct {
	eng   *Engine
	batch *storage.Batch
	// tx is the transaction block the writes belong to (nil outside one);
	// every touched key's committed state is remembered for COMMIT's check.
	tx *txnState
	// uniq caches the unique indexes of the tables written.
	uniq map[uint32][]uniqueIndex
	// fk collects the changes the foreign keys act on at the
	// statement's end (nil: none do).
	fk *fkState
}

// touch remembers a key's committed state for the block's COMMIT check.
func (w *batchWriter) touch(rel *catalog.Relation, key []byte) error {
	if w.tx == nil {
		return nil
	}
	return w.tx.remember(w.eng, rel, key)
}

func (w *batchWriter) rel(id uint32) (*catalog.Relation, error) {
	rel, ok := w.eng.cat.ByID(id)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", id)
	}
	return rel, nil
}

func (w *batchWriter) Insert(relID uint32, row types.Row) error {
	rel, err := w.rel(relID)
	if err != nil {
		return err
	}
	row = widen(rel, row, nil)
	ts := relTypes(rel)
	key := pkKey(rel, row)
	if err := w.touch(rel, key); err != nil {
		return err
	}
	if _, found, err := w.batch.Get(relID, key, ts); err != nil {
		return err
	} else if found {
		return duplicateKey(rel, row)
	}
	if err := uniqueAdd(batchKeys{w.batch}, w.eng.uniqueOf(&w.uniq, rel), rel, row, key); err != nil {
		return err
	}
	w.fk.note(rel, nil, row)
	return w.batch.Put(relID, key, row, ts)
}

func (w *batchWriter) Update(relID uint32, old, new types.Row) error {
	rel, err := w.rel(relID)
	if err != nil {
		return err
	}
	get := func(k []byte) (types.Row, bool, error) { return w.batch.Get(relID, k, relTypes(rel)) }
	if old, err = widenStored(rel, old, get); err != nil {
		return err
	}
	if new, err = widenStored(rel, new, func([]byte) (types.Row, bool, error) { return old, true, nil }); err != nil {
		return err
	}
	if appendOnlyTable(rel) {
		return errAppendOnly(rel, "update")
	}
	ts := relTypes(rel)
	oldKey, newKey := pkKey(rel, old), pkKey(rel, new)
	if err := w.touch(rel, oldKey); err != nil {
		return err
	}
	if err := w.touch(rel, newKey); err != nil {
		return err
	}
	if string(oldKey) != string(newKey) {
		if _, found, err := w.batch.Get(relID, newKey, ts); err != nil {
			return err
		} else if found {
			return duplicateKey(rel, new)
		}
		if err := w.batch.Delete(relID, oldKey); err != nil {
			return err
		}
	}
	if err := uniqueChange(batchKeys{w.batch}, w.eng.uniqueOf(&w.uniq, rel), rel, old, new, oldKey, newKey, false); err != nil {
		return err
	}
	w.fk.note(rel, old, new)
	return w.batch.Put(relID, newKey, new, ts)
}

func (w *batchWriter) Delete(relID uint32, old types.Row) error {
	rel, err := w.rel(relID)
	if err != nil {
		return err
	}
	if appendOnlyTable(rel) {
		return errAppendOnly(rel, "delete from")
	}
	key := pkKey(rel, old)
	if err := w.touch(rel, key); err != nil {
		return err
	}
	if err := uniqueRemove(batchKeys{w.batch}, w.eng.uniqueOf(&w.uniq, rel), rel, old, key); err != nil {
		return err
	}
	w.fk.note(rel, old, nil)
	return w.batch.Delete(relID, key)
}

func (w *batchWriter) Get(relID uint32, row types.Row) (types.Row, bool, error) {
	rel, err := w.rel(relID)
	if err != nil {
		return nil, false, err
	}
	key := pkKey(rel, row)
	if err := w.touch(rel, key); err != nil {
		return nil, false, err
	}
	return w.batch.Get(relID, key, relTypes(rel))
}

func (w *batchWriter) NextRowID(relID uint32) (int64, error) {
	id, err := w.eng.db.NextID(fmt.Sprintf("rowid/%d", relID))
	return int64(id), err
}

// duplicateKey is Postgres's unique violation for a primary key.
func duplicateKey(rel *catalog.Relation, row types.Row) error {
	names := make([]string, len(rel.PK))
	vals := make([]string, len(rel.PK))
	for i, c := range rel.PK {
		names[i] = rel.Cols[c].Name
		if row[c].Null {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(row[c], rel.Cols[c].T, nil)
		}
	}
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s_pkey\"", rel.Name).
		WithDetail("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", ")).
		WithTable(rel.Schema, rel.Name).WithConstraint(rel.Name + "_pkey")
}

// rowCounter is implemented by DML operators.
type rowCounter interface{ RowsAffected() int64 }

// runWrite executes a DML statement. Outside a transaction block it
// returns once its changes are committed by a checkpoint (durable, and
// reflected in every materialized view): the statement runs to
// completion under the engine's write lock against the tables' committed
// state plus the changes of statements not yet committed, then its
// changes join the open epoch and flow to the jobs reading the tables. A
// statement that fails leaves nothing behind. Inside a block its writes
// join the block's batch until COMMIT. relations are those b's plan
// reads and writes (planFacts). A non-nil an collects each operator's
// actual rows and time (EXPLAIN ANALYZE).
func (e *Engine) runWrite(ctx context.Context, s *Session, b *planner.Bound, relations []*catalog.Relation, params []types.Datum, an *executor.Analyze) (res wire.Result, err error) {
	ws, err := s.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			_ = ws.finish(ctx, false)
		}
	}()
	// Outside a block the statement holds writeMu, under which a TYPE
	// rewrite commits: the check and the writes see one encoding.
	if err := e.staleTypes(relations); err != nil {
		return nil, err
	}
	ec := s.execCtx(ctx, params, ws.src, ws.w)
	ec.Analyze = an
	defer ec.Release()
	op, err := executor.Build(b.Plan, ec)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	// The RETURNING rows wait for the commit in a store that keeps
	// work_mem of them and puts the rest on a tape, which the result
	// removes once sent (or this function on an error).
	sch := b.Plan.Schema()
	ncols := len(sch)
	rows := executor.NewRowStore(ec, sch.Types())
	sent := false
	defer func() {
		if !sent {
			rows.Discard()
		}
	}()
	for {
		c, err := op.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			return nil, err
		}
		if c == nil {
			break
		}
		for i := 0; i < c.Len(); i++ {
			if c.Visible(i) {
				r := c.Row(i)
				copyDecimals(r)
				if err := rows.Add(r[:ncols]); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx)
	}
	committed = true
	if err := ws.finish(ctx, true); err != nil {
		return nil, err
	}
	var n int64
	if rc, ok := op.(rowCounter); ok {
		n = rc.RowsAffected()
	} else {
		n = int64(rows.Len())
	}
	e.metrics.countStatement(b.Tag)
	tag := b.Tag + " " + strconv.FormatInt(n, 10)
	if b.Tag == "INSERT" {
		tag = "INSERT 0 " + strconv.FormatInt(n, 10)
	}
	sent = true
	return &storeResult{rows: rows, rd: rows.Reader(), tag: tag}, nil
}

// storeResult sends the rows of an executor.RowStore and removes it
// when closed.
type storeResult struct {
	rows *executor.RowStore
	rd   *executor.RowStoreReader
	tag  string
}

func (r *storeResult) Next(context.Context) (types.Row, error) { return r.rd.Next() }
func (r *storeResult) Tag() string                             { return r.tag }
func (r *storeResult) Close()                                  { r.rows.Discard() }

// viewSource serves a DML statement's scans from the tables' committed
// state plus the changes not yet committed (the engine's view batch).
type viewSource struct {
	eng  *Engine
	view *storage.Batch
	s    *Session
}

func (src *viewSource) ScanRelation(ctx context.Context, relID uint32, colTypes []types.T) (executor.RowIter, error) {
	return &countingIter{it: src.view.Scan(relID, colTypes), n: &src.eng.rowsRead}, nil
}

// IndexUsable implements executor.IndexSource: a DML statement reads a
// relation's primary key ranges from the view (planner.PrimaryIndex),
// and a secondary index's when the view agrees with it: the index's
// backfill is done and no epoch still to commit holds a change of its
// table (an index lags the changes not yet committed; the committed
// state holds a table and its indexes at one epoch, and an epoch that
// commits meanwhile holds no change of the table, so it changes neither).
// Called under writeMu, which the statement holds.
func (src *viewSource) IndexUsable(idx uint32) bool {
	e := src.eng
	rel, ok := e.cat.ByID(idx)
	if !ok {
		return false
	}
	if rel.Kind != catalog.KindIndex {
		return true
	}
	on, ok := e.indexedRelation(rel)
	if !ok || !e.st.initialized {
		return false
	}
	for _, pe := range []*pendingEpoch{e.st.cur, e.st.sealed} {
		if pe != nil && pe.tables[on.ID] {
			return false
		}
	}
	j := e.st.jobs[types.JobID(idx)]
	return j != nil && j.readable.Load()
}

// ScanRange implements executor.IndexSource.
func (src *viewSource) ScanRange(ctx context.Context, relID uint32, lo, hi []byte, colTypes []types.T) (executor.RowIter, error) {
	return &countingIter{it: src.view.ScanRange(relID, lo, hi, colTypes), n: &src.eng.rowsRead}, nil
}

// Get implements executor.IndexSource.
func (src *viewSource) Get(ctx context.Context, relID uint32, key []byte, colTypes []types.T) (types.Row, bool, error) {
	row, ok, err := src.view.Get(relID, key, colTypes)
	if ok {
		src.eng.rowsRead.Add(1)
	}
	return row, ok, err
}

func (src *viewSource) ScanSystem(ctx context.Context, schema, name string) ([]types.Row, error) {
	return src.eng.systemRows(src.s, schema, name)
}

// stmtWriter collects one statement's changes. Primary keys are checked
// against the statement's own writes over the engine's view (committed
// state plus pending changes), so constraint checks see every write
// acknowledged or in flight. Nothing is applied until apply, so a failed
// statement leaves nothing behind.
type stmtWriter struct {
	eng  *Engine
	view *storage.Batch
	// own holds the statement's writes per table: key → row, nil for a
	// deleted key.
	own     map[uint32]map[string]types.Row
	changes map[uint32]*tableChanges
	order   []uint32
	// late counts the rows Insert dropped per table for arriving behind
	// its watermark, reported when the statement commits.
	late map[uint32]int64

	// A statement whose changes outgrow its share of the memory budget
	// (limit bytes, as estimated in held) moves them out of memory in
	// pieces (flushPiece): each table's writes into a spill area of the
	// table (areas), which the engine's view reads (so that key checks
	// still see them) and the epoch commits by its mark, and its
	// changelog, encoded, into a log on disk (logs) when a job reads the
	// table. apply marks the areas in the open epoch and sends the logs
	// to the jobs a chunk at a time. A failed statement's areas and logs
	// are deleted and leave the view again (discard).
	limit, held int64
	areas       map[uint32]*storage.Area
	// keyAreas are the spill areas of the unique indexes' key stores,
	// by store: the statement's key changes go out of memory with its
	// rows (the keys given up and taken by an UPDATE of a unique column
	// are as many as its rows).
	keyAreas map[uint32]*storage.Area
	logs     map[uint32]*storage.Log
	// unread lists the tables whose first piece found no job reading
	// them: their changelog is not kept.
	unread    map[uint32]bool
	viewDirty bool

	// keys holds the statement's changes to the key stores of unique
	// indexes, written with its rows by apply; uniq caches the unique
	// indexes of the tables written.
	keys overlayKeys
	uniq map[uint32][]uniqueIndex
	// fk collects the changes the foreign keys act on at the
	// statement's end (nil: none do).
	fk *fkState
}

// appendChange encodes one change of a changelog: an op byte and the
// row (types.AppendRow).
func appendChange(b []byte, op types.Op, row types.Row, ts []types.T) []byte {
	return types.AppendRow(append(b, byte(op)), row, ts)
}

// decodeChange decodes a change encoded by appendChange.
func decodeChange(rec []byte, ts []types.T) (types.Op, types.Row, error) {
	if len(rec) == 0 {
		return 0, nil, pgerr.New(pgerr.DataCorrupted, "empty changelog record")
	}
	row, err := types.DecodeRow(rec[1:], ts)
	return types.Op(rec[0]), row, err
}

// logChunks calls fn with the log's changes in chunks of about
// types.ChunkCap rows, never splitting an update pair; fn owns each.
func logChunks(l *storage.Log, ts []types.T, fn func(*types.Chunk) error) error {
	var c *types.Chunk
	err := l.Each(func(rec []byte) error {
		op, row, err := decodeChange(rec, ts)
		if err != nil {
			return err
		}
		if c != nil && c.Len() >= types.ChunkCap && op != types.OpUpdateInsert {
			if err := fn(c); err != nil {
				return err
			}
			c = nil
		}
		if c == nil {
			c = types.NewChunk(ts, types.ChunkCap+1)
		}
		c.AppendRow(op, row)
		return nil
	})
	if err == nil && c != nil {
		err = fn(c)
	}
	return err
}

// tableChanges is a statement's changelog of one table, in order.
type tableChanges struct {
	rel  *catalog.Relation
	ts   []types.T
	ops  []types.Op
	rows []types.Row
	keys [][]byte
}

func (e *Engine) newStmtWriter() *stmtWriter {
	return &stmtWriter{eng: e, view: e.st.view, own: map[uint32]map[string]types.Row{}, changes: map[uint32]*tableChanges{},
		limit: storage.BudgetShares(e.cfg.MemoryBudget()).DML, keys: overlayKeys{view: e.st.view}}
}

// heldBytes estimates the memory of one held change: the row's datums
// and strings, the key, and its share of the slices and the own map.
func heldBytes(key []byte, row types.Row) int64 {
	n := int64(len(key)) + 96 + int64(len(row))*int64(unsafe.Sizeof(types.Datum{}))
	for i := range row {
		n += int64(len(row[i].S))
	}
	return n
}

// flushPiece moves the held changes of every table without a watermark
// out of memory (see stmtWriter). Tables with a watermark keep theirs:
// apply filters and measures them as a whole.
func (w *stmtWriter) flushPiece() error {
	e := w.eng
	if w.areas == nil {
		w.areas, w.logs, w.unread = map[uint32]*storage.Area{}, map[uint32]*storage.Log{}, map[uint32]bool{}
	}
	var kept int64
	var rec []byte
	for _, id := range w.order {
		tc := w.changes[id]
		if tw, err := e.tableWatermark(tc.rel); err != nil {
			return err
		} else if tw != nil {
			for i := range tc.rows {
				kept += heldBytes(tc.keys[i], tc.rows[i])
			}
			continue
		}
		a := w.areas[id]
		if a == nil && len(tc.ops) == 0 {
			continue
		}
		if a == nil {
			var err error
			if a, err = e.db.NewArea(id); err != nil {
				return err
			}
			w.areas[id] = a
			w.view.AddArea(a)
			w.viewDirty = true
			// The statement holds writeMu: the jobs reading the table
			// stay the same until apply.
			if e.tableRead(id) {
				if w.logs[id], err = e.db.NewLog(); err != nil {
					return err
				}
			} else {
				w.unread[id] = true
			}
		}
		lg := w.logs[id]
		for i, op := range tc.ops {
			var err error
			if op.IsInsert() {
				err = a.Put(tc.keys[i], tc.rows[i], tc.ts)
			} else {
				err = a.Delete(tc.keys[i])
			}
			if err == nil && lg != nil {
				rec = appendChange(rec[:0], op, tc.rows[i], tc.ts)
				err = lg.Append(rec)
			}
			if err != nil {
				return err
			}
		}
		if err := a.Flush(); err != nil {
			return err
		}
		tc.ops, tc.rows, tc.keys = nil, nil, nil
		w.own[id] = map[string]types.Row{}
		if err := w.flushKeys(tc.rel); err != nil {
			return err
		}
	}
	w.held = kept
	return nil
}

// flushKeys moves the statement's changes to the key stores of rel's
// unique indexes into a spill area of each store, read by the view
// over its other writes as the table's area is, and committed with it.
func (w *stmtWriter) flushKeys(rel *catalog.Relation) error {
	e := w.eng
	for _, u := range e.uniqueOf(&w.uniq, rel) {
		m := w.keys.own[u.store]
		a := w.keyAreas[u.store]
		if len(m) == 0 && a == nil {
			continue
		}
		if a == nil {
			var err error
			if a, err = e.db.NewArea(u.store); err != nil {
				return err
			}
			if w.keyAreas == nil {
				w.keyAreas = map[uint32]*storage.Area{}
			}
			w.keyAreas[u.store] = a
			w.view.AddArea(a)
			w.viewDirty = true
		}
		// In key order: the area's batch is written to Pebble sorted.
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var err error
			if pk := m[k]; pk == nil {
				err = a.Delete([]byte(k))
			} else {
				err = a.Put([]byte(k), types.Row{types.DString(string(pk))}, storeTypes)
			}
			if err != nil {
				return err
			}
		}
		if err := a.Flush(); err != nil {
			return err
		}
		w.keys.forget(u.store)
	}
	return nil
}

// tableRead reports whether a job (active or not yet) reads table id, or
// may once a recovery's jobs start. Called under writeMu.
func (e *Engine) tableRead(id uint32) bool {
	if !e.st.initialized {
		return true
	}
	for _, j := range e.st.jobs {
		if j.job.Scans(id) {
			return true
		}
	}
	return false
}

// discard undoes what flushPiece did: the statement's areas and logs
// are deleted and the engine's view is rebuilt from the pending epochs'
// writes. Called under writeMu when the statement fails.
func (w *stmtWriter) discard() {
	for _, as := range []map[uint32]*storage.Area{w.areas, w.keyAreas} {
		for _, a := range as {
			if err := a.Discard(); err != nil {
				w.eng.log.Warn("discarding a failed statement's writes", "err", err)
			}
		}
	}
	w.discardLogs()
	w.areas, w.keyAreas = nil, nil
	if !w.viewDirty {
		return
	}
	w.viewDirty = false
	st := w.eng.st
	view := w.eng.db.NewBatch()
	var err error
	if st.sealed != nil {
		err = view.Apply(st.sealed.batch)
	}
	if err == nil {
		err = view.Apply(st.cur.batch)
	}
	if err != nil {
		// The view cannot be trusted: a recovery rebuilds everything.
		w.eng.log.Error("rebuilding the view of pending writes", "err", err)
	}
	st.view.Close()
	st.view = view
}

// discardLogs deletes the statement's logs.
func (w *stmtWriter) discardLogs() {
	for _, l := range w.logs {
		if err := l.Discard(); err != nil {
			w.eng.log.Warn("discarding a statement's changelog", "err", err)
		}
	}
	w.logs = nil
}

func (w *stmtWriter) table(relID uint32) (*tableChanges, error) {
	if tc := w.changes[relID]; tc != nil {
		return tc, nil
	}
	rel, ok := w.eng.cat.ByID(relID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", relID)
	}
	if rel.Kind != catalog.KindTable {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot change %s \"%s\"", kindWords[rel.Kind], rel.Name)
	}
	if planner.HasConnector(rel) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot change table \"%s\": its rows come from connector %s", rel.Name, rel.With[optConnector]).
			WithHint("Write to the connector's topic instead.")
	}
	tc := &tableChanges{rel: rel, ts: relTypes(rel)}
	w.changes[relID] = tc
	w.own[relID] = map[string]types.Row{}
	w.order = append(w.order, relID)
	return tc, nil
}

// current returns the function reading the row a key of tc's table
// holds now: the statement's own write, else the engine's view.
func (w *stmtWriter) current(tc *tableChanges) func(key []byte) (types.Row, bool, error) {
	return func(key []byte) (types.Row, bool, error) {
		if r, ok := w.own[tc.rel.ID][string(key)]; ok {
			return r, r != nil, nil
		}
		return w.view.Get(tc.rel.ID, key, tc.ts)
	}
}

func (w *stmtWriter) exists(tc *tableChanges, key []byte) (bool, error) {
	if r, ok := w.own[tc.rel.ID][string(key)]; ok {
		return r != nil, nil
	}
	_, found, err := w.view.Get(tc.rel.ID, key, tc.ts)
	return found, err
}

func (w *stmtWriter) add(tc *tableChanges, op types.Op, key []byte, row types.Row) {
	copyDecimals(row)
	tc.ops = append(tc.ops, op)
	tc.rows = append(tc.rows, row)
	tc.keys = append(tc.keys, key)
	if op.IsInsert() {
		w.own[tc.rel.ID][string(key)] = row
	} else {
		w.own[tc.rel.ID][string(key)] = nil
	}
	w.held += heldBytes(key, row)
}

// checkHeld flushes a piece once the held changes (rows and unique
// keys) outgrow the limit.
func (w *stmtWriter) checkHeld() error {
	if w.limit <= 0 || w.held+w.keys.held < w.limit {
		return nil
	}
	return w.flushPiece()
}

func (w *stmtWriter) Insert(relID uint32, row types.Row) error {
	tc, err := w.table(relID)
	if err != nil {
		return err
	}
	row = widen(tc.rel, row, nil)
	// The statement holds writeMu: the table's watermark is the one it
	// began with until apply raises it.
	if tw, err := w.eng.tableWatermark(tc.rel); err != nil {
		return err
	} else if tw != nil && tw.behind(row) {
		if w.late == nil {
			w.late = map[uint32]int64{}
		}
		w.late[relID]++
		return executor.ErrRowDropped
	}
	key := pkKey(tc.rel, row)
	if found, err := w.exists(tc, key); err != nil {
		return err
	} else if found {
		return duplicateKey(tc.rel, row)
	}
	if err := uniqueAdd(&w.keys, w.eng.uniqueOf(&w.uniq, tc.rel), tc.rel, row, key); err != nil {
		return err
	}
	w.add(tc, types.OpInsert, key, slices.Clone(row))
	w.fk.note(tc.rel, nil, row)
	return w.checkHeld()
}

func (w *stmtWriter) Update(relID uint32, old, new types.Row) error {
	tc, err := w.table(relID)
	if err != nil {
		return err
	}
	if old, err = widenStored(tc.rel, old, w.current(tc)); err != nil {
		return err
	}
	if new, err = widenStored(tc.rel, new, func([]byte) (types.Row, bool, error) { return old, true, nil }); err != nil {
		return err
	}
	if appendOnlyTable(tc.rel) {
		return errAppendOnly(tc.rel, "update")
	}
	oldKey, newKey := pkKey(tc.rel, old), pkKey(tc.rel, new)
	if string(oldKey) != string(newKey) {
		if found, err := w.exists(tc, newKey); err != nil {
			return err
		} else if found {
			return duplicateKey(tc.rel, new)
		}
	}
	if err := uniqueChange(&w.keys, w.eng.uniqueOf(&w.uniq, tc.rel), tc.rel, old, new, oldKey, newKey, true); err != nil {
		return err
	}
	w.fk.note(tc.rel, old, new)
	if string(oldKey) != string(newKey) {
		w.add(tc, types.OpDelete, oldKey, slices.Clone(old))
		w.add(tc, types.OpInsert, newKey, slices.Clone(new))
		return w.checkHeld()
	}
	w.add(tc, types.OpUpdateDelete, oldKey, slices.Clone(old))
	w.add(tc, types.OpUpdateInsert, newKey, slices.Clone(new))
	return w.checkHeld()
}

func (w *stmtWriter) Delete(relID uint32, old types.Row) error {
	tc, err := w.table(relID)
	if err != nil {
		return err
	}
	if old, err = widenStored(tc.rel, old, w.current(tc)); err != nil {
		return err
	}
	if appendOnlyTable(tc.rel) {
		return errAppendOnly(tc.rel, "delete from")
	}
	key := pkKey(tc.rel, old)
	if err := uniqueRemove(&w.keys, w.eng.uniqueOf(&w.uniq, tc.rel), tc.rel, old, key); err != nil {
		return err
	}
	w.add(tc, types.OpDelete, key, slices.Clone(old))
	w.fk.note(tc.rel, old, nil)
	return w.checkHeld()
}

func (w *stmtWriter) Get(relID uint32, row types.Row) (types.Row, bool, error) {
	tc, err := w.table(relID)
	if err != nil {
		return nil, false, err
	}
	key := pkKey(tc.rel, row)
	if r, ok := w.own[tc.rel.ID][string(key)]; ok {
		return r, r != nil, nil
	}
	return w.view.Get(tc.rel.ID, key, tc.ts)
}

func (w *stmtWriter) NextRowID(relID uint32) (int64, error) {
	id, err := w.eng.db.NextID(fmt.Sprintf("rowid/%d", relID))
	return int64(id), err
}

// apply adds the statement's changes to the open epoch (the tables'
// writes, and the view DML reads) and pushes them to the jobs reading
// the tables. It returns the epoch to wait for, or, when the statement
// commits through the redo log (redo.go), the wait for its record's
// fsync, which the caller waits for once it let writeMu go. Called
// under writeMu.
func (w *stmtWriter) apply() (*pendingEpoch, *storage.RedoWait, error) {
	pe, wait, err := w.applyWrites()
	if err != nil && wait != nil {
		// The record is appended: its fsync is waited for, so that it
		// is not left pending.
		_ = wait.Wait()
		wait = nil
	}
	return pe, wait, err
}

func (w *stmtWriter) applyWrites() (*pendingEpoch, *storage.RedoWait, error) {
	e := w.eng
	st := e.st
	pe := st.cur
	wms := make(map[uint32]*tableWatermark)
	for _, id := range w.order {
		tc := w.changes[id]
		tw, err := e.tableWatermark(tc.rel)
		if err != nil {
			return nil, nil, err
		}
		if tw != nil {
			wms[id] = tw
			e.filterLate(tc, tw)
		}
	}
	for id, n := range w.late {
		e.countLate(id, e.wms.tables[id], n)
	}
	// A table with areas in the view (this statement's or an earlier
	// one's) takes its later writes into areas too: the view and the
	// commit put a table's areas over its other writes.
	flush := len(w.areas) > 0 || len(w.keyAreas) > 0
	for _, id := range w.order {
		if wms[id] != nil {
			continue
		}
		if st.view.HasAreas(id) {
			flush = true
		}
		for _, u := range e.uniqueOf(&w.uniq, w.changes[id].rel) {
			if st.view.HasAreas(u.store) {
				flush = true
			}
		}
	}
	if flush {
		if err := w.flushPiece(); err != nil {
			w.discard()
			return nil, nil, err
		}
	}
	for _, id := range w.order {
		if a := w.areas[id]; a != nil {
			if err := pe.batch.CommitArea(a, 0); err != nil {
				return nil, nil, err
			}
		}
		for _, u := range e.uniqueOf(&w.uniq, w.changes[id].rel) {
			if a := w.keyAreas[u.store]; a != nil {
				if err := pe.batch.CommitArea(a, 0); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	bs := []*storage.Batch{st.view, pe.batch}
	logged := e.redoEligible(w, flush, wms)
	if logged {
		rec := e.db.NewWriteBatch()
		defer rec.Close()
		bs = append(bs, rec)
	} else if len(w.order) > 0 {
		pe.unlogged = true
	}
	for _, id := range w.order {
		tc := w.changes[id]
		for i, op := range tc.ops {
			for _, b := range bs {
				var err error
				if op.IsInsert() {
					err = b.Put(id, tc.keys[i], tc.rows[i], tc.ts)
				} else {
					err = b.Delete(id, tc.keys[i])
				}
				if err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := w.keys.writeTo(bs...); err != nil {
		return nil, nil, err
	}
	for _, id := range w.order {
		pe.tables[id] = true
	}
	var wait *storage.RedoWait
	if logged {
		var err error
		if wait, err = e.logRedo(pe, bs[2], w); err != nil {
			// The writes are in the epoch already: the statement
			// commits through its checkpoint, as one without a record
			// does (logRedo marked the epoch unlogged), its changes
			// going to the jobs now.
			if !errors.Is(err, storage.ErrRedoFailed) { // said once, when it failed
				e.log.Warn("writing the redo log failed; the statement commits through its checkpoint", "err", err)
			}
			logged = false
		}
	}
	defer w.discardLogs()
	if !logged {
		// Its changes go to the jobs now, after those batched before.
		if err := e.flushBatched(); err != nil {
			return nil, wait, err
		}
	}
	for _, id := range w.order {
		tc := w.changes[id]
		if w.unread[id] && e.tableRead(id) {
			return nil, wait, pgerr.New(pgerr.InternalError, "a job began reading table %s during a statement writing it", tc.rel.Name)
		}
		if lg := w.logs[id]; lg != nil {
			// A chunk at a time: each push waits for room in the jobs'
			// inputs.
			err := logChunks(lg, tc.ts, func(c *types.Chunk) error { return e.pushChanges(id, []*types.Chunk{c}) })
			if err != nil {
				return nil, wait, err
			}
		}
		if len(tc.ops) == 0 {
			continue
		}
		if logged {
			if err := e.batchChanges(tc); err != nil {
				return nil, wait, err
			}
			continue
		}
		if err := e.pushChanges(id, tc.chunks()); err != nil {
			return nil, wait, err
		}
		if tw := wms[id]; tw != nil {
			e.advanceWatermark(tc, tw)
		}
	}
	return pe, wait, nil
}

// chunks cuts the changelog into chunks of at most about
// types.ChunkCap rows, never splitting an update pair.
func (tc *tableChanges) chunks() []*types.Chunk {
	var out []*types.Chunk
	var c *types.Chunk
	for i, op := range tc.ops {
		if c == nil || (c.Len() >= types.ChunkCap && op != types.OpUpdateInsert) {
			c = types.NewChunk(tc.ts, min(types.ChunkCap+1, len(tc.ops)-i))
			out = append(out, c)
		}
		c.AppendRow(op, tc.rows[i])
	}
	return out
}

// copyDecimals detaches numeric datums from the chunk they point into, so
// the row outlives the chunk.
func copyDecimals(r types.Row) {
	for i := range r {
		if r[i].D != nil {
			r[i].D = new(apd.Decimal).Set(r[i].D)
		}
	}
}
