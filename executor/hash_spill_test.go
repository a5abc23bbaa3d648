package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// spillWorkMem is the work_mem of the spilling tests: small enough that a
// few thousand rows spill several levels deep.
const spillWorkMem = 16 << 10

// relScan is a scan of rows (of types ts) served by ec's fake source as
// relation id.
func relScan(ec *ExecCtx, id uint32, rows []types.Row, ts ...types.T) *planner.Scan {
	src, _ := ec.Source.(*fakeSource)
	if src == nil || src.rels == nil {
		src = &fakeSource{rels: map[uint32][]types.Row{}}
		ec.Source = src
	}
	src.rels[id] = rows
	rel := &catalog.Relation{ID: id, Name: fmt.Sprintf("r%d", id)}
	cols := make([]int, len(ts))
	for i, t := range ts {
		rel.Cols = append(rel.Cols, catalog.Column{Name: fmt.Sprintf("c%d", i), T: t})
		cols[i] = i
	}
	return &planner.Scan{Rel: rel, Cols: cols, Out: schema(ts...)}
}

// sortedRows runs p and returns its rows as text lines, sorted.
func sortedRows(t *testing.T, p planner.Plan, ec *ExecCtx) []string {
	t.Helper()
	c, err := runPlan(t, p, ec)
	if err != nil {
		t.Fatalf("running the plan: %v", err)
	}
	lines := make([]string, c.Len())
	for i := range lines {
		lines[i] = rowText(c.Row(i))
	}
	sort.Strings(lines)
	return lines
}

// sameOutput checks that p gives the same rows with a tiny work_mem as
// without a limit, that it spilled, and that no tape is left behind.
func sameOutput(t *testing.T, name string, p planner.Plan, mk func() *ExecCtx) {
	t.Helper()
	want := sortedRows(t, p, mk())
	ec := mk()
	temp := newTemp(t)
	ec.WorkMem, ec.Temp = spillWorkMem, temp
	got := sortedRows(t, p, ec)
	if temp.tapes == 0 {
		t.Errorf("%s: did not spill", name)
	}
	if left := temp.left(t); len(left) > 0 {
		t.Errorf("%s: tapes left after Close: %v", name, left)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows spilling, %d in memory", name, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d spilling is %s, in memory %s", name, i, got[i], want[i])
		}
	}
	t.Logf("%s: %d rows, %d tapes", name, len(got), temp.tapes)
}

// aggRows are n rows (k, v, s, f): k has NULLs and a skewed key that
// holds a fifth of the rows, v has NULLs and repeats, s is text of a
// few dozen bytes.
func aggRows(n int) []types.Row {
	rows := make([]types.Row, n)
	for i := range rows {
		k := types.DInt(int64(i * 7919 % (n / 4)))
		switch {
		case i%5 == 0:
			k = types.DInt(42)
		case i%97 == 0:
			k = types.NullDatum
		}
		v := types.DInt(int64(i % 13))
		if i%11 == 0 {
			v = types.NullDatum
		}
		s := types.DString(fmt.Sprintf("s%05d-%s", i%1000, strings.Repeat("x", i%20)))
		rows[i] = types.Row{k, v, s, types.DBool(i%3 != 0)}
	}
	return rows
}

