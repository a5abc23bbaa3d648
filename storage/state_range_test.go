package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/types"
)

// BenchmarkStateTableCloseWindows is a windowed aggregation's state: a
// whole table keyed by (window, group), 5,000 groups written per window,
// an epoch per window, and from the fourth window on each epoch closes
// the oldest one: by one range deletion (range) or a deletion per group
// (rows), each epoch committed to Pebble.
func BenchmarkStateTableCloseWindows(b *testing.B) {
	const groups, windows = 5000, 40
	for _, ranged := range []bool{true, false} {
		name := "rows"
		if ranged {
			name = "range"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				db := openMem(b, vfs.NewMem())
				st := newST(db, NewCache(256<<20))
				if err := st.Exclusive(); err != nil {
					b.Fatal(err)
				}
				st.SoleWriter()
				for w := int64(1); w <= windows; w++ {
					for g := range int64(groups) {
						st.Insert(stKey(w, g), stRow(w, g, "x"))
					}
					if closed := w - 3; closed > 0 {
						if !ranged || !st.DeleteBefore(types.DInt(closed+1)) {
							for g := range int64(groups) {
								st.Delete(stKey(closed, g))
							}
						}
					}
					commitEpoch(b, db, st, uint64(w))
				}
				db.Close()
			}
		})
	}
}

// TestStateTableWrites checks what StateTable.Writes counts: every
// write, including each row of a DeletePrefix and a range deletion
// (DeleteBefore), and nothing else: reads, commits and the release of
// committed entries leave the rows as they were.
func TestStateTableWrites(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(256<<20))
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	st.SoleWriter()
	step := func(what string, want uint64, f func()) {
		t.Helper()
		before := st.Writes()
		f()
		if got := st.Writes() - before; got != want {
			t.Errorf("%s: %d writes, want %d", what, got, want)
		}
	}
	step("inserts", 3, func() {
		st.Insert(stKey(1, 1), stRow(1, 1, "a"))
		st.Insert(stKey(1, 2), stRow(1, 2, "b"))
		st.Insert(stKey(2, 1), stRow(2, 1, "c"))
	})
	step("update and delete", 2, func() {
		st.Update(stKey(2, 1), stRow(2, 1, "d"))
		st.Delete(stKey(2, 1))
	})
	step("reads and a commit", 0, func() {
		if _, _, err := st.Get(stKey(1, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendRows(nil, types.Row{types.DInt(1)}); err != nil {
			t.Fatal(err)
		}
		commitEpoch(t, db, st, 1)
	})
	step("a prefix of two rows", 2, func() {
		if err := st.DeletePrefix(types.Row{types.DInt(1)}); err != nil {
			t.Fatal(err)
		}
	})
	st.Insert(stKey(3, 1), stRow(3, 1, "e"))
	step("a range deletion", 1, func() {
		if !st.DeleteBefore(types.DInt(4)) {
			t.Fatal("DeleteBefore declined")
		}
	})
}
