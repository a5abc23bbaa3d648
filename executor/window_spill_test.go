package executor

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

var winSpillRel = &catalog.Relation{ID: 9, Name: "w", Cols: []catalog.Column{
	{Name: "a", T: tI8}, {Name: "b", T: tTxt}, {Name: "c", T: tF8}, {Name: "k", T: tI4}, {Name: "p", T: tI8},
}}

// winSpillRows returns n rows: a has few values (long peer groups) and
// NULLs, b is unique and wide, c a float with NULLs and ties, k an int4
// from 1 to 10 (a varying lag offset, and ntile's argument), p a
// partition key with three values.
func winSpillRows(n int) []types.Row {
	r := rand.New(rand.NewSource(2))
	rows := make([]types.Row, n)
	for i := range rows {
		a := types.DInt(int64(r.Intn(40)))
		if r.Intn(25) == 0 {
			a = types.NullDatum
		}
		c := types.DFloat(float64(r.Intn(200)) / 8)
		if r.Intn(15) == 0 {
			c = types.NullDatum
		}
		rows[i] = types.Row{a, types.DString(fmt.Sprintf("%06d-%s", i, strings.Repeat("w", r.Intn(200)))),
			c, types.DInt(int64(1 + r.Intn(10))), types.DInt(int64(r.Intn(3)))}
	}
	return rows
}

func winSpillScan(rows []types.Row, ec *ExecCtx) *planner.Scan {
	ec.Source = &fakeSource{rels: map[uint32][]types.Row{9: rows}}
	return &planner.Scan{Rel: winSpillRel, Cols: []int{0, 1, 2, 3, 4}, Out: schema(tI8, tTxt, tF8, tI4, tI8)}
}

// winSpillCalls returns window calls of every kind: ranking, offsets
// (constant and varying), frame values and aggregates over ROWS, RANGE
// (with offsets of integer and float keys, either direction) and GROUPS
// frames, with and without exclusions, over one partition and over
// several, with and without ORDER BY.
func winSpillCalls() []planner.WindowCall {
	a, b, c, k, p := col(0, tI8), col(1, tTxt), col(2, tF8), col(3, tI4), col(4, tI8)
	oA := []planner.SortKey{{Expr: a, NullsFirst: true}}
	oAD := []planner.SortKey{{Expr: a, Desc: true}}
	oC := []planner.SortKey{{Expr: c, Desc: true, NullsFirst: false}}
	oB := []planner.SortKey{{Expr: b}}
	part := []planner.Expr{p}
	bd := func(kind string, off planner.Expr) planner.FrameBound {
		return planner.FrameBound{Kind: kind, Offset: off}
	}
	up, uf, cr := bd("unbounded_preceding", nil), bd("unbounded_following", nil), bd("current_row", nil)
	pre := func(n int64) planner.FrameBound { return bd("preceding", i8(n)) }
	fol := func(n int64) planner.FrameBound { return bd("following", i8(n)) }
	fr := func(mode string, s, e planner.FrameBound, excl string) *planner.Frame {
		return &planner.Frame{Mode: mode, Start: s, End: e, Exclude: excl}
	}
	w := func(fn string, t types.T, ord []planner.SortKey, f *planner.Frame, args ...planner.Expr) planner.WindowCall {
		return planner.WindowCall{Fn: fn, Args: args, OrderBy: ord, Frame: f, T: t}
	}
	inPart := func(c planner.WindowCall) planner.WindowCall { c.PartitionBy = part; return c }
	return []planner.WindowCall{
		w("row_number", tI8, oA, nil), w("rank", tI8, oA, nil), w("dense_rank", tI8, oA, nil),
		w("percent_rank", tF8, oA, nil), w("cume_dist", tF8, oA, nil), w("ntile", tI4, oA, nil, cnst(types.DInt(7), tI4)),
		w("ntile", tI4, oA, nil, k),
		w("lag", tTxt, oA, nil, b), w("lead", tTxt, oA, nil, b, cnst(types.DInt(3), tI4), cnst(types.DString("none"), tTxt)),
		w("lag", tTxt, oA, nil, b, k), w("lead", tF8, oA, nil, c, k),
		w("first_value", tTxt, oA, nil, b), w("last_value", tTxt, oA, nil, b), w("nth_value", tTxt, oA, nil, b, cnst(types.DInt(3), tI4)),
		w("sum", tN, oA, nil, a), w("count", tI8, oA, nil), w("min", tTxt, oA, nil, b),
		w("sum", tN, oA, fr("rows", pre(3), fol(2), ""), a),
		w("min", tTxt, oA, fr("rows", up, fol(5), ""), b),
		w("count", tI8, oA, fr("rows", fol(10), fol(20), ""), a),
		w("first_value", tTxt, oA, fr("rows", fol(10), fol(20), ""), b),
		w("last_value", tTxt, oA, fr("rows", pre(20), pre(10), ""), b),
		w("sum", tN, oA, fr("groups", pre(2), fol(1), ""), a),
		w("count", tI8, oA, fr("groups", cr, fol(3), "group"), a),
		w("nth_value", tTxt, oA, fr("groups", pre(1), fol(1), "ties"), b, cnst(types.DInt(2), tI4)),
		w("sum", tN, oA, fr("range", pre(5), fol(3), ""), a),
		w("count", tI8, oA, fr("range", cr, uf, "ties"), a),
		w("sum", tN, oA, fr("rows", pre(2), fol(2), "ties"), a),
		w("max", tTxt, oA, fr("rows", pre(4), fol(4), "current_row"), b),
		w("sum", tN, oAD, fr("range", fol(2), fol(6), ""), a),
		w("last_value", tI8, oAD, fr("range", pre(3), cr, "group"), a),
		w("avg", tF8, oC, fr("range", bd("preceding", cnst(types.DFloat(1.5), tF8)), bd("following", cnst(types.DFloat(0.5), tF8)), ""), c),
		w("count", tI8, oC, fr("range", up, bd("preceding", cnst(types.DFloat(2), tF8)), ""), c),
		w("count", tI8, nil, nil), w("sum", tN, nil, fr("rows", pre(1), fol(1), ""), a),
		inPart(w("row_number", tI8, oB, nil)), inPart(w("sum", tN, oB, fr("rows", up, uf, "current_row"), a)),
		inPart(w("first_value", tTxt, oB, fr("rows", pre(3), cr, "current_row"), b)),
		inPart(w("lead", tTxt, oB, nil, b, k)),
	}
}