func TestHashAggSpillMatchesMemory(t *testing.T) {
	rows := aggRows(20000)
	mk := func() *ExecCtx { return newEC() }
	ec0 := mk()
	scan := func() planner.Plan { return relScan(ec0, 1, rows, tI8, tI8, tTxt, tB) }
	k, v, s, f := col(0, tI8), col(1, tI8), col(2, tTxt), col(3, tB)
	calls := []planner.AggCall{
		{Fn: "count", T: tI8},
		{Fn: "count", Args: []planner.Expr{v}, T: tI8},
		{Fn: "sum", Args: []planner.Expr{v}, T: tN},
		{Fn: "avg", Args: []planner.Expr{v}, T: tN},
		{Fn: "min", Args: []planner.Expr{s}, T: tTxt},
		{Fn: "max", Args: []planner.Expr{v}, T: tI8},
		{Fn: "string_agg", Args: []planner.Expr{s, cnst(types.DString(","), tTxt)}, OrderBy: []planner.SortKey{{Expr: s}}, T: tTxt},
		{Fn: "array_agg", Args: []planner.Expr{v}, T: types.T{ID: types.Int8Array, Mod: -1}},
		{Fn: "count", Args: []planner.Expr{v}, Distinct: true, T: tI8},
		{Fn: "sum", Args: []planner.Expr{v}, Filter: f, T: tN},
	}
	out := schema(tI8, tI8, tI8, tN, tN, tTxt, tI8, tTxt, types.T{ID: types.Int8Array, Mod: -1}, tI8, tN)
	byK := &planner.Agg{Input: scan(), GroupBy: []planner.Expr{k}, Aggs: calls, Out: out}
	mkSrc := func() *ExecCtx { ec := mk(); ec.Source = ec0.Source; return ec }
	sameOutput(t, "group by k", byK, mkSrc)
	// A text key with many groups, a few rows each.
	byS := &planner.Agg{Input: scan(), GroupBy: []planner.Expr{s, f}, Aggs: calls[:4], Out: schema(tTxt, tB, tI8, tI8, tN, tN)}
	sameOutput(t, "group by s, f", byS, mkSrc)
	// Without GROUP BY there is one group, whose table never spills;
	// its ordered and distinct calls' input does.
	one := &planner.Agg{Input: scan(), Aggs: calls, Out: out[1:]}
	sameOutput(t, "no GROUP BY", one, mkSrc)
}

func TestHashJoinSpillMatchesMemory(t *testing.T) {
	// Left: 6000 rows, right: 5000; keys repeat, a few NULL, and key 7
	// holds many rows on both sides.
	var lrows, rrows []types.Row
	for i := 0; i < 6000; i++ {
		k := types.DInt(int64(i % 2500))
		if i%10 == 0 {
			k = types.DInt(7)
		}
		if i%301 == 0 {
			k = types.NullDatum
		}
		lrows = append(lrows, types.Row{k, types.DString(fmt.Sprintf("left-%d-%s", i, strings.Repeat("l", i%30)))})
	}
	for i := 0; i < 5000; i++ {
		k := types.DInt(int64(i*3 + 1000))
		if i%50 == 0 {
			k = types.DInt(7)
		}
		if i%203 == 0 {
			k = types.NullDatum
		}
		rrows = append(rrows, types.Row{k, types.DString(fmt.Sprintf("right-%d", i)), types.DBool(i%4 != 1)})
	}
	ec0 := newEC()
	l := relScan(ec0, 1, lrows, tI4, tTxt)
	r := relScan(ec0, 2, rrows, tI4, tTxt, tB)
	mk := func() *ExecCtx { ec := newEC(); ec.Source = ec0.Source; return ec }
	kinds := map[string]planner.JoinKind{
		"inner": planner.InnerJoin, "left": planner.LeftJoin, "right": planner.RightJoin,
		"full": planner.FullJoin, "semi": planner.SemiJoin, "anti": planner.AntiJoin,
	}
	for name, k := range kinds {
		for _, cond := range []planner.Expr{nil, col(4, tB)} {
			out := schema(tI4, tTxt, tI4, tTxt, tB)
			if k == planner.SemiJoin || k == planner.AntiJoin {
				out = schema(tI4, tTxt)
			}
			p := &planner.Join{Kind: k, Left: l, Right: r,
				LeftKeys: []planner.Expr{col(0, tI4)}, RightKeys: []planner.Expr{col(0, tI4)}, Cond: cond, Out: out}
			sameOutput(t, fmt.Sprintf("%s join, condition %v", name, cond != nil), p, mk)
		}
	}
}

