package engine

import (
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

// ALTER TABLE's column actions change only the catalog, in one durable
// batch, as PostgreSQL does for them:
//
//   - ADD COLUMN appends the column. Stored rows are not rewritten: the
//     column's DEFAULT, evaluated once, is recorded as its missing value
//     (catalog.Column.Missing, PostgreSQL's attmissingval) and storage
//     fills it into the rows written before (storage.DB.SetMissing). A
//     volatile DEFAULT, or a stored generated column, needs a value per
//     row: on a table with rows the table is rewritten as for ALTER
//     COLUMN ... TYPE (alter_type.go), the value computed for each row.
//   - DROP COLUMN keeps the column in place, hidden and renamed
//     (catalog.Column.Dropped, attisdropped), so the other columns keep
//     their positions and the stored rows their encoding. The relations
//     whose definitions read it are refused (2BP01) or, with CASCADE,
//     dropped; indexes on it are dropped with it, as in PostgreSQL.
//   - RENAME COLUMN renames it.
//
// Views, materialized views, indexes and sinks are bound when created,
// and their definitions are stored as text and bound again at every
// start. So that they keep meaning what they meant, the first ADD or
// RENAME after their creation pins, in each of them, the table's
// columns as they were (catalog.Relation.DepCols): a later binding sees
// the old names and not the added columns, as PostgreSQL's views, bound
// by column number, do. Relations created after the change see the table
// as it is. Running jobs keep their plans: the engine hands them only
// the columns they were planned with (stream.Job.PushDML) and storage
// ignores the others when they read the table.

// alterTable runs ALTER TABLE ... ADD | DROP | RENAME COLUMN and ALTER
// COLUMN ... SET | DROP DEFAULT | NOT NULL.
func (s *Session) alterTable(ctx context.Context, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock(alterTag(st)); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := s.systemCatalogError(st.Name); err != nil {
		return nil, err
	}
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		if st.IfExists {
			io.Notice("NOTICE", "00000", fmt.Sprintf("relation \"%s\" does not exist, skipping", st.Name.Name))
			return done(alterTag(st))
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	if rel.Kind == catalog.KindView || rel.Kind == catalog.KindMView {
		// PostgreSQL's ALTER TABLE takes views and materialized views,
		// and refuses the first action each does not allow.
		for _, a := range append([]*sql.AlterTable{st}, st.More...) {
			if w, ok := viewActionWords[a.Action]; ok && (rel.Kind == catalog.KindMView || (a.Action != "set default" && a.Action != "drop default")) {
				return nil, pgerr.New(pgerr.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", w, rel.Name).
					WithDetail("This operation is not supported for %ss.", kindWords[rel.Kind])
			}
		}
	}
	if (rel.Kind == catalog.KindView || rel.Kind == catalog.KindMView) && st.Action == "rename column" && len(st.More) == 0 {
		return s.renameViewColumn(ctx, rel, st)
	}
	if rel.Kind != catalog.KindTable {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a table", rel.Name).
			WithHint("Use ALTER %s.", strings.ToUpper(kindWords[rel.Kind]))
	}
	if st.Action == "set logged" || st.Action == "set unlogged" {
		if len(st.More) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... %s together with other actions is not supported", strings.ToUpper(st.Action)).
				WithHint("Change it with an ALTER TABLE of its own.")
		}
		return s.setLogged(ctx, rel, st.Action == "set unlogged")
	}
	if planner.HasConnector(rel) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot alter the columns of table \"%s\": its rows come from connector %s", rel.Name, rel.With[optConnector]).
			WithHint("Drop the table and create it again with the new columns.")
	}
	if st.Action == "drop constraint" {
		if len(st.More) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... DROP CONSTRAINT together with other actions is not supported").
				WithHint("Drop the constraint with an ALTER TABLE of its own.")
		}
		return s.dropConstraint(ctx, rel, st, io)
	}
	for _, a := range append([]*sql.AlterTable{st}, st.More...) {
		if len(st.More) > 0 && (a.Action == "add check" || a.Action == "validate constraint" || len(a.Checks) > 0 || a.Def.Generated != "") {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD of a CHECK constraint or generated column together with other actions is not supported").
				WithHint("Add it with an ALTER TABLE of its own.")
		}
	}
	if st.Action == "add check" {
		return s.addCheck(ctx, rel, st.Checks[0])
	}
	if st.Action == "add column" && len(st.More) == 0 && len(st.ForeignKeys) > 0 {
		return s.addColumnReferences(ctx, rel, st, io)
	}
	for _, a := range append([]*sql.AlterTable{st}, st.More...) {
		if len(st.More) > 0 && (a.Action == "add foreign key" || a.Action == "add column" && len(a.ForeignKeys) > 0) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD of a FOREIGN KEY constraint together with other actions is not supported").
				WithHint("Add the column, then the constraint with an ALTER TABLE of its own.")
		}
	}
	if st.Action == "add foreign key" {
		return s.addForeignKey(ctx, rel, st.ForeignKeys[0])
	}
	if st.Action == "alter constraint" {
		acts := append([]*sql.AlterTable{st}, st.More...)
		for _, a := range acts {
			if a.Action != "alter constraint" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER CONSTRAINT together with other actions is not supported").
					WithHint("Alter the constraint with an ALTER TABLE of its own.")
			}
		}
		return s.alterConstraints(ctx, rel, acts)
	}
	if st.Action == "validate constraint" {
		if len(st.More) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... VALIDATE CONSTRAINT together with other actions is not supported").
				WithHint("Validate the constraint with an ALTER TABLE of its own.")
		}
		return s.validateConstraint(ctx, rel, st.Column)
	}
	for _, a := range st.More {
		if a.Action == "alter constraint" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER CONSTRAINT together with other actions is not supported").
				WithHint("Alter the constraint with an ALTER TABLE of its own.")
		}
		if a.Action == "drop constraint" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... DROP CONSTRAINT together with other actions is not supported").
				WithHint("Drop the constraint with an ALTER TABLE of its own.")
		}
	}
	for _, a := range append([]*sql.AlterTable{st}, st.More...) {
		if len(st.More) > 0 && a.Action == "add identity" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD GENERATED ... AS IDENTITY together with other actions is not supported").
				WithHint("Add the identity with an ALTER TABLE of its own.")
		}
	}
	if len(st.More) > 0 || st.Action == "set type" || st.Action == "add primary key" {
		return s.alterActions(ctx, rel, st, io)
	}
	switch st.Action {
	case "add column":
		if st.Def.CollateErr != nil {
			return nil, st.Def.CollateErr
		}
		return s.addColumn(ctx, rel, st, io)
	case "drop column":
		return s.dropColumn(ctx, rel, st, io)
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	i := visibleColumn(rel, st.Column)
	if i < 0 {
		if st.Action == "rename column" {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", st.Column)
		}
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", st.Column, rel.Name)
	}
	up := rel.Clone()
	col := &up.Cols[i]
	switch st.Action {
	case "rename column":
		if existingColumn(rel, st.NewName) >= 0 {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", st.NewName, rel.Name)
		}
		if err := watermarkColumn(rel, st.Column, "rename"); err != nil {
			return nil, err
		}
		if col.Seq != "" && col.SeqKey == "" {
			col.SeqKey = col.Name
		}
		col.Name = st.NewName
		if err := renameInRules(up, st.Column, st.NewName); err != nil {
			return nil, err
		}
		// SHOW CREATE TABLE prints the statement with the new name, and
		// so do the tables whose foreign keys reference the column.
		up.SQL = renameColumnInCreate(rel.SQL, rel.Name, st.Column, st.NewName)
		var referrers []*catalog.Relation
		for _, r := range e.cat.All() {
			if r.ID == rel.ID || r.Kind != catalog.KindTable || !slices.ContainsFunc(r.ForeignKeys, func(fk catalog.ForeignKey) bool {
				return fk.RefID == rel.ID && slices.Contains(fk.RefCols, i)
			}) {
				continue
			}
			if text := renameReferencedColumn(r.SQL, rel.Schema, rel.Name, st.Column, st.NewName); text != r.SQL {
				nr := r.Clone()
				nr.SQL = text
				referrers = append(referrers, nr)
			}
		}
		if t, ok := up.ColComments[st.Column]; ok {
			delete(up.ColComments, st.Column)
			up.ColComments[st.NewName] = t
		}
		return e.replaceTableAlso(rel, up, true, nil, referrers)
	case "set default":
		if col.Identity != "" {
			return nil, pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", col.Name, rel.Name).
				WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		if err := s.checkDefault(st.Default, 0, col.Name, col.T); err != nil {
			return nil, err
		}
		if _, _, err := s.evalDefault(rel, *col, st.Default); err != nil {
			return nil, err
		}
		col.Default = st.Default
	case "drop default":
		col.Default = ""
	case "add identity":
		return s.addIdentity(rel, up, i, st)
	case "drop expression":
		// The column keeps its values and becomes an ordinary one.
		if col.Generated == "" {
			msg := fmt.Sprintf("column \"%s\" of relation \"%s\" is not a stored generated column", col.Name, rel.Name)
			if st.IfColumn {
				io.Notice("NOTICE", "00000", msg+", skipping")
				return done("ALTER TABLE")
			}
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s", msg)
		}
		col.Generated = ""
	case "set not null":
		if col.NotNull {
			return done("ALTER TABLE")
		}
		nulls, err := e.anyRow(ctx, rel, func(r types.Row) bool { return r[i].Null })
		if err != nil {
			return nil, err
		}
		if nulls {
			return nil, pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", col.Name, rel.Name).
				WithTable(rel.Schema, rel.Name).WithColumn(col.Name)
		}
		col.NotNull = true
	case "drop not null":
		if slices.Contains(rel.PK, i) {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "column \"%s\" is in a primary key", col.Name)
		}
		if col.Identity != "" {
			return nil, pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", col.Name, rel.Name)
		}
		col.NotNull = false
	}
	return e.replaceTable(rel, up, false)
}

