package engine

import (
	"cmp"
	"context"
	"fmt"
	"github.com/weirdb/weir/engine/syscat"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// utilPrepared is a prepared utility statement (DDL, SET, SHOW, ...). It
// does its work at Execute time; fields are known at Prepare time so
// Describe can answer.
type utilPrepared struct {
	fields []wire.Field
	params []types.T
	run    func(ctx context.Context, params []types.Datum, io wire.ExecIO) (wire.Result, error)
}

func (p *utilPrepared) ParamTypes() []types.T { return p.params }
func (p *utilPrepared) Fields() []wire.Field  { return p.fields }
func (p *utilPrepared) Execute(ctx context.Context, params []types.Datum, io wire.ExecIO) (wire.Result, error) {
	return p.run(ctx, params, io)
}

// done returns a utility statement that only reports tag.
func done(tag string) (wire.Result, error) { return &rowsResult{tag: tag}, nil }

func textFields(names ...string) []wire.Field {
	fs := make([]wire.Field, len(names))
	for i, n := range names {
		fs[i] = wire.Field{Name: n, T: types.TText}
	}
	return fs
}

func textRow(vals ...string) types.Row {
	r := make(types.Row, len(vals))
	for i, v := range vals {
		r[i] = types.DString(v)
	}
	return r
}

// prepare dispatches a parsed statement.
func (s *Session) prepare(ctx context.Context, stmt sql.Stmt, text string, hints []types.T) (wire.Prepared, error) {
	// statement_timeout covers every utility statement, as any statement
	// in PostgreSQL: its waits for the engine's locks, for checkpoints
	// and for jobs, and the loops of those that read or write rows, stop
	// with 57014 when it ends (or a cancel comes), leaving things as
	// they were; past its commit point a statement completes.
	simple := func(run func(ctx context.Context, io wire.ExecIO) (wire.Result, error)) *utilPrepared {
		return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
			ctx, cancel := s.withTimeout(ctx)
			defer cancel()
			if err := s.resolveStmtTypes(stmt); err != nil {
				return nil, err
			}
			// A statement that may change the catalog runs with the
			// redo log's path shut and after the statements it
			// acknowledged are committed (redo.go).
			if changesCatalog(stmt) {
				end, err := s.eng.quiesceRedo(ctx)
				if err != nil {
					return nil, err
				}
				defer end()
			}
			// The table locks the statement takes, before any of the
			// engine's own locks (locks.go).
			if names, _ := s.utilityLocks(stmt); len(names) > 0 {
				lctx, cancel := s.withTimeout(ctx)
				err := s.lockUtility(lctx, stmt)
				cancel()
				defer s.endStatementLocks()
				if err != nil {
					return nil, err
				}
			}
			return run(ctx, io)
		}}
	}
	if err := s.checkOtherTemp(stmt); err != nil {
		return nil, err
	}
	if err := s.authorizeText(stmt, text); err != nil {
		return nil, err
	}
	switch stmt.(type) {
	case *sql.CreateTable, *sql.CreateView, *sql.CreateIndex, *sql.CreateSource, *sql.CreateSink, *sql.CreateSchema, *sql.AlterSystem,
		*sql.CreateRole, *sql.AlterRole, *sql.Grant:
		// DDL writes the catalog and may start a job; DROP and TRUNCATE
		// free space and go on.
		if err := s.eng.checkDiskSpace(); err != nil {
			return nil, err
		}
	}
	switch st := stmt.(type) {
	case *sql.Query:
		return s.prepareCached(ctx, st, text, hints)
	case *sql.CreateRole:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createRole(ctx, st, io) }), nil
	case *sql.AlterRole:
		// NOSUPERUSER or NOINHERIT may take privileges from the owner of
		// a view, whose job reads with them (job_privileges.go).
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.eng.thenCheckJobs(ctx)(s.alterRole(ctx, st, io))
		}), nil
	case *sql.DropRole:
		// The members of a dropped role lose what it gave them.
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.eng.thenCheckJobs(ctx)(s.dropRole(ctx, st, io))
		}), nil
	case *sql.Grant:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			res, err := s.grant(ctx, st, io)
			if st.Revoke {
				return s.eng.thenCheckJobs(ctx)(res, err)
			}
			return res, err
		}), nil
	case *sql.CreateTable:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			res, err := s.createTable(ctx, st, text, io)
			if err == nil && !s.inBlock() && !s.implicit {
				// The statement was its own transaction: ON COMMIT
				// DROP acts as it commits.
				err = s.endBlockTemps(ctx, true)
			}
			return res, err
		}), nil
	case *sql.CreateView:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createView(ctx, st, io) }), nil
	case *sql.CreateIndex:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createIndex(ctx, st, io) }), nil
	case *sql.CreateSource:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.createSource(ctx, st, text, io)
		}), nil
	case *sql.CreateSink:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.createSink(ctx, st, text, io)
		}), nil
	case *sql.Drop:
		if st.Kind == "type" || st.Kind == "domain" {
			return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.dropTypes(ctx, st, io) }), nil
		}
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.drop(ctx, st, io) }), nil
	case *sql.CreateEnum:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createEnum(ctx, st) }), nil
	case *sql.AlterType:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterType(ctx, st, io) }), nil
	case *sql.CreateDomain:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createDomain(ctx, st) }), nil
	case *sql.CreateFunction:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createFunction(ctx, st) }), nil
	case *sql.DropFunction:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.dropFunction(ctx, st, io) }), nil
	case *sql.AlterDomain:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterDomain(ctx, st) }), nil
	case *sql.CreateSchema:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.createSchema(ctx, st, io) }), nil
	case *sql.CreateSequence:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.createSequence(ctx, st, text, io)
		}), nil
	case *sql.AlterSequence:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterSequence(ctx, st, io) }), nil
	case *sql.Truncate:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.truncate(ctx, st, io) }), nil
	case *sql.Set:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.runSet(st, io) }), nil
	case *sql.SetConstraints:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.setConstraints(ctx, st, io) }), nil
	case *sql.Reset:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.runReset(st, io) }), nil
	case *sql.Txn:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.runTxn(ctx, st, io) }), nil
	case *sql.Prepare:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.prepareSQL(ctx, st, text) }), nil
	case *sql.Execute:
		return s.prepareExecute(ctx, st)
	case *sql.DeclareCursor:
		return s.prepareDeclare(ctx, st, text)
	case *sql.Fetch:
		return s.prepareFetch(st)
	case *sql.CloseCursor:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.closeCursor(st) }), nil
	case *sql.Deallocate:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.deallocate(st) }), nil
	case *sql.Lock:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.lockTable(ctx, st) }), nil
	case *sql.Discard:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			what := orDefault(st.What, "all")
			if what == "temporary" {
				what = "temp"
			}
			if what == "all" {
				if err := s.notInBlock("DISCARD ALL"); err != nil {
					return nil, err
				}
			}
			if what == "all" || what == "temp" {
				// Dropping is DDL, which runs outside blocks only.
				if err := s.noDDLInBlock("DISCARD " + strings.ToUpper(what)); err != nil {
					return nil, err
				}
				if err := s.dropTemp(ctx); err != nil {
					return nil, err
				}
			}
			if what == "all" {
				// DISCARD ALL is, among others, SET SESSION
				// AUTHORIZATION DEFAULT and RESET ALL: every setting,
				// role and session user included, back to its default.
				// DISCARD PLANS, SEQUENCES and TEMP leave settings be.
				s.sqlPrepared = nil
				s.closeCursors(true)
				s.vars = map[string]string{}
			}
			return done("DISCARD " + strings.ToUpper(what))
		}), nil
	case *sql.Flush:
		// FLUSH waits for the next committed checkpoint: everything
		// written before it is durable and in every view. After a
		// restart it first waits for every view to be readable (its
		// recovery's or backfill's first checkpoint committed), so the
		// views it promises are up to date are not still recovering.
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			if err := s.flushWrites(ctx); err != nil {
				return nil, err
			}
			return done("FLUSH")
		}), nil
	case *sql.Refresh:
		// A populated materialized view is kept up to date as its
		// inputs change: REFRESH waits, as FLUSH, until it holds what
		// was written before. An unpopulated one is filled (populate.go).
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.refresh(ctx, st, io) }), nil
	case *sql.Rename:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.rename(ctx, st, io) }), nil
	case *sql.AlterTable:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterTable(ctx, st, io) }), nil
	case *sql.AlterOwner:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterOwner(ctx, st, io) }), nil
	case *sql.SetParallelism:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.setParallelism(ctx, st) }), nil
	case *sql.Comment:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.comment(ctx, st) }), nil
	case *sql.Backup:
		return &utilPrepared{fields: backupFields, run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
			return s.runBackup(ctx, st, io)
		}}, nil
	case *sql.AlterSystem:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) { return s.alterSystem(ctx, st) }), nil
	case *sql.AlterJob:
		return simple(func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			if err := s.noDDLInBlock("ALTER " + strings.ToUpper(st.Kind)); err != nil {
				return nil, err
			}
			if err := s.resumeJob(ctx, st.Kind, s.schemaOf(st.Name), st.Name.Name, io); err != nil {
				return nil, err
			}
			return done("ALTER " + strings.ToUpper(st.Kind))
		}), nil
	case *sql.Show:
		return s.prepareShow(st)
	case *sql.Describe:
		return s.prepareDescribe(st)
	case *sql.Explain:
		return s.prepareExplain(ctx, st, hints)
	case *sql.ExplainJob:
		return s.prepareExplainJob(st)
	case *sql.Copy:
		return s.prepareCopy(st)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported here", planner.StatementName(stmt))
}

