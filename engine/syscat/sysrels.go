package syscat

import (
	"slices"
	"strings"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file lists the relations weir serves in pg_catalog and
// information_schema as relations of pg_class, with their columns in
// pg_attribute, as PostgreSQL 15 lists its own (pgrels.go): psql's
// \d pg_class, \dS, \dvS pg_stat* and \dtS find them. Their OIDs are
// PostgreSQL's, below weir's own schema's (13900), so they never meet a
// weir view's or a user relation's. psql's \d and \dt without S leave
// them out, as on PostgreSQL, by the schema's name.

// pgRelation is one entry of pgRelations.
type pgRelation struct {
	oid uint32
	// kind is pg_class.relkind: 'r' for a catalog table, 'v' for a view.
	kind byte
	// notNull names the columns PostgreSQL declares NOT NULL, separated
	// by spaces.
	notNull string
}

// sharedCatalogs are PostgreSQL's catalogs of the whole cluster
// (relisshared) among weir's.
var sharedCatalogs = map[string]bool{
	"pg_auth_members": true, "pg_authid": true, "pg_database": true, "pg_db_role_setting": true,
	"pg_parameter_acl": true, "pg_shdescription": true, "pg_tablespace": true,
}

// sysRelation is one relation of pg_catalog or information_schema with
// PostgreSQL's description of it.
type sysRelation struct {
	pgRelation
	t *table
}

// sysRelations lists the relations of pg_catalog and information_schema
// that PostgreSQL has, by OID.
func sysRelations() []sysRelation {
	var out []sysRelation
	for key, t := range tables {
		if r, ok := pgRelations[key]; ok && (t.schema == PgCatalog || t.schema == InfoSchema) {
			out = append(out, sysRelation{r, t})
		}
	}
	slices.SortFunc(out, func(a, b sysRelation) int { return int(a.oid) - int(b.oid) })
	return out
}

// sysRelationByOID finds a relation of pg_catalog or
// information_schema by OID.
func sysRelationByOID(oid uint32) (sysRelation, bool) {
	for key, r := range pgRelations {
		if r.oid == oid {
			if t, ok := tables[key]; ok {
				return sysRelation{r, t}, true
			}
		}
	}
	return sysRelation{}, false
}

// RelationOID is the OID of system relation schema.name in pg_class
// ('pg_catalog.pg_class'::regclass): PostgreSQL's. An empty schema
// searches pg_catalog, then information_schema. A weir view has its own.
func RelationOID(schema, name string) (uint32, bool) {
	schema, _, ok := Lookup(schema, name)
	if !ok {
		return 0, false
	}
	if r, ok := pgRelations[schema+"."+name]; ok {
		return r.oid, true
	}
	for _, r := range weirRelations() {
		if r.t.schema == schema && r.t.name == name {
			return r.oid, true
		}
	}
	return 0, false
}

// sysClassRows are the system relations' rows of pg_class: owned by the
// bootstrap superuser, a table with the heap access method, a view with
// none and a rule (its _RETURN), as in PostgreSQL.
func sysClassRows() []types.Row {
	var rows []types.Row
	for _, r := range sysRelations() {
		am, filenode, view := uint32(oidHeapAM), r.oid, r.kind == 'v'
		if view {
			am, filenode = 0, 0
		}
		rows = append(rows, types.Row{vOid(r.oid), vStr(r.t.name), vOid(nspOID(r.t.schema, nil)), vOid(0), vOid(0), vOid(oidRoot), vOid(am), vOid(filenode), vOid(0),
			vInt(0), vFloat(-1), vInt(0), vOid(0), vBool(false), vBool(sharedCatalogs[r.t.name]), vStr("p"), vStr(string(r.kind)), vInt(len(visibleSysCols(r.t))), vInt(0),
			vBool(view), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), null, null, null})
	}
	return rows
}

// visibleSysCols are a system table's columns as SELECT * shows them,
// without its system columns (tableoid).
func visibleSysCols(t *table) types.Schema {
	var cs types.Schema
	for _, c := range t.cols {
		if !c.Hidden {
			cs = append(cs, c)
		}
	}
	return cs
}

// sysAttributeRows are the system relations' columns in pg_attribute.
func sysAttributeRows() []types.Row {
	var rows []types.Row
	for _, r := range sysRelations() {
		notNull := strings.Fields(r.notNull)
		for i, c := range visibleSysCols(r.t) {
			// A view's text columns have the default collation, a
			// catalog table's text and text[] columns C, as in
			// PostgreSQL (its ACLs, aclitem[] there, none).
			coll := uint32(0)
			if c.T.IsString() && c.T.ID != types.Char && c.T.ID != types.Name {
				coll = 100
			}
			if r.kind == 'r' && (coll != 0 || c.T.ID == types.TTextArray.ID && !strings.HasSuffix(c.Name, "acl")) {
				coll = collationOIDs["C"]
			}
			rows = append(rows, types.Row{vOid(r.oid), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(i + 1), vInt(0), vInt(-1), vInt(-1),
				vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr(typAlign(c.T)), vStr(typStorage(c.T)), vStr(""), vBool(slices.Contains(notNull, c.Name)), vBool(false), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(coll), null, null, null})
		}
	}
	return rows
}

// describeSys answers regclassout and pg_table_is_visible for the
// relations of pg_catalog and information_schema (Describe): a
// pg_catalog relation is visible unless a temporary relation of the
// session or, when search_path puts pg_catalog after public, a public
// relation of its name hides it; information_schema is not on the
// search path unless named.
func describeSys(p Provider, fn string, oid uint32) (string, bool) {
	r, ok := sysRelationByOID(oid)
	if !ok {
		return "", false
	}
	visible := false
	if r.t.schema == PgCatalog {
		visible = true
		if t := p.TempSchema(); t != "" {
			if _, hidden := p.Catalog().Lookup(t, r.t.name); hidden {
				visible = false
			}
		}
		if !CatalogFirst(p.Setting("search_path"), r.t.name) {
			if _, hidden := p.Catalog().Lookup(catalog.PublicSchema, r.t.name); hidden {
				visible = false
			}
		}
	} else {
		for _, s := range SplitSearchPath(p.Setting("search_path")) {
			if s == r.t.schema {
				visible = true
			}
		}
	}
	switch fn {
	case "regclassout":
		if visible {
			return r.t.name, true
		}
		return r.t.schema + "." + r.t.name, true
	case "pg_table_is_visible":
		if visible {
			return "t", true
		}
		return "f", true
	}
	return "", false
}
