package executor

import (
	"context"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

func TestScanProjectsColumns(t *testing.T) {
	rel := &catalog.Relation{ID: 7, Name: "t", Cols: []catalog.Column{{Name: "a", T: tI4}, {Name: "b", T: tTxt}, {Name: "c", T: tI8}}}
	ec := newEC()
	var rows []types.Row
	for i := 0; i < 2500; i++ {
		rows = append(rows, types.Row{types.DInt(int64(i)), types.DString("x"), types.DInt(int64(-i))})
	}
	ec.Source = &fakeSource{rels: map[uint32][]types.Row{7: rows}}
	p := &planner.Scan{Rel: rel, Cols: []int{2, 0}, Out: schema(tI8, tI4)}
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for {
		c, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		sizes = append(sizes, c.Len())
		if c.Cols[0].I[1] != -c.Cols[1].I[1] {
			t.Fatalf("columns not projected: %s", c)
		}
	}
	op.Close()
	op.Close()
	if len(sizes) != 3 || sizes[0] != types.ChunkCap || sizes[2] != 2500-2*types.ChunkCap {
		t.Fatalf("chunk sizes %v", sizes)
	}
}

func TestScanStopsOnCancel(t *testing.T) {
	rel := &catalog.Relation{ID: 1, Cols: []catalog.Column{{Name: "a", T: tI8}}}
	ec := newEC()
	ec.Source = &fakeSource{rels: map[uint32][]types.Row{1: {{types.DInt(1)}}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op := NewScan(&planner.Scan{Rel: rel, Cols: []int{0}, Out: schema(tI8)}, ec)
	if _, err := op.Next(ctx); err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if _, err := op.Next(context.Background()); err != context.Canceled {
		t.Fatalf("error not sticky: %v", err)
	}
}

func TestSystemScan(t *testing.T) {
	ec := newEC()
	ec.Source = &fakeSource{sys: map[string][]types.Row{"pg_catalog.pg_namespace": {{types.DInt(11), types.DString("pg_catalog")}, {types.DInt(2200), types.DString("public")}}}}
	p := &planner.SystemScan{Schema_: "pg_catalog", Name: "pg_namespace", Out: schema(types.TOid, types.TName)}
	expect(t, p, ec, `
+ 11 pg_catalog
+ 2200 public`, false)
}

func TestValuesAndSelectWithoutFrom(t *testing.T) {
	expect(t, vals(t, "+ 1 a\n+ . \"b c\"", tI4, tTxt), newEC(), "+ 1 a\n+ . \"b c\"", false)
	p := &planner.Project{Input: &planner.Values{Rows: [][]planner.Expr{{}}}, Exprs: []planner.Expr{i8(42)}, Out: schema(tI8)}
	expect(t, p, newEC(), "+ 42", false)
}

func TestFilterUsesVisibility(t *testing.T) {
	in := vals(t, "+ 1 t\n+ 2 f\n+ 3 .\n+ 4 t", tI4, tB)
	p := &planner.Filter{Input: in, Cond: col(1, tB)}
	op, err := Build(p, newEC())
	if err != nil {
		t.Fatal(err)
	}
	c, err := op.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 4 || c.VisibleCount() != 2 {
		t.Fatalf("filter copied rows or kept wrong ones: len %d visible %d", c.Len(), c.VisibleCount())
	}
	// Project over the filter must keep the visibility.
	pr := &planner.Project{Input: p, Exprs: []planner.Expr{col(0, tI4)}, Out: schema(tI4)}
	expect(t, pr, newEC(), "+ 1\n+ 4", false)
	// A filter that rejects everything ends at once.
	none := &planner.Filter{Input: vals(t, "+ 1 f", tI4, tB), Cond: col(1, tB)}
	expect(t, none, newEC(), "", false)
}

func TestLimitOffset(t *testing.T) {
	in := vals(t, "+ 1\n+ 2\n+ 3\n+ 4\n+ 5", tI4)
	filtered := &planner.Filter{Input: &planner.Project{Input: in, Exprs: []planner.Expr{col(0, tI4), cnst(types.DBool(true), tB)}, Out: schema(tI4, tB)}, Cond: col(1, tB)}
	cases := []struct {
		limit, off planner.Expr
		want       string
	}{
		{i8(2), nil, "+ 1 t\n+ 2 t"},
		{i8(2), i8(1), "+ 2 t\n+ 3 t"},
		{nil, i8(3), "+ 4 t\n+ 5 t"},
		{cnst(types.NullDatum, tI8), cnst(types.NullDatum, tI8), "+ 1 t\n+ 2 t\n+ 3 t\n+ 4 t\n+ 5 t"},
		{i8(0), nil, ""},
		{i8(10), i8(10), ""},
	}
	for _, c := range cases {
		expect(t, &planner.Limit{Input: filtered, Limit: c.limit, Offset: c.off}, newEC(), c.want, false)
	}
	expectErr(t, &planner.Limit{Input: in, Limit: i8(-1)}, newEC(), pgerr.InvalidRowCountInLimit, "LIMIT must not be negative")
	expectErr(t, &planner.Limit{Input: in, Offset: i8(-1)}, newEC(), pgerr.InvalidRowCountInOffset, "OFFSET must not be negative")
}

// TestLimitWithTies passes, after the limit, the rows that tie with the
// last one on the ORDER BY keys, across chunk boundaries: the input is
// 0 .. 2999 keyed by n / 1000, in groups of 1,000 rows that cross
// chunks of 1,024.
func TestLimitWithTies(t *testing.T) {
	gs := &planner.TableFunc{Fn: "generate_series", Args: []planner.Expr{i8(0), i8(2999)}, Out: schema(tI8)}
	key := &planner.Call{Fn: "/", Args: []planner.Expr{col(0, tI8), i8(1000)}, T: tI8}
	in := &planner.Project{Input: gs, Exprs: []planner.Expr{col(0, tI8), key}, Out: schema(tI8, tI8)}
	ties := []planner.SortKey{{Expr: col(1, tI8)}}
	for _, c := range []struct {
		limit, off  planner.Expr
		first, last int64 // the rows passed, -1: none
	}{
		{i8(1000), nil, 0, 999},
		{i8(1001), nil, 0, 1999},
		{i8(1), i8(1500), 1500, 1999},
		{i8(1), nil, 0, 999},
		{i8(0), nil, -1, -1},
		{i8(5), i8(2998), 2998, 2999},
		{cnst(types.NullDatum, tI8), i8(2990), 2990, 2999},
	} {
		p := &planner.Limit{Input: in, Limit: c.limit, Offset: c.off, Ties: ties}
		what := "FETCH FIRST " + planner.FormatExpr(c.limit) + " ROWS WITH TIES"
		if c.off != nil {
			what = "OFFSET " + planner.FormatExpr(c.off) + " " + what
		}
		got, err := runPlan(t, p, newEC())
		if err != nil {
			t.Fatal(err)
		}
		first, last, n := int64(-1), int64(-1), int64(0)
		for i := 0; i < got.Len(); i++ {
			if !got.Visible(i) {
				continue
			}
			v := got.Row(i)[0].I
			if first < 0 {
				first = v
			}
			if last >= 0 && v != last+1 {
				t.Fatalf("%s: %d follows %d", what, v, last)
			}
			last = v
			n++
		}
		if first != c.first || last != c.last {
			t.Errorf("%s: rows %d .. %d (%d), want %d .. %d", what, first, last, n, c.first, c.last)
		}
	}
}

func TestLimitStopsPullingInput(t *testing.T) {
	// generate_series over a huge range under LIMIT 3 must end at once.
	gs := &planner.TableFunc{Fn: "generate_series", Args: []planner.Expr{i8(1), i8(1 << 60)}, Out: schema(tI8)}
	expect(t, &planner.Limit{Input: gs, Limit: i8(3)}, newEC(), "+ 1\n+ 2\n+ 3", false)
}

func TestSortStableWithNulls(t *testing.T) {
	in := vals(t, "+ 2 a\n+ . b\n+ 1 c\n+ 2 d\n+ . e\n+ 1 f", tI4, tTxt)
	asc := &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0, tI4)}}}
	expect(t, asc, newEC(), "+ 1 c\n+ 1 f\n+ 2 a\n+ 2 d\n+ . b\n+ . e", false)
	desc := &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0, tI4), Desc: true, NullsFirst: true}}}
	expect(t, desc, newEC(), "+ . b\n+ . e\n+ 2 a\n+ 2 d\n+ 1 c\n+ 1 f", false)
	twoKeys := &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0, tI4), NullsFirst: true}, {Expr: col(1, tTxt), Desc: true}}}
	expect(t, twoKeys, newEC(), "+ . e\n+ . b\n+ 1 f\n+ 1 c\n+ 2 d\n+ 2 a", false)
}

