package stream

import (
	"math/rand/v2"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// BenchmarkStreamHashAgg folds 1M inserted rows over 10k groups into
// count(*), sum, min and max, with a barrier (and a commit of the write
// set into Pebble) every 100k rows, and reports rows per second.
func BenchmarkStreamHashAgg(b *testing.B) {
	if testing.Short() {
		benchRows = 100_000
	}
	rows, groups, perBarrier := benchRows, 10_000, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	var chunks []*types.Chunk
	for i := 0; i < rows; i += types.ChunkCap {
		c := types.NewChunk(aggInTs, types.ChunkCap)
		for j := 0; j < types.ChunkCap && i+j < rows; j++ {
			c.AppendRow(types.OpInsert, types.Row{types.DInt(rng.Int64N(int64(groups))), types.DInt(rng.Int64N(1000)), types.DString("x"), types.DBool(true)})
		}
		chunks = append(chunks, c)
	}
	// retracting: the input may retract, so min and max keep their input
	// multisets in Extra state tables; append-only: the planner gives
	// them none and they keep only the extreme.
	retracting := aggNode([]int{0}, countStar, sumV, minV, maxV)
	appendOnly := &planner.StreamHashAgg{StreamBase: retracting.StreamBase, Input: aggInput(true),
		GroupBy: retracting.GroupBy, Aggs: retracting.Aggs, Result: retracting.Result}
	for _, n := range []*planner.StreamHashAgg{retracting, appendOnly} {
		name := "retracting"
		if n.Input.Base().AppendOnly {
			name = "append-only"
		}
		b.Run(name, func(b *testing.B) { benchHashAgg(b, n, chunks, rows, perBarrier) })
	}
}

func benchHashAgg(b *testing.B, n *planner.StreamHashAgg, chunks []*types.Chunk, rows, perBarrier int) {
	for range b.N {
		b.StopTimer()
		e := newOpEnv(b)
		in := &pushInput{}
		op, err := NewHashAgg(e.actx, in, n)
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

// benchRows is the input size (a variable so a profile can run on less).
var benchRows = 1_000_000