// changesCatalog reports whether a utility statement may change the
// catalog or the tables' rows besides DML (DDL, TRUNCATE, REFRESH, ...):
// all but the session's settings, transaction control, cursors,
// prepared statements, locks and FLUSH.
func changesCatalog(stmt sql.Stmt) bool {
	switch stmt.(type) {
	case *sql.Set, *sql.Reset, *sql.Txn, *sql.Prepare, *sql.CloseCursor, *sql.Deallocate,
		*sql.SetConstraints, *sql.Flush, *sql.Lock:
		return false
	}
	return true
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// expandLike returns st with each LIKE clause of its column list replaced
// by the columns of the relation it names, as PostgreSQL's
// transformTableLikeClause: names, types, NOT NULL and collations, and
// the defaults' text under INCLUDING DEFAULTS (a serial column's default
// still takes the other table's sequence, as in PostgreSQL), the
// generation expressions under INCLUDING GENERATED, and under INCLUDING
// CONSTRAINTS its CHECK constraints, named as there, after the table's
// own. Reading the relation's columns needs SELECT on it.
func (s *Session) expandLike(st *sql.CreateTable) (*sql.CreateTable, error) {
	if !slices.ContainsFunc(st.Columns, func(c sql.ColumnDef) bool { return c.Like != nil }) {
		return st, nil
	}
	if st.With["connector"] != "" || st.Format != "" || len(st.Include) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "LIKE in a table with a connector is not supported")
	}
	out := *st
	out.Columns = nil
	var likeChecks []sql.CheckDef
	for _, c := range st.Columns {
		if c.Like == nil {
			out.Columns = append(out.Columns, c)
			continue
		}
		rel, ok := s.eng.cat.Lookup(s.schemaOf(c.Like.Table), c.Like.Table.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", c.Like.Table.String()).WithPosition(c.Like.Pos)
		}
		switch rel.Kind {
		case catalog.KindTable, catalog.KindView, catalog.KindMView, catalog.KindSource:
		default:
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a table, view, materialized view, composite type, or foreign table", rel.Name).WithPosition(c.Like.Pos)
		}
		if !s.eng.holds(s.role(), rel, catalog.PrivSelect) {
			return nil, denied(rel)
		}
		for _, col := range rel.Cols {
			if col.Hidden {
				continue
			}
			def := sql.ColumnDef{Name: col.Name, Type: sql.TypeName{T: col.T, Text: col.T.String()}, NotNull: col.NotNull, Collation: col.Collation}
			if c.Like.Defaults {
				def.Default = col.Default
			}
			if c.Like.Generated {
				def.Generated = col.Generated
			}
			out.Columns = append(out.Columns, def)
		}
		if c.Like.Constraints {
			// PostgreSQL adds them after the table's own, names kept.
			for _, k := range rel.Checks {
				likeChecks = append(likeChecks, sql.CheckDef{Name: k.Name, Expr: k.Expr, NoInherit: k.NoInherit})
			}
		}
	}
	out.Checks = append(slices.Clone(st.Checks), likeChecks...)
	return &out, nil
}

