package stream

import (
	"math/rand/v2"
	"testing"

	"github.com/weirdb/weir/types"
)

// BenchmarkTopNGroupRowNumber keeps ROW_NUMBER() OVER (PARTITION BY g
// ORDER BY v DESC) <= 10 of 300k inserted rows (id, g, v) over 10k
// groups with random v, Nexmark q19's shape, with a barrier (and a
// commit of the write set into Pebble) every 30k rows, and reports rows
// per second. It measures the operator alone.
func BenchmarkTopNGroupRowNumber(b *testing.B) {
	rows, groups, perBarrier := 300_000, 10_000, 30_000
	rng := rand.New(rand.NewPCG(1, 2))
	var chunks []*types.Chunk
	for i := 0; i < rows; i += types.ChunkCap {
		c := types.NewChunk(topInTs, types.ChunkCap)
		for j := 0; j < types.ChunkCap && i+j < rows; j++ {
			c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(i + j)), types.DInt(rng.Int64N(int64(groups))), types.DInt(rng.Int64N(1_000_000))})
		}
		chunks = append(chunks, c)
	}
	n := topNode([]int{1}, true, 10, 0, "row_number", false)
	n.Input.Base().AppendOnly = true
	saved := strictChangelog
	strictChangelog = false
	defer func() { strictChangelog = saved }()
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		e := newOpEnv(b)
		in := &pushInput{}
		op, err := NewTopN(e.actx, in, n)
		if err != nil {
			b.Fatal(err)
		}
		e.stepBarrier(b, op, in, nil, types.BarrierInitial)
		b.StartTimer()
		done := 0
		for _, c := range chunks {
			in.q = append(in.q, c)
			done += c.Len()
			if done%perBarrier < types.ChunkCap || done == rows {
				e.stepBarrier(b, op, in, nil, types.BarrierCheckpoint)
			}
		}
		op.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
