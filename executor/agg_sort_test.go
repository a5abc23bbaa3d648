package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

var (
	tI8Array = types.T{ID: types.Int8Array, Mod: -1}
	tF8Array = types.T{ID: types.Float8Array, Mod: -1}
)

// sortedCalls are aggregate calls with DISTINCT or ORDER BY over
// spillScan's columns (a int8 with NULLs and few values, b unique text,
// c float8 with NULLs, d numeric), whose results do not depend on how
// rows with equal sort keys are ordered, and their result types.
func sortedCalls() ([]planner.AggCall, []types.T) {
	a, b, c, d := col(0, tI8), col(1, tTxt), col(2, tF8), col(3, tN)
	comma := cnst(types.DString(","), tTxt)
	calls := []planner.AggCall{
		{Fn: "count", Args: []planner.Expr{a}, Distinct: true, T: tI8},
		{Fn: "sum", Args: []planner.Expr{d}, Distinct: true, T: tN},
		{Fn: "array_agg", Args: []planner.Expr{a}, Distinct: true, T: tI8Array},
		{Fn: "string_agg", Args: []planner.Expr{b, comma}, OrderBy: []planner.SortKey{{Expr: b, Desc: true, NullsFirst: true}}, T: tTxt},
		{Fn: "array_agg", Args: []planner.Expr{c}, OrderBy: []planner.SortKey{{Expr: c, NullsFirst: true}}, T: tF8Array},
		{Fn: "array_agg", Args: []planner.Expr{c}, OrderBy: []planner.SortKey{{Expr: c, Desc: true, NullsFirst: false}}, T: tF8Array},
		{Fn: "string_agg", Args: []planner.Expr{b, comma}, Distinct: true, OrderBy: []planner.SortKey{{Expr: b, Desc: true}}, T: tTxt},
		{Fn: "array_agg", Args: []planner.Expr{a}, Distinct: true, OrderBy: []planner.SortKey{{Expr: a, Desc: true, NullsFirst: true}}, T: tI8Array},
		{Fn: "count", Args: []planner.Expr{a}, T: tI8},
	}
	ts := make([]types.T, len(calls))
	for i, c := range calls {
		ts[i] = c.T
	}
	return calls, ts
}

// TestAggSortSpillMatchesMemory runs aggregates with DISTINCT and ORDER
// BY (DESC, NULLS FIRST and LAST) with a tiny work_mem and without one,
// over one group and over fifty: the rows are the same, the calls'
// input went to tapes, and no tape is left after Close.
func TestAggSortSpillMatchesMemory(t *testing.T) {
	rows := spillRows(8000)
	ec0 := newEC()
	scan := spillScan(rows, ec0)
	mk := func() *ExecCtx { ec := newEC(); ec.Source = ec0.Source; return ec }
	calls, ts := sortedCalls()
	sameOutput(t, "no GROUP BY", &planner.Agg{Input: scan, Aggs: calls, Out: schema(ts...)}, mk)
	byA := &planner.Agg{Input: scan, GroupBy: []planner.Expr{col(0, tI8)}, Aggs: calls, Out: schema(append([]types.T{tI8}, ts...)...)}
	sameOutput(t, "GROUP BY a", byA, mk)
	// Many groups of a few rows: the table spills too.
	byB := &planner.Agg{Input: scan, GroupBy: []planner.Expr{col(1, tTxt)}, Aggs: calls, Out: schema(append([]types.T{tTxt}, ts...)...)}
	sameOutput(t, "GROUP BY b", byB, mk)
}

