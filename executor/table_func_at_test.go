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
		full, err := StartSRF("generate_series", args, ts, time.UTC, 0)
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
			g, err := StartSRFAt("generate_series", args, ts, time.UTC, 0, skip)
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
	g, err := StartSRFAt("generate_series", []types.Datum{types.DInt(1), types.DInt(math.MaxInt64)}, []types.T{i8, i8}, time.UTC, 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g(); ok {
		t.Fatal("a series skipped past its end yields a value")
	}
}

// TestJSONPathQueryTzReadsNow checks that jsonb_path_query_tz gives a
// time of day the zone offset of the transaction's start (the now it is
// given), not of the wall clock: 12:00 in New York is 12:00-04 in July
// and 12:00-05 in January.
func TestJSONPathQueryTzReadsNow(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	args := []types.Datum{types.DString(`"12:00:00"`), types.DString(`$.datetime() ? (@ == "12:00:00-04".datetime())`)}
	argTs := []types.T{{ID: types.Jsonb, Mod: -1}, {ID: types.Jsonpath, Mod: -1}}
	count := func(now time.Time) int {
		g, err := StartSRF("jsonb_path_query_tz", args, argTs, ny, now.UnixMicro())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ok := g(); ok; _, ok = g() {
			n++
		}
		return n
	}
	if n := count(time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)); n != 1 {
		t.Errorf("in July: %d items, want 1", n)
	}
	if n := count(time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC)); n != 0 {
		t.Errorf("in January: %d items, want 0", n)
	}
}
