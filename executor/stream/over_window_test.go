package stream

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// The general-mode tests read rows (id int8, g int8, v int4) with stream
// key id; the EOWC tests rows (id int8, g int8, ts int8, v int8), append
// only, with a watermark on ts.
var (
	overInTs = []types.T{types.TInt8, types.TInt8, types.TInt4}
	eowcInTs = []types.T{types.TInt8, types.TInt8, types.TInt8, types.TInt8}
)

// overCall returns a window call over the node's window (filled in by
// overNode).
func overCall(fn string, t types.T, frame *planner.Frame, args ...planner.Expr) planner.WindowCall {
	return planner.WindowCall{Fn: fn, Args: args, Frame: frame, T: t}
}

func rowsFrame(start, end planner.FrameBound) *planner.Frame {
	return &planner.Frame{Mode: "rows", Start: start, End: end}
}

func rangeFrame(start, end planner.FrameBound) *planner.Frame {
	return &planner.Frame{Mode: "range", Start: start, End: end}
}

// rangeBound is a RANGE frame bound off PRECEDING or FOLLOWING, the
// offset of the ORDER BY key's offset type.
func rangeBound(kind string, off planner.Expr) planner.FrameBound {
	return planner.FrameBound{Kind: kind, Offset: off}
}

func bound(kind string, off int64) planner.FrameBound {
	b := planner.FrameBound{Kind: kind}
	if kind == "preceding" || kind == "following" {
		b.Offset = cint(off)
	}
	return b
}

// overNode returns a StreamOverWindow computing calls over the rows of
// overInTs (eowc false) or eowcInTs (eowc true), partitioned by g when
// partitioned, ordered by orderCol.
func overNode(eowc, partitioned bool, orderCol int, calls ...planner.WindowCall) *planner.StreamOverWindow {
	in := &planner.StreamValues{StreamBase: planner.StreamBase{
		Out:       types.Schema{col("id", types.TInt8), col("g", types.TInt8), col("v", types.TInt4)},
		StreamKey: []int{0},
	}}
	if eowc {
		in.Out = types.Schema{col("id", types.TInt8), col("g", types.TInt8), col("ts", types.TInt8), col("v", types.TInt8)}
		in.AppendOnly, in.Watermarks = true, []int{2}
	}
	n := &planner.StreamOverWindow{Input: in, EOWC: eowc, Rows: planner.StateTableDesc{ID: 300}, Partitions: planner.StateTableDesc{ID: 301}}
	var pexprs []planner.Expr
	if partitioned {
		n.PartitionBy = []int{1}
		pexprs = []planner.Expr{colRef(1, types.TInt8)}
	}
	n.OrderBy = []planner.SortKey{{Expr: colRef(orderCol, in.Out[orderCol].T)}}
	n.Out = append(types.Schema(nil), in.Out...)
	for _, c := range calls {
		c.PartitionBy, c.OrderBy = pexprs, n.OrderBy
		n.Calls = append(n.Calls, c)
		n.Out = append(n.Out, col(c.Fn, c.T))
	}
	n.StreamKey = append(append([]int(nil), n.PartitionBy...), 0)
	n.AppendOnly = eowc
	if eowc {
		lookahead := false
		for _, c := range n.Calls {
			// A RANGE frame looks ahead by distance: the node emits the
			// watermark, delayed.
			lookahead = lookahead || c.Fn == "lead" || c.Frame != nil && c.Frame.Mode != "range" && c.Frame.End.Kind == "following"
		}
		if !lookahead {
			n.Watermarks = []int{2}
		}
	}
	return n
}

// overTs returns the types of n's input rows: overInTs or eowcInTs, or
// what a test changed them to.
func overTs(n *planner.StreamOverWindow) []types.T {
	return n.Input.Base().Out.Types()
}

