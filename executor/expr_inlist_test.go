package executor

import (
	"fmt"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

func decimal(t *testing.T, s string) types.Datum {
	t.Helper()
	d, _, err := apd.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return types.DDecimal(d)
}

// genericInList is the element-by-element evaluator, the reference for
// the constant list's.
func genericInList(t *testing.T, e *planner.InList) Evaluator {
	t.Helper()
	arg, err := Compile(e.Arg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := compileAll(e.List)
	if err != nil {
		t.Fatal(err)
	}
	g := &inListEval{arg: arg, list: list, not: e.Not}
	for _, x := range e.List {
		cmp, err := functions.Comparer(e.Arg.Type(), x.Type())
		if err != nil {
			t.Fatal(err)
		}
		g.eq = append(g.eq, cmp)
	}
	return g
}

// A list of constants, hashed from hashInListMin elements on, answers
// every value as comparing element by element does: equal values of
// different forms (1.0 and 1.00, -0 and 0, 'a' and 'a ' as character),
// NaN, NULL in the list or as the argument, NOT IN.
func TestConstInListMatchesElementwise(t *testing.T) {
	cases := []struct {
		typ    types.T
		values []types.Datum
		consts []types.Datum
	}{
		{types.TInt8, []types.Datum{types.DInt(3), types.DInt(-7), types.DInt(1 << 40), types.NullDatum, types.DInt(0)},
			[]types.Datum{types.DInt(1), types.DInt(2), types.DInt(3), types.DInt(4), types.DInt(5), types.DInt(6), types.DInt(7), types.DInt(8), types.DInt(9), types.DInt(1 << 40)}},
		{types.TFloat8, []types.Datum{types.DFloat(math.Copysign(0, -1)), types.DFloat(math.NaN()), types.DFloat(2.5), types.DFloat(3)},
			[]types.Datum{types.DFloat(0), types.DFloat(math.NaN()), types.DFloat(1), types.DFloat(2), types.DFloat(4), types.DFloat(5), types.DFloat(6), types.DFloat(7), types.DFloat(8), types.DFloat(9)}},
		{types.TNumeric, []types.Datum{decimal(t, "1.00"), decimal(t, "2.5"), decimal(t, "NaN"), decimal(t, "-0.000")},
			[]types.Datum{decimal(t, "1.0"), decimal(t, "2.50"), decimal(t, "0"), decimal(t, "3"), decimal(t, "4"), decimal(t, "5"), decimal(t, "6"), decimal(t, "7"), decimal(t, "8"), decimal(t, "NaN")}},
		{types.TBpchar, []types.Datum{types.DString("a "), types.DString("b"), types.DString("z")},
			[]types.Datum{types.DString("a"), types.DString("b  "), types.DString("c"), types.DString("d"), types.DString("e"), types.DString("f"), types.DString("g"), types.DString("h"), types.DString("i")}},
		{types.TText, []types.Datum{types.DString("a "), types.DString("b"), types.DString("")},
			[]types.Datum{types.DString("a"), types.DString("b"), types.DString("c"), types.DString("d"), types.DString("e"), types.DString("f"), types.DString("g"), types.DString("h"), types.DString("")}},
	}
	for _, c := range cases {
		for _, withNull := range []bool{false, true} {
			for _, short := range []bool{false, true} {
				for _, not := range []bool{false, true} {
					consts := c.consts
					if short {
						consts = consts[:3]
					}
					var list []planner.Expr
					for _, d := range consts {
						list = append(list, &planner.Const{V: d, T: c.typ})
					}
					if withNull {
						list = append(list, &planner.Const{V: types.NullDatum, T: c.typ})
					}
					e := &planner.InList{Arg: &planner.ColRef{Idx: 0, T: c.typ}, List: list, Not: not}
					fast, err := Compile(e)
					if err != nil {
						t.Fatal(err)
					}
					ce, ok := fast.(*constInListEval)
					if !ok {
						t.Fatalf("%s: a list of constants compiled to %T", c.typ, fast)
					}
					if hashed := ce.byHash != nil; hashed == short {
						t.Fatalf("%s with %d constants: hashed %v", c.typ, len(consts), hashed)
					}
					in := types.NewChunk([]types.T{c.typ}, len(c.values))
					for _, v := range c.values {
						in.AppendRow(types.OpInsert, types.Row{v})
					}
					want, err := genericInList(t, e).Eval(&EvalCtx{}, in)
					if err != nil {
						t.Fatal(err)
					}
					got, err := fast.Eval(&EvalCtx{}, in)
					if err != nil {
						t.Fatal(err)
					}
					for i := range c.values {
						if g, w := fmt.Sprint(got.Get(i)), fmt.Sprint(want.Get(i)); g != w {
							t.Errorf("%s %v NOT=%v IN %d constants (NULL among them: %v): got %s, want %s",
								c.typ, c.values[i], not, len(consts), withNull, g, w)
						}
					}
				}
			}
		}
	}
}

// A list of 100,000 constants is compiled and evaluated without a vector
// per constant: it used to broadcast every constant to a vector of the
// chunk's length, a million vectors for a million-element IN list.
func TestConstInListAllocations(t *testing.T) {
	var list []planner.Expr
	for i := range 100_000 {
		list = append(list, &planner.Const{V: types.DInt(int64(i)), T: types.TInt8})
	}
	e := &planner.InList{Arg: &planner.ColRef{Idx: 0, T: types.TInt8}, List: list}
	in := types.NewChunk([]types.T{types.TInt8}, 1024)
	for i := range 1024 {
		in.AppendRow(types.OpInsert, types.Row{types.DInt(int64(i * 200))})
	}
	allocs := testing.AllocsPerRun(3, func() {
		ev, err := Compile(e)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ev.Eval(&EvalCtx{}, in)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Get(0).Bool() || v.Get(600).Bool() {
			t.Fatalf("0 IN list: %v, 120000 IN list: %v", v.Get(0), v.Get(600))
		}
	})
	if allocs > 1000 {
		t.Fatalf("compiling and evaluating a 100,000-constant IN list took %.0f allocations; want at most 1,000", allocs)
	}
}
