package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/types"
)

// TestMissingValues: once a table is registered, rows written before its
// added column are read with the column's missing value through
// snapshots and batches, and rows written after by readers that do not
// know the column; an unregistered table's rows stay strict.
func TestMissingValues(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	b := db.NewBatch()
	if err := b.Put(1, key(1), row(1, "old"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	wide := []types.T{types.TInt8, types.TText, types.TInt4}
	db.SetMissing(1, types.Row{types.NullDatum, types.NullDatum, types.DInt(42)})
	b = db.NewBatch()
	defer b.Close()
	if err := b.Put(1, key(2), types.Row{types.DInt(2), types.DString("new"), types.DInt(5)}, wide); err != nil {
		t.Fatal(err)
	}
	read := func(it RowIter) []types.Row {
		defer it.Close()
		var out []types.Row
		for {
			r, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if r == nil {
				return out
			}
			out = append(out, r)
		}
	}
	rows := read(b.Scan(1, wide))
	if len(rows) != 2 || rows[0][2].I != 42 || rows[1][2].I != 5 {
		t.Fatalf("batch scan: %v", rows)
	}
	if r, ok, err := b.Get(1, key(1), wide); err != nil || !ok || r[2].I != 42 {
		t.Fatalf("batch get: %v %v %v", r, ok, err)
	}
	if got := dump(t, b.Scan(1, testTypes)); got != "1=old 2=new" {
		t.Fatalf("narrow scan: %s", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	s := db.NewSnapshot()
	defer s.Close()
	if rows := read(s.Scan(1, wide)); len(rows) != 2 || rows[0][2].I != 42 {
		t.Fatalf("snapshot scan: %v", rows)
	}
	// Table 2 is not registered: a row wider than the reader's types is
	// corrupt there.
	b2 := db.NewBatch()
	defer b2.Close()
	if err := b2.Put(2, key(1), types.Row{types.DInt(1), types.DString("x"), types.DInt(1)}, wide); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b2.Get(2, key(1), testTypes); err == nil {
		t.Fatal("an unregistered table's wide row decoded")
	}
}
