package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// An ALTER TABLE with several actions, or with ALTER COLUMN ... TYPE,
// runs as PostgreSQL's does (tablecmds.c):
//
//   - The TYPE actions are prepared first, in statement order: each
//     finds its column and binds its transform expression (USING, or the
//     column with the assignment cast) against the table as it is.
//   - The actions then run by PostgreSQL's passes, in statement order
//     within a pass: the drops (DROP COLUMN, DROP DEFAULT, DROP NOT
//     NULL), TYPE, ADD COLUMN, SET NOT NULL, SET DEFAULT. So ADD COLUMN x
//     and DROP COLUMN x in one statement fail at the DROP, and ADD COLUMN
//     x then ALTER x SET NOT NULL works. Each runs against the table as
//     the earlier ones left it, in memory: nothing is written until all
//     have passed their checks, so any error leaves the table unchanged.
//   - NOT NULL is verified last, against the rows as they will be.
//
// Without TYPE the change is the catalog's alone (alter_table.go),
// unless a column is added with a volatile DEFAULT to a table with rows:
// each row then takes a value of its own, computed as the row is
// rewritten. TYPE changes how the column's values are encoded, so every
// row is rewritten: under writeMu, once no pending epoch holds writes of the
// table (drainTable), the rows are read a chunk at a time, converted
// and written into a spill area of the table (storage.Area, flushed to
// Pebble every megabyte, so memory stays bounded), and one durable
// batch commits the area's mark with the catalog's new entry; its
// commit moves the area into the table (storage.Batch.Commit) and
// Open's recovery finishes a move a crash interrupted. A conversion
// error discards the area. Indexes on a converted column are dropped
// before and built again after, from their definitions (a first,
// discarded conversion makes sure the rows convert, and repeat no key
// of a unique index, while they stand). The batch dropping them records
// their definitions in the table's entry (catalog.Relation.Rebuild),
// the rewrite's commit keeps them there, and they leave it once every
// index is back in the catalog; Open builds those a crash left listed,
// so a crash at any point leaves the table with its indexes, of the old
// type or the new. A change of the
// primary key's type builds every index of the table again: each
// carries the key. Views, materialized views and sinks reading the
// column refuse the change, as PostgreSQL's views do.

// alterPass orders the actions of one ALTER TABLE as PostgreSQL's
// AT_PASS_* do.
func alterPass(action string) int {
	switch action {
	case "drop column", "drop default", "drop not null":
		return 0
	case "set type":
		return 1
	case "add column":
		return 4
	case "set not null":
		return 6
	case "set default":
		return 9
	}
	return 10
}

// alterPlan is the outcome of an ALTER TABLE's actions, computed without
// changing anything.
type alterPlan struct {
	up *catalog.Relation
	// conv holds, per converted column of up (or column added with a
	// volatile DEFAULT), its new value computed from a stored row of the
	// table as it was.
	conv map[int]planner.Expr
	// rebuild are the indexes on converted columns.
	rebuild []*catalog.Relation
	// unique are the unique indexes among rebuild, whose keys the
	// converted rows must not repeat (convertRows).
	unique []uniqueIndex
	// pin is set when columns were added (replaceTable).
	pin bool
	// notNull are the columns whose NOT NULL the rows must be checked
	// against (the catalog-only change).
	notNull []int
	// rekey is set by ADD PRIMARY KEY: every row is written again under
	// its new key.
	rekey bool
}

