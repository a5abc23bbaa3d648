package planner

import (
	"testing"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TestDefaultText compares with what PostgreSQL 15's pg_get_expr(adbin,
// adrelid, true) prints for the same column DEFAULTs.
func TestDefaultText(t *testing.T) {
	cases := []struct {
		typ  types.T
		def  string
		want string
	}{
		{types.TText, "'none'", "'none'::text"},
		{types.TText, "'it''s'", "'it''s'::text"},
		{types.TBool, "true", "true"},
		{types.TBool, "false", "false"},
		{types.TInt4, "-1", "'-1'::integer"},
		{types.TInt4, "1+2", "1 + 2"},
		{types.TInt8, "0", "0"},
		{types.TInt8, "5000000000", "'5000000000'::bigint"},
		{types.TInt2, "3", "3"},
		{types.TNumeric, "1.5", "1.5"},
		{types.TNumeric, "-1.5", "'-1.5'::numeric"},
		{types.T{ID: types.Numeric, Mod: 8<<16 | 2 + 4}, "0", "0"},
		{types.TFloat8, "1.5", "1.5"},
		{types.TFloat8, "2", "2"},
		{types.T{ID: types.Varchar, Mod: 14}, "'x'", "'x'::character varying"},
		{types.TTimestamptz, "now()", "now()"},
		{types.TTimestamptz, "current_timestamp", "CURRENT_TIMESTAMP"},
		{types.TDate, "'2020-01-01'::date", "'2020-01-01'::date"},
	}
	cat := newFakeCatalog()
	for _, c := range cases {
		rel := &catalog.Relation{Name: "d", Kind: catalog.KindTable, Cols: []catalog.Column{{Name: "x", T: c.typ, Default: c.def}}}
		got, err := DefaultText(rel, 0, cat)
		if err != nil {
			t.Errorf("DEFAULT %s on %s: %v", c.def, c.typ, err)
			continue
		}
		if got != c.want {
			t.Errorf("DEFAULT %s on %s: got %s, want %s", c.def, c.typ, got, c.want)
		}
	}
}
