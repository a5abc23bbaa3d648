package storage

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// spillRows writes n rows (1, i) = text of i into st, in a cache small
// enough that they spill.
func spillRows(st *StateTable, n int, tag string) {
	for i := 0; i < n; i++ {
		st.Insert(stKey(1, int64(i)), stRow(1, int64(i), fmt.Sprintf("%s%d", tag, i)))
	}
}

// TestSpillBoundsDirtyState writes far more in one epoch than the cache
// holds: the dirty entries are flushed early (the table's memory stays
// near the budget), the table reads its own flushed writes, nothing of
// them is visible to a snapshot before the checkpoint commits, and all
// of them are after.
func TestSpillBoundsDirtyState(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(1 << 20)
	st := newST(db, cache)
	commitEpoch(t, db, st, 1)
	const n = 50_000
	spillRows(st, n, "v")
	if st.cstats.Spills.Load() == 0 {
		t.Fatal("no early flush")
	}
	if b := st.Bytes(); b > 2*cache.Budget() {
		t.Fatalf("table holds %d bytes with a budget of %d", b, cache.Budget())
	}
	st.Delete(stKey(1, 7))
	st.Update(stKey(1, 8), stRow(1, 8, "new"))
	if got := stGet(t, st, 1, 7) + " " + stGet(t, st, 1, 8) + " " + stGet(t, st, 1, 9); got != "<none> new v9" {
		t.Fatalf("reads of spilled writes = %s", got)
	}
	if got := stDump(t, st.IterRange(stKey(1, 5), stKey(1, 11), false)); got != "1/5=v5 1/6=v6 1/8=new 1/9=v9 1/10=v10" {
		t.Fatalf("Iter over spilled writes = %s", got)
	}
	if got := stDump(t, st.IterRange(stKey(1, 5), stKey(1, 11), true)); got != "1/10=v10 1/9=v9 1/8=new 1/6=v6 1/5=v5" {
		t.Fatalf("reverse Iter over spilled writes = %s", got)
	}
	snap := db.NewSnapshot()
	if n := count(t, snap, 42); n != 0 {
		t.Fatalf("a snapshot sees %d rows of an uncommitted epoch", n)
	}
	snap.Close()
	commitEpoch(t, db, st, 2)
	snap = db.NewSnapshot()
	defer snap.Close()
	if got := count(t, snap, 42); got != n-1 {
		t.Fatalf("after commit a snapshot sees %d rows, want %d", got, n-1)
	}
	if r, ok, _ := snap.Get(42, st.EncodeKey(nil, stKey(1, 8)), stRowTypes); !ok || r[2].S != "new" {
		t.Fatalf("after commit row 8 = %v %v", r, ok)
	}
	if sz, _ := db.SpillBytes(); sz != 0 {
		// Estimates of deleted ranges can lag; the marks must be gone.
		var marks int
		_ = scanPrefix(db.pdb, []byte{PrefixSpillMark}, func(_, _ []byte) error { marks++; return nil })
		if marks != 0 {
			t.Fatalf("%d spill marks left after the commit", marks)
		}
	}
}

// TestSpillDiscardedWithoutCommit flushes an epoch early and never
// commits it: after a crash (only synced data kept) and a reopen, and
// after ResolveSpills without one, the table holds only what committed.
func TestSpillDiscardedWithoutCommit(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openMem(t, fs)
	st := newST(db, NewCache(1<<20))
	st.Insert(stKey(2, 1), stRow(2, 1, "committed"))
	commitEpoch(t, db, st, 1)
	spillRows(st, 30_000, "lost")
	if st.cstats.Spills.Load() == 0 {
		t.Fatal("no early flush")
	}
	// The early flushes are not synced, but a later sync of the log (any
	// commit) would make them durable: force that case.
	b := db.NewBatch()
	_ = b.SetMeta("x", []byte("y"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.ResolveSpills(); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	db.Close()
	db = openMem(t, crashed)
	defer db.Close()
	st = newST(db, NewCache(1<<20))
	if got := stDump(t, st.Iter(nil, false)); got != "2/1=committed" {
		t.Fatalf("after discarding the uncommitted epoch: %.80s", got)
	}
}

// TestSpillCommittedSurvivesCrashBeforeMove commits an epoch that spilled
// and crashes before its spill areas are moved: the reopen moves them.
func TestSpillCommittedSurvivesCrashBeforeMove(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openMem(t, fs)
	st := newST(db, NewCache(1<<20))
	commitEpoch(t, db, st, 1)
	spillRows(st, 30_000, "kept")
	b := db.NewBatch()
	if err := st.Commit(b, 2); err != nil {
		t.Fatal(err)
	}
	// Commit the batch without the moves, as a crash right after the
	// commit's fsync would leave it.
	b.marks = nil
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	db.Close()
	db = openMem(t, crashed)
	defer db.Close()
	snap := db.NewSnapshot()
	defer snap.Close()
	if got := count(t, snap, 42); got != 30_000 {
		t.Fatalf("after the reopen the table has %d rows, want 30000", got)
	}
}

func count(t testing.TB, snap *Snapshot, id uint32) int {
	t.Helper()
	it := snap.Scan(id, stRowTypes)
	defer it.Close()
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return n
		}
		n++
	}
}

