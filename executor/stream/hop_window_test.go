package stream

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
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
+  5 1970-01-01T00:00:10
U- 5 1970-01-01T00:00:10
U+ 5 1970-01-01T00:01:10
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
-  1 1970-01-01T00:01:45 1970-01-01T00:00:00 1970-01-01T00:03:00
-  1 1970-01-01T00:01:45 1970-01-01T00:01:00 1970-01-01T00:04:00
U- 1 1970-01-01T00:01:45 1969-12-31T23:59:00 1970-01-01T00:02:00
U+ 1 1969-12-31T23:59:00 1969-12-31T23:59:00 1970-01-01T00:02:00
+  1 1969-12-31T23:59:00 1969-12-31T23:57:00 1970-01-01T00:00:00
+  1 1969-12-31T23:59:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  1 1969-12-31T23:59:00 1969-12-31T23:57:00 1970-01-01T00:00:00
-  1 1969-12-31T23:59:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  1 1969-12-31T23:59:00 1969-12-31T23:59:00 1970-01-01T00:02:00
+  3 1970-01-01T00:00:00 1969-12-31T23:58:00 1970-01-01T00:01:00
+  3 1970-01-01T00:00:00 1969-12-31T23:59:00 1970-01-01T00:02:00
+  3 1970-01-01T00:00:00 1970-01-01T00:00:00 1970-01-01T00:03:00
-  4 1970-01-01T00:00:00 1969-12-31T23:58:00 1970-01-01T00:01:00
-  4 1970-01-01T00:00:00 1969-12-31T23:59:00 1970-01-01T00:02:00
-  4 1970-01-01T00:00:00 1970-01-01T00:00:00 1970-01-01T00:03:00
+  5 1970-01-01T00:00:10 1969-12-31T23:58:00 1970-01-01T00:01:00
+  5 1970-01-01T00:00:10 1969-12-31T23:59:00 1970-01-01T00:02:00
+  5 1970-01-01T00:00:10 1970-01-01T00:00:00 1970-01-01T00:03:00
-  5 1970-01-01T00:00:10 1969-12-31T23:58:00 1970-01-01T00:01:00
U- 5 1970-01-01T00:00:10 1969-12-31T23:59:00 1970-01-01T00:02:00
U+ 5 1970-01-01T00:01:10 1969-12-31T23:59:00 1970-01-01T00:02:00
U- 5 1970-01-01T00:00:10 1970-01-01T00:00:00 1970-01-01T00:03:00
U+ 5 1970-01-01T00:01:10 1970-01-01T00:00:00 1970-01-01T00:03:00
+  5 1970-01-01T00:01:10 1970-01-01T00:01:00 1970-01-01T00:04:00
wm 1 1970-01-01T00:01:30
wm 2 1969-12-31T23:59:00
wm 3 1970-01-01T00:02:00
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
U+ 2024-01-01T00:00:00.000001
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
	// 1,000 inserts; then, for a time moved by one microsecond, a delete
	// of the window it left, 999 update pairs, an insert of the window it
	// entered.
	want := []types.Op{types.OpInsert, types.OpDelete}
	for i := 0; i < 999; i++ {
		want = append(want, types.OpUpdateDelete, types.OpUpdateInsert)
	}
	want = append(want, types.OpInsert)
	if len(ops) != 3000 || !slices.Equal(ops[999:], want) {
		t.Fatalf("got %d rows", len(ops))
	}
}

