package syscat

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file emulates the parts of pg_catalog that psql 15's
// meta-commands and common drivers query (see the PostgreSQL 15 docs,
// chapter 53 "System Catalogs"). Rows are generated from the catalog on
// every scan, so they are always current.

// Schema names of the system catalog.
const (
	PgCatalog  = "pg_catalog"
	InfoSchema = "information_schema"
	Weir       = "weir"
)

// Well-known OIDs, as in Postgres.
// DatabaseOID is pg_database.oid of weir's one database.
const DatabaseOID = 16384 - 1

const (
	oidPgCatalog  = 11
	oidPublic     = 2200
	oidInfoSchema = 13183
	oidRoot       = catalog.BootstrapRoleOID // the bootstrap superuser
	// oidDatabaseOwner is the pg_database_owner role, which owns public.
	oidDatabaseOwner = 6171
	oidDatabase      = DatabaseOID
	oidHeapAM        = 2
	oidBtreeAM       = 403
	oidPgClassRel    = 1259
	// oidDefaultTablespace is pg_default, the one tablespace.
	oidDefaultTablespace = 1663
	// oidInternalLang is the language of built-in functions.
	oidInternalLang = 12
	// indexOIDBase offsets the OID of a table's primary key index from
	// the table's OID.
	indexOIDBase = catalog.PKIndexOIDBase
)

// nspOID is a schema's OID: Postgres's own for pg_catalog, public and
// information_schema, weir's, and one per user schema after them.
func nspOID(schema string, cat Catalog) uint32 {
	switch schema {
	case "pg_catalog":
		return oidPgCatalog
	case "public":
		return oidPublic
	case "information_schema":
		return oidInfoSchema
	case Weir:
		return oidWeirSchema
	}
	if n, ok := catalog.TempSchemaNumber(schema); ok {
		// A session's temporary schema keeps its OID while it lives,
		// whatever other schemas come and go.
		return uint32(oidTempSchemaBase + n)
	}
	for i, sc := range cat.Schemas() {
		if sc == schema {
			return uint32(16384 + 1<<20 + i)
		}
	}
	return 0
}

// oidTempSchemaBase + N is the OID of the temporary schema pg_temp_N:
// above the user schemas' (16384 + 1<<20 + i), below the relations'
// primary key indexes (catalog.PKIndexOIDBase).
const oidTempSchemaBase = 16384 + 1<<21

// isVisible reports whether the asking session finds r by its bare name
// (PostgreSQL's pg_table_is_visible): not another session's temporary
// relation, nor a permanent one that a temporary relation of the
// session hides, nor a public one a pg_catalog relation of its name
// hides. name is r's name, or its primary key index's.
func isVisible(p Provider, r *catalog.Relation, name string) bool {
	if r.Temp {
		return r.Schema == p.TempSchema()
	}
	if t := p.TempSchema(); t != "" {
		if _, hidden := p.Catalog().Lookup(t, name); hidden {
			return false
		}
		if strings.HasSuffix(name, "_pkey") {
			// A temporary table's primary key index hides one too.
			if tr, ok := p.Catalog().Lookup(t, strings.TrimSuffix(name, "_pkey")); ok && hasRealPK(tr) {
				return false
			}
		}
	}
	// A permanent relation is visible when its schema is on the search
	// path and no schema before it there has a relation of its name;
	// pg_catalog comes first unless the path places it (CatalogFirst).
	if r.Schema == catalog.PublicSchema && CatalogFirst(p.Setting("search_path"), name) {
		return false
	}
	for _, s := range p.SearchPath() {
		if s == r.Schema {
			return true
		}
		if s == PgCatalog {
			continue
		}
		if _, hides := p.Catalog().Lookup(s, name); hides {
			return false
		}
	}
	return false
}

// persistence is pg_class.relpersistence: 't' for a temporary
// relation, 'u' for an unlogged table, 'p' for the others.
func persistence(r *catalog.Relation) string {
	switch {
	case r.Temp:
		return "t"
	case r.Unlogged:
		return "u"
	}
	return "p"
}

// connectorServers are the source connectors as psql sees them: each is
// a foreign-data wrapper with one server of its name (\des, \dew),
// and a source is a foreign table of its connector's server (\det,
// \d). The OIDs are below FirstUserOID, never a relation's.
var connectorServers = []struct {
	name            string
	server, wrapper uint32
}{
	{"kafka", 16300, 16299},
	{"nexmark", 16302, 16301},
	{"datagen", 16304, 16303},
}

// serverOf returns the OID of the server of source r's connector (a
// source names one of connectorServers; Kafka's when it names none).
func serverOf(r *catalog.Relation) uint32 {
	c := strings.ToLower(r.With["connector"])
	for _, s := range connectorServers {
		if s.name == c {
			return s.server
		}
	}
	return connectorServers[0].server
}

// oidCastBase is the first pg_cast OID, after pg_proc's and
// pg_operator's (functions.ProcOIDBase).
const oidCastBase = 15800

func relkind(k catalog.Kind) string {
	switch k {
	case catalog.KindView:
		return "v"
	case catalog.KindMView:
		return "m"
	case catalog.KindIndex:
		return "i"
	case catalog.KindSource:
		// A source's rows live outside the database, like a foreign
		// table's: psql lists it as one.
		return "f"
	case catalog.KindSequence:
		return "S"
	}
	return "r"
}

// userRelations returns the relations that appear in pg_class.
func userRelations(cat Catalog) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range cat.All() {
		if r.Kind != catalog.KindSink {
			out = append(out, r)
		}
	}
	return out
}

// seenRelations is userRelations without other sessions' temporary
// relations, which information_schema leaves out
// (pg_is_other_temp_schema).
func seenRelations(p Provider) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range userRelations(p.Catalog()) {
		if !r.Temp || r.Schema == p.TempSchema() {
			out = append(out, r)
		}
	}
	return out
}

// hasRealPK reports whether rel has a declared primary key (not the hidden
// row id), which pg_catalog shows as a btree index and a constraint.
func hasRealPK(r *catalog.Relation) bool { return r.HasPrimaryKey() }

// pkAttnums are the attribute numbers of a table's primary key columns.
func pkAttnums(r *catalog.Relation) []string {
	var keys []string
	for _, k := range r.PK {
		keys = append(keys, strconv.Itoa(attnum(r, k)))
	}
	return keys
}

// pkColumns are the quoted names of a table's primary key columns.
func pkColumns(r *catalog.Relation) []string {
	names := make([]string, len(r.PK))
	for i, k := range r.PK {
		names[i] = sql.QuoteIdent(r.Cols[k].Name)
	}
	return names
}

// visibleCols returns the columns pg_attribute lists (numbered 1..n):
// the hidden ones are left out.
func visibleCols(r *catalog.Relation) []catalog.Column {
	var cs []catalog.Column
	for _, c := range r.Cols {
		if !c.Hidden {
			cs = append(cs, c)
		}
	}
	return cs
}

// attnum is the pg_attribute.attnum of column colIdx of r: generated row
// ids are not counted, dropped columns are (PostgreSQL keeps their
// numbers).
// ownedSeqs returns the indexes of r's columns that own a sequence
// (serial and identity columns), which pg_class lists as sequences.
func ownedSeqs(r *catalog.Relation) []int {
	var out []int
	if r.Kind != catalog.KindTable {
		return nil
	}
	for i, c := range r.Cols {
		if c.Seq != "" && !c.Dropped {
			out = append(out, i)
		}
	}
	return out
}

func attnum(r *catalog.Relation, colIdx int) int {
	n := 0
	for i, c := range r.Cols {
		if !c.Hidden || c.Dropped {
			n++
		}
		if i == colIdx {
			return n
		}
	}
	return 0
}

// typeRow describes one pg_type entry.
type typeRow struct {
	t        types.T
	name     string
	category string
	pref     bool
}

