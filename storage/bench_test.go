package storage

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// benchCommit measures durable (fsynced) batches of rowsPerBatch rows on
// the real file system; b.N counts batches and rows/s is reported.
func benchCommit(b *testing.B, rowsPerBatch int) {
	db, err := Open(b.TempDir(), Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ts := []types.T{types.TInt8, types.TText, types.TFloat8}
	r := types.Row{types.DInt(0), types.DString("a typical short text value"), types.DFloat(3.25)}
	var k []byte
	next := int64(0)
	b.ResetTimer()
	for range b.N {
		batch := db.NewBatch()
		for range rowsPerBatch {
			next++
			r[0] = types.DInt(next)
			k = types.AppendKey(k[:0], r[0], types.TInt8, false)
			if err := batch.Put(1, k, r, ts); err != nil {
				b.Fatal(err)
			}
		}
		if err := batch.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*rowsPerBatch)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkCommitSingleRow(b *testing.B) { benchCommit(b, 1) }

func BenchmarkCommit1kRows(b *testing.B) { benchCommit(b, 1000) }