// TestWindowPartitionSpills computes winSpillCalls over 2,000 rows with
// a work_mem of 1, 16 and 64 kB, so that one partition (of all the
// rows, or of a third of them) spills to tapes a few rows in or most of
// the way in, and checks every value, and the order of the rows, equal
// those computed in memory; no tape is left afterwards.
func TestWindowPartitionSpills(t *testing.T) {
	rows := winSpillRows(2000)
	calls := winSpillCalls()
	out := schema(tI8, tTxt, tF8, tI4, tI8)
	for _, c := range calls {
		out = append(out, types.Column{T: c.T})
	}
	memEC := newEC()
	want := sortText(t, &planner.Window{Input: winSpillScan(rows, memEC), Calls: calls, Out: out}, memEC)
	for _, workMem := range []int64{1 << 10, 16 << 10, 64 << 10} {
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = workMem, temp
		got := sortText(t, &planner.Window{Input: winSpillScan(rows, ec), Calls: calls, Out: out}, ec)
		if len(got) != len(rows) || len(want) != len(rows) {
			t.Fatalf("work_mem %d: %d and %d rows, want %d", workMem, len(got), len(want), len(rows))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("work_mem %d, row %d:\n%s\nwant\n%s", workMem, i, got[i], want[i])
			}
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("work_mem %d: tapes left after the window: %v", workMem, left)
		}
	}
}

// unsortedWindow returns a window whose first calls have neither
// PARTITION BY nor ORDER BY, so that no Sort runs below them and the
// only tapes are the window's partition's.
func unsortedWindow(rows []types.Row, ec *ExecCtx) *planner.Window {
	b := col(1, tTxt)
	calls := []planner.WindowCall{
		{Fn: "count", T: tI8},
		{Fn: "lag", Args: []planner.Expr{b, col(3, tI4)}, T: tTxt},
		{Fn: "min", Args: []planner.Expr{b}, Frame: &planner.Frame{Mode: "rows",
			Start: planner.FrameBound{Kind: "preceding", Offset: i8(2)}, End: planner.FrameBound{Kind: "following", Offset: i8(2)}}, T: tTxt},
	}
	return &planner.Window{Input: winSpillScan(rows, ec), Calls: calls, Out: schema(tI8, tTxt, tF8, tI4, tI8, tI8, tTxt, tTxt)}
}

// TestWindowPartitionSpillCleanup checks that a window whose partition
// is on tapes removes them when it ends, when it is closed before its
// end, when it is cancelled and when its input fails.
func TestWindowPartitionSpillCleanup(t *testing.T) {
	rows := winSpillRows(5000)
	setup := func(t *testing.T) (*ExecCtx, *countingTemp) {
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = 16<<10, temp
		return ec, temp
	}
	t.Run("end", func(t *testing.T) {
		ec, temp := setup(t)
		memEC := newEC()
		want := sortText(t, unsortedWindow(rows, memEC), memEC)
		got := sortText(t, unsortedWindow(rows, ec), ec)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Error("the spilled window's rows differ from those computed in memory")
		}
		if temp.tapes == 0 {
			t.Fatal("the partition did not spill")
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("tapes left at the end: %v", left)
		}
	})
	for _, how := range []string{"closed", "cancelled"} {
		t.Run(how, func(t *testing.T) {
			ec, temp := setup(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			op, err := Build(unsortedWindow(rows, ec), ec)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := op.Next(ctx); err != nil || c == nil {
				t.Fatalf("first chunk: %v, %v", c, err)
			}
			if len(temp.left(t)) == 0 {
				t.Fatal("no tapes while the partition is emitted")
			}
			if how == "cancelled" {
				cancel()
				if _, err := op.Next(ctx); err != context.Canceled {
					t.Fatalf("got %v, want context.Canceled", err)
				}
				if left := temp.left(t); len(left) != 0 {
					t.Errorf("tapes left after the cancel: %v", left)
				}
			}
			op.Close()
			if left := temp.left(t); len(left) != 0 {
				t.Errorf("tapes left after Close: %v", left)
			}
		})
	}
	t.Run("input fails", func(t *testing.T) {
		ec, temp := setup(t)
		p := unsortedWindow(rows, ec)
		scan, err := Build(p.Input, ec)
		if err != nil {
			t.Fatal(err)
		}
		op := NewWindow(&failAfter{in: scan, n: 3}, p, ec)
		if _, err := op.Next(context.Background()); err == nil || err.Error() != "input failed" {
			t.Fatalf("got %v, want the input's error", err)
		}
		if temp.tapes == 0 {
			t.Fatal("the partition did not spill before the input failed")
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("tapes left after the error: %v", left)
		}
		op.Close()
	})
}
