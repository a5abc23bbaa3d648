package functions

import (
	"math"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestFloatStepThroughState: the float sums, averages and variances of
// an EMIT ON WINDOW CLOSE window's running frame (neither WideSums nor
// Retractable) go on from their state row as PostgreSQL's transition
// functions go on from their state: a step from an infinite or NaN sum
// never fails, a step from a finite one fails with 22003 where its
// result is infinite, and a failed step leaves the state as it was.
// PostgreSQL: SELECT sum(x) FROM (VALUES ('Infinity'::float8), (1),
// (1e308)) v(x) is Infinity; sum over (1e308, 1e308) fails.
func TestFloatStepThroughState(t *testing.T) {
	inf, nan, r38 := math.Inf(1), math.NaN(), float64(float32(3e38))
	for _, c := range []struct {
		fn     string
		t      types.T
		before []float64 // added, then the state goes through a row
		after  float64   // added after the restore
		fails  bool
		want   float64 // the result after both (NaN: NaN)
	}{
		{"sum", types.TFloat8, []float64{inf, 1}, 1e308, false, inf},
		{"sum", types.TFloat8, []float64{1e308}, 1e308, true, 1e308},
		{"sum", types.TFloat8, []float64{-inf, 1e308}, 1e308, false, -inf},
		{"sum", types.TFloat4, []float64{r38}, r38, true, r38},
		{"avg", types.TFloat8, []float64{nan, 1e308}, 1e308, false, nan},
		{"avg", types.TFloat8, []float64{1e308}, 1e308, true, 1e308},
		{"var_pop", types.TFloat8, []float64{1e154}, -1e154, true, 0},
		{"var_pop", types.TFloat8, []float64{inf}, 1e308, false, nan},
	} {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: c.fn, ArgTypes: []types.T{c.t}})
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		for _, v := range c.before {
			if err := a.Add([]types.Datum{types.DFloat(v)}); err != nil {
				t.Fatal(err)
			}
		}
		a = roundTrip(t, mk, a)
		if err := a.Add([]types.Datum{types.DFloat(c.after)}); (pgerr.CodeOf(err) == pgerr.NumericValueOutOfRange) != c.fails {
			t.Errorf("%s(%s) of %v then %v: error %v, want failing %v", c.fn, c.t, c.before, c.after, err, c.fails)
		}
		if got := a.Result(); got.Null || !(got.F == c.want || math.IsNaN(got.F) && math.IsNaN(c.want)) {
			t.Errorf("%s(%s) of %v then %v: %v, want %v", c.fn, c.t, c.before, c.after, got, c.want)
		}
	}
}