func runOver(t *testing.T, e *opEnv, n *planner.StreamOverWindow, script string) []string {
	t.Helper()
	op, err := NewOverWindow(e.actx, &scriptInput{msgs: e.script(t, script, overTs(n))}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	return e.drain(t, op)
}

// checkRecovery runs part1 then part2 through one operator, and again
// through an operator that is dropped after part1 and rebuilt from the
// committed state (a fresh actor context, an Initial barrier) for part2;
// both must emit the same part2 output.
func checkRecovery(t *testing.T, n *planner.StreamOverWindow, part1, part2 string) {
	t.Helper()
	e := newOpEnv(t)
	one := runOver(t, e, n, part1+part2)
	e2 := newOpEnv(t)
	first := runOver(t, e2, n, part1)
	e2.reset()
	second := runOver(t, e2, n, part2)
	if len(first)+len(second) != len(one) {
		t.Fatalf("%d+%d epochs after recovery, %d without", len(first), len(second), len(one))
	}
	if got, want := strings.Join(second, "\n----\n"), strings.Join(one[len(first):], "\n----\n"); got != want {
		t.Fatalf("after recovery:\n%s\nwithout:\n%s", got, want)
	}
	if !strings.Contains(strings.Join(second, ""), "+") {
		t.Fatal("nothing emitted after recovery: the test checks nothing")
	}
}

func TestOverWindowRanking(t *testing.T) {
	// row_number, rank, dense_rank OVER (PARTITION BY g ORDER BY v): ties
	// numbered by stream key, a delete and an insert renumbering the
	// rows after them, an update moving row 1 to partition 2 (it leaves
	// first, then enters) and one moving row 5 within its partition.
	n := overNode(false, true, 2, overCall("row_number", types.TInt8, nil), overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil))
	got := runOver(t, newOpEnv(t), n, `
barrier
+ 1 1 10
+ 2 1 20
+ 3 1 20
+ 4 1 30
+ 5 2 5
barrier
- 2 1 20
+ 6 1 15
barrier
U- 1 1 10
U+ 1 2 7
U- 5 2 5
U+ 5 2 9
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 10 1 1 1
+ 2 1 20 2 2 2
+ 3 1 20 3 2 2
+ 4 1 30 4 4 3
+ 5 2 5 1 1 1
`, `
- 2 1 20 2 2 2
U- 3 1 20 3 2 2
U+ 3 1 20 3 3 3
U- 4 1 30 4 4 3
U+ 4 1 30 4 4 4
+ 6 1 15 2 2 2
`, `
- 1 1 10 1 1 1
U- 6 1 15 2 2 2
U+ 6 1 15 1 1 1
U- 3 1 20 3 3 3
U+ 3 1 20 2 2 2
U- 4 1 30 4 4 4
U+ 4 1 30 3 3 3
U- 5 2 5 1 1 1
U+ 5 2 9 2 2 2
+ 1 2 7 1 1 1
`)
}

func TestOverWindowLagLead(t *testing.T) {
	// lag(v), lag(v, 2, -1), lead(v, 1, 0): defaults where the offset
	// leaves the partition; an insert in the middle and a delete at the
	// start change the neighbours' values only.
	v := colRef(2, types.TInt4)
	i4 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt4} }
	n := overNode(false, true, 2, overCall("lag", types.TInt4, nil, v), overCall("lag", types.TInt4, nil, v, i4(2), i4(-1)),
		overCall("lead", types.TInt4, nil, v, i4(1), i4(0)))
	got := runOver(t, newOpEnv(t), n, `
barrier
+ 1 1 10
+ 2 1 20
+ 3 1 30
barrier
+ 4 1 25
barrier
- 1 1 10
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 10 . -1 20
+ 2 1 20 10 -1 30
+ 3 1 30 20 10 0
`, `
U- 2 1 20 10 -1 30
U+ 2 1 20 10 -1 25
U- 3 1 30 20 10 0
U+ 3 1 30 25 20 0
+ 4 1 25 20 10 30
`, `
- 1 1 10 . -1 20
U- 2 1 20 10 -1 25
U+ 2 1 20 . -1 25
U- 4 1 25 20 10 30
U+ 4 1 25 20 -1 30
`)
}