// alterActions runs an ALTER TABLE with several actions or with ALTER
// COLUMN ... TYPE. ddlMu is held.
func (s *Session) alterActions(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	acts := append([]*sql.AlterTable{st}, st.More...)
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	// Notices go out as the actions run, before an error of a later one,
	// as PostgreSQL sends them.
	p, err := s.planAlter(ctx, rel, acts, func(code, msg string) { io.Notice("NOTICE", code, msg) })
	if err != nil {
		e.writeMu.Unlock()
		return nil, err
	}
	if len(p.conv) == 0 && !p.rekey {
		defer e.writeMu.Unlock()
		if err := e.checkNotNull(ctx, rel, p); err != nil {
			return nil, err
		}
		if p.pin {
			m, _ := p.up.MissingRow()
			e.db.SetMissing(rel.ID, m)
		}
		return e.replaceTable(rel, p.up, p.pin)
	}
	p.unique, err = e.rebuiltUnique(rel, p.up, p.rebuild)
	if err != nil {
		e.writeMu.Unlock()
		return nil, err
	}
	if len(p.rebuild) > 0 {
		// Indexes on converted columns are dropped before the rewrite:
		// a row that does not convert, or two rows a unique index would
		// hold under one key, must fail the statement while they still
		// stand.
		a, err := s.convertRows(ctx, rel, p)
		if err != nil {
			e.writeMu.Unlock()
			return nil, err
		}
		if err := a.Discard(); err != nil {
			e.writeMu.Unlock()
			return nil, err
		}
	}
	e.writeMu.Unlock()
	// Indexes on converted columns are dropped now and built again from
	// their definitions once the rows are rewritten, or restored if the
	// rewrite fails. Their definitions go into the table's entry in the
	// batch that drops them, and leave it once they are all back: a
	// crash in between leaves them for Open to build (buildPending).
	if len(p.rebuild) > 0 {
		marked := rel.Clone()
		for _, idx := range p.rebuild {
			r, err := e.indexRebuild(rel, idx)
			if err != nil {
				return nil, err
			}
			marked.Rebuild = append(marked.Rebuild, r)
		}
		order, err := e.dropOrder(p.rebuild, true, func(*catalog.Relation) {})
		if err != nil {
			return nil, err
		}
		if err := e.dropReplacing(ctx, order, []*catalog.Relation{marked}); err != nil {
			return nil, err
		}
		fault.Hit(fault.AlterIndexesDropped)
	}
	res, err := s.rewriteTable(ctx, rel.ID, acts, p.unique)
	if err == nil {
		fault.Hit(fault.AlterCommitted)
	}
	// The indexes come back whatever ended the rewrite, a cancel or
	// statement_timeout included: once it committed the statement has
	// happened, and if it did not the table must be as before.
	if ierr := s.buildPending(context.WithoutCancel(ctx), rel.ID, io, true); ierr != nil && err == nil {
		err = ierr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// buildPending builds the indexes the entry of table id lists to build
// again (catalog.Relation.Rebuild) that the catalog does not hold yet,
// then clears the list. ALTER COLUMN ... TYPE calls it once the rows are
// rewritten, waiting for each backfill; Open calls it for a table an
// ALTER left so when the server stopped, without waiting: each index is
// then in the catalog, its job backfilling as after a restart during
// CREATE INDEX, and reads wait for it (awaitReadable). The first error
// is returned, the list left for the next Open. ddlMu is held.
func (s *Session) buildPending(ctx context.Context, id uint32, io wire.ExecIO, backfill bool) error {
	e := s.eng
	rel, ok := e.cat.ByID(id)
	if !ok || len(rel.Rebuild) == 0 {
		return nil
	}
	var firstErr error
	for k, r := range rel.Rebuild {
		st, err := sql.ParseDefinition(r.SQL)
		ci, ok := st.(*sql.CreateIndex)
		if err != nil || !ok {
			return pgerr.New(pgerr.DataCorrupted, "bad definition of an index to build again on \"%s\": %s", rel.Name, r.SQL)
		}
		ci.Unique, ci.Constraint, ci.NullsNotDistinct = r.Unique, r.Constraint, r.NullsNotDistinct
		if _, built := e.cat.Lookup(rel.Schema, ci.Name); built {
			// Built before a crash: only this ALTER could have taken
			// the name since it dropped the index.
			continue
		}
		if err := s.buildIndex(ctx, ci, io, backfill); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if k == 0 {
			fault.Hit(fault.AlterIndexRebuilt)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	cur, ok := e.cat.ByID(id)
	if !ok {
		return nil
	}
	up := cur.Clone()
	up.Rebuild = nil
	if err := e.cat.Replace(up); err != nil {
		return err
	}
	e.refreshJobRels()
	return nil
}

// buildPendingAtOpen builds the indexes an ALTER COLUMN ... TYPE
// interrupted by a crash had dropped (buildPending), before the engine
// serves any statement.
func (e *Engine) buildPendingAtOpen() error {
	var ids []uint32
	for _, rel := range e.cat.All() {
		if len(rel.Rebuild) > 0 {
			ids = append(ids, rel.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	s := e.internalSession()
	for _, id := range ids {
		if err := s.buildPending(ctx, id, quietIO{}, false); err != nil {
			return err
		}
		e.log.Info("built the indexes an interrupted ALTER TABLE had dropped", "table_id", id)
	}
	return nil
}

// rewriteTable plans the actions again once no pending epoch writes the
// table, and rewrites its rows. ddlMu is held, writeMu not.
// unique are the unique indexes to build again, dropped by now, whose
// keys the new rows must not repeat.
func (s *Session) rewriteTable(ctx context.Context, id uint32, acts []*sql.AlterTable, unique []uniqueIndex) (wire.Result, error) {
	e := s.eng
	// A backfill reads the table's committed rows as its plan typed
	// them: none may be under way while they change encoding (a view
	// may read the table through others, so all are awaited).
	if err := e.awaitReadable(ctx, nil); err != nil {
		return nil, err
	}
	if err := e.drainTable(ctx, id); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	rel, ok := e.cat.ByID(id)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", id)
	}
	p, err := s.planAlter(ctx, rel, acts, func(string, string) {})
	if err != nil {
		return nil, err
	}
	p.unique = unique
	a, err := s.convertRows(ctx, rel, p)
	if err != nil {
		return nil, err
	}
	fault.Hit(fault.AlterRewritten)
	committed := false
	defer func() {
		if !committed {
			_ = a.Discard()
		}
	}()
	// Reads take their snapshots and check their plans' types against
	// the catalog under rewriteMu: none sees the new rows with the old
	// types or the reverse.
	e.rewriteMu.Lock()
	res, err := e.replaceTableWith(rel, p.up, p.pin, func(b *storage.Batch) error {
		committed = true
		return b.CommitArea(a, 0)
	})
	e.rewriteMu.Unlock()
	if err != nil {
		if pgerr.CodeOf(err) == pgerr.SerializationFailure {
			// Refused before the commit (storage.Batch.Commit): a
			// recovery cut the area short.
			_ = a.Discard()
		}
		return nil, err
	}
	// Every row now holds every column: the missing values matter only
	// to rows that are no more, but stay registered as the catalog has
	// them.
	if m, ok := p.up.MissingRow(); ok {
		e.db.SetMissing(rel.ID, m)
	}
	return res, nil
}

// drainTable returns, holding writeMu, once no pending epoch holds
// writes of table id: the rewrite reads the committed rows and replaces
// them, so no write of the old encoding may commit after it.
func (e *Engine) drainTable(ctx context.Context, id uint32) error {
	for {
		if err := e.writeMu.lockContext(ctx); err != nil {
			return err
		}
		busy, err := e.st.view.HasWrites(id)
		if err != nil || !busy {
			if err != nil {
				e.writeMu.Unlock()
			}
			return err
		}
		pe := e.st.cur
		e.writeMu.Unlock()
		if err := e.waitCommitted(ctx, pe); err != nil {
			return err
		}
	}
}

// planAlter checks the actions against rel, in PostgreSQL's order, and
// returns what they make of it; notice gets the notices of the actions
// IF [NOT] EXISTS skips. writeMu is held.
func (s *Session) planAlter(ctx context.Context, rel *catalog.Relation, acts []*sql.AlterTable, notice func(code, msg string)) (*alterPlan, error) {
	e := s.eng
	p := &alterPlan{up: rel.Clone(), conv: map[int]planner.Expr{}}
	// Prepare the TYPE actions, in statement order.
	for _, a := range acts {
		if a.Action != "set type" {
			continue
		}
		i := visibleColumn(rel, a.Column)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a.Column, rel.Name)
		}
		if _, twice := p.conv[i]; twice {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of column \"%s\" twice", a.Column)
		}
		if a.CollateErr != nil {
			return nil, a.CollateErr
		}
		x, err := planner.BindTransform(ctx, rel, i, a.Type.T, a.Using, a.UsingPos, s.catalogView())
		if err != nil {
			return nil, err
		}
		p.conv[i] = x
		if d := e.lookupJoinReader(rel.ID); d != nil {
			// Its join reads the table's stored rows whole, as they are
			// encoded when it looks them up.
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column of a table a lookup join reads").
				WithDetail("%s %s reads table %s FOR SYSTEM_TIME AS OF PROCTIME()", kindWords[d.Kind], d.Name, rel.Name)
		}
	}
	sorted := slices.Clone(acts)
	slices.SortStableFunc(sorted, func(a, b *sql.AlterTable) int { return alterPass(a.Action) - alterPass(b.Action) })
	var hasRows *bool
	rows := func() (bool, error) {
		if hasRows == nil {
			v, err := e.anyRow(ctx, rel, func(types.Row) bool { return true })
			if err != nil {
				return false, err
			}
			hasRows = &v
		}
		return *hasRows, nil
	}
	up := p.up
	for _, a := range sorted {
		var i int
		if a.Action == "add primary key" {
			if err := s.planAddPrimaryKey(rel, p, up, a); err != nil {
				return nil, err
			}
			continue
		}
		if a.Action != "add column" {
			if i = visibleColumn(up, a.Column); i < 0 {
				if a.Action == "drop column" && a.IfColumn {
					notice("00000", fmt.Sprintf("column \"%s\" of relation \"%s\" does not exist, skipping", a.Column, rel.Name))
					continue
				}
				return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a.Column, rel.Name)
			}
		}
		switch a.Action {
		case "drop column":
			if slices.Contains(up.PK, i) {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %s of table %s: it is part of the table's primary key", a.Column, rel.Name).
					WithDetail("weir stores a table's rows by its primary key and cannot key them anew.").
					WithHint("Create a table without the column and copy the rows into it.")
			}
			if err := watermarkColumn(up, a.Column, "drop"); err != nil {
				return nil, err
			}
			if readers := e.columnReaders(rel, up, i); len(readers) > 0 {
				if err := dropBlocked(rel, a.Column, readers); err != nil && !a.Cascade {
					return nil, err
				}
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %s of table %s together with other actions: objects depend on it", a.Column, rel.Name).
					WithHint("Drop the column with an ALTER TABLE of its own.")
			}
			delete(p.conv, i)
			next := droppedColumn(up, i)
			if err := s.rulesOnDropColumn(ctx, up, next, i, a.Cascade); err != nil {
				return nil, err
			}
			up = next
		case "drop default":
			up.Cols[i].Default = ""
		case "drop not null":
			col := up.Cols[i]
			if slices.Contains(up.PK, i) {
				return nil, pgerr.New(pgerr.InvalidTableDefinition, "column \"%s\" is in a primary key", col.Name)
			}
			if col.Identity != "" {
				return nil, pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", col.Name, rel.Name)
			}
			up.Cols[i].NotNull = false
		case "set type":
			if err := s.checkTypeChange(ctx, rel, up, i, a); err != nil {
				return nil, err
			}
			for _, d := range e.columnReaders(rel, up, i) {
				if d.Kind == catalog.KindIndex {
					if !slices.ContainsFunc(p.rebuild, func(r *catalog.Relation) bool { return r.ID == d.ID }) {
						p.rebuild = append(p.rebuild, d)
					}
					continue
				}
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a view or rule").
					WithDetail("%s depends on column \"%s\"", dependentWords(d), a.Column)
			}
			if slices.Contains(up.PK, i) {
				// Every index carries the primary key of the rows it
				// indexes (and a unique index's key store maps its keys
				// to them), in the key's old type: all are built again.
				for _, d := range e.indexesOf(rel.ID) {
					if !slices.ContainsFunc(p.rebuild, func(r *catalog.Relation) bool { return r.ID == d.ID }) {
						p.rebuild = append(p.rebuild, d)
					}
				}
			}
			up.Cols[i].T = a.Type.T
			up.Cols[i].Domain = 0 // no longer of a domain type
			up.Cols[i].Missing = nil
			// The action's COLLATE, or the new type's default collation
			// when it names none, as in PostgreSQL.
			up.Cols[i].Collation = a.Collation
		case "add column":
			def := a.Def
			if existingColumn(up, def.Name) >= 0 {
				if a.IfColumn {
					notice("42701", fmt.Sprintf("column \"%s\" of relation \"%s\" already exists, skipping", def.Name, rel.Name))
					continue
				}
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", def.Name, rel.Name)
			}
			if def.Serial || def.Identity != "" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of a serial or identity column is not supported").
					WithHint("Add an integer column and fill it with UPDATE.")
			}
			if def.CollateErr != nil {
				return nil, def.CollateErr
			}
			col := catalog.Column{Name: def.Name, T: def.Type.T, Domain: def.Type.Domain, DomainArray: def.Type.DomainArray, NotNull: def.NotNull, Default: def.Default, Added: true, Collation: def.Collation}
			if col.Domain != 0 {
				if nonEmpty, err := rows(); err != nil {
					return nil, err
				} else if nonEmpty {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of a domain type together with other actions, or with a volatile default, is not supported on a table that has rows").
						WithHint("Add the column with an ALTER TABLE of its own.")
				}
			}
			if def.Generated != "" {
				// A stored generated column: each row written
				// before takes its value, computed as the row is
				// rewritten. PostgreSQL's errors for the
				// expression carry no position here.
				col.Generated = def.Generated
				with := up.Clone()
				with.Cols = append(with.Cols, col)
				x, err := planner.BindGenerated(ctx, with, len(up.Cols), def.Generated, 0, s.catalogView())
				if err != nil {
					return nil, err
				}
				if nonEmpty, err := rows(); err != nil {
					return nil, err
				} else if nonEmpty {
					p.conv[len(up.Cols)] = x
				}
			} else if def.Default != "" {
				if err := s.checkDefault(def.Default, 0, col.Name, col.T); err != nil {
					return nil, err
				}
				v, volatile, err := s.evalDefault(up, col, def.Default)
				if err != nil {
					return nil, err
				}
				if volatile {
					if nonEmpty, err := rows(); err != nil {
						return nil, err
					} else if nonEmpty {
						// The rewrite computes it for each row.
						x, _, err := s.defaultExpr(up, col, def.Default)
						if err != nil {
							return nil, err
						}
						p.conv[len(up.Cols)] = x
					}
				}
				if !v.Null {
					col.Missing = &v
				}
			}
			up.Cols = append(up.Cols, col)
			p.pin = true
			if col.NotNull {
				p.notNull = append(p.notNull, len(up.Cols)-1)
			}
		case "set not null":
			if !up.Cols[i].NotNull {
				up.Cols[i].NotNull = true
				p.notNull = append(p.notNull, i)
			}
		case "set default":
			col := up.Cols[i]
			if col.Identity != "" {
				return nil, pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", col.Name, rel.Name).
					WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
			}
			if err := s.checkDefault(a.Default, 0, col.Name, col.T); err != nil {
				return nil, err
			}
			if _, _, err := s.evalDefault(up, col, a.Default); err != nil {
				return nil, err
			}
			up.Cols[i].Default = a.Default
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... %s together with other actions is not supported", strings.ToUpper(a.Action))
		}
	}
	p.up = up
	return p, nil
}

// checkTypeChange refuses a TYPE action on column i of up that weir, or
// PostgreSQL, cannot make.
func (s *Session) checkTypeChange(ctx context.Context, rel, up *catalog.Relation, i int, a *sql.AlterTable) error {
	col := up.Cols[i]
	t := a.Type.T
	if a.Type.Domain != 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN ... TYPE to a domain type is not supported")
	}
	if col.Identity != "" {
		// PostgreSQL changes the type of the identity's sequence too.
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN ... TYPE of an identity column is not supported")
	}
	if err := watermarkColumn(up, col.Name, "alter the type of"); err != nil {
		return err
	}
	if err := s.rulesOnTypeChange(ctx, rel, i); err != nil {
		return err
	}
	if err := s.eng.fkTypeChange(rel, i, t); err != nil {
		return err
	}
	if slices.Contains(up.PK, i) {
		if err := pkColumnTypeError(t); err != nil {
			return err
		}
	}
	if col.Default != "" {
		// PostgreSQL keeps the DEFAULT as the expression it was, under
		// the assignment cast to the column's type, and casts that
		// expression to the new type: 5 set on an int column stays
		// 5 through a change to text and back.
		dt, err := planner.DefaultType(ctx, col.Default, rel.Cols[i].T, s.catalogView())
		if err != nil {
			return err
		}
		if !planner.AssignmentCastable(dt, t) {
			return pgerr.New(pgerr.DatatypeMismatch, "default for column \"%s\" cannot be cast automatically to type %s", col.Name, t)
		}
	}
	return nil
}

