package functions

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

// TestAccumulatorStateRoundTrip serialises each fixed-state accumulator
// after some adds and a retraction, encodes the row with the row codec,
// restores it into a fresh accumulator and checks that the result, and
// the result after one more add, match the original's. It does so with
// the streaming aggregation's accumulators (WideSums) and with those of
// an EMIT ON WINDOW CLOSE window's running frame (neither WideSums nor
// Retractable), whose float sums, averages and variances take no
// retraction.
func TestAccumulatorStateRoundTrip(t *testing.T) {
	dec := func(s string) types.Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return types.DDecimal(d)
	}
	iv := func(m, d int32, us int64) types.Datum {
		return types.DInterval(types.IntervalVal{Months: m, Days: d, Micros: us})
	}
	cases := []struct {
		fn   string
		t    types.T
		vals []types.Datum
	}{
		{"count", types.TInt4, []types.Datum{types.DInt(1), types.NullDatum, types.DInt(3)}},
		{"sum", types.TInt4, []types.Datum{types.DInt(1), types.DInt(-7), types.DInt(3)}},
		{"sum", types.TInt8, []types.Datum{types.DInt(1 << 62), types.DInt(1 << 62), types.DInt(1 << 62)}},
		{"sum", types.TNumeric, []types.Datum{dec("1.50"), dec("2.125"), dec("-3")}},
		{"sum", types.TFloat8, []types.Datum{types.DFloat(0.1), types.DFloat(0.2), types.DFloat(3)}},
		{"sum", types.TInterval, []types.Datum{iv(1, 2, 3), iv(0, 1, 5), iv(2, 0, 0)}},
		{"avg", types.TInt4, []types.Datum{types.DInt(1), types.DInt(2), types.DInt(4)}},
		{"avg", types.TNumeric, []types.Datum{dec("1.5"), dec("2"), dec("4.25")}},
		{"avg", types.TFloat8, []types.Datum{types.DFloat(1), types.DFloat(2), types.DFloat(4)}},
		{"avg", types.TInterval, []types.Datum{iv(1, 0, 0), iv(0, 3, 0), iv(0, 0, 7)}},
		{"bool_and", types.TBool, []types.Datum{types.DBool(true), types.DBool(false), types.DBool(true)}},
		{"bool_or", types.TBool, []types.Datum{types.DBool(false), types.DBool(true), types.DBool(false)}},
		{"var_samp", types.TInt4, []types.Datum{types.DInt(1), types.DInt(5), types.DInt(9)}},
		{"stddev_pop", types.TFloat8, []types.Datum{types.DFloat(1), types.DFloat(5), types.DFloat(9)}},
		{"max", types.TText, []types.Datum{types.DString("b"), types.DString("a"), types.DString("c")}},
	}
	for _, c := range cases {
		for _, wide := range []bool{true, false} {
			spec := AggSpec{Fn: c.fn, ArgTypes: []types.T{c.t}, WideSums: wide}
			mk, err := NewAccumulatorFunc(spec)
			if err != nil {
				t.Fatal(err)
			}
			a := mk()
			ts, ok := AccumulatorStateTypes(a)
			if !ok {
				t.Fatalf("%s(%s): no fixed state", c.fn, c.t)
			}
			for _, v := range c.vals {
				if err := a.Add([]types.Datum{v}); err != nil {
					t.Fatal(err)
				}
			}
			if _, step := a.(*floatStepAcc); c.t.ID == types.Float8 && step == wide {
				t.Fatalf("%s(%s) with WideSums %v: a %T", c.fn, c.t, wide, a)
			}
			if _, step := a.(*floatStepAcc); c.fn != "max" && !step {
				if err := a.Retract([]types.Datum{c.vals[0]}); err != nil {
					t.Fatal(err)
				}
			}
			enc := types.AppendRow(nil, AppendAccumulatorState(nil, a), ts)
			row, err := types.DecodeRow(enc, ts)
			if err != nil {
				t.Fatal(err)
			}
			b := mk()
			if err := SetAccumulatorState(b, row); err != nil {
				t.Fatal(err)
			}
			for step := 0; step < 2; step++ {
				ra, rb := a.Result(), b.Result()
				same := sameRowLoose(types.Row{ra}, types.Row{rb}) && (ra.D == nil || ra.D.String() == rb.D.String())
				if !same || ra.Null {
					t.Errorf("%s(%s) WideSums %v step %d: restored %+v, original %+v", c.fn, c.t, wide, step, rb, ra)
				}
				for _, x := range []Accumulator{a, b} {
					if err := x.Add([]types.Datum{c.vals[1]}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	// Accumulators that keep their inputs have no fixed state.
	mk, _ := NewAccumulatorFunc(AggSpec{Fn: "min", ArgTypes: []types.T{types.TInt4}, Retractable: true})
	if _, ok := AccumulatorStateTypes(mk()); ok {
		t.Error("retractable min reports a fixed state")
	}
	if err := SetAccumulatorState(mk(), types.Row{types.DInt(1)}); err == nil {
		t.Error("SetAccumulatorState accepted a retractable min")
	}
}
