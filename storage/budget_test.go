package storage

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestBudgetSharesAddUp: from MinBudget to 8 GiB the fixed part,
// Pebble's share and the Go runtime's soft limit add up to the budget
// (so the whole process is within it), the state and DML shares leave
// the collector room within the Go limit, and Pebble's share is an
// eighth from 256 MiB up. Below MinBudget the Go limit stays at its
// floor.
func TestBudgetSharesAddUp(t *testing.T) {
	var prev Shares
	for _, mb := range []int64{1, 16, 32, 64, 100, 127, 128, 143, 144, 145, 151, 152, 153, 200, 215, 216, 217, 256, 300, 512, 1000, 1024, 4096, 8192} {
		budget := mb << 20
		s := BudgetShares(budget)
		if s.Budget != budget || s.Fixed <= 0 || s.Pebble <= 0 || s.State <= 0 || s.DML <= 0 {
			t.Fatalf("budget %d MiB: shares %+v", mb, s)
		}
		if s.GoLimit < minGoLimit {
			t.Errorf("budget %d MiB: Go limit %d below its floor %d", mb, s.GoLimit, minGoLimit)
		}
		if budget >= MinBudget {
			if sum := s.Fixed + s.Pebble + s.GoLimit; sum != budget {
				t.Errorf("budget %d MiB: fixed %d + Pebble %d + Go %d = %d, want the budget", mb, s.Fixed, s.Pebble, s.GoLimit, sum)
			}
		} else if s.GoLimit != minGoLimit {
			t.Errorf("budget %d MiB (below MinBudget): Go limit %d, want %d", mb, s.GoLimit, minGoLimit)
		}
		// The state and a DML statement's changes at their shares leave
		// the collector at least a third of the Go limit.
		if s.State+s.DML > s.GoLimit/3*2 {
			t.Errorf("budget %d MiB: state %d + DML %d exceed two thirds of the Go limit %d", mb, s.State, s.DML, s.GoLimit)
		}
		// The state and DML shares follow the budget below MinBudget
		// too, not the Go limit's floor: a small budget still means a
		// small state.
		if s.State+s.DML > budget/2 {
			t.Errorf("budget %d MiB: state %d + DML %d exceed half the budget", mb, s.State, s.DML)
		}
		if prev.Budget > 0 && (s.State < prev.State || s.DML < prev.DML) {
			t.Errorf("budget %d MiB: state %d, DML %d, less than at %d bytes (%d, %d)", mb, s.State, s.DML, prev.Budget, prev.State, prev.DML)
		}
		prev = s
		if mb >= 256 && s.Pebble != budget/8 {
			t.Errorf("budget %d MiB: Pebble's share %d, want an eighth", mb, s.Pebble)
		}
	}
}

