package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestLookupUnlistedTypes checks calls whose argument types no overload
// lists exactly, such as an enum's array (enums are created at run
// time) or varchar for text: Lookup must still give each the
// implementation of its kind, not that of an overload over other types
// that accepts anything.
func TestLookupUnlistedTypes(t *testing.T) {
	mood := types.NewEnum(900001, "lookup_mood", "lookup_mood", []types.EnumLabel{
		{OID: 900002, Sort: 1, Label: "sad"}, {OID: 900003, Sort: 2, Label: "ok"}})
	types.SetEnumArrayOID(mood, 900004)
	moods := types.T{ID: types.FirstEnumArrayID + (mood.ID - types.FirstEnumID), Mod: -1}
	json := types.T{ID: types.Json, Mod: -1}
	for _, c := range []struct {
		fn   string
		args []types.T
		ret  types.T
		in   []types.Datum
		want string
	}{
		// anyarray @> anyarray, not jsonb @> jsonb (which would fail to
		// read {sad,ok} as JSON).
		{"pg_json_contains", []types.T{moods, moods}, types.TBool,
			[]types.Datum{types.DString("{sad,ok}"), types.DString("{sad}")}, "t"},
		{"pg_json_contained", []types.T{moods, moods}, types.TBool,
			[]types.Datum{types.DString("{sad,ok}"), types.DString("{sad}")}, "f"},
		// json -> text keeps the text as written; jsonb's would print it
		// again.
		{"pg_json_get", []types.T{json, types.TVarchar}, json,
			[]types.Datum{types.DString(`{"a": [1,   2]}`), types.DString("a")}, "[1,   2]"},
		{"pg_json_path_text", []types.T{json, types.TTextArray}, types.TText,
			[]types.Datum{types.DString(`{"a": {"b":  [1,   2]}}`), types.DString("{a,b}")}, "[1,   2]"},
	} {
		im, err := Lookup(c.fn, c.args, c.ret)
		if err != nil {
			t.Errorf("%s%v: %v", c.fn, c.args, err)
			continue
		}
		d, err := im.Row(&Context{}, c.in)
		if got := show(d, c.ret); err != nil || got != c.want {
			t.Errorf("%s%v = %s, %v; want %s", c.fn, c.args, got, err, c.want)
		}
	}
}
