package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

func TestArrayContainment(t *testing.T) {
	for _, c := range []struct {
		op   string
		t    types.T
		a, b string
		want string
	}{
		{"pg_json_contains", types.T{ID: types.Int4Array, Mod: -1}, "{1,2}", "{1}", "t"},
		{"pg_json_contained", types.T{ID: types.Int4Array, Mod: -1}, "{1,2}", "{1}", "f"},
		{"pg_array_overlap", types.T{ID: types.Int4Array, Mod: -1}, "{1,2}", "{2,3}", "t"},
		{"pg_array_overlap", types.T{ID: types.Int4Array, Mod: -1}, "{1,2}", "{3}", "f"},
		{"pg_json_contains", types.TTextArray, "{a,b}", "{a}", "t"},
		{"pg_json_contained", types.TTextArray, "{a,b}", "{a,b,c}", "t"},
		{"pg_json_contains", types.T{ID: types.NumericArray, Mod: -1}, "{1.0,2}", "{1.00}", "t"},
		// A NULL element equals nothing, not even NULL.
		{"pg_json_contains", types.T{ID: types.Int4Array, Mod: -1}, "{1,NULL}", "{1}", "t"},
		{"pg_json_contains", types.T{ID: types.Int4Array, Mod: -1}, "{1,NULL}", "{NULL}", "f"},
		{"pg_array_overlap", types.T{ID: types.Int4Array, Mod: -1}, "{NULL}", "{NULL}", "f"},
		{"pg_json_contains", types.T{ID: types.Int4Array, Mod: -1}, "{1}", "{}", "t"},
		{"pg_json_contained", types.T{ID: types.Int4Array, Mod: -1}, "{}", "{}", "t"},
	} {
		im, err := Lookup(c.op, []types.T{c.t, c.t}, types.TBool)
		if err != nil {
			t.Fatalf("%s(%s, %s): %v", c.op, c.t, c.t, err)
		}
		d, err := im.Row(&Context{}, []types.Datum{types.DString(c.a), types.DString(c.b)})
		if err != nil || show(d, types.TBool) != c.want {
			t.Errorf("%s(%s, %s) = %s, %v; want %s", c.op, c.a, c.b, show(d, types.TBool), err, c.want)
		}
	}
}
