package engine

// Temporary relations, as PostgreSQL 15 has them.
//
// A session's temporary tables, views and indexes live in its own
// schema, pg_temp_N, which the catalog holds in memory only
// (catalog.Catalog.AddTempSchema) from the session's first CREATE TEMP
// until it ends. The relations are ordinary catalog entries marked
// Temp, whose rows are stored and written as any table's; what makes
// them temporary is who sees them and when they go:
//
//   - Names: an unqualified name is looked up in the session's temporary
//     schema first (before pg_catalog, as PostgreSQL's implicit search
//     path has it), so a temporary table hides a permanent one of its
//     name; pg_temp means the session's own schema. Other sessions do
//     not see the schema through names at all.
//   - End: Close drops them with their data, whether the client said
//     goodbye or vanished; DISCARD TEMP and DISCARD ALL do too.
//   - Crash: the entries are written with their flag, and Open drops
//     every temporary relation it finds before anything reads the
//     catalog, so none survives a restart.
//   - Transactions: unlike other DDL, CREATE TEMP TABLE and CREATE TEMP
//     VIEW may run inside a transaction block, since no other session
//     sees what they make: the block's end drops them unless it commits
//     (blockTemps). ON COMMIT is PostgreSQL's: PRESERVE ROWS (the
//     default) keeps the table, DROP drops it as the transaction that
//     made it commits (the statement's own outside a block), and DELETE
//     ROWS empties it as every transaction commits (deleteRowsAtCommit).
//
// A materialized view or a sink would outlive the session, so neither
// may read a temporary relation (PostgreSQL's "materialized views must
// not use temporary tables or views"); an index on a temporary table is
// temporary itself, and a view over one becomes temporary, with
// PostgreSQL's NOTICE.