// dependentWords names a relation reading a column as PostgreSQL's
// DETAIL does: a view by its rewrite rule.
func dependentWords(d *catalog.Relation) string {
	switch d.Kind {
	case catalog.KindView, catalog.KindMView:
		return "rule _RETURN on " + kindWords[d.Kind] + " " + d.Name
	}
	return kindWords[d.Kind] + " " + d.Name
}

// checkNotNull verifies the rows against the columns p made NOT NULL,
// for a change of the catalog alone. writeMu is held.
func (e *Engine) checkNotNull(ctx context.Context, rel *catalog.Relation, p *alterPlan) error {
	for _, i := range p.notNull {
		col := p.up.Cols[i]
		var nulls bool
		var err error
		if i < len(rel.Cols) {
			nulls, err = e.anyRow(ctx, rel, func(r types.Row) bool { return r[i].Null })
		} else if col.Missing == nil {
			nulls, err = e.anyRow(ctx, rel, func(types.Row) bool { return true })
		}
		if err != nil {
			return err
		}
		if nulls {
			return nullsError(rel, col.Name)
		}
	}
	return nil
}

func nullsError(rel *catalog.Relation, col string) error {
	return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", col, rel.Name).
		WithTable(rel.Schema, rel.Name).WithColumn(col)
}