// renameViewColumn renames a column of view or materialized view rel,
// as ALTER TABLE | VIEW | MATERIALIZED VIEW ... RENAME COLUMN do in
// PostgreSQL: only the name changes. The relations reading rel pin its
// columns as they were (catalog.Relation.DepCols), as for a table's
// column, so their stored definitions keep binding as before, after a
// restart too; pg_get_viewdef prints them with the new name.
func (s *Session) renameViewColumn(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable) (wire.Result, error) {
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	i := visibleColumn(rel, st.Column)
	if i < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", st.Column)
	}
	if existingColumn(rel, st.NewName) >= 0 {
		return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", st.NewName, rel.Name)
	}
	up := rel.Clone()
	up.Cols[i].Name = st.NewName
	if t, ok := up.ColComments[st.Column]; ok {
		delete(up.ColComments, st.Column)
		up.ColComments[st.NewName] = t
	}
	if _, err := e.replaceTable(rel, up, true); err != nil {
		return nil, err
	}
	return done(alterTag(st))
}

// alterTag is the command tag of ALTER TABLE statement st: ALTER VIEW
// and ALTER MATERIALIZED VIEW keep their word.
func alterTag(st *sql.AlterTable) string {
	if st.Kind == "" {
		return "ALTER TABLE"
	}
	return "ALTER " + strings.ToUpper(st.Kind)
}

