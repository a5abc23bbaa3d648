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
			c := types.NewChunk(eowcInTs, chunkRows)
			for range chunkRows {
				ts := int64(sent) - rng.Int64N(jitterMs+1)
				maxTs = max(maxTs, ts)
				c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(sent)), types.DInt(int64(sent % partitions)), types.DInt(ts), types.DInt(rng.Int64N(100))})
				sent++
			}
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