// rewriteKeys is how many rewritten rows whose key changed are held, to
// be checked for duplicates, before they are written to the area.
const rewriteKeys = 4096

// rebuiltUnique returns the unique indexes of table rel among rebuild,
// as DML enforces them: their column positions hold in the table as the
// actions leave it too (a dropped column keeps its place). An index
// with expressions or a predicate is bound from the definition it will
// be built again from over up, the table as the actions leave it, which
// fails (as PostgreSQL's ALTER does) when they no longer bind.
func (e *Engine) rebuiltUnique(rel, up *catalog.Relation, rebuild []*catalog.Relation) ([]uniqueIndex, error) {
	var out []uniqueIndex
	for _, idx := range rebuild {
		if idx.PlainIndex() {
			continue
		}
		u, err := e.rebuiltIndex(rel, up, idx)
		if err != nil {
			return nil, err
		}
		if u != nil {
			out = append(out, *u)
		}
	}
	for _, u := range e.uniqueIndexes(rel) {
		if u.idx.PlainIndex() && slices.ContainsFunc(rebuild, func(r *catalog.Relation) bool { return r.ID == u.idx.ID }) {
			out = append(out, u)
		}
	}
	return out, nil
}

// rebuiltIndex binds index idx on rel, one with expressions or a
// predicate, from the definition it will be built again from
// (indexRebuild) over up, and returns it as DML enforces it when it is
// unique (nil otherwise).
func (e *Engine) rebuiltIndex(rel, up, idx *catalog.Relation) (*uniqueIndex, error) {
	r, err := e.indexRebuild(rel, idx)
	if err != nil {
		return nil, err
	}
	st, err := sql.ParseDefinition(r.SQL)
	if err != nil {
		return nil, err
	}
	ci, ok := st.(*sql.CreateIndex)
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "bad definition of index \"%s\": %s", idx.Name, r.SQL)
	}
	var pos []int
	for _, d := range e.indexesOf(rel.ID) {
		if d.ID == idx.ID {
			pos, _ = catalog.IndexPositions(d)
		}
	}
	k := idx.IndexKeys()
	if len(pos) < k || len(ci.Cols) < k {
		return nil, pgerr.New(pgerr.InternalError, "cannot find the keys of index \"%s\"", idx.Name)
	}
	exprs := make([]string, k)
	for i := range exprs {
		exprs[i] = ci.Cols[i].Expr
	}
	b, err := json.Marshal(exprs)
	if err != nil {
		return nil, err
	}
	def := &catalog.Relation{ID: idx.ID, Name: idx.Name, Kind: catalog.KindIndex, With: maps.Clone(idx.With)}
	def.With[catalog.IndexExprsOption] = string(b)
	def.With[catalog.IndexPredicateOption] = ci.Where
	u := e.newUniqueIndex(def, up, idx.UniqueStore(), pos[:k])
	if u.err != nil {
		return nil, u.err
	}
	if idx.UniqueStore() == 0 {
		return nil, nil
	}
	return u, nil
}

