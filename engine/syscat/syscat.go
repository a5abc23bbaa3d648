package syscat

import (
	"strings"
	"time"

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
	// SchemaOwner is the OID of the role owning a user schema.
	SchemaOwner(name string) uint32
	// Roles returns every role.
	Roles() []*catalog.Role
	// ByID finds a relation by id.
	ByID(id uint32) (*catalog.Relation, bool)
	// ByOID finds a relation by OID.
	ByOID(oid uint32) (*catalog.Relation, bool)
	// RoleByOID finds a role by OID.
	RoleByOID(oid uint32) (*catalog.Role, bool)
	// Lookup finds a relation by schema and name.
	Lookup(schema, name string) (*catalog.Relation, bool)
	// TempSchemas returns the sessions' temporary schemas (pg_temp_N).
	TempSchemas() []string
	// Types returns the user types (enums and domains), by OID.
	Types() []*catalog.UserType
	// Functions returns the user functions (CREATE FUNCTION), by OID.
	Functions() []*catalog.Function
}

// Provider is what the engine shows the system catalog, as one session
// sees it. Every call reads the current state; nothing is cached here.
type Provider interface {
	// Catalog is the engine's catalog of relations and roles.
	Catalog() Catalog
	// Database is the session's database name.
	Database() string
	// TempSchema is the session's temporary schema, "" when it has
	// none yet.
	TempSchema() string
	// Setting is the session's value of a setting (search_path, say).
	Setting(name string) string
	// SearchPath is the schemas the session's search_path names, in
	// order, $user resolved to the session role's name and pg_catalog
	// kept where it is listed.
	SearchPath() []string
	// ActiveSearchPath is the schemas an unqualified name is looked up
	// in, in order, as current_schemas(implicit) lists them: those
	// search_path lists that exist, and with implicit the session's
	// temporary schema and pg_catalog where the path does not place
	// them.
	ActiveSearchPath(implicit bool) []string
	// Settings lists every setting with its session value, by name.
	Settings() []Setting
	// DefaultText is column col's DEFAULT as pg_get_expr prints it.
	DefaultText(r *catalog.Relation, col int) string
	// GeneratedText is generated column col's expression as pg_get_expr
	// prints it.
	GeneratedText(r *catalog.Relation, col int) string
	// CheckText is r's CHECK constraint k as pg_get_constraintdef
	// prints it ("CHECK (...)"), and CheckColumns the columns it reads
	// (indexes into r.Cols, ascending).
	CheckText(r *catalog.Relation, k int) string
	CheckColumns(r *catalog.Relation, k int) []int
	// ConstraintDef is the CHECK constraint (of a table or a domain) of
	// pg_constraint OID oid as pg_get_constraintdef(oid) prints it,
	// without the pretty flag ("CHECK ((...))").
	ConstraintDef(oid uint32) string
	// IndexTexts are the key expressions and predicate of index idx on
	// on as pg_get_indexdef prints them, pretty or not.
	IndexTexts(idx, on *catalog.Relation, pretty bool) IndexTexts
	// DomainDefaultText is domain u's DEFAULT as pg_type.typdefault
	// holds it (deparsed).
	DomainDefaultText(u *catalog.UserType) string
	// HasPrivsOfRole reports whether the session's role has the
	// privileges of role oid (pg_has_role(oid, 'USAGE')): it is that
	// role or inherits from it, or is a superuser.
	HasPrivsOfRole(oid uint32) bool
	// HoldsAny reports whether the session's role holds any of the
	// privileges in p on r (col -1) or on the sequence of r's column
	// col: as a superuser, as (a member of) its owner, or through a grant
	// to it, its roles or PUBLIC.
	HoldsAny(r *catalog.Relation, col int, p catalog.Privilege) bool
	// ViewText is the query of view or materialized view r as
	// pg_get_viewdef(oid, pretty) prints it, with the names relations
	// and columns have now.
	ViewText(r *catalog.Relation, pretty bool) string
	// ACL is a relation's privileges as aclitem[] text, nil before any
	// GRANT or REVOKE on it (the owner's privileges are then implicit,
	// relacl NULL).
	ACL(r *catalog.Relation) []string
	// FuncACL is a user function's privileges as aclitem[] text, nil
	// for the default (EXECUTE for PUBLIC).
	FuncACL(f *catalog.Function) []string
	// SequenceLast is the last value of the sequence r (col -1) or of
	// r's column col, and false when none was handed out yet
	// (pg_sequence_last_value).
	SequenceLast(r *catalog.Relation, col int) (int64, bool)
	// SequenceACL is the privileges on the sequence of r's column col as
	// aclitem[] text, nil before any GRANT or REVOKE on it.
	SequenceACL(r *catalog.Relation, col int) []string
	// PreparedStatements are the session's statements of SQL's PREPARE.
	PreparedStatements() []PreparedStatement
	// Cursors are the session's open cursors of DECLARE.
	Cursors() []Cursor
	// TableBytes is the size in bytes of the committed entries of one
	// table id (a relation's data, an index's, a state table's), 0 when
	// it cannot be read.
	TableBytes(id uint32) int64
	// Backends are the client sessions open now, as the asking session
	// may see them (pg_stat_activity).
	Backends() []Backend
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

// Backend is one client session, a row of pg_stat_activity and of
// pg_stat_ssl. The
// engine fills every field; the row shows those past RoleOID only when
// Visible.
type Backend struct {
	PID int32
	// RoleOID is the session's role (usesysid).
	RoleOID  uint32
	Database string
	AppName  string
	// ClientAddr and ClientPort are the client's address and TCP port;
	// ClientPort is -1 over a Unix socket (ClientAddr then empty).
	ClientAddr string
	ClientPort int
	// Started, XactStart, QueryStart and StateChange are
	// backend_start, xact_start, query_start and state_change; a zero
	// time is NULL.
	Started, XactStart, QueryStart, StateChange time.Time
	// State is PostgreSQL's state: active, idle, idle in transaction,
	// idle in transaction (aborted).
	State string
	// Query is the statement running, or the last one run when idle.
	Query string
	// WaitEventType and WaitEvent are what the session waits for, as
	// PostgreSQL names it (Client/ClientRead when idle); empty when it
	// waits for nothing.
	WaitEventType, WaitEvent string
	// SSL reports whether the client upgraded to TLS; SSLVersion,
	// SSLCipher and SSLBits are then its protocol version, cipher suite
	// (in OpenSSL's names, as PostgreSQL shows them) and the cipher's
	// strength in bits (pg_stat_ssl).
	SSL                   bool
	SSLVersion, SSLCipher string
	SSLBits               int
	// Visible reports whether the asking session has the privileges of
	// this session's role (a superuser has every role's): the others see
	// the query as <insufficient privilege> and the rest as NULL, as in
	// PostgreSQL.
	Visible bool
}

// Cursor is one row of pg_cursors.
type Cursor struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	// CreationTime is in microseconds since 1970 (a timestamptz).
	CreationTime int64
}

