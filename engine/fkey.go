package engine

// FOREIGN KEY constraints, as PostgreSQL 15 has them for tables.
//
// A constraint lives in the referencing table's catalog entry
// (catalog.Relation.ForeignKeys). CREATE TABLE and ALTER TABLE ... ADD
// resolve it here, with PostgreSQL's checks in its order
// (ATAddForeignKeyConstraint): the referenced table, the columns, the
// unique key they must match (42830), REFERENCES (42501), the count and
// the types (42804).
//
// DML enforces it where PostgreSQL's RI triggers would, at the end of
// each statement (fkey_dml.go): every write of a table taking part in a
// constraint is noted by the statement's writer, and before the
// statement's changes join the epoch (or, in a transaction block, stay
// in its batch) the notes are acted on: rows of a referencing table
// must find their key, and a referenced key removed takes its
// referencing rows with it (CASCADE), sets them (SET NULL, SET DEFAULT)
// or fails the statement (NO ACTION, RESTRICT). The cascaded writes go
// through the same writer, so they are part of the statement: they join
// the same epoch, reach the jobs reading the tables with it, and a crash
// keeps all of them or none.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// constraintNamesIn returns the names of the constraints of the tables
// of schema (primary keys, UNIQUE, CHECK and FOREIGN KEY constraints):
// PostgreSQL picks a new constraint's name unused in its schema.
func (e *Engine) constraintNamesIn(schema string) map[string]bool {
	taken := map[string]bool{}
	for _, r := range e.cat.All() {
		if r.Schema != schema {
			continue
		}
		for n := range e.constraintNamesOf(r) {
			taken[n] = true
		}
	}
	return taken
}

// constraintNamesOf returns the names of rel's constraints.
func (e *Engine) constraintNamesOf(rel *catalog.Relation) map[string]bool {
	names := map[string]bool{}
	if rel.Kind != catalog.KindTable {
		return names
	}
	if rel.HasPrimaryKey() {
		names[rel.Name+"_pkey"] = true
	}
	for _, c := range rel.Checks {
		names[c.Name] = true
	}
	for _, f := range rel.ForeignKeys {
		names[f.Name] = true
	}
	if rel.ID != 0 {
		for _, d := range e.indexesOf(rel.ID) {
			if d.With[catalog.IndexConstraintOption] == "true" {
				names[d.Name] = true
			}
		}
	}
	return names
}

// fkColumns resolves the column names of a foreign key in rel: 42703
// for one it lacks, as PostgreSQL's transformColumnNameList reports it.
func fkColumns(rel *catalog.Relation, names []string) ([]int, error) {
	out := make([]int, 0, len(names))
	for _, n := range names {
		i := visibleColumn(rel, n)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", n)
		}
		out = append(out, i)
	}
	return out, nil
}

// sameColumnSet reports whether a and b hold the same columns, in any
// order.
func sameColumnSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// fkOpcType is the type a unique key on a column of type t compares in
// (its btree operator class's input type): varchar's is text's.
func fkOpcType(t types.TypeID) types.TypeID {
	if t == types.Varchar {
		return types.Text
	}
	return t
}

// fkFamily groups the types whose btree operator families compare
// across them without a cast.
func fkFamily(t types.TypeID) int {
	switch t {
	case types.Int2, types.Int4, types.Int8:
		return 1
	case types.Float4, types.Float8:
		return 2
	case types.Date, types.Timestamp, types.Timestamptz:
		return 3
	}
	return 0
}

// fkTypesCompatible reports whether a referencing column of type fk can
// reference a key column of type pk: PostgreSQL finds an equality
// operator of pk's operator family for the pair, directly or after an
// implicit cast of fk.
func fkTypesCompatible(fk, pk types.T) bool {
	if fk.ID == pk.ID {
		return true
	}
	if f := fkFamily(fk.ID); f != 0 && f == fkFamily(pk.ID) {
		return true
	}
	return planner.ImplicitCast(fk.ID, fkOpcType(pk.ID))
}

