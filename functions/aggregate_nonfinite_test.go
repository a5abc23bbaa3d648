package functions

import (
	"math"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// roundTrip serialises a's state and tails through the row codec, as a
// streaming aggregation's state table holds them, and restores them
// into a fresh accumulator of mk.
func roundTrip(t *testing.T, mk func() Accumulator, a Accumulator) Accumulator {
	t.Helper()
	ts, ok := AccumulatorStateTypes(a)
	if !ok {
		t.Fatalf("%T: no fixed state", a)
	}
	row := AppendAccumulatorState(nil, a)
	for g := 1; g <= AccumulatorTailGens; g++ {
		ts = append(ts, AccumulatorTailTypes(a, g)...)
		row = AppendAccumulatorTail(row, a, g)
	}
	dec, err := types.DecodeRow(types.AppendRow(nil, row, ts), ts)
	if err != nil {
		t.Fatal(err)
	}
	b := mk()
	n, _ := AccumulatorStateTypes(b)
	if err := SetAccumulatorState(b, dec[:len(n)]); err != nil {
		t.Fatal(err)
	}
	p := len(n)
	for g := 1; g <= AccumulatorTailGens; g++ {
		k := len(AccumulatorTailTypes(b, g))
		SetAccumulatorTail(b, dec[p:p+k], g)
		p += k
	}
	return b
}

// TestRetractNonFinite: NaN and infinite inputs retracted from sums,
// averages and variances leave the aggregate of the finite inputs, as
// PostgreSQL's aggregate over the rows left gives (its results written
// below), also when the state went through a state row in between.
func TestRetractNonFinite(t *testing.T) {
	num := func(s string) types.Datum { return dec(s) }
	flt := func(f float64) types.Datum { return types.DFloat(f) }
	inf := math.Inf(1)
	type step struct {
		retract bool
		v       types.Datum
		want    string // PostgreSQL's result over the inputs left
	}
	cases := []struct {
		fn    string
		t     types.T
		steps []step
	}{
		{"sum", types.TNumeric, []step{{false, num("Infinity"), "Infinity"}, {false, num("5"), "Infinity"},
			{false, num("NaN"), "NaN"}, {false, num("-Infinity"), "NaN"}, {false, num("7"), "NaN"},
			{true, num("NaN"), "NaN"}, {true, num("Infinity"), "-Infinity"}, {true, num("-Infinity"), "12"}}},
		{"avg", types.TNumeric, []step{{false, num("Infinity"), "Infinity"}, {false, num("5"), "Infinity"},
			{false, num("NaN"), "NaN"}, {false, num("7"), "NaN"},
			{true, num("NaN"), "Infinity"}, {true, num("Infinity"), "6.0000000000000000"}}},
		{"var_samp", types.TNumeric, []step{{false, num("Infinity"), "NULL"}, {false, num("5"), "NaN"},
			{false, num("NaN"), "NaN"}, {false, num("7"), "NaN"},
			{true, num("NaN"), "NaN"}, {true, num("Infinity"), "2.0000000000000000"}}},
		{"sum", types.TFloat4, []step{{false, flt(inf), "Infinity"}, {false, flt(5), "Infinity"},
			{false, flt(math.NaN()), "NaN"}, {false, flt(-inf), "NaN"}, {false, flt(7), "NaN"},
			{true, flt(math.NaN()), "NaN"}, {true, flt(inf), "-Infinity"}, {true, flt(-inf), "12"}}},
		{"avg", types.TFloat8, []step{{false, flt(inf), "Infinity"}, {false, flt(5), "Infinity"},
			{false, flt(math.NaN()), "NaN"}, {false, flt(7), "NaN"},
			{true, flt(math.NaN()), "Infinity"}, {true, flt(inf), "6"}}},
		{"stddev_pop", types.TFloat8, []step{{false, flt(inf), "NaN"}, {false, flt(5), "NaN"},
			{false, flt(math.NaN()), "NaN"}, {false, flt(7), "NaN"},
			{true, flt(math.NaN()), "NaN"}, {true, flt(inf), "1"}}},
		{"var_samp", types.TFloat8, []step{{false, flt(inf), "NULL"}, {false, flt(5), "NaN"},
			{false, flt(7), "NaN"}, {true, flt(inf), "2"}}},
	}
	show := func(d types.Datum) string {
		switch {
		case d.Null:
			return "NULL"
		case d.D != nil:
			return d.D.String()
		}
		return types.FormatFloat(d.F, 64)
	}
	for _, c := range cases {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: c.fn, ArgTypes: []types.T{c.t}, WideSums: true})
		if err != nil {
			t.Fatal(err)
		}
		// Every step on one accumulator, and on one restored from a
		// state row after each step.
		a, r := mk(), mk()
		for i, s := range c.steps {
			for _, x := range []Accumulator{a, r} {
				f := x.Add
				if s.retract {
					f = x.Retract
				}
				if err := f([]types.Datum{s.v}); err != nil {
					t.Fatal(err)
				}
			}
			r = roundTrip(t, mk, r)
			for k, x := range []Accumulator{a, r} {
				if got := show(x.Result()); got != s.want {
					t.Errorf("%s(%s) step %d (restored: %v): got %s, want %s", c.fn, c.t, i+1, k == 1, got, s.want)
				}
			}
		}
	}
}