// viewActionWords names the column actions as PostgreSQL's errors do
// (alter_table_type_to_string).
var viewActionWords = map[string]string{
	"add column":    "ADD COLUMN",
	"drop column":   "DROP COLUMN",
	"set type":      "ALTER COLUMN ... SET DATA TYPE",
	"set not null":  "ALTER COLUMN ... SET NOT NULL",
	"drop not null": "ALTER COLUMN ... DROP NOT NULL",
	"set default":   "ALTER COLUMN ... SET DEFAULT",
	"drop default":  "ALTER COLUMN ... DROP DEFAULT",
	"set logged":    "SET LOGGED",
	"set unlogged":  "SET UNLOGGED",
}

// replaceTable records up in place of the table rel, pinning rel's
// columns in the relations that read it when pin is set (a change of
// what the columns are called or how many there are), and checks that
// each of them still binds as before. e.writeMu is held.
func (e *Engine) replaceTable(rel, up *catalog.Relation, pin bool) (wire.Result, error) {
	return e.replaceTableWith(rel, up, pin, nil)
}

// replaceTableWith is replaceTable whose catalog batch also carries the
// writes more makes (catalog.Catalog.ReplaceAllWith).
func (e *Engine) replaceTableWith(rel, up *catalog.Relation, pin bool, more func(*storage.Batch) error) (wire.Result, error) {
	return e.replaceTableAlso(rel, up, pin, more, nil)
}

