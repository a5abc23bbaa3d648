package engine

import (
	"context"
	"github.com/weirdb/weir/sql"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// catalogView is the binder's view of the catalog from one session.
// permanent leaves the session's temporary schema out of the search for
// an unqualified name (Permanent).
type catalogView struct {
	s         *Session
	permanent bool
	// first is the schema searched first for an unqualified name, as
	// Session.schemaFirst is ("": the session's).
	first string
	// path, when pathSet, is the stored search path of the definition
	// being bound (catalog.Relation.SearchPath), used in place of the
	// session's search_path.
	path    string
	pathSet bool
}

func (s *Session) catalogView() planner.Catalog { return catalogView{s: s} }

// Database implements planner.DatabaseCatalog.
func (v catalogView) Database() string { return v.s.database }

func (v catalogView) Relation(schema, name string) (*catalog.Relation, bool) {
	switch schema {
	case "":
		// The effective search path (relationSearch): a pg_catalog
		// relation of the name found first leaves it to the binder,
		// which takes the system table.
		for _, sc := range v.search() {
			if sc == syscat.PgCatalog {
				if _, _, ok := syscat.Lookup(syscat.PgCatalog, name); ok {
					return nil, false
				}
				continue
			}
			if rel, ok := v.s.eng.cat.Lookup(sc, name); ok {
				return v.seen(rel), true
			}
		}
		return nil, false
	case catalog.TempSchemaAlias:
		if v.s.tempSchema == "" {
			return nil, false
		}
		schema = v.s.tempSchema
	}
	rel, ok := v.s.eng.cat.Lookup(schema, name)
	if !ok {
		return nil, false
	}
	// Another session's temporary relation, named by its schema, is
	// resolved as in PostgreSQL, and refused where the accesses of the
	// statement are checked (checkAccess: 0A000).
	return v.seen(rel), true
}

// search returns the schemas an unqualified name is looked up in, in
// order: under the stored definition's search path when the view is
// one's (SearchPath), else the session's.
func (v catalogView) search() []string {
	value := v.s.searchPath()
	if v.pathSet {
		value = definitionPath(v.path)
	}
	first := v.first
	if first == "" {
		first = v.s.schemaFirst
	}
	return v.s.relationSearch(value, v.permanent, first)
}

// OwnedSequence implements planner.OwnedSequenceCatalog.
func (v catalogView) OwnedSequence(schema, name string) (*catalog.Relation, int, bool) {
	switch schema {
	case "":
		for _, sc := range v.search() {
			if rel, col, ok := catalog.OwnedSequence(v.s.eng.cat.All(), sc, name); ok {
				return rel, col, true
			}
		}
		return nil, 0, false
	case catalog.TempSchemaAlias:
		schema = v.s.tempSchema
	}
	return catalog.OwnedSequence(v.s.eng.cat.All(), schema, name)
}

// seen returns rel as the session's binder sees it.
func (v catalogView) seen(rel *catalog.Relation) *catalog.Relation {
	if o, ok := v.s.over[rel.ID]; ok {
		rel = o
	}
	return planner.PinRelation(rel, v.s.pins)
}

// Permanent implements planner.PermanentCatalog: the view in which an
// unqualified name skips the session's temporary schema, for binding
// the definition of a permanent view.
func (v catalogView) Permanent() planner.Catalog {
	v.permanent = true
	return v
}

// SearchPath implements planner.SearchPathCatalog.
func (v catalogView) SearchPath(stored string) planner.Catalog {
	v.path, v.pathSet = stored, true
	return v
}

// SchemaFirst implements planner.SchemaFirstCatalog.
func (v catalogView) SchemaFirst(schema string) planner.Catalog {
	v.first = schema
	return v
}

func (v catalogView) SystemTable(schema, name string) (string, types.Schema, bool) {
	return syscat.Lookup(schema, name)
}

// SystemRelationOID implements planner.SystemOIDCatalog.
func (v catalogView) SystemRelationOID(schema, name string) (uint32, bool) {
	return syscat.RelationOID(schema, name)
}

// collect runs a bound read-only plan over snap and returns all rows.
func (s *Session) collect(ctx context.Context, b *planner.Bound, snap *storage.Snapshot) ([]types.Row, error) {
	return s.collectThrough(ctx, b, snap, nil)
}

// collectThrough is collect reading through batch, a transaction
// block's pending writes (nil for none), as the block's statements do.
func (s *Session) collectThrough(ctx context.Context, b *planner.Bound, snap *storage.Snapshot, batch *storage.Batch) ([]types.Row, error) {
	ec := s.execCtx(ctx, nil, &snapshotSource{eng: s.eng, snap: snap, s: s, batch: batch, ctx: ctx}, nil)
	defer ec.Release()
	op, err := executor.Build(b.Plan, ec)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	var rows []types.Row
	for {
		if err := ctx.Err(); err != nil {
			return nil, ctxError(ctx)
		}
		c, err := op.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			return nil, err
		}
		if c == nil {
			return rows, nil
		}
		for i := 0; i < c.Len(); i++ {
			if c.Visible(i) {
				r := c.Row(i)
				copyDecimals(r)
				rows = append(rows, r)
			}
		}
	}
}

// Indexes implements planner.IndexCatalog.
func (v catalogView) Indexes(relID uint32) []*catalog.Relation {
	return v.s.eng.indexesOf(relID)
}

// UserType implements planner.TypeCatalog.
func (v catalogView) UserType(schema, name string) (*catalog.UserType, bool) {
	return v.s.lookupUserType(sql.ObjectName{Schema: schema, Name: name})
}

// NamespaceOID implements planner.NameCatalog.
func (v catalogView) NamespaceOID(name string) (uint32, bool) {
	return syscat.NamespaceOID(name, v.s.eng.cat)
}

// NamespaceName implements planner.NameCatalog.
func (v catalogView) NamespaceName(oid uint32) (string, bool) {
	for name, o := range syscat.NamespaceNames(v.s.eng.cat) {
		if o == oid {
			return name, true
		}
	}
	return "", false
}

// RoleOID implements planner.NameCatalog.
func (v catalogView) RoleOID(name string) (uint32, bool) {
	r, ok := v.s.eng.cat.RoleByName(name)
	if !ok {
		return 0, false
	}
	return r.OID, true
}

// RoleName implements planner.NameCatalog.
func (v catalogView) RoleName(oid uint32) (string, bool) {
	r, ok := v.s.eng.cat.RoleByOID(oid)
	if !ok {
		return "", false
	}
	return r.Name, true
}

// DomainByOID implements planner.DomainCatalog.
func (v catalogView) DomainByOID(oid uint32) (*catalog.UserType, string, bool) {
	u, ok := v.s.eng.cat.TypeByOID(oid)
	if !ok {
		return nil, "", false
	}
	return u, v.s.userTypeName(u), true
}