// TestIntervalSumWide: a streaming interval sum (WideSums) may pass out
// of the interval range and come back; only its result is checked
// (22008). Batch aggregation fails at the step, as interval_pl does.
func TestIntervalSumWide(t *testing.T) {
	years := func(y int32) types.Datum { return types.DInterval(types.IntervalVal{Months: 12 * y}) }
	day := types.DInterval(types.IntervalVal{Days: 1})
	long := types.DInterval(types.IntervalVal{Micros: math.MaxInt64})
	for _, fn := range []string{"sum", "avg"} {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: fn, ArgTypes: []types.T{types.TInterval}, WideSums: true})
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		for _, v := range []types.Datum{years(178000000), years(178000000), day, long, long} {
			if err := a.Add([]types.Datum{v}); err != nil {
				t.Fatalf("%s: add %v: %v", fn, v.Iv, err)
			}
		}
		if _, err := AccumulatorResult(a); pgerr.CodeOf(err) != pgerr.DatetimeFieldOverflow {
			t.Errorf("%s out of range: got error %v, want 22008", fn, err)
		}
		a = roundTrip(t, mk, a)
		for _, v := range []types.Datum{years(178000000), long, long} {
			if err := a.Retract([]types.Datum{v}); err != nil {
				t.Fatal(err)
			}
		}
		d, err := AccumulatorResult(a)
		want := types.IntervalVal{Months: 12 * 178000000, Days: 1}
		if fn == "avg" {
			want = intervalDiv(want, 2)
		}
		if err != nil || d.Iv != want {
			t.Errorf("%s after retractions: got %+v %v, want %+v", fn, d.Iv, err, want)
		}
	}
	mk, _ := NewAccumulatorFunc(AggSpec{Fn: "sum", ArgTypes: []types.T{types.TInterval}})
	a := mk()
	if err := a.Add([]types.Datum{years(178000000)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Add([]types.Datum{years(178000000)}); pgerr.CodeOf(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("batch sum out of range: got %v, want 22008", err)
	}
}

// TestFloatSumRetractCompensated: a float sum or average keeps its sum
// compensated, so deleting a large value leaves the small ones' sum
// (PostgreSQL's sum over {1} is 1, where 1e20 + 1 - 1e20 in floats is
// 0), also through a state row; rows that only come in are added one by
// one as float8pl does (0.1 + 0.2 + 0.3 is 0.6000000000000001).
func TestFloatSumRetractCompensated(t *testing.T) {
	for _, c := range []struct {
		fn string
		t  types.T
	}{{"sum", types.TFloat8}, {"sum", types.TFloat4}, {"avg", types.TFloat8}} {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: c.fn, ArgTypes: []types.T{c.t}, WideSums: true})
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		for _, v := range []float64{1e20, 1} {
			if err := a.Add([]types.Datum{types.DFloat(v)}); err != nil {
				t.Fatal(err)
			}
		}
		a = roundTrip(t, mk, a)
		if err := a.Retract([]types.Datum{types.DFloat(1e20)}); err != nil {
			t.Fatal(err)
		}
		if got := a.Result(); got.F != 1 {
			t.Errorf("%s(%s) of {1e20, 1} less 1e20: got %v, want 1", c.fn, c.t, got.F)
		}
	}
	mk, _ := NewAccumulatorFunc(AggSpec{Fn: "sum", ArgTypes: []types.T{types.TFloat8}, WideSums: true})
	a := mk()
	for _, v := range []float64{0.1, 0.2, 0.3} {
		if err := a.Add([]types.Datum{types.DFloat(v)}); err != nil {
			t.Fatal(err)
		}
		a = roundTrip(t, mk, a)
	}
	if got := types.FormatFloat(a.Result().F, 64); got != "0.6000000000000001" {
		t.Errorf("sum(0.1, 0.2, 0.3): got %s, want 0.6000000000000001", got)
	}
}
