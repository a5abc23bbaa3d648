package stream

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestEOWCStateBounded streams over a million rows with advancing event
// time through date_bin → an EMIT ON WINDOW CLOSE aggregation (count,
// sum, count(DISTINCT)) and checks that the state stays below a fixed
// bound while the closed windows keep coming out, each once, complete.
func TestEOWCStateBounded(t *testing.T) {
	const (
		rows       = 1 << 20
		chunkRows  = 1024
		perBarrier = 4    // chunks per epoch
		windowMs   = 1000 // window size; one row per ms
		lagMs      = 5    // watermark = max event time - lag
		jitterMs   = 3    // rows arrive up to this much out of order
		distinct   = 50   // distinct values of k
		maxWindows = 1 + perBarrier*chunkRows/windowMs + 2
	)
	e := newOpEnv(t)
	inTs := []types.T{types.TTimestamp, types.TInt8}
	in := &pushInput{}
	proj, p := dateBinProject(t, e, in, windowMs)
	kRef := rtCol(1, types.TInt8)
	agg := &planner.StreamHashAgg{Input: proj, GroupBy: []int{0}, EOWC: true, Aggs: []planner.AggCall{
		{Fn: "count", T: types.TInt8},
		{Fn: "sum", Args: []planner.Expr{kRef}, T: types.TNumeric},
		{Fn: "count", Args: []planner.Expr{kRef}, Distinct: true, T: types.TInt8},
	}, Result: planner.StateTableDesc{ID: 100}, Extra: []planner.StateTableDesc{{ID: 101}}, ExtraFor: []int{2}}
	agg.Out = types.Schema{col("window_start", types.TTimestamp), col("c", types.TInt8), col("s", types.TNumeric), col("d", types.TInt8)}
	agg.AppendOnly, agg.Watermarks = true, []int{0}
	op, err := NewHashAgg(e.actx, p, agg)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()

	rng := rand.New(rand.NewPCG(1, 2))
	e.stepBarrier(t, op, in, nil, types.BarrierInitial)
	var emitted, counted int64
	var last int64 = math.MinInt64
	maxTs := int64(0)
	maxState, maxExtra := 0, 0
	for sent := 0; sent < rows; {
		for range perBarrier {
			c := types.NewChunk(inTs, chunkRows)
			for range chunkRows {
				ms := int64(sent) - rng.Int64N(jitterMs+1)
				ts := ms * 1000
				maxTs = max(maxTs, ts)
				c.AppendRow(types.OpInsert, types.Row{types.DInt(ts), types.DInt(int64(sent % distinct))})
				sent++
			}
			in.q = append(in.q, c, types.Watermark{Col: 0, T: types.TTimestamp, Val: types.DInt(maxTs - lagMs*1000)})
		}
		for _, c := range e.stepBarrier(t, op, in, nil, types.BarrierCheckpoint) {
			for i := 0; i < c.Len(); i++ {
				r := c.Row(i)
				if c.Op(i) != types.OpInsert || r[0].I <= last {
					t.Fatalf("window %d emitted as %s after window %d", r[0].I, c.Op(i), last)
				}
				if r[0].I >= 0 && (r[1].I < windowMs-jitterMs || r[3].I != distinct) {
					t.Fatalf("window %d incomplete: count %d, distinct %d", r[0].I, r[1].I, r[3].I)
				}
				last = r[0].I
				emitted++
				counted += r[1].I
			}
		}
		st, ex := stateRows(t, e, 100), stateRows(t, e, 101)
		maxState, maxExtra = max(maxState, st), max(maxExtra, ex)
		if st > maxWindows || ex > maxWindows*distinct {
			t.Fatalf("after %d rows: %d agg_state rows, %d distinct rows (bound %d windows)", sent, st, ex, maxWindows)
		}
	}
	if emitted < rows/windowMs-2 {
		t.Fatalf("%d windows emitted for %d rows", emitted, rows)
	}
	open := int64(rows) - counted
	if open < 0 || open > maxWindows*windowMs {
		t.Fatalf("%d rows counted in closed windows of %d", counted, rows)
	}
	t.Logf("%d rows, %d windows closed, at most %d open windows and %d distinct rows in state", rows, emitted, maxState, maxExtra)
}

// dateBinProject returns a Project, reading in, of rows (ts timestamp, k
// bigint) with a watermark on ts into (date_bin(windowMs ms, ts, 1970),
// k), the window start keeping the watermark: the input of a windowed
// aggregation.
func dateBinProject(t testing.TB, e *opEnv, in Operator, windowMs int64) (*planner.StreamProject, Operator) {
	t.Helper()
	base := &planner.StreamValues{StreamBase: planner.StreamBase{Out: types.Schema{col("ts", types.TTimestamp), col("k", types.TInt8)}, AppendOnly: true, Watermarks: []int{0}}}
	size := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: windowMs * 1000}), T: types.TInterval}
	origin := &planner.Const{V: types.DInt(0), T: types.TTimestamp}
	proj := &planner.StreamProject{Input: base, Exprs: []planner.Expr{
		call("date_bin", types.TTimestamp, size, rtCol(0, types.TTimestamp), origin), rtCol(1, types.TInt8),
	}}
	proj.Out = types.Schema{col("window_start", types.TTimestamp), col("k", types.TInt8)}
	proj.AppendOnly, proj.Watermarks = true, []int{0}
	p, err := NewProject(newTestActx(e.db), in, proj)
	if err != nil {
		t.Fatal(err)
	}
	return proj, p
}