// TestAggSortTiesInMemory checks that a call's input held in memory is
// ordered as the accumulators of package functions order it, rows with
// equal keys included (pgsort over the rows in the order they came),
// and that DISTINCT keeps what PostgreSQL keeps.
func TestAggSortTiesInMemory(t *testing.T) {
	rows := spillRows(3000)
	ec0 := newEC()
	scan := spillScan(rows, ec0)
	a, b, c := col(0, tI8), col(1, tTxt), col(2, tF8)
	comma := cnst(types.DString(","), tTxt)
	calls := []planner.AggCall{
		// Fifty values of a for 3,000 rows: the order of b within each
		// is the sort's order of ties.
		{Fn: "string_agg", Args: []planner.Expr{b, comma}, OrderBy: []planner.SortKey{{Expr: a}}, T: tTxt},
		{Fn: "string_agg", Args: []planner.Expr{b, comma}, OrderBy: []planner.SortKey{{Expr: a, Desc: true, NullsFirst: true}, {Expr: c}}, T: tTxt},
		{Fn: "array_agg", Args: []planner.Expr{c}, OrderBy: []planner.SortKey{{Expr: a, NullsFirst: true}}, T: tF8Array},
		{Fn: "array_agg", Args: []planner.Expr{a}, Distinct: true, T: tI8Array},
		{Fn: "count", Args: []planner.Expr{a}, Distinct: true, T: tI8},
	}
	var ts []types.T
	for _, call := range calls {
		ts = append(ts, call.T)
	}
	got, err := runPlan(t, &planner.Agg{Input: scan, Aggs: calls, Out: schema(ts...)}, newECWith(ec0))
	if err != nil {
		t.Fatal(err)
	}
	for j, call := range calls {
		spec := functions.AggSpec{Fn: call.Fn, ArgTypes: exprTypes(call.Args), T: call.T, Distinct: call.Distinct}
		for _, k := range call.OrderBy {
			spec.OrderBy = append(spec.OrderBy, functions.OrderSpec{T: k.Expr.Type(), Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		mkAcc, err := functions.NewAccumulatorFunc(spec)
		if err != nil {
			t.Fatal(err)
		}
		acc := mkAcc()
		for _, r := range rows {
			var args []types.Datum
			for _, e := range call.Args {
				args = append(args, evalOn(t, e, r))
			}
			for _, k := range call.OrderBy {
				args = append(args, evalOn(t, k.Expr, r))
			}
			if err := acc.Add(args); err != nil {
				t.Fatal(err)
			}
		}
		want := rowText(types.Row{acc.Result()})
		if g := rowText(types.Row{got.Row(0)[j]}); g != want {
			t.Errorf("call %d (%s): got %.200s…, want %.200s…", j, call.Fn, g, want)
		}
	}
}

// newECWith returns a fresh ExecCtx reading ec's source.
func newECWith(ec *ExecCtx) *ExecCtx {
	n := newEC()
	n.Source = ec.Source
	return n
}

// evalOn evaluates the column reference or constant e over row r.
func evalOn(t *testing.T, e planner.Expr, r types.Row) types.Datum {
	t.Helper()
	switch e := e.(type) {
	case *planner.ColRef:
		return r[e.Idx]
	case *planner.Const:
		return e.V
	}
	t.Fatalf("evalOn: %T", e)
	return types.NullDatum
}

// TestAggSortDistinctKeepsFirst checks DISTINCT over values that are
// equal but print differently (numerics of different scales): the first
// in the sort's order is kept, as PostgreSQL's
// process_ordered_aggregate_single keeps it. With four rows a group,
// pgsort sorts by insertion, which keeps equal values in the order they
// came, and so does a merge of runs: the first one read is kept, spilled
// or not.
func TestAggSortDistinctKeepsFirst(t *testing.T) {
	var rows []types.Row
	scales := []string{"0", "00", "000", "0"}
	for i := 0; i < 8000; i++ {
		g, j := i/4, i%4
		v := dec(fmt.Sprintf("%d.%s", g%50+j/2, scales[j]))
		rows = append(rows, types.Row{types.DInt(int64(g)), types.DString(""), types.DFloat(0), v, types.DString("")})
	}
	ec0 := newEC()
	scan := spillScan(rows, ec0)
	d := col(3, tN)
	numArray := types.T{ID: types.NumericArray, Mod: -1}
	calls := []planner.AggCall{
		{Fn: "count", Args: []planner.Expr{d}, Distinct: true, T: tI8},
		{Fn: "array_agg", Args: []planner.Expr{d}, Distinct: true, T: numArray},
		{Fn: "array_agg", Args: []planner.Expr{d}, Distinct: true, OrderBy: []planner.SortKey{{Expr: d, Desc: true}}, T: numArray},
	}
	p := &planner.Agg{Input: scan, GroupBy: []planner.Expr{col(0, tI8)}, Aggs: calls, Out: schema(tI8, tI8, numArray, numArray)}
	mk := func() *ExecCtx { return newECWith(ec0) }
	sameOutput(t, "distinct numerics", p, mk)
	got, err := runPlan(t, p, mk())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < got.Len(); i++ {
		r := got.Row(i)
		x := r[0].I % 50
		want := fmt.Sprintf("{%d.0,%d.000} {%d.000,%d.0}", x, x+1, x+1, x)
		if g := r[2].S + " " + r[3].S; r[1].I != 2 || g != want {
			t.Fatalf("group %d: %d %s, want 2 %s", r[0].I, r[1].I, g, want)
		}
	}
}

// TestAggSortStopsCleanly stops an aggregation whose DISTINCT and ORDER
// BY calls spilled: by an input error, by a cancel while it reads, and by
// Close after the first chunk. It reports the error and leaves no tape.
func TestAggSortStopsCleanly(t *testing.T) {
	rows := spillRows(10000)
	calls, ts := sortedCalls()
	for _, stop := range []string{"error", "cancel", "close"} {
		t.Run(stop, func(t *testing.T) {
			temp := newTemp(t)
			ec := newEC()
			ec.WorkMem, ec.Temp = spillWorkMem, temp
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			scanPlan := spillScan(rows, ec)
			scan, err := Build(scanPlan, ec)
			if err != nil {
				t.Fatal(err)
			}
			var in Operator = scan
			p := &planner.Agg{Input: scanPlan, Aggs: calls, Out: schema(ts...)}
			switch stop {
			case "error":
				in = &failAfter{in: scan, n: 6}
			case "cancel":
				in = &cancelAfter{in: scan, n: 6, cancel: cancel}
			case "close":
				p = &planner.Agg{Input: scanPlan, GroupBy: []planner.Expr{col(1, tTxt)}, Aggs: calls, Out: schema(append([]types.T{tTxt}, ts...)...)}
			}
			a, err := NewHashAgg(in, p, ec)
			if err != nil {
				t.Fatal(err)
			}
			c, err := a.Next(ctx)
			switch stop {
			case "error":
				if err == nil || !strings.Contains(err.Error(), "input failed") {
					t.Errorf("got %v, want the input's error", err)
				}
			case "cancel":
				if !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want context.Canceled", err)
				}
			case "close":
				if err != nil || c == nil {
					t.Fatalf("first chunk: %v, %v", c, err)
				}
				if len(temp.left(t)) == 0 {
					t.Fatal("no tapes after the first chunk")
				}
			}
			if temp.tapes == 0 {
				t.Fatal("nothing spilled")
			}
			if stop != "close" {
				if left := temp.left(t); len(left) != 0 {
					t.Errorf("tapes left after the %s: %v", stop, left)
				}
			}
			a.Close()
			if left := temp.left(t); len(left) != 0 {
				t.Errorf("tapes left after Close: %v", left)
			}
		})
	}
}

// TestNestedLoopSpillMatchesMemory joins without keys a build side many
// times work_mem: it goes to a tape and is joined block by block, with
// every join kind's rows as in memory, and no tape left behind.
func TestNestedLoopSpillMatchesMemory(t *testing.T) {
	var lrows, rrows []types.Row
	for i := 0; i < 120; i++ {
		lrows = append(lrows, types.Row{types.DInt(int64(i)), types.DInt(int64(i % 9))})
	}
	for i := 0; i < 1500; i++ {
		rrows = append(rrows, types.Row{types.DInt(int64(i)), types.DInt(int64(i % 11)), types.DString(strings.Repeat("r", 40))})
	}
	ec0 := newEC()
	l := relScan(ec0, 1, lrows, tI4, tI4)
	r := relScan(ec0, 2, rrows, tI4, tI4, tTxt)
	mk := func() *ExecCtx { return newECWith(ec0) }
	// left a * 10 < right a and left b = right b: some left rows match
	// in some blocks only, some in none, and some right rows never.
	times := &planner.Call{Fn: "*", Args: []planner.Expr{col(0, tI4), cnst(types.DInt(12), tI4)}, T: tI4}
	lt := &planner.Call{Fn: "<", Args: []planner.Expr{times, col(2, tI4)}, T: tB}
	eq := &planner.Call{Fn: "=", Args: []planner.Expr{col(1, tI4), col(3, tI4)}, T: tB}
	cond := &planner.And{Args: []planner.Expr{lt, eq}}
	for _, k := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		out := schema(tI4, tI4, tI4, tI4, tTxt)
		if k == planner.SemiJoin || k == planner.AntiJoin {
			out = schema(tI4, tI4)
		}
		for _, c := range []planner.Expr{nil, cond} {
			if c == nil && k != planner.InnerJoin && k != planner.SemiJoin {
				continue // every row matches: nothing more to see
			}
			p := &planner.Join{Kind: k, Left: l, Right: r, Cond: c, Out: out}
			sameOutput(t, fmt.Sprintf("kind %d, condition %v", k, c != nil), p, mk)
			ec := mk()
			ec.WorkMem, ec.Temp = spillWorkMem, newTemp(t)
			lop, _ := Build(l, ec)
			rop, _ := Build(r, ec)
			j, err := NewNestedLoopJoin(lop, rop, p, ec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := drain(context.Background(), j, out.Types()); err != nil {
				t.Fatal(err)
			}
			j.Close()
			if j.blockJoins == 0 {
				t.Errorf("kind %d: not joined block by block", k)
			}
		}
	}
}

// TestNestedLoopSpillStops closes a spilled nested-loop join after its
// first chunk and cancels another: no tape is left.
func TestNestedLoopSpillStops(t *testing.T) {
	var rows []types.Row
	for i := 0; i < 2000; i++ {
		rows = append(rows, types.Row{types.DInt(int64(i)), types.DString(strings.Repeat("x", 30))})
	}
	ec0 := newEC()
	l := relScan(ec0, 1, rows[:300], tI4, tTxt)
	r := relScan(ec0, 2, rows, tI4, tTxt)
	cond := &planner.Call{Fn: "<", Args: []planner.Expr{col(0, tI4), col(2, tI4)}, T: tB}
	p := &planner.Join{Kind: planner.FullJoin, Left: l, Right: r, Cond: cond, Out: schema(tI4, tTxt, tI4, tTxt)}
	for _, cancelIt := range []bool{false, true} {
		ec := newECWith(ec0)
		temp := newTemp(t)
		ec.WorkMem, ec.Temp = spillWorkMem, temp
		ctx, cancel := context.WithCancel(context.Background())
		op, err := Build(p, ec)
		if err != nil {
			t.Fatal(err)
		}
		c, err := op.Next(ctx)
		if err != nil || c == nil {
			t.Fatalf("first Next: %v, %v", c, err)
		}
		if cancelIt {
			cancel()
			for err == nil && c != nil {
				c, err = op.Next(ctx)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled, got %v", err)
			}
		}
		op.Close()
		cancel()
		if temp.tapes == 0 {
			t.Error("did not spill")
		}
		if left := temp.left(t); len(left) > 0 {
			t.Errorf("cancelled %v: tapes left after Close: %v", cancelIt, left)
		}
	}
}
