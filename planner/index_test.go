package planner

import (
	"testing"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TestUseIndexesThroughTextCast checks that a comparison of a varchar
// column cast to text (how b = 'v5' binds) reads the column's index,
// with any operator, and that one of a character(n) column cast to text
// reads it for equalities and IN lists only: its keys are its values
// without trailing spaces, which keep an equality's rows but would move
// a range's bound.
func TestUseIndexesThroughTextCast(t *testing.T) {
	rel := &catalog.Relation{ID: 1, Name: "vc", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
		{Name: "a", T: types.TInt4}, {Name: "b", T: types.T{ID: types.Varchar, Mod: 14}}, {Name: "ch", T: types.T{ID: types.Bpchar, Mod: 8}}, {Name: "i", T: types.TInt4},
	}}
	index := func(id uint32, name string, col int) *catalog.Relation {
		return &catalog.Relation{ID: id, Name: name, Kind: catalog.KindIndex, Deps: []uint32{1},
			Cols: []catalog.Column{rel.Cols[col], rel.Cols[0]},
			With: map[string]string{catalog.IndexKeysOption: "1"}}
	}
	idxB, idxCh, idxI := index(2, "vc_b_idx", 1), index(3, "vc_ch_idx", 2), index(4, "vc_i_idx", 3)
	indexes := func(uint32) []*catalog.Relation { return []*catalog.Relation{idxB, idxCh, idxI} }
	col := func(i int) Expr { return &ColRef{Idx: i, T: rel.Cols[i].T, Name: rel.Cols[i].Name} }
	asText := func(i int) Expr { return &Cast{Arg: col(i), T: types.TText} }
	text := func(s string) Expr { return &Const{V: types.DString(s), T: types.TText} }
	cmp := func(op string, l, r Expr) Expr { return &Call{Fn: op, Args: []Expr{l, r}, T: types.TBool} }
	for _, c := range []struct {
		name string
		cond Expr
		want *catalog.Relation // nil: no index
	}{
		{"varchar =", cmp("=", asText(1), text("v5")), idxB},
		{"varchar = flipped", cmp("=", text("v5"), asText(1)), idxB},
		{"varchar <", cmp("<", asText(1), text("v5")), idxB},
		{"varchar IN", &InList{Arg: asText(1), List: []Expr{text("v5"), text("v7")}}, idxB},
		{"bpchar =", cmp("=", asText(2), text("c5")), idxCh},
		{"bpchar IN", &InList{Arg: asText(2), List: []Expr{text("c5")}}, idxCh},
		{"bpchar <", cmp("<", asText(2), text("c5")), nil},
		{"bpchar >=", cmp(">=", asText(2), text("c5")), nil},
		{"bpchar NOT IN", &InList{Arg: asText(2), List: []Expr{text("c5")}, Not: true}, nil},
		// An int's text is not ordered as the int.
		{"int::text =", cmp("=", asText(3), text("5")), nil},
		{"varchar::varchar", cmp("=", &Cast{Arg: col(1), T: types.T{ID: types.Varchar, Mod: 6}}, &Const{V: types.DString("v5"), T: types.T{ID: types.Varchar, Mod: 6}}), nil},
	} {
		scan := &Scan{Rel: rel, Cols: []int{0, 1, 2, 3}}
		for _, i := range scan.Cols {
			scan.Out = append(scan.Out, types.Column{Name: rel.Cols[i].Name, T: rel.Cols[i].T})
		}
		f := UseIndexes(&Filter{Input: scan, Cond: c.cond}, indexes).(*Filter)
		is, ok := f.Input.(*IndexScan)
		switch {
		case c.want == nil && ok:
			t.Errorf("%s: read through %s, want a scan", c.name, is.Index.Name)
		case c.want != nil && !ok:
			t.Errorf("%s: a scan, want %s", c.name, c.want.Name)
		case c.want != nil && is.Index != c.want:
			t.Errorf("%s: read through %s, want %s", c.name, is.Index.Name, c.want.Name)
		}
	}
}
