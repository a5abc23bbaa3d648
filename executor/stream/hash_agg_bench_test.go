package stream

import (
	"math/rand/v2"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// BenchmarkStreamHashAgg folds 1M inserted rows over 10k groups into
// count(*), sum, min and max, with a barrier (and a commit of the write
// set into Pebble) every 100k rows, and reports rows per second. It
// measures the operator alone; BenchmarkMVGroupBy measures a whole view.
func BenchmarkStreamHashAgg(b *testing.B) {
	if testing.Short() {
		benchRows = 100_000
	}
	rows, groups, perBarrier := benchRows, 10_000, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	// The rows carry a unique id after aggInTs' columns, the stream key
	// of the keyed input.
	var chunks []*types.Chunk
	for i := 0; i < rows; i += types.ChunkCap {
		c := types.NewChunk(keyedAggInTs, types.ChunkCap)
		for j := 0; j < types.ChunkCap && i+j < rows; j++ {
			c.AppendRow(types.OpInsert, types.Row{types.DInt(rng.Int64N(int64(groups))), types.DInt(rng.Int64N(1000)), types.DString("x"), types.DBool(true), types.DInt(int64(i + j))})
		}
		chunks = append(chunks, c)
	}
	// retracting: the input may retract, so min and max keep their input
	// values in Extra state tables: counted per value when the input has
	// no stream key, one entry per row under its stream key otherwise
	// (keyed, what planned views get); append-only: the planner gives
	// them none and they keep only the extreme.
	input := func(appendOnly bool) planner.StreamNode {
		return inputNode(appendOnly, col("g", types.TInt8), col("v", types.TInt4), col("s", types.TText), col("b", types.TBool), col("id", types.TInt8))
	}
	retracting := aggNode([]int{0}, countStar, sumV, minV, maxV)
	retracting.Input = input(false)
	keyed := keyedAggNode([]int{0}, countStar, sumV, minV, maxV)
	appendOnly := &planner.StreamHashAgg{StreamBase: retracting.StreamBase, Input: input(true),
		GroupBy: retracting.GroupBy, Aggs: retracting.Aggs, Result: retracting.Result}
	// float: sum and avg of a double precision, whose running sums
	// keep a compensated form beside the plain one.
	fv := &planner.Cast{Arg: aggV, T: types.TFloat8}
	float := aggNode([]int{0}, countStar,
		planner.AggCall{Fn: "sum", Args: []planner.Expr{fv}, T: types.TFloat8},
		planner.AggCall{Fn: "avg", Args: []planner.Expr{fv}, T: types.TFloat8})
	float.Input = input(false)
	for _, bc := range []struct {
		name string
		n    *planner.StreamHashAgg
	}{{"retracting", retracting}, {"retracting-keyed", keyed}, {"append-only", appendOnly}, {"float", float}} {
		b.Run(bc.name, func(b *testing.B) { benchHashAgg(b, bc.n, chunks, rows, perBarrier) })
	}
}

func benchHashAgg(b *testing.B, n *planner.StreamHashAgg, chunks []*types.Chunk, rows, perBarrier int) {
	saved := strictChangelog
	strictChangelog = false // its checks read state for every row
	defer func() { strictChangelog = saved }()
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