import (
	"context"
	"fmt"
	"reflect"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// schemaOf resolves the schema of a name that refers to an existing
// relation: an unqualified name means the first schema of the session's
// effective search path that holds it (sessionSearch), pg_temp the
// session's temporary schema. A name in no schema resolves to a schema
// without it, which the caller reports as missing: the schema a new
// relation of the name would go to (creationTarget), pg_catalog when
// there is none.
func (s *Session) schemaOf(n sql.ObjectName) string {
	switch n.Schema {
	case "":
		for _, sc := range s.sessionSearch() {
			if _, ok := s.eng.cat.Lookup(sc, n.Name); ok {
				return sc
			}
		}
		switch t := s.creationTarget(); t {
		case "":
			return syscat.PgCatalog
		case catalog.TempSchemaAlias:
			if s.tempSchema == "" {
				return catalog.TempSchemaAlias
			}
			return s.tempSchema
		default:
			return t
		}
	case catalog.TempSchemaAlias:
		if s.tempSchema == "" {
			return catalog.TempSchemaAlias
		}
		return s.tempSchema
	}
	return n.Schema
}

// creationSchema resolves the schema a new relation named n goes to, as
// PostgreSQL's RangeVarGetCreationNamespace and
// RangeVarAdjustRelationPersistence do: a temporary relation goes to
// the session's temporary schema (made now if the session has none),
// and naming another schema for it is 42P16; a relation named in
// pg_temp, or unqualified under a search path whose first existing
// schema is pg_temp, is temporary whatever the statement said; anything
// else goes to the schema named, else the first existing schema of the
// search path (creationTarget; 3F000 when there is none). It reports
// whether the relation is temporary.
func (s *Session) creationSchema(n sql.ObjectName, temp bool) (string, bool, error) {
	own := n.Schema == catalog.TempSchemaAlias || (n.Schema != "" && n.Schema == s.tempSchema)
	if temp && n.Schema != "" && !own {
		return "", false, pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	if temp || own {
		return s.ownTempSchema(), true, nil
	}
	if _, other := catalog.TempSchemaNumber(n.Schema); other {
		return "", false, pgerr.New(pgerr.FeatureNotSupported, "cannot create relations in temporary schemas of other sessions")
	}
	if n.Schema != "" {
		return n.Schema, false, nil
	}
	switch t := s.creationTarget(); t {
	case "":
		return "", false, pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
	case catalog.TempSchemaAlias:
		return s.ownTempSchema(), true, nil
	case s.tempSchema:
		return t, true, nil
	default:
		return t, false, nil
	}
}

// ownTempSchema returns the session's temporary schema, making it first
// if the session has none yet.
func (s *Session) ownTempSchema() string {
	if s.tempSchema == "" {
		s.tempSchema = s.eng.cat.AddTempSchema()
	}
	return s.tempSchema
}

// placeTable returns st with its name qualified by the schema the table
// goes to (creationSchema) and Temp set when that is the session's
// temporary schema, after checking what a temporary table may have.
func (s *Session) placeTable(st *sql.CreateTable) (*sql.CreateTable, error) {
	schema, temp, err := s.creationSchema(st.Name, st.Temp)
	if err != nil {
		return nil, pgerr.As(err).WithPosition(st.NamePos)
	}
	out := *st
	out.Name.Schema, out.Temp = schema, temp
	if temp && (st.With["connector"] != "" || st.Format != "" || len(st.Include) > 0) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a temporary table with a connector is not supported")
	}
	return &out, nil
}

// deleteRowsAtCommit empties the session's ON COMMIT DELETE ROWS tables
// that hold rows, after a transaction committed: in one write of their
// own, outside any block, through the dataflow as TRUNCATE's deletes
// go (an index on such a table follows).
func (s *Session) deleteRowsAtCommit(ctx context.Context) error {
	if len(s.deleteRows) == 0 {
		return nil
	}
	e := s.eng
	var rels []*catalog.Relation
	kept := s.deleteRows[:0]
	for _, id := range s.deleteRows {
		if r, ok := e.cat.ByID(id); ok && r.Temp && r.Schema == s.tempSchema {
			rels = append(rels, r)
			kept = append(kept, id)
		}
	}
	s.deleteRows = kept
	if len(rels) == 0 {
		return nil
	}
	// The transaction has committed: its ON COMMIT action is no longer
	// the statement's to cancel.
	ctx, cancel := s.eng.pastCancel(ctx)
	defer cancel()
	ws, err := s.directWrite(ctx)
	if err != nil {
		return err
	}
	deleted := 0
	for _, rel := range rels {
		n, err := deleteAllRows(ctx, ws, rel)
		if err != nil {
			_ = ws.finish(ctx, false)
			return err
		}
		deleted += n
	}
	return ws.finish(ctx, deleted > 0)
}

// blockTemp is a temporary table created in the open transaction.
type blockTemp struct {
	id           uint32
	dropAtCommit bool
}

// endBlockTemps ends the open transaction for its temporary tables: a
// commit keeps those not created ON COMMIT DROP; anything else drops
// them all, as PostgreSQL's rollback of their CREATE does.
func (s *Session) endBlockTemps(ctx context.Context, commit bool) error {
	var drop []uint32
	for _, bt := range s.blockTemps {
		if !commit || bt.dropAtCommit {
			drop = append(drop, bt.id)
		}
	}
	s.blockTemps = nil
	// The drops belong to the transaction's end, which a cancel or
	// statement_timeout no longer stops: they wait for the locks.
	_, err := s.dropTempIDs(context.WithoutCancel(ctx), drop)
	return err
}

// dropBlockTemps drops the temporary tables the open block created after
// its first n (ROLLBACK TO a savepoint set when it had created n).
func (s *Session) dropBlockTemps(ctx context.Context, n int) error {
	if n >= len(s.blockTemps) {
		return nil
	}
	var drop []uint32
	for _, bt := range s.blockTemps[n:] {
		drop = append(drop, bt.id)
	}
	s.blockTemps = s.blockTemps[:n]
	_, err := s.dropTempIDs(context.WithoutCancel(ctx), drop)
	return err
}

// dropTempIDs drops the session's temporary relations with the given ids
// (those still there) and what depends on them, and returns how many
// relations it dropped.
func (s *Session) dropTempIDs(ctx context.Context, ids []uint32) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return 0, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return 0, err
	}
	var targets []*catalog.Relation
	for _, id := range ids {
		if r, ok := e.cat.ByID(id); ok && r.Temp && r.Schema == s.tempSchema {
			targets = append(targets, r)
		}
	}
	order, err := e.dropOrder(targets, true, func(*catalog.Relation) {})
	e.writeMu.Unlock()
	if err != nil {
		return 0, err
	}
	return len(order), e.dropRelations(ctx, order)
}

