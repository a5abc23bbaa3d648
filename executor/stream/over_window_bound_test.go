package stream

import (
	"math/rand/v2"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestEOWCOverWindowStateBounded streams over a million rows with
// advancing event time through an EMIT ON WINDOW CLOSE over window
// (row_number, rank, lag 3 back, lead 2 ahead, a running sum and avg, a
// max over 5 PRECEDING) and checks, after every checkpoint, that the
// rows in its two state tables stay below a fixed bound (per partition
// the rows later rows reach back to and the rows waiting for their
// lookahead, plus the rows the watermark has not passed yet) while the
// emitted rows keep coming, each once, in order per partition.
func TestEOWCOverWindowStateBounded(t *testing.T) {
	const (
		rows       = 1 << 20
		chunkRows  = 1024
		perBarrier = 4  // chunks per epoch
		partitions = 16 // distinct g
		lagMs      = 5  // watermark = max event time - lag; one row per ms
		jitterMs   = 3  // rows arrive up to this much out of order
		hist, look = 5, 2
		// The buffer: per partition hist emitted rows and look final rows
		// waiting, plus every row at or above the watermark.
		maxBuffer = partitions*(hist+look) + lagMs + jitterMs + 1
	)
	v := colRef(3, types.TInt8)
	i4 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt4} }
	n := overNode(true, true, 2,
		overCall("row_number", types.TInt8, nil), overCall("rank", types.TInt8, nil),
		overCall("lag", types.TInt8, nil, v, i4(3)), overCall("lead", types.TInt8, nil, v, i4(2)),
		overCall("sum", types.TNumeric, nil, v), overCall("avg", types.TNumeric, nil, v),
		overCall("max", types.TInt8, rowsFrame(bound("preceding", 5), bound("current_row", 0)), v))
	e := newOpEnv(t)
	in := &pushInput{}
	opr, err := NewOverWindow(e.actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	defer opr.Close()
	if o := opr.(*EOWCOverWindow); o.hist != hist || o.ahead != look {
		t.Fatalf("operator keeps %d rows back and %d ahead, the bound assumes %d and %d", o.hist, o.ahead, hist, look)
	}

	rng := rand.New(rand.NewPCG(3, 4))
	e.stepBarrier(t, opr, in, nil, types.BarrierInitial)
	var emitted int64
	lastNum := map[int64]int64{}
	maxTs := int64(0)
	maxRows, maxParts := 0, 0
	for sent := 0; sent < rows; {
		for range perBarrier {
			c := jitteredChunk(rng, &sent, &maxTs, chunkRows, partitions, jitterMs)
			in.q = append(in.q, c, types.Watermark{Col: 2, T: types.TInt8, Val: types.DInt(maxTs - lagMs)})
		}
		for _, c := range e.stepBarrier(t, opr, in, nil, types.BarrierCheckpoint) {
			for i := 0; i < c.Len(); i++ {
				r := c.Row(i)
				g, num := r[1].I, r[4].I
				if c.Op(i) != types.OpInsert || num != lastNum[g]+1 {
					t.Fatalf("partition %d: row number %d (%s) after %d", g, num, c.Op(i), lastNum[g])
				}
				lastNum[g] = num
				emitted++
			}
		}
		br, bp := stateRows(t, e, n.Rows.ID), stateRows(t, e, n.Partitions.ID)
		maxRows, maxParts = max(maxRows, br), max(maxParts, bp)
		if br > maxBuffer || bp > partitions {
			t.Fatalf("after %d rows: %d buffer rows (bound %d), %d partition rows (bound %d)", sent, br, maxBuffer, bp, partitions)
		}
	}
	// Every row but those the last watermark has not passed, and those
	// waiting for their lookahead, came out.
	if emitted < rows-maxBuffer {
		t.Fatalf("%d rows emitted of %d", emitted, rows)
	}
	t.Logf("%d rows in, %d emitted; state at most %d buffer rows (bound %d) and %d partition rows (bound %d)",
		rows, emitted, maxRows, maxBuffer, maxParts, partitions)
}

