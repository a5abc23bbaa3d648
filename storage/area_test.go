package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/types"
)

// TestAreaLayersAndCommit: a batch reads a table's areas over its own
// writes and the committed rows (newer areas first, deletions hiding
// rows); nothing of an area is visible before the batch marking it
// commits, all of it is after, a crash before the commit leaves nothing
// and a discarded area is gone.
func TestAreaLayersAndCommit(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openMem(t, fs)
	base := db.NewBatch()
	for i := int64(1); i <= 4; i++ {
		_ = base.Put(7, key(i), row(i, fmt.Sprint("c", i)), testTypes)
	}
	if err := base.Commit(); err != nil {
		t.Fatal(err)
	}

	view := db.NewBatch()
	epoch := db.NewWriteBatch()
	for _, b := range []*Batch{view, epoch} {
		_ = b.Put(7, key(1), row(1, "batch"), testTypes)
		_ = b.Put(7, key(5), row(5, "batch"), testTypes)
	}
	a1, err := db.NewArea(7)
	if err != nil {
		t.Fatal(err)
	}
	_ = a1.Put(key(1), row(1, "a1"), testTypes)
	_ = a1.Delete(key(2))
	_ = a1.Put(key(6), row(6, "a1"), testTypes)
	if err := a1.Flush(); err != nil {
		t.Fatal(err)
	}
	view.AddArea(a1)
	a2, _ := db.NewArea(7)
	_ = a2.Put(key(6), row(6, "a2"), testTypes)
	_ = a2.Delete(key(3))
	_ = a2.Put(key(2), row(2, "a2"), testTypes)
	if err := a2.Flush(); err != nil {
		t.Fatal(err)
	}
	view.AddArea(a2)
	want := "1=a1 2=a2 4=c4 5=batch 6=a2"
	if got := dump(t, view.Scan(7, testTypes)); got != want {
		t.Fatalf("view scan = %q, want %q", got, want)
	}
	if got := dump(t, view.ScanRange(7, key(2), key(6), testTypes)); got != "2=a2 4=c4 5=batch" {
		t.Fatalf("view range scan = %q", got)
	}
	for i, w := range []string{"a1", "a2", "", "c4", "batch", "a2"} {
		r, ok, err := view.Get(7, key(int64(i+1)), testTypes)
		if err != nil || ok != (w != "") || (ok && r[1].S != w) {
			t.Fatalf("view Get(%d) = %v %v %v, want %q", i+1, r, ok, err, w)
		}
	}
	if got := scan(t, db, 7); got != "1=c1 2=c2 3=c3 4=c4" {
		t.Fatalf("areas visible before their commit: %q", got)
	}

	// A crash before the commit: the areas vanish with the reopen.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	db2 := openMem(t, crashed)
	if got := scan(t, db2, 7); got != "1=c1 2=c2 3=c3 4=c4" {
		t.Fatalf("after a crash before the commit: %q", got)
	}
	n := 0
	if err := scanPrefix(db2.pdb, []byte{PrefixSpill}, func(_, _ []byte) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("%d spilled keys after the reopen: %v", n, err)
	}
	db2.Close()

	for _, a := range []*Area{a1, a2} {
		if err := epoch.CommitArea(a, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := epoch.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, db, 7); got != want {
		t.Fatalf("after the commit = %q, want %q", got, want)
	}
	crashed = fs.CrashClone(vfs.CrashCloneCfg{})
	db.Close()
	db = openMem(t, crashed)
	defer db.Close()
	if got := scan(t, db, 7); got != want {
		t.Fatalf("after a crash after the commit = %q, want %q", got, want)
	}

	a3, _ := db.NewArea(7)
	_ = a3.Put(key(9), row(9, "gone"), testTypes)
	_ = a3.Flush()
	if err := a3.Discard(); err != nil {
		t.Fatal(err)
	}
	v := db.NewBatch()
	v.AddArea(a3)
	if got := dump(t, v.Scan(7, testTypes)); got != want {
		t.Fatalf("discarded area read: %q", got)
	}
	v.Close()
}

// TestLogOrder: a log gives its records back in the order appended,
// across its buffered writes.
func TestLogOrder(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	l, err := db.NewLog()
	if err != nil {
		t.Fatal(err)
	}
	const n = 100_000
	for i := 0; i < n; i++ {
		if err := l.Append(types.AppendRow(nil, row(int64(n-i), "x"), testTypes)); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	err = l.Each(func(rec []byte) error {
		r, err := types.DecodeRow(rec, testTypes)
		if err == nil && r[0].I != int64(n-i) {
			err = fmt.Errorf("record %d is %d", i, r[0].I)
		}
		i++
		return err
	})
	if err != nil || i != n {
		t.Fatalf("read %d records: %v", i, err)
	}
	if err := l.Discard(); err != nil {
		t.Fatal(err)
	}
	if err := l.Each(func([]byte) error { return fmt.Errorf("a record after Discard") }); err != nil {
		t.Fatal(err)
	}
}

// TestAreaKeyBounds: an area answers keys outside the range it wrote
// without a lookup, and still finds its first and last keys, a deletion
// among them and the empty key.
func TestAreaKeyBounds(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	a, err := db.NewArea(7)
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := a.get(key(1), testTypes); found || err != nil {
		t.Fatalf("an empty area found a key: %v", err)
	}
	_ = a.Put(key(6), row(6, "a"), testTypes)
	_ = a.Delete(key(7))
	_ = a.Put(key(5), row(5, "a"), testTypes)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int64]string{4: "missing", 5: "row", 6: "row", 7: "deleted", 8: "missing"} {
		r, found, err := a.get(key(i), testTypes)
		got := "missing"
		if found {
			got = "deleted"
			if r != nil {
				got = "row"
			}
		}
		if err != nil || got != want {
			t.Errorf("get(%d) = %s (%v), want %s", i, got, err, want)
		}
	}
	e, _ := db.NewArea(8)
	_ = e.Put([]byte{}, row(1, "empty"), testTypes)
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if r, found, err := e.get([]byte{}, testTypes); !found || r == nil || err != nil {
		t.Errorf("the empty key: %v %v %v", r, found, err)
	}
}

// TestBatchGetAboveTop: a batch answers keys above a table's largest
// one without a lookup, and still finds a key that its own write, the
// commit of another batch or the move of a committed area put above
// the largest it had seen.
func TestBatchGetAboveTop(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	view := db.NewBatch()
	defer view.Close()
	view.gets.Store(topAfterGets) // the tops from the first lookup
	has := func(i int64) bool {
		t.Helper()
		_, ok, err := view.Get(7, key(i), testTypes)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if has(1) {
		t.Fatal("an empty table has key 1")
	}
	_ = view.Put(7, key(2), row(2, "view"), testTypes)
	if !has(2) || has(3) {
		t.Fatal("the batch's own write")
	}
	other := db.NewBatch()
	_ = other.Put(7, key(5), row(5, "other"), testTypes)
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	if !has(5) || has(6) {
		t.Fatal("another batch's commit")
	}
	a, _ := db.NewArea(7)
	_ = a.Put(key(9), row(9, "area"), testTypes)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	epoch := db.NewWriteBatch()
	if err := epoch.CommitArea(a, 1); err != nil {
		t.Fatal(err)
	}
	if has(9) {
		t.Fatal("an area seen before its commit")
	}
	if err := epoch.Commit(); err != nil {
		t.Fatal(err)
	}
	if !has(9) || has(10) {
		t.Fatal("a moved area")
	}
	if err := view.Set(TableKey(7, key(12)), types.AppendRow(nil, row(12, "raw"), testTypes)); err != nil {
		t.Fatal(err)
	}
	if !has(12) {
		t.Fatal("a raw write")
	}
}

// TestAreaFilter: an area's Bloom filter never hides a key written to
// it (rows and deletions, in random order, past the flushes of its
// batches) and rules out most keys inside its bounds that it never
// held, so that a statement's key checks skip the lookup.
func TestAreaFilter(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	a, err := db.NewArea(7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(n) {
		// Even keys only: the odd ones lie inside the bounds, unheld.
		k := key(int64(2 * i))
		if i%3 == 0 {
			err = a.Delete(k)
		} else {
			err = a.Put(k, row(int64(i), "v"), testTypes)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < n; i++ {
		r, found, err := a.get(key(2*i), testTypes)
		if err != nil || !found || (r == nil) != (i%3 == 0) {
			t.Fatalf("key %d: row %v, found %v, err %v", 2*i, r, found, err)
		}
	}
	maybe := 0
	for i := int64(0); i < n; i++ {
		if a.mayHold(key(2*i + 1)) {
			maybe++
		}
		if _, found, err := a.get(key(2*i+1), testTypes); found || err != nil {
			t.Fatalf("key %d, never written, found (%v)", 2*i+1, err)
		}
	}
	if maybe > n/20 {
		t.Errorf("the filter let %d of %d keys never written through", maybe, n)
	}
}

// TestBatchFewGetsNoTop: a batch's first lookups find their keys
// without finding the table's largest key, which a single-row INSERT's
// one key check would pay for in every statement; later ones keep it.
func TestBatchFewGetsNoTop(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	w := db.NewBatch()
	_ = w.Put(7, key(3), row(3, "three"), testTypes)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	view := db.NewBatch()
	defer view.Close()
	for i := range int64(topAfterGets) {
		if _, ok, err := view.Get(7, key(3+i), testTypes); err != nil || ok != (i == 0) {
			t.Fatalf("lookup %d: found %v, %v", i, ok, err)
		}
	}
	if view.tops != nil {
		t.Fatalf("the table's largest key found by the first %d lookups", topAfterGets)
	}
	if _, ok, err := view.Get(7, key(10), testTypes); err != nil || ok {
		t.Fatalf("lookup past the first: found %v, %v", ok, err)
	}
	if _, ok := view.tops[7]; !ok {
		t.Fatal("the table's largest key not kept after the first lookups")
	}
}
