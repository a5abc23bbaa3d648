package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCheckpoint copies a database that keeps being written: the copy
// holds exactly the batches committed before the checkpoint, opens as a
// data directory of its own, and a checkpoint into a non-empty directory
// is refused.
func TestCheckpoint(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	defer db.Close()
	commit := func(epoch uint64, k int64, v string) {
		t.Helper()
		b := db.NewBatch()
		if err := b.Put(7, key(k), row(k, v), testTypes); err != nil {
			t.Fatal(err)
		}
		if err := b.SetCommittedEpoch(epoch); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	commit(1, 1, "a")
	commit(2, 2, "b")
	if err := db.Checkpoint("/copy"); err != nil {
		t.Fatal(err)
	}
	commit(3, 3, "c")
	if err := db.Checkpoint("/copy"); err == nil {
		t.Fatal("a checkpoint into a non-empty directory was accepted")
	}

	cp, err := Open("/copy", Options{FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if e, err := cp.CommittedEpoch(); err != nil || e != 2 {
		t.Fatalf("the copy's committed epoch: %d, %v", e, err)
	}
	snap := cp.NewSnapshot()
	defer snap.Close()
	if got := dump(t, snap.Scan(7, testTypes)); got != "1=a 2=b" {
		t.Fatalf("the copy holds %q", got)
	}
}