// TestEOWCOverWindowRangeStateBounded streams over a million rows, one
// per millisecond of event time, through an EMIT ON WINDOW CLOSE over
// window whose RANGE frames reach back 100 ms (a sum), 50 ms (an avg to
// 20 ms ahead), to the current row's peers (a max to 30 ms ahead) and to
// 10 ms before (a running count), beside rank. After every checkpoint its
// buffer must hold no row more than back + ahead ms behind the
// watermark: every row is emitted once it and the 30 ms after it are
// final, and an emitted row leaves once no later frame reaches it. So
// the state stays below a bound set by the offsets and the event rate,
// however many rows went through.
func TestEOWCOverWindowRangeStateBounded(t *testing.T) {
	const (
		rows       = 1 << 20
		chunkRows  = 1024
		perBarrier = 4
		partitions = 16
		lagMs      = 5
		jitterMs   = 3
		backMs     = 100
		aheadMs    = 30
		// Every row in the buffer has a time at or above the watermark
		// minus back and ahead: rows arrive at one per ms, up to jitter
		// ms out of order, and the watermark trails the latest by lag.
		// rank keeps each partition's last emitted row besides.
		maxBuffer = backMs + aheadMs + lagMs + jitterMs + 1 + partitions
	)
	v := colRef(3, types.TInt8)
	i8 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt8} }
	n := overNode(true, true, 2,
		overCall("rank", types.TInt8, nil),
		overCall("sum", types.TNumeric, rangeFrame(rangeBound("preceding", i8(backMs)), bound("current_row", 0)), v),
		overCall("avg", types.TNumeric, rangeFrame(rangeBound("preceding", i8(50)), rangeBound("following", i8(20))), v),
		overCall("max", types.TInt8, rangeFrame(bound("current_row", 0), rangeBound("following", i8(aheadMs))), v),
		overCall("count", types.TInt8, rangeFrame(bound("unbounded_preceding", 0), rangeBound("preceding", i8(10))), v))
	e := newOpEnv(t)
	in := &pushInput{}
	opr, err := NewOverWindow(e.actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	defer opr.Close()

	rng := rand.New(rand.NewPCG(5, 6))
	e.stepBarrier(t, opr, in, nil, types.BarrierInitial)
	var emitted int64
	lastTs := map[int64]int64{}
	seen := map[int64]bool{}
	maxTs, wm := int64(0), int64(0)
	maxRows, maxParts := 0, 0
	for sent := 0; sent < rows; {
		for range perBarrier {
			c := jitteredChunk(rng, &sent, &maxTs, chunkRows, partitions, jitterMs)
			wm = maxTs - lagMs
			in.q = append(in.q, c, types.Watermark{Col: 2, T: types.TInt8, Val: types.DInt(wm)})
		}
		for _, c := range e.stepBarrier(t, opr, in, nil, types.BarrierCheckpoint) {
			for i := 0; i < c.Len(); i++ {
				r := c.Row(i)
				id, g, ts := r[0].I, r[1].I, r[2].I
				if last, ok := lastTs[g]; c.Op(i) != types.OpInsert || seen[id] || ok && ts < last || ts+aheadMs >= wm {
					t.Fatalf("row %d (partition %d, time %d, %s) emitted after time %d under watermark %d", id, g, ts, c.Op(i), lastTs[g], wm)
				}
				seen[id], lastTs[g] = true, ts
				emitted++
			}
		}
		br, bp := stateRows(t, e, n.Rows.ID), stateRows(t, e, n.Partitions.ID)
		maxRows, maxParts = max(maxRows, br), max(maxParts, bp)
		if br > maxBuffer || bp > partitions {
			t.Fatalf("after %d rows: %d buffer rows (bound %d), %d partition rows (bound %d)", sent, br, maxBuffer, bp, partitions)
		}
	}
	// Every row but those within ahead of the watermark, or above it,
	// came out.
	if emitted < rows-(aheadMs+lagMs+jitterMs+1) {
		t.Fatalf("%d rows emitted of %d", emitted, rows)
	}
	t.Logf("%d rows in, %d emitted; state at most %d buffer rows (bound %d) and %d partition rows (bound %d)",
		rows, emitted, maxRows, maxBuffer, maxParts, partitions)
}

// jitteredChunk returns n rows (id, partition, ts, v) of eowcInTs: ids
// from *sent on, one per event-time unit, each ts up to jitter units
// early, over partitions partitions; it advances *sent and raises *maxTs.
func jitteredChunk(rng *rand.Rand, sent *int, maxTs *int64, n, partitions, jitter int) *types.Chunk {
	c := types.NewChunk(eowcInTs, n)
	for range n {
		ts := int64(*sent) - rng.Int64N(int64(jitter)+1)
		*maxTs = max(*maxTs, ts)
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(*sent)), types.DInt(int64(*sent % partitions)), types.DInt(ts), types.DInt(rng.Int64N(100))})
		*sent++
	}
	return c
}
