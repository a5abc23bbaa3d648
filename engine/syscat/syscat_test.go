package syscat

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// fakeCatalog is a Catalog over fixed relations and roles.
type fakeCatalog struct {
	rels  []*catalog.Relation
	roles []*catalog.Role
}

func (c fakeCatalog) All() []*catalog.Relation  { return c.rels }
func (c fakeCatalog) Schemas() []string         { return []string{"public"} }
func (c fakeCatalog) SchemaOwner(string) uint32 { return 10 }
func (c fakeCatalog) Roles() []*catalog.Role    { return c.roles }
func (c fakeCatalog) ByID(id uint32) (*catalog.Relation, bool) {
	for _, r := range c.rels {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}
func (c fakeCatalog) ByOID(oid uint32) (*catalog.Relation, bool) {
	for _, r := range c.rels {
		if r.OID == oid {
			return r, true
		}
	}
	return nil, false
}
func (c fakeCatalog) Lookup(schema, name string) (*catalog.Relation, bool) {
	for _, r := range c.rels {
		if r.Schema == schema && r.Name == name {
			return r, true
		}
	}
	return nil, false
}
func (c fakeCatalog) TempSchemas() []string      { return nil }
func (c fakeCatalog) Types() []*catalog.UserType { return nil }

func (c fakeCatalog) Functions() []*catalog.Function { return nil }
func (c fakeCatalog) RoleByOID(oid uint32) (*catalog.Role, bool) {
	for _, r := range c.roles {
		if r.OID == oid {
			return r, true
		}
	}
	return nil, false
}

// fake is a Provider with one of everything, so that every table has
// rows to build.
type fake struct {
	cat        fakeCatalog
	searchPath string
	jobs       []Job
	// restricted makes the session's role one that owns nothing and
	// holds only what is granted to PUBLIC.
	restricted bool
	backends   []Backend
}

func (f fake) Catalog() Catalog     { return f.cat }
func (f fake) Database() string     { return "dev" }
func (f fake) TempSchema() string   { return "" }
func (f fake) SearchPath() []string { return []string{"public"} }
func (f fake) ActiveSearchPath(implicit bool) []string {
	if implicit {
		return []string{"pg_catalog", "public"}
	}
	return []string{"public"}
}
func (f fake) Setting(name string) string {
	return map[string]string{"search_path": f.searchPath}[name]
}
func (f fake) Settings() []Setting                             { return []Setting{{Name: "search_path", Value: f.searchPath}} }
func (f fake) DefaultText(r *catalog.Relation, i int) string   { return r.Cols[i].Default }
func (f fake) GeneratedText(r *catalog.Relation, i int) string { return r.Cols[i].Generated }
func (f fake) CheckText(r *catalog.Relation, k int) string     { return "CHECK (" + r.Checks[k].Expr + ")" }
func (f fake) CheckColumns(r *catalog.Relation, k int) []int   { return nil }
func (f fake) DomainDefaultText(u *catalog.UserType) string    { return u.Default }
func (f fake) ConstraintDef(oid uint32) string                 { return "" }
func (f fake) IndexTexts(idx, on *catalog.Relation, pretty bool) IndexTexts {
	return IndexTexts{Pred: idx.IndexPredicate()}
}
func (f fake) ACL(r *catalog.Relation) []string { return []string{"root=arwd/root"} }

func (f fake) FuncACL(*catalog.Function) []string { return nil }
func (f fake) HasPrivsOfRole(oid uint32) bool     { return !f.restricted }
func (f fake) HoldsAny(r *catalog.Relation, col int, p catalog.Privilege) bool {
	return !f.restricted || r.ACL.Privileges(r.Owner, catalog.PrivTableAll, nil)&p != 0
}
func (f fake) ViewText(r *catalog.Relation, pretty bool) string  { return " " + r.SQL + ";" }
func (f fake) SequenceLast(*catalog.Relation, int) (int64, bool) { return 0, false }
func (f fake) SequenceACL(*catalog.Relation, int) []string       { return nil }
func (f fake) PreparedStatements() []PreparedStatement           { return nil }
func (f fake) Cursors() []Cursor                                 { return nil }
func (f fake) TableBytes(id uint32) int64                        { return int64(id) * 100 }
func (f fake) Backends() []Backend                               { return f.backends }
func (f fake) Committed() Committed {
	return Committed{Epoch: 7, At: time.Unix(1, 0), BarrierInterval: 1000}
}
func (f fake) Checkpoints() []Checkpoint {
	return []Checkpoint{{Epoch: 7, Status: "succeeded", Bytes: 10}, {Epoch: 8}, {Epoch: 6, Status: "failed", Reason: "boom"}}
}
func (f fake) Jobs() []Job { return f.jobs }
func (f fake) Operators() []Operator {
	return []Operator{{Job: "m", Name: "StreamHashAgg", RowsIn: Null[int64]{V: 3, Valid: true}}, {Job: "m", Name: "StreamTableScan"}}
}
func (f fake) StateTables() []StateTable { return []StateTable{{Job: "m", Name: "agg"}} }
func (f fake) Sources() []Source         { return []Source{{Name: "s", Lag: Null[int64]{V: 2, Valid: true}}} }
func (f fake) SourcePartitions() []SourcePartition {
	return []SourcePartition{{Source: "s", Job: "m", Position: Null[int64]{V: 1, Valid: true}}}
}
func (f fake) SourceErrors() []SourceError { return []SourceError{{Source: "s", Reason: "bad"}} }
func (f fake) Sinks() []Sink {
	return []Sink{{Name: "k", Pending: "p"}, {Name: "l", LastError: "down"}}
}
func (f fake) StreamErrors() []StreamError { return []StreamError{{View: "m", SQLState: "22012"}} }
func (f fake) Watermarks() []Watermark {
	return []Watermark{{Name: "s", Value: Null[string]{V: "x", Valid: true}}, {Name: "t"}}
}

func newFake() fake {
	t := &catalog.Relation{ID: 1, OID: 16385, Schema: "public", Name: "t", Kind: catalog.KindTable, PK: []int{0},
		Cols:    []catalog.Column{{Name: "id", T: types.TInt4, NotNull: true}, {Name: "Note", T: types.TText, Default: "'x'"}},
		Comment: "a table", ColComments: map[string]string{"id": "the key"}}
	v := &catalog.Relation{ID: 2, OID: 16386, Schema: "public", Name: "v", Kind: catalog.KindMView, SQL: "SELECT 1",
		Cols: []catalog.Column{{Name: "x", T: types.TInt8}}}
	return fake{
		cat:        fakeCatalog{rels: []*catalog.Relation{t, v}, roles: []*catalog.Role{{OID: catalog.BootstrapRoleOID, Name: "root", Superuser: true, Login: true}}},
		searchPath: `"$user", public`,
		jobs:       []Job{{ID: 2, Name: "v", BackfillProgress: 1}, {ID: 3, Name: "w", Backfilling: true, BackfillRows: 1, BackfillTotal: 8, Statement: "CREATE MATERIALIZED VIEW w"}},
		backends: []Backend{
			{PID: 30, RoleOID: catalog.BootstrapRoleOID, ClientPort: -1, Visible: true},
			{PID: 10, RoleOID: catalog.BootstrapRoleOID, ClientAddr: "127.0.0.1", ClientPort: 5000, Visible: true,
				SSL: true, SSLVersion: "TLSv1.3", SSLCipher: "TLS_AES_256_GCM_SHA384", SSLBits: 256},
			{PID: 20, RoleOID: 16400, ClientAddr: "127.0.0.1", ClientPort: 5001, SSL: true, SSLVersion: "TLSv1.2", SSLCipher: "AES128-SHA", SSLBits: 128},
		},
	}
}

// TestEveryTableBuilds builds every system table's rows from a provider
// with something of everything: each row has its table's arity.
func TestEveryTableBuilds(t *testing.T) {
	p := newFake()
	for key, tb := range tables {
		if _, err := Rows(p, tb.schema, tb.name); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	if _, err := Rows(p, Weir, "nosuch"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("an unknown table: %v", err)
	}
}

// TestWeirViewsDescribed checks that every weir view and each of its
// columns has a description, and that the views are relations of
// pg_class and information_schema like any other.
func TestWeirViewsDescribed(t *testing.T) {
	p := newFake()
	rels := weirRelations()
	if len(rels) < 10 {
		t.Fatalf("only %d weir views", len(rels))
	}
	for _, r := range rels {
		if d, ok := Describe(p, "obj_description", r.oid, 0); !ok || d == "" {
			t.Errorf("weir.%s has no description", r.t.name)
		}
		for i, c := range r.t.cols {
			if d, ok := Describe(p, "col_description", r.oid, i+1); !ok || d == "" {
				t.Errorf("weir.%s.%s has no description", r.t.name, c.Name)
			}
		}
	}
	rows, _ := Rows(p, InfoSchema, "tables")
	n := 0
	for _, r := range rows {
		if r[1].S == Weir {
			n++
		}
	}
	if n != len(rels) {
		t.Errorf("information_schema.tables lists %d weir views, want %d", n, len(rels))
	}
}

// TestWeirViewsVisibility follows search_path for pg_table_is_visible.
func TestWeirViewsVisibility(t *testing.T) {
	p := newFake()
	oid := weirRelations()[0].oid
	if v, _ := Describe(p, "pg_table_is_visible", oid, 0); v != "f" {
		t.Errorf("visible off the search path: %q", v)
	}
	p.searchPath = `public, "weir"`
	if v, _ := Describe(p, "pg_table_is_visible", oid, 0); v != "t" {
		t.Errorf("not visible on the search path: %q", v)
	}
}

// TestLookup finds unqualified names in pg_catalog, then
// information_schema, and weir's views only by their schema.
func TestLookup(t *testing.T) {
	for _, c := range []struct{ schema, name, want string }{
		{"", "pg_class", PgCatalog}, {"", "tables", InfoSchema}, {"", "jobs", ""},
		{Weir, "jobs", Weir}, {PgCatalog, "tables", ""}, {"public", "pg_class", ""},
	} {
		got, _, ok := Lookup(c.schema, c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Lookup(%q, %q) = %q %v, want %q", c.schema, c.name, got, ok, c.want)
		}
	}
}

// TestShowJobs lists only backfilling jobs, with the share of rows read.
func TestShowJobs(t *testing.T) {
	got := ShowJobs(newFake())
	if len(got) != 1 || strings.Join(got[0], "|") != "3|CREATE MATERIALIZED VIEW w|12.50%" {
		t.Errorf("SHOW JOBS = %v", got)
	}
}

// TestNulls checks how absent values read: NULL for an in-flight
// checkpoint's duration and bytes, an empty reason or pending list, an
// unknown lag.
func TestNulls(t *testing.T) {
	p := newFake()
	rows, _ := Rows(p, Weir, "checkpoints")
	want := []string{"7 succeeded bytes=10 dur=true reason=false", "8 in_progress bytes=-1 dur=false reason=false", "6 failed bytes=-1 dur=true reason=true"}
	for i, r := range rows {
		bytes := int64(-1)
		if !r[3].Null {
			bytes = r[3].I
		}
		got := strings.Join([]string{itoa(r[0].I), r[4].S, "bytes=" + itoa(bytes), "dur=" + btoa(!r[2].Null), "reason=" + btoa(!r[5].Null)}, " ")
		if got != want[i] {
			t.Errorf("checkpoint row %d: %s, want %s", i, got, want[i])
		}
	}
	sinks, _ := Rows(p, Weir, "sinks")
	if !sinks[0][18].Null || sinks[1][18].Null || sinks[0][5].Null || !sinks[1][5].Null || !sinks[0][14].Null {
		t.Errorf("sinks' NULLs: %v", sinks)
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func btoa(b bool) string { return strconv.FormatBool(b) }

// TestCatalogFirst follows search_path for a name pg_catalog holds.
func TestCatalogFirst(t *testing.T) {
	for _, c := range []struct {
		path, name string
		want       bool
	}{
		{`"$user", public`, "pg_class", true},
		{"", "pg_class", true},
		{"public, pg_catalog", "pg_class", false},
		{`pg_catalog, "public"`, "pg_class", true},
		{`"$user", public`, "tables", false}, // information_schema is not searched
		{`"$user", public`, "orders", false},
	} {
		if got := CatalogFirst(c.path, c.name); got != c.want {
			t.Errorf("CatalogFirst(%q, %q) = %v, want %v", c.path, c.name, got, c.want)
		}
	}
}

// TestRelationSizes checks which tables each size function adds up: a
// table's own rows, its indexes (with a unique index's key store) and a
// materialized view's state tables.
func TestRelationSizes(t *testing.T) {
	tbl := &catalog.Relation{ID: 1, OID: 16385, Name: "t", Kind: catalog.KindTable}
	idx := &catalog.Relation{ID: 2, OID: 16386, Name: "t_u", Kind: catalog.KindIndex, Deps: []uint32{1},
		With: map[string]string{catalog.IndexUniqueOption: "true", catalog.UniqueStoreOption: "3"}}
	mv := &catalog.Relation{ID: 4, OID: 16388, Name: "mv", Kind: catalog.KindMView, StateTables: []uint32{5, 6}}
	view := &catalog.Relation{ID: 7, OID: 16391, Name: "v", Kind: catalog.KindView}
	p := fake{cat: fakeCatalog{rels: []*catalog.Relation{tbl, idx, mv, view}}}
	for _, c := range []struct {
		fn   string
		oid  uint32
		want string
	}{
		{"pg_relation_size", 16385, "100"},
		{"pg_table_size", 16385, "100"},
		{"pg_indexes_size", 16385, "500"}, // index 200 + key store 300
		{"pg_total_relation_size", 16385, "600"},
		{"pg_relation_size", 16386, "200"},
		{"pg_relation_size", 16388, "400"},
		{"pg_table_size", 16388, "1500"},
		{"pg_total_relation_size", 16391, "0"},
	} {
		got, ok := Describe(p, c.fn, c.oid, 0)
		if !ok || got != c.want {
			t.Errorf("%s(%d) = %q, %v; want %q", c.fn, c.oid, got, ok, c.want)
		}
	}
	if got, ok := Describe(p, "pg_relation_size", 99999, 0); ok {
		t.Errorf("pg_relation_size of no relation = %q, want NULL", got)
	}
}

// TestInformationSchemaShowsWhatTheRoleMayKnow checks that, as in
// PostgreSQL, information_schema lists for a role that owns nothing only
// the relations it holds a privilege on (here through PUBLIC), their
// columns when the privilege covers columns, and no view definition;
// the weir views and the schemas are anyone's.
func TestInformationSchemaShowsWhatTheRoleMayKnow(t *testing.T) {
	p := newFake()
	pub := &catalog.Relation{ID: 4, OID: 16388, Schema: "public", Name: "pub", Kind: catalog.KindView, SQL: "SELECT 2",
		Cols: []catalog.Column{{Name: "y", T: types.TInt4}}, ACL: catalog.RelACL{{Grantee: catalog.PublicGrantee, Privs: catalog.PrivSelect}}}
	del := &catalog.Relation{ID: 5, OID: 16389, Schema: "public", Name: "del", Kind: catalog.KindTable,
		Cols: []catalog.Column{{Name: "z", T: types.TInt4}}, ACL: catalog.RelACL{{Grantee: catalog.PublicGrantee, Privs: catalog.PrivDelete}}}
	p.cat.rels = append(p.cat.rels, pub, del)
	p.restricted = true
	names := func(table string, cols ...int) string {
		t.Helper()
		rows, err := Rows(p, InfoSchema, table)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			if len(r) > 1 && r[1].S == Weir {
				continue
			}
			var f []string
			for _, c := range cols {
				if r[c].Null {
					f = append(f, "NULL")
				} else {
					f = append(f, r[c].S)
				}
			}
			out = append(out, strings.Join(f, "."))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ table, got, want string }{
		{"tables", names("tables", 2), "pub del"},
		{"columns", names("columns", 2, 3), "pub.y"},
		{"views", names("views", 2, 3), "pub.NULL"},
		{"schemata", names("schemata", 1), "information_schema pg_catalog public"},
	} {
		if c.got != c.want {
			t.Errorf("information_schema.%s: %q, want %q", c.table, c.got, c.want)
		}
	}
	rows, _ := Rows(p, InfoSchema, "tables")
	if n := len(rows) - 2; n != len(weirRelations()) {
		t.Errorf("information_schema.tables lists %d weir views, want %d", n, len(weirRelations()))
	}
}

// TestStatSSL: pg_stat_ssl has a row per session the asking one may
// see, by pid: the TLS version, cipher and bits of one over TLS, ssl
// false and NULLs for a plain one; another role's session has no row,
// as PostgreSQL's view drops the sessions whose client_port it hides.
func TestStatSSL(t *testing.T) {
	rows, err := Rows(newFake(), PgCatalog, "pg_stat_ssl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		f := make([]string, len(r))
		for i, d := range r {
			switch {
			case d.Null:
				f[i] = "NULL"
			case i == 1:
				f[i] = btoa(d.I != 0)
			case i == 0 || i == 4:
				f[i] = itoa(d.I)
			default:
				f[i] = d.S
			}
		}
		got = append(got, strings.Join(f, " "))
	}
	want := []string{
		"10 true TLSv1.3 TLS_AES_256_GCM_SHA384 256 NULL NULL NULL",
		"30 false NULL NULL NULL NULL NULL NULL",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pg_stat_ssl:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// pg_stat_activity shows the hidden session, as <insufficient privilege>.
	if act, _ := Rows(newFake(), PgCatalog, "pg_stat_activity"); len(act) != 3 {
		t.Errorf("pg_stat_activity has %d rows, want 3", len(act))
	}
}

// TestSystemRelations checks that every relation weir serves in
// pg_catalog and information_schema is PostgreSQL's (pgRelations names
// it, and nothing else) and is a relation of pg_class, with its columns
// in pg_attribute, under its OID, which regclass gives too.
func TestSystemRelations(t *testing.T) {
	p := newFake()
	n := 0
	for key, tb := range tables {
		if tb.schema == Weir {
			continue
		}
		n++
		if _, ok := pgRelations[key]; !ok {
			t.Errorf("%s is not in pgRelations", key)
		}
	}
	if n != len(pgRelations) {
		t.Errorf("pgRelations has %d relations, weir serves %d", len(pgRelations), n)
	}
	seen := map[uint32]string{}
	for key, r := range pgRelations {
		if other, dup := seen[r.oid]; dup {
			t.Errorf("%s and %s share OID %d", key, other, r.oid)
		}
		seen[r.oid] = key
		if r.oid >= oidWeirSchema {
			t.Errorf("%s: OID %d is among weir's own", key, r.oid)
		}
		if c, ok := catalogOIDs[strings.TrimPrefix(key, "pg_catalog.")]; ok && c != r.oid {
			t.Errorf("%s: OID %d, catalogOIDs says %d", key, r.oid, c)
		}
	}
	class, _ := Rows(p, PgCatalog, "pg_class")
	attrs, _ := Rows(p, PgCatalog, "pg_attribute")
	find := func(name string) types.Row {
		for _, r := range class {
			if r[1].S == name {
				return r
			}
		}
		return nil
	}
	for _, c := range []struct {
		name string
		oid  int64
		nsp  int64
		kind string
	}{{"pg_class", 1259, oidPgCatalog, "r"}, {"pg_stat_activity", int64(pgRelations["pg_catalog.pg_stat_activity"].oid), oidPgCatalog, "v"},
		{"schemata", int64(pgRelations["information_schema.schemata"].oid), oidInfoSchema, "v"}} {
		r := find(c.name)
		if r == nil {
			t.Errorf("pg_class has no %s", c.name)
			continue
		}
		if r[0].I != c.oid || r[2].I != c.nsp || r[16].S != c.kind {
			t.Errorf("pg_class row of %s: oid %d, namespace %d, kind %s; want %d, %d, %s", c.name, r[0].I, r[2].I, r[16].S, c.oid, c.nsp, c.kind)
		}
	}
	// pg_class's relname is its second column, NOT NULL; its relacl
	// nullable.
	var names []string
	for _, a := range attrs {
		if a[0].I == 1259 {
			names = append(names, a[1].S)
			if (a[1].S == "relname" && a[13].I != 1) || (a[1].S == "relacl" && a[13].I != 0) {
				t.Errorf("pg_attribute: pg_class.%s attnotnull %d", a[1].S, a[13].I)
			}
			if a[1].S == "relname" && a[5].I != 2 {
				t.Errorf("pg_class.relname is attnum %d", a[5].I)
			}
		}
	}
	if len(names) != len(visibleSysCols(tables["pg_catalog.pg_class"])) || slices.Contains(names, "tableoid") {
		t.Errorf("pg_attribute lists pg_class's columns as %v", names)
	}
	if oid, ok := RelationOID("", "pg_stat_activity"); !ok || oid != pgRelations["pg_catalog.pg_stat_activity"].oid {
		t.Errorf("RelationOID(pg_stat_activity) = %d, %v", oid, ok)
	}
	if v, _ := Describe(p, "pg_table_is_visible", 1259, 0); v != "t" {
		t.Errorf("pg_class not visible: %q", v)
	}
	tablesOID := pgRelations["information_schema.tables"].oid
	if v, _ := Describe(p, "regclassout", tablesOID, 0); v != "information_schema.tables" {
		t.Errorf("regclassout of information_schema.tables: %q", v)
	}
	if v, _ := Describe(p, "pg_table_is_visible", tablesOID, 0); v != "f" {
		t.Errorf("information_schema.tables visible off the search path: %q", v)
	}
}
