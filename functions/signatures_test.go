package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestBuiltinResultTypes spot-checks result types against Postgres 15
// (pg_operator / pg_proc / pg_aggregate).
func TestBuiltinResultTypes(t *testing.T) {
	find := func(name string, args ...types.TypeID) *Overload {
		for _, o := range Overloads(name) {
			if len(o.Args) == len(args) {
				ok := true
				for i := range args {
					if o.Args[i] != args[i] {
						ok = false
					}
				}
				if ok {
					return o
				}
			}
		}
		return nil
	}
	cases := []struct {
		name string
		args []types.TypeID
		want types.TypeID
	}{
		{"+", []types.TypeID{tI4, tI4}, tI4},
		{"+", []types.TypeID{tI2, tI8}, tI8},
		{"/", []types.TypeID{tNum, tNum}, tNum},
		{"^", []types.TypeID{tF8, tF8}, tF8},
		{"-", []types.TypeID{tDate, tDate}, tI4},
		{"+", []types.TypeID{tDate, tIv}, tTS},
		{"-", []types.TypeID{tTSTZ, tTSTZ}, tIv},
		{"sum", []types.TypeID{tI4}, tI8},
		{"sum", []types.TypeID{tI8}, tNum},
		{"avg", []types.TypeID{tI4}, tNum},
		{"avg", []types.TypeID{tF4}, tF8},
		{"row_number", nil, tI8},
		{"date_part", []types.TypeID{tText, tTS}, tF8},
		{"pg_extract", []types.TypeID{tText, tTS}, tNum},
		{"length", []types.TypeID{tText}, tI4},
		{"=", []types.TypeID{tJsonb, tJsonb}, tBool},
		{"corr", []types.TypeID{tF8, tF8}, tF8},
		{"regr_count", []types.TypeID{tF8, tF8}, tI8},
		{"array_positions", []types.TypeID{types.TextArray, tText}, types.Int4Array},
		{"array_dims", []types.TypeID{types.Int4Array}, tText},
		{"sha256", []types.TypeID{tBytea}, tBytea},
		{"-", []types.TypeID{tJsonb, tI4}, tJsonb},
		{"pg_starts_with", []types.TypeID{tText, tText}, tBool},
	}
	for _, c := range cases {
		o := find(c.name, c.args...)
		if o == nil {
			t.Errorf("%s%v: not registered", c.name, c.args)
			continue
		}
		ts := make([]types.T, len(c.args))
		for i, a := range c.args {
			ts[i] = types.T{ID: a, Mod: -1}
		}
		if got := o.Result(ts).ID; got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.args, got, c.want)
		}
	}
	if o := find("max", tText); o == nil || o.Kind != Aggregate || o.Result([]types.T{{ID: tText, Mod: 5}}).ID != tText {
		t.Errorf("max(text) not an aggregate returning text")
	}
}