// TestHopWindowRandom feeds random inserts, updates (moving times by
// small and large amounts, to and from NULL) and deletes of keyed rows
// through HopWindow in random chunks, applies the output as a changelog
// keyed by (id, window_start) that must stay consistent (no insert of a
// present key, no delete or U- of a missing one, U-/U+ pairs of one key),
// and compares the result with the windows of the live rows computed
// directly.
func TestHopWindowRandom(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	ts := []types.T{types.TInt8, types.TTimestamp}
	for _, p := range []struct{ slide, size, offset int64 }{
		{10, 30, 0}, {7, 7, 3}, {5, 40, -12}, {1, 4, 1},
	} {
		actx := newTestActx(db)
		live := map[int64]types.Datum{}
		randTime := func() types.Datum {
			if rng.IntN(8) == 0 {
				return types.NullDatum
			}
			return types.DInt(rng.Int64N(400) - 200)
		}
		var msgs []types.Message
		msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}})
		for c := 0; c < 200; c++ {
			chunk := types.NewChunk(ts, 8)
			for r := rng.IntN(6); r >= 0; r-- {
				id := rng.Int64N(12)
				old, ok := live[id]
				switch {
				case !ok:
					tm := randTime()
					chunk.AppendRow(types.OpInsert, types.Row{types.DInt(id), tm})
					live[id] = tm
				case rng.IntN(4) == 0:
					chunk.AppendRow(types.OpDelete, types.Row{types.DInt(id), old})
					delete(live, id)
				default:
					tm := randTime()
					if !old.Null && !tm.Null && rng.IntN(2) == 0 {
						tm = types.DInt(old.I + rng.Int64N(2*p.slide+1) - p.slide)
					}
					chunk.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(id), old})
					chunk.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(id), tm})
					live[id] = tm
				}
			}
			msgs = append(msgs, chunk)
		}
		msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}})
		h, err := NewHopWindow(actx, &rtScript{msgs: msgs}, hopNode(ts, 1, p.slide, p.size, p.offset))
		if err != nil {
			t.Fatal(err)
		}
		type key struct{ id, start int64 }
		state := map[key]int64{} // window end by (id, window_start)
		barriers := 0
		for barriers < 2 {
			m, err := h.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			c, ok := m.(*types.Chunk)
			if !ok {
				if _, ok := m.(types.Barrier); ok {
					barriers++
				}
				continue
			}
			for i := 0; i < c.Len(); i++ {
				k := key{c.Cols[0].Get(i).I, c.Cols[2].Get(i).I}
				_, present := state[k]
				switch op := c.Op(i); op {
				case types.OpInsert, types.OpUpdateInsert:
					if present && op == types.OpInsert {
						t.Fatalf("%+v: insert of present %v", p, k)
					}
					state[k] = c.Cols[3].Get(i).I
				case types.OpDelete, types.OpUpdateDelete:
					if !present {
						t.Fatalf("%+v: delete of missing %v", p, k)
					}
					if op == types.OpUpdateDelete {
						nk := key{c.Cols[0].Get(i + 1).I, c.Cols[2].Get(i + 1).I}
						if i+1 >= c.Len() || c.Op(i+1) != types.OpUpdateInsert || nk != k {
							t.Fatalf("%+v: U- of %v not followed by U+ of it", p, k)
						}
						continue
					}
					delete(state, k)
				}
			}
		}
		want := map[key]int64{}
		for id, tm := range live {
			if tm.Null {
				continue
			}
			for s := p.offset - 100*p.size; s <= tm.I; s += p.slide {
				if s <= tm.I && tm.I < s+p.size {
					want[key{id, s}] = s + p.size
				}
			}
		}
		if !maps.Equal(state, want) {
			t.Fatalf("%+v: got %d windows, want %d", p, len(state), len(want))
		}
	}
}

// TestHopWindowFastPath checks that chunks without update pairs, which
// HopWindow expands column by column, come out as the row-at-a-time
// expansion makes them: random inserts and deletes with NULL times,
// hidden rows and times out of range, in chunks larger than one output
// chunk.
func TestHopWindowFastPath(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 5))
	ts := []types.T{types.TInt8, types.TTimestamp, types.TText}
	for _, p := range []struct{ slide, size int64 }{{10, 30}, {7, 7}, {1, 100}} {
		h, err := NewHopWindow(newTestActx(db), &rtScript{}, hopNode(ts, 1, p.slide, p.size, 0))
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			c := types.NewChunk(ts, 300)
			n := 1 + rng.IntN(300)
			for r := range n {
				tm := types.DInt(rng.Int64N(1000) - 500)
				switch rng.IntN(10) {
				case 0:
					tm = types.NullDatum
				case 1:
					tm = types.DInt(math.MaxInt64) // infinity: out of range
				}
				op := types.OpInsert
				if rng.IntN(3) == 0 {
					op = types.OpDelete
				}
				c.AppendRow(op, types.Row{types.DInt(int64(r)), tm, types.DString(strings.Repeat("x", rng.IntN(3)))})
			}
			if rng.IntN(2) == 0 {
				c.Vis = make([]bool, n)
				for i := range c.Vis {
					c.Vis[i] = rng.IntN(4) != 0
				}
			}
			expandAll := func(fast bool) string {
				h.cur, h.row, h.unit, h.fast = c, 0, nil, fast
				var b strings.Builder
				for {
					out := h.expand()
					if out == nil {
						if h.cur == nil {
							return b.String()
						}
						continue
					}
					if out.Len() > types.ChunkCap {
						t.Fatalf("chunk of %d rows", out.Len())
					}
					for i := 0; i < out.Len(); i++ {
						b.WriteString(out.Op(i).String())
						fmt.Fprintf(&b, " %d %d %q %d %d", out.Cols[0].I[i], out.Cols[1].I[i], out.Cols[2].S[i], out.Cols[3].I[i], out.Cols[4].I[i])
						b.WriteString("\n")
					}
				}
			}
			slow, fast := expandAll(false), expandAll(true)
			if slow == "" {
				t.Fatal("no rows: the test compares nothing")
			}
			if fast != slow {
				t.Fatalf("%+v: column-wise expansion differs from row-at-a-time:\n%s\nwant\n%s", p, fast, slow)
			}
		}
	}
}

