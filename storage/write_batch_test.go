package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestWriteBatch: a write-only batch's writes reach the database through
// Apply (as an actor's write set reaches the checkpoint) or its own
// Commit, and reading it fails instead of answering wrongly.
func TestWriteBatch(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	ws := db.NewWriteBatch()
	if err := ws.Put(7, key(1), row(1, "a"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := ws.Put(7, key(2), row(2, "b"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := ws.Delete(7, key(1)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Get(7, key(2), testTypes); pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("Get on a write-only batch: %v", err)
	}
	it := ws.Scan(7, testTypes)
	if _, err := it.Next(); pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("Scan on a write-only batch: %v", err)
	}
	it.Close()
	cp := db.NewBatch()
	if err := cp.Apply(ws); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	if err := cp.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, db, 7); got != "2=b" {
		t.Fatalf("after Apply: %q", got)
	}
	ws = db.NewWriteBatch()
	if err := ws.Put(7, key(3), row(3, "c"), testTypes); err != nil {
		t.Fatal(err)
	}
	if err := ws.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, db, 7); got != "2=b 3=c" {
		t.Fatalf("after Commit: %q", got)
	}
}
