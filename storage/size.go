package storage

import (
	"github.com/weirdb/weir/internal/pgerr"
)

// sizeScanBelow is the on-disk estimate below which TableBytes counts a
// table's entries one by one: Pebble's estimate leaves out what is still
// in memtables, all of a small or freshly written table.
const sizeScanBelow = 64 << 20

// TableBytes returns the size in bytes of the committed entries of
// tableID (a table, an index or a state table), for pg_relation_size
// and its kin. A large table is measured by Pebble's estimate of its
// sstables (compressed, as on disk); a small one, whose entries may not
// be flushed yet, by the sum of its keys' and values' lengths, read in a
// snapshot — whichever is larger.
func (db *DB) TableBytes(tableID uint32) (int64, error) {
	start := TablePrefix(tableID)
	est, err := db.pdb.EstimateDiskUsage(start, prefixEnd(start))
	if err != nil {
		return 0, pgerr.Wrap(pgerr.IOError, err, "estimating a table's size")
	}
	if est >= sizeScanBelow {
		return int64(est), nil
	}
	snap := db.NewSnapshot()
	defer snap.Close()
	var n int64
	err = snap.ScanPrefix(start, func(k, v []byte) error {
		n += int64(len(k) + len(v))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return max(n, int64(est)), nil
}
