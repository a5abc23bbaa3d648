package storage

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestAreaAfterResolveNotCommitted: an area being written when a
// recovery deleted the unmarked areas may lack writes, so a batch
// marking it refuses to commit (40001) and nothing of it shows; an area
// made after commits.
func TestAreaAfterResolveNotCommitted(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	a, err := db.NewArea(7)
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Put(key(1), row(1, "a"), testTypes)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.ResolveSpills(); err != nil {
		t.Fatal(err)
	}
	_ = a.Put(key(2), row(2, "b"), testTypes)
	b := db.NewBatch()
	if err := b.CommitArea(a, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); pgerr.CodeOf(err) != pgerr.SerializationFailure {
		t.Fatalf("committing an area a recovery cut short: %v", err)
	}
	if got := scanAll(t, db, 7); len(got) != 0 {
		t.Fatalf("rows of the refused area: %v", got)
	}
	a2, err := db.NewArea(7)
	if err != nil {
		t.Fatal(err)
	}
	_ = a2.Put(key(3), row(3, "c"), testTypes)
	b = db.NewBatch()
	if err := b.CommitArea(a2, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, db, 7); len(got) != 1 {
		t.Fatalf("rows of the committed area: %v", got)
	}
	if has, err := db.NewBatch().HasWrites(7); err != nil || has {
		t.Fatalf("a fresh batch has writes of table 7: %v, %v", has, err)
	}
}

// scanAll returns the committed rows of table id.
func scanAll(t *testing.T, db *DB, id uint32) []string {
	t.Helper()
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(id, testTypes)
	defer it.Close()
	var out []string
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return out
		}
		out = append(out, fmt.Sprint(r))
	}
}
