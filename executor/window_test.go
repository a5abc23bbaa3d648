package executor

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestWindowRanking checks every ranking, offset and frame function over
// the default frame. Expected rows checked against PostgreSQL 15:
//
//	select k, v, row_number() over w, rank() over w, dense_rank() over w,
//	  percent_rank() over w, cume_dist() over w, ntile(3) over w,
//	  sum(v) over w, lag(v) over w, lead(v, 2, -1) over w,
//	  first_value(v) over w, last_value(v) over w, nth_value(v, 2) over w
//	from (values (1,10),(1,20),(1,20),(1,30),(2,5),(null,7)) t(k,v)
//	window w as (partition by k order by v)
func TestWindowRanking(t *testing.T) {
	in := vals(t, "+ 1 20\n+ 2 5\n+ 1 10\n+ . 7\n+ 1 30\n+ 1 20", tI4, tI4)
	w := func(fn string, ty types.T, args ...planner.Expr) planner.WindowCall {
		return planner.WindowCall{Fn: fn, Args: args, PartitionBy: []planner.Expr{col(0, tI4)},
			OrderBy: []planner.SortKey{{Expr: col(1, tI4)}}, T: ty}
	}
	v := col(1, tI4)
	calls := []planner.WindowCall{
		w("row_number", tI8), w("rank", tI8), w("dense_rank", tI8), w("percent_rank", tF8), w("cume_dist", tF8),
		w("ntile", tI4, cnst(types.DInt(3), tI4)), w("sum", tI8, v), w("lag", tI4, v),
		w("lead", tI4, v, cnst(types.DInt(2), tI4), cnst(types.DInt(-1), tI4)),
		w("first_value", tI4, v), w("last_value", tI4, v), w("nth_value", tI4, v, cnst(types.DInt(2), tI4)),
	}
	out := schema(tI4, tI4, tI8, tI8, tI8, tF8, tF8, tI4, tI8, tI4, tI4, tI4, tI4, tI4)
	expect(t, &planner.Window{Input: in, Calls: calls, Out: out}, newEC(), `
+ 1 10 1 1 1 0                  0.25 1 10 . 20 10 10 .
+ 1 20 2 2 2 0.3333333333333333 0.75 1 50 10 30 10 20 20
+ 1 20 3 2 2 0.3333333333333333 0.75 2 50 20 -1 10 20 20
+ 1 30 4 4 3 1                  1    3 80 20 -1 10 30 20
+ 2 5  1 1 1 0                  1    1 5  . -1 5  5  .
+ . 7  1 1 1 0                  1    1 7  . -1 7  7  .`, false)
}

// TestWindowFrames checks explicit frames. Expected rows checked against
// PostgreSQL 15:
//
//	select v, sum(v) over (order by v rows between 1 preceding and 1 following),
//	  count(*) over (order by v rows between current row and unbounded following),
//	  sum(v) over (order by v groups between 1 preceding and current row),
//	  sum(v) over ()
//	from (values (10),(20),(20),(30),(40)) t(v)
func TestWindowFrames(t *testing.T) {
	in := vals(t, "+ 20\n+ 40\n+ 10\n+ 30\n+ 20", tI4)
	ord := []planner.SortKey{{Expr: col(0, tI4)}}
	b := func(kind string, off int64) planner.FrameBound {
		fb := planner.FrameBound{Kind: kind}
		if kind == "preceding" || kind == "following" {
			fb.Offset = i8(off)
		}
		return fb
	}
	calls := []planner.WindowCall{
		{Fn: "sum", Args: []planner.Expr{col(0, tI4)}, OrderBy: ord, T: tI8,
			Frame: &planner.Frame{Mode: "rows", Start: b("preceding", 1), End: b("following", 1)}},
		{Fn: "count", OrderBy: ord, T: tI8,
			Frame: &planner.Frame{Mode: "rows", Start: b("current_row", 0), End: b("unbounded_following", 0)}},
		{Fn: "sum", Args: []planner.Expr{col(0, tI4)}, OrderBy: ord, T: tI8,
			Frame: &planner.Frame{Mode: "groups", Start: b("preceding", 1), End: b("current_row", 0)}},
		{Fn: "sum", Args: []planner.Expr{col(0, tI4)}, T: tI8},
	}
	// The last call has no ORDER BY, so the output keeps the input order.
	p := &planner.Window{Input: in, Calls: calls, Out: schema(tI4, tI8, tI8, tI8, tI8)}
	expect(t, p, newEC(), `
+ 10 30 5 10 120
+ 20 50 4 50 120
+ 20 70 3 50 120
+ 30 90 2 70 120
+ 40 70 1 70 120`, true)
	rangeOff := &planner.Window{Input: in, Calls: []planner.WindowCall{{Fn: "sum", Args: []planner.Expr{col(0, tI4)}, OrderBy: ord, T: tI8,
		Frame: &planner.Frame{Mode: "range", Start: b("preceding", 1), End: b("current_row", 0)}}}, Out: schema(tI4, tI8)}
	if _, err := runPlan(t, rangeOff, newEC()); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Fatalf("RANGE with offset: %v", err)
	}
}