// uniqueCheck finds the keys of unique indexes that the converted rows
// of a rewrite repeat, with bounded memory: the keys are held a few
// thousand at a time, then checked against and written to a spill area
// of the table that is never committed. For each index it keeps the
// smallest repeated key, which PostgreSQL's build of the index (a
// sort) reports.
type uniqueCheck struct {
	us   []uniqueIndex
	rel  *catalog.Relation
	area *storage.Area
	// held maps an index's ordinal and key to a row holding it.
	held map[string]types.Row
	dup  []dupKey
}

// dupKey is a repeated key of one index and a row holding it.
type dupKey struct {
	key []byte
	row types.Row
}

func (c *uniqueCheck) add(row types.Row) error {
	copyDecimals(row) // it may be held
	for k := range c.us {
		key, ok, err := c.us[k].key(c.rel, row)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		hk := string(append([]byte{byte(k), byte(k >> 8)}, key...))
		if _, dup := c.held[hk]; dup {
			c.repeated(k, key, row)
			continue
		}
		c.held[hk] = row
	}
	if len(c.held) >= rewriteKeys {
		return c.flush()
	}
	return nil
}

func (c *uniqueCheck) repeated(k int, key []byte, row types.Row) {
	if d := c.dup[k]; d.key == nil || bytes.Compare(key, d.key) < 0 {
		c.dup[k] = dupKey{key: slices.Clone(key), row: row}
	}
}