// namesNew reports whether n names rel, a relation being created (not
// yet in the catalog): qualified, by its schema; unqualified, when rel's
// schema comes in the search before any schema holding a relation so
// named (the new schema of CREATE SCHEMA's elements comes first).
func (s *Session) namesNew(n sql.ObjectName, rel *catalog.Relation) bool {
	if n.Name != rel.Name {
		return false
	}
	if n.Schema != "" {
		return s.schemaOf(n) == rel.Schema
	}
	for _, schema := range s.sessionSearch() {
		if schema == rel.Schema {
			return true
		}
		if _, ok := s.eng.cat.Lookup(schema, n.Name); ok {
			return false
		}
	}
	return false
}

// resolveForeignKey turns def, a FOREIGN KEY constraint of table rel, into
// its catalog form. rel.ID is 0 while CREATE TABLE makes rel: a reference
// to its own name is then a reference to itself (RefID 0, which the
// catalog turns into rel's ID). taken holds the constraint names in use in
// rel's schema, and the chosen name is added to it; relNames those of rel.
func (s *Session) resolveForeignKey(rel *catalog.Relation, def sql.ForeignKeyDef, taken, relNames map[string]bool) (catalog.ForeignKey, error) {
	e := s.eng
	fk := catalog.ForeignKey{Name: def.Name, Match: catalog.FKMatchSimple, OnUpdate: def.OnUpdate, OnDelete: def.OnDelete, NotValid: def.NotValid}
	fk.Deferrable, fk.Deferred = def.Deferrable, def.Deferred
	if def.Match == "full" {
		fk.Match = catalog.FKMatchFull
	}
	if fk.Name != "" && relNames[fk.Name] {
		return fk, pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", fk.Name, rel.Name)
	}
	schema := s.schemaOf(def.Ref)
	var ref *catalog.Relation
	if rel.ID == 0 && s.namesNew(def.Ref, rel) {
		ref = rel
	} else {
		r, ok := e.cat.Lookup(schema, def.Ref.Name)
		if !ok {
			if def.Ref.Schema != "" && !slices.Contains(e.cat.Schemas(), schema) {
				return fk, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", def.Ref.Schema)
			}
			return fk, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", def.Ref.Name)
		}
		ref = r
	}
	if ref.Kind != catalog.KindTable {
		return fk, pgerr.New(pgerr.WrongObjectType, "referenced relation \"%s\" is not a table", ref.Name)
	}
	switch {
	case rel.Unlogged && ref.Temp:
		return fk, pgerr.New(pgerr.InvalidTableDefinition, "constraints on unlogged tables may reference only permanent or unlogged tables")
	case !rel.Temp && ref.Temp, !rel.Temp && !rel.Unlogged && ref.Unlogged:
		return fk, pgerr.New(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	case rel.Temp && !ref.Temp:
		return fk, pgerr.New(pgerr.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	}
	if planner.HasConnector(ref) || planner.HasConnector(rel) {
		return fk, pgerr.New(pgerr.FeatureNotSupported, "foreign keys on tables whose rows come from a connector are not supported")
	}
	cols, err := fkColumns(rel, def.Cols)
	if err != nil {
		return fk, err
	}
	fk.Cols = cols
	var setCols []int
	if def.DeleteSetCols != nil {
		if setCols, err = fkColumns(rel, def.DeleteSetCols); err != nil {
			return fk, err
		}
		for k, c := range setCols {
			if !slices.Contains(cols, c) {
				return fk, pgerr.New(pgerr.InvalidColumnReference, "column \"%s\" referenced in ON DELETE SET action must be part of foreign key", def.DeleteSetCols[k])
			}
		}
		fk.DeleteSetCols = setCols
	}
	refNames := def.RefCols
	if refNames == nil {
		if !ref.HasPrimaryKey() {
			return fk, pgerr.New(pgerr.UndefinedObject, "there is no primary key for referenced table \"%s\"", ref.Name)
		}
		fk.RefCols = slices.Clone(ref.PK)
		for _, i := range ref.PK {
			refNames = append(refNames, ref.Cols[i].Name)
		}
	} else {
		if fk.RefCols, err = fkColumns(ref, refNames); err != nil {
			return fk, err
		}
		for i, c := range fk.RefCols {
			if slices.Contains(fk.RefCols[:i], c) {
				return fk, pgerr.New(pgerr.InvalidForeignKey, "foreign key referenced-columns list must not contain duplicates")
			}
		}
		if !s.eng.uniqueKeyOn(ref, fk.RefCols) {
			return fk, pgerr.New(pgerr.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", ref.Name)
		}
	}
	if ref.ID != 0 && !s.hasPrivilege(ref, catalog.PrivReferences) {
		return fk, denied(ref)
	}
	for _, c := range cols {
		if rel.Cols[c].Generated == "" {
			continue
		}
		for _, a := range []struct {
			what   string
			action byte
		}{{"ON UPDATE", fk.OnUpdate}, {"ON DELETE", fk.OnDelete}} {
			if a.action == catalog.FKSetNull || a.action == catalog.FKSetDefault || a.what == "ON UPDATE" && a.action == catalog.FKCascade {
				return fk, pgerr.New(pgerr.SyntaxError, "invalid %s action for foreign key constraint containing generated column", a.what)
			}
		}
	}
	if len(cols) != len(fk.RefCols) {
		return fk, pgerr.New(pgerr.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	if fk.Name == "" {
		names := make([]string, len(def.Cols))
		copy(names, def.Cols)
		fk.Name = chooseConstraintName(rel.Name, fkNameAddition(names), "fkey", taken)
	}
	for i, c := range cols {
		ft, pt := rel.Cols[c].T, ref.Cols[fk.RefCols[i]].T
		if !fkTypesCompatible(ft, pt) {
			return fk, pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", fk.Name).
				WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", def.Cols[i], refNames[i],
					types.T{ID: ft.ID, Mod: -1}, types.T{ID: pt.ID, Mod: -1})
		}
	}
	taken[fk.Name] = true
	relNames[fk.Name] = true
	fk.RefID = ref.ID
	return fk, nil
}

// fkNameAddition is PostgreSQL's ChooseForeignKeyConstraintNameAddition:
// the column names joined by "_", stopping once the text reaches 63
// bytes.
func fkNameAddition(names []string) string {
	var b strings.Builder
	for _, n := range names {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(n)
		if b.Len() >= 63 {
			break
		}
	}
	return b.String()
}

// uniqueKeyOn reports whether rel has a primary key or unique index whose
// columns are cols, in any order (PostgreSQL's transformFkeyCheckAttrs).
func (e *Engine) uniqueKeyOn(rel *catalog.Relation, cols []int) bool {
	if rel.HasPrimaryKey() && sameColumnSet(rel.PK, cols) {
		return true
	}
	if rel.ID == 0 {
		return false
	}
	for _, u := range e.uniqueIndexes(rel) {
		if u.plain() && sameColumnSet(u.cols, cols) {
			return true
		}
	}
	return false
}

// referencing returns the foreign keys referencing table id, with the
// tables holding them, in the order of those tables' IDs and then of
// their constraints.
func (e *Engine) referencing(id uint32) []fkRef {
	var out []fkRef
	for _, r := range e.cat.All() {
		for k := range r.ForeignKeys {
			if r.ForeignKeys[k].RefID == id {
				out = append(out, fkRef{fk: &r.ForeignKeys[k], child: r})
			}
		}
	}
	return out
}

// fkDropTables applies DROP TABLE of order's tables to the foreign keys
// of other tables referencing them: without cascade one is an error
// (2BP01, blockers naming each as PostgreSQL's DETAIL does); with it the
// constraint goes (a "drop cascades to" line each) and the tables
// holding them are returned changed, for the drop's catalog batch.
func (s *Session) fkDropTables(order []*catalog.Relation, cascade bool) (replace []*catalog.Relation, lines, blockers []string) {
	e := s.eng
	dropping := map[uint32]bool{}
	for _, r := range order {
		dropping[r.ID] = true
	}
	changed := map[uint32]*catalog.Relation{}
	var ids []uint32
	for _, r := range order {
		if r.Kind != catalog.KindTable {
			continue
		}
		for _, ref := range e.referencing(r.ID) {
			if dropping[ref.child.ID] {
				continue
			}
			desc := fmt.Sprintf("constraint %s on %s", ref.fk.Name, s.qualifiedRel(ref.child))
			if !cascade {
				blockers = append(blockers, fmt.Sprintf("%s depends on %s", desc, s.qualifiedRel(r)))
				continue
			}
			lines = append(lines, "drop cascades to "+desc)
			up := changed[ref.child.ID]
			if up == nil {
				up = ref.child.Clone()
				changed[ref.child.ID] = up
				ids = append(ids, up.ID)
			}
			up.ForeignKeys = slices.DeleteFunc(up.ForeignKeys, func(f catalog.ForeignKey) bool { return f.Name == ref.fk.Name })
		}
	}
	for _, id := range ids {
		replace = append(replace, changed[id])
	}
	return replace, lines, blockers
}

// newTableForeignKeys resolves the FOREIGN KEY constraints of CREATE
// TABLE into rel, a table not yet in the catalog.
func (s *Session) newTableForeignKeys(rel *catalog.Relation, defs []sql.ForeignKeyDef) error {
	e := s.eng
	rel.Temp = strings.HasPrefix(rel.Schema, catalog.TempSchemaPrefix)
	defer func() { rel.Temp = false }()
	taken := e.constraintNamesIn(rel.Schema)
	relNames := e.constraintNamesOf(rel)
	for _, def := range defs {
		fk, err := s.resolveForeignKey(rel, def, taken, relNames)
		if err != nil {
			return err
		}
		rel.ForeignKeys = append(rel.ForeignKeys, fk)
	}
	return nil
}

// addForeignKey runs ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY:
// unless NOT VALID, every stored row must find its key (23503 for the
// first that does not, as PostgreSQL's RI_Initial_Check reports it).
func (s *Session) addForeignKey(ctx context.Context, rel *catalog.Relation, def sql.ForeignKeyDef) (wire.Result, error) {
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	if cur, ok := e.cat.ByID(rel.ID); ok {
		rel = cur
	}
	fk, err := s.resolveForeignKey(rel, def, e.constraintNamesIn(rel.Schema), e.constraintNamesOf(rel))
	if err != nil {
		return nil, err
	}
	up := rel.Clone()
	up.ForeignKeys = append(up.ForeignKeys, fk)
	if !fk.NotValid {
		if err := s.validateForeignKey(ctx, up, &up.ForeignKeys[len(up.ForeignKeys)-1]); err != nil {
			return nil, err
		}
	}
	return e.replaceTable(rel, up, false)
}

// validateForeignKey checks every row of child, as DML sees the table,
// against its foreign key fk. e.writeMu is held.
func (s *Session) validateForeignKey(ctx context.Context, child *catalog.Relation, fk *catalog.ForeignKey) error {
	w := s.eng.newStmtWriter()
	f := newFKState(s)
	f.ctx = ctx
	ref := fkRef{fk: fk, child: child}
	n := 0
	return w.fkScan(child, func(row types.Row) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return ctxError(ctx)
			}
		}
		return f.childCheck(w, ref, fkEvent{rel: child, new: row})
	})
}

// createTableForeignKeys adds the FOREIGN KEY constraints of CREATE TABLE
// once its UNIQUE constraints exist (they may reference them); a failure
// drops the table again, as if it had never been made.
func (s *Session) createTableForeignKeys(ctx context.Context, st *sql.CreateTable) error {
	e := s.eng
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	for _, def := range st.ForeignKeys {
		if _, err := s.addForeignKey(ctx, rel, def); err != nil {
			e.writeMu.Lock()
			order, derr := e.dropOrder([]*catalog.Relation{rel}, true, func(*catalog.Relation) {})
			e.writeMu.Unlock()
			if derr == nil {
				derr = e.dropRelations(ctx, order)
			}
			if derr != nil {
				e.log.Warn("dropping a table whose foreign key failed", "table", rel.Name, "err", derr)
			}
			return err
		}
	}
	return nil
}

// truncateForeignKeys applies the foreign keys to TRUNCATE of rels, as
// PostgreSQL's ExecuteTruncate: with cascade, the tables referencing
// them join the list (a notice each, in OID order, until none is
// added); then a table outside the list referencing one in it is 0A000.
func (s *Session) truncateForeignKeys(rels []*catalog.Relation, cascade bool, io wire.ExecIO) ([]*catalog.Relation, error) {
	e := s.eng
	in := func(id uint32) bool {
		return slices.ContainsFunc(rels, func(r *catalog.Relation) bool { return r.ID == id })
	}
	referencingOutside := func(of []*catalog.Relation) []*catalog.Relation {
		var out []*catalog.Relation
		for _, r := range of {
			for _, ref := range e.referencing(r.ID) {
				if !in(ref.child.ID) && !slices.ContainsFunc(out, func(o *catalog.Relation) bool { return o.ID == ref.child.ID }) {
					out = append(out, ref.child)
				}
			}
		}
		slices.SortFunc(out, func(a, b *catalog.Relation) int { return int(a.OID) - int(b.OID) })
		return out
	}
	if cascade {
		for {
			more := referencingOutside(rels)
			if len(more) == 0 {
				break
			}
			for _, r := range more {
				io.Notice("NOTICE", "00000", fmt.Sprintf("truncate cascades to table \"%s\"", r.Name))
				if !s.hasPrivilege(r, catalog.PrivTruncate) {
					return nil, denied(r)
				}
				rels = append(rels, r)
			}
		}
	}
	for _, r := range rels {
		if out := referencingOutside([]*catalog.Relation{r}); len(out) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
				WithDetail("Table \"%s\" references \"%s\".", out[0].Name, r.Name).
				WithHint("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", out[0].Name)
		}
	}
	return rels, nil
}

