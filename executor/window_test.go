package executor

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/functions"
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

// TestWindowFrameExclusion checks EXCLUDE CURRENT ROW, GROUP and TIES
// for aggregates and the value functions. Expected rows checked against
// PostgreSQL 15:
//
//	select v, sum(v) over (order by v rows between 1 preceding and 1 following exclude current row),
//	  sum(v) over (order by v range between unbounded preceding and current row exclude group),
//	  count(*) over (order by v groups between 1 preceding and 1 following exclude ties),
//	  first_value(v) over (order by v rows between unbounded preceding and unbounded following exclude group),
//	  last_value(v) over (order by v rows between unbounded preceding and unbounded following exclude ties),
//	  nth_value(v, 2) over (order by v rows between current row and unbounded following exclude current row)
//	from (values (10),(20),(20),(30),(40)) t(v)
func TestWindowFrameExclusion(t *testing.T) {
	in := vals(t, "+ 20\n+ 40\n+ 10\n+ 30\n+ 20", tI4)
	v := col(0, tI4)
	ord := []planner.SortKey{{Expr: v}}
	b := func(kind string, off int64) planner.FrameBound {
		fb := planner.FrameBound{Kind: kind}
		if kind == "preceding" || kind == "following" {
			fb.Offset = i8(off)
		}
		return fb
	}
	frame := func(mode string, start, end planner.FrameBound, excl string) *planner.Frame {
		return &planner.Frame{Mode: mode, Start: start, End: end, Exclude: excl}
	}
	all := func(excl string) *planner.Frame {
		return frame("rows", b("unbounded_preceding", 0), b("unbounded_following", 0), excl)
	}
	calls := []planner.WindowCall{
		{Fn: "sum", Args: []planner.Expr{v}, OrderBy: ord, T: tI8,
			Frame: frame("rows", b("preceding", 1), b("following", 1), "current_row")},
		{Fn: "sum", Args: []planner.Expr{v}, OrderBy: ord, T: tI8,
			Frame: frame("range", b("unbounded_preceding", 0), b("current_row", 0), "group")},
		{Fn: "count", OrderBy: ord, T: tI8, Frame: frame("groups", b("preceding", 1), b("following", 1), "ties")},
		{Fn: "first_value", Args: []planner.Expr{v}, OrderBy: ord, T: tI4, Frame: all("group")},
		{Fn: "last_value", Args: []planner.Expr{v}, OrderBy: ord, T: tI4, Frame: all("ties")},
		{Fn: "nth_value", Args: []planner.Expr{v, cnst(types.DInt(2), tI4)}, OrderBy: ord, T: tI4,
			Frame: frame("rows", b("current_row", 0), b("unbounded_following", 0), "current_row")},
	}
	p := &planner.Window{Input: in, Calls: calls, Out: schema(tI4, tI8, tI8, tI8, tI4, tI4, tI4)}
	expect(t, p, newEC(), `
+ 10 20 .  3 20 40 20
+ 20 30 10 3 10 40 30
+ 20 50 10 3 10 40 40
+ 30 60 50 4 10 40 .
+ 40 30 80 2 10 40 .`, true)
}

// TestKeptRuns checks the rows a frame exclusion keeps, including a
// current row outside its own frame (ROWS BETWEEN 1 FOLLOWING AND ...).
func TestKeptRuns(t *testing.T) {
	for _, c := range []struct {
		excl              string
		lo, hi, i, ps, pe int
		want              string
	}{
		{"", 0, 4, 2, 1, 3, "[[0 4]]"},
		{"current_row", 0, 4, 2, 1, 3, "[[0 1] [3 4]]"},
		{"group", 0, 4, 2, 1, 3, "[[0 0] [4 4]]"},
		{"ties", 0, 4, 2, 1, 3, "[[0 0] [2 2] [4 4]]"},
		{"ties", 1, 3, 2, 1, 3, "[[2 2]]"},
		{"group", 0, 1, 0, 0, 1, "[]"},
		{"current_row", 3, 5, 2, 2, 2, "[[3 5]]"},
		{"ties", 3, 5, 2, 1, 4, "[[5 5]]"},
		{"current_row", 3, 2, 2, 2, 2, "[]"},
	} {
		got := fmt.Sprint(keptRuns(c.excl, c.lo, c.hi, c.i, c.ps, c.pe, nil))
		if got != c.want {
			t.Errorf("%q frame [%d, %d] row %d peers [%d, %d]: got %s, want %s", c.excl, c.lo, c.hi, c.i, c.ps, c.pe, got, c.want)
		}
	}
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
}