// usesTemp reports the first temporary relation among deps, or nil.
func (e *Engine) usesTemp(deps []uint32) *catalog.Relation {
	for _, id := range deps {
		if r, ok := e.cat.ByID(id); ok && r.Temp {
			return r
		}
	}
	return nil
}

// visibleTo reports whether a client session may name rel: any
// permanent relation, and its own temporary ones. Internal sessions,
// which bind the stored definitions of index jobs on temporary tables,
// see everything.
func (s *Session) visibleTo(rel *catalog.Relation) bool {
	return !rel.Temp || rel.Schema == s.tempSchema || s.builtinDefaults
}

// otherTempError is PostgreSQL's error for naming another session's
// temporary relation, or nil (a name no relation has is left to the
// statement to report).
func (s *Session) otherTempError(n sql.ObjectName) error {
	if _, ok := catalog.TempSchemaNumber(n.Schema); !ok || n.Schema == s.tempSchema || s.builtinDefaults {
		return nil
	}
	if _, ok := s.eng.cat.Lookup(n.Schema, n.Name); ok {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot access temporary tables of other sessions")
	}
	return nil
}

// dropTemp drops the session's temporary relations with their data and
// jobs, and gives up its temporary schema: at the end of the session and
// for DISCARD TEMP.
func (s *Session) dropTemp(ctx context.Context) error {
	if s.tempSchema == "" {
		return nil
	}
	var ids []uint32
	for _, r := range s.eng.cat.InSchema(s.tempSchema) {
		ids = append(ids, r.ID)
	}
	n, err := s.dropTempIDs(ctx, ids)
	if err != nil {
		return err
	}
	if left := s.eng.cat.InSchema(s.tempSchema); len(left) > 0 {
		return pgerr.New(pgerr.InternalError, "temporary schema %s still holds %d relations", s.tempSchema, len(left))
	}
	s.eng.log.Info("dropped temporary relations", "schema", s.tempSchema, "count", n)
	s.eng.cat.DropTempSchema(s.tempSchema)
	s.tempSchema, s.blockTemps, s.deleteRows = "", nil, nil
	return nil
}

// closeTemp is dropTemp at the end of a session, whose errors have no
// client to go to: they are logged, and what is left goes at the next
// start.
func (s *Session) closeTemp() {
	if err := s.dropTemp(context.Background()); err != nil {
		s.eng.log.Error("dropping temporary relations at session end", "schema", s.tempSchema, "err", err)
	}
}

// tempViewNotice makes a view over a temporary relation temporary, as
// PostgreSQL's DefineView does, with its NOTICE.
func (s *Session) tempViewNotice(io wire.ExecIO, name string, deps []uint32) bool {
	if s.eng.usesTemp(deps) == nil {
		return false
	}
	io.Notice("NOTICE", "00000", fmt.Sprintf("view \"%s\" will be a temporary view", name))
	return true
}

// checkOtherTemp refuses, with PostgreSQL's 0A000, a statement that names
// a relation in another session's temporary schema: the names of stmt's
// own fields (a DROP's, a COPY's, an index's table) and the tables its
// queries read.
func (s *Session) checkOtherTemp(stmt sql.Stmt) error {
	if n := s.eng.cat.TempSchemaCount(); n == 0 || (n == 1 && s.tempSchema != "") {
		// No other session has a temporary schema.
		return nil
	}
	if _, ok := stmt.(*sql.Query); ok {
		// The relations a query reads are checked on what the binder
		// resolves them to (checkAccess calls otherTempRel), not on the
		// names its text spells.
		return nil
	}
	v := reflect.ValueOf(stmt)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f := v.Field(i).Interface().(type) {
		case sql.ObjectName:
			if err := s.otherTempError(f); err != nil {
				return err
			}
		case []sql.ObjectName:
			for _, n := range f {
				if err := s.otherTempError(n); err != nil {
					return err
				}
			}
		case *sql.Query:
			// Checked as it is bound (checkAccess).
		case sql.Stmt:
			if err := s.checkOtherTemp(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// otherTempRel refuses rel when it is a temporary relation of another
// session, as otherTempError refuses a name.
func (s *Session) otherTempRel(rel *catalog.Relation) error {
	if s.visibleTo(rel) {
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "cannot access temporary tables of other sessions")
}