// replaceTableAlso is replaceTableWith whose catalog batch also records
// the relations of also, other tables whose statements a change of rel
// rewrote.
func (e *Engine) replaceTableAlso(rel, up *catalog.Relation, pin bool, more func(*storage.Batch) error, also []*catalog.Relation) (wire.Result, error) {
	changes := []*catalog.Relation{up}
	if pin {
		names := make([]string, len(rel.Cols))
		for i, c := range rel.Cols {
			names[i] = c.Name
		}
		for _, d := range e.cat.Dependents(rel.ID) {
			if _, ok := d.DepCols[rel.ID]; ok {
				continue
			}
			nd := d.Clone()
			if nd.DepCols == nil {
				nd.DepCols = map[uint32][]string{}
			}
			nd.DepCols[rel.ID] = names
			changes = append(changes, nd)
		}
		over := map[uint32]*catalog.Relation{up.ID: up}
		for _, nd := range changes[1:] {
			if err := e.samePlanOver(nd, nd, over); err != nil {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot alter table \"%s\": %s \"%s\" would not read it as before", rel.Name, kindWords[nd.Kind], nd.Name).
					WithDetail("%v", err)
			}
		}
	}
	if err := e.cat.ReplaceAllWith(more, append(changes, also...)...); err != nil {
		return nil, err
	}
	e.refreshJobRels()
	e.log.Info("altered table", "name", rel.Name, "id", rel.ID, "pinned_definitions", len(changes)-1)
	return done("ALTER TABLE")
}

// refreshJobRels gives the running jobs their relations' current
// catalog entries. e.writeMu is held.
func (e *Engine) refreshJobRels() {
	for _, j := range e.st.jobs {
		if r, ok := e.cat.ByID(j.rel.ID); ok && r != j.rel {
			j.rel = r
		}
	}
}

// visibleColumn returns the index of rel's column name that queries see,
// or -1.
func visibleColumn(rel *catalog.Relation, name string) int {
	for i, c := range rel.Cols {
		if c.Name == name && !c.Hidden {
			return i
		}
	}
	return -1
}

// existingColumn returns the index of rel's column name, hidden ones
// included (a generated row id holds its name), or -1.
func existingColumn(rel *catalog.Relation, name string) int {
	for i, c := range rel.Cols {
		if c.Name == name && !c.Dropped {
			return i
		}
	}
	return -1
}

// watermarkColumn refuses to rename or drop a column the table's
// watermark is defined on.
func watermarkColumn(rel *catalog.Relation, col, verb string) error {
	if rel.With[planner.WithWatermarkColumn] == col || strings.Contains(rel.With[planner.WithWatermarkExpr], col) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot %s column \"%s\" of table \"%s\": the table's watermark is defined on it", verb, col, rel.Name)
	}
	return nil
}

// anyRow reports whether a row of table rel, as committed plus the
// changes not yet committed, satisfies pred. It stops with 57014 when
// ctx ends (the statement's cancel or statement_timeout): the
// validations of ALTER TABLE and ALTER DOMAIN read every row. e.writeMu
// is held.
func (e *Engine) anyRow(ctx context.Context, rel *catalog.Relation, pred func(types.Row) bool) (bool, error) {
	it := e.st.view.Scan(rel.ID, relTypes(rel))
	defer it.Close()
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return false, ctxError(ctx)
		}
		r, err := it.Next()
		if err != nil || r == nil {
			return false, err
		}
		if pred(r) {
			return true, nil
		}
	}
}

// evalDefault binds the DEFAULT text for column col of rel as an INSERT
// would (with its assignment cast) and, unless it is volatile, computes
// it: the value rows written before the column existed take.
func (s *Session) evalDefault(rel *catalog.Relation, col catalog.Column, text string) (types.Datum, bool, error) {
	expr, volatile, err := s.defaultExpr(rel, col, text)
	if err != nil || volatile {
		return types.NullDatum, volatile, err
	}
	ctx := context.Background()
	ec := s.execCtx(ctx, nil, nil, nil)
	op, err := executor.Build(&planner.Values{Rows: [][]planner.Expr{{expr}}, Out: types.Schema{{Name: col.Name, T: col.T}}}, ec)
	if err != nil {
		return types.NullDatum, false, err
	}
	defer op.Close()
	c, err := op.Next(ctx)
	if err != nil {
		return types.NullDatum, false, err
	}
	if c == nil || c.Len() != 1 {
		return types.NullDatum, false, pgerr.New(pgerr.InternalError, "the default of column \"%s\" gave no value", col.Name)
	}
	r := c.Row(0)
	copyDecimals(r)
	return r[0], false, nil
}