// flush checks the held keys against the area and writes them to it.
func (c *uniqueCheck) flush() error {
	for hk, row := range c.held {
		if dup, err := c.area.Holds([]byte(hk)); err != nil {
			return err
		} else if dup {
			k := int(hk[0]) | int(hk[1])<<8
			c.repeated(k, []byte(hk[2:]), row)
		}
	}
	for hk := range c.held {
		if err := c.area.Put([]byte(hk), nil, nil); err != nil {
			return err
		}
	}
	clear(c.held)
	return c.area.Flush()
}

// err is PostgreSQL's 23505 for the first index with a repeated key.
func (c *uniqueCheck) err() error {
	for k, d := range c.dup {
		if d.key == nil {
			continue
		}
		u := &c.us[k]
		names, vals := u.keyText(c.rel, d.row)
		return pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s\"", u.idx.Name).
			WithDetail("Key (%s)=(%s) is duplicated.", names, vals).
			WithTable(c.rel.Schema, c.rel.Name).WithConstraint(u.idx.Name)
	}
	return nil
}

// convertRows writes the rows of table rel as p.up has them into a new
// spill area of the table, a chunk at a time: converted columns computed
// by p.conv, added ones given their missing values, NOT NULL checked. A
// changed primary key deletes every old key first and writes the new
// ones after, checking that none repeats; no key of p.unique may repeat
// either (reported once every row has converted, as PostgreSQL builds
// its indexes after the rewrite). On error the area is discarded.
// writeMu is held and no pending epoch writes the table.
func (s *Session) convertRows(ctx context.Context, rel *catalog.Relation, p *alterPlan) (_ *storage.Area, err error) {
	e := s.eng
	up := p.up
	oldTs, newTs := relTypes(rel), relTypes(up)
	missing, _ := up.MissingRow()
	type conv struct {
		col int
		ev  executor.Evaluator
	}
	var convs []conv
	keyChanged := false
	for i, x := range p.conv {
		ev, err := executor.Compile(x)
		if err != nil {
			return nil, err
		}
		convs = append(convs, conv{i, ev})
		keyChanged = keyChanged || slices.Contains(rel.PK, i)
	}
	keyChanged = keyChanged || p.rekey
	slices.SortFunc(convs, func(a, b conv) int { return a.col - b.col })
	a, err := e.db.NewArea(rel.ID)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = a.Discard()
		}
	}()
	scan := func(fn func(types.Row) error) error {
		it := e.st.view.Scan(rel.ID, oldTs)
		defer it.Close()
		for {
			r, err := it.Next()
			if err != nil || r == nil {
				return err
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	if keyChanged {
		err := scan(func(r types.Row) error { return a.Delete(pkKey(rel, r)) })
		if err != nil {
			return nil, err
		}
		if err := a.Flush(); err != nil {
			return nil, err
		}
	}
	var uc *uniqueCheck
	if len(p.unique) > 0 {
		ua, err := e.db.NewArea(rel.ID)
		if err != nil {
			return nil, err
		}
		defer func() { _ = ua.Discard() }()
		uc = &uniqueCheck{us: p.unique, rel: up, area: ua, held: map[string]types.Row{}, dup: make([]dupKey, len(p.unique))}
	}
	ec := s.execCtx(ctx, nil, nil, nil).Eval
	held := map[string]types.Row{}
	writeHeld := func() error {
		for k, r := range held {
			if dup, err := a.Holds([]byte(k)); err != nil {
				return err
			} else if dup {
				return duplicateInRewrite(up, r)
			}
		}
		for k, r := range held {
			if err := a.Put([]byte(k), r, newTs); err != nil {
				return err
			}
		}
		clear(held)
		return a.Flush()
	}
	chunk := types.NewChunk(oldTs, types.ChunkCap)
	convert := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return ctxError(ctx)
		}
		vecs := make([]*types.Vec, len(convs))
		for k, c := range convs {
			v, err := c.ev.Eval(&ec, chunk)
			if err != nil {
				return err
			}
			vecs[k] = v
		}
		for j := 0; j < chunk.Len(); j++ {
			r := chunk.Row(j)
			out := make(types.Row, len(up.Cols))
			copy(out, r)
			for c := len(r); c < len(out); c++ {
				out[c] = missing[c]
			}
			for k, c := range convs {
				out[c.col] = vecs[k].Get(j)
			}
			for c, col := range up.Cols {
				if col.NotNull && out[c].Null && !col.Hidden {
					return nullsError(rel, col.Name)
				}
			}
			if uc != nil {
				if err := uc.add(out); err != nil {
					return err
				}
			}
			key := pkKey(up, out)
			if !keyChanged {
				if err := a.Put(key, out, newTs); err != nil {
					return err
				}
				continue
			}
			if _, dup := held[string(key)]; dup {
				return duplicateInRewrite(up, out)
			}
			copyDecimals(out)
			held[string(key)] = out
		}
		chunk = types.NewChunk(oldTs, types.ChunkCap)
		if len(held) >= rewriteKeys {
			return writeHeld()
		}
		return nil
	}
	err = scan(func(r types.Row) error {
		chunk.AppendRow(types.OpInsert, r)
		if chunk.Len() >= types.ChunkCap {
			return convert()
		}
		return nil
	})
	if err == nil {
		err = convert()
	}
	if err == nil && keyChanged {
		err = writeHeld()
	}
	if err == nil {
		err = a.Flush()
	}
	if err == nil && uc != nil {
		if err = uc.flush(); err == nil {
			err = uc.err()
		}
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// duplicateInRewrite is PostgreSQL's error when rebuilding the primary
// key after a change of type finds a key twice.
func duplicateInRewrite(rel *catalog.Relation, row types.Row) error {
	names := make([]string, len(rel.PK))
	vals := make([]string, len(rel.PK))
	for i, c := range rel.PK {
		names[i] = rel.Cols[c].Name
		vals[i] = types.FormatText(row[c], rel.Cols[c].T, nil)
	}
	return pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s_pkey\"", rel.Name).
		WithDetail("Key (%s)=(%s) is duplicated.", strings.Join(names, ", "), strings.Join(vals, ", ")).
		WithTable(rel.Schema, rel.Name).WithConstraint(rel.Name + "_pkey")
}

// indexRebuild returns the CREATE INDEX statement that builds index idx
// on table rel again, naming its columns as rel does now, unique (and a
// constraint's) when idx is.
func (e *Engine) indexRebuild(rel, idx *catalog.Relation) (catalog.IndexRebuild, error) {
	rebuild := catalog.IndexRebuild{
		Unique:           idx.With[catalog.IndexUniqueOption] == "true",
		Constraint:       idx.With[catalog.IndexConstraintOption] == "true",
		NullsNotDistinct: idx.With[catalog.IndexNullsNotDistinctOption] == "true",
	}
	if !idx.PlainIndex() {
		// Its definition as pg_get_indexdef prints it, expressions and
		// predicate deparsed with the columns' names of now, which
		// PostgreSQL parses again the same way.
		rebuild.SQL = syscat.IndexDef(idx, rel, e.indexTexts(idx, rel, false))
		if _, err := sql.Parse(rebuild.SQL); err != nil {
			return catalog.IndexRebuild{}, err
		}
		return rebuild, nil
	}
	var pos []int
	for _, d := range e.indexesOf(rel.ID) {
		if d.ID == idx.ID {
			pos, _ = catalog.IndexPositions(d)
		}
	}
	if len(pos) != len(idx.Cols) {
		return catalog.IndexRebuild{}, pgerr.New(pgerr.InternalError, "cannot find the columns of index \"%s\"", idx.Name)
	}
	name := func(k int) (string, error) {
		if pos[k] < 0 || pos[k] >= len(rel.Cols) {
			return "", pgerr.New(pgerr.InternalError, "cannot find column %d of index \"%s\"", k+1, idx.Name)
		}
		return sql.QuoteIdent(rel.Cols[pos[k]].Name), nil
	}
	keys := idx.IndexKeys()
	var key, include []string
	for k := range idx.Cols {
		if k >= keys && idx.Cols[k].Hidden {
			continue
		}
		n, err := name(k)
		if err != nil {
			return catalog.IndexRebuild{}, err
		}
		if k < keys {
			key = append(key, n+idx.IndexKeyOrder(k))
		} else {
			include = append(include, n)
		}
	}
	text := "CREATE INDEX " + sql.QuoteIdent(idx.Name) + " ON " + sql.QuoteIdent(rel.Schema) + "." + sql.QuoteIdent(rel.Name) +
		" (" + strings.Join(key, ", ") + ")"
	if len(include) > 0 {
		text += " INCLUDE (" + strings.Join(include, ", ") + ")"
	}
	if _, err := sql.Parse(text); err != nil {
		return catalog.IndexRebuild{}, err
	}
	// A unique index, or a UNIQUE constraint's, is built unique again,
	// with a new key store checked against the converted rows.
	rebuild.SQL = text
	return rebuild, nil
}

// buildIndex runs CREATE INDEX st on a table under the ddlMu its caller
// holds, sending io none of its notices. With backfill it returns once
// the index is backfilled, as CREATE INDEX does; without, once its job
// is added, the index readable when its backfill is done.
func (s *Session) buildIndex(ctx context.Context, st *sql.CreateIndex, io wire.ExecIO, backfill bool) error {
	e := s.eng
	if backfill {
		if err := e.awaitReadable(ctx, nil); err != nil {
			return err
		}
	}
	io = quietIO{io}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	j, created, err := s.addIndexLocked(ctx, st, io)
	e.writeMu.Unlock()
	if err != nil || !created {
		return err
	}
	if backfill {
		return e.launch(ctx, j, io, true)
	}
	if err := e.addJob(ctx, j); err != nil {
		e.undoCreate(j)
		return err
	}
	return nil
}

// quietIO is an ExecIO that drops notices.
type quietIO struct{ wire.ExecIO }

// Notice drops the notice.
func (quietIO) Notice(severity, code, message string) {}

// staleTypes returns 40001 when a table a plan reads or writes has a
// column of another type in the catalog than when the plan was bound
// (relations, planner.RelationsBound): ALTER COLUMN ... TYPE committed in
// between, and the rows are no longer encoded as the plan reads them. (A
// cached plan binds again before it runs; this catches a statement bound
// just before the change.)
func (e *Engine) staleTypes(relations []*catalog.Relation) error {
	for _, r := range relations {
		if r == nil || r.Kind != catalog.KindTable {
			continue
		}
		cur, ok := e.cat.ByID(r.ID)
		if !ok || cur == r {
			continue
		}
		for i := range min(len(cur.Cols), len(r.Cols)) {
			if cur.Cols[i].T != r.Cols[i].T {
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access: relation \"%s\" was altered", r.Name).
					WithHint("The transaction might succeed if retried.")
			}
		}
	}
	return nil
}