var pgTypes = []typeRow{
	{types.TBool, "bool", "B", true}, {types.TBytea, "bytea", "U", false}, {types.TChar, "char", "Z", false},
	{types.TName, "name", "S", false}, {types.TInt8, "int8", "N", false}, {types.TInt2, "int2", "N", false},
	{types.TInt4, "int4", "N", false}, {types.TText, "text", "S", true}, {types.TOid, "oid", "N", false},
	{types.TJsonb, "jsonb", "U", false}, {types.TJson, "json", "U", false}, {types.TFloat4, "float4", "N", false}, {types.TFloat8, "float8", "N", true},
	{types.TUnknown, "unknown", "X", false}, {types.TVarchar, "varchar", "S", false}, {types.TDate, "date", "D", false},
	{types.TTime, "time", "D", false}, {types.TTimestamp, "timestamp", "D", false}, {types.TTimestamptz, "timestamptz", "D", true},
	{types.TInterval, "interval", "T", true}, {types.TNumeric, "numeric", "N", false}, {types.TTextArray, "_text", "A", false},
	{types.TBpchar, "bpchar", "S", false}, {types.T{ID: types.BpcharArray, Mod: -1}, "_bpchar", "A", false},
	{types.TUuid, "uuid", "U", false}, {types.T{ID: types.UuidArray, Mod: -1}, "_uuid", "A", false},
	{types.TJsonpath, "jsonpath", "U", false}, {types.T{ID: types.JsonpathArray, Mod: -1}, "_jsonpath", "A", false},
}

