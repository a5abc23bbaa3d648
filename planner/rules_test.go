package planner

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestFoldConstBool checks the folding of constant booleans out of a
// condition, NULL counting as false in a condition outside any NOT.
func TestFoldConstBool(t *testing.T) {
	x := &ColRef{Idx: 0, T: types.TBool, Name: "x"}
	y := &ColRef{Idx: 1, T: types.TBool, Name: "y"}
	tr := &Const{V: types.DBool(true), T: types.TBool}
	fa := &Const{V: types.DBool(false), T: types.TBool}
	null := &Const{V: types.NullDatum, T: types.TBool}
	cases := []struct {
		name string
		in   Expr
		qual bool
		want string
	}{
		{"or false", &Or{Args: []Expr{x, fa}}, true, "x"},
		{"and true", &And{Args: []Expr{tr, x}}, true, "x"},
		{"or true", &Or{Args: []Expr{x, tr}}, true, "true"},
		{"and false", &And{Args: []Expr{x, fa, y}}, true, "false"},
		{"not false", &And{Args: []Expr{x, &Not{Arg: fa}, y}}, true, "x AND y"},
		{"nested", &And{Args: []Expr{&Or{Args: []Expr{x, fa}}, &Or{Args: []Expr{tr, y}}}}, true, "x"},
		{"or null in a condition", &Or{Args: []Expr{x, null}}, true, "x"},
		{"or null in a value", &Or{Args: []Expr{x, null}}, false, "x OR NULL::boolean"},
		{"not null", &Or{Args: []Expr{x, &Not{Arg: null}}}, true, "x OR (NOT NULL::boolean)"},
	}
	for _, c := range cases {
		if got := deparse(foldConstBool(c.in, c.qual)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