// systemCatalogError is 42501 when n names a relation of the system
// catalogs (pg_catalog, information_schema), which no DDL may change: an
// unqualified name resolves there first when search_path puts pg_catalog
// before public (as it does implicitly), even if public holds a relation
// of that name. PostgreSQL says the same.
func (s *Session) systemCatalogError(n sql.ObjectName) error {
	if s.schemaOf(n) == s.tempSchema && s.tempSchema != "" {
		// A temporary relation comes before pg_catalog's.
		return nil
	}
	if n.Schema == "" {
		if !syscat.CatalogFirst(s.searchPath(), n.Name) {
			return nil
		}
	} else if _, _, ok := syscat.Lookup(n.Schema, n.Name); !ok {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", n.Name)
}

// hiddenRowID is the name of the generated key column of a table without
// a primary key.
const hiddenRowID = "_row_id"

func (s *Session) createTable(ctx context.Context, st *sql.CreateTable, text string, io wire.ExecIO) (wire.Result, error) {
	st, err := s.placeTable(st)
	if err != nil {
		return nil, err
	}
	// A temporary table may be created inside a transaction block: no
	// other session sees it, so the block's end can undo it (temp.go).
	inBlock := st.Temp && s.inBlock() && len(st.Uniques) == 0
	if !inBlock {
		if err := s.noDDLInBlock("CREATE TABLE"); err != nil {
			return nil, err
		}
	}
	if st, err = s.expandLike(st); err != nil {
		return nil, err
	}
	if len(st.Uniques) > 0 {
		return s.createTableUnique(ctx, st, text, io)
	}
	if st.With["connector"] != "" || st.Format != "" || len(st.Include) > 0 {
		if len(st.ForeignKeys) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "foreign keys on tables whose rows come from a connector are not supported")
		}
		if len(st.Checks) > 0 || slices.ContainsFunc(st.Columns, func(c sql.ColumnDef) bool { return c.Generated != "" }) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "CHECK constraints and generated columns on a table whose rows come from a connector are not supported")
		}
		return s.createConnectorTable(ctx, st, text, io)
	}
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	schema := s.schemaOf(st.Name)
	if _, ok := e.cat.Lookup(schema, st.Name.Name); ok {
		if st.IfNotExists {
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", st.Name.Name))
			if st.AsQuery != nil {
				// PostgreSQL's tag when CREATE TABLE AS creates nothing.
				return done("CREATE TABLE AS")
			}
			return done("CREATE TABLE")
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Name.Name)
	}
	for _, c := range st.Columns {
		if c.CollateErr != nil {
			return nil, c.CollateErr
		}
	}
	rel := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: catalog.KindTable, SQL: text, With: maps.Clone(st.With), Unlogged: st.Unlogged}
	if rel.With == nil {
		rel.With = map[string]string{}
	}
	if st.AppendOnly {
		rel.With[appendOnlyOption] = "true"
	}
	var asBound *planner.Bound
	if st.AsQuery != nil {
		b, err := planner.Bind(st.AsQuery, s.catalogView(), nil)
		if err != nil {
			return nil, err
		}
		if err := s.noSourceReads(b); err != nil {
			return nil, err
		}
		asBound = b
		// The query's columns keep their collations and domains, which
		// the new table's columns then check as any of its writes.
		colls, doms := planner.Collations(b.Plan), planner.Domains(b.Plan)
		for i, c := range b.Plan.Schema() {
			t := c.T
			if t.ID == types.Unknown {
				t = types.TText
			}
			rel.Cols = append(rel.Cols, catalog.Column{Name: c.Name, T: t, Collation: colls[i], Domain: doms[i].OID, DomainArray: doms[i].Array})
		}
		if len(st.AsColumns) > len(rel.Cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
		}
		for i, n := range st.AsColumns {
			rel.Cols[i].Name = n
		}
		names := map[string]bool{}
		for _, c := range rel.Cols {
			if names[c.Name] {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name)
			}
			names[c.Name] = true
		}
	}
	seen := map[string]bool{}
	seqNames := map[string]bool{}
	base := len(rel.Cols)
	for _, c := range st.Columns {
		if seen[c.Name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name)
		}
		seen[c.Name] = true
		col := catalog.Column{Name: c.Name, T: c.Type.T, Domain: c.Type.Domain, DomainArray: c.Type.DomainArray, NotNull: c.NotNull || c.PrimaryKey, Default: c.Default, Identity: c.Identity, Collation: c.Collation}
		switch {
		case c.Identity != "" && c.Default != "":
			return nil, pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", c.Name, st.Name.Name)
		case c.Serial && c.Default != "":
			return nil, pgerr.New(pgerr.SyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", c.Name, st.Name.Name)
		case c.Serial && c.Identity != "":
			return nil, pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", c.Name, st.Name.Name)
		case c.Identity != "" && !col.T.IsInteger():
			return nil, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
		case c.Generated != "" && c.Identity != "":
			return nil, pgerr.New(pgerr.SyntaxError, "both identity and generation expression specified for column \"%s\" of table \"%s\"", c.Name, st.Name.Name).WithPosition(c.GeneratedAt)
		case c.Generated != "" && (c.Default != "" || c.Serial):
			return nil, pgerr.New(pgerr.SyntaxError, "both default and generation expression specified for column \"%s\" of table \"%s\"", c.Name, st.Name.Name).WithPosition(c.GeneratedAt)
		}
		col.Generated = c.Generated
		if c.Serial || c.Identity != "" {
			col.Seq = e.ownedSequenceName(schema, st.Name.Name, c.Name, seqNames)
			seqNames[col.Seq] = true
			if c.Serial {
				col.Default = "nextval('" + strings.ReplaceAll(sql.QuoteIdent(col.Seq), "'", "''") + "')"
			}
		}
		rel.Cols = append(rel.Cols, col)
	}
	// The DEFAULTs are checked once every column is read, as PostgreSQL
	// cooks them when the serial columns' sequences exist, which they
	// may name.
	newSeqs := slices.Sorted(maps.Keys(seqNames))
	for i, c := range st.Columns {
		if c.Default != "" {
			text, pos := c.Default, 0
			if c.DefaultWritten != "" {
				text, pos = c.DefaultWritten, c.DefaultPos
			}
			if err := s.checkDefault(text, pos, c.Name, rel.Cols[base+i].T, newSeqs...); err != nil {
				return nil, err
			}
		}
	}
	if len(rel.Cols) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	for _, name := range st.PrimaryKey {
		idx := -1
		for i, c := range rel.Cols {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		for _, have := range rel.PK {
			if have == idx {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in primary key constraint", name)
			}
		}
		rel.PK = append(rel.PK, idx)
		rel.Cols[idx].NotNull = true
	}
	if len(rel.PK) == 0 {
		rel.Cols = append(rel.Cols, catalog.Column{Name: hiddenRowID, T: types.TInt8, NotNull: true, Hidden: true})
		rel.PK = []int{len(rel.Cols) - 1}
	}
	for _, i := range rel.PK {
		if err := pkColumnTypeError(rel.Cols[i].T); err != nil {
			return nil, err
		}
	}
	if err := setWatermarkOptions(rel, st.Watermark, st.AppendOnly); err != nil {
		return nil, err
	}
	if err := s.tableRules(ctx, rel, st); err != nil {
		return nil, err
	}
	if len(st.ForeignKeys) > 0 {
		if err := s.newTableForeignKeys(rel, st.ForeignKeys); err != nil {
			return nil, err
		}
	}
	rel.Owner = s.role().OID
	// CREATE TABLE AS fills its table before the table is finished in
	// the catalog: a crash in between leaves it for Open to drop.
	rel.Building = asBound != nil && !st.NoData
	if err := e.cat.Create(rel); err != nil {
		return nil, err
	}
	e.log.Info("created table", "name", rel.Name, "id", rel.ID)
	tag := "CREATE TABLE"
	if asBound != nil && st.NoData {
		tag = "CREATE TABLE AS"
	} else if asBound != nil {
		n, err := s.insertFromPlan(ctx, rel, asBound)
		if err == nil {
			fault.Hit(fault.CreateTableAsFilled)
			built := rel.Clone()
			built.Building = false
			if err = e.cat.Replace(built); err == nil {
				rel = built
			}
		}
		if err != nil {
			// CREATE TABLE AS is atomic in Postgres: undo the table.
			_ = e.cat.Drop(rel.ID)
			return nil, err
		}
		tag = fmt.Sprintf("SELECT %d", n)
	}
	if rel.Temp && (inBlock || s.implicit || st.OnCommit == "drop") {
		s.blockTemps = append(s.blockTemps, blockTemp{id: rel.ID, dropAtCommit: st.OnCommit == "drop"})
	}
	if rel.Temp && st.OnCommit == "delete rows" {
		s.deleteRows = append(s.deleteRows, rel.ID)
	}
	return done(tag)
}

// checkDefault checks the DEFAULT expression text of a column named
// name of type t as PostgreSQL does when it is set (planner.BindDefault);
// pos is the character of the statement it starts at when text is as
// written there (0: no positions); newSeqs are the sequences the
// statement creates (planner.WithNewSequences).
func (s *Session) checkDefault(text string, pos int, name string, t types.T, newSeqs ...string) error {
	ctx := context.Background()
	if len(newSeqs) > 0 {
		ctx = planner.WithNewSequences(ctx, newSeqs)
	}
	_, err := planner.BindDefault(ctx, text, pos, name, t, s.catalogView())
	return err
}

func (s *Session) createView(ctx context.Context, st *sql.CreateView, io wire.ExecIO) (wire.Result, error) {
	what := "CREATE VIEW"
	if st.Materialized {
		what = "CREATE MATERIALIZED VIEW"
	}
	// A temporary view may be created inside a transaction block, as a
	// temporary table may (createTable).
	inBlock := (st.Temp || st.Name.Schema == catalog.TempSchemaAlias) && s.inBlock()
	if !inBlock {
		if err := s.noDDLInBlock(what); err != nil {
			return nil, err
		}
	}
	if st.Materialized {
		return s.createMView(ctx, st, io)
	}
	if st.EmitOnWindowClose {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE is only supported for materialized views").
			WithHint("A view is computed when it is queried; create a materialized view to emit windows as they close.")
	}
	for _, k := range slices.Sorted(maps.Keys(st.With)) {
		// Postgres's view options (check_option, security_barrier,
		// security_invoker) have no meaning here.
		return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter \"%s\"", k)
	}
	e := s.eng
	// A view is a dependent of what it reads: a DROP, which stops the
	// jobs of the views it drops before it removes them from the
	// catalog (without writeMu), must not see one appear meanwhile, or
	// it would fail and leave those views without their jobs. So, as
	// every DDL adding a dependent, it waits for ddlMu.
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	// The functions the view calls are checked for the role reading it.
	b, err := planner.BindContext(planner.WithDeferredExecute(context.Background()), st.Query, s.catalogView(), nil)
	if err != nil {
		return nil, err
	}
	if len(b.Params) > 0 {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	temp := st.Temp
	if !temp && s.tempViewNotice(io, st.Name.Name, b.Deps) {
		temp = true
	}
	schema, _, err := s.creationSchema(st.Name, temp)
	if err != nil {
		return nil, err
	}
	sc := b.Plan.Schema()
	if len(st.Columns) > len(sc) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	for i, c := range sc {
		if c.T.ID == types.Record {
			name := c.Name
			if i < len(st.Columns) {
				name = st.Columns[i]
			}
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "column \"%s\" has pseudo-type record", name)
		}
	}
	rel := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: catalog.KindView, SQL: st.QueryText, Deps: b.Deps, Funcs: b.Funcs, FuncDeps: b.FuncDeps, With: st.With, SearchPath: s.storedSearchPath()}
	if s.schemaFirst != "" {
		// A CREATE SCHEMA element: the stored definition is bound
		// again with the schema first, as now.
		rel.With = map[string]string{catalog.SearchSchemaOption: s.schemaFirst}
	}
	names := map[string]bool{}
	colls, doms := planner.Collations(b.Plan), planner.Domains(b.Plan)
	for i, c := range sc {
		name := c.Name
		if i < len(st.Columns) {
			name = st.Columns[i]
		}
		if names[name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		names[name] = true
		t := c.T
		if t.ID == types.Unknown {
			t = types.TText
		}
		rel.Cols = append(rel.Cols, catalog.Column{Name: name, T: t, Collation: colls[i], Domain: doms[i].OID, DomainArray: doms[i].Array})
	}
	if old, ok := e.cat.Lookup(schema, st.Name.Name); ok {
		switch {
		case st.IfNotExists:
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", st.Name.Name))
			return done("CREATE VIEW")
		case st.OrReplace && old.Kind == catalog.KindView:
			if inBlock {
				// A ROLLBACK could not give the old definition back.
				return nil, pgerr.New(pgerr.ActiveSQLTransaction, "CREATE OR REPLACE VIEW of an existing view cannot run inside a transaction block")
			}
			if err := checkViewReplace(old, rel); err != nil {
				return nil, err
			}
			rel.ID, rel.OID = old.ID, old.OID
			if err := e.cat.Replace(rel); err != nil {
				return nil, err
			}
			return done("CREATE VIEW")
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Name.Name)
	}
	rel.Owner = s.role().OID
	if err := e.cat.Create(rel); err != nil {
		return nil, err
	}
	if inBlock || (rel.Temp && s.implicit) {
		s.blockTemps = append(s.blockTemps, blockTemp{id: rel.ID})
	}
	return done("CREATE VIEW")
}