// TestHashJoinSpillSkewedKey joins a key whose build rows are many times
// work_mem: splitting the batch cannot help, so it is joined block by
// block, with every join kind's unmatched rows right.
func TestHashJoinSpillSkewedKey(t *testing.T) {
	var lrows, rrows []types.Row
	for i := 0; i < 90; i++ {
		k := types.DInt(5)
		if i%3 == 0 {
			k = types.DInt(int64(i))
		}
		lrows = append(lrows, types.Row{k, types.DInt(int64(i))})
	}
	for i := 0; i < 1500; i++ {
		k := types.DInt(5)
		if i%100 == 0 {
			k = types.DInt(int64(i + 1))
		}
		rrows = append(rrows, types.Row{k, types.DInt(int64(i)), types.DString(strings.Repeat("r", 40))})
	}
	ec0 := newEC()
	l := relScan(ec0, 1, lrows, tI4, tI4)
	r := relScan(ec0, 2, rrows, tI4, tI4, tTxt)
	mk := func() *ExecCtx { ec := newEC(); ec.Source = ec0.Source; return ec }
	// The residual condition: left b < right b / 20, so that a left row
	// of the skewed key matches only in some blocks and some in none.
	tenth := &planner.Call{Fn: "/", Args: []planner.Expr{col(3, tI4), cnst(types.DInt(20), tI4)}, T: tI4}
	cond := &planner.Call{Fn: "<", Args: []planner.Expr{col(1, tI4), tenth}, T: tB}
	for _, k := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		out := schema(tI4, tI4, tI4, tI4, tTxt)
		if k == planner.SemiJoin || k == planner.AntiJoin {
			out = schema(tI4, tI4)
		}
		for _, c := range []planner.Expr{nil, cond} {
			p := &planner.Join{Kind: k, Left: l, Right: r,
				LeftKeys: []planner.Expr{col(0, tI4)}, RightKeys: []planner.Expr{col(0, tI4)}, Cond: c, Out: out}
			sameOutput(t, fmt.Sprintf("kind %d, condition %v", k, c != nil), p, mk)
			// It did go block by block.
			ec := mk()
			ec.WorkMem, ec.Temp = spillWorkMem, newTemp(t)
			lop, _ := Build(l, ec)
			rop, _ := Build(r, ec)
			j, err := NewHashJoin(lop, rop, p, ec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := drain(context.Background(), j, out.Types()); err != nil {
				t.Fatal(err)
			}
			j.Close()
			if j.blockJoins == 0 {
				t.Errorf("kind %d: the skewed key was not joined block by block", k)
			}
		}
	}
}

// TestHashSpillCloseAndCancel stops spilling operators early, by Close
// after the first chunk and by cancelling their context: no tape may
// remain, and a cancelled one reports the context's error.
func TestHashSpillCloseAndCancel(t *testing.T) {
	rows := aggRows(20000)
	ec0 := newEC()
	scan := relScan(ec0, 1, rows, tI8, tI8, tTxt, tB)
	other := relScan(ec0, 2, rows, tI8, tI8, tTxt, tB)
	plans := map[string]planner.Plan{
		"agg": &planner.Agg{Input: scan, GroupBy: []planner.Expr{col(2, tTxt)},
			Aggs: []planner.AggCall{{Fn: "count", T: tI8}}, Out: schema(tTxt, tI8)},
		"join": &planner.Join{Kind: planner.FullJoin, Left: scan, Right: other,
			LeftKeys: []planner.Expr{col(2, tTxt)}, RightKeys: []planner.Expr{col(2, tTxt)},
			Out: schema(tI8, tI8, tTxt, tB, tI8, tI8, tTxt, tB)},
	}
	for name, p := range plans {
		for _, cancelIt := range []bool{false, true} {
			ec := newEC()
			ec.Source = ec0.Source
			temp := newTemp(t)
			ec.WorkMem, ec.Temp = spillWorkMem, temp
			ctx, cancel := context.WithCancel(context.Background())
			op, err := Build(p, ec)
			if err != nil {
				t.Fatal(err)
			}
			c, err := op.Next(ctx)
			if err != nil || c == nil {
				t.Fatalf("%s: first Next: %v, %v", name, c, err)
			}
			if cancelIt {
				cancel()
				for err == nil && c != nil {
					c, err = op.Next(ctx)
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s: cancelled, got %v", name, err)
				}
			}
			op.Close()
			cancel()
			if temp.tapes == 0 {
				t.Errorf("%s: did not spill", name)
			}
			if left := temp.left(t); len(left) > 0 {
				t.Errorf("%s (cancelled %v): tapes left after Close: %v", name, cancelIt, left)
			}
		}
	}
}

