package stream

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestMaterializeUpsert feeds an upsert view (k int8, v text) from an
// input (k, v, x) and checks the changelog it returns: new keys, a key
// overwritten (also within one chunk, and several times in one epoch),
// tombstones of stored and of missing keys.
func TestMaterializeUpsert(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, []types.T{types.TInt8, types.TText, types.TInt8}, `
barrier 1 add
+ 1 a 10
+ 2 b 20
+ 1 c 30
- 3 . .
barrier 2
- 2 . .
+ 1 d 40
+ 1 e 50
- 1 . .
+ 1 f 60
U- 4 x 1
U+ 4 y 2
barrier 3
- 9 . .
- 2 z 0
barrier 4
`)}
	viewCols := types.Schema{{Name: "k", T: types.TInt8}, {Name: "v", T: types.TText}}
	m, err := NewMaterialize(actx, in, &planner.StreamMaterialize{Input: nil, Cols: []int{0, 1}, Upsert: true,
		State: planner.StateTableDesc{ID: viewID, Name: "mv", Cols: viewCols, KeyCols: []int{0}}})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, m, 4), `
barrier 1
 I T I
+  1 a 10
+  2 b 20
U- 1 a .
U+ 1 c 30
barrier 2
 I T I
-  2 b .
U- 1 c .
U+ 1 d 40
U- 1 d .
U+ 1 e 50
-  1 e .
+  1 f 60
+  4 y 2
barrier 3
barrier 4
`)
	commitWS(t, actx, 4)
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(viewID, viewCols.Types())
	defer it.Close()
	var got []string
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
		got = append(got, fmt.Sprintf("%d %s", r[0].I, r[1].S))
	}
	if strings.Join(got, ",") != "1 f,4 y" {
		t.Errorf("view %v", got)
	}
}

// TestBackfillSkipSnapshot checks that a scan with SkipSnapshot emits
// none of the rows the table held, only the later changes, and reports
// its backfill done at once.
func TestBackfillSkipSnapshot(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	b := db.NewBatch()
	for k := range int64(3) {
		row := types.Row{types.DInt(k), types.DInt(k), types.DString("old")}
		if err := b.Put(tableID, types.AppendKey(nil, row[0], types.TInt8, false), row, tableTypes); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	run := func(skip bool, script string, msgs int) (string, []BackfillProgress) {
		actx := newTestActx(db)
		ch := make(chan types.Message, 8)
		var reports []BackfillProgress
		n := &planner.StreamTableScan{Rel: tableRel, Cols: []int{0, 2}, SkipSnapshot: skip}
		bf, err := NewBackfill(actx, &TableSource{ch: ch}, n, 0, func(p BackfillProgress) { reports = append(reports, p) })
		if err != nil {
			t.Fatal(err)
		}
		defer bf.Close()
		for _, m := range parseScript(t, tableTypes, script) {
			ch <- m
		}
		var out strings.Builder
		for range msgs {
			out.WriteString(render(mustNext(t, bf)))
		}
		return out.String(), reports
	}
	got, reports := run(true, "barrier 1 add\nbarrier 2\n+ 7 7 new\nbarrier 3", 4)
	checkOutput(t, got, "barrier 1\nbarrier 2\n I T\n+ 7 new\nbarrier 3")
	if len(reports) == 0 || !reports[0].Done {
		t.Errorf("progress reports %+v, want done from the first", reports)
	}
	// Without SkipSnapshot the table's rows follow the second barrier.
	got, _ = run(false, "barrier 1 add\nbarrier 2", 3)
	checkOutput(t, got, "barrier 1\nbarrier 2\n I T\n+ 0 old\n+ 1 old\n+ 2 old")
}

// commitWS commits an actor's write set as the epoch's checkpoint and
// gives the actor a fresh one.
func commitWS(t *testing.T, actx *ActorContext, epoch uint64) {
	t.Helper()
	if err := actx.WriteSet.SetCommittedEpoch(epoch); err != nil {
		t.Fatal(err)
	}
	if err := actx.WriteSet.Commit(); err != nil {
		t.Fatal(err)
	}
	actx.WriteSet.Close()
	actx.WriteSet = actx.DB.NewBatch()
}