func TestDistinct(t *testing.T) {
	in := vals(t, "+ 1 a\n+ 1 a\n+ . a\n+ . a\n+ 1 b\n+ 2 a", tI4, tTxt)
	expect(t, &planner.Distinct{Input: in}, newEC(), "+ 1 a\n+ . a\n+ 1 b\n+ 2 a", false)
	on := &planner.Distinct{Input: in, On: []planner.Expr{col(0, tI4)}}
	expect(t, on, newEC(), "+ 1 a\n+ . a\n+ 2 a", false)
}

func TestSetOps(t *testing.T) {
	// Checked against PostgreSQL 15: l = {1,1,1,2,NULL,NULL},
	// r = {1,1,3,NULL}; INTERSECT ALL = {1,1,NULL}, EXCEPT ALL =
	// {1,2,NULL}, INTERSECT = {1,NULL}, EXCEPT = {2}.
	l := vals(t, "+ 1\n+ 1\n+ 1\n+ 2\n+ .\n+ .", tI4)
	r := vals(t, "+ 1\n+ 1\n+ 3\n+ .", tI4)
	cases := []struct {
		kind planner.SetOpKind
		all  bool
		want string
	}{
		{planner.Union, true, "+ 1\n+ 1\n+ 1\n+ 2\n+ .\n+ .\n+ 1\n+ 1\n+ 3\n+ ."},
		{planner.Union, false, "+ 1\n+ 2\n+ .\n+ 3"},
		{planner.Intersect, true, "+ 1\n+ 1\n+ ."},
		{planner.Intersect, false, "+ 1\n+ ."},
		{planner.Except, true, "+ 1\n+ 2\n+ ."},
		{planner.Except, false, "+ 2"},
	}
	for _, c := range cases {
		expect(t, &planner.SetOp{Kind: c.kind, All: c.all, Left: l, Right: r, Out: schema(tI4)}, newEC(), c.want, false)
	}
}