// defaultExpr binds the DEFAULT text for column col of rel as an INSERT
// would, with its assignment cast, and tells whether it calls a
// volatile function (so that each row needs a value of its own).
func (s *Session) defaultExpr(rel *catalog.Relation, col catalog.Column, text string) (planner.Expr, bool, error) {
	one := rel.Clone()
	col.Default, col.Hidden, col.NotNull = text, false, false
	one.Cols, one.PK, one.Checks = []catalog.Column{col}, nil, nil
	ins := "INSERT INTO " + sql.QuoteIdent(rel.Schema) + "." + sql.QuoteIdent(rel.Name) + " VALUES (DEFAULT)"
	q, err := parseQuery(ins)
	if err != nil {
		return nil, false, err
	}
	is := s.eng.internalSession()
	is.over = map[uint32]*catalog.Relation{rel.ID: one}
	b, err := planner.Bind(q, is.catalogView(), nil)
	if err != nil {
		return nil, false, err
	}
	var vals *planner.Values
	if insert, ok := b.Plan.(*planner.Insert); ok {
		vals, _ = insert.Input.(*planner.Values)
	}
	if vals == nil || len(vals.Rows) != 1 || len(vals.Rows[0]) != 1 {
		return nil, false, pgerr.New(pgerr.InternalError, "unexpected plan for the default of column \"%s\"", col.Name)
	}
	expr := vals.Rows[0][0]
	volatile := false
	planner.WalkExpr(expr, func(x planner.Expr) {
		if c, ok := x.(*planner.Call); ok {
			for _, o := range planner.Overloads(c.Fn) {
				volatile = volatile || o.Volatile
			}
		}
	})
	return expr, volatile, nil
}

// addColumn runs ALTER TABLE ... ADD COLUMN.
func (s *Session) addColumn(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	def := st.Def
	if def.Generated != "" && def.Default != "" {
		return nil, pgerr.New(pgerr.SyntaxError, "both default and generation expression specified for column \"%s\" of table \"%s\"", def.Name, rel.Name).WithPosition(def.GeneratedAt)
	}
	if existingColumn(rel, def.Name) >= 0 {
		if st.IfColumn {
			io.Notice("NOTICE", "42701", fmt.Sprintf("column \"%s\" of relation \"%s\" already exists, skipping", def.Name, rel.Name))
			return done("ALTER TABLE")
		}
		return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", def.Name, rel.Name)
	}
	if def.Serial || def.Identity != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of a serial or identity column is not supported").
			WithHint("Add an integer column and fill it with UPDATE.")
	}
	if def.Generated != "" {
		// Rows written before take the column's value computed from
		// them: a table with rows is rewritten, as for a volatile
		// DEFAULT (planAlter binds and checks the expression).
		if len(st.Checks) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of a generated column with a CHECK constraint is not supported").
				WithHint("Add the constraint with an ALTER TABLE of its own.")
		}
		return s.alterActions(ctx, rel, st, io)
	}
	col := catalog.Column{Name: def.Name, T: def.Type.T, Domain: def.Type.Domain, DomainArray: def.Type.DomainArray, NotNull: def.NotNull, Default: def.Default, Added: true, Collation: def.Collation}
	if def.Default != "" {
		if err := s.checkDefault(def.Default, 0, col.Name, col.T); err != nil {
			return nil, err
		}
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			e.writeMu.Unlock()
		}
	}()
	hasRows, err := e.anyRow(ctx, rel, func(types.Row) bool { return true })
	if err != nil {
		return nil, err
	}
	missing := types.NullDatum
	// A column of a domain type without a default of its own takes the
	// domain's.
	if dtext := s.columnDefault(col); dtext != "" {
		v, volatile, err := s.evalDefault(rel, col, dtext)
		if err != nil {
			return nil, err
		}
		if volatile && hasRows {
			// Each row takes a value of its own: the table is
			// rewritten, as for a change of type.
			locked = false
			e.writeMu.Unlock()
			return s.alterActions(ctx, rel, st, io)
		}
		missing = v
	}
	if col.Domain != 0 && hasRows {
		// Every row takes the value, which must satisfy the domain.
		if err := s.checkDomainValue(ctx, col, missing); err != nil {
			return nil, err
		}
	}
	if col.NotNull && missing.Null && hasRows {
		return nil, pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", col.Name, rel.Name).
			WithTable(rel.Schema, rel.Name).WithColumn(col.Name)
	}
	if !missing.Null {
		col.Missing = &missing
	}
	up := rel.Clone()
	up.Cols = append(up.Cols, col)
	taken := e.checkNamesIn(rel.Schema)
	for _, c := range st.Checks {
		expr, err := s.addCheckTo(ctx, up, c, taken, false)
		if err != nil {
			return nil, err
		}
		if err := s.validateCheck(ctx, rel, expr, up.Checks[len(up.Checks)-1].Name, &missing, col.T); err != nil {
			return nil, err
		}
	}
	// Readers see the missing value before any of them can see the
	// column.
	m, _ := up.MissingRow()
	e.db.SetMissing(rel.ID, m)
	return e.replaceTable(rel, up, true)
}

