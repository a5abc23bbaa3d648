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