// TestWriteSetCounted: an accounted batch's memory counts in the cache
// from the table's Commit into it until the batch is committed, and the
// writes of the next epoch, while it is pending, evict clean entries to
// make room for it. Without the count, the epoch's copies of its dirty
// entries came on top of a full budget.
func TestWriteSetCounted(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	const budget = 16 << 20
	cache := NewCache(budget)
	st := newST(db, cache)
	pad := strings.Repeat("p", 200)
	// Epoch 1 fills half the budget; once durable its entries are clean.
	i := int64(0)
	for ; cache.Used() < budget/2; i++ {
		st.Insert(stKey(i%7, i), stRow(i%7, i, pad))
	}
	commitEpoch(t, db, st, 1)
	if cache.WriteSets() != 0 {
		t.Fatalf("an unaccounted batch counts %d bytes", cache.WriteSets())
	}
	// Epoch 2 writes an eighth of the budget into an accounted batch.
	b := db.NewWriteBatch()
	b.Account(cache)
	for start := st.Bytes(); st.Bytes() < start+budget/8; i++ {
		st.Insert(stKey(i%7, i), stRow(i%7, i, pad))
	}
	if err := st.Commit(b, 2); err != nil {
		t.Fatal(err)
	}
	if b.Bytes() < budget/32 {
		t.Fatalf("the epoch's writes went elsewhere than the batch (%d bytes)", b.Bytes())
	}
	if got := cache.WriteSets(); got < int64(b.Bytes()) {
		t.Fatalf("after the commit into the batch: %d bytes of write sets counted, the batch holds %d", got, b.Bytes())
	}
	if got, want := cache.Used(), st.Bytes()+int64(b.Bytes()); got < want-usedBatch {
		t.Fatalf("cache counts %d bytes, the entries and the write set hold %d", got, want)
	}
	// Epoch 3, its checkpoint pending, writes three eighths of the
	// budget more: clean entries make room for them and the write set.
	st.Committed(1)
	for start := st.Bytes(); st.Bytes() < start+budget*3/8; i++ {
		st.Insert(stKey(i%7, i), stRow(i%7, i, pad))
		if st.Bytes() < start {
			break // entries evicted
		}
	}
	if got := st.Bytes() + int64(b.Bytes()); got > budget+2*usedBatch {
		t.Fatalf("the entries (%d bytes) and the pending write set (%d) hold %d bytes, over the budget %d", st.Bytes(), b.Bytes(), got, budget)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := cache.WriteSets(); got != 0 {
		t.Fatalf("after the batch's commit %d bytes of write sets still counted", got)
	}

	// A write set that grows (Apply) is counted as it grows, and a
	// closed one no more.
	src := db.NewWriteBatch()
	for j := range int64(100) {
		if err := src.Put(42, st.EncodeKey(nil, stKey(0, j)), stRow(0, j, pad), stRowTypes); err != nil {
			t.Fatal(err)
		}
	}
	dst := db.NewWriteBatch()
	dst.Account(cache)
	if err := dst.Apply(src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	if got := cache.WriteSets(); got < int64(dst.Bytes()) {
		t.Fatalf("after Apply: %d bytes counted, the batch holds %d", got, dst.Bytes())
	}
	dst.Close()
	if got := cache.WriteSets(); got != 0 {
		t.Fatalf("after Close: %d bytes still counted", got)
	}
}

// TestWriteSetDroppedReleased: an accounted batch dropped without Close
// (an epoch a recovery discarded) leaves the count once the collector
// frees it, so a leak cannot shrink the state's budget for good.
func TestWriteSetDroppedReleased(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(1 << 20)
	func() {
		b := db.NewWriteBatchSize(64 << 10)
		b.Account(cache)
	}()
	if cache.WriteSets() == 0 {
		t.Fatal("the batch was not counted")
	}
	// Cleanups run on a goroutine of their own after the collection that
	// frees their object: collect and yield until it has run (a bounded
	// number of times, not a duration).
	for range 100 {
		runtime.GC()
		runtime.Gosched()
		if cache.WriteSets() == 0 {
			return
		}
	}
	t.Fatalf("a dropped batch still counts %d bytes", cache.WriteSets())
}

// freeSlotBytes is the bytes of the table's released slab slots, which
// stay counted until reused.
func (t *StateTable) freeSlotBytes() int64 { return int64(len(t.slab.free)) * slotBytes }

// TestReleasedSlotsCounted: a table goes on counting the slots of the
// entries it let go, which the slab keeps allocated, until new entries
// reuse them. Counted only while held, an evicted table's slab fell out
// of the budget.
func TestReleasedSlotsCounted(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(256 << 20)
	st := newST(db, cache)
	// Held whole, the table lets a durable deletion's entry go.
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	for i := range int64(3000) {
		st.Insert(stKey(1, i), stRow(1, i, "x"))
	}
	commitEpoch(t, db, st, 1)
	full := st.Bytes()
	for i := range int64(3000) {
		st.Delete(stKey(1, i))
	}
	commitEpoch(t, db, st, 2)
	st.Get(stKey(0, 0))
	if got := st.Bytes(); got < 3000*slotBytes {
		t.Fatalf("after 3,000 entries left: the table counts %d bytes, their slots hold %d", got, 3000*slotBytes)
	}
	if d := st.Bytes() - cache.Used(); d != 0 {
		t.Fatalf("table %d bytes, cache %d", st.Bytes(), cache.Used())
	}
	// New entries reuse the slots: the count does not grow by them twice.
	for i := range int64(3000) {
		st.Insert(stKey(2, i), stRow(2, i, "x"))
	}
	commitEpoch(t, db, st, 3)
	if got := st.Bytes(); got > full+full/8 {
		t.Fatalf("3,000 entries in reused slots count %d bytes, in new ones %d", got, full)
	}
}