// dropConstraint runs ALTER TABLE ... DROP CONSTRAINT: a CHECK
// constraint leaves the catalog, a UNIQUE constraint goes with its index. ddlMu is held.
func (s *Session) dropConstraint(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	if res, ok, err := e.dropCheck(rel, st.Column); ok || err != nil {
		return res, err
	}
	if res, ok, err := e.dropForeignKey(rel, st.Column); ok || err != nil {
		return res, err
	}
	if len(rel.PK) > 0 && !rel.Cols[rel.PK[0]].Hidden && st.Column == rel.Name+"_pkey" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot drop constraint %s on table %s: it is the table's primary key", st.Column, rel.Name).
			WithDetail("weir stores a table's rows by its primary key and cannot key them anew.").
			WithHint("Create a table without the primary key and copy the rows into it.")
	}
	var idx *catalog.Relation
	for _, d := range e.indexesOf(rel.ID) {
		if d.Name == st.Column && d.With[catalog.IndexConstraintOption] == "true" {
			idx = d
		}
	}
	if idx == nil {
		if st.IfColumn {
			io.Notice("NOTICE", "00000", fmt.Sprintf("constraint \"%s\" of relation \"%s\" does not exist, skipping", st.Column, rel.Name))
			return done("ALTER TABLE")
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", st.Column, rel.Name)
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	order, err := e.dropOrder([]*catalog.Relation{idx}, true, func(*catalog.Relation) {})
	var replace []*catalog.Relation
	if err == nil {
		replace, err = e.fkDropKey(rel, idx, st.Cascade, io)
	}
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := e.dropReplacing(ctx, order, replace); err != nil {
		return nil, err
	}
	return done("ALTER TABLE")
}

// dropColumn runs ALTER TABLE ... DROP COLUMN.
func (s *Session) dropColumn(ctx context.Context, rel *catalog.Relation, st *sql.AlterTable, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			e.writeMu.Unlock()
		}
	}()
	i := visibleColumn(rel, st.Column)
	if i < 0 {
		if st.IfColumn {
			io.Notice("NOTICE", "00000", fmt.Sprintf("column \"%s\" of relation \"%s\" does not exist, skipping", st.Column, rel.Name))
			return done("ALTER TABLE")
		}
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", st.Column, rel.Name)
	}
	if slices.Contains(rel.PK, i) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %s of table %s: it is part of the table's primary key", st.Column, rel.Name).
			WithDetail("weir stores a table's rows by its primary key and cannot key them anew.").
			WithHint("Create a table without the column and copy the rows into it.")
	}
	if err := watermarkColumn(rel, st.Column, "drop"); err != nil {
		return nil, err
	}
	up := droppedColumn(rel, i)
	if err := s.rulesOnDropColumn(ctx, rel, up, i, st.Cascade); err != nil {
		return nil, err
	}
	readers := e.columnReaders(rel, rel, i)
	if err := dropBlocked(rel, st.Column, readers); err != nil && !st.Cascade {
		return nil, err
	}
	// Indexes on the column go with it, as in PostgreSQL; other readers
	// (and what reads them) with CASCADE, each named in a notice.
	var lines []string
	for _, d := range readers {
		if d.Kind != catalog.KindIndex {
			lines = append(lines, fmt.Sprintf("drop cascades to %s %s", kindWords[d.Kind], d.Name))
		}
	}
	order, err := e.dropOrder(readers, true, func(d *catalog.Relation) {
		if d.Kind != catalog.KindIndex {
			lines = append(lines, fmt.Sprintf("drop cascades to %s %s", kindWords[d.Kind], d.Name))
		}
	})
	if err != nil {
		return nil, err
	}
	// The sequences OWNED BY the column go with it, without a notice.
	order = append(order, e.ownedSequences(rel.ID, i)...)
	switch {
	case len(lines) == 1:
		io.Notice("NOTICE", "00000", lines[0])
	case len(lines) > 1:
		msg := fmt.Sprintf("drop cascades to %d other objects", len(lines))
		if nd, ok := io.(noticeDetailer); ok {
			nd.NoticeDetail("NOTICE", "00000", msg, strings.Join(lines, "\n"))
		} else {
			io.Notice("NOTICE", "00000", msg)
		}
	}
	if len(order) > 0 {
		// The readers go first: a crash after this leaves the column
		// in place with nothing reading it, never the reverse.
		locked = false
		e.writeMu.Unlock()
		if err := e.dropRelations(ctx, order); err != nil {
			return nil, err
		}
		e.writeMu.Lock()
		locked = true
		cur, ok := e.cat.ByID(rel.ID)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", rel.Name)
		}
		up = droppedColumn(cur, i)
		if err := s.rulesOnDropColumn(ctx, cur, up, i, st.Cascade); err != nil {
			return nil, err
		}
		rel = cur
	}
	return e.replaceTable(rel, up, false)
}