func pgCatalogTables() []*table {
	empty := func(p Provider) []types.Row { return nil }
	roleCols := "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text rolvaliduntil:timestamptz rolbypassrls:bool rolconfig:text"
	return []*table{
		def("pg_catalog", "pg_namespace", "oid:oid nspname:name nspowner:oid nspacl:text[]", func(p Provider) []types.Row {
			rows := []types.Row{
				{vOid(oidPgCatalog), vStr("pg_catalog"), vOid(oidRoot), null},
				// Postgres 15 gives public to pg_database_owner.
				{vOid(oidPublic), vStr("public"), vOid(oidDatabaseOwner), null},
				{vOid(oidInfoSchema), vStr("information_schema"), vOid(oidRoot), null},
				weirNamespaceRow(),
			}
			for _, sc := range p.Catalog().Schemas() {
				if sc != "public" {
					rows = append(rows, types.Row{vOid(nspOID(sc, p.Catalog())), vStr(sc), vOid(p.Catalog().SchemaOwner(sc)), null})
				}
			}
			for _, sc := range p.Catalog().TempSchemas() {
				rows = append(rows, types.Row{vOid(nspOID(sc, p.Catalog())), vStr(sc), vOid(oidRoot), null})
			}
			return rows
		}),
		def("pg_catalog", "pg_class", "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:int4 reltuples:float4 relallvisible:int4 reltoastrelid:oid relhasindex:bool relisshared:bool relpersistence:char relkind:char relnatts:int2 relchecks:int2 relhasrules:bool relhastriggers:bool relhassubclass:bool relrowsecurity:bool relforcerowsecurity:bool relispopulated:bool relreplident:char relispartition:bool relrewrite:oid relacl:text[] reloptions:text[] relpartbound:text", func(p Provider) []types.Row {
			var rows []types.Row
			referenced := referencedTables(p.Catalog())
			for _, r := range userRelations(p.Catalog()) {
				am := uint32(oidHeapAM)
				if r.Kind == catalog.KindView || r.Kind == catalog.KindSource {
					am = 0
				} else if r.Kind == catalog.KindIndex {
					am = oidBtreeAM
				}
				hasIndex := hasRealPK(r) || len(indexesOn(p.Catalog(), r)) > 0
				pers := persistence(r)
				if r.Kind == catalog.KindIndex {
					// An index is as persistent as its table.
					if on, ok := indexedRel(p.Catalog(), r); ok {
						pers = persistence(on)
					}
				}
				relacl := null
				if acl := p.ACL(r); acl != nil {
					relacl = vStr(types.FormatTextArray(acl, nil))
				}
				rows = append(rows, types.Row{vOid(r.OID), vStr(r.Name), vOid(nspOID(r.Schema, p.Catalog())), vOid(0), vOid(0), vOid(r.Owner), vOid(am), vOid(r.OID), vOid(0),
					vInt(0), vFloat(-1), vInt(0), vOid(0), vBool(hasIndex), vBool(false), vStr(pers), vStr(relkind(r.Kind)), vInt(attnum(r, len(r.Cols)-1)), vInt(len(r.Checks)),
					vBool(r.Kind == catalog.KindView), vBool(len(r.ForeignKeys) > 0 || referenced[r.ID]), vBool(false), vBool(false), vBool(false), vBool(populated(r)), vStr("d"), vBool(false), vOid(0), relacl, null, null})
				if hasRealPK(r) {
					rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vStr(r.Name + "_pkey"), vOid(nspOID(r.Schema, p.Catalog())), vOid(0), vOid(0), vOid(r.Owner), vOid(oidBtreeAM), vOid(r.OID + indexOIDBase), vOid(0),
						vInt(0), vFloat(0), vInt(0), vOid(0), vBool(false), vBool(false), vStr(persistence(r)), vStr("i"), vInt(len(r.PK)), vInt(0),
						vBool(false), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), null, null, null})
				}
				for _, o := range ownedSeqs(r) {
					// The sequence a serial or identity column owns.
					relacl := null
					if acl := p.SequenceACL(r, o); acl != nil {
						relacl = vStr(types.FormatTextArray(acl, nil))
					}
					oid := catalog.OwnedSeqOID(r, o)
					rows = append(rows, types.Row{vOid(oid), vStr(r.Cols[o].Seq), vOid(nspOID(r.Schema, p.Catalog())), vOid(0), vOid(0), vOid(r.Owner), vOid(oidHeapAM), vOid(oid), vOid(0),
						vInt(1), vFloat(1), vInt(0), vOid(0), vBool(false), vBool(false), vStr(persistence(r)), vStr("S"), vInt(3), vInt(0),
						vBool(false), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), relacl, null, null})
				}
			}
			rows = append(rows, sysClassRows()...)
			return append(rows, weirClassRows()...)
		}),
		def("pg_catalog", "pg_attribute", "attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2 attnum:int2 attndims:int4 attcacheoff:int4 atttypmod:int4 attbyval:bool attalign:char attstorage:char attcompression:char attnotnull:bool atthasdef:bool atthasmissing:bool attidentity:char attgenerated:char attisdropped:bool attislocal:bool attinhcount:int4 attcollation:oid attacl:text[] attoptions:text attfdwoptions:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				for i, c := range r.Cols {
					if c.Dropped {
						// PostgreSQL's row of a dropped column: no type,
						// attisdropped.
						rows = append(rows, types.Row{vOid(r.OID), vStr(catalog.DroppedName(attnum(r, i))), vOid(0), vInt(0), vInt(int(c.T.Size())), vInt(attnum(r, i)), vInt(0), vInt(-1), vInt(-1),
							vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr("i"), vStr(typStorage(c.T)), vStr(""), vBool(false), vBool(false), vBool(false), vStr(""), vStr(""), vBool(true), vBool(true), vInt(0), vOid(0), null, null, null})
						continue
					}
					if c.Hidden {
						continue
					}
					coll := uint32(0)
					if c.T.IsString() && c.T.ID != types.Char && c.T.ID != types.Name {
						coll = 100
					}
					if oid, ok := collationOIDs[c.Collation]; ok {
						coll = oid
					}
					// A column of a domain type has the domain as its type,
					// whose typtypmod holds the base type's modifier.
					typ, typmod := c.T.OID(), int(c.T.Typmod())
					if c.Domain != 0 {
						typ, typmod = c.Domain, -1
						if c.DomainArray {
							// The domain's array type (_posint).
							for _, u := range p.Catalog().Types() {
								if u.OID == c.Domain {
									typ = u.ArrayOID
								}
							}
						}
					}
					rows = append(rows, types.Row{vOid(r.OID), vStr(c.Name), vOid(typ), vInt(-1), vInt(int(c.T.Size())), vInt(attnum(r, i)), vInt(0), vInt(-1), vInt(typmod),
						vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr(typAlign(c.T)), vStr(typStorage(c.T)), vStr(""), vBool(c.NotNull), vBool(c.Default != "" || c.Generated != ""), vBool(c.Missing != nil), vStr(identityCode(c.Identity)), vStr(generatedCode(c)), vBool(false), vBool(true), vInt(0), vOid(coll), null, null, null})
				}
				if hasRealPK(r) {
					for j, k := range r.PK {
						c := r.Cols[k]
						rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(j + 1), vInt(0), vInt(-1), vInt(int(c.T.Typmod())),
							vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr(typAlign(c.T)), vStr("p"), vStr(""), vBool(false), vBool(false), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(0), null, null, null})
					}
				}
			}
			rows = append(rows, sysAttributeRows()...)
			return append(rows, weirAttributeRows()...)
		}),
		def("pg_catalog", "pg_attrdef", "oid:oid adrelid:oid adnum:int2 adbin:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				for i, c := range r.Cols {
					if c.Default != "" && !c.Hidden {
						rows = append(rows, types.Row{vOid(r.OID<<8 + uint32(i)), vOid(r.OID), vInt(attnum(r, i)), vStr(p.DefaultText(r, i))})
					}
					if c.Generated != "" && !c.Hidden {
						rows = append(rows, types.Row{vOid(r.OID<<8 + uint32(i)), vOid(r.OID), vInt(attnum(r, i)), vStr(p.GeneratedText(r, i))})
					}
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_type", "oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool typtype:char typcategory:char typispreferred:bool typisdefined:bool typdelim:char typrelid:oid typelem:oid typarray:oid typinput:text typoutput:text typreceive:text typsend:text typalign:char typstorage:char typnotnull:bool typbasetype:oid typtypmod:int4 typndims:int4 typcollation:oid typdefault:text typacl:text[]", func(p Provider) []types.Row {
			var rows []types.Row
			for _, tr := range pgTypes {
				elem := uint32(0)
				if tr.t.IsArray() {
					elem = tr.t.Elem().OID()
				}
				coll := uint32(0)
				if tr.category == "S" && tr.name != "name" {
					coll = 100
				}
				rows = append(rows, types.Row{vOid(tr.t.OID()), vStr(tr.name), vOid(oidPgCatalog), vOid(oidRoot), vInt(int(tr.t.Size())), vBool(tr.t.Size() > 0 && tr.t.Size() <= 8), vStr("b"), vStr(tr.category), vBool(tr.pref), vBool(true), vStr(","), vOid(0), vOid(elem), vOid(tr.t.ArrayOID()),
					vStr(tr.name + "in"), vStr(tr.name + "out"), vStr(tr.name + "recv"), vStr(tr.name + "send"), vStr(typAlign(tr.t)), vStr(typStorage(tr.t)), vBool(false), vOid(0), vInt(-1), vInt(0), vOid(coll), null, null})
			}
			return append(rows, userTypeRows(p)...)
		}),
		def("pg_catalog", "pg_enum", "oid:oid enumtypid:oid enumsortorder:float4 enumlabel:name", func(p Provider) []types.Row {
			var rows []types.Row
			for _, u := range p.Catalog().Types() {
				if u.Kind != 'e' {
					continue
				}
				for _, l := range types.EnumLabels(u.T) {
					rows = append(rows, types.Row{vOid(l.OID), vOid(u.OID), types.DFloat(float64(float32(l.Sort))), vStr(l.Label)})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_database", "oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char datistemplate:bool datallowconn:bool datconnlimit:int4 dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:text[]", func(p Provider) []types.Row {
			return []types.Row{{vOid(oidDatabase), vStr(p.Database()), vOid(oidRoot), vInt(6), vStr("c"), vBool(false), vBool(true), vInt(-1), vOid(oidDefaultTablespace), vStr("C"), vStr("C.UTF-8"), null, null, null}}
		}),
		def("pg_catalog", "pg_am", "oid:oid amname:name amhandler:text amtype:char", func(p Provider) []types.Row {
			return []types.Row{{vOid(oidHeapAM), vStr("heap"), vStr("heap_tableam_handler"), vStr("t")}, {vOid(oidBtreeAM), vStr("btree"), vStr("bthandler"), vStr("i")}}
		}),
		def("pg_catalog", "pg_index", "indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool indisprimary:bool indisexclusion:bool indimmediate:bool indisclustered:bool indisvalid:bool indcheckxmin:bool indisready:bool indislive:bool indisreplident:bool indnullsnotdistinct:bool indkey:text indexprs:text indpred:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if !hasRealPK(r) {
					continue
				}
				keys := pkAttnums(r)
				rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vOid(r.OID), vInt(len(r.PK)), vInt(len(r.PK)), vBool(true), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(true), vBool(false), vBool(false), vStr(strings.Join(keys, " ")), null, null})
			}
			for _, r := range userRelations(p.Catalog()) {
				if on, ok := indexedRel(p.Catalog(), r); ok && r.Kind == catalog.KindIndex {
					rows = append(rows, pgIndexRow(p, r, on))
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_constraint", "oid:oid conname:name connamespace:oid contype:char condeferrable:bool condeferred:bool convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4 connoinherit:bool conkey:text confkey:text conbin:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if !hasRealPK(r) {
					continue
				}
				keys := pkAttnums(r)
				rows = append(rows, types.Row{vOid(r.OID + 2*indexOIDBase), vStr(r.Name + "_pkey"), vOid(nspOID(r.Schema, p.Catalog())), vStr("p"), vBool(false), vBool(false), vBool(true), vOid(r.OID), vOid(0), vOid(r.OID + indexOIDBase), vOid(0), vOid(0), vStr(" "), vStr(" "), vStr(" "), vBool(true), vInt(0), vBool(true), vStr("{" + strings.Join(keys, ",") + "}"), null, null})
			}
			for _, r := range userRelations(p.Catalog()) {
				if on, ok := indexedRel(p.Catalog(), r); ok && r.Kind == catalog.KindIndex && isUniqueConstraint(r) {
					rows = append(rows, uniqueConstraintRow(p, r, on))
				}
			}
			for _, r := range userRelations(p.Catalog()) {
				for k := range r.Checks {
					rows = append(rows, checkConstraintRow(p, r, k))
				}
			}
			for _, r := range userRelations(p.Catalog()) {
				for k := range r.ForeignKeys {
					rows = append(rows, foreignKeyRow(p, r, k))
				}
			}
			return append(rows, domainConstraintRows(p)...)
		}),
		def("pg_catalog", "pg_policy", "oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool polroles:text[] polqual:text polwithcheck:text", empty),
		def("pg_catalog", "pg_statistic_ext", "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:int4 stxkeys:text stxkind:text[]", empty),
		def("pg_catalog", "pg_publication", "oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool pubupdate:bool pubdelete:bool pubtruncate:bool pubviaroot:bool", empty),
		def("pg_catalog", "pg_publication_namespace", "oid:oid pnpubid:oid pnnspid:oid", empty),
		def("pg_catalog", "pg_publication_rel", "oid:oid prpubid:oid prrelid:oid prqual:text prattrs:text[]", empty),
		def("pg_catalog", "pg_inherits", "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool", empty),
		def("pg_catalog", "pg_trigger", "oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:int2 tgenabled:char tgisinternal:bool", empty),
		def("pg_catalog", "pg_rewrite", "oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char is_instead:bool", empty),
		def("pg_catalog", "pg_description", "objoid:oid classoid:oid objsubid:int4 description:text", func(p Provider) []types.Row {
			return append(descriptionRows(p.Catalog()), weirDescriptionRows()...)
		}),
		def("pg_catalog", "pg_shdescription", "objoid:oid classoid:oid description:text", empty),
		def("pg_catalog", "pg_extension", "oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:bool extversion:text", empty),
		// Sources appear as foreign tables of one server per connector
		// (psql's \d prints "Server: kafka", \det lists them by
		// server); their options stay in weir's own views.
		def("pg_catalog", "pg_foreign_table", "ftrelid:oid ftserver:oid ftoptions:text[]", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range p.Catalog().All() {
				if r.Kind == catalog.KindSource {
					rows = append(rows, types.Row{vOid(r.OID), vOid(serverOf(r)), null})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_foreign_server", "oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text srvacl:text[] srvoptions:text[]", func(p Provider) []types.Row {
			var rows []types.Row
			for _, s := range connectorServers {
				rows = append(rows, types.Row{vOid(s.server), vStr(s.name), vOid(oidRoot), vOid(s.wrapper), null, null, null, null})
			}
			return rows
		}),
		// Each connector is the wrapper of its server (\des, \dew).
		def("pg_catalog", "pg_foreign_data_wrapper", "oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid fdwacl:text[] fdwoptions:text[]", func(p Provider) []types.Row {
			var rows []types.Row
			for _, s := range connectorServers {
				rows = append(rows, types.Row{vOid(s.wrapper), vStr(s.name), vOid(oidRoot), vOid(0), vOid(0), null, null})
			}
			return rows
		}),
		def("pg_catalog", "pg_partitioned_table", "partrelid:oid partstrat:char partnatts:int2", empty),
		def("pg_catalog", "pg_sequence", "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 seqcache:int8 seqcycle:bool", func(p Provider) []types.Row {
			// The sequences made by CREATE SEQUENCE (those of columns are
			// not relations); psql's \d reads them.
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if r.Kind != catalog.KindSequence {
					continue
				}
				typ, max := uint32(20), int64(math.MaxInt64)
				switch r.With["as"] {
				case "smallint":
					typ, max = 21, math.MaxInt16
				case "integer":
					typ, max = 23, math.MaxInt32
				}
				start, err := strconv.ParseInt(r.With["start"], 10, 64)
				if err != nil || start == 0 {
					start = 1
				}
				rows = append(rows, types.Row{vOid(r.OID), vOid(typ), types.DInt(start), types.DInt(1), types.DInt(max), types.DInt(1), types.DInt(1), vBool(false)})
			}
			for _, r := range userRelations(p.Catalog()) {
				for _, o := range ownedSeqs(r) {
					typ, max := uint32(20), int64(math.MaxInt64)
					switch r.Cols[o].T.ID {
					case types.Int2:
						typ, max = 21, math.MaxInt16
					case types.Int4:
						typ, max = 23, math.MaxInt32
					}
					rows = append(rows, types.Row{vOid(catalog.OwnedSeqOID(r, o)), vOid(typ), types.DInt(r.Cols[o].SeqFirst()), types.DInt(1), types.DInt(max), types.DInt(1), types.DInt(1), vBool(false)})
				}
			}
			return rows
		}),
		// The one dependency recorded the way PostgreSQL records it: a
		// serial column's sequence, or one OWNED BY a column, is owned
		// by its column (deptype 'a'),
		// an identity column's is internal to it ('i'); psql's \d of a
		// sequence asks here for the column owning it.
		def("pg_catalog", "pg_depend", "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid refobjsubid:int4 deptype:char", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				for _, o := range ownedSeqs(r) {
					kind := "a"
					if r.Cols[o].Identity != "" {
						kind = "i"
					}
					rows = append(rows, types.Row{vOid(oidPgClassRel), vOid(catalog.OwnedSeqOID(r, o)), vInt(0), vOid(oidPgClassRel), vOid(r.OID), vInt(attnum(r, o)), vStr(kind)})
				}
				// A sequence OWNED BY a column (ALTER SEQUENCE ...
				// OWNED BY, as pg_dump restores a serial column).
				if t, col, ok := r.SeqOwner(); ok {
					if tr, ok := p.Catalog().ByID(t); ok && col < len(tr.Cols) {
						rows = append(rows, types.Row{vOid(oidPgClassRel), vOid(r.OID), vInt(0), vOid(oidPgClassRel), vOid(tr.OID), vInt(attnum(tr, col)), vStr("a")})
					}
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_tablespace", "oid:oid spcname:name spcowner:oid spcacl:text[] spcoptions:text", func(p Provider) []types.Row {
			return []types.Row{{vOid(oidDefaultTablespace), vStr("pg_default"), vOid(oidRoot), null, null}}
		}),
		def("pg_catalog", "pg_collation", "oid:oid collname:name collnamespace:oid collowner:oid collprovider:char collisdeterministic:bool collencoding:int4 collcollate:text collctype:text", func(p Provider) []types.Row {
			return []types.Row{{vOid(100), vStr("default"), vOid(oidPgCatalog), vOid(oidRoot), vStr("d"), vBool(true), vInt(-1), null, null},
				{vOid(950), vStr("C"), vOid(oidPgCatalog), vOid(oidRoot), vStr("c"), vBool(true), vInt(-1), vStr("C"), vStr("C")},
				{vOid(951), vStr("POSIX"), vOid(oidPgCatalog), vOid(oidRoot), vStr("c"), vBool(true), vInt(-1), vStr("POSIX"), vStr("POSIX")},
				{vOid(collationOIDs["ucs_basic"]), vStr("ucs_basic"), vOid(oidPgCatalog), vOid(oidRoot), vStr("c"), vBool(true), vInt(6), vStr("C"), vStr("C")},
				{vOid(collationOIDs["C.utf8"]), vStr("C.utf8"), vOid(oidPgCatalog), vOid(oidRoot), vStr("c"), vBool(true), vInt(6), vStr("C.utf8"), vStr("C.utf8")}}
		}),
		def("pg_catalog", "pg_roles", roleCols, func(p Provider) []types.Row { return roleRows(p.Catalog(), true) }),
		def("pg_catalog", "pg_authid", roleCols, func(p Provider) []types.Row { return roleRows(p.Catalog(), false) }),
		def("pg_catalog", "pg_user", "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool usebypassrls:bool passwd:text valuntil:timestamptz useconfig:text", func(p Provider) []types.Row {
			return userRows(p.Catalog())
		}),
		def("pg_catalog", "pg_auth_members", "roleid:oid member:oid grantor:oid admin_option:bool", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range p.Catalog().Roles() {
				for _, m := range r.MemberOf {
					rows = append(rows, types.Row{vOid(m), vOid(r.OID), vOid(oidRoot), vBool(false)})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_settings", "name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[] boot_val:text reset_val:text sourcefile:text sourceline:int4 pending_restart:bool", func(p Provider) []types.Row {
			var rows []types.Row
			for _, st := range p.Settings() {
				enum := null
				if st.EnumVals != nil {
					enum = vStr(types.FormatTextArray(st.EnumVals, nil))
				}
				rows = append(rows, types.Row{vStr(st.Name), vStr(st.Value), vStrOrNull(st.Unit), vStr(st.Category), vStr(st.Desc), null,
					vStr(st.Context), vStr(st.VarType), vStr(st.Source), vStrOrNull(st.Min), vStrOrNull(st.Max), enum,
					vStr(st.Default), vStr(st.Reset), null, null, vBool(false)})
			}
			return rows
		}),
		// No setting has privileges granted on it (GRANT SET ON
		// PARAMETER): psql's \dconfig+ joins this table.
		def("pg_catalog", "pg_parameter_acl", "oid:oid parname:text paracl:text[]", empty),
		def("pg_catalog", "pg_proc", "oid:oid proname:name pronamespace:oid proowner:oid prolang:oid provariadic:oid prokind:char proisstrict:bool proretset:bool provolatile:char proparallel:char prosecdef:bool proleakproof:bool pronargs:int2 prorettype:oid proargtypes:text prosrc:text proacl:text[]", procRows),
		// weir's functions are built in (language internal); it has no
		// procedural language, so psql's \dL lists none.
		def("pg_catalog", "pg_language", "oid:oid lanname:name lanowner:oid lanispl:bool lanpltrusted:bool lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:text[]", func(p Provider) []types.Row {
			return []types.Row{{vOid(oidInternalLang), vStr("internal"), vOid(oidRoot), vBool(false), vBool(false), vOid(0), vOid(0), vOid(0), null},
				{vOid(oidSQLLang), vStr("sql"), vOid(oidRoot), vBool(false), vBool(true), vOid(0), vOid(0), vOid(0), null}}
		}),
		def("pg_catalog", "pg_operator", "oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:char oprcanmerge:bool oprcanhash:bool oprleft:oid oprright:oid oprresult:oid oprcom:oid oprnegate:oid oprcode:oid", operatorRows),
		// weir has no user-defined casts, conversions, event triggers,
		// operator classes or families, large objects or per-role
		// settings: these are empty.
		// The casts between weir's types that the binder applies (not
		// the I/O conversions to and from strings, as in PostgreSQL).
		// Each is built in, not a function pg_proc lists: castfunc is 0.
		def("pg_catalog", "pg_cast", "oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:char castmethod:char", func(Provider) []types.Row {
			var rows []types.Row
			for i, c := range planner.CatalogCasts() {
				rows = append(rows, types.Row{vOid(uint32(oidCastBase + i)), vOid(types.T{ID: c.From}.OID()), vOid(types.T{ID: c.To}.OID()), vOid(0), vStr(string(c.Context)), vStr("f")})
			}
			return rows
		}),
		def("pg_catalog", "pg_conversion", "oid:oid conname:name connamespace:oid conowner:oid conforencoding:int4 contoencoding:int4 conproc:oid condefault:bool", empty),
		def("pg_catalog", "pg_event_trigger", "oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid evtenabled:char evttags:text[]", empty),
		def("pg_catalog", "pg_opclass", "oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid opcintype:oid opcdefault:bool opckeytype:oid", empty),
		def("pg_catalog", "pg_opfamily", "oid:oid opfmethod:oid opfname:name opfnamespace:oid opfowner:oid", empty),
		def("pg_catalog", "pg_largeobject_metadata", "oid:oid lomowner:oid lomacl:text[]", empty),
		def("pg_catalog", "pg_db_role_setting", "setdatabase:oid setrole:oid setconfig:text[]", empty),
		// client_addr is inet and backend_xid, backend_xmin xid in
		// PostgreSQL; weir has neither type and shows them as text
		// (the xids are always NULL: weir hands out none).
		def("pg_catalog", "pg_stat_activity", "datid:oid datname:name pid:int4 leader_pid:int4 usesysid:oid usename:name application_name:text client_addr:text client_hostname:text client_port:int4 backend_start:timestamptz xact_start:timestamptz query_start:timestamptz state_change:timestamptz wait_event_type:text wait_event:text state:text backend_xid:text backend_xmin:text query_id:int8 query:text backend_type:text", activityRows),
		// client_serial is always NULL: weir asks for no client
		// certificates, so client_dn and issuer_dn are NULL too.
		def("pg_catalog", "pg_stat_ssl", "pid:int4 ssl:bool version:text cipher:text bits:int4 client_dn:text client_serial:numeric issuer_dn:text", sslRows),
		def("pg_catalog", "pg_cursors", "name:text statement:text is_holdable:bool is_binary:bool is_scrollable:bool creation_time:timestamptz", func(p Provider) []types.Row {
			var rows []types.Row
			for _, c := range p.Cursors() {
				rows = append(rows, types.Row{vStr(c.Name), vStr(c.Statement), vBool(c.Holdable), vBool(c.Binary), vBool(c.Scrollable), types.DInt(c.CreationTime)})
			}
			return rows
		}),
		def("pg_catalog", "pg_prepared_statements", "name:text statement:text prepare_time:timestamptz parameter_types:text[] from_sql:bool generic_plans:int8 custom_plans:int8", func(p Provider) []types.Row {
			var rows []types.Row
			for _, ps := range p.PreparedStatements() {
				rows = append(rows, types.Row{vStr(ps.Name), vStr(ps.Statement), types.DInt(ps.PrepareTime),
					vStr(types.FormatTextArray(ps.ParamTypes, nil)), vBool(true), types.DInt(ps.GenericPlans), types.DInt(ps.CustomPlans)})
			}
			return rows
		}),
		def("pg_catalog", "pg_sequences", "schemaname:name sequencename:name sequenceowner:name data_type:text start_value:int8 min_value:int8 max_value:int8 increment_by:int8 cycle:bool cache_size:int8 last_value:int8", func(p Provider) []types.Row {
			// CREATE SEQUENCE's sequences and the serial and identity
			// columns' ones.
			var rows []types.Row
			add := func(r *catalog.Relation, col int, name, typ string, start, max int64) {
				last := null
				if v, ok := p.SequenceLast(r, col); ok {
					last = types.DInt(v)
				}
				rows = append(rows, types.Row{vStr(r.Schema), vStr(name), vStr(roleName(p.Catalog(), r.Owner)), vStr(typ),
					types.DInt(start), types.DInt(1), types.DInt(max), types.DInt(1), vBool(false), types.DInt(1), last})
			}
			for _, r := range userRelations(p.Catalog()) {
				switch r.Kind {
				case catalog.KindSequence:
					typ, max := "bigint", int64(math.MaxInt64)
					switch r.With["as"] {
					case "smallint":
						typ, max = "smallint", math.MaxInt16
					case "integer":
						typ, max = "integer", math.MaxInt32
					}
					start, err := strconv.ParseInt(r.With["start"], 10, 64)
					if err != nil || start == 0 {
						start = 1
					}
					add(r, -1, r.Name, typ, start, max)
				case catalog.KindTable:
					for i, c := range r.Cols {
						if c.Seq == "" {
							continue
						}
						typ, max := "bigint", int64(math.MaxInt64)
						switch c.T.ID {
						case types.Int2:
							typ, max = "smallint", math.MaxInt16
						case types.Int4:
							typ, max = "integer", math.MaxInt32
						}
						add(r, i, c.Seq, typ, c.SeqFirst(), max)
					}
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_tables", "schemaname:name tablename:name tableowner:name tablespace:name hasindexes:bool hasrules:bool hastriggers:bool rowsecurity:bool", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if r.Kind == catalog.KindTable {
					rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(roleName(p.Catalog(), r.Owner)), null, vBool(hasRealPK(r) || len(indexesOn(p.Catalog(), r)) > 0), vBool(false), vBool(false), vBool(false)})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_views", "schemaname:name viewname:name viewowner:name definition:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if r.Kind == catalog.KindView {
					rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(roleName(p.Catalog(), r.Owner)), vStr(p.ViewText(r, false))})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_matviews", "schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:bool ispopulated:bool definition:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if r.Kind == catalog.KindMView {
					rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(roleName(p.Catalog(), r.Owner)), null, vBool(len(indexesOn(p.Catalog(), r)) > 0), vBool(populated(r)), vStr(p.ViewText(r, false))})
				}
			}
			return rows
		}),
		def("pg_catalog", "pg_indexes", "schemaname:name tablename:name indexname:name tablespace:name indexdef:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range userRelations(p.Catalog()) {
				if hasRealPK(r) {
					rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(r.Name + "_pkey"), null, vStr(indexDef(r))})
				}
				for _, idx := range indexesOn(p.Catalog(), r) {
					rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(idx.Name), null, vStr(indexDefOf(p, idx, r, false))})
				}
			}
			return rows
		}),
	}
}

