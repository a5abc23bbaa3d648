package types

import "testing"

// TestCompareNullsOrdered checks every NULL placement against the order a
// sort key with NULLS FIRST or NULLS LAST gives.
func TestCompareNullsOrdered(t *testing.T) {
	null, one := Datum{Null: true}, Datum{}
	for _, tc := range []struct {
		a, b       Datum
		nullsFirst bool
		want       int
		ok         bool
	}{
		{one, one, true, 0, false},
		{one, one, false, 0, false},
		{null, null, true, 0, true},
		{null, null, false, 0, true},
		{null, one, true, -1, true},
		{null, one, false, 1, true},
		{one, null, true, 1, true},
		{one, null, false, -1, true},
	} {
		got, ok := CompareNullsOrdered(tc.a, tc.b, tc.nullsFirst)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CompareNullsOrdered(null=%v, null=%v, nullsFirst=%v) = %d, %v; want %d, %v",
				tc.a.Null, tc.b.Null, tc.nullsFirst, got, ok, tc.want, tc.ok)
		}
	}
}
