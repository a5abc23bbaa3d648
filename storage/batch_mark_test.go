package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestBatchRollbackTo: rolling a batch back to a mark forgets exactly the
// writes made after it (puts, deletes and range deletions), reads see the
// state at the mark, the batch keeps working afterwards and commits only
// what survived.
func TestBatchRollbackTo(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	seed := db.NewBatch()
	if err := seed.Put(7, key(9), row(9, "committed"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := seed.Commit(); err != nil {
		t.Fatal(err)
	}

	b := db.NewBatch()
	defer b.Close()
	empty := b.Mark()
	if err := b.Put(7, key(1), row(1, "a"), testTypes); err != nil {
		t.Fatal(err)
	}
	m := b.Mark()
	if err := b.Put(7, key(1), row(1, "changed"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(7, key(2), row(2, "b"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(7, key(9)); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b.Scan(7, testTypes)); got != "1=changed 2=b" {
		t.Fatalf("before RollbackTo: %q", got)
	}
	if err := b.RollbackTo(m); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b.Scan(7, testTypes)); got != "1=a 9=committed" {
		t.Fatalf("after RollbackTo(m): %q", got)
	}
	if b.Len() != 1 {
		t.Fatalf("Len after RollbackTo(m) = %d, want 1", b.Len())
	}
	m = b.Mark()
	if err := b.DeleteRange(7); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b.Scan(7, testTypes)); got != "" {
		t.Fatalf("after DeleteRange: %q", got)
	}
	if err := b.RollbackTo(m); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(7, key(3), row(3, "c"), testTypes); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b.Scan(7, testTypes)); got != "1=a 3=c 9=committed" {
		t.Fatalf("after second RollbackTo and Put: %q", got)
	}

	other := db.NewBatch()
	if err := other.Put(7, key(4), row(4, "d"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := other.RollbackTo(empty); err != nil {
		t.Fatal(err)
	}
	if other.Len() != 0 {
		t.Fatalf("Len after RollbackTo(empty) = %d", other.Len())
	}
	other.Close()

	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, db, 7); got != "1=a 3=c 9=committed" {
		t.Fatalf("committed: %q", got)
	}
}
