package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestArraySearch checks array_position, array_positions, array_replace,
// array_ndims and array_dims over int4[] against PostgreSQL 15's
// answers, NULLs included.
func TestArraySearch(t *testing.T) {
	arr, i4 := types.T{ID: types.Int4Array, Mod: -1}, types.TInt4
	null := types.NullDatum
	a := func(s string) types.Datum { return types.DString(s) }
	n := types.DInt
	for _, c := range []struct {
		fn   string
		args []types.Datum
		want string // "error CODE" for an error
	}{
		{"array_position", []types.Datum{a("{1,2,3,2}"), n(2)}, "2"},
		{"array_position", []types.Datum{a("{1,2,3,2}"), n(2), n(3)}, "4"},
		{"array_position", []types.Datum{a("{1,2,3,2}"), n(2), n(-5)}, "2"},
		{"array_position", []types.Datum{a("{1,2,3,2}"), n(2), n(10)}, "NULL"},
		{"array_position", []types.Datum{a("{1,NULL,3}"), null}, "2"},
		{"array_position", []types.Datum{a("{1,2}"), null}, "NULL"},
		{"array_position", []types.Datum{null, n(1), null}, "NULL"},
		{"array_position", []types.Datum{a("{1,2}"), n(1), null}, "error 22004"},
		{"array_positions", []types.Datum{a("{1,2,1,NULL,1}"), n(1)}, "{1,3,5}"},
		{"array_positions", []types.Datum{a("{1,NULL,NULL}"), null}, "{2,3}"},
		{"array_positions", []types.Datum{a("{}"), n(1)}, "{}"},
		{"array_positions", []types.Datum{null, n(1)}, "NULL"},
		{"array_replace", []types.Datum{a("{1,2,5,4}"), n(5), n(3)}, "{1,2,3,4}"},
		{"array_replace", []types.Datum{a("{1,NULL,3}"), null, n(9)}, "{1,9,3}"},
		{"array_replace", []types.Datum{a("{1,2,1}"), n(1), null}, "{NULL,2,NULL}"},
		{"array_replace", []types.Datum{null, n(1), n(2)}, "NULL"},
		{"array_ndims", []types.Datum{a("{1,2,3}")}, "1"},
		{"array_ndims", []types.Datum{a("{}")}, "NULL"},
		{"array_dims", []types.Datum{a("{1,2,3}")}, "[1:3]"},
		{"array_dims", []types.Datum{a("{}")}, "NULL"},
	} {
		ts := []types.T{arr, i4, i4}[:len(c.args)]
		if c.fn == "array_ndims" || c.fn == "array_dims" {
			ts = []types.T{arr}
		}
		var ret types.T
		for _, o := range Overloads(c.fn) {
			if len(o.Args) == len(ts) && o.Args[0] == types.Int4Array {
				ret = o.Result(ts)
			}
		}
		im, err := Lookup(c.fn, ts, ret)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		d, err := im.Row(&Context{}, c.args)
		got := show(d, ret)
		if err != nil {
			got = "error " + pgerrCode(err)
		}
		if got != c.want {
			t.Errorf("%s%v = %s, want %s", c.fn, c.args, got, c.want)
		}
	}
}

// TestArrayAppendTrim checks array_append, array_prepend, array_cat and
// trim_array over int4[] against PostgreSQL 15's answers: a NULL array
// counts as empty for the first three, a NULL element is kept, and
// trim_array's count must lie between 0 and the length (2202E).
func TestArrayAppendTrim(t *testing.T) {
	arr, i4 := types.T{ID: types.Int4Array, Mod: -1}, types.TInt4
	null := types.NullDatum
	a := func(s string) types.Datum { return types.DString(s) }
	n := types.DInt
	for _, c := range []struct {
		fn   string
		ts   []types.T
		args []types.Datum
		want string // "error CODE" for an error
	}{
		{"array_append", []types.T{arr, i4}, []types.Datum{a("{1,2}"), n(3)}, "{1,2,3}"},
		{"array_append", []types.T{arr, i4}, []types.Datum{a("{1}"), null}, "{1,NULL}"},
		{"array_append", []types.T{arr, i4}, []types.Datum{null, n(1)}, "{1}"},
		{"array_append", []types.T{arr, i4}, []types.Datum{null, null}, "{NULL}"},
		{"array_prepend", []types.T{i4, arr}, []types.Datum{n(0), a("{1,2}")}, "{0,1,2}"},
		{"array_prepend", []types.T{i4, arr}, []types.Datum{null, a("{}")}, "{NULL}"},
		{"array_prepend", []types.T{i4, arr}, []types.Datum{n(1), null}, "{1}"},
		{"array_cat", []types.T{arr, arr}, []types.Datum{a("{1}"), a("{2,NULL}")}, "{1,2,NULL}"},
		{"array_cat", []types.T{arr, arr}, []types.Datum{null, a("{2}")}, "{2}"},
		{"array_cat", []types.T{arr, arr}, []types.Datum{a("{1}"), null}, "{1}"},
		{"array_cat", []types.T{arr, arr}, []types.Datum{null, null}, "NULL"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,2,3}"), n(2)}, "{1}"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,NULL,3}"), n(1)}, "{1,NULL}"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,2}"), n(0)}, "{1,2}"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,2}"), n(2)}, "{}"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,2}"), n(3)}, "error 2202E"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{1,2}"), n(-1)}, "error 2202E"},
		{"trim_array", []types.T{arr, i4}, []types.Datum{a("{}"), n(1)}, "error 2202E"},
	} {
		var ret types.T
		for _, o := range Overloads(c.fn) {
			if len(o.Args) == 2 && o.Args[0] == c.ts[0].ID && o.Args[1] == c.ts[1].ID {
				ret = o.Result(c.ts)
			}
		}
		if ret.ID != types.Int4Array {
			t.Fatalf("%s(%s, %s): no overload returning int[] (got %s)", c.fn, c.ts[0], c.ts[1], ret)
		}
		im, err := Lookup(c.fn, c.ts, ret)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		d, err := im.Row(&Context{}, c.args)
		got := show(d, ret)
		if err != nil {
			got = "error " + pgerrCode(err)
		}
		if got != c.want {
			t.Errorf("%s%v = %s, want %s", c.fn, c.args, got, c.want)
		}
	}
}