var kindWords = map[catalog.Kind]string{
	catalog.KindTable: "table", catalog.KindView: "view", catalog.KindMView: "materialized view",
	catalog.KindSource: "source", catalog.KindSink: "sink", catalog.KindSequence: "sequence",
	catalog.KindIndex: "index",
}

var dropKinds = map[string]catalog.Kind{
	"table": catalog.KindTable, "view": catalog.KindView, "materialized view": catalog.KindMView,
	"source": catalog.KindSource, "sink": catalog.KindSink, "sequence": catalog.KindSequence,
	"index": catalog.KindIndex,
}

func (s *Session) drop(ctx context.Context, st *sql.Drop, io wire.ExecIO) (wire.Result, error) {
	tag := "DROP " + strings.ToUpper(st.Kind)
	if err := s.noDDLInBlock(tag); err != nil {
		return nil, err
	}
	e := s.eng
	if st.Kind == "schema" {
		return s.dropSchema(ctx, st, io)
	}
	want, ok := dropKinds[st.Kind]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported", strings.ToUpper(st.Kind))
	}
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			e.writeMu.Unlock()
		}
	}()
	var targets []*catalog.Relation
	for _, n := range st.Names {
		if err := s.systemCatalogError(n); err != nil {
			return nil, err
		}
		rel, ok := e.cat.Lookup(s.schemaOf(n), n.Name)
		if !ok && want == catalog.KindIndex {
			// A primary key's index <table>_pkey belongs to its
			// constraint, as in PostgreSQL.
			if tn, isPK := strings.CutSuffix(n.Name, "_pkey"); isPK {
				if t, ok := e.cat.Lookup(s.schemaOf(sql.ObjectName{Schema: n.Schema, Name: tn}), tn); ok && t.Kind == catalog.KindTable && len(t.PK) > 0 && !t.Cols[t.PK[0]].Hidden {
					return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", n.Name, n.Name, tn).
						WithHint("You can drop constraint %s on table %s instead.", n.Name, tn)
				}
			}
		}
		if ok && want == catalog.KindIndex && rel.Kind == catalog.KindIndex && rel.With[catalog.IndexConstraintOption] == "true" {
			// A UNIQUE constraint's index belongs to the constraint.
			if t, ok := e.indexedRelation(rel); ok {
				return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", rel.Name, rel.Name, t.Name).
					WithHint("You can drop constraint %s on table %s instead.", rel.Name, t.Name)
			}
		}
		if !ok && want == catalog.KindSequence {
			if err := s.dropImplicitSequence(n, st.Cascade); err != nil {
				return nil, err
			}
		}
		if !ok {
			if st.IfExists {
				io.Notice("NOTICE", "00000", fmt.Sprintf("%s \"%s\" does not exist, skipping", st.Kind, n.Name))
				continue
			}
			code := pgerr.UndefinedTable
			if want != catalog.KindTable && want != catalog.KindView && want != catalog.KindMView && want != catalog.KindSequence {
				code = pgerr.UndefinedObject
			}
			return nil, pgerr.New(code, "%s \"%s\" does not exist", st.Kind, n.Name)
		}
		if rel.Kind != want {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", n.Name, st.Kind).
				WithHint("Use DROP %s to remove a %s.", strings.ToUpper(kindWords[rel.Kind]), kindWords[rel.Kind])
		}
		targets = append(targets, rel)
	}
	if want == catalog.KindSequence {
		notice := func(lines []string) { cascadeNotice(io, lines) }
		if err := e.dropSequenceDefaults(targets, st.Cascade, notice); err != nil {
			return nil, err
		}
	}
	var lines []string
	order, err := e.dropOrder(targets, st.Cascade, func(d *catalog.Relation) {
		lines = append(lines, fmt.Sprintf("drop cascades to %s %s", kindWords[d.Kind], d.Name))
	})
	if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.DependentObjectsStillExist && !st.Cascade {
		// The foreign keys referencing the tables are listed too.
		if _, _, more := s.fkDropTables(targets, false); len(more) > 0 {
			cp := *pe
			cp.Detail += "\n" + strings.Join(more, "\n")
			return nil, &cp
		}
	}
	if err != nil {
		return nil, err
	}
	// The foreign keys referencing a dropped table go with it, or stop
	// the drop; so do those referencing a dropped unique index's key.
	replace, fkLines, blockers := s.fkDropTables(order, st.Cascade)
	// The sequences OWNED BY the dropped tables' columns go with them;
	// the defaults of other tables calling nextval on them stop the
	// drop, or go with CASCADE.
	order, replace, lines, blockers = e.dropOwnedSequences(order, replace, lines, blockers, st.Cascade)
	for _, t := range targets {
		if t.Kind != catalog.KindIndex {
			continue
		}
		if on, ok := e.indexedRelation(t); ok {
			more, err := e.fkDropIndex(on, t, st.Cascade, io, "index "+t.Name)
			if err != nil {
				return nil, err
			}
			replace = append(replace, more...)
		}
	}
	if len(blockers) > 0 {
		msg := fmt.Sprintf("cannot drop %s because other objects depend on it", s.qualifiedRel(targets[0]))
		if len(targets) > 1 {
			msg = "cannot drop desired object(s) because other objects depend on them"
		}
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "%s", msg).
			WithDetail("%s", strings.Join(blockers, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	cascadeNotice(io, append(lines, fkLines...))
	locked = false
	e.writeMu.Unlock()
	if err := e.dropReplacing(ctx, order, replace); err != nil {
		return nil, err
	}
	return done(tag)
}

// cascadeNotice sends the "drop cascades to" lines of a DROP as
// PostgreSQL does: one line as the notice, several counted in the notice
// and listed in its DETAIL.
func cascadeNotice(io wire.ExecIO, lines []string) {
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
}

// dropOrder lists targets and the relations depending on them,
// dependents first. Without cascade a dependent outside targets is an
// error (2BP01) whose DETAIL lists every such dependent and what it
// depends on, as in PostgreSQL; with it, notice is called once for each.
// e.writeMu is held.
func (e *Engine) dropOrder(targets []*catalog.Relation, cascade bool, notice func(*catalog.Relation)) ([]*catalog.Relation, error) {
	dropping := map[uint32]*catalog.Relation{}
	var order []*catalog.Relation
	var blocked *catalog.Relation
	var blockers []string
	var visit func(r *catalog.Relation) error
	visit = func(r *catalog.Relation) error {
		if _, ok := dropping[r.ID]; ok {
			return nil
		}
		dropping[r.ID] = r
		for _, d := range e.cat.Dependents(r.ID) {
			if d.Kind == catalog.KindIndex {
				// A relation's indexes go with it, as in PostgreSQL.
				if err := visit(d); err != nil {
					return err
				}
				continue
			}
			if _, seen := dropping[d.ID]; !seen && !inList(targets, d.ID) {
				if cascade {
					notice(d)
				} else {
					blockers = append(blockers, fmt.Sprintf("%s %s depends on %s %s", kindWords[d.Kind], d.Name, kindWords[r.Kind], r.Name))
				}
			}
			if err := visit(d); err != nil {
				return err
			}
		}
		order = append(order, r)
		return nil
	}
	for _, t := range targets {
		n := len(blockers)
		if err := visit(t); err != nil {
			return nil, err
		}
		if blocked == nil && len(blockers) > n {
			blocked = t
		}
	}
	if blocked != nil {
		msg := fmt.Sprintf("cannot drop %s %s because other objects depend on it", kindWords[blocked.Kind], blocked.Name)
		if len(targets) > 1 {
			msg = "cannot drop desired object(s) because other objects depend on them"
		}
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "%s", msg).
			WithDetail("%s", strings.Join(blockers, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	return order, nil
}

// dropRelations drops the relations of order (dependents first, from
// dropOrder) with their data, jobs and state. e.writeMu is not held.
func (e *Engine) dropRelations(ctx context.Context, order []*catalog.Relation) error {
	return e.dropReplacing(ctx, order, nil)
}

// dropReplacing is dropRelations whose catalog batch also overwrites the
// entries of replace (catalog.Catalog.DropReplace).
func (e *Engine) dropReplacing(ctx context.Context, order, replace []*catalog.Relation) error {
	// One catalog call drops everything atomically, with the relations'
	// data, in one durable batch.
	ids := make([]uint32, len(order))
	for i, r := range order {
		ids[i] = r.ID
	}
	// The jobs of the views go first, dependents before what they read,
	// each stopped by a barrier; then the catalog entries go with their
	// data and state tables.
	// A cancel or statement_timeout stops the drop until the first job
	// is stopping; from then on the drop goes through, so that no view
	// is left without its job.
	// Should the drop fail past that point, the views whose jobs it
	// stopped are left FAILED, with the drop's error (leftWithoutJob).
	var stopped []*catalog.Relation
	for _, r := range order {
		if hasJob(r) {
			if err := e.stopJob(ctx, r.ID); err != nil {
				e.writeMu.Lock()
				e.leftWithoutJob(stopped, err)
				e.writeMu.Unlock()
				return err
			}
			stopped = append(stopped, r)
			var cancel context.CancelFunc
			ctx, cancel = e.pastCancel(ctx)
			defer cancel()
		}
	}
	afterDropStoppedJobs()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if len(ids) > 0 {
		if err := e.cat.DropReplace(ids, replace...); err != nil {
			e.leftWithoutJob(stopped, err)
			return err
		}
		e.refreshJobRels()
		// Changes of dropped tables not yet committed must not bring rows
		// back when their epoch commits.
		for _, r := range order {
			if r.Kind == catalog.KindTable {
				e.st.cur.unlogged = true
				_ = e.st.cur.batch.DeleteRange(r.ID)
				_ = e.st.view.DeleteRange(r.ID)
			}
			e.dropPendingKeys(r)
			e.dropWatermark(r, e.st.cur.batch)
		}
		e.log.Info("dropped relations", "count", len(ids), "first", order[0].Name)
	}
	return nil
}

// leftWithoutJob marks FAILED the relations of rels, whose jobs a DROP
// stopped before it failed with err, that are still in the catalog
// without a job: nothing would restart them, and their rows miss every
// change since. weir.jobs shows them failed with the reason, a query of
// such a view fails (55000), and ALTER ... RESUME rebuilds a view from
// its inputs' current contents; across restarts too. Called under
// writeMu.
func (e *Engine) leftWithoutJob(rels []*catalog.Relation, err error) {
	for _, r := range rels {
		rel, ok := e.cat.ByID(r.ID)
		if !ok || e.st.jobs[types.JobID(rel.ID)] != nil {
			continue
		}
		reason := "its job was stopped by a DROP that then failed: " + pgerr.As(err).Message
		t := e.st.health
		t.mu.Lock()
		h := t.entry(types.JobID(rel.ID), e.strategyOrDefault(rel))
		h.status, h.lastErr, h.gen = jobFailed, reason, h.gen+1
		// Its changes since the stop are not kept: RESUME rebuilds a
		// view, and refuses a sink fed by tables or views.
		h.rebuild = materialized(rel)
		t.mu.Unlock()
		b := e.db.NewBatch()
		if berr := b.SetMeta(metaJobFailed(types.JobID(rel.ID)), []byte(reason)); berr == nil {
			_ = b.Commit()
		}
		b.Close()
		e.log.Error("streaming job failed and is not restarted", strings.ReplaceAll(kindWords[rel.Kind], " ", "_"), rel.Name,
			"reason", reason, "hint", fmt.Sprintf("ALTER %s %s RESUME", strings.ToUpper(kindWords[rel.Kind]), sql.QuoteIdent(rel.Name)))
	}
}

// afterDropStoppedJobs is called by a DROP once it has stopped the jobs
// of what it drops, before it takes writeMu to remove them from the
// catalog; a test of this package replaces it to run statements in that
// window.
var afterDropStoppedJobs = func() {}

func inList(rs []*catalog.Relation, id uint32) bool {
	for _, r := range rs {
		if r.ID == id {
			return true
		}
	}
	return false
}

func (s *Session) createSchema(ctx context.Context, st *sql.CreateSchema, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE SCHEMA"); err != nil {
		return nil, err
	}
	e := s.eng
	owner, err := s.schemaOwner(st)
	if err != nil {
		return nil, err
	}
	name := st.Name
	if st.NameFromRole {
		name = owner.Name
	}
	if strings.HasPrefix(name, "pg_") {
		// PostgreSQL keeps the prefix for its own schemas, the sessions'
		// temporary ones (pg_temp_N) among them.
		return nil, pgerr.New(codeReservedName, "unacceptable schema name \"%s\"", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	for _, have := range e.cat.Schemas() {
		if have == name {
			e.writeMu.Unlock()
			if st.IfNotExists {
				io.Notice("NOTICE", "42P06", fmt.Sprintf("schema \"%s\" already exists, skipping", name))
				return done("CREATE SCHEMA")
			}
			return nil, pgerr.New("42P06", "schema \"%s\" already exists", name)
		}
	}
	err = e.cat.CreateSchemaOwned(name, owner.OID)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(st.Elements) > 0 {
		if err := s.schemaElements(ctx, name, owner, st.Elements, io); err != nil {
			// As if the statement had been rolled back: the schema goes
			// with what the elements before the failing one created.
			drop := &sql.Drop{Kind: "schema", Names: []sql.ObjectName{{Name: name}}, Cascade: true}
			if _, derr := s.dropSchema(ctx, drop, quietIO{io}); derr != nil {
				e.log.Warn("dropping the schema of a failed CREATE SCHEMA", "schema", name, "err", derr)
			}
			return nil, err
		}
	}
	return done("CREATE SCHEMA")
}

// schemaElements runs the schema elements of CREATE SCHEMA, as
// PostgreSQL does: with the new schema first in the search for
// unqualified names (a view's stored definition keeps it,
// catalog.SearchSchemaOption) and as the schema's owner, who owns what
// they create. An error's position is placed in CREATE SCHEMA's text.
func (s *Session) schemaElements(ctx context.Context, schema string, owner *catalog.Role, els []sql.SchemaElement, io wire.ExecIO) error {
	prevFirst := s.schemaFirst
	prevRole, hadRole := s.vars["role"]
	s.schemaFirst = schema
	if owner.OID != s.role().OID {
		s.vars["role"] = owner.Name + "\x00" + strconv.FormatUint(uint64(owner.OID), 10)
	}
	defer func() {
		s.schemaFirst = prevFirst
		if hadRole {
			s.vars["role"] = prevRole
		} else {
			delete(s.vars, "role")
		}
	}()
	for _, el := range els {
		p, err := s.prepare(ctx, el.Stmt, el.Text, nil)
		if err == nil {
			var r wire.Result
			if r, err = p.Execute(ctx, nil, io); r != nil {
				r.Close()
			}
		}
		if err != nil {
			if pe := pgerr.As(err); pe != nil && pe.Position > 0 {
				cp := *pe
				cp.Position += el.Pos - 1
				return &cp
			}
			return err
		}
	}
	return nil
}

// schemaOwner resolves the role CREATE SCHEMA's AUTHORIZATION names
// (the session's role without one) and checks, as PostgreSQL does, that
// the creating role is a member of it (a superuser is a member of every
// role): 42704 for a missing role, 42501 `must be member of role "r"`.
func (s *Session) schemaOwner(st *sql.CreateSchema) (*catalog.Role, error) {
	owner := s.role()
	switch {
	case st.Owner == "":
	case st.OwnerSpecial && st.Owner == "session_user":
		owner = s.sessionRole()
	case st.OwnerSpecial:
	default:
		r, ok := s.eng.cat.RoleByName(st.Owner)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", st.Owner)
		}
		owner = r
	}
	if me := s.role(); !me.Superuser && !slices.Contains(s.eng.effectiveRolesAll(me), owner.OID) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be member of role \"%s\"", owner.Name)
	}
	return owner, nil
}

func (s *Session) truncate(ctx context.Context, st *sql.Truncate, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	// TRUNCATE deletes every row through the dataflow, so the views over
	// the tables follow. It is DML for weir: inside a transaction block
	// its deletes join the block's writes (and COMMIT or ROLLBACK with
	// them), as PostgreSQL's TRUNCATE does.
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
	var rels []*catalog.Relation
	for _, n := range st.Names {
		rel, ok := e.cat.Lookup(s.schemaOf(n), n.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", n.Name)
		}
		if rel.Kind != catalog.KindTable {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a table", n.Name)
		}
		if appendOnlyTable(rel) {
			return nil, errAppendOnly(rel, "truncate")
		}
		if err := s.checkTruncate(rel); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(rels, func(r *catalog.Relation) bool { return r.ID == rel.ID }) {
			rels = append(rels, rel)
		}
	}
	rels, err = s.truncateForeignKeys(rels, st.Cascade, io)
	if err != nil {
		return nil, err
	}
	for _, rel := range rels {
		// The tables the cascade adds, once it has named them.
		if err := s.checkTruncate(rel); err != nil {
			return nil, err
		}
	}
	// TRUNCATE fires no foreign key actions: what references the
	// tables is truncated with them.
	ws.fk.off = true
	for _, rel := range rels {
		if _, err := deleteAllRows(ctx, ws, rel); err != nil {
			return nil, err
		}
	}
	committed = true
	if err := ws.finish(ctx, true); err != nil {
		return nil, err
	}
	return done("TRUNCATE TABLE")
}

// deleteAllRows deletes every row of rel through ws (TRUNCATE's way) and
// returns how many it deleted. It stops with 57014 when ctx ends (the
// statement's cancel or statement_timeout), its deletes not applied.
func deleteAllRows(ctx context.Context, ws writeScope, rel *catalog.Relation) (int, error) {
	it, err := ws.src.ScanRelation(ctx, rel.ID, relTypes(rel))
	if err != nil {
		return 0, err
	}
	// Read every row before deleting any: the scan reads what the
	// writer writes to.
	var rows []types.Row
	for {
		if len(rows)%1024 == 0 && ctx.Err() != nil {
			it.Close()
			return 0, ctxError(ctx)
		}
		row, err := it.Next()
		if err != nil {
			it.Close()
			return 0, err
		}
		if row == nil {
			break
		}
		rows = append(rows, row)
	}
	it.Close()
	for i, row := range rows {
		if i%1024 == 0 && ctx.Err() != nil {
			return 0, ctxError(ctx)
		}
		if err := ws.w.Delete(rel.ID, row); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// reported are the settings whose changes Postgres reports to the client
// with a ParameterStatus message (GUC_REPORT).
var reported = map[string]bool{
	"application_name": true, "client_encoding": true, "datestyle": true, "intervalstyle": true,
	"timezone": true, "standard_conforming_strings": true, "is_superuser": true, "integer_datetimes": true,
	"session_authorization": true,
}

// report sends a ParameterStatus for st if clients track it.
func (s *Session) report(st *setting, io wire.ExecIO) {
	if reported[strings.ToLower(st.name)] {
		io.ParameterStatus(st.name, s.get(st))
	}
}

func (s *Session) runSet(st *sql.Set, io wire.ExecIO) (wire.Result, error) {
	name := st.Name
	if strings.EqualFold(name, "time zone") || strings.EqualFold(name, "timezone") {
		name = "TimeZone"
	}
	if strings.EqualFold(name, "names") {
		name = "client_encoding"
	}
	if strings.EqualFold(name, "session_characteristics") || strings.EqualFold(name, "transaction") {
		return done("SET")
	}
	stt, err := lookupSetting(name)
	if err != nil {
		return nil, err
	}
	if err := checkArgs(stt, st.Args); err != nil {
		return nil, err
	}
	if err := s.changeSetting(stt, unquoteSetting(st.Value), st.Default, st.Local, io); err != nil {
		return nil, err
	}
	if st.Local && !s.inBlock() {
		// The setting is back to its value before ReadyForQuery, when
		// PostgreSQL reports what changed: the client hears nothing.
		return done("SET")
	}
	s.report(stt, io)
	if stt.name == "role" || stt.name == "session_authorization" {
		// is_superuser follows the role the session acts as.
		if su, err := lookupSetting("is_superuser"); err == nil {
			s.report(su, io)
		}
	}
	return done("SET")
}

// unquoteSetting strips one level of quotes from a SET value.
func unquoteSetting(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

func (s *Session) runReset(st *sql.Reset, io wire.ExecIO) (wire.Result, error) {
	if strings.EqualFold(st.Name, "all") {
		s.resetAllSettings()
		for i := range settingList {
			s.report(&settingList[i], io)
		}
		return done("RESET")
	}
	stt, err := lookupSetting(st.Name)
	if err != nil {
		return nil, err
	}
	if err := s.changeSetting(stt, "", true, false, io); err != nil {
		return nil, err
	}
	s.report(stt, io)
	if stt.name == "role" || stt.name == "session_authorization" {
		if su, err := lookupSetting("is_superuser"); err == nil {
			s.report(su, io)
		}
	}
	return done("RESET")
}

func (s *Session) runTxn(ctx context.Context, st *sql.Txn, io wire.ExecIO) (wire.Result, error) {
	// A block's end, or ROLLBACK TO, may give tracked settings their
	// earlier values: the client hears of it as of a SET.
	defer s.reportChanged(s.reportedValues(), io)
	switch st.Kind {
	case sql.TxnBegin:
		if s.implicit {
			// BEGIN turns the implicit transaction into a regular block
			// (Postgres protocol docs, "Multiple Statements in a Simple
			// Query"), and so does it an extended-protocol batch's.
			s.implicit, s.pipeline, s.pipelined = false, false, false
			return done("BEGIN")
		}
		if s.txn != 'I' {
			io.Notice("WARNING", "25001", "there is already a transaction in progress")
			return done("BEGIN")
		}
		s.txn = 'T'
		s.txnStart = time.Now().UnixMicro()
		return done("BEGIN")
	case sql.TxnCommit:
		if s.implicit {
			s.implicit, s.pipeline, s.pipelined = false, false, false
			s.txn = 'I'
			io.Notice("WARNING", "25P01", "there is no transaction in progress")
			if err := s.endTxn(ctx, true); err != nil {
				return nil, err
			}
			return done("COMMIT")
		}
		if s.txn == 'I' {
			io.Notice("WARNING", "25P01", "there is no transaction in progress")
			return done("COMMIT")
		}
		failed := s.txn == 'E'
		s.txn = 'I'
		if failed {
			_ = s.endTxn(context.Background(), false)
			return done("ROLLBACK")
		}
		// statement_timeout covers COMMIT, as in PostgreSQL: until its
		// writes are applied it rolls the block back, after that it
		// stops the wait for the checkpoint (waitApplied).
		tctx, cancel := s.withTimeout(ctx)
		err := s.endTxn(tctx, true)
		cancel()
		if err != nil {
			return nil, err
		}
		return done("COMMIT")
	case sql.TxnSavepoint, sql.TxnRelease, sql.TxnRollbackTo:
		return s.runSavepoint(st)
	default:
		if s.txn == 'I' || s.implicit {
			// ROLLBACK in an implicit transaction ends it as in
			// PostgreSQL, with the warning of one outside a block.
			io.Notice("WARNING", "25P01", "there is no transaction in progress")
		}
		s.txn = 'I'
		s.implicit, s.pipeline, s.pipelined = false, false, false
		_ = s.endTxn(context.Background(), false)
		return done("ROLLBACK")
	}
}

// runSavepoint runs SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO
// [SAVEPOINT] inside a transaction block. ROLLBACK TO undoes the block's
// writes since the savepoint and ends the failed state, so the block can
// go on; sequences keep the values they handed out, as in Postgres.
func (s *Session) runSavepoint(st *sql.Txn) (wire.Result, error) {
	if s.txn == 'I' || s.implicit {
		what := map[sql.TxnKind]string{sql.TxnSavepoint: "SAVEPOINT", sql.TxnRelease: "RELEASE SAVEPOINT", sql.TxnRollbackTo: "ROLLBACK TO SAVEPOINT"}[st.Kind]
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", what)
	}
	if s.tx == nil {
		s.tx = newTxnState(s.eng.db)
	}
	t := s.tx
	if st.Kind == sql.TxnSavepoint {
		t.savepoints = append(t.savepoints, savepoint{name: st.Name, mark: t.batch.Mark(), known: len(t.order), settings: s.markSettings(), temps: len(s.blockTemps), fkModes: s.fkModes.clone(), fkPending: s.fkPending.clone()})
		return done("SAVEPOINT")
	}
	i, err := t.findSavepoint(st.Name)
	if err != nil {
		return nil, err
	}
	if st.Kind == sql.TxnRelease {
		t.savepoints = t.savepoints[:i]
		s.cursorsToSavepoint(i, false)
		return done("RELEASE")
	}
	if err := t.rollbackTo(i); err != nil {
		return nil, err
	}
	if err := s.dropBlockTemps(context.Background(), t.savepoints[i].temps); err != nil {
		return nil, err
	}
	s.rollbackSettings(t.savepoints[i].settings)
	s.fkModes = t.savepoints[i].fkModes.clone()
	s.fkPending = t.savepoints[i].fkPending.clone()
	s.cursorsToSavepoint(i, true)
	s.txn = 'T'
	return done("ROLLBACK")
}

func (s *Session) prepareShow(st *sql.Show) (wire.Prepared, error) {
	e := s.eng
	switch st.Kind {
	case "all":
		return &utilPrepared{fields: textFields("name", "setting", "description"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
			var rows [][3]string
			for _, n := range sortedSettingNames() {
				stt, _ := lookupSetting(n)
				rows = append(rows, [3]string{stt.name, s.get(stt), stt.desc})
			}
			rows = append(rows, e.systemSettingRows()...)
			sort.SliceStable(rows, func(i, j int) bool { return strings.ToLower(rows[i][0]) < strings.ToLower(rows[j][0]) })
			out := make([]types.Row, len(rows))
			for i, r := range rows {
				out[i] = textRow(r[0], r[1], r[2])
			}
			return &rowsResult{rows: out, tag: "SHOW"}, nil
		}}, nil
	case "sinks":
		return s.prepareShowSinks()
	case "jobs":
		return s.prepareShowJobs()
	case "parameters":
		return s.prepareShowParameters()
	case "columns":
		return s.prepareShowColumns(st.Obj)
	case "tables", "views", "materialized views", "sources":
		want := map[string]catalog.Kind{"tables": catalog.KindTable, "views": catalog.KindView, "materialized views": catalog.KindMView, "sources": catalog.KindSource, "sinks": catalog.KindSink}[st.Kind]
		return &utilPrepared{fields: textFields("Name"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
			var names []string
			for _, r := range e.cat.All() {
				if r.Kind == want && (st.Obj.Schema == "" || r.Schema == st.Obj.Schema) {
					names = append(names, r.Name)
				}
			}
			sort.Strings(names)
			rows := make([]types.Row, len(names))
			for i, n := range names {
				rows[i] = textRow(n)
			}
			return &rowsResult{rows: rows, tag: "SHOW"}, nil
		}}, nil
	case "create table", "create view", "create materialized view", "create source", "create sink":
		return &utilPrepared{fields: textFields("Name", "Create Sql"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
			rel, ok := e.cat.Lookup(s.schemaOf(st.Obj), st.Obj.Name)
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Obj.Name)
			}
			if want := strings.TrimPrefix(st.Kind, "create "); want != kindWords[rel.Kind] {
				return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, want).
					WithHint("It is a %s: use SHOW CREATE %s.", kindWords[rel.Kind], strings.ToUpper(kindWords[rel.Kind]))
			}
			def := rel.SQL
			switch rel.Kind {
			case catalog.KindView:
				def = "CREATE VIEW " + sql.QuoteIdent(rel.Name) + " AS " + e.shownQuery(rel, rel.SQL)
			case catalog.KindMView:
				def = e.mviewDefinition(rel)
			case catalog.KindSink:
				def = e.sinkDefinition(rel)
			}
			return &rowsResult{rows: []types.Row{textRow(rel.Schema+"."+rel.Name, def)}, tag: "SHOW"}, nil
		}}, nil
	case "variable":
		if strings.EqualFold(st.Name, "barrier_interval_ms") {
			// A system setting (ALTER SYSTEM SET), not a session one.
			return &utilPrepared{fields: textFields("barrier_interval_ms"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
				return &rowsResult{rows: []types.Row{textRow(strconv.FormatInt(e.st.interval.Load(), 10))}, tag: "SHOW"}, nil
			}}, nil
		}
		if sys := lookupSystemSetting(st.Name); sys != nil {
			return &utilPrepared{fields: textFields(sys.name), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
				return &rowsResult{rows: []types.Row{textRow(e.st.sys.show(sys))}, tag: "SHOW"}, nil
			}}, nil
		}
		if strings.EqualFold(st.Name, sysSinkLogMaxBytes) {
			return &utilPrepared{fields: textFields(sysSinkLogMaxBytes), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
				return &rowsResult{rows: []types.Row{textRow(e.sinkLogMaxBytesSetting())}, tag: "SHOW"}, nil
			}}, nil
		}
	case "time zone":
		st = &sql.Show{Kind: "variable", Name: "TimeZone"}
	case "transaction isolation level":
		st = &sql.Show{Kind: "variable", Name: "transaction_isolation"}
	}
	stt, err := lookupSetting(st.Name)
	if err != nil {
		return nil, err
	}
	return &utilPrepared{fields: textFields(stt.name), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		return &rowsResult{rows: []types.Row{textRow(s.get(stt))}, tag: "SHOW"}, nil
	}}, nil
}

