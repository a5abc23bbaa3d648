package functions

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestOrderedSetAggregates checks percentile_cont, percentile_disc and
// mode over a small multiset, after a retraction, in descending order and
// with a fraction out of range. Expected values are PostgreSQL 15's.
func TestOrderedSetAggregates(t *testing.T) {
	f8 := types.TFloat8
	frac := func(p float64) []types.Datum { return []types.Datum{types.DFloat(p)} }
	mk := func(fn string, args []types.T, desc bool, direct []types.Datum) Accumulator {
		t.Helper()
		s := AggSpec{Fn: fn, ArgTypes: args, OrderBy: []OrderSpec{{T: args[len(args)-1], Desc: desc}}, Direct: direct, Retractable: true}
		o := findAggregate(fn, args)
		if o == nil {
			t.Fatalf("%s%v: no overload", fn, args)
		}
		s.T = o.Result(args)
		m, err := NewAccumulatorFunc(s)
		if err != nil {
			t.Fatal(err)
		}
		return m()
	}
	add := func(a Accumulator, nd int, xs ...float64) {
		for _, x := range xs {
			row := make([]types.Datum, nd+2)
			row[nd], row[nd+1] = types.DFloat(x), types.DFloat(x)
			if err := a.Add(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	// percentile_cont(0.25) over {1, 2, 4, 8}: 1 + (2-1)*0.75 = 1.75.
	a := mk("percentile_cont", []types.T{f8, f8}, false, frac(0.25))
	add(a, 1, 8, 1, 4, 2)
	if got := a.Result().F; got != 1.75 {
		t.Errorf("percentile_cont(0.25) = %v, want 1.75", got)
	}
	if err := a.Retract([]types.Datum{types.NullDatum, types.DFloat(1), types.DFloat(1)}); err != nil {
		t.Fatal(err)
	}
	// {2, 4, 8}: 2 + (4-2)*0.5 = 3.
	if got := a.Result().F; got != 3 {
		t.Errorf("percentile_cont(0.25) after retracting 1 = %v, want 3", got)
	}
	// percentile_disc(0.25) ORDER BY x DESC over {1, 2, 4, 8}: 8.
	a = mk("percentile_disc", []types.T{f8, f8}, true, frac(0.25))
	add(a, 1, 1, 2, 4, 8)
	if got := a.Result().F; got != 8 {
		t.Errorf("percentile_disc(0.25) DESC = %v, want 8", got)
	}
	// mode over {1, 2, 2, 3, 3}: the first of the tied values in order.
	for _, c := range []struct {
		desc bool
		want float64
	}{{false, 2}, {true, 3}} {
		a = mk("mode", []types.T{f8}, c.desc, nil)
		add(a, 0, 3, 1, 2, 3, 2)
		if got := a.Result().F; got != c.want {
			t.Errorf("mode (desc %v) = %v, want %v", c.desc, got, c.want)
		}
	}
	// A fraction out of range is 22003, also over no rows.
	a = mk("percentile_cont", []types.T{f8, f8}, false, frac(1.5))
	if _, err := AccumulatorResult(a); pgerr.CodeOf(err) != pgerr.NumericValueOutOfRange || err.Error() == "" {
		t.Errorf("percentile_cont(1.5): %v", err)
	} else if pe := pgerr.As(err); pe.Message != "percentile value 1.5 is not between 0 and 1" {
		t.Errorf("percentile_cont(1.5): message %q", pe.Message)
	}
	// Ordered-set aggregates have no fixed state: materialized views
	// refuse them.
	if _, ok := AccumulatorStateTypes(a); ok {
		t.Error("percentile_cont reports a fixed state")
	}
}
