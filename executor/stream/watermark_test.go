package stream

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The watermark tests read rows (ts timestamp, v int8).
var wmInTs = []types.T{types.TTimestamp, types.TInt8}

func TestProjectDerivesWatermarks(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, wmInTs, `
barrier 1 add
+ 2024-01-01T00:01:30 1
wm 0 2024-01-01T00:01:10
wm 1 5
wm 0 2024-01-01T00:02:00
barrier 2
`)}
	minute := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: 60e6}), T: types.TInterval}
	origin := &planner.Const{V: types.DInt(0), T: types.TTimestamp}
	ts := rtCol(0, types.TTimestamp)
	base := &planner.StreamValues{StreamBase: planner.StreamBase{Out: types.Schema{col("ts", types.TTimestamp), col("v", types.TInt8)}, Watermarks: []int{0}}}
	n := &planner.StreamProject{Input: base, Exprs: []planner.Expr{
		call("date_bin", types.TTimestamp, minute, ts, origin),
		rtCol(1, types.TInt8),
		ts,
		call("-", types.TTimestamp, ts, minute),
	}}
	n.Watermarks = []int{0, 2, 3}
	p, err := NewProject(actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	// The plain column first, then the derived ones; v has no watermark
	// in the plan, but a plain reference forwards whatever arrives.
	checkOutput(t, drain(t, p, 2), `
barrier 1
 TS I TS TS
+  2024-01-01T00:01:00 1 2024-01-01T00:01:30 2024-01-01T00:00:30
wm 2 2024-01-01T00:01:10
wm 0 2024-01-01T00:01:00
wm 3 2024-01-01T00:00:10
wm 1 5
wm 2 2024-01-01T00:02:00
wm 0 2024-01-01T00:02:00
wm 3 2024-01-01T00:01:00
barrier 2
`)
}

// wmAggNode is a StreamHashAgg grouping aggInput by g (column 0, with a
// watermark) computing count(*), sum(v) and max(v).
func wmAggNode(eowc bool) *planner.StreamHashAgg {
	n := aggNode([]int{0}, countStar, sumV, maxV)
	n.Input.Base().Watermarks = []int{0}
	n.Watermarks = []int{0}
	n.EOWC = eowc
	n.AppendOnly = eowc
	return n
}

func TestHashAggEOWC(t *testing.T) {
	e := newOpEnv(t)
	n := wmAggNode(true)
	got := runAgg(t, e, n, `
barrier
+ 10 1 a t
+ 20 2 a t
+ 10 3 a t
barrier
+ 20 4 a t
+ 30 5 a t
wm 0 20
barrier
+ 10 6 a t
+ 20 7 a t
wm 0 15
barrier
wm 0 31
barrier
`)
	// Nothing leaves while a group is open; a group leaves once, as an
	// insert, at the barrier after a watermark passed it; a row of a
	// closed group is dropped; a lower watermark changes nothing.
	checkEpochs(t, got, ``, ``, `
+ 10 2 4 3
wm 0 20
`, `
wm 0 15
`, `
+ 20 3 13 7
+ 30 1 5 5
wm 0 31
`)
	if rows := stateRows(t, e, 100); rows != 0 {
		t.Errorf("%d state rows left after every group closed", rows)
	}
}

func TestHashAggWatermarkCleansState(t *testing.T) {
	e := newOpEnv(t)
	n := wmAggNode(false)
	n.Aggs = []planner.AggCall{countStar, sumV, maxV, countDV}
	n.Out = append(n.Out, col("count", types.TInt8))
	n.Extra = []planner.StateTableDesc{{ID: 101}, {ID: 102}}
	n.ExtraFor = []int{2, 3}
	got := runAgg(t, e, n, `
barrier
+ 10 1 a t
+ 20 2 a t
barrier
+ 10 3 a t
wm 0 11
barrier
+ 10 9 a t
+ 20 2 a t
barrier
`)
	// Updates leave at every barrier as usual; the watermark deletes
	// group 10's state without a retraction, and its later row is late.
	checkEpochs(t, got, ``, `
+ 10 1 1 1 1
+ 20 1 2 2 1
`, `
U- 10 1 1 1 1
U+ 10 2 4 3 2
wm 0 11
`, `
U- 20 1 2 2 1
U+ 20 2 4 2 1
`)
	for id, want := range map[uint32]int{100: 1, 101: 1, 102: 1} {
		if rows := stateRows(t, e, id); rows != want {
			t.Errorf("state table %d: %d rows, want %d", id, rows, want)
		}
	}
}

// stateRows counts the committed rows of state table id.
func stateRows(t testing.TB, e *opEnv, id uint32) int {
	t.Helper()
	snap := e.db.NewSnapshot()
	defer snap.Close()
	n := 0
	if err := snap.ScanPrefix(storage.TablePrefix(id), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
