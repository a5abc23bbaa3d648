package storage

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPebbleShareAddsUp checks that Pebble's share is an eighth of the
// budget within its bounds, and that, split into its block cache and
// memtables, it stays within it. (TestBudgetSharesAddUp checks the
// budget's other shares.)
func TestPebbleShareAddsUp(t *testing.T) {
	for _, mb := range []int64{1, 16, 32, 64, 100, 256, 1000, 4096, 8192, 65536} {
		budget := mb << 20
		share := PebbleShare(budget)
		if share < minPebbleBytes || share > maxPebbleBytes {
			t.Errorf("budget %d MiB: Pebble's share %d outside [%d, %d]", mb, share, minPebbleBytes, maxPebbleBytes)
		}
		if mb >= 256 && mb <= 8192 && share != budget/8 {
			t.Errorf("budget %d MiB: Pebble's share %d, want an eighth (%d)", mb, share, budget/8)
		}
		cache, memTable := pebbleSizes(share)
		if cache <= 0 || memTable <= 0 || cache+memTables*memTable > share {
			t.Errorf("budget %d MiB: cache %d and %d memtables of %d exceed Pebble's share %d", mb, cache, memTables, memTable, share)
		}
	}
	if _, m := pebbleSizes(PebbleShare(256 << 20)); m != 4<<20 {
		t.Errorf("memtable size at the default budget %d, want Pebble's default 4 MiB", m)
	}
}

// TestPebbleMemoryWithinShare writes and then reads back 48 MiB of
// incompressible values, far more than an 8 MiB Options.PebbleBytes,
// and requires Pebble's memory (block cache and memtables,
// DB.PebbleMemory) to stay within it all along. (With the fixed 64 MiB
// block cache it had, the read alone filled the cache to 48 MiB.)
func TestPebbleMemoryWithinShare(t *testing.T) {
	const share = 8 << 20
	db, err := Open("/data", Options{FS: vfs.NewMem(), Logger: quiet, PebbleBytes: share})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n, size = 48 << 10, 1 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, size)
	peak := int64(0)
	for i := 0; i < n; i += 256 {
		b := db.pdb.NewBatch()
		for j := i; j < i+256; j++ {
			for k := 0; k < size; k += 8 {
				binary.LittleEndian.PutUint64(val[k:], rng.Uint64())
			}
			if err := b.Set(binary.BigEndian.AppendUint64([]byte{0x7f}, uint64(j)), val, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, db.PebbleMemory())
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	it, err := db.pdb.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for ok := it.First(); ok; ok = it.Next() {
		read++
		if read%1024 == 0 {
			peak = max(peak, db.PebbleMemory())
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if read != n {
		t.Fatalf("read %d keys, wrote %d", read, n)
	}
	peak = max(peak, db.PebbleMemory())
	t.Logf("Pebble's share %d MiB, peak %.1f MiB", share>>20, float64(peak)/(1<<20))
	if peak > share {
		t.Errorf("Pebble held %d bytes, over its share of %d", peak, share)
	}
}