// indexDef is what pg_get_indexdef prints for a table's primary key index.
func indexDef(r *catalog.Relation) string {
	return "CREATE UNIQUE INDEX " + sql.QuoteIdent(r.Name+"_pkey") + " ON " + r.Schema + "." + sql.QuoteIdent(r.Name) + " USING btree (" + strings.Join(pkColumns(r), ", ") + ")"
}

// Describe answers the catalog functions that executor.CatalogDescriber
// names (pg_get_userbyid, pg_get_indexdef, pg_get_constraintdef,
// obj_description, col_description, pg_get_viewdef, pg_table_is_visible)
// over the OIDs that pg_class, pg_index and pg_constraint give weir's
// objects: a table's primary key index is its OID plus indexOIDBase, the
// key's constraint its OID plus 2*indexOIDBase. ok is false for a
// function or OID it does not know.
func Describe(p Provider, fn string, oid uint32, col int) (string, bool) {
	cat := p.Catalog()
	if d, ok := describeWeir(p, fn, oid, col); ok {
		return d, true
	}
	if d, ok := describeSys(p, fn, oid); ok {
		return d, true
	}
	switch fn {
	case "temp_schema_name":
		return p.TempSchema(), true
	case "current_schemas":
		// col is include_implicit.
		return types.FormatTextArray(p.ActiveSearchPath(col != 0), nil), true
	case "current_schema":
		// The first schema of the path that exists; "" (NULL) for none.
		if path := p.ActiveSearchPath(false); len(path) > 0 {
			return path[0], true
		}
		return "", true
	case "pg_my_temp_schema":
		if t := p.TempSchema(); t != "" {
			return strconv.FormatUint(uint64(nspOID(t, cat)), 10), true
		}
		return "0", true
	case "pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size":
		return relationSize(p, fn, oid)
	case "pg_get_userbyid":
		switch oid {
		case oidDatabaseOwner:
			return "pg_database_owner", true
		}
		if r, ok := cat.RoleByOID(oid); ok {
			return r.Name, true
		}
	case "pg_get_indexdef":
		if idx, ok := cat.ByOID(oid); ok && idx.Kind == catalog.KindIndex {
			on, ok := indexedRel(cat, idx)
			if !ok {
				return "", false
			}
			if col > 0 {
				var x IndexTexts
				if !idx.PlainIndex() {
					x = p.IndexTexts(idx, on, false)
				}
				return IndexColumnDef(idx, on, col, x), true
			}
			return indexDefOf(p, idx, on, false), true
		}
		if oid < indexOIDBase || oid >= 2*indexOIDBase {
			return "", false
		}
		r, ok := cat.ByOID(oid - indexOIDBase)
		if !ok || !hasRealPK(r) {
			return "", false
		}
		if col > 0 {
			if col > len(r.PK) {
				return "", true
			}
			return sql.QuoteIdent(r.Cols[r.PK[col-1]].Name), true
		}
		return indexDef(r), true
	case "pg_get_constraintdef":
		if r, k, ok := ForeignKeyByOID(cat, oid); ok {
			return foreignKeyDef(cat, r, k), true
		}
		if r, k, ok := CheckByOID(cat, oid); ok {
			return p.CheckText(r, k), true
		}
		if oid < 2*indexOIDBase {
			return "", false
		}
		if idx, ok := cat.ByOID(oid - 2*indexOIDBase); ok && isUniqueConstraint(idx) {
			if on, ok := indexedRel(cat, idx); ok {
				return uniqueConstraintDef(idx, on), true
			}
		}
		r, ok := cat.ByOID(oid - 2*indexOIDBase)
		if !ok || !hasRealPK(r) {
			return "", false
		}
		return "PRIMARY KEY (" + strings.Join(pkColumns(r), ", ") + ")", true
	case "obj_description":
		if r, ok := cat.ByOID(oid); ok && r.Comment != "" {
			return r.Comment, true
		}
		return "", false
	case "col_description":
		if r, ok := cat.ByOID(oid); ok {
			if cs := visibleCols(r); col <= len(cs) {
				t, ok := r.ColComments[cs[col-1].Name]
				return t, ok
			}
		}
		return "", false
	case "regclassout":
		r, ok := cat.ByOID(oid)
		rname := ""
		if ok {
			rname = r.Name
		} else if t, col, ok := catalog.OwnedSequenceByOID(cat.All(), oid); ok {
			r, rname = t, t.Cols[col].Seq
		} else if oid >= indexOIDBase && oid < 2*indexOIDBase {
			// A primary key's index, <table>_pkey.
			if r, ok = cat.ByOID(oid - indexOIDBase); ok && hasRealPK(r) {
				rname = r.Name + "_pkey"
			}
		}
		if rname == "" {
			// A system catalog, by PostgreSQL's fixed OID.
			for name, c := range catalogOIDs {
				if c == oid {
					return name, true
				}
			}
			return "", false
		}
		name := sql.QuoteIdent(rname)
		if !isVisible(p, r, rname) {
			name = sql.QuoteIdent(r.Schema) + "." + name
		}
		return name, true
	case "pg_table_is_visible":
		// A user relation that a pg_catalog relation or a temporary
		// relation of the same name hides is not visible (psql's \dt
		// leaves it out), nor is another session's temporary one; the
		// executor takes the others for visible.
		r, ok := cat.ByOID(oid)
		rname := ""
		if ok {
			rname = r.Name
		} else if oid >= indexOIDBase && oid < 2*indexOIDBase {
			if r, ok = cat.ByOID(oid - indexOIDBase); ok && hasRealPK(r) {
				rname = r.Name + "_pkey"
			}
		}
		if rname != "" && !isVisible(p, r, rname) {
			return "f", true
		}
		return "", false
	case "pg_get_viewdef":
		r, ok := cat.ByOID(oid)
		if !ok || (r.Kind != catalog.KindView && r.Kind != catalog.KindMView) {
			return "", false
		}
		return p.ViewText(r, false), true
	}
	return "", false
}

