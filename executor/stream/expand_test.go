package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestExpandOps: each row once per grouping set (ROLLUP (a, b): (a, b),
// (a), ()), the keys a set leaves out NULL, ops kept and an update pair
// a pair per set; a watermark on a key column is dropped.
func TestExpandOps(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	ts := []types.T{types.TInt8, types.TInt8, types.TInt8}
	msgs := parseScript(t, ts, `
barrier 1 add
+  1 10 100
U- 1 10 100
U+ 1 20 100
-  1 20 100
barrier 2
`)
	last := msgs[len(msgs)-1]
	msgs = append(msgs[:len(msgs)-1],
		types.Watermark{Col: 1, T: types.TInt8, Val: types.DInt(5)},
		types.Watermark{Col: 0, T: types.TInt8, Val: types.DInt(7)},
		last)
	in := &planner.StreamValues{}
	for _, t := range ts {
		in.Out = append(in.Out, types.Column{Name: "c", T: t})
	}
	n := &planner.StreamExpand{Input: in, Keys: []int{1, 2}, Sets: [][]int{{0, 1}, {0}, {}}}
	n.Out = append(append(types.Schema(nil), in.Out...), types.Column{Name: "grouping_set", T: types.TInt8})
	checkOutput(t, drain(t, NewExpand(&rtScript{msgs: msgs}, n), 2), `
barrier 1
 I I I I
+  1 10 100 0
+  1 10 . 1
+  1 . . 2
U- 1 10 100 0
U+ 1 20 100 0
U- 1 10 . 1
U+ 1 20 . 1
U- 1 . . 2
U+ 1 . . 2
-  1 20 100 0
-  1 20 . 1
-  1 . . 2
wm 0 7
barrier 2
`)
}

// TestProjectSetOps: a row yields as many rows as its longest call, the
// shorter padded with NULL, each with its ordinal; a delete retracts the
// same rows and an update pair becomes deletes then inserts.
func TestProjectSetOps(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	ts := []types.T{types.TInt8, types.TInt4}
	msgs := parseScript(t, ts, `
barrier 1 add
+  1 2
+  2 0
U- 1 2
U+ 1 1
-  1 1
barrier 2
`)
	in := &planner.StreamValues{}
	for _, t := range ts {
		in.Out = append(in.Out, types.Column{Name: "c", T: t})
	}
	one := &planner.Const{V: types.DInt(1), T: types.TInt4}
	n := &planner.StreamProjectSet{Input: in, Calls: []planner.TableFunc{
		{Fn: "generate_series", Args: []planner.Expr{one, &planner.ColRef{Idx: 1, T: types.TInt4}}, Out: types.Schema{{Name: "g", T: types.TInt4}}},
		{Fn: "generate_series", Args: []planner.Expr{one, &planner.Const{V: types.DInt(1), T: types.TInt4}}, Out: types.Schema{{Name: "h", T: types.TInt4}}},
	}}
	n.Out = append(append(types.Schema(nil), in.Out...), types.Column{Name: "g", T: types.TInt4},
		types.Column{Name: "h", T: types.TInt4}, types.Column{Name: "ordinality", T: types.TInt8})
	p, err := NewProjectSet(actx, &rtScript{msgs: msgs}, n)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, p, 2), `
barrier 1
  I i i i I
+ 1 2 1 1 1
+ 1 2 2 . 2
+ 2 0 . 1 1
- 1 2 1 1 1
- 1 2 2 . 2
+ 1 1 1 1 1
- 1 1 1 1 1
barrier 2
`)
}

// TestProjectSetBoundedChunks: one row whose call yields thousands of
// rows comes out in chunks of at most types.ChunkCap rows, every row
// once and in order, with the barrier after the last of them.
func TestProjectSetBoundedChunks(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	ts := []types.T{types.TInt8}
	const n = 5*types.ChunkCap + 7
	msgs := parseScript(t, ts, fmt.Sprintf("barrier 1 add\n+ %d\n+ 3\nbarrier 2\n", n))
	in := &planner.StreamValues{}
	in.Out = types.Schema{{Name: "n", T: types.TInt8}}
	ps := &planner.StreamProjectSet{Input: in, Calls: []planner.TableFunc{
		{Fn: "generate_series", Args: []planner.Expr{&planner.Const{V: types.DInt(1), T: types.TInt8}, &planner.ColRef{Idx: 0, T: types.TInt8}},
			Out: types.Schema{{Name: "g", T: types.TInt8}}},
	}}
	ps.Out = append(append(types.Schema(nil), in.Out...), types.Column{Name: "g", T: types.TInt8},
		types.Column{Name: "ordinality", T: types.TInt8})
	p, err := NewProjectSet(actx, &rtScript{msgs: msgs}, ps)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	barriers := 0
	for barriers < 2 {
		m, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case types.Barrier:
			barriers++
			if barriers == 2 && len(got) != n+3 {
				t.Fatalf("barrier 2 after %d rows, want %d", len(got), n+3)
			}
		case *types.Chunk:
			if m.Len() > types.ChunkCap {
				t.Fatalf("a chunk of %d rows, more than %d", m.Len(), types.ChunkCap)
			}
			for i := 0; i < m.Len(); i++ {
				got = append(got, m.Cols[1].Get(i).I)
			}
		}
	}
	for i, g := range got {
		want := int64(i + 1)
		if i >= n {
			want = int64(i - n + 1)
		}
		if g != want {
			t.Fatalf("row %d: g = %d, want %d", i, g, want)
		}
	}
}
