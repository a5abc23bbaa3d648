package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// batchWindow computes n's calls over rows (input rows of n) with the
// batch Window executor, the rows given in stream key order so that its
// stable sort numbers ties as the stream does. It returns the output
// rows in the batch Window's order: by partition, then window order.
func batchWindow(t testing.TB, n *planner.StreamOverWindow, rows []types.Row) []types.Row {
	t.Helper()
	in := n.Input.Base()
	sorted := append([]types.Row(nil), rows...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i][0].I < sorted[j][0].I })
	vals := &planner.Values{Out: in.Out}
	for _, r := range sorted {
		var es []planner.Expr
		for j, d := range r {
			es = append(es, &planner.Const{V: d, T: in.Out[j].T})
		}
		vals.Rows = append(vals.Rows, es)
	}
	if len(sorted) == 0 {
		return nil
	}
	w := &planner.Window{Input: vals, Calls: n.Calls, Out: n.Out}
	ec := &executor.ExecCtx{Eval: executor.EvalCtx{Context: functions.Context{Location: time.UTC}}}
	op, err := executor.Build(w, ec)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var out []types.Row
	for {
		c, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			return out
		}
		for i := 0; i < c.Len(); i++ {
			if c.Visible(i) {
				out = append(out, c.Row(i))
			}
		}
	}
}

// generalCases are windows for the randomized general-mode test: every
// function and frame kind the batch Window has (RANGE frames with
// offsets among them), partitioned or not, ascending or descending with
// NULLs either side, one ORDER BY key or two.
func generalCases() []*planner.StreamOverWindow {
	v := colRef(2, types.TInt4)
	i4 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt4} }
	groups := func(start, end planner.FrameBound) *planner.Frame {
		return &planner.Frame{Mode: "groups", Start: start, End: end}
	}
	all := []planner.WindowCall{
		overCall("row_number", types.TInt8, nil), overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil),
		overCall("percent_rank", types.TFloat8, nil), overCall("cume_dist", types.TFloat8, nil), overCall("ntile", types.TInt4, nil, i4(3)),
		overCall("lag", types.TInt4, nil, v), overCall("lag", types.TInt4, nil, v, i4(2), i4(-1)), overCall("lead", types.TInt4, nil, v, i4(1), i4(0)),
		overCall("first_value", types.TInt4, nil, v), overCall("last_value", types.TInt4, nil, v), overCall("nth_value", types.TInt4, nil, v, i4(2)),
		overCall("sum", types.TInt8, nil, v), overCall("avg", types.TNumeric, nil, v),
		overCall("count", types.TInt8, rowsFrame(bound("preceding", 1), bound("following", 1))),
		overCall("min", types.TInt4, rowsFrame(bound("unbounded_preceding", 0), bound("current_row", 0)), v),
		overCall("max", types.TInt4, groups(bound("preceding", 1), bound("current_row", 0)), v),
		overCall("sum", types.TInt8, rowsFrame(bound("current_row", 0), bound("unbounded_following", 0)), v),
		overCall("sum", types.TInt8, rowsFrame(bound("preceding", 2), bound("preceding", 1)), v),
		overCall("sum", types.TInt8, rangeFrame(rangeBound("preceding", i4(1)), rangeBound("following", i4(1))), v),
		overCall("count", types.TInt8, rangeFrame(bound("current_row", 0), rangeBound("following", i4(2)))),
		overCall("max", types.TInt4, rangeFrame(rangeBound("preceding", i4(2)), rangeBound("preceding", i4(1))), v),
		overCall("first_value", types.TInt4, rangeFrame(rangeBound("following", i4(1)), bound("unbounded_following", 0)), v),
	}
	a := overNode(false, true, 2, all...)
	b := overNode(false, false, 2, all...)
	b.OrderBy[0].Desc, b.OrderBy[0].NullsFirst = true, true
	for i := range b.Calls {
		b.Calls[i].OrderBy = b.OrderBy
	}
	c := overNode(false, true, 2, overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil),
		overCall("lead", types.TInt4, nil, v), overCall("count", types.TInt8, nil))
	// ORDER BY v NULLS FIRST, id DESC: no ties left.
	c.OrderBy = []planner.SortKey{{Expr: v, NullsFirst: true}, {Expr: colRef(0, types.TInt8), Desc: true, NullsFirst: true}}
	for i := range c.Calls {
		c.Calls[i].OrderBy = c.OrderBy
	}
	return []*planner.StreamOverWindow{a, b, c}
}

