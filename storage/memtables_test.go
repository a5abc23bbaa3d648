package storage

import (
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestMemTablesRampQueueShort commits 40 MiB in checkpoint-sized
// batches to a database whose memtables grow to 16 MiB, and requires
// that after each commit the memtables a read searches come back to
// maxQueuedMemTables: without rampMemTables, Pebble keeps the small
// memtables of its ramp queued until together they hold 8 MiB, six of
// them at the end.
func TestMemTablesRampQueueShort(t *testing.T) {
	db, err := Open("/data", Options{FS: vfs.NewMem(), Logger: quiet, PebbleBytes: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pad := strings.Repeat("x", 1000)
	const perBatch = 256
	for i := int64(0); i < 40<<10; i += perBatch {
		b := db.NewBatch()
		for j := i; j < i+perBatch; j++ {
			// Spread keys, as an INSERT of random ids writes them.
			if err := b.Put(7, key(j*7919%(40<<10)), row(j, pad), testTypes); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		// The flush is asynchronous: wait for the queue to drain, long
		// enough for a loaded machine.
		n := db.pdb.Metrics().MemTable.Count
		for deadline := time.Now().Add(5 * time.Second); n > maxQueuedMemTables && time.Now().Before(deadline); n = db.pdb.Metrics().MemTable.Count {
			time.Sleep(time.Millisecond)
		}
		if n > maxQueuedMemTables {
			t.Fatalf("after %d MiB committed, a read searches %d memtables, want at most %d", db.ramp.committed.Load()>>20, n, maxQueuedMemTables)
		}
	}
	if !db.ramp.done.Load() {
		t.Errorf("the ramp check still runs after %d MiB committed (until %d MiB)", db.ramp.committed.Load()>>20, db.ramp.until>>20)
	}
}