// columnReaders returns the relations reading table rel whose
// definitions read column i of up (rel as an ALTER TABLE is changing
// it): binding them without the column fails or changes what they mean.
func (e *Engine) columnReaders(rel, up *catalog.Relation, i int) []*catalog.Relation {
	over := map[uint32]*catalog.Relation{rel.ID: droppedColumn(up, i)}
	var readers []*catalog.Relation
	for _, d := range e.cat.Dependents(rel.ID) {
		if err := e.samePlanOver(d, d, over); err != nil {
			readers = append(readers, d)
		}
	}
	return readers
}

// dropBlocked returns DROP COLUMN's 2BP01 when readers (of column col of
// table rel) hold more than indexes, which go with the column.
func dropBlocked(rel *catalog.Relation, col string, readers []*catalog.Relation) error {
	// A reader of another reader depends on that one, as PostgreSQL
	// says (its Deps hold the table through the other), and is listed
	// right after it: PostgreSQL walks the dependencies depth first.
	parent := map[uint32]*catalog.Relation{}
	for _, d := range readers {
		if d.Kind == catalog.KindIndex {
			continue
		}
		for _, r := range readers {
			if r.ID != d.ID && r.Kind != catalog.KindIndex && slices.Contains(d.Deps, r.ID) {
				parent[d.ID] = r
				break
			}
		}
	}
	var blocking []string
	listed := map[uint32]bool{}
	var list func(of *catalog.Relation)
	list = func(of *catalog.Relation) {
		for _, d := range readers {
			if d.Kind == catalog.KindIndex || listed[d.ID] || parent[d.ID] != of {
				continue
			}
			listed[d.ID] = true
			on := fmt.Sprintf("column %s of table %s", col, rel.Name)
			if of != nil {
				on = kindWords[of.Kind] + " " + of.Name
			}
			blocking = append(blocking, fmt.Sprintf("%s %s depends on %s", kindWords[d.Kind], d.Name, on))
			list(d)
		}
	}
	list(nil)
	if len(blocking) == 0 {
		return nil
	}
	return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", col, rel.Name).
		WithDetail("%s", strings.Join(blocking, "\n")).
		WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// droppedColumn returns rel with column i dropped (catalog.Column.Dropped).
func droppedColumn(rel *catalog.Relation, i int) *catalog.Relation {
	up := rel.Clone()
	old := up.Cols[i]
	up.Cols[i] = catalog.Column{Name: catalog.DroppedName(i + 1), T: old.T, Hidden: true, Dropped: true, Added: old.Added, Missing: old.Missing}
	delete(up.ColComments, old.Name)
	return up
}

// registerMissing tells storage the missing values of every table with
// added columns (catalog.Column.Missing), before anything reads them.
func registerMissing(db *storage.DB, cat *catalog.Catalog) {
	for _, r := range cat.All() {
		if r.Kind != catalog.KindTable {
			continue
		}
		if m, ok := r.MissingRow(); ok {
			db.SetMissing(r.ID, m)
		}
	}
}

// setLogged runs ALTER TABLE ... SET LOGGED | UNLOGGED: only what the
// table is called changes (pg_class.relpersistence and the UNLOGGED of
// its definition), weir keeping every table as durable. As in
// PostgreSQL, a temporary table has no such status, a logged table may
// not reference an unlogged one, nor an unlogged one be referenced by a
// logged one (42P16).
func (s *Session) setLogged(ctx context.Context, rel *catalog.Relation, unlogged bool) (wire.Result, error) {
	e := s.eng
	if rel.Temp {
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "cannot change logged status of table \"%s\" because it is temporary", rel.Name).
			WithTable(rel.Schema, rel.Name)
	}
	if rel.Unlogged == unlogged {
		return done("ALTER TABLE")
	}
	// A logged table may not reference an unlogged one: to become
	// logged, rel's references must be to logged tables; to become
	// unlogged, no logged table may reference it (PostgreSQL's
	// ATPrepChangePersistence, its wording included). A reference to
	// itself does not count.
	if !unlogged {
		for _, fk := range rel.ForeignKeys {
			if ref, ok := e.cat.ByID(fk.RefID); ok && ref.ID != rel.ID && ref.Unlogged {
				return nil, pgerr.New(pgerr.InvalidTableDefinition, "could not change table \"%s\" to logged because it references unlogged table \"%s\"", rel.Name, ref.Name).
					WithTable(rel.Schema, rel.Name).WithConstraint(fk.Name)
			}
		}
	} else {
		for _, r := range e.cat.All() {
			for _, fk := range r.ForeignKeys {
				if fk.RefID == rel.ID && r.ID != rel.ID && !r.Unlogged && !r.Temp {
					return nil, pgerr.New(pgerr.InvalidTableDefinition, "could not change table \"%s\" to unlogged because it references logged table \"%s\"", rel.Name, r.Name).
						WithTable(rel.Schema, rel.Name).WithConstraint(fk.Name)
				}
			}
		}
	}
	up := rel.Clone()
	up.Unlogged = unlogged
	up.SQL = setUnloggedWord(up.SQL, unlogged)
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	if _, err := e.replaceTable(rel, up, false); err != nil {
		return nil, err
	}
	return done("ALTER TABLE")
}

