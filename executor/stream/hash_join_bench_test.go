package stream

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// genInputs is a joinReader producing an endless workload: chunks of
// 1,024 inserts, alternately left and right, with join keys cycling over
// keys values, and a barrier after every 16 chunks.
type genInputs struct {
	keys    int64
	ids     [2]int64
	chunks  int
	epoch   uint64
	started bool
}

func (g *genInputs) next(ctx context.Context) (int, types.Message, error) {
	if !g.started || g.chunks == 16 {
		g.started = true
		g.chunks = 0
		g.epoch++
		return 0, types.Barrier{Epoch: types.Epoch{Prev: g.epoch - 1, Curr: g.epoch}}, nil
	}
	side := g.chunks % 2
	g.chunks++
	c := types.NewChunk(joinSideTypes, 1024)
	for i := 0; i < 1024; i++ {
		id := g.ids[side]
		g.ids[side]++
		c.AppendRow(types.OpInsert, types.Row{types.DInt(id), types.DInt(id % g.keys), types.DInt(id)})
	}
	return side, c, nil
}

func (g *genInputs) close() {}

// BenchmarkHashJoinInner measures input rows per second through an inner
// join over 100k distinct keys (each input row matches at most one row
// of the other side per pass over the keys), committing every epoch to
// an in-memory Pebble under a 64 MiB cache.
func BenchmarkHashJoinInner(b *testing.B) {
	db, err := storage.Open("data", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	actx := joinActx(db)
	actx.Cache = storage.NewCache(64 << 20)
	op, err := NewHashJoin(actx, &joinInput{}, &joinInput{}, joinNode(planner.InnerJoin, nil))
	if err != nil {
		b.Fatal(err)
	}
	j := op.(*HashJoin)
	g := &genInputs{keys: 100_000}
	j.in = g
	defer j.Close()
	b.ResetTimer()
	start := time.Now()
	rows, out := 0, 0
	for rows < b.N {
		m, err := j.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		switch x := m.(type) {
		case *types.Chunk:
			out += x.Len()
		case types.Barrier:
			if err := actx.WriteSet.Commit(); err != nil {
				b.Fatal(err)
			}
			actx.WriteSet = db.NewBatch()
		}
		rows = int(g.ids[0] + g.ids[1])
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(float64(out)/float64(rows), "out/row")
}