// TestOverWindowRandom drives random inserts, deletes and updates (some
// moving rows between partitions) through the general OverWindow in
// random epochs, restarting it from storage now and then, and after
// every barrier compares the view its changelog builds with the batch
// Window over the current rows.
func TestOverWindowRandom(t *testing.T) {
	for ci, n := range generalCases() {
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(ci)))
			e := newOpEnv(t)
			ts := n.Out.Types()
			mv := newMview(ts, n.StreamKey)
			live := map[int64]types.Row{}
			var ids []int64
			nextID := int64(1)
			in := &pushInput{}
			build := func() Operator {
				op, err := NewOverWindow(e.actx, in, n)
				if err != nil {
					t.Fatal(err)
				}
				return op
			}
			randRow := func(id int64) types.Row {
				r := types.Row{types.DInt(id), types.DInt(rng.Int64N(3)), types.DInt(rng.Int64N(6))}
				if rng.IntN(8) == 0 {
					r[2] = types.NullDatum
				}
				return r
			}
			op := build()
			mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
			changes := 0
			for epoch := 0; epoch < 120; epoch++ {
				c := types.NewChunk(overInTs, 64)
				for k := rng.IntN(10); k > 0; k-- {
					switch p := rng.IntN(10); {
					case p < 5 || len(ids) == 0:
						r := randRow(nextID)
						nextID++
						live[r[0].I] = r
						ids = append(ids, r[0].I)
						c.AppendRow(types.OpInsert, r)
					case p < 7:
						i := rng.IntN(len(ids))
						c.AppendRow(types.OpDelete, live[ids[i]])
						delete(live, ids[i])
						ids = append(ids[:i], ids[i+1:]...)
					default:
						id := ids[rng.IntN(len(ids))]
						r := randRow(id)
						c.AppendRow(types.OpUpdateDelete, live[id])
						c.AppendRow(types.OpUpdateInsert, r)
						live[id] = r
					}
				}
				out := e.stepBarrier(t, op, in, c, types.BarrierCheckpoint)
				for _, oc := range out {
					changes += oc.Len()
				}
				mv.apply(t, out)
				if rng.IntN(8) == 0 {
					op.Close()
					e.reset()
					op = build()
					mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
				}
				var rows []types.Row
				for _, r := range live {
					rows = append(rows, r)
				}
				var want []string
				for _, r := range batchWindow(t, n, rows) {
					want = append(want, rowText(ts, r))
				}
				sort.Strings(want)
				if got := mv.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("epoch %d:\nview:\n%s\nbatch:\n%s", epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			op.Close()
			if changes < 500 {
				t.Fatalf("only %d changes emitted", changes)
			}
		})
	}
}

