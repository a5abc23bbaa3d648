package engine

import (
	"context"

	"fmt"
	"github.com/cockroachdb/apd/v3"
	"strings"

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
}

func (src *snapshotSource) ScanRelation(ctx context.Context, relID uint32, colTypes []types.T) (executor.RowIter, error) {
	if src.batch != nil {
		return src.batch.Scan(relID, colTypes), nil
	}
	return src.snap.Scan(relID, colTypes), nil
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
	return w.batch.Put(relID, key, row, ts)
}

func (w *batchWriter) Update(relID uint32, old, new types.Row) error {
	rel, err := w.rel(relID)
	if err != nil {
		return err
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
	return w.batch.Put(relID, newKey, new, ts)
}

func (w *batchWriter) Delete(relID uint32, old types.Row) error {
	rel, err := w.rel(relID)
	if err != nil {
		return err
	}
	key := pkKey(rel, old)
	if err := w.touch(rel, key); err != nil {
		return err
	}
	return w.batch.Delete(relID, key)
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
		WithDetail("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// rowCounter is implemented by DML operators.
type rowCounter interface{ RowsAffected() int64 }

// runWrite executes a DML statement to completion and, outside a
// transaction block, commits it durably (fsync) before returning; inside
// one, its writes join the block's batch.
func (e *Engine) runWrite(ctx context.Context, s *Session, b *planner.Bound, params []types.Datum) (res wire.Result, err error) {
	w, finish := s.beginWrite()
	committed := false
	defer func() {
		if !committed {
			_ = finish(false)
		}
	}()
	snap := e.db.NewSnapshot()
	defer snap.Close()
	src := &snapshotSource{eng: e, snap: snap, s: s}
	if w.tx != nil {
		src.batch = w.batch
	}
	ec := s.execCtx(params, src, w)
	op, err := executor.Build(b.Plan, ec)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	var rows []types.Row
	ncols := len(b.Plan.Schema())
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
				rows = append(rows, r[:ncols])
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx)
	}
	committed = true
	if err := finish(true); err != nil {
		return nil, err
	}
	var n int64
	if rc, ok := op.(rowCounter); ok {
		n = rc.RowsAffected()
	} else {
		n = int64(len(rows))
	}
	e.metrics.statements.WithLabelValues(strings.ToLower(b.Tag)).Inc()
	tag := fmt.Sprintf("%s %d", b.Tag, n)
	if b.Tag == "INSERT" {
		tag = fmt.Sprintf("INSERT 0 %d", n)
	}
	return &rowsResult{rows: rows, tag: tag}, nil
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
