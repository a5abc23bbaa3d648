package engine

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file serves the virtual system tables: the subsets of pg_catalog
// and information_schema that psql 15's meta-commands and common drivers
// query (see the PostgreSQL 15 docs, chapter 53 "System Catalogs", and
// chapter 37 "The Information Schema"). Rows are generated from the
// catalog on every scan, so they are always current.

// Well-known OIDs, as in Postgres.
const (
	oidPgCatalog  = 11
	oidPublic     = 2200
	oidInfoSchema = 13183
	oidRoot       = catalog.BootstrapRoleOID // the bootstrap superuser
	// oidDatabaseOwner is the pg_database_owner role, which owns public.
	oidDatabaseOwner = 6171
	oidDatabase      = 16384 - 1
	oidHeapAM        = 2
	oidBtreeAM       = 403
	oidPgClassRel    = 1259
	oidPgTypeRel     = 1247
	oidPgConstraint  = 2606
	// indexOIDBase offsets the OID of a table's primary key index from
	// the table's OID.
	indexOIDBase = 1 << 24
)

type sysTable struct {
	schema string
	name   string
	cols   types.Schema
	rows   func(e *Engine, s *Session) []types.Row
}

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
			panic("engine: unknown system column type " + t)
		}
		s = append(s, types.Column{Name: n, T: tt})
	}
	return s
}

var sysTables = map[string]*sysTable{}

func addSys(schema, name, spec string, rows func(e *Engine, s *Session) []types.Row) {
	sysTables[schema+"."+name] = &sysTable{schema: schema, name: name, cols: cols(spec), rows: rows}
}

// lookupSystemTable finds a system table; an empty schema searches
// pg_catalog then information_schema.
func lookupSystemTable(schema, name string) (string, types.Schema, bool) {
	if schema == "" {
		for _, sc := range []string{"pg_catalog", "information_schema"} {
			if t, ok := sysTables[sc+"."+name]; ok {
				return sc, t.cols, true
			}
		}
		return "", nil, false
	}
	t, ok := sysTables[schema+"."+name]
	if !ok {
		return "", nil, false
	}
	return schema, t.cols, true
}

func (e *Engine) systemRows(s *Session, schema, name string) ([]types.Row, error) {
	t, ok := sysTables[schema+"."+name]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	rows := t.rows(e, s)
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

func nspOID(schema string, e *Engine) uint32 {
	switch schema {
	case "pg_catalog":
		return oidPgCatalog
	case "public":
		return oidPublic
	case "information_schema":
		return oidInfoSchema
	case weirSchema:
		return oidWeirSchema
	}
	for i, sc := range e.cat.Schemas() {
		if sc == schema {
			return uint32(16384 + 1<<20 + i)
		}
	}
	return 0
}

// oidKafkaServer is the pg_foreign_server row standing for the Kafka
// connector (an OID below FirstUserOID, never a relation's).
const oidKafkaServer = 16300

func relkind(k catalog.Kind) string {
	switch k {
	case catalog.KindView:
		return "v"
	case catalog.KindMView:
		return "m"
	case catalog.KindSource:
		// A source's rows live outside the database, like a foreign
		// table's: psql lists it as one.
		return "f"
	}
	return "r"
}

// userRelations returns the relations that appear in pg_class.
func userRelations(e *Engine) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range e.cat.All() {
		if r.Kind != catalog.KindSink {
			out = append(out, r)
		}
	}
	return out
}

// hasRealPK reports whether rel has a declared primary key (not the hidden
// row id), which pg_catalog shows as a btree index and a constraint.
func hasRealPK(r *catalog.Relation) bool {
	return r.Kind == catalog.KindTable && len(r.PK) > 0 && !r.Cols[r.PK[0]].Hidden
}

func pkColumns(r *catalog.Relation) []string {
	names := make([]string, len(r.PK))
	for i, k := range r.PK {
		names[i] = quoteIdent(r.Cols[k].Name)
	}
	return names
}

// visibleAttnums numbers the visible columns 1..n as pg_attribute does.
func visibleCols(r *catalog.Relation) []catalog.Column {
	var cs []catalog.Column
	for _, c := range r.Cols {
		if !c.Hidden {
			cs = append(cs, c)
		}
	}
	return cs
}