// eowcCases are windows for the randomized EOWC test with the lookahead
// each needs, in rows (ahead) and in ORDER BY distance (reach): running
// counters and aggregates with history, calls that wait for later rows,
// ties on two ORDER BY keys, and RANGE frames.
func eowcCases() []struct {
	n     *planner.StreamOverWindow
	ahead int
	reach int64
} {
	v := colRef(3, types.TInt8)
	i4 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt4} }
	i8 := func(x int64) planner.Expr { return &planner.Const{V: types.DInt(x), T: types.TInt8} }
	a := overNode(true, true, 2,
		overCall("row_number", types.TInt8, nil), overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil),
		overCall("lag", types.TInt8, nil, v), overCall("lag", types.TInt8, nil, v, i4(3), i8(-1)),
		overCall("sum", types.TNumeric, nil, v), overCall("avg", types.TNumeric, nil, v),
		overCall("count", types.TInt8, rowsFrame(bound("unbounded_preceding", 0), bound("current_row", 0)), v),
		overCall("min", types.TInt8, rowsFrame(bound("unbounded_preceding", 0), bound("preceding", 1)), v),
		overCall("max", types.TInt8, rowsFrame(bound("preceding", 2), bound("current_row", 0)), v),
		overCall("first_value", types.TInt8, nil, v), overCall("nth_value", types.TInt8, nil, v, i4(2)),
		overCall("last_value", types.TInt8, rowsFrame(bound("preceding", 1), bound("preceding", 1)), v),
		overCall("last_value", types.TInt8, rowsFrame(bound("unbounded_preceding", 0), bound("preceding", 2)), v))
	b := overNode(true, true, 2,
		overCall("row_number", types.TInt8, nil), overCall("lead", types.TInt8, nil, v), overCall("lead", types.TInt8, nil, v, i4(2), i8(0)),
		overCall("lag", types.TInt8, nil, v, i4(-1), i8(7)),
		overCall("sum", types.TNumeric, rowsFrame(bound("preceding", 1), bound("following", 2)), v),
		overCall("count", types.TInt8, rowsFrame(bound("unbounded_preceding", 0), bound("following", 1))),
		overCall("first_value", types.TInt8, rowsFrame(bound("following", 1), bound("following", 3)), v))
	c := overNode(true, false, 2, overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil),
		overCall("sum", types.TNumeric, nil, v), overCall("lag", types.TInt8, nil, v))
	// ORDER BY ts, v (NULLs last): ties on both keys.
	c.OrderBy = append(c.OrderBy, planner.SortKey{Expr: v})
	for i := range c.Calls {
		c.Calls[i].OrderBy = c.OrderBy
	}
	// Each of these reaches back as far as one call alone says: rank one
	// row (a peer group is split only by a lookahead, as LEAD's here), a
	// running frame ending 2 PRECEDING two, a sliding frame two.
	d := overNode(true, true, 2, overCall("rank", types.TInt8, nil), overCall("dense_rank", types.TInt8, nil), overCall("lead", types.TInt8, nil, v))
	e := overNode(true, true, 2, overCall("sum", types.TNumeric, rowsFrame(bound("unbounded_preceding", 0), bound("preceding", 2)), v))
	f := overNode(true, true, 2, overCall("max", types.TInt8, rowsFrame(bound("preceding", 2), bound("current_row", 0)), v))
	// RANGE frames over ts reach by distance: back 3 (and 5), to the
	// current row's peers, and a running frame ending 2 before; ahead 2
	// (one frame ends 2 FOLLOWING, a running one 1 FOLLOWING).
	g := overNode(true, true, 2,
		overCall("row_number", types.TInt8, nil), overCall("lag", types.TInt8, nil, v),
		overCall("sum", types.TNumeric, rangeFrame(rangeBound("preceding", i8(3)), bound("current_row", 0)), v),
		overCall("count", types.TInt8, rangeFrame(bound("current_row", 0), bound("current_row", 0))),
		overCall("max", types.TInt8, rangeFrame(rangeBound("preceding", i8(2)), rangeBound("preceding", i8(1))), v),
		overCall("first_value", types.TInt8, rangeFrame(rangeBound("preceding", i8(5)), rangeBound("following", i8(2))), v),
		overCall("sum", types.TNumeric, rangeFrame(bound("unbounded_preceding", 0), rangeBound("preceding", i8(2))), v),
		overCall("count", types.TInt8, rangeFrame(bound("unbounded_preceding", 0), rangeBound("following", i8(1))), v))
	// Unpartitioned, with a count lookahead (LEAD) beside a distance one,
	// and a frame wholly after the current row.
	h := overNode(true, false, 2, overCall("lead", types.TInt8, nil, v),
		overCall("sum", types.TNumeric, rangeFrame(rangeBound("following", i8(1)), rangeBound("following", i8(3))), v),
		overCall("min", types.TInt8, rangeFrame(rangeBound("preceding", i8(4)), rangeBound("following", i8(0))), v))
	// Looking back only: the watermark passes through.
	i := overNode(true, true, 2, overCall("rank", types.TInt8, nil),
		overCall("avg", types.TNumeric, rangeFrame(rangeBound("preceding", i8(6)), rangeBound("preceding", i8(2))), v),
		overCall("last_value", types.TInt8, rangeFrame(rangeBound("preceding", i8(1)), bound("current_row", 0)), v))
	// Frames starting at the current row's peers: only LEAD's lookahead
	// splits a peer group between emitted rows and rows to come.
	j := overNode(true, true, 2, overCall("lead", types.TInt8, nil, v),
		overCall("count", types.TInt8, rangeFrame(bound("current_row", 0), bound("current_row", 0))),
		overCall("sum", types.TNumeric, rangeFrame(bound("current_row", 0), rangeBound("following", i8(1))), v))
	return []struct {
		n     *planner.StreamOverWindow
		ahead int
		reach int64
	}{{a, 0, 0}, {b, 3, 0}, {c, 0, 0}, {d, 1, 0}, {e, 0, 0}, {f, 0, 0}, {g, 0, 2}, {h, 1, 3}, {i, 0, 0}, {j, 1, 1}}
}

