package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Unique indexes. An index job lags the changes DML has not committed
// yet, so it cannot tell a statement whether a value is taken. A unique
// index therefore has, besides its job, a key store
// (catalog.UniqueStoreOption): a keyspace mapping each key value held by
// a row (NULLs are distinct, so a key with a NULL is not stored) to that
// row's primary key. DML keeps it in step with the table, in the same
// batches: a statement outside a transaction block writes it with its
// rows into the view and the open epoch's batch (so an epoch commits a
// table and its key stores atomically, and a recovery that discards an
// epoch discards both), and a transaction block into its own batch, where
// its later statements see it. Every insert of a key checks that no
// other row holds it, so two sessions' inserts of one value cannot both
// commit: autocommit statements run one at a time under the write lock
// against every pending write, and COMMIT of a block checks its changes
// again there (see txnState.changes).
//
// A key store is complete once its marker (the empty key) is committed:
// CREATE UNIQUE INDEX builds it from the table's rows into the open
// epoch, and the engine's open and every recovery rebuild any store
// whose marker is missing (a crash, or a failed checkpoint, before that
// epoch committed).

// uniqueIndex is a unique index as DML enforces it.
type uniqueIndex struct {
	idx   *catalog.Relation
	store uint32
	// cols are the positions in the table's Cols of the key columns, -1
	// for a key expression.
	cols []int
	// nullsEqual is NULLS NOT DISTINCT.
	nullsEqual bool
	// exprs compute the key expressions over the table's row (nil for a
	// column), typed ts; pred, when not nil, is a partial index's
	// predicate: a row it does not hold for holds no key. names are the
	// keys as PostgreSQL's DETAIL names them. err is set when the
	// expressions no longer bind, which fails every write.
	exprs []executor.Evaluator
	ts    []types.T
	pred  executor.Evaluator
	names []string
	err   error
	// rowTs are the types of the table's row the expressions read.
	rowTs []types.T
}

// storeTypes are the types of a key store's value: the primary key.
var storeTypes = []types.T{types.TBytea}

// uniqueIndexes returns the unique indexes on rel, oldest first.
func (e *Engine) uniqueIndexes(rel *catalog.Relation) []uniqueIndex {
	var out []uniqueIndex
	for _, idx := range e.indexesOf(rel.ID) {
		store := idx.UniqueStore()
		if store == 0 {
			continue
		}
		pos, _ := catalog.IndexPositions(idx)
		k := idx.IndexKeys()
		if len(pos) < k {
			continue
		}
		out = append(out, *e.newUniqueIndex(idx, rel, store, pos[:k]))
	}
	return out
}

// newUniqueIndex returns unique index idx on rel as DML enforces it,
// with key store store and key columns at positions pos in rel.Cols (-1
// for a key expression), its expressions and predicate bound.
func (e *Engine) newUniqueIndex(idx, rel *catalog.Relation, store uint32, pos []int) *uniqueIndex {
	u := &uniqueIndex{idx: idx, store: store, cols: pos, nullsEqual: idx.With[catalog.IndexNullsNotDistinctOption] == "true"}
	u.ts = make([]types.T, len(pos))
	u.names = make([]string, len(pos))
	for i, c := range pos {
		if c >= 0 && c < len(rel.Cols) {
			u.ts[i] = rel.Cols[c].T
			u.names[i] = rel.Cols[c].Name
		}
	}
	if idx.PlainIndex() {
		return u
	}
	u.rowTs = relTypes(rel)
	ctx, calls := planner.WithCalls(context.Background())
	exprs, pred, err := e.bindIndexRules(ctx, idx, rel)
	if err == nil && len(exprs) > len(pos) {
		err = pgerr.New(pgerr.InternalError, "index \"%s\" has more expressions than keys", idx.Name)
	}
	if err != nil {
		u.err = err
		return u
	}
	u.exprs = make([]executor.Evaluator, len(pos))
	for i, x := range exprs {
		if x == nil {
			continue
		}
		ev, err := executor.Compile(x)
		if err != nil {
			u.err = err
			return u
		}
		u.exprs[i] = ev
		u.ts[i] = x.Type()
		u.names[i] = calls.IndexExprText(rel, x, true)
	}
	if pred != nil {
		ev, err := executor.Compile(pred)
		if err != nil {
			u.err = err
			return u
		}
		u.pred = ev
	}
	return u
}

