package executor

import (
	"math"
	"testing"
	"time"

	"github.com/weirdb/weir/types"
)

// TestStartSRFAt: an integer series started at its skip-th value (it
// jumps there) yields what the series run from its start yields after
// skip values, with any step, near the ends of int64 included.
func TestStartSRFAt(t *testing.T) {
	i8 := types.TInt8
	series := func(a ...int64) ([]types.Datum, []types.T) {
		var ds []types.Datum
		var ts []types.T
		for _, x := range a {
			ds, ts = append(ds, types.DInt(x)), append(ts, i8)
		}
		return ds, ts
	}
	cases := [][]int64{
		{1, 10}, {1, 10, 3}, {10, 1, -3}, {5, 1}, {math.MaxInt64 - 5, math.MaxInt64, 2},
		{math.MinInt64 + 5, math.MinInt64, -2}, {0, math.MaxInt64, math.MaxInt64 / 2},
	}
	for _, c := range cases {
		args, ts := series(c...)
		full, err := StartSRF("generate_series", args, ts, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		var all []types.Datum
		for {
			d, ok := full()
			if !ok || len(all) > 20 {
				break
			}
			all = append(all, d)
		}
		for skip := int64(0); skip <= int64(len(all))+2; skip++ {
			g, err := StartSRFAt("generate_series", args, ts, time.UTC, skip)
			if err != nil {
				t.Fatal(err)
			}
			for k := skip; ; k++ {
				d, ok := g()
				if k >= int64(len(all)) {
					if ok {
						t.Fatalf("series %v from %d: value %d beyond its end", c, skip, d.I)
					}
					break
				}
				if !ok || d.I != all[k].I {
					t.Fatalf("series %v from %d: value %d is %v (%v), want %d", c, skip, k, d.I, ok, all[k].I)
				}
			}
		}
	}
	g, err := StartSRFAt("generate_series", []types.Datum{types.DInt(1), types.DInt(math.MaxInt64)}, []types.T{i8, i8}, time.UTC, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g(); ok {
		t.Fatal("a series skipped past its end yields a value")
	}
}
