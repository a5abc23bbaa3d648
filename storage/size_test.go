package storage

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestTableBytes checks that a table's size counts its own entries only,
// both while they are in the memtable and once flushed to sstables.
func TestTableBytes(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	b := db.NewBatch()
	for i := int64(0); i < 1000; i++ {
		if err := b.Put(7, key(i), row(i, strings.Repeat("x", 100)), testTypes); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(0); i < 10; i++ {
		if err := b.Put(8, key(i), row(i, "y"), testTypes); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		big, err := db.TableBytes(7)
		if err != nil {
			t.Fatal(err)
		}
		small, err := db.TableBytes(8)
		if err != nil {
			t.Fatal(err)
		}
		none, err := db.TableBytes(9)
		if err != nil {
			t.Fatal(err)
		}
		if big < 100*1000 || small <= 0 || small > 1000 || none != 0 {
			t.Fatalf("%s: sizes of 1000 wide rows %d, 10 narrow rows %d, no rows %d", when, big, small, none)
		}
	}
	check("in the memtable")
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	check("flushed")
}
