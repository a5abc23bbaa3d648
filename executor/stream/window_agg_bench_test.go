package stream

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// BenchmarkWindowedAgg counts 1M rows per 1-second window of event time
// (date_bin over the watermark column, count(*) and sum(k), one row per
// event-time millisecond, up to 3 ms out of order, watermark 5 ms behind,
// a barrier every 4 chunks) three ways in one run: as a plain Go loop
// over a map, through Project and HashAgg emitting on window close, and
// through them emitting updates at each barrier and cleaning closed
// windows' state. It reports each one's rows/s and the ratios eowc/loop,
// live/loop and eowc/live: what incremental, checkpointed windowing
// costs over the simplest program that gives the same counts.
func BenchmarkWindowedAgg(b *testing.B) {
	rows := benchRows
	if testing.Short() {
		rows = 100_000
	}
	const chunkRows, perBarrier, windowMs, lagMs, jitterMs = 1024, 4, 1000, 5, 3
	inTs := []types.T{types.TTimestamp, types.TInt8}
	rng := rand.New(rand.NewPCG(3, 4))
	var msgs [][]types.Message // per epoch: chunks and watermarks
	maxTs := int64(0)
	for sent := 0; sent < rows; {
		var epoch []types.Message
		for range perBarrier {
			c := types.NewChunk(inTs, chunkRows)
			for range chunkRows {
				ts := (int64(sent) - rng.Int64N(jitterMs+1)) * 1000
				maxTs = max(maxTs, ts)
				c.AppendRow(types.OpInsert, types.Row{types.DInt(ts), types.DInt(int64(sent % 50))})
				sent++
			}
			epoch = append(epoch, c, types.Watermark{Col: 0, T: types.TTimestamp, Val: types.DInt(maxTs - lagMs*1000)})
		}
		msgs = append(msgs, epoch)
	}

	loop := func() int64 {
		counts := map[int64][2]int64{}
		for _, epoch := range msgs {
			for _, m := range epoch {
				c, ok := m.(*types.Chunk)
				if !ok {
					continue
				}
				for i := 0; i < c.Len(); i++ {
					ts := c.Cols[0].I[i]
					w := ts - ((ts%(windowMs*1000))+windowMs*1000)%(windowMs*1000)
					v := counts[w]
					counts[w] = [2]int64{v[0] + 1, v[1] + c.Cols[1].I[i]}
				}
			}
		}
		return int64(len(counts))
	}
	dataflow := func(eowc bool) int64 {
		e := newOpEnv(b)
		in := &pushInput{}
		proj, p := dateBinProject(b, e, in, windowMs)
		agg := &planner.StreamHashAgg{Input: proj, GroupBy: []int{0}, EOWC: eowc, Aggs: []planner.AggCall{
			{Fn: "count", T: types.TInt8}, {Fn: "sum", Args: []planner.Expr{rtCol(1, types.TInt8)}, T: types.TNumeric},
		}, Result: planner.StateTableDesc{ID: 100}}
		agg.Out = types.Schema{col("window_start", types.TTimestamp), col("c", types.TInt8), col("s", types.TNumeric)}
		agg.AppendOnly, agg.Watermarks = eowc, []int{0}
		op, err := NewHashAgg(e.actx, p, agg)
		if err != nil {
			b.Fatal(err)
		}
		defer op.Close()
		e.stepBarrier(b, op, in, nil, types.BarrierInitial)
		var out int64
		for _, epoch := range msgs {
			in.q = append(in.q, epoch...)
			for _, c := range e.stepBarrier(b, op, in, nil, types.BarrierCheckpoint) {
				out += int64(c.Len())
			}
		}
		return out
	}

	var loopT, eowcT, liveT time.Duration
	for range b.N {
		start := time.Now()
		windows := loop()
		loopT += time.Since(start)
		start = time.Now()
		emitted := dataflow(true)
		eowcT += time.Since(start)
		start = time.Now()
		dataflow(false)
		liveT += time.Since(start)
		// Every window but the last few, still open at the end, is
		// emitted once.
		if emitted < windows-3 || emitted > windows {
			b.Fatalf("%d windows emitted on close, the loop counts %d", emitted, windows)
		}
	}
	rate := func(d time.Duration) float64 { return float64(rows) * float64(b.N) / d.Seconds() }
	b.ReportMetric(rate(loopT), "loop-rows/s")
	b.ReportMetric(rate(eowcT), "eowc-rows/s")
	b.ReportMetric(rate(liveT), "live-rows/s")
	b.ReportMetric(rate(eowcT)/rate(loopT), "eowc/loop")
	b.ReportMetric(rate(liveT)/rate(loopT), "live/loop")
	b.ReportMetric(rate(eowcT)/rate(liveT), "eowc/live")
}