// lookupJoinReader returns a relation whose job looks rows of table id up
// (FOR SYSTEM_TIME AS OF PROCTIME()), or nil. writeMu is held.
func (e *Engine) lookupJoinReader(id uint32) *catalog.Relation {
	var found func(n planner.StreamNode) bool
	found = func(n planner.StreamNode) bool {
		if lj, ok := n.(*planner.StreamLookupJoin); ok && lj.Rel.ID == id {
			return true
		}
		return slices.ContainsFunc(n.StreamInputs(), found)
	}
	for _, j := range e.st.jobs {
		if j.root != nil && found(j.root) {
			return j.rel
		}
	}
	return nil
}

// planAddPrimaryKey applies ADD PRIMARY KEY to up, the table rel as the
// actions leave it: the table, keyed until now by its hidden row id,
// is keyed by the given columns, which become NOT NULL. Every row is
// then written again under its new key (convertRows), which fails on a
// null or a repeated key as PostgreSQL's build of the index does, and
// every index (each carries the key) is built again. Relations whose
// state is keyed by the table's rows refuse it: materialized views (but
// unpopulated ones, which keep no rows), sinks, and foreign keys
// referencing the table.
func (s *Session) planAddPrimaryKey(rel *catalog.Relation, p *alterPlan, up *catalog.Relation, a *sql.AlterTable) error {
	e := s.eng
	var key []int
	for _, name := range a.Key {
		i := visibleColumn(up, name)
		if i < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
		}
		if slices.Contains(key, i) {
			return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in primary key constraint", name).WithPosition(a.KeyPos)
		}
		key = append(key, i)
	}
	// The key's columns are checked first, then the table's key, then
	// the columns' types, in PostgreSQL's order.
	if len(up.PK) != 1 || !up.Cols[up.PK[0]].Hidden || p.rekey {
		return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", rel.Name)
	}
	if a.Column != "" && a.Column != rel.Name+"_pkey" {
		return pgerr.New(pgerr.FeatureNotSupported, "a primary key constraint named other than \"%s_pkey\" is not supported", rel.Name).
			WithHint("Leave out CONSTRAINT %s.", a.Column)
	}
	for _, i := range key {
		if err := pkColumnTypeError(up.Cols[i].T); err != nil {
			return err
		}
	}
	refuse := func(what string) error {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot add a primary key to table \"%s\": %s depends on it", rel.Name, what).
			WithDetail("weir stores a table's rows by its primary key, and what reads them keyed so would have to be built again.").
			WithHint("Drop it, add the primary key, then create it again.")
	}
	for _, d := range e.cat.Dependents(rel.ID) {
		// An unpopulated materialized view keeps no rows or state: its
		// REFRESH plans it over the new key (pg_dump creates its views
		// before the keys of their tables).
		if d.Kind != catalog.KindIndex && d.Kind != catalog.KindView && (d.Kind != catalog.KindMView || !d.Unpopulated) {
			return refuse(kindWords[d.Kind] + " " + d.Name)
		}
	}
	if refs := e.referencing(rel.ID); len(refs) > 0 {
		return refuse(fmt.Sprintf("constraint %s on table %s", refs[0].fk.Name, refs[0].child.Name))
	}
	if d := e.lookupJoinReader(rel.ID); d != nil {
		return refuse(fmt.Sprintf("%s %s", kindWords[d.Kind], d.Name))
	}
	// The row id column goes, as a dropped column does: rows keep their
	// place for it.
	hidden := up.PK[0]
	dropped := droppedColumn(up, hidden)
	*up = *dropped
	up.PK = key
	for _, i := range key {
		up.Cols[i].NotNull = true
	}
	up.SQL = addPrimaryKeyToCreate(up.SQL, a.Key)
	for _, d := range e.indexesOf(rel.ID) {
		if !slices.ContainsFunc(p.rebuild, func(r *catalog.Relation) bool { return r.ID == d.ID }) {
			p.rebuild = append(p.rebuild, d)
		}
	}
	p.rekey = true
	return nil
}

// addPrimaryKeyToCreate adds PRIMARY KEY (cols) to the table elements of
// a CREATE TABLE statement's text, before the parenthesis closing them.
func addPrimaryKeyToCreate(text string, cols []string) string {
	depth, quote := 0, byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				names := make([]string, len(cols))
				for k, n := range cols {
					names[k] = sql.QuoteIdent(n)
				}
				return text[:i] + ", PRIMARY KEY (" + strings.Join(names, ", ") + ")" + text[i:]
			}
		}
	}
	return text
}