func TestTableFuncs(t *testing.T) {
	gs := func(out types.T, args ...planner.Expr) *planner.TableFunc {
		return &planner.TableFunc{Fn: "generate_series", Args: args, Out: schema(out)}
	}
	i4 := func(i int64) planner.Expr { return cnst(types.DInt(i), tI4) }
	expect(t, gs(tI4, i4(1), i4(3)), newEC(), "+ 1\n+ 2\n+ 3", false)
	expect(t, gs(tI4, i4(10), i4(1), i4(-4)), newEC(), "+ 10\n+ 6\n+ 2", false)
	expect(t, gs(tI4, i4(3), i4(1)), newEC(), "", false)
	expect(t, gs(tI4, i4(1), cnst(types.NullDatum, tI4)), newEC(), "", false)
	expect(t, gs(tI8, i8(9223372036854775806), i8(9223372036854775807)), newEC(), "+ 9223372036854775806\n+ 9223372036854775807", false)
	expectErr(t, gs(tI4, i4(1), i4(3), i4(0)), newEC(), pgerr.InvalidParameterValue, "step size cannot equal zero")
	expect(t, gs(tN, cnst(dec("1.5"), tN), cnst(dec("2"), tN), cnst(dec("0.25"), tN)), newEC(), "+ 1.5\n+ 1.75\n+ 2.00", false)
	// Checked against PostgreSQL 15: each step adds the interval to the
	// previous value, so after clamping to 2024-02-29 the day stays 29.
	ts, _ := types.ParseChunk("+ 2024-01-31T00:00:00\n+ 2024-04-01T00:00:00", []types.T{types.TTimestamp})
	start, stop := ts.Cols[0].Get(0), ts.Cols[0].Get(1)
	month := cnst(types.DInterval(types.IntervalVal{Months: 1}), types.TInterval)
	expect(t, gs(types.TTimestamp, cnst(start, types.TTimestamp), cnst(stop, types.TTimestamp), month), newEC(),
		"+ 2024-01-31T00:00:00\n+ 2024-02-29T00:00:00\n+ 2024-03-29T00:00:00", false)
	un := &planner.TableFunc{Fn: "unnest", Args: []planner.Expr{cnst(types.DString(`{a,"b c",NULL,"NULL",""}`), types.TTextArray)}, Out: schema(tTxt)}
	expect(t, un, newEC(), "+ a\n+ \"b c\"\n+ .\n+ NULL\n+ \"\"", false)
}

func TestBuildUnsupported(t *testing.T) {
	if _, err := Build(nil, newEC()); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Fatalf("got %v", err)
	}
}