func attnum(r *catalog.Relation, colIdx int) int {
	n := 0
	for i, c := range r.Cols {
		if !c.Hidden {
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
	{types.TJsonb, "jsonb", "U", false}, {types.TFloat4, "float4", "N", false}, {types.TFloat8, "float8", "N", true},
	{types.TUnknown, "unknown", "X", false}, {types.TVarchar, "varchar", "S", false}, {types.TDate, "date", "D", false},
	{types.TTime, "time", "D", false}, {types.TTimestamp, "timestamp", "D", false}, {types.TTimestamptz, "timestamptz", "D", true},
	{types.TInterval, "interval", "T", true}, {types.TNumeric, "numeric", "N", false}, {types.TTextArray, "_text", "A", false},
}

func init() {
	addSys("pg_catalog", "pg_namespace", "oid:oid nspname:name nspowner:oid nspacl:text[]", func(e *Engine, s *Session) []types.Row {
		rows := []types.Row{
			{vOid(oidPgCatalog), vStr("pg_catalog"), vOid(oidRoot), null},
			// Postgres 15 gives public to pg_database_owner.
			{vOid(oidPublic), vStr("public"), vOid(oidDatabaseOwner), null},
			{vOid(oidInfoSchema), vStr("information_schema"), vOid(oidRoot), null},
			weirNamespaceRow(),
		}
		for _, sc := range e.cat.Schemas() {
			if sc != "public" {
				rows = append(rows, types.Row{vOid(nspOID(sc, e)), vStr(sc), vOid(oidRoot), null})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_class", "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:int4 reltuples:float4 relallvisible:int4 reltoastrelid:oid relhasindex:bool relisshared:bool relpersistence:char relkind:char relnatts:int2 relchecks:int2 relhasrules:bool relhastriggers:bool relhassubclass:bool relrowsecurity:bool relforcerowsecurity:bool relispopulated:bool relreplident:char relispartition:bool relrewrite:oid relacl:text[] reloptions:text[] relpartbound:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			am := uint32(oidHeapAM)
			if r.Kind == catalog.KindView || r.Kind == catalog.KindSource {
				am = 0
			}
			relacl := null
			if acl := e.aclText(r); acl != nil {
				relacl = vStr(types.FormatTextArray(acl, nil))
			}
			rows = append(rows, types.Row{vOid(r.OID), vStr(r.Name), vOid(nspOID(r.Schema, e)), vOid(0), vOid(0), vOid(r.Owner), vOid(am), vOid(r.OID), vOid(0),
				vInt(0), vFloat(-1), vInt(0), vOid(0), vBool(hasRealPK(r)), vBool(false), vStr("p"), vStr(relkind(r.Kind)), vInt(len(visibleCols(r))), vInt(0),
				vBool(r.Kind == catalog.KindView), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("d"), vBool(false), vOid(0), relacl, null, null})
			if hasRealPK(r) {
				rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vStr(r.Name + "_pkey"), vOid(nspOID(r.Schema, e)), vOid(0), vOid(0), vOid(r.Owner), vOid(oidBtreeAM), vOid(r.OID + indexOIDBase), vOid(0),
					vInt(0), vFloat(0), vInt(0), vOid(0), vBool(false), vBool(false), vStr("p"), vStr("i"), vInt(len(r.PK)), vInt(0),
					vBool(false), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), null, null, null})
			}
		}
		return append(rows, weirClassRows()...)
	})
	addSys("pg_catalog", "pg_attribute", "attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2 attnum:int2 attndims:int4 attcacheoff:int4 atttypmod:int4 attbyval:bool attalign:char attstorage:char attcompression:char attnotnull:bool atthasdef:bool atthasmissing:bool attidentity:char attgenerated:char attisdropped:bool attislocal:bool attinhcount:int4 attcollation:oid attacl:text[] attoptions:text attfdwoptions:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			for i, c := range r.Cols {
				if c.Hidden {
					continue
				}
				coll := uint32(0)
				if c.T.IsString() && c.T.ID != types.Char && c.T.ID != types.Name {
					coll = 100
				}
				rows = append(rows, types.Row{vOid(r.OID), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(attnum(r, i)), vInt(0), vInt(-1), vInt(int(c.T.Mod)),
					vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr("i"), vStr(typStorage(c.T)), vStr(""), vBool(c.NotNull), vBool(c.Default != ""), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(coll), null, null, null})
			}
			if hasRealPK(r) {
				for j, k := range r.PK {
					c := r.Cols[k]
					rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(j + 1), vInt(0), vInt(-1), vInt(int(c.T.Mod)),
						vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr("i"), vStr("p"), vStr(""), vBool(false), vBool(false), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(0), null, null, null})
				}
			}
		}
		return append(rows, weirAttributeRows()...)
	})
	addSys("pg_catalog", "pg_attrdef", "oid:oid adrelid:oid adnum:int2 adbin:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			for i, c := range r.Cols {
				if c.Default != "" && !c.Hidden {
					rows = append(rows, types.Row{vOid(r.OID<<8 + uint32(i)), vOid(r.OID), vInt(attnum(r, i)), vStr(s.defaultText(r, i))})
				}
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_type", "oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool typtype:char typcategory:char typispreferred:bool typisdefined:bool typdelim:char typrelid:oid typelem:oid typarray:oid typinput:text typoutput:text typreceive:text typsend:text typalign:char typstorage:char typnotnull:bool typbasetype:oid typtypmod:int4 typndims:int4 typcollation:oid typdefault:text typacl:text[]", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, tr := range pgTypes {
			elem := uint32(0)
			if tr.t.ID == types.TextArray {
				elem = types.TText.OID()
			}
			coll := uint32(0)
			if tr.category == "S" && tr.name != "name" {
				coll = 100
			}
			rows = append(rows, types.Row{vOid(tr.t.OID()), vStr(tr.name), vOid(oidPgCatalog), vOid(oidRoot), vInt(int(tr.t.Size())), vBool(tr.t.Size() > 0 && tr.t.Size() <= 8), vStr("b"), vStr(tr.category), vBool(tr.pref), vBool(true), vStr(","), vOid(0), vOid(elem), vOid(tr.t.ArrayOID()),
				vStr(tr.name + "in"), vStr(tr.name + "out"), vStr(tr.name + "recv"), vStr(tr.name + "send"), vStr("i"), vStr(typStorage(tr.t)), vBool(false), vOid(0), vInt(-1), vInt(0), vOid(coll), null, null})
		}
		return rows
	})
	addSys("pg_catalog", "pg_database", "oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char datistemplate:bool datallowconn:bool datconnlimit:int4 datcollate:text datctype:text daticulocale:text datcollversion:text datacl:text[]", func(e *Engine, s *Session) []types.Row {
		return []types.Row{{vOid(oidDatabase), vStr(s.database), vOid(oidRoot), vInt(6), vStr("c"), vBool(false), vBool(true), vInt(-1), vStr("C"), vStr("C"), null, null, null}}
	})
	addSys("pg_catalog", "pg_am", "oid:oid amname:name amhandler:text amtype:char", func(e *Engine, s *Session) []types.Row {
		return []types.Row{{vOid(oidHeapAM), vStr("heap"), vStr("heap_tableam_handler"), vStr("t")}, {vOid(oidBtreeAM), vStr("btree"), vStr("bthandler"), vStr("i")}}
	})
	addSys("pg_catalog", "pg_index", "indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool indisprimary:bool indisexclusion:bool indimmediate:bool indisclustered:bool indisvalid:bool indcheckxmin:bool indisready:bool indislive:bool indisreplident:bool indnullsnotdistinct:bool indkey:text indexprs:text indpred:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if !hasRealPK(r) {
				continue
			}
			var keys []string
			for _, k := range r.PK {
				keys = append(keys, strconv.Itoa(attnum(r, k)))
			}
			rows = append(rows, types.Row{vOid(r.OID + indexOIDBase), vOid(r.OID), vInt(len(r.PK)), vInt(len(r.PK)), vBool(true), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(true), vBool(false), vBool(false), vStr(strings.Join(keys, " ")), null, null})
		}
		return rows
	})
	addSys("pg_catalog", "pg_constraint", "oid:oid conname:name connamespace:oid contype:char condeferrable:bool condeferred:bool convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4 connoinherit:bool conkey:text confkey:text conbin:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if !hasRealPK(r) {
				continue
			}
			var keys []string
			for _, k := range r.PK {
				keys = append(keys, strconv.Itoa(attnum(r, k)))
			}
			rows = append(rows, types.Row{vOid(r.OID + 2*indexOIDBase), vStr(r.Name + "_pkey"), vOid(nspOID(r.Schema, e)), vStr("p"), vBool(false), vBool(false), vBool(true), vOid(r.OID), vOid(0), vOid(r.OID + indexOIDBase), vOid(0), vOid(0), vStr(" "), vStr(" "), vStr(" "), vBool(true), vInt(0), vBool(true), vStr("{" + strings.Join(keys, ",") + "}"), null, null})
		}
		return rows
	})
	empty := func(e *Engine, s *Session) []types.Row { return nil }
	addSys("pg_catalog", "pg_policy", "oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool polroles:text[] polqual:text polwithcheck:text", empty)
	addSys("pg_catalog", "pg_statistic_ext", "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:int4 stxkeys:text stxkind:text[]", empty)
	addSys("pg_catalog", "pg_publication", "oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool pubupdate:bool pubdelete:bool pubtruncate:bool pubviaroot:bool", empty)
	addSys("pg_catalog", "pg_publication_namespace", "oid:oid pnpubid:oid pnnspid:oid", empty)
	addSys("pg_catalog", "pg_publication_rel", "oid:oid prpubid:oid prrelid:oid prqual:text prattrs:text[]", empty)
	addSys("pg_catalog", "pg_inherits", "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool", empty)
	addSys("pg_catalog", "pg_trigger", "oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:int2 tgenabled:char tgisinternal:bool", empty)
	addSys("pg_catalog", "pg_rewrite", "oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char is_instead:bool", empty)
	addSys("pg_catalog", "pg_description", "objoid:oid classoid:oid objsubid:int4 description:text", func(e *Engine, s *Session) []types.Row {
		return append(descriptionRows(e, s), weirDescriptionRows()...)
	})
	addSys("pg_catalog", "pg_shdescription", "objoid:oid classoid:oid description:text", empty)
	addSys("pg_catalog", "pg_extension", "oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:bool extversion:text", empty)
	// Sources appear as foreign tables of one server per connector
	// (psql's \d prints "Server: kafka"); their options stay in weir's
	// own views.
	addSys("pg_catalog", "pg_foreign_table", "ftrelid:oid ftserver:oid ftoptions:text[]", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range e.cat.All() {
			if r.Kind == catalog.KindSource {
				rows = append(rows, types.Row{vOid(r.OID), vOid(oidKafkaServer), null})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_foreign_server", "oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text srvacl:text[] srvoptions:text[]", func(e *Engine, s *Session) []types.Row {
		return []types.Row{{vOid(oidKafkaServer), vStr("kafka"), vOid(oidRoot), vOid(0), null, null, null, null}}
	})
	addSys("pg_catalog", "pg_partitioned_table", "partrelid:oid partstrat:char partnatts:int2", empty)
	addSys("pg_catalog", "pg_sequence", "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 seqcache:int8 seqcycle:bool", empty)
	addSys("pg_catalog", "pg_tablespace", "oid:oid spcname:name spcowner:oid spcacl:text[] spcoptions:text", func(e *Engine, s *Session) []types.Row {
		return []types.Row{{vOid(1663), vStr("pg_default"), vOid(oidRoot), null, null}}
	})
	addSys("pg_catalog", "pg_collation", "oid:oid collname:name collnamespace:oid collowner:oid collprovider:char collisdeterministic:bool collencoding:int4 collcollate:text collctype:text", func(e *Engine, s *Session) []types.Row {
		return []types.Row{{vOid(100), vStr("default"), vOid(oidPgCatalog), vOid(oidRoot), vStr("d"), vBool(true), vInt(-1), null, null},
			{vOid(950), vStr("C"), vOid(oidPgCatalog), vOid(oidRoot), vStr("c"), vBool(true), vInt(-1), vStr("C"), vStr("C")}}
	})
	roleCols := "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text rolvaliduntil:timestamptz rolbypassrls:bool rolconfig:text"
	addSys("pg_catalog", "pg_roles", roleCols, func(e *Engine, s *Session) []types.Row { return roleRows(e, true) })
	addSys("pg_catalog", "pg_authid", roleCols, func(e *Engine, s *Session) []types.Row { return roleRows(e, false) })
	addSys("pg_catalog", "pg_user", "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool usebypassrls:bool passwd:text valuntil:timestamptz useconfig:text", func(e *Engine, s *Session) []types.Row {
		return userRows(e)
	})
	addSys("pg_catalog", "pg_auth_members", "roleid:oid member:oid grantor:oid admin_option:bool", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range e.cat.Roles() {
			for _, m := range r.MemberOf {
				rows = append(rows, types.Row{vOid(m), vOid(r.OID), vOid(oidRoot), vBool(false)})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_settings", "name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text boot_val:text reset_val:text sourcefile:text sourceline:int4 pending_restart:bool", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, n := range sortedSettingNames() {
			st, _ := lookupSetting(n)
			ctx := "user"
			if st.readOnly {
				ctx = "internal"
			}
			rows = append(rows, types.Row{vStr(st.name), vStr(s.get(st)), null, vStr(""), vStr(st.desc), null, vStr(ctx), vStr("string"), vStr("default"), null, null, null, vStr(st.def), vStr(st.def), null, null, vBool(false)})
		}
		return rows
	})
	addSys("pg_catalog", "pg_proc", "oid:oid proname:name pronamespace:oid proowner:oid prokind:char prorettype:oid proargtypes:text", empty)
	addSys("pg_catalog", "pg_tables", "schemaname:name tablename:name tableowner:name tablespace:name hasindexes:bool hasrules:bool hastriggers:bool rowsecurity:bool", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if r.Kind == catalog.KindTable {
				rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(e.roleName(r.Owner)), null, vBool(hasRealPK(r)), vBool(false), vBool(false), vBool(false)})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_views", "schemaname:name viewname:name viewowner:name definition:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if r.Kind == catalog.KindView {
				rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(e.roleName(r.Owner)), vStr(r.SQL)})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_matviews", "schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:bool ispopulated:bool definition:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if r.Kind == catalog.KindMView {
				rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(e.roleName(r.Owner)), null, vBool(false), vBool(true), vStr(r.SQL)})
			}
		}
		return rows
	})
	addSys("pg_catalog", "pg_indexes", "schemaname:name tablename:name indexname:name tablespace:name indexdef:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if hasRealPK(r) {
				rows = append(rows, types.Row{vStr(r.Schema), vStr(r.Name), vStr(r.Name + "_pkey"), null, vStr(indexDef(r))})
			}
		}
		return rows
	})
	addSys("information_schema", "schemata", "catalog_name:name schema_name:name schema_owner:name", func(e *Engine, s *Session) []types.Row {
		rows := []types.Row{{vStr(s.database), vStr("information_schema"), vStr("root")}, {vStr(s.database), vStr("pg_catalog"), vStr("root")}, {vStr(s.database), vStr(weirSchema), vStr("root")}}
		for _, sc := range e.cat.Schemas() {
			rows = append(rows, types.Row{vStr(s.database), vStr(sc), vStr("root")})
		}
		return rows
	})
	addSys("information_schema", "tables", "table_catalog:name table_schema:name table_name:name table_type:text is_insertable_into:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			tt, ins := "BASE TABLE", "YES"
			if r.Kind != catalog.KindTable {
				tt, ins = "VIEW", "NO"
			}
			rows = append(rows, types.Row{vStr(s.database), vStr(r.Schema), vStr(r.Name), vStr(tt), vStr(ins)})
		}
		return append(rows, weirTablesRows(s)...)
	})
	addSys("information_schema", "views", "table_catalog:name table_schema:name table_name:name view_definition:text", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			if r.Kind == catalog.KindView || r.Kind == catalog.KindMView {
				rows = append(rows, types.Row{vStr(s.database), vStr(r.Schema), vStr(r.Name), vStr(r.SQL)})
			}
		}
		return rows
	})
	addSys("information_schema", "columns", "table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:int4 column_default:text is_nullable:text data_type:text character_maximum_length:int4 numeric_precision:int4 numeric_scale:int4 datetime_precision:int4 udt_name:name", func(e *Engine, s *Session) []types.Row {
		var rows []types.Row
		for _, r := range userRelations(e) {
			for i, c := range r.Cols {
				if c.Hidden {
					continue
				}
				nullable := "YES"
				if c.NotNull {
					nullable = "NO"
				}
				def := null
				if c.Default != "" {
					def = vStr(s.defaultText(r, i))
				}
				charLen, prec, scale, dtp := null, null, null, null
				switch c.T.ID {
				case types.Varchar:
					if c.T.Mod >= 4 {
						charLen = vInt(int(c.T.Mod - 4))
					}
				case types.Int2:
					prec, scale = vInt(16), vInt(0)
				case types.Int4:
					prec, scale = vInt(32), vInt(0)
				case types.Int8:
					prec, scale = vInt(64), vInt(0)
				case types.Float4:
					prec = vInt(24)
				case types.Float8:
					prec = vInt(53)
				case types.Numeric:
					if c.T.Mod >= 4 {
						prec, scale = vInt(int((c.T.Mod-4)>>16)), vInt(int((c.T.Mod-4)&0xffff))
					}
				case types.Date:
					dtp = vInt(0)
				case types.Time, types.Timestamp, types.Timestamptz, types.Interval:
					dtp = vInt(6)
					if c.T.Mod >= 0 {
						dtp = vInt(int(c.T.Mod))
					}
				}
				udt := ""
				for _, tr := range pgTypes {
					if tr.t.ID == c.T.ID {
						udt = tr.name
					}
				}
				rows = append(rows, types.Row{vStr(s.database), vStr(r.Schema), vStr(r.Name), vStr(c.Name), vInt(attnum(r, i)), def, vStr(nullable),
					vStr(types.T{ID: c.T.ID, Mod: -1}.String()), charLen, prec, scale, dtp, vStr(udt)})
			}
		}
		return append(rows, weirColumnsRows(s)...)
	})
}