func TestWindowNtileMatchesPostgres(t *testing.T) {
	// select ntile(4) over (order by x), x from generate_series(1,10) x:
	// buckets 1 1 1 2 2 2 3 3 4 4 in PostgreSQL 15.
	gs := &planner.TableFunc{Fn: "generate_series", Args: []planner.Expr{i8(1), i8(10)}, Out: schema(tI8)}
	p := &planner.Window{Input: gs, Calls: []planner.WindowCall{{Fn: "ntile", Args: []planner.Expr{cnst(types.DInt(4), tI4)},
		OrderBy: []planner.SortKey{{Expr: col(0, tI8)}}, T: tI4}}, Out: schema(tI8, tI4)}
	expect(t, p, newEC(), `
+ 1 1
+ 2 1
+ 3 1
+ 4 2
+ 5 2
+ 6 2
+ 7 3
+ 8 3
+ 9 4
+ 10 4`, false)
}

// TestWindowPartition checks that WindowPartition gives the values Window
// gives for the same partition (the second partition of TestWindowRanking's
// rows, k = 1), and that its ties keep the order they are given in.
func TestWindowPartition(t *testing.T) {
	ord := []planner.SortKey{{Expr: col(0, tI4)}}
	v := col(1, tI4)
	rows := []types.Row{
		{types.DInt(10), types.DInt(10)}, {types.DInt(20), types.DInt(21)},
		{types.DInt(20), types.DInt(20)}, {types.DInt(30), types.DInt(30)},
	}
	ords := make([]types.Row, len(rows))
	for i, r := range rows {
		ords[i] = types.Row{r[0]}
	}
	args := func(extra ...types.Datum) []types.Row {
		out := make([]types.Row, len(rows))
		for i, r := range rows {
			out[i] = append(types.Row{r[1]}, extra...)
		}
		return out
	}
	cases := []struct {
		call planner.WindowCall
		args []types.Row
		want string
	}{
		{planner.WindowCall{Fn: "row_number", OrderBy: ord, T: tI8}, make([]types.Row, 4), "[1 2 3 4]"},
		{planner.WindowCall{Fn: "rank", OrderBy: ord, T: tI8}, make([]types.Row, 4), "[1 2 2 4]"},
		{planner.WindowCall{Fn: "lag", Args: []planner.Expr{v}, OrderBy: ord, T: tI4}, args(), "[NULL 10 21 20]"},
		{planner.WindowCall{Fn: "lead", Args: []planner.Expr{v, cnst(types.DInt(2), tI4), cnst(types.DInt(-1), tI4)}, OrderBy: ord, T: tI4},
			args(types.DInt(2), types.DInt(-1)), "[20 30 -1 -1]"},
		{planner.WindowCall{Fn: "sum", Args: []planner.Expr{v}, OrderBy: ord, T: tI8}, args(), "[10 51 51 81]"},
		{planner.WindowCall{Fn: "sum", Args: []planner.Expr{v}, OrderBy: ord, T: tI8,
			Frame: &planner.Frame{Mode: "rows", Start: planner.FrameBound{Kind: "preceding", Offset: i8(1)}, End: planner.FrameBound{Kind: "current_row"}}},
			args(), "[10 31 41 50]"},
	}
	for _, c := range cases {
		got, err := WindowPartition(c.call, ords, c.args, newEC())
		if err != nil {
			t.Fatalf("%s: %v", c.call.Fn, err)
		}
		var parts []string
		for _, d := range got {
			if d.Null {
				parts = append(parts, "NULL")
				continue
			}
			parts = append(parts, types.FormatText(d, c.call.T, nil))
		}
		if s := "[" + strings.Join(parts, " ") + "]"; s != c.want {
			t.Errorf("%s: got %s, want %s", planner.FormatWindowCall(c.call), s, c.want)
		}
	}
	bad := planner.WindowCall{Fn: "ntile", Args: []planner.Expr{col(1, tI4)}, OrderBy: ord, T: tI4}
	if _, err := WindowPartition(bad, ords, []types.Row{{types.DInt(0)}, {types.DInt(0)}, {types.DInt(0)}, {types.DInt(0)}}, newEC()); pgerr.CodeOf(err) != "22014" {
		t.Errorf("ntile(0): got %v", err)
	}
}