func TestOverWindowFrames(t *testing.T) {
	// One partition: sum(v) ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING,
	// count(*) over the default frame (RANGE, so ties count each other),
	// first_value(v) ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING (NULL when
	// empty). Moving row 4 to the front changes every row.
	v := colRef(2, types.TInt4)
	n := overNode(false, false, 2,
		overCall("sum", types.TInt8, rowsFrame(bound("preceding", 1), bound("following", 1)), v),
		overCall("count", types.TInt8, nil),
		overCall("first_value", types.TInt4, rowsFrame(bound("following", 1), bound("following", 2)), v))
	got := runOver(t, newOpEnv(t), n, `
barrier
+ 1 0 10
+ 2 0 20
+ 3 0 20
+ 4 0 40
barrier
U- 4 0 40
U+ 4 0 5
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 0 10 30 1 20
+ 2 0 20 50 3 20
+ 3 0 20 80 3 40
+ 4 0 40 60 4 .
`, `
U- 4 0 40 60 4 .
U+ 4 0 5 15 1 10
U- 1 0 10 30 1 20
U+ 1 0 10 35 2 20
U- 2 0 20 50 3 20
U+ 2 0 20 50 4 20
U- 3 0 20 80 3 40
U+ 3 0 20 40 4 .
`)
}

// floatOver makes n's input column v (the last) a float8.
func floatOver(n *planner.StreamOverWindow) {
	in := n.Input.(*planner.StreamValues)
	in.Out = append(types.Schema(nil), in.Out...)
	last := len(in.Out) - 1
	in.Out[last].T, n.Out[last].T = types.TFloat8, types.TFloat8
}

func TestOverWindowFloatOverflow(t *testing.T) {
	// sum(v) over the default frame and ROWS BETWEEN 1 PRECEDING AND
	// CURRENT ROW, OVER (PARTITION BY g ORDER BY id): a row whose frame's
	// float sum overflows (PostgreSQL's float8pl fails there with 22003)
	// reads NULL, recorded; the other rows keep their values, and a
	// delete brings the sum back.
	v := colRef(2, types.TFloat8)
	n := overNode(false, true, 0, overCall("sum", types.TFloat8, nil, v),
		overCall("sum", types.TFloat8, rowsFrame(bound("preceding", 1), bound("current_row", 0)), v))
	floatOver(n)
	e := newOpEnv(t)
	got := runOver(t, e, n, `
barrier
+ 1 1 1e308
+ 2 1 1e308
+ 3 1 -1e308
+ 4 2 5
barrier
- 2 1 1e308
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 1e+308 1e+308 1e+308
+ 2 1 1e+308 . .
+ 3 1 -1e+308 . 0
+ 4 2 5 5 5
`, `
- 2 1 1e+308 . .
U- 3 1 -1e+308 . 0
U+ 3 1 -1e+308 0 0
`)
	errs := e.actx.Errors.(*opErrors).errs
	if len(errs) != 3 {
		t.Fatalf("recorded %v, want the two sums' overflows at row 2 and the running sum's at row 3", errs)
	}
	for _, err := range errs {
		if pgerr.CodeOf(err) != pgerr.NumericValueOutOfRange {
			t.Errorf("recorded %v, want 22003", err)
		}
	}
}

func TestOverWindowWatermarkAndErrors(t *testing.T) {
	// A watermark on the partition key is forwarded at the barrier, one on
	// another column dropped. ntile(0) fails for the partition: recorded,
	// NULL values, the job goes on.
	n := overNode(false, true, 2, overCall("ntile", types.TInt4, nil, &planner.Const{V: types.DInt(0), T: types.TInt4}))
	e := newOpEnv(t)
	got := runOver(t, e, n, `
barrier
+ 1 1 10
wm 1 1
wm 2 5
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 10 .
wm 1 1
`)
	if errs := e.actx.Errors.(*opErrors).errs; len(errs) != 1 || !strings.Contains(errs[0].Error(), "ntile") {
		t.Fatalf("recorded %v", errs)
	}
}