// TestHopWindowEmit checks a pruned HopWindow (planner.StreamHopWindow.
// Emit) against the whole one: over random chunks with and without
// update pairs (both expansions) and watermarks on every input column,
// its output is the whole output's columns that Emit lists, in Emit's
// order, and the watermarks of the columns it keeps, renumbered.
func TestHopWindowEmit(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	rng := rand.New(rand.NewPCG(5, 9))
	ts := []types.T{types.TInt8, types.TTimestamp, types.TText}
	var msgs []types.Message
	msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}})
	live := map[int64]types.Row{}
	for c := 0; c < 100; c++ {
		chunk := types.NewChunk(ts, 8)
		pairs := rng.IntN(2) == 0
		for r := rng.IntN(6); r >= 0; r-- {
			id := rng.Int64N(12)
			old, ok := live[id]
			row := types.Row{types.DInt(id), types.DInt(rng.Int64N(400) - 200), types.DString(fmt.Sprint(rng.IntN(100)))}
			if rng.IntN(8) == 0 {
				row[1] = types.NullDatum
			}
			switch {
			case !ok:
				chunk.AppendRow(types.OpInsert, row)
				live[id] = row
			case !pairs || rng.IntN(4) == 0:
				chunk.AppendRow(types.OpDelete, old)
				delete(live, id)
			default:
				chunk.AppendRow(types.OpUpdateDelete, old)
				chunk.AppendRow(types.OpUpdateInsert, row)
				live[id] = row
			}
		}
		msgs = append(msgs, chunk)
		if rng.IntN(5) == 0 {
			col := rng.IntN(len(ts))
			v := types.DInt(int64(c))
			if col == 2 {
				v = types.DString(fmt.Sprint(c))
			}
			msgs = append(msgs, types.Watermark{Col: col, T: ts[col], Val: v})
		}
	}
	msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}})
	run := func(emit []int) []types.Message {
		n := hopNode(ts, 1, 10, 30, 0)
		if emit != nil {
			all := n.Out
			n.Out = nil
			for _, e := range emit {
				n.Out = append(n.Out, all[e])
			}
			n.Emit = emit
		}
		h, err := NewHopWindow(newTestActx(db), &rtScript{msgs: msgs}, n)
		if err != nil {
			t.Fatal(err)
		}
		var out []types.Message
		for barriers := 0; barriers < 2; {
			m, err := h.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m.(types.Barrier); ok {
				barriers++
			}
			out = append(out, m)
		}
		return out
	}
	whole := run(nil)
	chunks := 0
	for _, emit := range [][]int{{0, 3}, {2, 0, 3}, {3, 4, 1}, {0, 2, 3}} {
		var want []string
		for _, m := range whole {
			switch m := m.(type) {
			case *types.Chunk:
				cols := make([]*types.Vec, len(emit))
				for i, e := range emit {
					cols[i] = m.Cols[e]
				}
				p := types.NewChunkFromVecs(cols, m.Len())
				p.Ops, p.Vis = m.Ops, m.Vis
				want = append(want, describeChunk(p))
				chunks++
			case types.Watermark:
				if at := slices.Index(emit, m.Col); at >= 0 {
					m.Col = at
					want = append(want, fmt.Sprint(m))
				}
			default:
				want = append(want, fmt.Sprint(m))
			}
		}
		var got []string
		for _, m := range run(emit) {
			if c, ok := m.(*types.Chunk); ok {
				got = append(got, describeChunk(c))
			} else {
				got = append(got, fmt.Sprint(m))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("emit %v:\n%s\nwant\n%s", emit, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if chunks == 0 {
		t.Fatal("no chunks: the test compares nothing")
	}
}

// describeChunk prints c's visible rows with their ops.
func describeChunk(c *types.Chunk) string {
	var b strings.Builder
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		fmt.Fprintf(&b, "%s %v;", c.Op(i), c.Row(i))
	}
	return b.String()
}

// BenchmarkHopWindowQ5 expands chunks of Nexmark q5's bids (auction,
// date_time, _row_id) into five windows each, with every column ("whole")
// and with the columns q5 reads ("pruned": auction, window_start,
// _row_id). Per input row.
func BenchmarkHopWindowQ5(b *testing.B) {
	ts := []types.T{types.TInt8, types.TTimestamp, types.TInt8}
	c := types.NewChunk(ts, 200)
	for r := range 200 {
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(r % 17)), types.DInt(int64(r) * 10_000), types.DInt(int64(r))})
	}
	for _, emit := range [][]int{nil, {0, 3, 2}} {
		name := "whole"
		if emit != nil {
			name = "pruned"
		}
		b.Run(name, func(b *testing.B) {
			n := hopNode(ts, 1, 2*usSecond, 10*usSecond, 0)
			if emit != nil {
				all := n.Out
				n.Out = nil
				for _, e := range emit {
					n.Out = append(n.Out, all[e])
				}
				n.Emit = emit
			}
			h, err := NewHopWindow(&ActorContext{}, &rtScript{}, n)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				h.cur, h.row, h.unit, h.fast = c, 0, nil, true
				for h.cur != nil {
					h.expand()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.Len()), "ns/row")
		})
	}
}

