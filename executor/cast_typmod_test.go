package executor

import (
	"testing"
	"time"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestIntToNumericTypmod checks that an integer cast to numeric(p,s)
// takes the scale (3::numeric(8,2) is 3.00 in Postgres) and overflows
// past the precision.
func TestIntToNumericTypmod(t *testing.T) {
	num := func(p, s int32) types.T { return types.T{ID: types.Numeric, Mod: p<<16 | s + 4} }
	cases := []struct {
		v    int64
		to   types.T
		want string
	}{
		{3, num(8, 2), "3.00"},
		{12, num(8, 2), "12.00"},
		{123, num(3, 1), "ERROR: numeric field overflow"},
		{7, types.TNumeric, "7"},
	}
	for _, c := range cases {
		ev, err := Compile(&planner.Cast{Arg: &planner.Const{V: types.DInt(c.v), T: types.TInt4}, T: c.to, Assign: true})
		if err != nil {
			t.Fatal(err)
		}
		in := types.NewChunk(nil, 1)
		in.SetLen(1)
		got := ""
		v, err := ev.Eval(&EvalCtx{Context: functions.Context{Location: time.UTC}}, in)
		if err != nil {
			got = "ERROR: " + err.Error()
		} else {
			got = types.FormatText(v.Get(0), c.to, time.UTC)
		}
		if got != c.want {
			t.Errorf("%d::%s = %s, want %s", c.v, c.to, got, c.want)
		}
	}
}
