package catalog

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestTempSchemas checks that a relation made in a temporary schema is
// temporary, that a reopened catalog still holds it until DropTemp drops
// it with its rows, and that temporary schema numbers are reused.
func TestTempSchemas(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)
	s1, s2 := c.AddTempSchema(), c.AddTempSchema()
	if s1 != "pg_temp_1" || s2 != "pg_temp_2" {
		t.Fatalf("temporary schemas %s, %s; want pg_temp_1, pg_temp_2", s1, s2)
	}
	perm, tmp := table("t"), table("t")
	tmp.Schema = s1
	if err := c.Create(perm); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(tmp); err != nil {
		t.Fatal(err)
	}
	if perm.Temp || !tmp.Temp {
		t.Fatalf("Temp: permanent %v, temporary %v", perm.Temp, tmp.Temp)
	}
	other := table("u")
	other.Schema = "pg_temp_9"
	wantCode(t, c.Create(other), pgerr.InvalidSchemaName, `schema "pg_temp_9" does not exist`)

	b := db.NewBatch()
	ts := []types.T{types.TInt4, types.TVarchar, types.TInt8}
	key := types.AppendKey(nil, types.DInt(1), types.TInt8, false)
	_ = b.Put(perm.ID, key, types.Row{types.DInt(1), types.DString("p"), types.DInt(1)}, ts)
	_ = b.Put(tmp.ID, key, types.Row{types.DInt(2), types.DString("t"), types.DInt(1)}, ts)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}

	// A crash: the schemas are gone, the entry is not.
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	if got := c.TempSchemas(); len(got) != 0 {
		t.Fatalf("temporary schemas after reopen: %v", got)
	}
	if r, ok := c.ByID(tmp.ID); !ok || !r.Temp || r.Schema != s1 {
		t.Fatalf("temporary entry after reopen: %v %v", r, ok)
	}
	if n, err := c.DropTemp(); err != nil || n != 1 {
		t.Fatalf("DropTemp = %d, %v; want 1", n, err)
	}
	if _, ok := c.ByID(tmp.ID); ok {
		t.Fatal("DropTemp left the temporary relation")
	}
	if r, ok := c.Lookup("", "t"); !ok || r.ID != perm.ID {
		t.Fatalf("the permanent t after DropTemp: %v %v", r, ok)
	}
	snap := db.NewSnapshot()
	defer snap.Close()
	for _, id := range []uint32{perm.ID, tmp.ID} {
		it := snap.Scan(id, ts)
		r, err := it.Next()
		it.Close()
		if err != nil || (r != nil) != (id == perm.ID) {
			t.Fatalf("rows of relation %d after DropTemp: %v %v", id, r, err)
		}
	}
	if n, err := c.DropTemp(); err != nil || n != 0 {
		t.Fatalf("second DropTemp = %d, %v; want 0", n, err)
	}

	// Numbers are taken lowest first and given back.
	a, bb := c.AddTempSchema(), c.AddTempSchema()
	c.DropTempSchema(a)
	if again := c.AddTempSchema(); again != a || bb != "pg_temp_2" {
		t.Fatalf("schemas %s, %s, then %s after dropping the first", a, bb, again)
	}
	for name, want := range map[string]int{"pg_temp_3": 3, "pg_temp_": 0, "pg_temp_03": 0, "pg_temp_x": 0, "pg_temp": 0, "public": 0} {
		if n, ok := TempSchemaNumber(name); n != want || ok != (want > 0) {
			t.Errorf("TempSchemaNumber(%q) = %d, %v", name, n, ok)
		}
	}
}