// generatedCode is pg_attribute.attgenerated: 's' for a stored
// generated column, ” otherwise.
func generatedCode(c catalog.Column) string {
	if c.Generated != "" {
		return "s"
	}
	return ""
}

// checkOIDBase is where the OIDs of CHECK constraints start: constraint
// k of the relation of id ID has checkOIDBase + ID<<8 + k.
const checkOIDBase = 1 << 31

// CheckByOID finds the CHECK constraint of OID oid.
func CheckByOID(cat Catalog, oid uint32) (*catalog.Relation, int, bool) {
	if oid < checkOIDBase || oid >= fkOIDBase {
		return nil, 0, false
	}
	r, ok := cat.ByID((oid - checkOIDBase) >> 8)
	k := int(oid & 0xff)
	if !ok || k >= len(r.Checks) {
		return nil, 0, false
	}
	return r, k, true
}

// checkConstraintRow is the pg_constraint row of CHECK constraint k of
// r (contype 'c'); conkey lists the columns it reads.
func checkConstraintRow(p Provider, r *catalog.Relation, k int) types.Row {
	var keys []string
	for _, i := range p.CheckColumns(r, k) {
		keys = append(keys, strconv.Itoa(attnum(r, i)))
	}
	conkey := types.NullDatum
	if len(keys) > 0 {
		conkey = vStr("{" + strings.Join(keys, ",") + "}")
	}
	c := r.Checks[k]
	def := strings.TrimSuffix(strings.TrimSuffix(p.CheckText(r, k), " NOT VALID"), " NO INHERIT")
	return types.Row{vOid(checkOIDBase + r.ID<<8 + uint32(k)), vStr(c.Name), vOid(nspOID(r.Schema, p.Catalog())), vStr("c"), vBool(false), vBool(false), vBool(!c.NotValid),
		vOid(r.OID), vOid(0), vOid(0), vOid(0), vOid(0), vStr(" "), vStr(" "), vStr(" "), vBool(true), vInt(0), vBool(c.NoInherit), conkey, types.NullDatum,
		vStr(strings.TrimSuffix(strings.TrimPrefix(def, "CHECK ("), ")"))}
}