func TestDistinctSpillMatchesMemory(t *testing.T) {
	rows := aggRows(20000)
	ec0 := newEC()
	scan := relScan(ec0, 1, rows, tI8, tI8, tTxt, tB)
	mk := func() *ExecCtx { ec := newEC(); ec.Source = ec0.Source; return ec }
	sameOutput(t, "distinct", &planner.Distinct{Input: scan}, mk)
	// DISTINCT ON keeps each key's first row in input order, spilled or not.
	sameOutput(t, "distinct on", &planner.Distinct{Input: scan, On: []planner.Expr{col(2, tTxt), col(0, tI8)}}, mk)
	// Over a sort the output keeps the sort's order, and the Distinct
	// holds the last key only. The sort orders by every column, so a
	// spilled sort's order of ties (which differs from the in-memory
	// one's) cannot decide the rows.
	sorted := &planner.Distinct{Input: &planner.Sort{Input: scan, Keys: []planner.SortKey{{Expr: col(2, tTxt)}, {Expr: col(1, tI8)}, {Expr: col(0, tI8)}, {Expr: col(3, tB)}}},
		On: []planner.Expr{col(2, tTxt)}}
	want, err := runPlan(t, sorted, mk())
	if err != nil {
		t.Fatal(err)
	}
	ec := mk()
	temp := newTemp(t)
	ec.WorkMem, ec.Temp = spillWorkMem, temp
	got, err := runPlan(t, sorted, ec)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("DISTINCT ON over a sort: got\n%s\nwant\n%s", got, want)
	}
}

func TestSetOpSpillMatchesMemory(t *testing.T) {
	// Two inputs of (k, v) with repeats, NULLs and overlap.
	var lrows, rrows []types.Row
	for i := 0; i < 12000; i++ {
		k := types.DInt(int64(i % 5000))
		if i%113 == 0 {
			k = types.NullDatum
		}
		lrows = append(lrows, types.Row{k, types.DString(fmt.Sprintf("v%d", i%7))})
	}
	for i := 0; i < 9000; i++ {
		k := types.DInt(int64((i * 2) % 7000))
		if i%131 == 0 {
			k = types.NullDatum
		}
		rrows = append(rrows, types.Row{k, types.DString(fmt.Sprintf("v%d", i%5))})
	}
	ec0 := newEC()
	l := relScan(ec0, 1, lrows, tI8, tTxt)
	r := relScan(ec0, 2, rrows, tI8, tTxt)
	mk := func() *ExecCtx { ec := newEC(); ec.Source = ec0.Source; return ec }
	for _, k := range []planner.SetOpKind{planner.Union, planner.Intersect, planner.Except} {
		for _, all := range []bool{false, true} {
			if k == planner.Union && all {
				continue // streams, holds nothing
			}
			p := &planner.SetOp{Kind: k, All: all, Left: l, Right: r, Out: schema(tI8, tTxt)}
			sameOutput(t, fmt.Sprintf("set operation %d, all %v", k, all), p, mk)
		}
	}
}
