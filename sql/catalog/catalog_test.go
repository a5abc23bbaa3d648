package catalog

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func open(t *testing.T, fs vfs.FS) (*storage.DB, *Catalog) {
	t.Helper()
	db, err := storage.Open("/data", storage.Options{FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(db)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db, c
}

func table(name string) *Relation {
	return &Relation{Name: name, Kind: KindTable, Cols: []Column{
		{Name: "a", T: types.TInt4, NotNull: true},
		{Name: "b", T: types.T{ID: types.Varchar, Mod: 14}, Default: "'x'"},
		{Name: "_row_id", T: types.TInt8, Hidden: true},
	}, PK: []int{2}, SQL: "CREATE TABLE " + name + " (a int NOT NULL, b varchar(10) DEFAULT 'x')",
		With: map[string]string{"appendonly": "false"}}
}

func wantCode(t *testing.T, err error, code pgerr.Code, msg string) {
	t.Helper()
	e := pgerr.As(err)
	if e == nil || e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("error = %v (%v), want %s %q", err, pgerr.CodeOf(err), code, msg)
	}
}

// describe renders the whole catalog, for comparing before and after a
// reopen.
func describe(c *Catalog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schemas %v\n", c.Schemas())
	for _, r := range c.All() {
		fmt.Fprintf(&b, "%d %s pk=%v deps=%v with=%v sql=%q\n", r.ID, r, r.PK, r.Deps, r.With, r.SQL)
		for _, col := range r.Cols {
			fmt.Fprintf(&b, "  %+v\n", col)
		}
	}
	return b.String()
}

func TestCreateLookupDropReopen(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)

	t1 := table("t")
	if err := c.Create(t1); err != nil {
		t.Fatal(err)
	}
	if t1.ID == 0 || t1.OID != FirstUserOID+t1.ID || t1.Schema != "public" {
		t.Fatalf("created %+v", t1)
	}
	wantCode(t, c.Create(table("t")), pgerr.DuplicateTable, `relation "t" already exists`)
	wantCode(t, c.Create(&Relation{Schema: "nope", Name: "x"}), pgerr.InvalidSchemaName, `schema "nope" does not exist`)
	wantCode(t, c.Create(&Relation{Schema: "pg_catalog", Name: "x"}), pgerr.InsufficientPrivilege, "")

	if err := c.CreateSchema("s"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.CreateSchema("s"), pgerr.DuplicateSchema, `schema "s" already exists`)
	wantCode(t, c.CreateSchema("public"), pgerr.DuplicateSchema, `schema "public" already exists`)
	wantCode(t, c.CreateSchema("information_schema"), pgerr.DuplicateSchema, "")
	st := table("t") // same name, other schema
	st.Schema = "s"
	if err := c.Create(st); err != nil {
		t.Fatal(err)
	}
	v := &Relation{Name: "v", Kind: KindView, Cols: []Column{{Name: "a", T: types.TInt4}}, SQL: "SELECT a FROM t", Deps: []uint32{t1.ID}}
	if err := c.Create(v); err != nil {
		t.Fatal(err)
	}

	if r, ok := c.Lookup("", "t"); !ok || r.ID != t1.ID {
		t.Fatalf("Lookup public.t = %v %v", r, ok)
	}
	if r, ok := c.Lookup("s", "t"); !ok || r.ID != st.ID {
		t.Fatalf("Lookup s.t = %v %v", r, ok)
	}
	if r, ok := c.ByOID(v.OID); !ok || r.Name != "v" {
		t.Fatalf("ByOID = %v %v", r, ok)
	}
	if deps := c.Dependents(t1.ID); len(deps) != 1 || deps[0].ID != v.ID {
		t.Fatalf("Dependents = %v", deps)
	}
	// The catalog keeps its own copy: changing the caller's struct later
	// changes nothing.
	t1.Cols[0].Name = "mutated"
	if r, _ := c.ByID(t1.ID); r.Cols[0].Name != "a" {
		t.Fatal("catalog shares the caller's columns")
	}

	// Rows of t, to check Drop removes them.
	b := db.NewBatch()
	ts := []types.T{types.TInt4, types.TVarchar, types.TInt8}
	_ = b.Put(t1.ID, types.AppendKey(nil, types.DInt(1), types.TInt8, false), types.Row{types.DInt(1), types.DString("x"), types.DInt(1)}, ts)
	_ = b.Put(st.ID, types.AppendKey(nil, types.DInt(1), types.TInt8, false), types.Row{types.DInt(2), types.DString("y"), types.DInt(1)}, ts)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}

	wantCode(t, c.Drop(t1.ID), pgerr.DependentObjectsStillExist, "cannot drop table t because other objects depend on it")
	wantCode(t, c.DropSchema("s"), pgerr.DependentObjectsStillExist, "cannot drop schema s because other objects depend on it")
	wantCode(t, c.Drop(9999), pgerr.UndefinedTable, "")

	before := describe(c)
	db.Close()
	db, c = open(t, fs)
	if after := describe(c); after != before {
		t.Fatalf("catalog changed across reopen:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// CASCADE: the table and its view in one call.
	if err := c.Drop(t1.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup("", "t"); ok {
		t.Fatal("dropped relation still found")
	}
	snap := db.NewSnapshot()
	it := snap.Scan(t1.ID, ts)
	if r, err := it.Next(); r != nil || err != nil {
		t.Fatalf("rows of dropped table remain: %v %v", r, err)
	}
	it.Close()
	it = snap.Scan(st.ID, ts)
	if r, err := it.Next(); r == nil || err != nil || r[1].S != "y" {
		t.Fatalf("rows of s.t lost: %v %v", r, err)
	}
	it.Close()
	snap.Close()

	// Ids are never reused, even after a restart.
	t2 := table("t")
	if err := c.Create(t2); err != nil {
		t.Fatal(err)
	}
	if t2.ID <= v.ID {
		t.Fatalf("new id %d reuses an old one (max was %d)", t2.ID, v.ID)
	}
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	if names := relNames(c); names != "public.t s.t" {
		t.Fatalf("after reopen: %s", names)
	}
}

func TestReplaceAndSchemas(t *testing.T) {
	db, c := open(t, vfs.NewMem())
	defer db.Close()
	a, b := table("a"), table("b")
	if err := c.Create(a); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(b); err != nil {
		t.Fatal(err)
	}
	r, _ := c.ByID(a.ID)
	changed := r.Clone()
	changed.Cols = append(changed.Cols, Column{Name: "c", T: types.TText})
	changed.Name = "a2"
	if err := c.Replace(changed); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup("", "a"); ok {
		t.Fatal("old name still found after rename")
	}
	if r, ok := c.Lookup("", "a2"); !ok || len(r.Cols) != 4 || r.OID != a.OID {
		t.Fatalf("replaced = %v", r)
	}
	taken := changed.Clone()
	taken.Name = "b"
	wantCode(t, c.Replace(taken), pgerr.DuplicateTable, `relation "b" already exists`)
	wantCode(t, c.Replace(&Relation{ID: 777, Name: "z"}), pgerr.UndefinedTable, "")

	if err := c.CreateSchema("z"); err != nil {
		t.Fatal(err)
	}
	if got := c.Schemas(); !slices.Equal(got, []string{"public", "z"}) {
		t.Fatalf("Schemas = %v", got)
	}
	if err := c.DropSchema("z"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.DropSchema("z"), pgerr.InvalidSchemaName, `schema "z" does not exist`)
	wantCode(t, c.DropSchema("public"), pgerr.InsufficientPrivilege, "")
}

func relNames(c *Catalog) string {
	var names []string
	for _, r := range c.All() {
		names = append(names, r.Schema+"."+r.Name)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// TestCrashConsistency runs random DDL against a crashable file system,
// crashes at random points (keeping a random part of the unsynced data)
// and checks the reopened catalog holds exactly the acknowledged changes
// and never reuses an id.
func TestCrashConsistency(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	fs := vfs.NewCrashableMem()
	db, c := open(t, fs)
	maxID := uint32(0)
	for round := range 8 {
		for range 1 + rng.IntN(6) {
			all := c.All()
			if len(all) > 0 && rng.IntN(3) == 0 {
				victim := all[rng.IntN(len(all))]
				if err := c.Drop(victim.ID); err != nil {
					t.Fatal(err)
				}
				continue
			}
			r := table(fmt.Sprintf("t%d_%d", round, rng.IntN(1000)))
			if err := c.Create(r); err != nil {
				if pgerr.CodeOf(err) == pgerr.DuplicateTable {
					continue
				}
				t.Fatal(err)
			}
			if r.ID <= maxID {
				t.Fatalf("id %d reused (max so far %d)", r.ID, maxID)
			}
			maxID = r.ID
		}
		want := describe(c)
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(100), RNG: rand.New(rand.NewPCG(uint64(round), 1))})
		db.Close()
		fs = crashed
		db, c = open(t, fs)
		if got := describe(c); got != want {
			t.Fatalf("round %d: catalog after crash differs:\ngot:\n%s\nwant:\n%s", round, got, want)
		}
	}
	db.Close()
}

// TestAlteredColumnsReopen: the columns ALTER TABLE leaves (added with a
// missing value, dropped, a renamed serial's sequence key) and the
// pinned columns of a dependent survive a reopen.
func TestAlteredColumnsReopen(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)
	rel := table("t")
	if err := c.Create(rel); err != nil {
		t.Fatal(err)
	}
	up := rel.Clone()
	seven := types.DInt(7)
	up.Cols[1] = Column{Name: DroppedName(2), T: up.Cols[1].T, Hidden: true, Dropped: true}
	up.Cols = append(up.Cols, Column{Name: "n", T: types.TInt4, Added: true, Missing: &seven, Default: "7"},
		Column{Name: "id2", T: types.TInt4, Seq: "t_id_seq", SeqKey: "id"})
	if err := c.Replace(up); err != nil {
		t.Fatal(err)
	}
	v := &Relation{Name: "v", Kind: KindView, Cols: []Column{{Name: "a", T: types.TInt4}}, SQL: "SELECT a FROM t",
		Deps: []uint32{rel.ID}, DepCols: map[uint32][]string{rel.ID: {"a", "b", "_row_id"}}}
	if err := c.Create(v); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	got, _ := c.Lookup("", "t")
	if !got.Cols[1].Dropped || !got.Cols[1].Hidden || got.Cols[1].Name != "........pg.dropped.2........" {
		t.Fatalf("dropped column after reopen: %+v", got.Cols[1])
	}
	n := got.Cols[3]
	if !n.Added || n.Missing == nil || n.Missing.I != 7 || n.Missing.Null {
		t.Fatalf("added column after reopen: %+v", n)
	}
	if got.Cols[4].SeqKey != "id" {
		t.Fatalf("sequence key after reopen: %+v", got.Cols[4])
	}
	m, ok := got.MissingRow()
	if !ok || m[3].I != 7 || !m[0].Null || len(m) != 5 {
		t.Fatalf("missing row: %v %v", m, ok)
	}
	gv, _ := c.Lookup("", "v")
	if names := gv.DepCols[rel.ID]; len(names) != 3 || names[1] != "b" {
		t.Fatalf("pinned columns after reopen: %v", gv.DepCols)
	}
}

// TestGeneration checks that every kind of change moves the generation
// on and that reads and refused changes do not.
func TestGeneration(t *testing.T) {
	db, c := open(t, vfs.NewMem())
	defer db.Close()
	last := c.Generation()
	step := func(what string, changed bool) {
		t.Helper()
		g := c.Generation()
		if changed && g <= last || !changed && g != last {
			t.Fatalf("%s: generation %d after %d, want changed=%v", what, g, last, changed)
		}
		last = g
	}
	tb := table("t")
	if err := c.Create(tb); err != nil {
		t.Fatal(err)
	}
	step("create", true)
	c.Lookup("", "t")
	c.All()
	step("reads", false)
	if err := c.Create(table("t")); err == nil {
		t.Fatal("duplicate create succeeded")
	}
	step("refused create", false)
	up := tb.Clone()
	up.Name = "u"
	if err := c.Replace(up); err != nil {
		t.Fatal(err)
	}
	step("replace", true)
	if err := c.CreateSchema("s"); err != nil {
		t.Fatal(err)
	}
	step("create schema", true)
	if err := c.Drop(tb.ID); err != nil {
		t.Fatal(err)
	}
	step("drop", true)
	if err := c.Drop(tb.ID); err == nil {
		t.Fatal("second drop succeeded")
	}
	step("refused drop", false)
}

// TestUnpopulatedReopen checks that a materialized view created WITH NO
// DATA stays unpopulated across a reopen, and populated once Replace
// clears the flag; an entry without the field (written before it
// existed) reads as populated.
func TestUnpopulatedReopen(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)
	rel := table("t")
	if err := c.Create(rel); err != nil {
		t.Fatal(err)
	}
	mv := &Relation{Name: "mv", Kind: KindMView, Cols: []Column{{Name: "a", T: types.TInt4}}, SQL: "SELECT a FROM t",
		Deps: []uint32{rel.ID}, Unpopulated: true}
	if err := c.Create(mv); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, c = open(t, fs)
	got, _ := c.Lookup("", "mv")
	if !got.Unpopulated {
		t.Fatal("unpopulated view reads back populated")
	}
	if got, _ := c.Lookup("", "t"); got.Unpopulated {
		t.Fatal("a relation recorded without the flag reads back unpopulated")
	}
	up := got.Clone()
	up.Unpopulated = false
	if err := c.Replace(up); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	if got, _ := c.Lookup("", "mv"); got.Unpopulated {
		t.Fatal("refreshed view reads back unpopulated")
	}
}