// dropForeignKey removes rel's FOREIGN KEY constraint name, reporting
// false when it has none of that name.
func (e *Engine) dropForeignKey(rel *catalog.Relation, name string) (wire.Result, bool, error) {
	k := slices.IndexFunc(rel.ForeignKeys, func(f catalog.ForeignKey) bool { return f.Name == name })
	return e.dropConstraint(rel, k, func(up *catalog.Relation) { up.ForeignKeys = slices.Delete(up.ForeignKeys, k, k+1) })
}

// fkDropKey applies the drop of idx, a UNIQUE constraint's index on
// rel, to the foreign keys referencing rel through it: without cascade
// one is an error (2BP01); with it they go too (a notice each), and the
// tables holding them are returned changed. e.writeMu is held.
func (e *Engine) fkDropKey(rel, idx *catalog.Relation, cascade bool, io wire.ExecIO) ([]*catalog.Relation, error) {
	return e.fkDropIndex(rel, idx, cascade, io, fmt.Sprintf("constraint %s on table %s", idx.Name, rel.Name))
}

// fkDropIndex is fkDropKey for the drop of unique index idx, named noun
// in the error.
func (e *Engine) fkDropIndex(rel, idx *catalog.Relation, cascade bool, io wire.ExecIO, noun string) ([]*catalog.Relation, error) {
	var u *uniqueIndex
	for _, x := range e.uniqueIndexes(rel) {
		if x.idx.ID == idx.ID {
			u = &x
		}
	}
	if u == nil {
		return nil, nil
	}
	changed := map[uint32]*catalog.Relation{}
	var order []uint32
	var lines, blockers []string
	for _, ref := range e.referencing(rel.ID) {
		if !u.plain() || !sameColumnSet(ref.fk.RefCols, u.cols) || rel.HasPrimaryKey() && sameColumnSet(ref.fk.RefCols, rel.PK) {
			continue
		}
		desc := fmt.Sprintf("constraint %s on table %s", ref.fk.Name, ref.child.Name)
		if !cascade {
			blockers = append(blockers, fmt.Sprintf("%s depends on index %s", desc, idx.Name))
			continue
		}
		lines = append(lines, "drop cascades to "+desc)
		up := changed[ref.child.ID]
		if up == nil {
			if ref.child.ID == rel.ID {
				continue
			}
			up = ref.child.Clone()
			changed[up.ID] = up
			order = append(order, up.ID)
		}
		up.ForeignKeys = slices.DeleteFunc(up.ForeignKeys, func(f catalog.ForeignKey) bool { return f.Name == ref.fk.Name })
	}
	if len(blockers) > 0 {
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", noun).
			WithDetail("%s", strings.Join(blockers, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	cascadeNotice(io, lines)
	var out []*catalog.Relation
	for _, id := range order {
		out = append(out, changed[id])
	}
	return out, nil
}

// fkDropColumn applies DROP COLUMN of rel's column i to the foreign
// keys, up being rel's altered copy: rel's own foreign keys on the
// column go with it, as in PostgreSQL; one referencing the column stops
// the drop (2BP01; with cascade, 0A000: weir does not drop another
// table's constraint here).
func (e *Engine) fkDropColumn(rel, up *catalog.Relation, i int, cascade bool) error {
	var deps []string
	for _, ref := range e.referencing(rel.ID) {
		if slices.Contains(ref.fk.RefCols, i) && !(ref.child.ID == rel.ID && slices.Contains(ref.fk.Cols, i)) {
			deps = append(deps, fmt.Sprintf("constraint %s on table %s depends on column %s of table %s", ref.fk.Name, ref.child.Name, rel.Cols[i].Name, rel.Name))
		}
	}
	if len(deps) > 0 && cascade {
		return pgerr.New(pgerr.FeatureNotSupported, "DROP COLUMN ... CASCADE of a column a foreign key references is not supported").
			WithDetail("%s", strings.Join(deps, "\n")).
			WithHint("Drop the foreign key constraints first.")
	}
	if len(deps) > 0 {
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", rel.Cols[i].Name, rel.Name).
			WithDetail("%s", strings.Join(deps, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	up.ForeignKeys = slices.DeleteFunc(up.ForeignKeys, func(f catalog.ForeignKey) bool {
		return slices.Contains(f.Cols, i) || f.RefID == rel.ID && slices.Contains(f.RefCols, i)
	})
	return nil
}

// fkTypeChange refuses ALTER COLUMN ... TYPE t of rel's column i when a
// foreign key on it, either side, could not compare the new type with
// the other's (42804, as PostgreSQL's re-made constraint reports it).
func (e *Engine) fkTypeChange(rel *catalog.Relation, i int, t types.T) error {
	bad := func(f *catalog.ForeignKey, child, parent *catalog.Relation, k int, ft, pt types.T) error {
		return pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", f.Name).
			WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", child.Cols[f.Cols[k]].Name, parent.Cols[f.RefCols[k]].Name,
				types.T{ID: ft.ID, Mod: -1}, types.T{ID: pt.ID, Mod: -1})
	}
	for k := range rel.ForeignKeys {
		f := &rel.ForeignKeys[k]
		parent, ok := e.cat.ByID(f.RefID)
		if !ok {
			continue
		}
		for j, c := range f.Cols {
			pt := parent.Cols[f.RefCols[j]].T
			if parent.ID == rel.ID && f.RefCols[j] == i {
				pt = t
			}
			if c == i && !fkTypesCompatible(t, pt) {
				return bad(f, rel, parent, j, t, pt)
			}
		}
	}
	for _, ref := range e.referencing(rel.ID) {
		if ref.child.ID == rel.ID {
			continue
		}
		for j, c := range ref.fk.RefCols {
			if ft := ref.child.Cols[ref.fk.Cols[j]].T; c == i && !fkTypesCompatible(ft, t) {
				return bad(ref.fk, ref.child, rel, j, ft, t)
			}
		}
	}
	return nil
}

// addColumnReferences runs ALTER TABLE ... ADD COLUMN with REFERENCES:
// the constraint is resolved against the table with the column first
// (so a bad one changes nothing), then the column is added and the
// constraint with it; should the column's values fail the constraint,
// the column goes again.
func (s *Session) addColumnReferences(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	if st.Def.CollateErr != nil {
		return nil, st.Def.CollateErr
	}
	if visibleColumn(rel, st.Def.Name) < 0 {
		probe := rel.Clone()
		probe.Cols = append(probe.Cols, catalog.Column{Name: st.Def.Name, T: st.Def.Type.T})
		taken, relNames := e.constraintNamesIn(rel.Schema), e.constraintNamesOf(rel)
		for _, def := range st.ForeignKeys {
			if _, err := s.resolveForeignKey(probe, def, taken, relNames); err != nil {
				return nil, err
			}
		}
	}
	plain := *st
	plain.ForeignKeys = nil
	res, err := s.addColumn(ctx, rel, &plain, io)
	if err != nil || visibleColumn(rel, st.Def.Name) >= 0 {
		// An error, or ADD COLUMN IF NOT EXISTS of a column there.
		return res, err
	}
	cur, ok := e.cat.ByID(rel.ID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", rel.Name)
	}
	for _, def := range st.ForeignKeys {
		if _, err := s.addForeignKey(ctx, cur, def); err != nil {
			drop := &sql.AlterTable{Name: st.Name, Action: "drop column", Column: st.Def.Name}
			if cur, ok := e.cat.ByID(rel.ID); ok {
				if _, derr := s.dropColumn(ctx, cur, drop, io); derr != nil {
					e.log.Warn("dropping a column whose foreign key failed", "table", rel.Name, "err", derr)
				}
			}
			return nil, err
		}
	}
	return res, nil
}