// identityCode is pg_attribute.attidentity: 'a' for GENERATED ALWAYS,
// 'd' for BY DEFAULT, empty for other columns.
func identityCode(identity string) string {
	switch identity {
	case "always":
		return "a"
	case "default":
		return "d"
	}
	return ""
}

// typStorage is pg_type.typstorage: variable-length types are stored
// extended, numeric main, fixed-size ones plain.
func typStorage(t types.T) string {
	switch {
	case t.ID == types.Numeric:
		return "m"
	case t.IsArray():
		return "x"
	}
	switch t.ID {
	case types.Text, types.Varchar, types.Bpchar, types.Bytea, types.Jsonb, types.Json:
		return "x"
	}
	return "p"
}

// typAlign is pg_type.typalign as PostgreSQL 15 has it: char ('c') for
// the one-byte types, name and uuid, short ('s') for int2, double
// ('d') for the eight-byte ones and interval, int ('i') for the
// others; an array aligns as int, or double when its elements do.
func typAlign(t types.T) string {
	if t.IsArray() {
		if typAlign(t.Elem()) == "d" {
			return "d"
		}
		return "i"
	}
	switch t.ID {
	case types.Bool, types.Char, types.Name, types.Uuid, types.Unknown:
		return "c"
	case types.Int2:
		return "s"
	case types.Int8, types.Float8, types.Time, types.Timestamp, types.Timestamptz, types.Interval, types.Record:
		return "d"
	}
	return "i"
}

