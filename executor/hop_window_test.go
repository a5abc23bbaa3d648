package executor

import (
	"context"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestHopWindowBatch runs the batch operator: NULL times are dropped, a
// row whose windows outnumber a chunk spans chunks, and an infinite time
// fails the query.
func TestHopWindowBatch(t *testing.T) {
	in := vals(t, `
 I TS
+ 1 1970-01-01T00:00:00.000015
+ 2 .
+ 3 1969-12-31T23:59:59.999999
`, types.TInt8, types.TTimestamp)
	out := append(schema(types.TInt8, types.TTimestamp), types.Column{Name: "window_start", T: types.TTimestamp}, types.Column{Name: "window_end", T: types.TTimestamp})
	p := &planner.HopWindow{Input: in, TimeCol: 1, Slide: 10, Size: 20, Offset: 0, Out: out}
	expect(t, p, newEC(), `
 I TS TS TS
+ 1 1970-01-01T00:00:00.000015 1970-01-01T00:00:00.000000 1970-01-01T00:00:00.00002
+ 1 1970-01-01T00:00:00.000015 1970-01-01T00:00:00.00001 1970-01-01T00:00:00.00003
+ 3 1969-12-31T23:59:59.999999 1969-12-31T23:59:59.99998 1970-01-01T00:00:00
+ 3 1969-12-31T23:59:59.999999 1969-12-31T23:59:59.99999 1970-01-01T00:00:00.00001
`, false)

	// 3,000 windows per row: three chunks, none over ChunkCap.
	p = &planner.HopWindow{Input: in, TimeCol: 1, Slide: 1, Size: 3000, Out: out}
	op, err := Build(p, newEC())
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	n, chunks := 0, 0
	for {
		c, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		if c.Len() > types.ChunkCap {
			t.Fatalf("chunk of %d rows", c.Len())
		}
		n, chunks = n+c.VisibleCount(), chunks+1
	}
	if n != 6000 || chunks < 6 {
		t.Fatalf("%d rows in %d chunks", n, chunks)
	}

	inf := &planner.Values{Out: schema(types.TTimestamp), Rows: [][]planner.Expr{{cnst(types.DInt(types.PosInfinity), types.TTimestamp)}}}
	p = &planner.HopWindow{Input: inf, TimeCol: 0, Slide: 10, Size: 20, Out: append(schema(types.TTimestamp), out[2:]...)}
	expectErr(t, p, newEC(), pgerr.DatetimeFieldOverflow, "timestamp out of range")
}