func (s *Session) prepareDescribe(st *sql.Describe) (wire.Prepared, error) {
	e := s.eng
	return &utilPrepared{fields: textFields("Name", "Type", "Is Hidden", "Description"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
		}
		var rows []types.Row
		for _, c := range rel.Cols {
			if c.Dropped {
				continue
			}
			hidden := "false"
			if c.Hidden {
				hidden = "true"
			}
			r := textRow(c.Name, c.T.String(), hidden, "")
			r[3] = types.NullDatum
			rows = append(rows, r)
		}
		if len(rel.PK) > 0 && rel.Kind == catalog.KindTable {
			names := make([]string, len(rel.PK))
			for i, k := range rel.PK {
				names[i] = rel.Cols[k].Name
			}
			r := textRow("primary key", strings.Join(names, ", "), "", "")
			r[2], r[3] = types.NullDatum, types.NullDatum
			rows = append(rows, r)
		}
		return &rowsResult{rows: rows, tag: "DESCRIBE"}, nil
	}}, nil
}

// insertFromPlan inserts the rows of a bound query into rel (CREATE TABLE
// AS), returning the row count.
func (s *Session) insertFromPlan(ctx context.Context, rel *catalog.Relation, b *planner.Bound) (int64, error) {
	e := s.eng
	snap := e.db.NewSnapshot()
	defer snap.Close()
	batch := e.db.NewBatch()
	defer batch.Close()
	w := &batchWriter{eng: e, batch: batch}
	var pending *storage.Batch
	if s.tx != nil && s.inBlock() {
		// CREATE TEMP TABLE ... AS in a block reads the block's writes.
		pending = s.tx.batch
	}
	rows, err := s.collectThrough(ctx, b, snap, pending)
	if err != nil {
		return 0, err
	}
	for k, r := range rows {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, ctxError(ctx)
			}
		}
		full := make(types.Row, len(rel.Cols))
		copy(full, r)
		for i, c := range rel.Cols {
			if c.Hidden {
				id, err := w.NextRowID(rel.ID)
				if err != nil {
					return 0, err
				}
				full[i] = types.DInt(id)
			}
		}
		if err := w.Insert(rel.ID, full); err != nil {
			return 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, ctxError(ctx)
	}
	if err := batch.Commit(); err != nil {
		return 0, err
	}
	return int64(len(rows)), nil
}