func TestOverWindowRecovery(t *testing.T) {
	v := colRef(2, types.TInt4)
	n := overNode(false, true, 2, overCall("rank", types.TInt8, nil), overCall("lag", types.TInt4, nil, v),
		overCall("sum", types.TInt8, rowsFrame(bound("preceding", 1), bound("current_row", 0)), v))
	checkRecovery(t, n, `
barrier
+ 1 1 10
+ 2 1 20
+ 3 2 30
barrier
+ 4 1 15
barrier
`, `
barrier
- 1 1 10
U- 3 2 30
U+ 3 1 12
+ 5 2 1
barrier
`)
}

func TestEOWCOverWindow(t *testing.T) {
	// row_number, rank, dense_rank, lag(v), sum(v) over the default frame
	// (ties on ts count each other) and sum(v) ROWS BETWEEN 1 PRECEDING AND
	// CURRENT ROW, OVER (PARTITION BY g ORDER BY ts). Rows come out once
	// the watermark passes their ts, then the watermark; a late row and a
	// row without ts are dropped.
	v := colRef(3, types.TInt8)
	n := overNode(true, true, 2, overCall("row_number", types.TInt8, nil), overCall("rank", types.TInt8, nil),
		overCall("dense_rank", types.TInt8, nil), overCall("lag", types.TInt8, nil, v), overCall("sum", types.TNumeric, nil, v),
		overCall("sum", types.TNumeric, rowsFrame(bound("preceding", 1), bound("current_row", 0)), v))
	got := runOver(t, newOpEnv(t), n, `
barrier
+ 1 1 10 1
+ 2 1 12 2
+ 3 2 11 3
+ 4 1 10 4
wm 2 11
barrier
+ 5 2 13 5
+ 6 1 15 6
wm 2 14
barrier
+ 7 1 13 7
+ 8 1 . 8
barrier
wm 2 100
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 10 1 1 1 1 . 5 1
+ 4 1 10 4 2 1 1 1 5 5
wm 2 11
`, `
+ 2 1 12 2 3 3 2 4 7 6
+ 3 2 11 3 1 1 1 . 3 3
+ 5 2 13 5 2 2 2 3 8 8
wm 2 14
`, ``, `
+ 6 1 15 6 4 4 3 2 13 8
wm 2 100
`)
}

func TestEOWCOverWindowLookahead(t *testing.T) {
	// lead(v), lead(v, 2, 0), sum(v) ROWS BETWEEN CURRENT ROW AND 1
	// FOLLOWING, first_value(v) and count(*) ROWS BETWEEN UNBOUNDED
	// PRECEDING AND 1 FOLLOWING: a row waits for two final rows after it,
	// and no watermark goes out.
	v := colRef(3, types.TInt8)
	i4 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt4} }
	n := overNode(true, true, 2, overCall("lead", types.TInt8, nil, v), overCall("lead", types.TInt8, nil, v, i4(2), &planner.Const{V: types.DInt(0), T: types.TInt8}),
		overCall("sum", types.TNumeric, rowsFrame(bound("current_row", 0), bound("following", 1)), v),
		overCall("first_value", types.TInt8, nil, v),
		overCall("count", types.TInt8, rowsFrame(bound("unbounded_preceding", 0), bound("following", 1))))
	got := runOver(t, newOpEnv(t), n, `
barrier
+ 1 1 1 10
+ 2 1 2 20
+ 3 1 3 30
wm 2 4
barrier
+ 4 1 4 40
wm 2 5
barrier
+ 5 1 5 50
+ 6 1 6 60
+ 7 2 1 70
wm 2 10
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 1 10 20 30 30 10 2
`, `
+ 2 1 2 20 30 40 50 10 3
`, `
+ 3 1 3 30 40 50 70 10 4
+ 4 1 4 40 50 60 90 10 5
`)
}