// roleRows are the rows of pg_authid (verifiers shown) or pg_roles
// (verifiers masked), in OID order.
func roleRows(cat Catalog, masked bool) []types.Row {
	roles := cat.Roles()
	slices.SortFunc(roles, func(a, b *catalog.Role) int { return int(a.OID) - int(b.OID) })
	var rows []types.Row
	for _, r := range roles {
		// pg_roles shows ******** whether or not the role has a
		// password; pg_authid the verifier or NULL.
		pw := vStr("********")
		if !masked {
			pw = null
			if r.Password != "" {
				pw = vStr(r.Password)
			}
		}
		until := null
		if !r.ValidUntil.IsZero() {
			until = types.Datum{I: r.ValidUntil.UnixMicro()}
		}
		rows = append(rows, types.Row{vOid(r.OID), vStr(r.Name), vBool(r.Superuser), vBool(r.Inherit), vBool(r.CreateRole),
			vBool(r.CreateDB), vBool(r.Login), vBool(r.Superuser), vInt(r.ConnLimit), pw, until, vBool(r.Superuser), null})
	}
	return rows
}

// userRows are the rows of pg_user: the roles that can log in.
// (rolreplication and rolbypassrls are true only for superusers here.)
func userRows(cat Catalog) []types.Row {
	var rows []types.Row
	for _, r := range roleRows(cat, true) {
		if r[6].I != 0 {
			rows = append(rows, types.Row{r[1], r[0], r[5], r[2], r[7], r[11], r[9], r[10], null})
		}
	}
	return rows
}

// roleName names a role by OID, as pg_get_userbyid does.
func roleName(cat Catalog, oid uint32) string {
	if r, ok := cat.RoleByOID(oid); ok {
		return r.Name
	}
	return "unknown (OID=" + strconv.FormatUint(uint64(oid), 10) + ")"
}

// descriptionRows are pg_description's rows of user relations: their
// comments (objsubid 0) and their columns' (objsubid = attnum).
func descriptionRows(cat Catalog) []types.Row {
	var rows []types.Row
	for _, r := range cat.All() {
		if r.Comment != "" {
			rows = append(rows, types.Row{vOid(r.OID), vOid(oidPgClassRel), types.DInt(0), types.DString(r.Comment)})
		}
		for i, c := range r.Cols {
			if t, ok := r.ColComments[c.Name]; ok && !c.Hidden {
				rows = append(rows, types.Row{vOid(r.OID), vOid(oidPgClassRel), types.DInt(int64(attnum(r, i))), types.DString(t)})
			}
		}
	}
	return rows
}

// collationOIDs are the OIDs of the collations a column may name (a
// PostgreSQL 15 cluster's, initialised with --locale=C --lc-ctype=C.UTF-8).
var collationOIDs = map[string]uint32{"C": 950, "POSIX": 951, "ucs_basic": 12340, "C.utf8": 12341}

// oidSQLLang is pg_language's OID of language sql.
const oidSQLLang = 14

// procRows are pg_proc's rows: the functions package's functions, in
// pg_catalog, language internal, then the user functions, language
// sql (prosrc empty for a RETURN body, as PostgreSQL keeps that in
// prosqlbody).
func procRows(p Provider) []types.Row {
	var rows []types.Row
	for _, f := range functions.Procs() {
		args := make([]string, len(f.Args))
		for i, a := range f.Args {
			args[i] = strconv.FormatUint(uint64(a), 10)
		}
		variadic := uint32(0)
		if f.Variadic {
			variadic = f.Args[len(f.Args)-1]
		}
		vol := "i"
		if f.Volatile {
			vol = "v"
		}
		rows = append(rows, types.Row{vOid(f.OID), vStr(f.Name), vOid(oidPgCatalog), vOid(oidRoot), vOid(oidInternalLang), vOid(variadic),
			vStr(string(f.Kind)), vBool(f.Strict), vBool(false), vStr(vol), vStr("s"), vBool(false), vBool(false), vInt(len(f.Args)), vOid(f.RetOID), vStr(strings.Join(args, " ")), vStr(f.Name), null})
	}
	cat := p.Catalog()
	for _, f := range cat.Functions() {
		args := make([]string, len(f.ArgTypes))
		for i, t := range f.ArgTypes {
			args[i] = strconv.FormatUint(uint64(t.OID()), 10)
		}
		src := f.Src
		if f.Return {
			src = ""
		}
		proacl := null
		if acl := p.FuncACL(f); acl != nil {
			proacl = vStr(types.FormatTextArray(acl, nil))
		}
		rows = append(rows, types.Row{vOid(f.OID), vStr(f.Name), vOid(nspOID(f.Schema, cat)), vOid(f.Owner), vOid(oidSQLLang), vOid(0),
			vStr("f"), vBool(f.Strict), vBool(false), vStr(string(f.Volatility)), vStr("u"), vBool(false), vBool(false), vInt(len(f.ArgTypes)),
			vOid(f.Ret.OID()), vStr(strings.Join(args, " ")), vStr(src), proacl})
	}
	return rows
}

// operatorRows are pg_operator's rows: the functions package's
// operators over concrete types, in pg_catalog.
func operatorRows(Provider) []types.Row {
	var rows []types.Row
	for _, o := range functions.Opers() {
		rows = append(rows, types.Row{vOid(o.OID), vStr(o.Name), vOid(oidPgCatalog), vOid(oidRoot), vStr(string(o.Kind)), vBool(false), vBool(false),
			vOid(o.Left), vOid(o.Right), vOid(o.Result), vOid(0), vOid(0), vOid(0)})
	}
	return rows
}