// bindIndexRules binds the key expressions (nil for a column) and the
// predicate (nil when none) of index idx over the row of rel, the table
// it indexes, which they name as it was called when the index was made.
func (e *Engine) bindIndexRules(ctx context.Context, idx, rel *catalog.Relation) ([]planner.Expr, planner.Expr, error) {
	cat := e.definitionSession(idx, nil).catalogView()
	pinned := planner.PinRelation(rel, idx.DepCols)
	// The predicate first, as PostgreSQL's transformIndexStmt: its
	// errors come before the expressions'.
	var pred planner.Expr
	if text := idx.IndexPredicate(); text != "" {
		var err error
		if pred, err = planner.BindIndexPredicate(ctx, pinned, text, 0, cat); err != nil {
			return nil, nil, err
		}
	}
	var exprs []planner.Expr
	for _, text := range idx.IndexExprs() {
		if text == "" {
			exprs = append(exprs, nil)
			continue
		}
		x, err := planner.BindIndexExpr(ctx, pinned, text, 0, cat)
		if err != nil {
			return nil, nil, err
		}
		exprs = append(exprs, x)
	}
	return exprs, pred, nil
}

// plain reports whether u's keys are all columns and it holds every
// row: only such an index can back a foreign key.
func (u *uniqueIndex) plain() bool {
	return u.pred == nil && u.err == nil && !slices.ContainsFunc(u.cols, func(c int) bool { return c < 0 })
}

// values returns the values of row's keys in u, and false when u's
// predicate does not hold for row (a partial index holds no key for it).
func (u *uniqueIndex) values(row types.Row) (types.Row, bool, error) {
	if u.err != nil {
		return nil, false, u.err
	}
	var c *types.Chunk
	eval := func(ev executor.Evaluator) (types.Datum, error) {
		if c == nil {
			r := row
			for len(r) < len(u.rowTs) {
				r = append(r, types.NullDatum)
			}
			c = types.NewChunk(u.rowTs, 1)
			c.AppendRow(types.OpInsert, r[:len(u.rowTs)])
		}
		var ec executor.EvalCtx
		v, err := ev.Eval(&ec, c)
		if err != nil {
			return types.Datum{}, err
		}
		return v.Get(0), nil
	}
	if u.pred != nil {
		d, err := eval(u.pred)
		if err != nil {
			return nil, false, err
		}
		if d.Null || d.I == 0 {
			return nil, false, nil
		}
	}
	vals := make(types.Row, len(u.cols))
	for i, col := range u.cols {
		switch {
		case i < len(u.exprs) && u.exprs[i] != nil:
			d, err := eval(u.exprs[i])
			if err != nil {
				return nil, false, err
			}
			vals[i] = d
		case col >= 0 && col < len(row):
			vals[i] = row[col]
		default:
			return nil, false, nil
		}
	}
	return vals, true, nil
}

// computeAll computes u's keys of every row rows yields, returning the
// first error (an expression failing on a row).
func (u *uniqueIndex) computeAll(rows storage.RowIter) error {
	defer rows.Close()
	if u.err != nil {
		return u.err
	}
	for {
		row, err := rows.Next()
		if err != nil || row == nil {
			return err
		}
		if _, _, err := u.values(row); err != nil {
			return err
		}
	}
}

// key encodes row's key in u, reporting false when a key is NULL (NULLs
// are distinct, unless NULLS NOT DISTINCT: such a row conflicts with
// none) or u's predicate does not hold for row.
func (u *uniqueIndex) key(rel *catalog.Relation, row types.Row) ([]byte, bool, error) {
	vals, ok, err := u.values(row)
	if err != nil || !ok {
		return nil, false, err
	}
	k := []byte{1} // never empty: the empty key is the store's marker
	for i, v := range vals {
		if v.Null && !u.nullsEqual {
			return nil, false, nil
		}
		k = types.AppendKey(k, v, u.keyType(rel, i), false)
	}
	return k, true, nil
}

// keyType is the type of u's key i in rows of rel: a column's type in
// rel (a rewrite by ALTER COLUMN ... TYPE checks the converted rows
// against the index), an expression's own.
func (u *uniqueIndex) keyType(rel *catalog.Relation, i int) types.T {
	if c := u.cols[i]; c >= 0 && c < len(rel.Cols) && (i >= len(u.exprs) || u.exprs[i] == nil) {
		return rel.Cols[c].T
	}
	return u.ts[i]
}