func TestEOWCOverWindowRange(t *testing.T) {
	// sum(v) RANGE BETWEEN 2 PRECEDING AND CURRENT ROW and count(*)
	// RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING: a row comes out once the
	// watermark is above its ts + 2, with no later row needed (ts 2 at
	// watermark 5), and an emitted row leaves the buffer once no later
	// frame reaches it (ts 5 is gone when ts 8 comes). The watermark
	// goes out 2 behind: a row still to come may be that far behind it.
	v := colRef(3, types.TInt8)
	i8 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt8} }
	n := overNode(true, true, 2,
		overCall("sum", types.TNumeric, rangeFrame(rangeBound("preceding", i8(2)), bound("current_row", 0)), v),
		overCall("count", types.TInt8, rangeFrame(bound("current_row", 0), rangeBound("following", i8(2)))))
	e := newOpEnv(t)
	got := runOver(t, e, n, `
barrier
+ 1 1 1 10
+ 2 1 2 20
+ 3 1 5 30
wm 2 4
barrier
wm 2 5
barrier
wm 2 8
barrier
+ 4 1 8 40
wm 2 20
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 1 1 10 10 2
wm 2 2
`, `
+ 2 1 2 20 30 1
wm 2 3
`, `
+ 3 1 5 30 30 1
wm 2 6
`, `
+ 4 1 8 40 40 1
wm 2 18
`)
	// At watermark 20 no later frame reaches back to ts 8: the buffer is
	// empty.
	if rows := stateRows(t, e, n.Rows.ID); rows != 0 {
		t.Fatalf("%d rows in the buffer, want none", rows)
	}

	// Offsets are checked when the operator is built.
	for _, c := range []struct {
		off  planner.Expr
		code pgerr.Code
	}{{i8(-1), "22013"}, {&planner.Const{V: types.NullDatum, T: types.TInt8}, pgerr.NullValueNotAllowed}} {
		bad := overNode(true, true, 2, overCall("sum", types.TNumeric, rangeFrame(rangeBound("preceding", c.off), bound("current_row", 0)), v))
		if _, err := NewOverWindow(newOpEnv(t).actx, &pushInput{}, bad); pgerr.CodeOf(err) != c.code {
			t.Errorf("offset %s: %v, want %s", planner.FormatExpr(c.off), err, c.code)
		}
	}
}

func TestEOWCOverWindowRangeRecovery(t *testing.T) {
	// A recovery with rows kept by distance (3 back, the peers, a running
	// frame ending 1 before) and rows waiting for the watermark to pass
	// them by 2.
	v := colRef(3, types.TInt8)
	i8 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt8} }
	n := overNode(true, true, 2,
		overCall("max", types.TInt8, rangeFrame(rangeBound("preceding", i8(3)), rangeBound("following", i8(2))), v),
		overCall("count", types.TInt8, rangeFrame(bound("current_row", 0), bound("current_row", 0))),
		overCall("sum", types.TNumeric, rangeFrame(bound("unbounded_preceding", 0), rangeBound("preceding", i8(1))), v))
	checkRecovery(t, n, `
barrier
+ 1 1 1 10
+ 2 1 2 5
+ 3 1 2 30
+ 4 2 3 1
wm 2 5
barrier
+ 5 1 4 7
+ 6 2 5 2
wm 2 6
barrier
`, `
barrier
+ 7 1 6 8
wm 2 7
barrier
+ 8 2 9 3
wm 2 12
barrier
`)
}

func TestEOWCOverWindowRecovery(t *testing.T) {
	// A recovery between watermarks: rows waiting in the buffer, counters
	// and running sums in the partition state, a partition with rows but
	// nothing emitted yet.
	v := colRef(3, types.TInt8)
	n := overNode(true, true, 2, overCall("rank", types.TInt8, nil), overCall("lag", types.TInt8, nil, v, &planner.Const{V: types.DInt(2), T: types.TInt4}),
		overCall("lead", types.TInt8, nil, v), overCall("max", types.TInt8, nil, v), overCall("avg", types.TNumeric, nil, v))
	checkRecovery(t, n, `
barrier
+ 1 1 1 10
+ 2 1 2 5
+ 3 1 2 30
+ 4 2 3 1
wm 2 3
barrier
+ 5 1 4 7
+ 6 2 5 2
barrier
`, `
barrier
+ 7 1 6 8
wm 2 7
barrier
+ 8 2 9 3
wm 2 10
barrier
`)
}

