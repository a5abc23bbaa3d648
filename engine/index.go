package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// An index is a streaming job like a materialized view, of the query
// SELECT key columns, INCLUDE columns FROM rel: the stream planner keeps
// the relation's primary key (or stream key) with them as hidden
// columns, and stores the index keyed by its key columns and then that
// key (catalog.KindIndex), so that a prefix of index values is a range
// of keys. It is backfilled from the relation's rows and then follows its
// changelog, committed with it at every checkpoint, so a snapshot shows
// both at the same epoch. Batch queries read it (planner.UseIndexes).

// createIndex runs CREATE INDEX: it checks the statement, records the
// index in the catalog and starts its job, and returns once the backfill
// from the relation's rows is committed, as CREATE MATERIALIZED VIEW
// does.
func (s *Session) createIndex(ctx context.Context, st *sql.CreateIndex, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE INDEX"); err != nil {
		return nil, err
	}
	e := s.eng
	if st.Using != "" && !strings.EqualFold(st.Using, "btree") {
		switch strings.ToLower(st.Using) {
		case "hash", "gist", "gin", "spgist", "brin":
			return nil, pgerr.New(pgerr.FeatureNotSupported, "access method \"%s\" is not supported", st.Using).
				WithHint("Only btree indexes are supported.")
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "access method \"%s\" does not exist", st.Using)
	}
	if len(st.With) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "index storage parameters (WITH) are not supported")
	}
	if err := s.systemCatalogError(st.Rel); err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	// The index backfills from the relation, which must not be half built.
	if err := e.awaitReadable(ctx, nil); err != nil {
		return nil, err
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	j, created, err := s.addIndexLocked(ctx, st, io)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	if created && j != nil {
		if err := e.launch(ctx, j, io, true); err != nil {
			return nil, err
		}
		e.log.Info("created index", "name", j.rel.Name, "id", j.rel.ID)
	}
	if st.Constraint {
		// ALTER TABLE ... ADD UNIQUE (CREATE TABLE ignores this).
		return done("ALTER TABLE")
	}
	return done("CREATE INDEX")
}