// indexDef is what pg_get_indexdef prints for a table's primary key index.
func indexDef(r *catalog.Relation) string {
	return "CREATE UNIQUE INDEX " + quoteIdent(r.Name+"_pkey") + " ON " + r.Schema + "." + quoteIdent(r.Name) + " USING btree (" + strings.Join(pkColumns(r), ", ") + ")"
}

// DescribeObject implements executor.CatalogDescriber over the OIDs that
// pg_class, pg_index and pg_constraint give weir's objects: a table's
// primary key index is its OID plus indexOIDBase, the key's constraint its
// OID plus 2*indexOIDBase.
func (s *Session) DescribeObject(fn string, oid uint32, col int, pretty bool) (string, bool) {
	cat := s.eng.cat
	if d, ok := s.describeWeir(fn, oid, col); ok {
		return d, true
	}
	switch fn {
	case "pg_get_userbyid":
		switch oid {
		case oidDatabaseOwner:
			return "pg_database_owner", true
		}
		if r, ok := cat.RoleByOID(oid); ok {
			return r.Name, true
		}
	case "pg_get_indexdef":
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
			return quoteIdent(r.Cols[r.PK[col-1]].Name), true
		}
		return indexDef(r), true
	case "pg_get_constraintdef":
		if oid < 2*indexOIDBase {
			return "", false
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
	case "pg_get_viewdef":
		r, ok := cat.ByOID(oid)
		if !ok || (r.Kind != catalog.KindView && r.Kind != catalog.KindMView) {
			return "", false
		}
		return viewDef(r), true
	}
	return "", false
}

// viewDef is what pg_get_viewdef prints for a view: Postgres deparses the
// stored query tree; weir prints the query as written, in Postgres's
// layout (a leading space, a closing semicolon).
func viewDef(r *catalog.Relation) string {
	q := strings.TrimRight(strings.TrimSpace(r.SQL), ";")
	return " " + q + ";"
}

// defaultText is column i's DEFAULT as pg_get_expr prints it, or as
// written if it no longer binds.
func (s *Session) defaultText(r *catalog.Relation, i int) string {
	if t, err := planner.DefaultText(r, i, s.catalogView()); err == nil {
		return t
	}
	return r.Cols[i].Default
}

// typStorage is pg_type.typstorage: variable-length types are stored
// extended, numeric main, fixed-size ones plain.
func typStorage(t types.T) string {
	switch t.ID {
	case types.Numeric:
		return "m"
	case types.Text, types.Varchar, types.Bytea, types.Jsonb, types.TextArray:
		return "x"
	}
	return "p"
}