// TestEOWCOverWindowFloatOverflow: a float sum or average over a frame
// starting UNBOUNDED PRECEDING whose step overflows (PostgreSQL's
// float8pl and float8_accum fail with 22003 there) reads NULL, with the
// error recorded, for that row and every later one of its partition,
// whose frames hold the failing step too, also after a recovery; the
// job goes on. A sum over ROWS BETWEEN 1 PRECEDING AND CURRENT ROW
// reads NULL only where its frame overflows, each error recorded once
// though the row stays in the buffer. A sum already infinite from an
// infinite input stays Infinity without error, as in PostgreSQL.
func TestEOWCOverWindowFloatOverflow(t *testing.T) {
	v := colRef(3, types.TFloat8)
	n := overNode(true, true, 2, overCall("sum", types.TFloat8, nil, v),
		overCall("avg", types.TFloat8, rowsFrame(bound("unbounded_preceding", 0), bound("current_row", 0)), v),
		overCall("sum", types.TFloat8, rowsFrame(bound("preceding", 1), bound("current_row", 0)), v))
	floatOver(n)
	part1, part2 := `
barrier
+ 1 1 1 1e308
+ 2 1 2 1e308
+ 3 1 3 -1e308
+ 4 2 1 Infinity
+ 5 2 2 1e308
+ 6 2 3 1e308
+ 7 3 1 1
+ 8 3 2 2
wm 2 3
barrier
`, `
barrier
wm 2 10
barrier
`
	checkRecovery(t, n, part1, part2)
	e := newOpEnv(t)
	got := runOver(t, e, n, part1+part2)
	checkEpochs(t, got, ``, `
+ 1 1 1 1e+308 1e+308 1e+308 1e+308
+ 2 1 2 1e+308 . . .
+ 4 2 1 Infinity Infinity Infinity Infinity
+ 5 2 2 1e+308 Infinity Infinity Infinity
+ 7 3 1 1 1 1 1
+ 8 3 2 2 3 1.5 3
wm 2 3
`, ``, `
+ 3 1 3 -1e+308 . . 0
+ 6 2 3 1e+308 Infinity Infinity .
wm 2 10
`)
	errs := e.actx.Errors.(*opErrors).errs
	if len(errs) != 4 {
		t.Fatalf("recorded %v, want the running sum's and average's overflow at ts 2 of g 1, and the ROWS sum's there and at ts 3 of g 2", errs)
	}
	for _, err := range errs {
		if pgerr.CodeOf(err) != pgerr.NumericValueOutOfRange {
			t.Errorf("recorded %v, want 22003", err)
		}
	}
}

