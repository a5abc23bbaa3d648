package stream

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// dimRel is a table (k bigint PRIMARY KEY, v text) stored as table 100.
var dimRel = &catalog.Relation{ID: 100, Name: "dim", Kind: catalog.KindTable, PK: []int{0},
	Cols: []catalog.Column{{Name: "k", T: types.TInt8}, {Name: "v", T: types.TText}}}

// putDim commits rows (k, v) of dim, or deletes k when v is "".
func putDim(t *testing.T, db *storage.DB, rows ...[2]any) {
	t.Helper()
	b := db.NewBatch()
	ts := []types.T{types.TInt8, types.TText}
	for _, r := range rows {
		k := types.DInt(int64(r[0].(int)))
		key := types.AppendKey(nil, k, types.TInt8, false)
		var err error
		if v := r[1].(string); v == "" {
			err = b.Delete(dimRel.ID, key)
		} else {
			err = b.Put(dimRel.ID, key, types.Row{k, types.DString(v)}, ts)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func lookupNode(kind planner.JoinKind, cond planner.Expr) *planner.StreamLookupJoin {
	n := &planner.StreamLookupJoin{Kind: kind, Rel: dimRel, Cols: []int{0, 1}, LeftKeys: []int{0}, Cond: cond}
	n.Out = types.Schema{{Name: "key", T: types.TInt8}, {Name: "x", T: types.TInt8}, {Name: "k", T: types.TInt8}, {Name: "v", T: types.TText}}
	return n
}

// TestLookupJoinReadsTheTableAtLookupTime: each row is joined with the
// table as committed when the row is processed; the table's later
// changes show in later rows only, and retract nothing.
func TestLookupJoinReadsTheTableAtLookupTime(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	in := &rtScript{msgs: parseScript(t, []types.T{types.TInt8, types.TInt8}, `
barrier 1 add
+ 1 10
+ 2 11
+ 1 12
barrier 2
+ 1 13
+ 2 14
+ . 15
barrier 3
+ 1 16
+ 2 17
barrier 4
`)}
	j, err := NewLookupJoin(newTestActx(db), in, lookupNode(planner.InnerJoin, nil))
	if err != nil {
		t.Fatal(err)
	}
	putDim(t, db, [2]any{1, "a"})
	checkOutput(t, drain(t, j, 2), `
barrier 1
 I I  I T
+ 1 10 1 a
+ 1 12 1 a
barrier 2
`)
	putDim(t, db, [2]any{1, "b"}, [2]any{2, "c"})
	checkOutput(t, drain(t, j, 1), `
 I I  I T
+ 1 13 1 b
+ 2 14 2 c
barrier 3
`)
	putDim(t, db, [2]any{1, ""})
	checkOutput(t, drain(t, j, 1), `
 I I  I T
+ 2 17 2 c
barrier 4
`)
}

// TestLookupJoinLeftPadsRefusedMatches: a left join pads a row whose
// key is NULL, missing, or whose match the condition refuses.
func TestLookupJoinLeftPadsRefusedMatches(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	in := &rtScript{msgs: parseScript(t, []types.T{types.TInt8, types.TInt8}, `
barrier 1 add
+ 1 10
+ 2 11
+ 3 12
+ . 13
barrier 2
`)}
	cond := call("<>", types.TBool, rtCol(3, types.TText), &planner.Const{V: types.DString("hidden"), T: types.TText})
	j, err := NewLookupJoin(newTestActx(db), in, lookupNode(planner.LeftJoin, cond))
	if err != nil {
		t.Fatal(err)
	}
	putDim(t, db, [2]any{1, "a"}, [2]any{2, "hidden"})
	checkOutput(t, drain(t, j, 2), `
barrier 1
 I I  I T
+ 1 10 1 a
+ 2 11 . .
+ 3 12 . .
+ . 13 . .
barrier 2
`)
}