// TestWindowRangeOffsets checks RANGE frames with offsets over an integer
// key with ties and NULLs, ascending and descending, NULLs first and
// last. Expected rows checked against PostgreSQL 15:
//
//	select v,
//	  sum(v) over (order by v range between 1 preceding and 1 following),
//	  count(*) over (order by v range between 2 preceding and 1 preceding),
//	  sum(v) over (order by v range between current row and 3 following),
//	  count(*) over (order by v nulls first range between unbounded preceding and 1 following),
//	  sum(v) over (order by v desc range between 2 preceding and current row),
//	  first_value(v) over (order by v desc nulls last range between 1 following and 5 following)
//	from (values (1),(2),(2),(4),(7),(null),(null)) t(v)
func TestWindowRangeOffsets(t *testing.T) {
	in := vals(t, "+ 4\n+ .\n+ 2\n+ 7\n+ 1\n+ .\n+ 2", tI4)
	v := col(0, tI4)
	b := func(kind string, off int64) planner.FrameBound {
		fb := planner.FrameBound{Kind: kind}
		if kind == "preceding" || kind == "following" {
			fb.Offset = cnst(types.DInt(off), tI4)
		}
		return fb
	}
	call := func(fn string, ty types.T, key planner.SortKey, start, end planner.FrameBound, args ...planner.Expr) planner.WindowCall {
		return planner.WindowCall{Fn: fn, Args: args, OrderBy: []planner.SortKey{key}, T: ty,
			Frame: &planner.Frame{Mode: "range", Start: start, End: end}}
	}
	asc, desc := planner.SortKey{Expr: v}, planner.SortKey{Expr: v, Desc: true, NullsFirst: true}
	calls := []planner.WindowCall{
		call("sum", tI8, asc, b("preceding", 1), b("following", 1), v),
		call("count", tI8, asc, b("preceding", 2), b("preceding", 1)),
		call("sum", tI8, asc, b("current_row", 0), b("following", 3), v),
		call("count", tI8, planner.SortKey{Expr: v, NullsFirst: true}, b("unbounded_preceding", 0), b("following", 1)),
		call("sum", tI8, desc, b("preceding", 2), b("current_row", 0), v),
		call("first_value", tI4, planner.SortKey{Expr: v, Desc: true}, b("following", 1), b("following", 5), v),
	}
	p := &planner.Window{Input: in, Calls: calls, Out: schema(tI4, tI8, tI8, tI8, tI8, tI8, tI4)}
	expect(t, p, newEC(), `
+ 1 5 0 9  5 5 .
+ 2 5 1 8  5 8 1
+ 2 5 1 8  5 8 1
+ 4 4 2 11 6 4 2
+ 7 7 0 7  7 7 4
+ . . 2 .  2 . .
+ . . 2 .  2 . .`, true)

	// A negative offset fails when the frame first compares two rows,
	// whatever the function; over no rows, or only NULL keys, it does
	// not. A NULL offset fails even over no rows.
	neg := func(in planner.Plan, fn string) *planner.Window {
		c := call(fn, tI8, asc, b("preceding", -1), b("current_row", 0))
		return &planner.Window{Input: in, Calls: []planner.WindowCall{c}, Out: schema(tI4, tI8)}
	}
	expectErr(t, neg(in, "sum"), newEC(), "22013", "invalid preceding or following size in window function")
	expectErr(t, neg(in, "row_number"), newEC(), "22013", "invalid preceding or following size in window function")
	expect(t, neg(vals(t, "+ .\n+ .", tI4), "count"), newEC(), "+ . 2\n+ . 2", true)
	null := call("count", tI8, asc, b("current_row", 0), planner.FrameBound{Kind: "following", Offset: cnst(types.NullDatum, tI4)})
	expectErr(t, &planner.Window{Input: vals(t, "", tI4), Calls: []planner.WindowCall{null}, Out: schema(tI4, tI8)}, newEC(),
		pgerr.NullValueNotAllowed, "frame ending offset must not be null")
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

// TestInRange checks the in_range support functions at the edges where
// each type has its own rules: integer overflow, NaN and infinities,
// calendar months, DST days, times that do not wrap, negative offsets.
// Expected values checked against PostgreSQL 15 (SET timezone =
// 'Europe/Paris'; select in_range(val, base, off, sub, less)).
func TestInRange(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ctx := &EvalCtx{Context: functions.Context{Location: paris}}
	parse := func(s string, ty types.T) types.Datum {
		d, err := types.ParseText(s, ty, paris)
		if err != nil {
			t.Fatalf("%s as %s: %v", s, ty, err)
		}
		return d
	}
	cases := []struct {
		t              types.T
		offT           types.T
		val, base, off string
		sub, less      bool
		want           bool
	}{
		{types.TInt8, types.TInt8, "9223372036854775807", "9223372036854775800", "100", false, true, true},
		{types.TInt8, types.TInt8, "-9223372036854775808", "-9223372036854775800", "100", true, false, true},
		{types.TInt4, types.TInt4, "5", "3", "2", false, true, true},
		{types.TInt4, types.TInt4, "5", "3", "1", false, true, false},
		{types.TFloat8, types.TFloat8, "NaN", "1", "1", false, true, false},
		{types.TFloat8, types.TFloat8, "1", "NaN", "1", false, true, true},
		{types.TFloat8, types.TFloat8, "NaN", "NaN", "1", true, false, true},
		{types.TFloat8, types.TFloat8, "-5", "Infinity", "Infinity", true, false, true},
		{types.TFloat8, types.TFloat8, "-Infinity", "1", "Infinity", true, true, true},
		{types.TNumeric, types.TNumeric, "NaN", "1", "1", false, false, true},
		{types.TNumeric, types.TNumeric, "5", "Infinity", "Infinity", true, false, true},
		{types.TNumeric, types.TNumeric, "5", "1", "Infinity", true, true, false},
		{types.TNumeric, types.TNumeric, "-Infinity", "1", "Infinity", true, true, true},
		{types.TNumeric, types.TNumeric, "Infinity", "1", "2", false, true, false},
		{types.TNumeric, types.TNumeric, "2.5", "1", "1.5", false, true, true},
		{types.TTimestamptz, types.TInterval, "2024-03-31 03:15+02", "2024-03-30 03:00+01", "1 day", false, true, false},
		{types.TTimestamptz, types.TInterval, "2024-03-31 03:15+02", "2024-03-30 03:00+01", "24 hours", false, true, true},
		// A day from base lands in the spring-forward gap (read with the
		// offset before it) or the fall-back overlap (the offset after).
		{types.TTimestamptz, types.TInterval, "2024-03-31 03:30+02", "2024-03-30 02:30+01", "1 day", false, true, true},
		{types.TTimestamptz, types.TInterval, "2024-03-31 03:31+02", "2024-03-30 02:30+01", "1 day", false, true, false},
		{types.TTimestamptz, types.TInterval, "2024-10-27 02:30+01", "2024-10-26 02:30+02", "1 day", false, true, true},
		{types.TTimestamptz, types.TInterval, "2024-10-27 02:31+01", "2024-10-26 02:30+02", "1 day", false, true, false},
		{types.TTimestamptz, types.TInterval, "2024-03-30 02:30+01", "2024-03-31 03:30+02", "1 day", true, false, false},
		{types.TDate, types.TInterval, "2024-02-29", "2024-01-31", "1 mon", false, true, true},
		{types.TDate, types.TInterval, "2024-03-01", "2024-01-31", "1 mon", false, true, false},
		{types.TTime, types.TInterval, "23:00", "12:00", "13 hours", false, true, true},
		{types.TTime, types.TInterval, "01:00", "23:00", "3 hours", false, true, true},
		{types.TInterval, types.TInterval, "1 mon", "1 day", "29 days", false, true, true},
		{types.TInterval, types.TInterval, "1 mon", "1 day", "28 days", false, true, false},
	}
	for _, c := range cases {
		got, err := InRange(ctx, c.t, parse(c.val, c.t), parse(c.base, c.t), parse(c.off, c.offT), c.sub, c.less)
		if err != nil || got != c.want {
			t.Errorf("in_range(%s, %s, %s, %v, %v) over %s = %v, %v; want %v", c.val, c.base, c.off, c.sub, c.less, c.t, got, err, c.want)
		}
	}
	// Postgres 15's in_range does not guard against overflow: a sum out
	// of range fails as the arithmetic does.
	for _, c := range []struct {
		t              types.T
		val, base, off string
		sub, less      bool
		msg            string
	}{
		{types.TTimestamp, "2024-01-01", "2024-01-01", "300000 years", true, false, "timestamp out of range"},
		{types.TTimestamptz, "2024-01-01", "2024-01-01", "300000 years", false, true, "timestamp out of range"},
		{types.TDate, "2024-01-01", "5874897-12-31", "1 day", true, false, "date out of range for timestamp"},
	} {
		_, err := InRange(ctx, c.t, parse(c.val, c.t), parse(c.base, c.t), parse(c.off, types.TInterval), c.sub, c.less)
		if pgerr.CodeOf(err) != "22008" || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("in_range(%s, %s, %s) over %s: %v, want 22008 %s", c.val, c.base, c.off, c.t, err, c.msg)
		}
	}
	for _, c := range []struct {
		t   types.T
		off types.Datum
	}{
		{types.TInt4, types.DInt(-1)}, {types.TFloat8, types.DFloat(math.NaN())}, {types.TNumeric, parse("-0.5", types.TNumeric)},
		{types.TTimestamp, parse("1 mon -40 days", types.TInterval)}, {types.TTime, parse("1 day -1 hour", types.TInterval)},
	} {
		base := parse("1", types.TInt4)
		switch c.t.ID {
		case types.TFloat8.ID:
			base = types.DFloat(1)
		case types.TNumeric.ID:
			base = parse("1", types.TNumeric)
		}
		if _, err := InRange(ctx, c.t, base, base, c.off, false, true); pgerr.CodeOf(err) != "22013" {
			t.Errorf("offset %v over %s: %v, want 22013", c.off, c.t, err)
		}
	}
}