// TestEOWCOverWindowRecoveryParallel runs two actors of one EOWC over
// window, each fed the partitions the hash of g gives it, over one
// store; after a recovery each must pick up its own partitions only, so
// that no row comes out twice and none is lost.
func TestEOWCOverWindowRecoveryParallel(t *testing.T) {
	v := colRef(3, types.TInt8)
	n := overNode(true, true, 2, overCall("row_number", types.TInt8, nil), overCall("lead", types.TInt8, nil, v))
	n.Input.Base().Dist = planner.Distribution{Kind: planner.DistHash, Keys: []int{1}}
	e := newOpEnv(t)
	actors := make([]*ActorContext, 2)
	ops := make([]Operator, 2)
	ins := make([]*pushInput, 2)
	start := func() {
		for i := range actors {
			actors[i] = &ActorContext{DB: e.db, Cache: e.actx.Cache, WriteSet: e.db.NewBatch(), Index: i, Parallelism: 2, Errors: &opErrors{}}
			ins[i] = &pushInput{}
			var err error
			if ops[i], err = NewOverWindow(actors[i], ins[i], n); err != nil {
				t.Fatal(err)
			}
		}
	}
	emitted := map[int64]int{}
	total := 0
	// step sends rows (routed by g) and a watermark to the actors, then a
	// barrier, and commits both write sets.
	step := func(kind types.BarrierKind, wm int64, rows ...types.Row) {
		e.epoch++
		for i := range ops {
			c := types.NewChunk(eowcInTs, len(rows))
			for _, r := range rows {
				if partitionOf(hashRow(r, []int{1}, eowcInTs), 2) == i {
					c.AppendRow(types.OpInsert, r)
				}
			}
			if c.Len() > 0 {
				ins[i].q = append(ins[i].q, c)
			}
			if wm > 0 {
				ins[i].q = append(ins[i].q, types.Watermark{Col: 2, T: types.TInt8, Val: types.DInt(wm)})
			}
			ins[i].q = append(ins[i].q, types.Barrier{Epoch: types.Epoch{Prev: e.epoch - 1, Curr: e.epoch}, Kind: kind})
			for {
				m, err := ops[i].Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if c, ok := m.(*types.Chunk); ok {
					for j := 0; j < c.Len(); j++ {
						emitted[c.Row(j)[0].I]++
						total++
					}
				}
				if _, ok := m.(types.Barrier); ok {
					break
				}
			}
		}
		for _, a := range actors {
			if err := a.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			a.WriteSet = e.db.NewBatch()
		}
	}
	row := func(id, g, ts int64) types.Row {
		return types.Row{types.DInt(id), types.DInt(g), types.DInt(ts), types.DInt(id * 10)}
	}
	start()
	step(types.BarrierInitial, 0)
	var rows []types.Row
	for id := int64(1); id <= 40; id++ {
		rows = append(rows, row(id, id%8, id))
	}
	step(types.BarrierCheckpoint, 21, rows[:30]...)
	start()
	step(types.BarrierInitial, 0)
	step(types.BarrierCheckpoint, 41, rows[30:]...)
	for id, k := range emitted {
		if k != 1 {
			t.Fatalf("row %d emitted %d times", id, k)
		}
	}
	// Every row but the last of each partition (waiting for its LEAD).
	if total != 40-8 {
		t.Fatalf("%d rows emitted, want %d", total, 40-8)
	}
}

// TestEOWCOverWindowDelayedWatermark checks the watermark an EOWC over
// window emits when RANGE frames look ahead: the smallest ORDER BY value
// whose reach is at or above the watermark, so that no row to come lies
// below it, for plain offsets, calendar months, a DST day and dates.
func TestEOWCOverWindowDelayedWatermark(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ev := executor.EvalCtx{Context: functions.Context{Location: paris}}
	iv := func(s string) types.Datum {
		d, err := types.ParseText(s, types.TInterval, paris)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	at := func(s string, ty types.T) int64 {
		d, err := types.ParseText(s, ty, paris)
		if err != nil {
			t.Fatal(err)
		}
		return d.I
	}
	cases := []struct {
		t    types.T
		w    int64
		offs []types.Datum
		want int64
	}{
		{types.TInt8, 100, []types.Datum{types.DInt(7), types.DInt(3)}, 93},
		{types.TInt8, math.MinInt64 + 5, []types.Datum{types.DInt(10)}, math.MinInt64},
		{types.TTimestamp, at("2024-03-31 00:00", types.TTimestamp), []types.Datum{iv("1 mon")}, at("2024-03-01 00:00", types.TTimestamp)},
		{types.TTimestamptz, at("2024-03-31 12:00+02", types.TTimestamptz), []types.Datum{iv("1 day")}, at("2024-03-30 12:00+01", types.TTimestamptz)},
		{types.TTimestamptz, at("2024-03-31 12:00+02", types.TTimestamptz), []types.Datum{iv("24 hours")}, at("2024-03-30 11:00+01", types.TTimestamptz)},
		{types.TDate, at("2024-03-10", types.TDate), []types.Datum{iv("36 hours")}, at("2024-03-09", types.TDate)},
	}
	for _, c := range cases {
		o := &EOWCOverWindow{ec: &executor.ExecCtx{Eval: ev}, ordT: c.t, w: c.w, rangeAhead: c.offs}
		got, err := o.delayedWatermark()
		if err != nil || got != c.want {
			t.Errorf("%s watermark %d, offsets %v: %d, %v; want %d", c.t, c.w, c.offs, got, err, c.want)
		}
	}
}