// TestSpillDroppedWithTable leaves early flushes of an epoch that never
// commits (a job stopped mid-epoch) and then deletes the table's range,
// as DROP and a job's rebuild do: its spill areas go too, instead of
// waiting on disk for the next recovery.
func TestSpillDroppedWithTable(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(1<<20))
	commitEpoch(t, db, st, 1)
	spillRows(st, 30_000, "gone")
	if st.cstats.Spills.Load() == 0 {
		t.Fatal("no early flush")
	}
	areas := func() int {
		n := 0
		_ = scanPrefix(db.pdb, []byte{PrefixSpill}, func(_, _ []byte) error { n++; return nil })
		return n
	}
	if areas() == 0 {
		t.Fatal("no spill area on disk")
	}
	b := db.NewBatch()
	if err := b.DeleteRange(42); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := areas(); n != 0 {
		t.Fatalf("%d spill entries left after the table's range was deleted", n)
	}
}

// TestLargeEpochCommitsThroughArea writes more in one epoch than an
// operator's share of the budget, though not enough to flush early:
// Commit writes the entries into a spill area, in pieces, and only the
// area's mark into the checkpoint's batch, which would otherwise copy
// them all; a small epoch still goes into the batch. Either way the rows
// are invisible until the batch commits and all there after.
func TestLargeEpochCommitsThroughArea(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(8 << 20)
	st := newST(db, cache)
	const n = 20_000
	spillRows(st, n, "v")
	if st.cstats.Spills.Load() != 0 {
		t.Fatal("flushed early within the budget")
	}
	if d := st.dirtyBytes; d < cache.OperatorBuffer() {
		t.Fatalf("only %d dirty bytes, want at least %d for the test", d, cache.OperatorBuffer())
	}
	b := db.NewBatch()
	if err := st.Commit(b, 1); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 1 {
		t.Fatalf("the checkpoint batch holds %d writes, want the area's mark alone", b.Len())
	}
	snap := db.NewSnapshot()
	if got := count(t, snap, 42); got != 0 {
		t.Fatalf("a snapshot sees %d rows before the commit", got)
	}
	snap.Close()
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(1)
	if got := stGet(t, st, 1, 7) + " " + stGet(t, st, 1, n-1); got != fmt.Sprintf("v7 v%d", n-1) {
		t.Fatalf("reads after the commit = %s", got)
	}
	st.Insert(stKey(2, 1), stRow(2, 1, "small"))
	b = db.NewBatch()
	if err := st.Commit(b, 2); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 1 || st.cstats.Spills.Load() != 1 {
		t.Fatalf("a one-row epoch: %d writes in the batch, %d flushes in all", b.Len(), st.cstats.Spills.Load())
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(2)
	snap = db.NewSnapshot()
	defer snap.Close()
	if got := count(t, snap, 42); got != n+1 {
		t.Fatalf("after the commits a snapshot sees %d rows, want %d", got, n+1)
	}
}

// TestLargeEpochKeepsWholeTable: a table holding all its rows in memory
// (Exclusive over an empty keyspace) whose epoch commits through a spill
// area within the budget keeps its entries, so it stays whole: it reads
// its rows from memory, before and after the area is moved, and a key it
// never wrote has no row without a Pebble lookup. The rows are in
// Pebble after the commit all the same, and a later epoch's writes to
// the same keys win over the moved area.
func TestLargeEpochKeepsWholeTable(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(8 << 20)
	st := newST(db, cache)
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	spillRows(st, n, "v")
	b := db.NewBatch()
	if err := st.Commit(b, 1); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 1 {
		t.Fatalf("the checkpoint batch holds %d writes, want the area's mark alone", b.Len())
	}
	if !st.whole || st.index.len() != n {
		t.Fatalf("after the commit through an area: whole %v, %d entries, want %d", st.whole, st.index.len(), n)
	}
	if got := stGet(t, st, 1, 7) + " " + stGet(t, st, 1, n+5); got != "v7 <none>" {
		t.Fatalf("reads before the batch commits = %s", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(1)
	st.Update(stKey(1, 8), stRow(1, 8, "new"))
	st.Delete(stKey(1, 9))
	commitEpoch(t, db, st, 2)
	if !st.whole {
		t.Fatal("the table is no longer whole")
	}
	if got := stDump(t, st.IterRange(stKey(1, 7), stKey(1, 11), false)); got != "1/7=v7 1/8=new 1/10=v10" {
		t.Fatalf("Iter = %s", got)
	}
	snap := db.NewSnapshot()
	defer snap.Close()
	if got := count(t, snap, 42); got != n-1 {
		t.Fatalf("after the commits a snapshot sees %d rows, want %d", got, n-1)
	}
	if r, ok, _ := snap.Get(42, st.EncodeKey(nil, stKey(1, 8)), stRowTypes); !ok || r[2].S != "new" {
		t.Fatalf("row 8 in Pebble = %v %v", r, ok)
	}
	// Read back by a table that does not hold it: Pebble has every row.
	st2 := newST(db, NewCache(8<<20))
	if got := stGet(t, st2, 1, 7) + " " + stGet(t, st2, 1, 9) + " " + stGet(t, st2, 1, n-1); got != fmt.Sprintf("v7 <none> v%d", n-1) {
		t.Fatalf("reads of a fresh table = %s", got)
	}
}