// keyText is a row's key in u as PostgreSQL's DETAIL shows it: the
// keys' names and values, "(a, b)=(1, x)".
func (u *uniqueIndex) keyText(rel *catalog.Relation, row types.Row) (string, string) {
	vals, _, _ := u.values(row)
	names := slices.Clone(u.names)
	out := make([]string, len(u.cols))
	for i, c := range u.cols {
		if c >= 0 && c < len(rel.Cols) && (i >= len(u.exprs) || u.exprs[i] == nil) {
			names[i] = rel.Cols[c].Name
		}
		if i >= len(vals) || vals[i].Null {
			out[i] = "null"
		} else {
			out[i] = types.FormatText(vals[i], u.keyType(rel, i), nil)
		}
	}
	return strings.Join(names, ", "), strings.Join(out, ", ")
}

// violation is PostgreSQL's 23505 for a row whose key u already holds.
func (u *uniqueIndex) violation(rel *catalog.Relation, row types.Row) error {
	names, vals := u.keyText(rel, row)
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", u.idx.Name).
		WithDetail("Key (%s)=(%s) already exists.", names, vals).
		WithTable(rel.Schema, rel.Name).WithConstraint(u.idx.Name)
}

// keyStore is where a writer reads and writes key stores.
type keyStore interface {
	getKey(store uint32, key []byte) ([]byte, bool, error)
	putKey(store uint32, key, pk []byte) error
	delKey(store uint32, key []byte) error
}