// TestEOWCOverWindowRandom streams random append-only rows with bounded
// disorder and rising watermarks through the EOWC OverWindow, restarting
// it from storage now and then. After every barrier the rows emitted so
// far, each once, must be exactly the final rows (ts below the
// watermark) that have the lookahead they need, with the values the
// batch Window gives over the final rows; and no row may come out below
// a watermark the operator emitted before it.
func TestEOWCOverWindowRandom(t *testing.T) {
	for ci, tc := range eowcCases() {
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			n := tc.n
			rng := rand.New(rand.NewPCG(31, uint64(ci)))
			e := newOpEnv(t)
			ts := n.Out.Types()
			in := &pushInput{}
			build := func() Operator {
				op, err := NewOverWindow(e.actx, in, n)
				if err != nil {
					t.Fatal(err)
				}
				return op
			}
			emitted := map[int64]string{}
			var rows []types.Row
			var clock, wm, wmOut int64
			hasWmOut := false
			nextID := int64(1)
			step := func(op Operator, msgs []types.Message, kind types.BarrierKind) {
				in.q = append(in.q, msgs...)
				in.q = append(in.q, types.Barrier{Epoch: types.Epoch{Prev: e.epoch, Curr: e.epoch + 1}, Kind: kind})
				e.epoch++
				for {
					m, err := op.Next(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					switch m := m.(type) {
					case *types.Chunk:
						for i := 0; i < m.Len(); i++ {
							r := m.Row(i)
							if m.Op(i) != types.OpInsert {
								t.Fatalf("%s row from an EOWC over window", m.Op(i))
							}
							if hasWmOut && r[2].I < wmOut {
								t.Fatalf("row %s below the watermark %d emitted before it", rowText(ts, r), wmOut)
							}
							if old, dup := emitted[r[0].I]; dup {
								t.Fatalf("row %s emitted twice (first %s)", rowText(ts, r), old)
							}
							emitted[r[0].I] = rowText(ts, r)
						}
					case types.Watermark:
						// Delayed by the RANGE frames' reach ahead.
						if len(n.Watermarks) == 0 || m.Col != 2 || m.Val.I != wm-tc.reach {
							t.Fatalf("watermark %v out (the input's is %d, the reach ahead %d)", m, wm, tc.reach)
						}
						wmOut, hasWmOut = m.Val.I, true
					case types.Barrier:
						if err := e.actx.WriteSet.Commit(); err != nil {
							t.Fatal(err)
						}
						e.actx.WriteSet = e.db.NewBatch()
						return
					case nil:
						t.Fatal("input ended before the barrier")
					}
				}
			}
			op := build()
			step(op, nil, types.BarrierInitial)
			for epoch := 0; epoch < 150; epoch++ {
				var msgs []types.Message
				for range rng.IntN(3) + 1 {
					c := types.NewChunk(eowcInTs, 16)
					for range rng.IntN(6) {
						clock += rng.Int64N(2)
						at := max(clock-rng.Int64N(4), wm)
						r := types.Row{types.DInt(nextID), types.DInt(rng.Int64N(3)), types.DInt(at), types.DInt(rng.Int64N(5))}
						if rng.IntN(8) == 0 {
							r[3] = types.NullDatum
						}
						nextID++
						rows = append(rows, r)
						c.AppendRow(types.OpInsert, r)
					}
					msgs = append(msgs, c)
					if rng.IntN(2) == 0 {
						wm = max(wm, clock-rng.Int64N(4))
						msgs = append(msgs, types.Watermark{Col: 2, T: types.TInt8, Val: types.DInt(wm)})
					}
				}
				step(op, msgs, types.BarrierCheckpoint)
				if rng.IntN(10) == 0 {
					op.Close()
					e.reset()
					op = build()
					step(op, nil, types.BarrierInitial)
				}
				// The batch Window over the final rows; a row is due once
				// ahead final rows of its partition follow it and the
				// watermark has passed its time plus reach.
				var final []types.Row
				for _, r := range rows {
					if r[2].I < wm {
						final = append(final, r)
					}
				}
				out := batchWindow(t, n, final)
				per := map[int64]int{}
				for _, r := range out {
					if len(n.PartitionBy) > 0 {
						per[r[1].I]++
					} else {
						per[0]++
					}
				}
				want := map[int64]string{}
				pos := map[int64]int{}
				for _, r := range out {
					g := int64(0)
					if len(n.PartitionBy) > 0 {
						g = r[1].I
					}
					if pos[g] < per[g]-tc.ahead && r[2].I+tc.reach < wm {
						want[r[0].I] = rowText(ts, r)
					}
					pos[g]++
				}
				if len(want) != len(emitted) {
					t.Fatalf("epoch %d (watermark %d): %d rows emitted, %d due", epoch, wm, len(emitted), len(want))
				}
				for id, w := range want {
					if emitted[id] != w {
						t.Fatalf("epoch %d (watermark %d): row %d emitted as %q, batch gives %q", epoch, wm, id, emitted[id], w)
					}
				}
			}
			op.Close()
			if len(emitted) < 300 {
				t.Fatalf("only %d rows emitted", len(emitted))
			}
		})
	}
}