// addIndexLocked checks CREATE INDEX against the catalog and creates the
// index's relation and job (not yet added), or reports false when IF NOT
// EXISTS found the name taken. Called under writeMu.
func (s *Session) addIndexLocked(ctx context.Context, st *sql.CreateIndex, io wire.ExecIO) (*jobRun, bool, error) {
	e := s.eng
	schema := s.schemaOf(st.Rel)
	rel, ok := e.cat.Lookup(schema, st.Rel.Name)
	if !ok {
		// PostgreSQL names the relation as written, its schema too.
		name := st.Rel.Name
		if st.Rel.Schema != "" {
			name = st.Rel.Schema + "." + name
		}
		return nil, false, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindMView {
		return nil, false, pgerr.New(pgerr.WrongObjectType, "cannot create index on relation \"%s\"", rel.Name).
			WithDetail("This operation is not supported for %ss.", kindWords[rel.Kind])
	}
	if st.Unique && rel.Kind != catalog.KindTable {
		// Its rows come from its job, which no unique check can stop.
		return nil, false, pgerr.New(pgerr.FeatureNotSupported, "unique indexes on %ss are not supported", kindWords[rel.Kind])
	}
	if st.Unique && planner.HasConnector(rel) {
		return nil, false, pgerr.New(pgerr.FeatureNotSupported, "unique indexes on a table whose rows come from a connector are not supported")
	}
	colOf := func(name string) (catalog.Column, error) {
		for _, c := range rel.Cols {
			if c.Name == name && !c.Hidden {
				return c, nil
			}
		}
		return catalog.Column{}, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
	}
	keyType := func(t types.T) error {
		switch t.ID {
		case types.Json:
			// json has no equality, so PostgreSQL has no index for it.
			return pgerr.New(pgerr.UndefinedObject, "data type json has no default operator class for access method \"btree\"").
				WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
		case types.Jsonb:
			return pgerr.New(pgerr.FeatureNotSupported, "a jsonb column cannot be an index key").
				WithHint("Put it in INCLUDE (...) instead.")
		}
		return nil
	}
	// The predicate is bound first, as PostgreSQL's transformIndexStmt
	// does: its errors come before the keys'.
	if st.Where != "" {
		if _, err := planner.BindIndexPredicate(ctx, rel, st.Where, st.WherePos, s.catalogView()); err != nil {
			return nil, false, err
		}
	}
	// keys are the names of the index's key columns: a column's own, or
	// the name PostgreSQL gives an expression (made unique among them);
	// exprs the key expressions as written ("" for a column), and items
	// the index query's select list.
	var keys, desc, nulls, exprs, items []string
	// order notes key column len(keys)-1's direction and NULLS
	// placement.
	order := func(c sql.IndexColumn) {
		k := strconv.Itoa(len(keys) - 1)
		if c.Desc {
			desc = append(desc, k)
		}
		if c.Desc && c.NullsLast || !c.Desc && c.NullsFirst {
			nulls = append(nulls, k)
		}
	}
	hasExpr := false
	// An expression's name is also kept apart from the columns the
	// index lists, which the index's columns name as the table does.
	var plain []string
	for _, c := range st.Cols {
		if c.Expr == "" {
			plain = append(plain, c.Name)
		}
	}
	for _, c := range st.Cols {
		if c.Expr != "" {
			x, err := planner.BindIndexExpr(ctx, rel, c.Expr, c.ExprPos, s.catalogView())
			if err != nil {
				return nil, false, err
			}
			if call, ok := x.(*planner.Call); ok && call.Fn == functions.CollateFn {
				// PostgreSQL takes it for the key's collation, which
				// weir's indexes do not have.
				return nil, false, pgerr.New(pgerr.FeatureNotSupported, "COLLATE in an index column is not supported yet").WithPosition(c.ExprPos)
			}
			if ref, ok := x.(*planner.ColRef); ok {
				// (col) is the column itself, as in PostgreSQL.
				c = sql.IndexColumn{Name: rel.Cols[ref.Idx].Name, Desc: c.Desc, NullsFirst: c.NullsFirst, NullsLast: c.NullsLast}
			} else {
				if err := keyType(x.Type()); err != nil {
					return nil, false, err
				}
				name := uniqueIndexColumnName(planner.IndexColumnName(c.Expr), append(slices.Clone(keys), plain...))
				keys = append(keys, name)
				exprs = append(exprs, c.Expr)
				items = append(items, "("+c.Expr+") AS "+sql.QuoteIdent(name))
				order(c)
				hasExpr = true
				continue
			}
		}
		col, err := colOf(c.Name)
		if err != nil {
			return nil, false, err
		}
		if err := keyType(col.T); err != nil {
			return nil, false, err
		}
		if slices.Contains(keys, c.Name) {
			// PostgreSQL accepts a column twice; its second copy adds
			// nothing to the order.
			continue
		}
		keys = append(keys, c.Name)
		exprs = append(exprs, "")
		items = append(items, sql.QuoteIdent(c.Name))
		order(c)
	}
	cols := slices.Clone(keys)
	for _, name := range st.Include {
		if _, err := colOf(name); err != nil {
			return nil, false, err
		}
		if slices.Contains(cols, name) {
			continue
		}
		cols = append(cols, name)
		items = append(items, sql.QuoteIdent(name))
	}
	name := st.Name
	if name == "" {
		suffix := "idx"
		if st.Constraint {
			suffix = "key"
		}
		// PostgreSQL's name lists the INCLUDE columns too.
		name = e.indexName(schema, rel.Name, cols, suffix)
	}
	if _, ok := e.cat.Lookup(schema, name); ok {
		if st.IfNotExists {
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", name))
			return nil, false, nil
		}
		return nil, false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	text := "SELECT " + strings.Join(items, ", ") + " FROM " + sql.QuoteIdent(rel.Schema) + "." + sql.QuoteIdent(rel.Name)
	if st.Where != "" {
		text += " WHERE " + st.Where
	}
	q, err := parseQuery(text)
	if err != nil {
		return nil, false, err
	}
	// An index on an unpopulated view is unpopulated, built by the
	// view's REFRESH.
	cv := &sql.CreateView{Name: sql.ObjectName{Schema: schema, Name: name}, Materialized: true, Query: q, QueryText: text, NoData: rel.Unpopulated}
	extra := map[string]string{catalog.IndexKeysOption: strconv.Itoa(len(keys))}
	if len(desc) > 0 {
		extra[catalog.IndexDescOption] = strings.Join(desc, ",")
	}
	if len(nulls) > 0 {
		extra[catalog.IndexNullsOption] = strings.Join(nulls, ",")
	}
	if hasExpr {
		b, err := json.Marshal(exprs)
		if err != nil {
			return nil, false, err
		}
		extra[catalog.IndexExprsOption] = string(b)
	}
	if st.Where != "" {
		extra[catalog.IndexPredicateOption] = st.Where
	}
	pos := make([]int, len(keys))
	for i, k := range keys {
		pos[i] = -1
		if exprs[i] == "" {
			pos[i] = slices.IndexFunc(rel.Cols, func(c catalog.Column) bool { return c.Name == k && !c.Hidden })
		}
	}
	if !st.Unique {
		if hasExpr || st.Where != "" {
			// The keys of the rows there are computed now, as
			// PostgreSQL's build does: one failing (a division by
			// zero) fails CREATE INDEX, where the index's job would
			// store NULL.
			u := e.newUniqueIndex(&catalog.Relation{Name: name, Kind: catalog.KindIndex, With: extra}, rel, 0, pos)
			if err := u.computeAll(e.st.view.Scan(rel.ID, relTypes(rel))); err != nil {
				return nil, false, err
			}
		}
		return s.addMViewLocked(cv, catalog.KindIndex, extra, io)
	}
	// The key store is built from the table's rows (committed and
	// pending: the statement holds writeMu) before the index exists, so
	// that duplicates leave nothing behind; it is written with the open
	// epoch, which commits it with the rows it describes.
	store, err := e.cat.NextStateTableID()
	if err != nil {
		return nil, false, err
	}
	u := e.newUniqueIndex(&catalog.Relation{Name: name, Kind: catalog.KindIndex, With: extra}, rel, store, pos)
	if u.err != nil {
		return nil, false, u.err
	}
	u.nullsEqual = st.NullsNotDistinct
	tmp := e.db.NewBatch()
	defer tmp.Close()
	if err := buildUniqueStore(e.st.view.Scan(rel.ID, relTypes(rel)), u, rel, tmp); err != nil {
		return nil, false, err
	}
	extra[catalog.IndexUniqueOption] = "true"
	extra[catalog.UniqueStoreOption] = strconv.FormatUint(uint64(store), 10)
	if st.Constraint {
		extra[catalog.IndexConstraintOption] = "true"
	}
	if st.NullsNotDistinct {
		extra[catalog.IndexNullsNotDistinctOption] = "true"
	}
	j, created, err := s.addMViewLocked(cv, catalog.KindIndex, extra, io)
	if err != nil || !created {
		return j, created, err
	}
	// Writes the redo log does not hold (redo.go).
	e.st.cur.unlogged = true
	for _, b := range []*storage.Batch{e.st.view, e.st.cur.batch} {
		if err := b.Apply(tmp); err != nil {
			return nil, false, err
		}
	}
	return j, created, nil
}

// dropPendingKeys removes the key store of rel, when it is a unique
// index, from the changes not yet committed, which would otherwise
// write it again after a drop. Called under writeMu.
func (e *Engine) dropPendingKeys(rel *catalog.Relation) {
	if st := rel.UniqueStore(); st != 0 {
		e.st.cur.unlogged = true
		_ = e.st.cur.batch.DeleteRange(st)
		_ = e.st.view.DeleteRange(st)
	}
}

// uniqueIndexColumnName is PostgreSQL's ChooseIndexColumnNames for one
// column: name, or name followed by 1, 2, ... (cut to fit in 63 bytes)
// when taken holds it.
func uniqueIndexColumnName(name string, taken []string) string {
	const maxIdent = 63
	cur := name
	for i := 1; slices.Contains(taken, cur); i++ {
		n := strconv.Itoa(i)
		base := name
		for len(base)+len(n) > maxIdent {
			_, size := lastRune(base)
			base = base[:len(base)-size]
		}
		cur = base + n
	}
	return cur
}

// indexName is the name PostgreSQL gives an index created without one:
// the relation's name, the key and INCLUDE columns' and suffix ("idx", or "key" for
// a UNIQUE constraint's), joined by "_", with a number after the suffix
// when the name is taken (t_b_idx, t_b_idx1, ...).
func (e *Engine) indexName(schema, rel string, keys []string, suffix string) string {
	base := rel + "_" + strings.Join(keys, "_") + "_" + suffix
	const maxIdent = 63
	for i := 0; ; i++ {
		suffix := ""
		if i > 0 {
			suffix = strconv.Itoa(i)
		}
		name := base
		if len(name)+len(suffix) > maxIdent {
			name = name[:maxIdent-len(suffix)]
		}
		name += suffix
		if _, ok := e.cat.Lookup(schema, name); !ok {
			return name
		}
	}
}

// useIndexes returns b's plan reading through keys where they serve its
// filters (planner.UseIndexes): the primary keys and indexes of the
// relations it reads. A DML statement's reads must see the changes still
// on their way to the indexes: its source reads an index only when none
// is pending for its table, and scans the table otherwise
// (viewSource.IndexUsable).
func (e *Engine) useIndexes(b *planner.Bound) planner.Plan {
	return planner.UseIndexes(b.Plan, e.scanIndexesOf)
}

// scanIndexesOf returns the indexes on relation relID a scan may read
// in its place: a partial index lacks the rows its predicate excludes,
// which a query's filters would have to be shown to exclude too, so
// none is offered.
func (e *Engine) scanIndexesOf(relID uint32) []*catalog.Relation {
	all := e.indexesOf(relID)
	out := all[:0:0]
	for _, d := range all {
		if d.IndexPredicate() == "" {
			out = append(out, d)
		}
	}
	return out
}

// indexesOf returns the indexes on relation relID, for the planner
// (planner.UseIndexes).
func (e *Engine) indexesOf(relID uint32) []*catalog.Relation {
	rel, ok := e.cat.ByID(relID)
	if !ok {
		return nil
	}
	var out []*catalog.Relation
	for _, d := range e.cat.Dependents(relID) {
		if d.Kind != catalog.KindIndex {
			continue
		}
		// The planner matches the index's columns to the relation's by
		// position: the index names them as the relation did when it
		// was created (or when ALTER TABLE pinned it).
		names, pinned := d.DepCols[relID]
		if !pinned {
			names = make([]string, len(rel.Cols))
			for i, c := range rel.Cols {
				names[i] = c.Name
			}
		}
		pos := make([]string, len(d.Cols))
		exprs := d.IndexExprs()
		for i, c := range d.Cols {
			if i < len(exprs) && exprs[i] != "" {
				// A key expression is no column of the relation.
				pos[i] = "-1"
				continue
			}
			pos[i] = strconv.Itoa(slices.Index(names, c.Name))
		}
		cp := d.Clone()
		if cp.With == nil {
			cp.With = map[string]string{}
		}
		cp.With[catalog.IndexPositionsOption] = strings.Join(pos, ",")
		out = append(out, cp)
	}
	return out
}

// indexTexts returns the key expressions and predicate of index idx on
// relation on as pg_get_indexdef prints them, naming on's columns as
// they are called now; an expression that no longer binds is shown as
// written.
func (e *Engine) indexTexts(idx, on *catalog.Relation, pretty bool) syscat.IndexTexts {
	var x syscat.IndexTexts
	if idx.PlainIndex() {
		return x
	}
	ctx, calls := planner.WithCalls(context.Background())
	exprs, pred, err := e.bindIndexRules(ctx, idx, on)
	if err != nil {
		for _, t := range idx.IndexExprs() {
			if t != "" {
				t = "(" + t + ")"
			}
			x.Keys = append(x.Keys, t)
		}
		if p := idx.IndexPredicate(); p != "" {
			x.Pred = "(" + p + ")"
		}
		return x
	}
	for _, k := range exprs {
		if k == nil {
			x.Keys = append(x.Keys, "")
			continue
		}
		x.Keys = append(x.Keys, calls.IndexExprText(on, k, pretty))
	}
	if pred != nil {
		x.Pred = calls.RowExprText(on, pred, pretty)
	}
	return x
}

// indexedRelation returns the relation index idx is on.
func (e *Engine) indexedRelation(idx *catalog.Relation) (*catalog.Relation, bool) {
	if len(idx.Deps) != 1 {
		return nil, false
	}
	return e.cat.ByID(idx.Deps[0])
}
