package syscat

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Catalog is the read-only part of the engine's catalog that the system
// catalog lists; *catalog.Catalog satisfies it.
type Catalog interface {
	// All returns every relation.
	All() []*catalog.Relation
	// Schemas returns the user schemas, public included.
	Schemas() []string
	// Roles returns every role.
	Roles() []*catalog.Role
	// ByID finds a relation by id.
	ByID(id uint32) (*catalog.Relation, bool)
	// ByOID finds a relation by OID.
	ByOID(oid uint32) (*catalog.Relation, bool)
	// RoleByOID finds a role by OID.
	RoleByOID(oid uint32) (*catalog.Role, bool)
}

// Provider is what the engine shows the system catalog, as one session
// sees it. Every call reads the current state; nothing is cached here.
type Provider interface {
	// Catalog is the engine's catalog of relations and roles.
	Catalog() Catalog
	// Database is the session's database name.
	Database() string
	// Setting is the session's value of a setting (search_path, say).
	Setting(name string) string
	// Settings lists every setting with its session value, by name.
	Settings() []Setting
	// DefaultText is column col's DEFAULT as pg_get_expr prints it.
	DefaultText(r *catalog.Relation, col int) string
	// ACL is a relation's privileges as aclitem[] text, nil when nothing
	// was granted (the owner's privileges are then implicit).
	ACL(r *catalog.Relation) []string
	// SequenceLast is the last value of the sequence r (col -1) or of
	// r's column col, and false when none was handed out yet
	// (pg_sequence_last_value).
	SequenceLast(r *catalog.Relation, col int) (int64, bool)
	// PreparedStatements are the session's statements of SQL's PREPARE.
	PreparedStatements() []PreparedStatement
	// Cursors are the session's open cursors of DECLARE.
	Cursors() []Cursor
	// System is the running system, for the weir schema.
	System
}

// PreparedStatement is one row of pg_prepared_statements.
type PreparedStatement struct {
	Name, Statement string
	// PrepareTime is in microseconds since 1970 (a timestamptz).
	PrepareTime int64
	// ParamTypes are the parameters' type names as regtype prints them.
	ParamTypes []string
	// GenericPlans and CustomPlans count the executions by plan kind.
	GenericPlans, CustomPlans int64
}

// Cursor is one row of pg_cursors.
type Cursor struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	// CreationTime is in microseconds since 1970 (a timestamptz).
	CreationTime int64
}

// Setting is one row of pg_settings.
type Setting struct {
	Name, Value, Desc, Default string
	// ReadOnly settings report the server's fixed state (context
	// internal); the others a session may SET (context user).
	ReadOnly bool
}

// table is one relation of the system catalog: its columns and how its
// rows are made.
type table struct {
	schema string
	name   string
	cols   types.Schema
	rows   func(p Provider) []types.Row
	// desc and colDescs describe a weir view and its columns
	// (obj_description, col_description, \d+).
	desc     string
	colDescs map[string]string
}

// sysTypeNames are the column types a table's spec may name.
var sysTypeNames = map[string]types.T{
	"oid": types.TOid, "name": types.TName, "char": types.TChar, "bool": types.TBool,
	"int2": types.TInt2, "int4": types.TInt4, "int8": types.TInt8, "float4": types.TFloat4,
	"text": types.TText, "text[]": types.TTextArray, "timestamptz": types.TTimestamptz, "float8": types.TFloat8,
}

// cols parses "name:type name:type ..." into a schema.
func cols(spec string) types.Schema {
	var s types.Schema
	for _, f := range strings.Fields(spec) {
		n, t, _ := strings.Cut(f, ":")
		tt, ok := sysTypeNames[t]
		if !ok {
			panic("syscat: unknown system column type " + t)
		}
		s = append(s, types.Column{Name: n, T: tt})
	}
	return s
}

// def defines a table of schema from its column spec.
func def(schema, name, spec string, rows func(p Provider) []types.Row) *table {
	return &table{schema: schema, name: name, cols: cols(spec), rows: rows}
}

// tables holds every relation of the system catalog by "schema.name".
// It is built in init because the rows of pg_class and its kin list the
// weir schema's relations from it.
var tables map[string]*table

func init() { tables = index(pgCatalogTables(), infoSchemaTables(), weirTables()) }

func index(lists ...[]*table) map[string]*table {
	m := map[string]*table{}
	for _, l := range lists {
		for _, t := range l {
			m[t.schema+"."+t.name] = t
		}
	}
	return m
}

// Lookup finds a system table and returns its schema and columns. An
// empty schema searches pg_catalog, then information_schema.
func Lookup(schema, name string) (string, types.Schema, bool) {
	if schema == "" {
		for _, sc := range []string{PgCatalog, InfoSchema} {
			if t, ok := tables[sc+"."+name]; ok {
				return sc, t.cols, true
			}
		}
		return "", nil, false
	}
	t, ok := tables[schema+"."+name]
	if !ok {
		return "", nil, false
	}
	return schema, t.cols, true
}

// CatalogFirst reports whether an unqualified name finds the pg_catalog
// relation of that name before a user relation in public under
// searchPath: PostgreSQL searches pg_catalog before the schemas of
// search_path unless search_path names it, and then in its place.
func CatalogFirst(searchPath, name string) bool {
	if _, ok := tables[PgCatalog+"."+name]; !ok {
		return false
	}
	catalogAt, publicAt := -1, -1
	for i, s := range strings.Split(searchPath, ",") {
		switch strings.Trim(strings.TrimSpace(s), `"`) {
		case PgCatalog:
			catalogAt = i
		case catalog.PublicSchema:
			publicAt = i
		}
	}
	return catalogAt < 0 || publicAt < 0 || catalogAt < publicAt
}

// Rows returns the current rows of system table schema.name as p shows
// them. A table that does not exist is 42P01.
func Rows(p Provider, schema, name string) ([]types.Row, error) {
	t, ok := tables[schema+"."+name]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	rows := t.rows(p)
	for _, r := range rows {
		if len(r) != len(t.cols) {
			return nil, pgerr.New(pgerr.InternalError, "system table %s.%s: row has %d values, want %d", schema, name, len(r), len(t.cols))
		}
	}
	return rows, nil
}

// Value helpers for building rows.
func vOid(o uint32) types.Datum    { return types.DInt(int64(o)) }
func vInt(i int) types.Datum       { return types.DInt(int64(i)) }
func vStr(s string) types.Datum    { return types.DString(s) }
func vBool(b bool) types.Datum     { return types.DBool(b) }
func vFloat(f float64) types.Datum { return types.DFloat(f) }

var null = types.NullDatum