// checkViewReplace applies Postgres's rule for CREATE OR REPLACE VIEW: the
// new query must produce the old columns, with the same names and types,
// in the same order; it may only add columns at the end.
func checkViewReplace(old, rel *catalog.Relation) error {
	if len(rel.Cols) < len(old.Cols) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, oc := range old.Cols {
		nc := rel.Cols[i]
		if nc.Name != oc.Name {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", oc.Name, nc.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if nc.T != oc.T {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", oc.Name, oc.T, nc.T)
		}
		if nc.Collation != oc.Collation {
			name := func(c string) string {
				if c == "" {
					return "default"
				}
				return c
			}
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change collation of view column \"%s\" from \"%s\" to \"%s\"", oc.Name, name(oc.Collation), name(nc.Collation))
		}
	}
	return nil
}

// noticeDetailer is an ExecIO that can send a notice with a DETAIL
// (the wire server's).
type noticeDetailer interface {
	NoticeDetail(severity, code, message, detail string)
}

// dropSchema runs DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE |
// RESTRICT]. Every name is looked up first (3F000 for the first missing
// one); then the system schemas are 2BP01 and public, which weir keeps
// always, 0A000. A schema holding relations needs CASCADE (2BP01
// otherwise, naming every dependent object), which drops them and
// whatever depends on them, with PostgreSQL's notices. Dependents are
// listed in PostgreSQL's order (see schemaDependents).
func (s *Session) dropSchema(ctx context.Context, st *sql.Drop, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	var names []string
	found := 0
	for _, n := range st.Names {
		name := n.Name
		system := slices.Contains(catalog.SystemSchemas, name) || name == "weir"
		if !system && name != catalog.PublicSchema && !slices.Contains(e.cat.Schemas(), name) {
			if st.IfExists {
				io.Notice("NOTICE", "00000", fmt.Sprintf("schema \"%s\" does not exist, skipping", name))
				continue
			}
			return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		found++
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		switch {
		case slices.Contains(catalog.SystemSchemas, name) || name == "weir":
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
		case name == catalog.PublicSchema:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP SCHEMA public is not supported")
		}
	}
	// The schemas' functions go with them, and so does what uses one
	// outside them, as DROP FUNCTION ... CASCADE drops it; what uses one
	// inside them goes with its own schema.
	var funcs []*catalog.Function
	funcDeps := map[uint32][]funcDependent{}
	var outside []funcDependent
	for _, f := range e.cat.Functions() {
		if !slices.Contains(names, f.Schema) {
			continue
		}
		funcs = append(funcs, f)
		for _, d := range s.funcDependents(ctx, f) {
			if d.fn != nil && slices.Contains(names, d.fn.Schema) || d.rel != nil && slices.Contains(names, d.rel.Schema) {
				continue
			}
			if d.rel != nil && !d.part && slices.ContainsFunc(outside, func(x funcDependent) bool { return !x.part && x.rel.ID == d.rel.ID }) {
				continue
			}
			funcDeps[f.OID] = append(funcDeps[f.OID], d)
			outside = append(outside, d)
		}
		if ctx.Err() != nil {
			// The bindings that find the dependents stopped: what they
			// found is not all there is.
			return nil, ctxError(ctx)
		}
	}
	var funcRels []*catalog.Relation
	var funcParts []funcDependent
	if st.Cascade {
		var err error
		funcRels, funcParts, _, err = s.funcCascade(outside, "DROP SCHEMA ... CASCADE of a schema with a function that %s calls is not supported")
		if err != nil {
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
	var members []*catalog.Relation
	for _, r := range e.cat.All() {
		if slices.Contains(names, r.Schema) {
			members = append(members, r)
		}
	}
	deps := s.schemaDependents(names)
	for _, f := range funcs {
		fd := schemaDependent{obj: "function " + f.ObjectSignature(true), on: "schema " + f.Schema, oid: f.OID}
		at := slices.IndexFunc(deps, func(d schemaDependent) bool { return d.on == fd.on && d.oid > fd.oid })
		if at < 0 {
			at = len(deps)
		}
		users := []schemaDependent{fd}
		for _, d := range funcDeps[f.OID] {
			if !slices.ContainsFunc(deps, func(x schemaDependent) bool { return x.obj == d.desc }) {
				users = append(users, schemaDependent{obj: d.desc, on: fd.obj})
			}
			if !d.part || d.drop != "column" {
				continue
			}
			if i := visibleColumn(d.rel, d.name); i >= 0 {
				// What reads a generated column that goes.
				for _, r := range e.columnReaders(d.rel, d.rel, i) {
					if r.Kind != catalog.KindIndex {
						users = append(users, schemaDependent{obj: s.qualifiedRel(r), on: d.desc})
					}
				}
			}
		}
		deps = slices.Insert(deps, at, users...)
	}
	// Foreign keys of other schemas' tables referencing the schemas'.
	replace, fkLines, blockers := s.fkDropTables(members, st.Cascade)
	if (len(deps) > 0 || len(blockers) > 0) && !st.Cascade {
		var detail []string
		for _, d := range deps {
			detail = append(detail, d.obj+" depends on "+d.on)
		}
		detail = append(detail, blockers...)
		err := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop desired object(s) because other objects depend on them")
		if found == 1 {
			err = pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", names[0])
		}
		return nil, err.WithDetail("%s", strings.Join(detail, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	var lines []string
	for _, d := range deps {
		lines = append(lines, "drop cascades to "+d.obj)
	}
	order, err := e.dropOrder(append(slices.Clone(members), funcRels...), true, func(r *catalog.Relation) {
		// What reads a relation a function's dependent is.
		if line := "drop cascades to " + s.qualifiedRel(r); !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	})
	if err != nil {
		return nil, err
	}
	lines = append(lines, fkLines...)
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
	locked = false
	e.writeMu.Unlock()
	if err := e.dropReplacing(ctx, order, replace); err != nil {
		return nil, err
	}
	for _, d := range funcParts {
		if err := s.dropFuncPart(ctx, d, io); err != nil {
			return nil, err
		}
	}
	for _, f := range funcs {
		if err := e.cat.DropFunction(f.OID); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if err := e.cat.DropSchema(name); err != nil {
			return nil, err
		}
	}
	return done("DROP SCHEMA")
}

// schemaDependent is one object dropping schemas takes with them: its
// description and that of the object it depends on.
type schemaDependent struct {
	obj, on string
	// oid is the object's OID, which orders a schema's members as
	// PostgreSQL lists them (by creation).
	oid uint32
}

// qualifiedRel describes r as PostgreSQL does in dependency messages:
// its kind and name, qualified unless the session's search path finds
// it by its name (relVisible).
func (s *Session) qualifiedRel(r *catalog.Relation) string {
	if r.Schema == "" || s.relVisible(r.Schema, r.Name) {
		return kindWords[r.Kind] + " " + r.Name
	}
	return kindWords[r.Kind] + " " + r.Schema + "." + r.Name
}

// schemaDependents lists what dropping the schemas names takes along, in
// the order PostgreSQL reports it: its dependency walk visits the
// schemas in the order given and, under each object, its direct
// dependents newest first, adding an object after its own dependents;
// the report then reads that list backwards. Each object is reported
// once, against the object through which the walk first reached it.
// e.writeMu is held.
func (s *Session) schemaDependents(names []string) []schemaDependent {
	e := s.eng
	var walk []schemaDependent
	seen := map[uint32]bool{}
	var visit func(r *catalog.Relation, on string)
	visit = func(r *catalog.Relation, on string) {
		deps := e.cat.Dependents(r.ID)
		for k := len(deps) - 1; k >= 0; k-- {
			if d := deps[k]; !seen[d.ID] {
				seen[d.ID] = true
				visit(d, s.qualifiedRel(r))
			}
		}
		if r.Kind != catalog.KindIndex {
			// An index goes with its table unnamed, as in PostgreSQL
			// (it depends on the table, not on the schema).
			walk = append(walk, schemaDependent{obj: s.qualifiedRel(r), on: on, oid: r.OID})
		}
	}
	for _, name := range names {
		var members []*catalog.Relation
		for _, r := range e.cat.All() {
			if r.Schema == name {
				members = append(members, r)
			}
		}
		slices.SortFunc(members, func(a, b *catalog.Relation) int { return cmp.Compare(b.ID, a.ID) })
		for _, r := range members {
			if !seen[r.ID] {
				seen[r.ID] = true
				visit(r, "schema "+name)
			}
		}
	}
	slices.Reverse(walk)
	return walk
}

// flushWrites is FLUSH: it waits until every view is readable (after a
// restart, its recovery's or backfill's first checkpoint committed) and
// then until a checkpoint holds everything written before it, within
// the session's statement_timeout.
func (s *Session) flushWrites(ctx context.Context) error {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := s.eng.awaitReadable(ctx, nil); err != nil {
		return err
	}
	return s.eng.st.drv.Barrier(ctx)
}

// pkColumnTypeError refuses a column of type t in a primary key: json
// has no equality, so PostgreSQL has no index for it (42704); jsonb and
// arrays are 0A000, as the key codec orders strings, not jsonb values or
// arrays element-wise. nil for every other type.
func pkColumnTypeError(t types.T) error {
	switch {
	case t.ID == types.Jsonb:
		return pgerr.New(pgerr.FeatureNotSupported, "a jsonb column cannot be part of a primary key")
	case t.ID == types.Json:
		return pgerr.New(pgerr.UndefinedObject, "data type json has no default operator class for access method \"btree\"").
			WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
	case t.IsArray():
		return pgerr.New(pgerr.FeatureNotSupported, "an array column cannot be part of a primary key")
	}
	return nil
}