// TestHopWindowReusesOutput checks that a HopWindow whose consumer keeps
// nothing of its chunks (reuseOutput, as a hash aggregation's input)
// builds each chunk of integer columns in the vectors of the one before,
// and emits what it emits otherwise, each chunk read before the next is
// asked for: chunks of inserts and deletes (expandFast's) and of update
// pairs, every column or q5's, and a text column, which it does not
// reuse.
func TestHopWindowReusesOutput(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	for _, c := range []struct {
		name  string
		ts    []types.T
		emit  []int
		reuse bool
	}{
		{"ints", []types.T{types.TInt8, types.TTimestamp, types.TInt8}, nil, true},
		{"q5", []types.T{types.TInt8, types.TTimestamp, types.TInt8}, []int{0, 3, 2}, true},
		{"text", []types.T{types.TText, types.TTimestamp, types.TInt8}, []int{0, 3, 2}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 3))
			msgs := []types.Message{types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}}}
			val := func(id int64) types.Datum {
				if c.ts[0] == types.TText {
					return types.DString(fmt.Sprint(id))
				}
				return types.DInt(id)
			}
			for range 40 {
				chunk := types.NewChunk(c.ts, 8)
				// A chunk of update pairs goes through expand, others
				// through expandFast.
				pairs := rng.IntN(4) == 0
				for r := rng.IntN(250); r >= 0; r-- {
					row := types.Row{val(rng.Int64N(50)), types.DInt(rng.Int64N(1000)), types.DInt(rng.Int64N(1e6))}
					if rng.IntN(10) == 0 {
						row[1] = types.NullDatum
					}
					switch rng.IntN(12) {
					case 0:
						chunk.AppendRow(types.OpDelete, row)
					case 1:
						if !pairs {
							chunk.AppendRow(types.OpInsert, row)
							break
						}
						chunk.AppendRow(types.OpUpdateDelete, row)
						chunk.AppendRow(types.OpUpdateInsert, types.Row{row[0], types.DInt(rng.Int64N(1000)), row[2]})
					default:
						chunk.AppendRow(types.OpInsert, row)
					}
				}
				msgs = append(msgs, chunk)
			}
			msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}})
			run := func(reuse bool) (got []string, shared int) {
				n := hopNode(c.ts, 1, 100, 500, 0)
				if c.emit != nil {
					all := n.Out
					n.Out = nil
					for _, e := range c.emit {
						n.Out = append(n.Out, all[e])
					}
					n.Emit = c.emit
				}
				h, err := NewHopWindow(newTestActx(db), &rtScript{msgs: msgs}, n)
				if err != nil {
					t.Fatal(err)
				}
				var op Operator = counted{Operator: h, s: &OperatorStats{}}
				if reuse {
					reuseOutput(op)
				}
				var last *types.Vec
				for barriers := 0; barriers < 2; {
					m, err := op.Next(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					switch m := m.(type) {
					case types.Barrier:
						barriers++
					case *types.Chunk:
						got = append(got, describeChunk(m))
						if m.Cols[0] == last {
							shared++
						}
						last = m.Cols[0]
					}
				}
				return got, shared
			}
			want, _ := run(false)
			got, shared := run(true)
			if !slices.Equal(got, want) {
				t.Fatalf("reusing: %d chunks, want %d:\n%.2000s\nwant\n%.2000s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if (shared > 0) != c.reuse {
				t.Errorf("%d chunks reused the vectors of the one before", shared)
			}
		})
	}
}
