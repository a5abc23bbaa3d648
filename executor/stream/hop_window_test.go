package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

const (
	usSecond = int64(1_000_000)
	usMinute = 60 * usSecond
)

// hopNode returns a StreamHopWindow over columns ts (the time column is
// timeCol) with the given parameters in microseconds.
func hopNode(ts []types.T, timeCol int, slide, size, offset int64) *planner.StreamHopWindow {
	n := &planner.StreamHopWindow{TimeCol: timeCol, Slide: slide, Size: size, Offset: offset}
	in := &planner.StreamValues{}
	for _, t := range ts {
		in.Out = append(in.Out, types.Column{Name: "c", T: t})
	}
	n.Input = in
	wt := ts[timeCol]
	if wt.ID == types.Date {
		wt = types.TTimestamp
	}
	n.Out = append(append(types.Schema(nil), in.Out...), types.Column{Name: "window_start", T: wt}, types.Column{Name: "window_end", T: wt})
	return n
}

func TestHopWindowOps(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	ts := []types.T{types.TInt8, types.TTimestamp}
	msgs := parseScript(t, ts, `
barrier 1 add
+  1 1970-01-01T00:01:30
+  2 .
U- 1 1970-01-01T00:01:30
U+ 1 1970-01-01T00:01:45
U- 1 1970-01-01T00:01:45
U+ 1 1969-12-31T23:59:00
-  1 1969-12-31T23:59:00
U- 3 .
U+ 3 1970-01-01T00:00:00
U- 4 1970-01-01T00:00:00
U+ 4 .
barrier 2
`)
	// A watermark on the time column at 00:01:30, one on the other
	// column, then the closing barrier.
	last := msgs[len(msgs)-1]
	msgs = append(msgs[:len(msgs)-1],
		types.Watermark{Col: 1, T: types.TTimestamp, Val: types.DInt(90 * usSecond)},
		types.Watermark{Col: 0, T: types.TInt8, Val: types.DInt(5)},
		last)
	// Windows of three minutes every minute: each row is in three.
	h, err := NewHopWindow(actx, &rtScript{msgs: msgs}, hopNode(ts, 1, usMinute, 3*usMinute, 0))
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, h, 2), `
barrier 1
 I TS TS TS
+  1 1970-01-01T00:01:30 1969-12-31T23:59:00 1970-01-01T00:02:00
+  1 1970-01-01T00:01:30 1970-01-01T00:00:00 1970-01-01T00:03:00
+  1 1970-01-01T00:01:30 1970-01-01T00:01:00 1970-01-01T00:04:00
U- 1 1970-01-01T00:01:30 1969-12-31T23:59:00 1970-01-01T00:02:00
U+ 1 1970-01-01T00:01:45 1969-12-31T23:59:00 1970-01-01T00:02:00
U- 1 1970-01-01T00:01:30 1970-01-01T00:00:00 1970-01-01T00:03:00
U+ 1 1970-01-01T00:01:45 1970-01-01T00:00:00 1970-01-01T00:03:00
U- 1 1970-01-01T00:01:30 1970-01-01T00:01:00 1970-01-01T00:04:00
U+ 1 1970-01-01T00:01:45 1970-01-01T00:01:00 1970-01-01T00:04:00
-  1 1970-01-01T00:01:45 1969-12-31T23:59:00 1970-01-01T00:02:00
+  1 1969-12-31T23:59:00 1969-12-31T23:57:00 1970-01-01T00:00:00
-  1 1970-01-01T00:01:45 1970-01-01T00:00:00 1970-01-01T00:03:00
+  1 1969-12-31T23:59:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  1 1970-01-01T00:01:45 1970-01-01T00:01:00 1970-01-01T00:04:00
+  1 1969-12-31T23:59:00 1969-12-31T23:59:00 1970-01-01T00:02:00
-  1 1969-12-31T23:59:00 1969-12-31T23:57:00 1970-01-01T00:00:00
-  1 1969-12-31T23:59:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  1 1969-12-31T23:59:00 1969-12-31T23:59:00 1970-01-01T00:02:00
+  3 1970-01-01T00:00:00 1969-12-31T23:58:00 1970-01-01T00:01:00
+  3 1970-01-01T00:00:00 1969-12-31T23:59:00 1970-01-01T00:02:00
+  3 1970-01-01T00:00:00 1970-01-01T00:00:00 1970-01-01T00:03:00
-  4 1970-01-01T00:00:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  4 1970-01-01T00:00:00 1969-12-31T23:59:00 1970-01-01T00:02:00
-  4 1970-01-01T00:00:00 1970-01-01T00:00:00 1970-01-01T00:03:00
wm 1 1970-01-01 00:01:30
wm 2 1969-12-31 23:59:00
wm 3 1970-01-01 00:02:00
wm 0 5
barrier 2
`)
}

// TestHopWindowOffsetAndDate checks the alignment offset and a date time
// column, whose windows are timestamps from its midnight.
func TestHopWindowOffsetAndDate(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	ts := []types.T{types.TDate}
	msgs := parseScript(t, ts, `
barrier 1 add
+ 1969-12-31
barrier 2
`)
	// An infinite date has no windows.
	msgs[1].(*types.Chunk).AppendRow(types.OpInsert, types.Row{types.DInt(types.PosInfinity)})
	in := &rtScript{msgs: msgs}
	// Two-day windows every day, starting at 06:00.
	day := 24 * 60 * usMinute
	h, err := NewHopWindow(actx, in, hopNode(ts, 0, day, 2*day, 6*60*usMinute))
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, drain(t, h, 2), `
barrier 1
 D TS TS
+ 1969-12-31 1969-12-29T06:00:00 1969-12-31T06:00:00
+ 1969-12-31 1969-12-30T06:00:00 1970-01-01T06:00:00
barrier 2
`)
	errs := actx.Errors.(*errList).errs
	if len(errs) != 1 || !strings.Contains(errs[0], "out of range") {
		t.Errorf("recorded errors: %q", errs)
	}
}

// TestHopWindowChunking checks that a row with more windows than a chunk
// holds is spread over several chunks of at most types.ChunkCap rows,
// and that no chunk splits an update pair.
func TestHopWindowChunking(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	ts := []types.T{types.TTimestamp}
	in := &rtScript{msgs: parseScript(t, ts, `
barrier 1 add
+  2024-01-01T00:00:00
U- 2024-01-01T00:00:00
U+ 2024-01-01T00:00:00.5
barrier 2
`)}
	// 1,000 windows per row, one per microsecond.
	h, err := NewHopWindow(actx, in, hopNode(ts, 0, 1, 1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	var ops []types.Op
	for {
		m, err := h.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := m.(types.Barrier); ok {
			if b.Epoch.Curr == 2 {
				break
			}
			continue
		}
		c := m.(*types.Chunk)
		if c.Len() > types.ChunkCap {
			t.Fatalf("chunk of %d rows", c.Len())
		}
		if c.Op(c.Len()-1) == types.OpUpdateDelete || c.Op(0) == types.OpUpdateInsert {
			t.Fatalf("chunk splits an update pair")
		}
		for i := 0; i < c.Len(); i++ {
			ops = append(ops, c.Op(i))
		}
	}
	// 1,000 inserts, then 1,000 deletes and inserts: a time moved by half
	// a second shares no one-millisecond window with its old value.
	if len(ops) != 3000 || ops[999] != types.OpInsert || ops[1000] != types.OpDelete || ops[1001] != types.OpInsert {
		t.Fatalf("got %d rows", len(ops))
	}
}
