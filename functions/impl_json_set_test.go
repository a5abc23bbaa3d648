package functions

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

func pgerrCode(err error) string {
	if pe := pgerr.As(err); pe != nil {
		return string(pe.Code)
	}
	return err.Error()
}

// TestJsonbSetPath checks jsonb_set, jsonb_insert, jsonb_set_lax and the
// delete operators against PostgreSQL 15's answers: creation only at
// the path's last step, negative indexes, a step into a scalar, and the
// errors with their SQLSTATEs.
func TestJsonbSetPath(t *testing.T) {
	j, p, b, txt := types.TJsonb, types.TTextArray, types.TBool, types.TText
	s, null := types.DString, types.NullDatum
	for _, c := range []struct {
		fn   string
		ts   []types.T
		args []types.Datum
		want string // "error CODE" for an error
	}{
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`{"a": 1}`), s("{c}"), s("3")}, `{"a": 1, "c": 3}`},
		{"jsonb_set", []types.T{j, p, j, b}, []types.Datum{s(`{"a": 1}`), s("{c}"), s("3"), types.DBool(false)}, `{"a": 1}`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`{"a": {"b": 1}}`), s("{x,c}"), s("1")}, `{"a": {"b": 1}}`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`{"a": 1}`), s("{a,b}"), s("2")}, `{"a": 1}`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`[1, 2, 3]`), s("{-1}"), s("9")}, `[1, 2, 9]`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`[1, 2, 3]`), s("{-5}"), s("9")}, `[9, 1, 2, 3]`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`[1, 2, 3]`), s("{5}"), s("9")}, `[1, 2, 3, 9]`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`1`), s("{a}"), s("2")}, "error 22023"},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`[1]`), s("{x}"), s("2")}, "error 22P02"},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`[1]`), s(`{" +0"}`), s("2")}, `[2]`},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`{"a": {}}`), s("{a,NULL}"), s("2")}, "error 22004"},
		{"jsonb_set", []types.T{j, p, j}, []types.Datum{s(`{"a": 1}`), s("{b,NULL}"), s("2")}, `{"a": 1}`},
		{"jsonb_insert", []types.T{j, p, j}, []types.Datum{s(`{"a": [0, 1, 2]}`), s("{a,1}"), s(`"n"`)}, `{"a": [0, "n", 1, 2]}`},
		{"jsonb_insert", []types.T{j, p, j, b}, []types.Datum{s(`{"a": [0, 1, 2]}`), s("{a,-1}"), s(`"n"`), types.DBool(true)}, `{"a": [0, 1, 2, "n"]}`},
		{"jsonb_insert", []types.T{j, p, j}, []types.Datum{s(`{"a": 1}`), s("{a}"), s("2")}, "error 22023"},
		{"jsonb_set_lax", []types.T{j, p, j}, []types.Datum{s(`{"a": 1}`), s("{a}"), null}, `{"a": null}`},
		{"jsonb_set_lax", []types.T{j, p, j, b, txt}, []types.Datum{s(`{"a": 1, "b": 2}`), s("{a}"), null, types.DBool(true), s("delete_key")}, `{"b": 2}`},
		{"jsonb_set_lax", []types.T{j, p, j, b, txt}, []types.Datum{s(`{"a": 1}`), s("{a}"), null, types.DBool(true), s("raise_exception")}, "error 22004"},
		{"jsonb_set_lax", []types.T{j, p, j, b, txt}, []types.Datum{s(`{"a": 1}`), s("{a}"), s("2"), types.DBool(true), null}, "error 22023"},
		{"-", []types.T{j, txt}, []types.Datum{s(`["a", "b", "a", 1]`), s("a")}, `["b", 1]`},
		{"-", []types.T{j, p}, []types.Datum{s(`{"a": 1, "b": 2, "c": 3}`), s("{a,c,NULL}")}, `{"b": 2}`},
		{"-", []types.T{j, types.TInt4}, []types.Datum{s(`[1, 2, 3]`), types.DInt(-1)}, `[1, 2]`},
		{"-", []types.T{j, types.TInt4}, []types.Datum{s(`{}`), types.DInt(0)}, "error 22023"},
		{"-", []types.T{j, txt}, []types.Datum{s(`"a"`), s("a")}, "error 22023"},
		{"pg_json_delete_path", []types.T{j, p}, []types.Datum{s(`{"a": {"b": 1, "c": 2}}`), s("{a,b}")}, `{"a": {"c": 2}}`},
		{"pg_json_delete_path", []types.T{j, p}, []types.Datum{s(`[1, [2, 3]]`), s("{1,-2}")}, `[1, [3]]`},
		{"pg_json_delete_path", []types.T{j, p}, []types.Datum{s(`3`), s("{a}")}, "error 22023"},
	} {
		im, err := Lookup(c.fn, c.ts, j)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		d, err := im.Row(&Context{}, c.args)
		got := show(d, j)
		if err != nil {
			got = "error " + pgerrCode(err)
		}
		if got != c.want {
			t.Errorf("%s%v = %s, want %s", c.fn, c.args, got, c.want)
		}
	}
}