// activityRows are the rows of pg_stat_activity: one per client
// session, by pid. What a session may not see of another role's
// session is NULL, and its query <insufficient privilege>, as
// pg_stat_get_activity gives them; datid, pid, usesysid and
// application_name are seen by all.
func activityRows(p Provider) []types.Row {
	bs := p.Backends()
	sort.Slice(bs, func(i, j int) bool { return bs[i].PID < bs[j].PID })
	cat := p.Catalog()
	rows := make([]types.Row, 0, len(bs))
	for _, b := range bs {
		usename := null
		if r, ok := cat.RoleByOID(b.RoleOID); ok {
			usename = vStr(r.Name)
		}
		r := types.Row{vOid(oidDatabase), vStr(b.Database), vInt(int(b.PID)), null, vOid(b.RoleOID), usename, vStr(b.AppName)}
		if !b.Visible {
			r = append(r, null, null, null, null, null, null, null, null, null, null, null, null, null, vStr("<insufficient privilege>"), null)
			rows = append(rows, r)
			continue
		}
		addr, port := null, vInt(b.ClientPort)
		if b.ClientAddr != "" {
			addr = vStr(b.ClientAddr)
		}
		r = append(r, addr, null, port, vTime(b.Started), vTime(b.XactStart), vTime(b.QueryStart), vTime(b.StateChange),
			vStrOrNull(b.WaitEventType), vStrOrNull(b.WaitEvent), vStr(b.State), null, null, null, vStr(b.Query), vStr("client backend"))
		rows = append(rows, r)
	}
	return rows
}

// sslRows are the rows of pg_stat_ssl: one per client session, by pid,
// with ssl false and the rest NULL for a plain connection. As in
// PostgreSQL, whose view keeps the rows of pg_stat_get_activity with a
// client_port, another role's session the asking one may not see (its
// client_port NULL) has no row.
func sslRows(p Provider) []types.Row {
	bs := p.Backends()
	sort.Slice(bs, func(i, j int) bool { return bs[i].PID < bs[j].PID })
	rows := make([]types.Row, 0, len(bs))
	for _, b := range bs {
		if !b.Visible {
			continue
		}
		if !b.SSL {
			rows = append(rows, types.Row{vInt(int(b.PID)), vBool(false), null, null, null, null, null, null})
			continue
		}
		rows = append(rows, types.Row{vInt(int(b.PID)), vBool(true), vStr(b.SSLVersion), vStr(b.SSLCipher), vInt(b.SSLBits), null, null, null})
	}
	return rows
}

// userTypeRows are the pg_type rows of the user types: an enum (typtype
// 'e', category 'E', four bytes by value, enum_in and its kin) and its
// array type (_mood: category 'A', typelem the enum, array_in and its
// kin), or a
// domain (typtype 'd', its base type's storage, category and output
// functions, typbasetype, typtypmod, typnotnull and typdefault).
func userTypeRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	for _, u := range cat.Types() {
		ns := vOid(nspOID(u.Schema, cat))
		if u.Kind == 'e' {
			rows = append(rows, types.Row{vOid(u.OID), vStr(u.Name), ns, vOid(u.Owner), vInt(4), vBool(true), vStr("e"), vStr("E"), vBool(false), vBool(true), vStr(","), vOid(0), vOid(0), vOid(u.ArrayOID),
				vStr("enum_in"), vStr("enum_out"), vStr("enum_recv"), vStr("enum_send"), vStr("i"), vStr("p"), vBool(false), vOid(0), vInt(-1), vInt(0), vOid(0), null, null})
			if u.ArrayOID != 0 {
				rows = append(rows, types.Row{vOid(u.ArrayOID), vStr("_" + u.Name), ns, vOid(u.Owner), vInt(-1), vBool(false), vStr("b"), vStr("A"), vBool(false), vBool(true), vStr(","), vOid(0), vOid(u.OID), vOid(0),
					vStr("array_in"), vStr("array_out"), vStr("array_recv"), vStr("array_send"), vStr("i"), vStr("x"), vBool(false), vOid(0), vInt(-1), vInt(0), vOid(0), null, null})
			}
			continue
		}
		base := u.T
		name, category := base.ID.Name(), "U"
		for _, tr := range pgTypes {
			if tr.t.ID == base.ID {
				name, category = tr.name, tr.category
			}
		}
		if base.IsEnum() {
			category = "E"
		}
		coll := uint32(0)
		if category == "S" && base.ID != types.Name {
			coll = 100
		}
		def := null
		if u.Default != "" {
			def = vStr(p.DomainDefaultText(u))
		}
		baseOID := base.OID()
		if u.BaseDomain != 0 {
			baseOID = u.BaseDomain
		}
		rows = append(rows, types.Row{vOid(u.OID), vStr(u.Name), ns, vOid(u.Owner), vInt(int(base.Size())), vBool(base.Size() > 0 && base.Size() <= 8), vStr("d"), vStr(category), vBool(false), vBool(true), vStr(","), vOid(0), vOid(0), vOid(u.ArrayOID),
			vStr("domain_in"), vStr(name + "out"), vStr("domain_recv"), vStr(name + "send"), vStr(typAlign(base)), vStr(typStorage(base)), vBool(u.NotNull), vOid(baseOID), vInt(int(base.Typmod())), vInt(0), vOid(coll), def, null})
		if u.ArrayOID != 0 {
			rows = append(rows, types.Row{vOid(u.ArrayOID), vStr("_" + u.Name), ns, vOid(u.Owner), vInt(-1), vBool(false), vStr("b"), vStr("A"), vBool(false), vBool(true), vStr(","), vOid(0), vOid(u.OID), vOid(0),
				vStr("array_in"), vStr("array_out"), vStr("array_recv"), vStr("array_send"), vStr(typAlign(base)), vStr("x"), vBool(false), vOid(0), vInt(-1), vInt(0), vOid(coll), null, null})
		}
	}
	return rows
}

// domainConstraintRows are the pg_constraint rows of the domains' CHECK
// constraints (contype 'c', contypid the domain), in the order they
// were added. PostgreSQL 15 keeps a domain's NOT NULL in pg_type alone
// (typnotnull).
func domainConstraintRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	for _, u := range cat.Types() {
		for _, c := range u.Checks {
			def := strings.TrimSuffix(p.ConstraintDef(c.OID), " NOT VALID")
			rows = append(rows, types.Row{vOid(c.OID), vStr(c.Name), vOid(nspOID(u.Schema, cat)), vStr("c"), vBool(false), vBool(false), vBool(!c.NotValid),
				vOid(0), vOid(u.OID), vOid(0), vOid(0), vOid(0), vStr(" "), vStr(" "), vStr(" "), vBool(true), vInt(0), vBool(false), types.NullDatum, types.NullDatum,
				vStr(strings.TrimSuffix(strings.TrimPrefix(def, "CHECK ("), ")"))})
		}
	}
	return rows
}

// NamespaceOID is the OID pg_namespace gives schema (regnamespace's
// input), false when no schema has that name.
func NamespaceOID(schema string, cat Catalog) (uint32, bool) {
	if oid, ok := NamespaceNames(cat)[schema]; ok {
		return oid, true
	}
	return 0, false
}

// NamespaceNames maps the name of every schema pg_namespace lists to
// its OID.
func NamespaceNames(cat Catalog) map[string]uint32 {
	m := map[string]uint32{"pg_catalog": oidPgCatalog, "public": oidPublic, "information_schema": oidInfoSchema, Weir: oidWeirSchema}
	for _, sc := range cat.Schemas() {
		m[sc] = nspOID(sc, cat)
	}
	for _, sc := range cat.TempSchemas() {
		m[sc] = nspOID(sc, cat)
	}
	return m
}

// populated is pg_class.relispopulated: false only for a materialized
// view created WITH NO DATA and not refreshed since (an index on one is,
// as in PostgreSQL, populated).
func populated(r *catalog.Relation) bool {
	return r.Kind != catalog.KindMView || !r.Unpopulated
}
