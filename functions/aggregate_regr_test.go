package functions

import (
	"math"
	"strconv"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// regrRows are (Y, X) pairs, NULLs among them; PostgreSQL 15 gives the
// results in TestRegrAggregates for them.
var regrRows = [][2]types.Datum{
	{types.DFloat(1), types.DFloat(2)}, {types.DFloat(2), types.DFloat(4.5)}, {types.DFloat(3.25), types.DFloat(5)},
	{types.NullDatum, types.DFloat(7)}, {types.DFloat(8), types.NullDatum}, {types.DFloat(5), types.DFloat(5)},
	{types.DFloat(1), types.DFloat(2)}, {types.DFloat(1), types.DFloat(3)}, {types.DFloat(2), types.DFloat(1)},
	{types.DFloat(3), types.DFloat(1)},
}

func regrAcc2(t *testing.T, fn string) Accumulator {
	t.Helper()
	mk, err := NewAccumulatorFunc(AggSpec{Fn: fn, ArgTypes: []types.T{types.TFloat8, types.TFloat8}, Retractable: true})
	if err != nil {
		t.Fatal(err)
	}
	return mk()
}

func regrShow(d types.Datum, fn string) string {
	switch {
	case d.Null:
		return "NULL"
	case fn == "regr_count":
		return strconv.FormatInt(d.I, 10)
	}
	return types.FormatFloat(d.F, 64)
}

// TestRegrAggregates checks each aggregate over regrRows against
// PostgreSQL 15, and over no rows; then that retracting the rows added
// after the first three leaves the result of those three alone.
func TestRegrAggregates(t *testing.T) {
	for _, c := range []struct{ fn, all, none string }{
		{"corr", "0.514869682175113", "NULL"},
		{"covar_pop", "1.080078125", "NULL"},
		{"covar_samp", "1.234375", "NULL"},
		{"regr_count", "8", "0"},
		{"regr_avgx", "2.9375", "NULL"},
		{"regr_avgy", "2.28125", "NULL"},
		{"regr_sxx", "20.21875", "NULL"},
		{"regr_syy", "13.929687500000002", "NULL"},
		{"regr_sxy", "8.640625", "NULL"},
		{"regr_slope", "0.4273570324574961", "NULL"},
		{"regr_intercept", "1.025888717156105", "NULL"},
		{"regr_r2", "0.26509078962310184", "NULL"},
	} {
		a := regrAcc2(t, c.fn)
		if got := regrShow(a.Result(), c.fn); got != c.none {
			t.Errorf("%s over no rows = %s, want %s", c.fn, got, c.none)
		}
		for _, r := range regrRows {
			if err := a.Add(r[:]); err != nil {
				t.Fatal(err)
			}
		}
		if got := regrShow(a.Result(), c.fn); got != c.all {
			t.Errorf("%s = %s, want %s", c.fn, got, c.all)
		}
		first := regrAcc2(t, c.fn)
		for _, r := range regrRows[:3] {
			first.Add(r[:])
		}
		for i := len(regrRows) - 1; i >= 3; i-- {
			if err := a.Retract(regrRows[i][:]); err != nil {
				t.Fatal(err)
			}
		}
		want, _ := strconv.ParseFloat(regrShow(first.Result(), c.fn), 64)
		got, _ := strconv.ParseFloat(regrShow(a.Result(), c.fn), 64)
		if d := got - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s after retraction = %v, want %v", c.fn, got, want)
		}
	}
}

// TestRegrEdges checks the special results: NULL for a vertical line,
// regr_r2 1 for a horizontal one, NaN after an infinite input, and
// 22003 when finite inputs overflow.
func TestRegrEdges(t *testing.T) {
	f := types.DFloat
	run := func(fn string, rows ...[2]types.Datum) (string, error) {
		a := regrAcc2(t, fn)
		for _, r := range rows {
			if err := a.Add(r[:]); err != nil {
				return "", err
			}
		}
		return regrShow(a.Result(), fn), nil
	}
	for _, c := range []struct {
		fn   string
		rows [][2]types.Datum
		want string
	}{
		{"corr", [][2]types.Datum{{f(1), f(2)}, {f(2), f(2)}}, "NULL"},
		{"regr_slope", [][2]types.Datum{{f(1), f(2)}, {f(2), f(2)}}, "NULL"},
		{"regr_r2", [][2]types.Datum{{f(1), f(1)}, {f(1), f(2)}}, "1"},
		{"covar_samp", [][2]types.Datum{{f(1), f(1)}}, "NULL"},
		{"regr_sxx", [][2]types.Datum{{f(1), f(1)}}, "0"},
		{"regr_syy", [][2]types.Datum{{f(1), f(1)}, {f(1), f(2)}}, "0"},
		{"regr_sxy", [][2]types.Datum{{types.DFloat(math.Inf(1)), f(1)}, {f(1), f(2)}}, "NaN"},
		{"regr_sxx", [][2]types.Datum{{types.DFloat(math.Inf(1)), f(1)}, {f(1), f(2)}}, "0.5"},
	} {
		got, err := run(c.fn, c.rows...)
		if err != nil || got != c.want {
			t.Errorf("%s%v = %s, %v; want %s", c.fn, c.rows, got, err, c.want)
		}
	}
	_, err := run("regr_sxx", [2]types.Datum{f(1e308), f(1e308)}, [2]types.Datum{f(-1e308), f(-1e308)})
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.NumericValueOutOfRange {
		t.Errorf("overflow: %v, want 22003", err)
	}
}

// TestRegrStateRoundTrip checks that the state row restores an
// accumulator that goes on as the original.
func TestRegrStateRoundTrip(t *testing.T) {
	a := regrAcc2(t, "regr_intercept")
	for _, r := range regrRows {
		a.Add(r[:])
	}
	a.Retract(regrRows[0][:])
	ts, ok := AccumulatorStateTypes(a)
	if !ok || len(ts) != 6 {
		t.Fatalf("state types %v, %v", ts, ok)
	}
	row, err := types.DecodeRow(types.AppendRow(nil, AppendAccumulatorState(nil, a), ts), ts)
	if err != nil {
		t.Fatal(err)
	}
	b := regrAcc2(t, "regr_intercept")
	if err := SetAccumulatorState(b, row); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 2; step++ {
		if ra, rb := a.Result(), b.Result(); ra.Null || ra.F != rb.F {
			t.Errorf("step %d: restored %v, original %v", step, rb, ra)
		}
		a.Add(regrRows[1][:])
		b.Add(regrRows[1][:])
	}
}