// uniqueRemove drops the keys row (whose primary key is pk) holds from
// the stores of us.
func uniqueRemove(ks keyStore, us []uniqueIndex, rel *catalog.Relation, row types.Row, pk []byte) error {
	for i := range us {
		key, ok, err := us[i].key(rel, row)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		cur, found, err := ks.getKey(us[i].store, key)
		if err != nil {
			return err
		}
		if found && bytes.Equal(cur, pk) {
			if err := ks.delKey(us[i].store, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniqueAdd records the keys row (whose primary key is pk) holds in the
// stores of us, failing with 23505 when another row holds one.
func uniqueAdd(ks keyStore, us []uniqueIndex, rel *catalog.Relation, row types.Row, pk []byte) error {
	for i := range us {
		key, ok, err := us[i].key(rel, row)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		cur, found, err := ks.getKey(us[i].store, key)
		if err != nil {
			return err
		}
		if found && !bytes.Equal(cur, pk) {
			return us[i].violation(rel, row)
		}
		if err := ks.putKey(us[i].store, key, pk); err != nil {
			return err
		}
	}
	return nil
}

// uniqueChange moves the keys of a row from old to new (primary keys
// oldPK and newPK) in the stores of us: an index whose key and row stay
// the same is left alone (an UPDATE of other columns), others give up
// the old key and take the new one, failing with 23505 when another row
// holds it. With stored, old is the row stored under oldPK now, so each
// of its keys is held by oldPK (the store's invariant) and is given up
// without reading it first: an UPDATE visits each row once, and a key
// its row still holds is taken by no other row meanwhile.
func uniqueChange(ks keyStore, us []uniqueIndex, rel *catalog.Relation, old, new types.Row, oldPK, newPK []byte, stored bool) error {
	if len(us) == 0 {
		return nil
	}
	samePK := bytes.Equal(oldPK, newPK)
	var moved []uniqueIndex
	for i := range us {
		k1, ok1, err := us[i].key(rel, old)
		if err != nil {
			return err
		}
		k2, ok2, err := us[i].key(rel, new)
		if err != nil {
			return err
		}
		if samePK && ok1 == ok2 && bytes.Equal(k1, k2) {
			continue
		}
		moved = append(moved, us[i])
	}
	if len(moved) == 0 {
		return nil
	}
	if stored {
		for i := range moved {
			key, ok, err := moved[i].key(rel, old)
			if err != nil {
				return err
			}
			if ok {
				if err := ks.delKey(moved[i].store, key); err != nil {
					return err
				}
			}
		}
	} else if err := uniqueRemove(ks, moved, rel, old, oldPK); err != nil {
		return err
	}
	return uniqueAdd(ks, moved, rel, new, newPK)
}

// uniqueHolder returns the primary key of the row holding row's key in
// u, if any.
func uniqueHolder(ks keyStore, u *uniqueIndex, rel *catalog.Relation, row types.Row) ([]byte, bool, error) {
	key, ok, err := u.key(rel, row)
	if err != nil || !ok {
		return nil, false, err
	}
	return ks.getKey(u.store, key)
}

// batchKeys serves key stores from a storage batch (a transaction
// block's, read over the committed data).
type batchKeys struct{ b *storage.Batch }

func (k batchKeys) getKey(store uint32, key []byte) ([]byte, bool, error) {
	row, found, err := k.b.Get(store, key, storeTypes)
	if err != nil || !found {
		return nil, false, err
	}
	return []byte(row[0].S), true, nil
}

func (k batchKeys) putKey(store uint32, key, pk []byte) error {
	return k.b.Put(store, key, types.Row{types.DString(string(pk))}, storeTypes)
}

func (k batchKeys) delKey(store uint32, key []byte) error {
	return k.b.Delete(store, key)
}

// overlayKeys serves key stores to a statement outside a transaction
// block: its own changes (nil for a deleted key) over the engine's view,
// written to the view and the epoch by apply.
type overlayKeys struct {
	view *storage.Batch
	own  map[uint32]map[string][]byte
	// held estimates the bytes own holds, counted against the
	// statement's limit (stmtWriter.checkHeld).
	held int64
}

func (k *overlayKeys) getKey(store uint32, key []byte) ([]byte, bool, error) {
	if pk, ok := k.own[store][string(key)]; ok {
		return pk, pk != nil, nil
	}
	return batchKeys{k.view}.getKey(store, key)
}

func (k *overlayKeys) putKey(store uint32, key, pk []byte) error {
	k.set(store, key, append([]byte{}, pk...))
	return nil
}

func (k *overlayKeys) delKey(store uint32, key []byte) error {
	k.set(store, key, nil)
	return nil
}

func (k *overlayKeys) set(store uint32, key, pk []byte) {
	if k.own == nil {
		k.own = map[uint32]map[string][]byte{}
	}
	m := k.own[store]
	if m == nil {
		m = map[string][]byte{}
		k.own[store] = m
	}
	if old, ok := m[string(key)]; ok {
		k.held -= int64(len(old))
	} else {
		k.held += int64(len(key)) + keyEntryBytes
	}
	m[string(key)] = pk
	k.held += int64(len(pk))
}

// keyEntryBytes estimates the memory of one entry of overlayKeys.own
// beyond its key and value bytes: the map's slot, the string and slice
// headers.
const keyEntryBytes = 64

// forget drops the statement's changes to store from memory, once they
// are in the store's spill area.
func (k *overlayKeys) forget(store uint32) {
	for key, pk := range k.own[store] {
		k.held -= int64(len(key)+len(pk)) + keyEntryBytes
	}
	delete(k.own, store)
}

// writeTo writes the statement's key changes into the batches.
func (k *overlayKeys) writeTo(bs ...*storage.Batch) error {
	for store, m := range k.own {
		for key, pk := range m {
			for _, b := range bs {
				var err error
				if pk == nil {
					err = b.Delete(store, []byte(key))
				} else {
					err = batchKeys{b}.putKey(store, []byte(key), pk)
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// storeMarker is the key marking a key store complete.
var storeMarker = []byte{}

// buildUniqueStore fills u's key store from the rows of rel that rows
// yields, into the batches bs, and marks it complete. A key held twice is
// PostgreSQL's 23505 for CREATE UNIQUE INDEX on a table with duplicates.
func buildUniqueStore(rows storage.RowIter, u *uniqueIndex, rel *catalog.Relation, bs ...*storage.Batch) error {
	defer rows.Close()
	seen := map[string]bool{}
	for {
		row, err := rows.Next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		key, ok, err := u.key(rel, row)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if seen[string(key)] {
			names, vals := u.keyText(rel, row)
			return pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s\"", u.idx.Name).
				WithDetail("Key (%s)=(%s) is duplicated.", names, vals).
				WithTable(rel.Schema, rel.Name).WithConstraint(u.idx.Name)
		}
		seen[string(key)] = true
		pk := pkKey(rel, row)
		for _, b := range bs {
			if err := (batchKeys{b}).putKey(u.store, key, pk); err != nil {
				return err
			}
		}
	}
	for _, b := range bs {
		if err := (batchKeys{b}).putKey(u.store, storeMarker, nil); err != nil {
			return err
		}
	}
	return nil
}

// rebuildUniqueStores builds, from the committed rows, the key store of
// every unique index whose store is not marked complete: its CREATE
// committed the index but not the epoch holding the store. Called at
// open, before any job or statement runs, and by a recovery, which
// discards the pending epochs, under writeMu.
func (e *Engine) rebuildUniqueStores() error {
	for _, idx := range e.cat.All() {
		store := idx.UniqueStore()
		if store == 0 {
			continue
		}
		rel, ok := e.indexedRelation(idx)
		if !ok {
			continue
		}
		snap := e.db.NewSnapshot()
		_, done, err := snap.Get(store, storeMarker, storeTypes)
		if err != nil || done {
			snap.Close()
			if err != nil {
				return err
			}
			continue
		}
		var u *uniqueIndex
		for _, x := range e.uniqueIndexes(rel) {
			if x.idx.ID == idx.ID {
				u = &x
			}
		}
		if u == nil {
			snap.Close()
			continue
		}
		b := e.db.NewWriteBatch()
		err = b.DeleteRange(store)
		if err == nil {
			err = buildUniqueStore(snap.Scan(rel.ID, relTypes(rel)), u, rel, b)
		}
		snap.Close()
		if err == nil {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			return err
		}
		e.log.Info("rebuilt the key store of a unique index", "index", idx.Name)
	}
	return nil
}

// uniqueOf returns the unique indexes of rel through the writer's cache
// m (nil when rel has none).
func (e *Engine) uniqueOf(m *map[uint32][]uniqueIndex, rel *catalog.Relation) []uniqueIndex {
	if us, ok := (*m)[rel.ID]; ok {
		return us
	}
	if *m == nil {
		*m = map[uint32][]uniqueIndex{}
	}
	us := e.uniqueIndexes(rel)
	(*m)[rel.ID] = us
	return us
}

// createTableUnique runs CREATE TABLE with UNIQUE constraints: the table,
// then each constraint's unique index, as PostgreSQL does (its indexes
// are named <table>_<columns>_key unless the constraint is named).
func (s *Session) createTableUnique(ctx context.Context, st *sql.CreateTable, text string, io wire.ExecIO) (wire.Result, error) {
	if st.With["connector"] != "" || st.Format != "" || len(st.Include) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "UNIQUE constraints on a table whose rows come from a connector are not supported")
	}
	for _, u := range st.Uniques {
		for _, c := range u.Cols {
			if !slices.ContainsFunc(st.Columns, func(d sql.ColumnDef) bool { return d.Name == c }) && st.AsQuery == nil {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", c).WithPosition(u.Pos)
			}
		}
	}
	if _, ok := s.eng.cat.Lookup(s.schemaOf(st.Name), st.Name.Name); ok && st.IfNotExists {
		io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", st.Name.Name))
		return done("CREATE TABLE")
	}
	plain := *st
	plain.Uniques, plain.ForeignKeys = nil, nil
	res, err := s.createTable(ctx, &plain, text, io)
	if err != nil {
		return nil, err
	}
	for _, u := range st.Uniques {
		ci := &sql.CreateIndex{Name: u.Name, Rel: st.Name, Unique: true, Constraint: true, NullsNotDistinct: u.NullsNotDistinct}
		for _, c := range u.Cols {
			ci.Cols = append(ci.Cols, sql.IndexColumn{Name: c})
		}
		if _, err := s.createIndex(ctx, ci, io); err != nil {
			return nil, err
		}
	}
	if len(st.ForeignKeys) > 0 {
		if err := s.createTableForeignKeys(ctx, st); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// conflicting returns the primary key of the row holding row's key in
// the unique index index of rel, if any.
func (e *Engine) conflicting(ks keyStore, m *map[uint32][]uniqueIndex, rel *catalog.Relation, row types.Row, index uint32) ([]byte, bool, error) {
	for _, u := range e.uniqueOf(m, rel) {
		if u.idx.ID == index {
			return uniqueHolder(ks, &u, rel, row)
		}
	}
	return nil, false, nil
}

// Conflicting implements executor.Writer.
func (w *stmtWriter) Conflicting(relID uint32, row types.Row, index uint32) (types.Row, bool, error) {
	tc, err := w.table(relID)
	if err != nil {
		return nil, false, err
	}
	row = widen(tc.rel, row, nil)
	pk, found, err := w.eng.conflicting(&w.keys, &w.uniq, tc.rel, row, index)
	if err != nil || !found {
		return nil, false, err
	}
	return w.current(tc)(pk)
}

// Conflicting implements executor.Writer.
func (w *batchWriter) Conflicting(relID uint32, row types.Row, index uint32) (types.Row, bool, error) {
	rel, err := w.rel(relID)
	if err != nil {
		return nil, false, err
	}
	row = widen(rel, row, nil)
	pk, found, err := w.eng.conflicting(batchKeys{w.batch}, &w.uniq, rel, row, index)
	if err != nil || !found {
		return nil, false, err
	}
	if err := w.touch(rel, pk); err != nil {
		return nil, false, err
	}
	return w.batch.Get(relID, pk, relTypes(rel))
}