// setUnloggedWord returns CREATE TABLE statement text with UNLOGGED
// after CREATE when unlogged is set, without it otherwise, for SHOW
// CREATE TABLE.
func setUnloggedWord(text string, unlogged bool) string {
	toks, err := sql.Lex(text)
	if err != nil || len(toks) < 2 || toks[0].Kind != sql.TIdent || toks[0].Val != "create" {
		return text
	}
	next := toks[1]
	has := next.Kind == sql.TIdent && next.Val == "unlogged"
	switch {
	case unlogged && !has:
		return text[:next.Off] + "UNLOGGED " + text[next.Off:]
	case !unlogged && has && len(toks) > 2:
		return text[:next.Off] + text[toks[2].Off:]
	}
	return text
}

// addIdentity runs ALTER COLUMN ... ADD GENERATED ... AS IDENTITY, as
// pg_dump writes an identity column: column i of rel (up its copy to
// change) becomes an identity column owning a new sequence, named by
// SEQUENCE NAME or as CREATE TABLE names one, whose next value is START.
// e.writeMu is held.
func (s *Session) addIdentity(rel, up *catalog.Relation, i int, st *sql.AlterTable) (wire.Result, error) {
	e := s.eng
	col := &up.Cols[i]
	if id := col.T.ID; col.Domain != 0 || id != types.Int2 && id != types.Int4 && id != types.Int8 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	// The sequence is checked first: PostgreSQL makes it before it
	// looks at the column.
	if max := seqMax(col.T); st.IdentityStart > max {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", st.IdentityStart, max)
	} else if st.IdentityStart < 1 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (1)", st.IdentityStart)
	}
	name := st.IdentitySeq.Name
	if name == "" {
		name = e.ownedSequenceName(rel.Schema, rel.Name, col.Name, nil)
	} else {
		if st.IdentitySeq.Schema != "" && s.schemaOf(st.IdentitySeq) != rel.Schema {
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
		}
		if _, ok := e.cat.Lookup(rel.Schema, name); ok {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
		}
		if t, owned := e.findOwnedSequence(name); owned && t.Schema == rel.Schema {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
		}
	}
	if !col.NotNull {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", col.Name, rel.Name)
	}
	if col.Identity != "" {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is already an identity column", col.Name, rel.Name)
	}
	if col.Default != "" || col.Generated != "" || col.Seq != "" {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" already has a default value", col.Name, rel.Name)
	}
	col.Identity, col.Seq, col.SeqKey, col.SeqStart = st.Identity, name, "", 0
	if st.IdentityStart != 1 {
		col.SeqStart = st.IdentityStart
	}
	if _, err := e.replaceTable(rel, up, false); err != nil {
		return nil, err
	}
	// The sequence's position is recorded at once: a column of that
	// name may have owned a sequence before.
	if err := e.setval(up, i, st.IdentityStart, false); err != nil {
		return nil, err
	}
	return done("ALTER TABLE")
}
