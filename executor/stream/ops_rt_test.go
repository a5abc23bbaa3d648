package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

var ts2 = []types.T{types.TInt8, types.TText}

func TestFilterSplitsUpdatePairs(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, ts2, `
barrier 1 add
+  1 a
+  5 b
U- 1 a
U+ 6 a
U- 5 b
U+ 2 b
U- 7 c
U+ 8 c
- 3 x
wm 0 4
barrier 2
+ 1 z
barrier 3
`)}
	f, err := NewFilter(actx, in, &planner.StreamFilter{Cond: call(">", types.TBool, rtCol(0, types.TInt8), cint(4))})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, f, 3), `
barrier 1
 I T
+  5 b
+  6 a
-  5 b
U- 7 c
U+ 8 c
wm 0 4
barrier 2
barrier 3
`)
}

func TestProjectRecordsRowErrors(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, ts2, `
barrier 1 add
+  2 a
+  0 b
U- 4 c
U+ 5 c
wm 0 3
wm 1 3
barrier 2
`)}
	p, err := NewProject(actx, in, &planner.StreamProject{Exprs: []planner.Expr{
		call("/", types.TInt8, cint(10), rtCol(0, types.TInt8)),
		rtCol(0, types.TInt8),
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, p, 2), `
barrier 1
 I I
+  5 2
+  . 0
U- 2 4
U+ 2 5
wm 1 3
barrier 2
`)
	errs := actx.Errors.(*errList).errs
	if len(errs) != 1 || !strings.Contains(errs[0], "division by zero") {
		t.Errorf("recorded errors: %q", errs)
	}
}

func TestValuesEmitOnceWhenAdded(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	n := &planner.StreamValues{
		StreamBase: planner.StreamBase{Out: types.Schema{{Name: "x", T: types.TInt8}}},
		Rows:       [][]planner.Expr{{cint(1)}, {cint(2)}},
	}
	for _, tc := range []struct{ script, want string }{
		{"barrier 1 add\nbarrier 2", "barrier 1\n I\n+ 1\n+ 2\nbarrier 2"},
		{"barrier 5 initial\nbarrier 6", "barrier 5\nbarrier 6"},
	} {
		v, err := NewValues(newTestActx(db), &rtScript{msgs: parseScript(t, nil, tc.script)}, n)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, drain(t, v, 2), tc.want)
	}
}

// TestMergeAlignsBarriers checks that after one channel delivered a
// barrier, Merge reads only the others until they delivered it too, and
// that watermarks are the minimum over the channels.
func TestMergeAlignsBarriers(t *testing.T) {
	a, b := make(chan types.Message, 8), make(chan types.Message, 8)
	m := newMerge([]<-chan types.Message{a, b})
	ch := func(s string) *types.Chunk {
		c, err := types.ParseChunk(s, ts2)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	b1 := types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}}
	wm := func(v int64) types.Watermark { return types.Watermark{Col: 0, T: types.TInt8, Val: types.DInt(v)} }
	a <- types.Watermark(wm(5))
	a <- b1
	a <- ch("+ 1 after")
	b <- wm(3)
	b <- ch("+ 2 before")
	b <- b1
	b <- wm(9)
	// Before the barrier: b's chunk and the watermark min(5, 3), in an
	// order that depends on which channel is read first; a's chunk after
	// its barrier must wait.
	x, y, z := render(mustNext(t, m)), render(mustNext(t, m)), render(mustNext(t, m))
	if x > y {
		x, y = y, x
	}
	checkOutput(t, x+y+z, `
 I T
+ 2 before
wm 0 3
barrier 1
`)
	// After the barrier, the two channels' messages come in either order.
	x, y = render(mustNext(t, m)), render(mustNext(t, m))
	if x > y {
		x, y = y, x
	}
	checkOutput(t, x+y, `
 I T
+ 1 after
wm 0 5
`)
	// Barriers of different epochs are misaligned.
	a <- b1
	b <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	if _, err := m.Next(context.Background()); err == nil || !strings.Contains(err.Error(), "misalignment") {
		t.Errorf("misaligned barriers: %v", err)
	}
}

func mustNext(t *testing.T, op Operator) types.Message {
	t.Helper()
	m, err := op.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHashDispatcherSplitsMovedUpdates(t *testing.T) {
	outs := []chan types.Message{make(chan types.Message, 4), make(chan types.Message, 4)}
	d := &hashDispatcher{outs: []chan<- types.Message{outs[0], outs[1]}, keys: []int{0}}
	// Find two keys on different partitions and one on the first.
	c := types.NewChunk(ts2, 4)
	var k0, k1 int64 = -1, -1
	for k := int64(0); k0 < 0 || k1 < 0; k++ {
		c.Reset()
		c.AppendRow(types.OpInsert, types.Row{types.DInt(k), types.DString("")})
		if partitionOf(hashChunkRow(c, 0, []int{0}), 2) == 0 {
			if k0 < 0 {
				k0 = k
			}
		} else if k1 < 0 {
			k1 = k
		}
	}
	in := types.NewChunk(ts2, 4)
	in.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(k0), types.DString("a")})
	in.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(k1), types.DString("a")})
	in.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(k0), types.DString("b")})
	in.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(k0), types.DString("c")})
	if err := d.dispatch(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	got0 := (<-outs[0]).(*types.Chunk)
	got1 := (<-outs[1]).(*types.Chunk)
	want0, _ := types.ParseChunk("- "+itoa(k0)+" a\nU- "+itoa(k0)+" b\nU+ "+itoa(k0)+" c", ts2)
	want1, _ := types.ParseChunk("+ "+itoa(k1)+" a", ts2)
	if got0.String() != want0.String() || got1.String() != want1.String() {
		t.Errorf("partition 0:\n%s\npartition 1:\n%s", got0, got1)
	}
	// Barriers reach every output.
	if err := d.dispatch(context.Background(), types.Barrier{Epoch: types.Epoch{Curr: 1}}); err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if _, ok := (<-o).(types.Barrier); !ok {
			t.Errorf("output %d: no barrier", i)
		}
	}
}

func itoa(v int64) string { return types.FormatText(types.DInt(v), types.TInt8, nil) }