// Setting is one row of pg_settings, its columns as PostgreSQL names
// them: Value is setting (in Unit, if any), Default boot_val, Reset
// reset_val (what RESET returns to), Min and Max min_val and max_val
// ("" for NULL), Source where the value comes from ("default",
// "configuration file" for a value of ALTER SYSTEM, "client",
// "session").
type Setting struct {
	Name, Value, Desc, Default, Reset string
	Unit, Category, Context, VarType  string
	Source, Min, Max                  string
	EnumVals                          []string
	// ReadOnly settings report the server's fixed state; the others a
	// session may SET.
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
	"numeric": types.TNumeric,
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
//
// A pg_catalog table with a PostgreSQL OID (catalogOIDs) also has the
// system column tableoid, which SELECT * leaves out: psql joins
// pg_description on it (\dd, \dL).
func def(schema, name, spec string, rows func(p Provider) []types.Row) *table {
	oid, ok := catalogOIDs[name]
	if schema != PgCatalog || !ok {
		return &table{schema: schema, name: name, cols: cols(spec), rows: rows}
	}
	cs := append(cols(spec), types.Column{Name: "tableoid", T: types.TOid, Hidden: true})
	return &table{schema: schema, name: name, cols: cs, rows: func(p Provider) []types.Row {
		rs := rows(p)
		for i, r := range rs {
			rs[i] = append(r[:len(r):len(r)], vOid(oid))
		}
		return rs
	}}
}

// catalogOIDs are PostgreSQL's OIDs of its system catalogs (the tables
// of pg_class's own catalog, pg_class.oid in PostgreSQL), which
// tableoid and 'pg_catalog.pg_x'::regclass give.
var catalogOIDs = map[string]uint32{
	"pg_class": 1259, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255,
	"pg_namespace": 2615, "pg_constraint": 2606, "pg_index": 2610,
	"pg_database": 1262, "pg_authid": 1260, "pg_auth_members": 1261, "pg_tablespace": 1213,
	"pg_am": 2601, "pg_attrdef": 2604, "pg_cast": 2605, "pg_conversion": 2607,
	"pg_depend": 2608, "pg_description": 2609, "pg_inherits": 2611, "pg_language": 2612,
	"pg_largeobject_metadata": 2995, "pg_operator": 2617, "pg_opclass": 2616, "pg_opfamily": 2753,
	"pg_rewrite": 2618, "pg_trigger": 2620, "pg_event_trigger": 3466, "pg_extension": 3079,
	"pg_foreign_data_wrapper": 2328, "pg_foreign_server": 1417, "pg_foreign_table": 3118,
	"pg_policy": 3256, "pg_collation": 3456, "pg_sequence": 2224, "pg_statistic_ext": 3381,
	"pg_publication": 6104, "pg_publication_namespace": 6237, "pg_publication_rel": 6106,
	"pg_partitioned_table": 3350, "pg_shdescription": 2396, "pg_db_role_setting": 2964,
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
	for i, s := range SplitSearchPath(searchPath) {
		switch s {
		case PgCatalog:
			catalogAt = i
		case catalog.PublicSchema:
			publicAt = i
		}
	}
	return catalogAt < 0 || publicAt < 0 || catalogAt < publicAt
}

// SplitSearchPath returns the schema names of a search_path value, as
// PostgreSQL's SplitIdentifierString reads it: comma-separated names,
// each double-quoted (kept as written, "" for a quote) or bare (folded
// to lower case), blanks around them ignored.
func SplitSearchPath(path string) []string {
	var out []string
	i := 0
	for i < len(path) {
		for i < len(path) && (path[i] == ' ' || path[i] == '\t' || path[i] == '\n') {
			i++
		}
		var b strings.Builder
		if i < len(path) && path[i] == '"' {
			i++
			for i < len(path) {
				if path[i] == '"' {
					if i+1 < len(path) && path[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(path[i])
				i++
			}
			for i < len(path) && path[i] != ',' {
				i++
			}
		} else {
			start := i
			for i < len(path) && path[i] != ',' {
				i++
			}
			b.WriteString(strings.ToLower(strings.TrimSpace(path[start:i])))
		}
		out = append(out, b.String())
		if i < len(path) && path[i] == ',' {
			i++
		}
	}
	return out
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
