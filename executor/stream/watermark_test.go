package stream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
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

// TestProjectDerivesNoInfiniteWatermark checks that no watermark is
// derived from an infinite one: ts - 1 minute of infinity is infinity,
// which would put every later row behind it, and date_bin fails on it.
func TestProjectDerivesNoInfiniteWatermark(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	// The pretty form has no infinite timestamps.
	script := parseScript(t, wmInTs, "barrier 1 add\nbarrier 2")
	in := &rtScript{msgs: []types.Message{script[0],
		types.Watermark{Col: 0, T: types.TTimestamp, Val: types.DInt(types.NegInfinity)},
		types.Watermark{Col: 0, T: types.TTimestamp, Val: types.DInt(types.PosInfinity)},
		script[1]}}
	minute := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: 60e6}), T: types.TInterval}
	origin := &planner.Const{V: types.DInt(0), T: types.TTimestamp}
	ts := rtCol(0, types.TTimestamp)
	base := &planner.StreamValues{StreamBase: planner.StreamBase{Out: types.Schema{col("ts", types.TTimestamp), col("v", types.TInt8)}, Watermarks: []int{0}}}
	n := &planner.StreamProject{Input: base, Exprs: []planner.Expr{
		call("date_bin", types.TTimestamp, minute, ts, origin),
		call("-", types.TTimestamp, ts, minute),
		ts,
	}}
	n.Watermarks = []int{0, 1, 2}
	p, err := NewProject(actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	// The plain column forwards what arrives (the pretty form prints
	// -infinity and infinity as the extreme int64 times); nothing is
	// derived.
	checkOutput(t, drain(t, p, 2), `
barrier 1
wm 2 -290308-12-21T19:59:05.224192
wm 2 294247-01-10T04:00:54.775807
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

// wmSourceRel is a source (k text, t int8) with WATERMARK FOR t AS t - 10
// and an idle timeout of 100 ms; the scan reads (t, k).
var wmSourceRel = &catalog.Relation{ID: 12, Name: "taps", Cols: []catalog.Column{{Name: "k", T: types.TText}, {Name: "t", T: types.TInt8}}}

func wmSourceNode() *planner.StreamSource {
	n := sourceNode()
	n.Rel = wmSourceRel
	n.Cols = []int{1, 0}
	n.Out = types.Schema{{Name: "t", T: types.TInt8}, {Name: "k", T: types.TText}}
	n.StreamKey = nil
	n.Watermarks = []int{0}
	n.Watermark = &planner.SourceWatermark{Col: 1, T: types.TInt8, IdleTimeoutMs: 100,
		Expr: call("-", types.TInt8, rtCol(1, types.TInt8), cint(10))}
	return n
}

// wmBatch builds a batch of rows "k t p" (p: the row's partition) and
// positions "p:o ...".
func wmBatch(t *testing.T, rows, pos string) SourceBatch {
	t.Helper()
	var b SourceBatch
	if rows != "" {
		c := types.NewChunk([]types.T{types.TText, types.TInt8}, 4)
		for _, l := range strings.Split(rows, "\n") {
			var k string
			var ev int64
			var p int32
			if _, err := fmt.Sscan(l, &k, &ev, &p); err != nil {
				t.Fatal(err)
			}
			c.AppendRow(types.OpInsert, types.Row{types.DString(k), types.DInt(ev)})
			b.Partitions = append(b.Partitions, p)
		}
		b.Chunk = c
	}
	b.Positions = batch(t, "", pos).Positions
	return b
}

// wmRecorder records what sources report.
type wmRecorder struct {
	mu        sync.Mutex
	late      []string
	wms       []string
	malformed []string
	restored  []string
}

func (r *wmRecorder) MalformedRecords(job types.JobID, rel uint32, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.malformed = append(r.malformed, fmt.Sprint(n))
}

func (r *wmRecorder) RestoreSourceCounts(job types.JobID, rel uint32, late, malformed int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restored = append(r.restored, fmt.Sprintf("late %d malformed %d", late, malformed))
}

func (r *wmRecorder) LateRows(job types.JobID, rel uint32, n int64, w types.Watermark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.late = append(r.late, fmt.Sprintf("%d late behind %s", n, w))
}

func (r *wmRecorder) Watermark(job types.JobID, rel uint32, w types.Watermark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wms = append(r.wms, w.String())
}

// TestSourceWatermark checks a source's watermark: the minimum over its
// partitions' watermarks, emitted before the barrier when it rose; an
// idle partition stops holding it back; late rows are dropped and
// reported; the watermark is checkpointed and announced again after a
// restart, and rows behind it stay late.
func TestSourceWatermark(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	rec := &wmRecorder{}
	actx.Watermarks = rec
	reader := &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{
		wmBatch(t, "a 50 0\nb 30 1", "0:1 1:1"),
		wmBatch(t, "c 15 0\nd 60 0\ne 0 0", "0:4 1:1"),
	}}
	reader.batches[1].Chunk.Cols[1].Nulls[2] = true
	reader.batches[1].Malformed = 2
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return reader, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, wmSourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	src.now = func() time.Time { return clock }
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}}
	got := render(mustNext(t, src)) + render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	got += render(mustNext(t, src)) + render(mustNext(t, src))
	// 200 ms later partition 1, without rows since, is idle.
	clock = clock.Add(200 * time.Millisecond)
	got += render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 2, Curr: 3}}
	got += render(mustNext(t, src)) + render(mustNext(t, src))
	checkOutput(t, got, `
barrier 1
 I T
+ 50 a
+ 30 b
wm 0 20
barrier 2
 I T
+ 60 d
+ . e
wm 0 50
barrier 3
`)
	commitWS(t, actx, 3)
	// The partitions' watermarks (rows -2-p) and the source's (row -1)
	// are checkpointed with the positions, and so are the counts of late
	// rows and malformed records (the two lowest keys).
	if got := sourcePositions(t, db); got != "-2147483648:1 -2147483647:2 -3:20 -2:50 -1:50 0:4 1:1" {
		t.Errorf("committed state %q", got)
	}
	src.Close()
	if fmt.Sprint(rec.late) != "[1 late behind wm 0 20]" || fmt.Sprint(rec.wms) != "[wm 0 20 wm 0 50]" {
		t.Errorf("reported late %q, watermarks %q", rec.late, rec.wms)
	}
	if fmt.Sprint(rec.malformed) != "[2]" || fmt.Sprint(rec.restored) != "[late 0 malformed 0]" {
		t.Errorf("reported malformed %q, restored counts %q", rec.malformed, rec.restored)
	}

	// After a restart the watermark is read back: a row behind it is
	// late at once, and it is announced at the next barrier although a
	// partition without rows holds it back.
	reader = &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{wmBatch(t, "f 40 0\ng 70 0", "0:6 1:1")}}
	src, err = NewSource(actx, barriers, wmSourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.now = func() time.Time { return clock }
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 3, Curr: 4}, Kind: types.BarrierInitial}
	got = render(mustNext(t, src)) + render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 4, Curr: 5}}
	got += render(mustNext(t, src)) + render(mustNext(t, src))
	checkOutput(t, got, `
barrier 4
 I T
+ 70 g
wm 0 50
barrier 5
`)
	// The counts start from the committed ones and go on from there.
	if fmt.Sprint(rec.restored) != "[late 0 malformed 0 late 1 malformed 2]" {
		t.Errorf("restored counts %q", rec.restored)
	}
	commitWS(t, actx, 5)
	if got := sourcePositions(t, db); !strings.HasPrefix(got, "-2147483648:2 -2147483647:2 ") {
		t.Errorf("committed state after the restart %q", got)
	}
}

// runSourceSplit reads records "t@p ..." (t of partition p; "t" alone
// is of partition 0) through the source of wmSourceNode without an idle
// timeout, split into batches and epochs: "|" ends a batch, "/" ends a
// batch and its epoch with a barrier. It returns the t of every row
// emitted, in order, and fails the test when a row follows a watermark
// above it.
func runSourceSplit(t *testing.T, split string) string {
	t.Helper()
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	reader := &scriptedReader{polls: make(chan struct{}, 64)}
	var ends []bool
	// Every batch names the positions of all partitions of the split,
	// as a reader of a topic does.
	next := map[int32]int64{0: 0}
	for _, f := range strings.Fields(split) {
		if _, p, ok := strings.Cut(f, "@"); ok {
			var n int32
			fmt.Sscan(p, &n)
			next[n] = 0
		}
	}
	var rows []string
	flush := func(epochEnd bool) {
		// A NULL row (never late, moving nothing) ends every batch, so
		// that each batch gives one chunk to wait for.
		rows = append(rows, fmt.Sprintf("end%d . 0", len(ends)))
		c := types.NewChunk([]types.T{types.TText, types.TInt8}, len(rows))
		b := SourceBatch{Positions: map[int32]int64{}}
		for _, r := range rows {
			var k, tv string
			var p int32
			if _, err := fmt.Sscan(r, &k, &tv, &p); err != nil {
				t.Fatal(err)
			}
			v := types.NullDatum
			if tv != "." {
				var n int64
				fmt.Sscan(tv, &n)
				v = types.DInt(n)
			}
			c.AppendRow(types.OpInsert, types.Row{types.DString(k), v})
			b.Partitions = append(b.Partitions, p)
			next[p]++
		}
		for p, o := range next {
			b.Positions[p] = o
		}
		b.Chunk = c
		reader.batches = append(reader.batches, b)
		ends = append(ends, epochEnd)
		rows = nil
	}
	for _, f := range strings.Fields(split) {
		switch f {
		case "|", "/":
			flush(f == "/")
		default:
			tv, p, _ := strings.Cut(f, "@")
			if p == "" {
				p = "0"
			}
			rows = append(rows, fmt.Sprintf("r %s %s", tv, p))
		}
	}
	if len(rows) > 0 {
		flush(true)
	}
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return reader, nil
	}
	n := wmSourceNode()
	n.Watermark.IdleTimeoutMs = 0
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, n, open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// The poll goroutine takes batches off the reader once the first
	// barrier starts it: count them before.
	nBatches := len(reader.batches)
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}}
	mustNext(t, src)
	var kept []string
	var wm types.Datum
	hasWM := false
	epoch := uint64(1)
	for k := range nBatches {
		c, ok := mustNext(t, src).(*types.Chunk)
		if !ok {
			t.Fatalf("%s: batch %d gave no chunk", split, k)
		}
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) || c.Cols[0].Nulls[i] {
				continue
			}
			v := c.Cols[0].Get(i)
			if hasWM && v.I < wm.I {
				t.Errorf("%s: row %d emitted after watermark %d", split, v.I, wm.I)
			}
			kept = append(kept, fmt.Sprint(v.I))
		}
		if !ends[k] {
			continue
		}
		barriers <- types.Barrier{Epoch: types.Epoch{Prev: epoch, Curr: epoch + 1}}
		epoch++
		for {
			m := mustNext(t, src)
			if w, ok := m.(types.Watermark); ok {
				wm, hasWM = w.Val, true
				continue
			}
			if _, ok := m.(types.Barrier); !ok {
				t.Fatalf("%s: %s before the barrier", split, render(m))
			}
			break
		}
	}
	return strings.Join(kept, " ")
}

// TestSourceLatenessPerRecord checks that each record is judged against
// the watermark as it stands just before it, so the same records give
// the same rows however they are split into batches and epochs (every
// job reading a source reads them with epochs of its own).
func TestSourceLatenessPerRecord(t *testing.T) {
	for _, c := range []struct {
		want   string
		splits []string
	}{
		// One partition: the watermark is the highest t - 10 so far.
		{"50 45 60 50 100 91", []string{
			"50 35 45 39 60 49 50 100 89 91 /",
			"50 / 35 / 45 / 39 / 60 / 49 / 50 / 100 / 89 / 91 /",
			"50 35 | 45 / 39 60 49 | 50 100 / 89 | 91 /",
			"50 | 35 | 45 | 39 | 60 | 49 | 50 | 100 | 89 | 91 |",
			"50 / 35 45 39 60 49 50 100 89 91 /",
		}},
		// Two partitions read in this order: the watermark is the lower
		// of theirs (none until both have one).
		{"50 20 15 60 45 70 55", []string{
			"50@0 20@1 15@0 5@1 60@1 45@0 30@1 70@0 45@1 55@1 /",
			"50@0 / 20@1 / 15@0 / 5@1 / 60@1 / 45@0 / 30@1 / 70@0 / 45@1 / 55@1 /",
			"50@0 20@1 | 15@0 5@1 / 60@1 | 45@0 30@1 70@0 / 45@1 | 55@1 /",
		}},
	} {
		for _, split := range c.splits {
			if got := runSourceSplit(t, split); got != c.want {
				t.Errorf("%s: rows %s, want %s", split, got, c.want)
			}
		}
	}
}

// TestSourceWatermarkIgnoresInfinity checks that an infinite time never
// moves a source's watermark (it would make every later row late, and
// no window could be computed from it), while the row itself is judged
// by the watermark before it: infinity is never late, -infinity is
// behind every watermark.
func TestSourceWatermarkIgnoresInfinity(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	rel := &catalog.Relation{ID: 13, Name: "clicks", Cols: []catalog.Column{{Name: "k", T: types.TText}, {Name: "ts", T: types.TTimestamp}}}
	second := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: 1e6}), T: types.TInterval}
	n := sourceNode()
	n.Rel, n.Cols, n.StreamKey = rel, []int{1, 0}, nil
	n.Out = types.Schema{{Name: "ts", T: types.TTimestamp}, {Name: "k", T: types.TText}}
	n.Watermarks = []int{0}
	n.Watermark = &planner.SourceWatermark{Col: 1, T: types.TTimestamp,
		Expr: call("-", types.TTimestamp, rtCol(1, types.TTimestamp), second)}
	batch := func(rows string, pos string) SourceBatch {
		c := types.NewChunk([]types.T{types.TText, types.TTimestamp}, 4)
		for _, l := range strings.Split(rows, "\n") {
			k, ts, _ := strings.Cut(l, " ")
			v, err := types.ParseText(ts, types.TTimestamp, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			c.AppendRow(types.OpInsert, types.Row{types.DString(k), v})
		}
		b := wmBatch(t, "", pos)
		b.Chunk = c
		return b
	}
	reader := &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{
		// c is behind a's 10:00:09; d is not behind b's infinity.
		batch("a 2024-01-01 10:00:10\nb infinity\nc 2024-01-01 10:00:05\nd 2024-01-01 10:00:20", "0:4"),
		// -infinity is behind every watermark; g is at d's 10:00:19.
		batch("e -infinity\nf infinity\ng 2024-01-01 10:00:19\nh 2024-01-01 10:00:30", "0:8"),
	}}
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return reader, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, n, open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}}
	var got []string
	keys := func(m types.Message) {
		if c, ok := m.(*types.Chunk); ok {
			for i := 0; i < c.Len(); i++ {
				if c.Visible(i) {
					got = append(got, c.Cols[1].Get(i).S)
				}
			}
			return
		}
		got = append(got, strings.TrimSpace(render(m)))
	}
	// Each batch gives one chunk (none of them is all late).
	keys(mustNext(t, src))
	keys(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	for m := mustNext(t, src); ; m = mustNext(t, src) {
		keys(m)
		if _, ok := m.(types.Barrier); ok {
			break
		}
	}
	keys(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 2, Curr: 3}}
	for m := mustNext(t, src); ; m = mustNext(t, src) {
		keys(m)
		if _, ok := m.(types.Barrier); ok {
			break
		}
	}
	want := "barrier 1|a|b|d|wm 0 2024-01-01T10:00:19|barrier 2|f|g|h|wm 0 2024-01-01T10:00:29|barrier 3"
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	commitWS(t, actx, 3)
	if got := sourcePositions(t, db); !strings.Contains(got, fmt.Sprintf("-1:%d", mustTS(t, "2024-01-01 10:00:29"))) {
		t.Errorf("committed state %q", got)
	}
}

func mustTS(t *testing.T, s string) int64 {
	t.Helper()
	v, err := types.ParseText(s, types.TTimestamp, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return v.I
}

// TestSourceWatermarkRestoresPartitions checks that a source rebuilt
// from committed state resumes with the watermarks of its partitions:
// with partitions that never go idle, a reader that forgot them would
// wait for a record of every partition before moving again (and judge
// records against a watermark too low meanwhile); this one drops
// exactly the records an uninterrupted reader drops.
func TestSourceWatermarkRestoresPartitions(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	n := wmSourceNode()
	n.Watermark.IdleTimeoutMs = 0
	var opened []string
	start := func(actx *ActorContext, batches []SourceBatch, first types.Barrier) (*Source, chan types.Message) {
		t.Helper()
		reader := &scriptedReader{polls: make(chan struct{}, 16), batches: batches}
		open := func(_ context.Context, _ *ActorContext, _ *planner.StreamSource, pos map[int32]int64) (SourceReader, error) {
			opened = append(opened, fmtPositions(pos))
			return reader, nil
		}
		barriers := make(chan types.Message, 4)
		src, err := NewSource(actx, barriers, n, open)
		if err != nil {
			t.Fatal(err)
		}
		barriers <- first
		mustNext(t, src)
		return src, barriers
	}
	// through reads a message per batch, then the barrier ending epoch
	// e and what precedes it.
	through := func(src *Source, barriers chan types.Message, batches int, e uint64) string {
		t.Helper()
		var got string
		for range batches {
			got += render(mustNext(t, src))
		}
		barriers <- types.Barrier{Epoch: types.Epoch{Prev: e - 1, Curr: e}}
		for {
			m := mustNext(t, src)
			got += render(m)
			if _, ok := m.(types.Barrier); ok {
				return got
			}
		}
	}

	// Epoch 2 is committed with the watermark at 15 (the lowest of the
	// partitions' 15, 60, 60); epoch 3 moves it to 20, and is lost.
	actx := newTestActx(db)
	src, barriers := start(actx, []SourceBatch{
		wmBatch(t, "a 0 0\nb 1 1\nc 2 2", "0:1 1:1 2:1"),
		wmBatch(t, "d 25 0\ne 70 1\nf 70 2", "0:2 1:2 2:2"),
		wmBatch(t, "g 30 0", "0:3 1:2 2:2"),
	}, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}})
	checkOutput(t, through(src, barriers, 2, 2), `
 I T
+ 0 a
+ 1 b
+ 2 c
 I T
+ 25 d
+ 70 e
+ 70 f
wm 0 15
barrier 2
`)
	commitWS(t, actx, 2)
	checkOutput(t, through(src, barriers, 1, 3), " I T\n+ 30 g\nwm 0 20\nbarrier 3")
	src.Close()
	actx.WriteSet.Close()
	if got := sourcePositions(t, db); got != "-4:60 -3:60 -2:15 -1:15 0:2 1:2 2:2" {
		t.Errorf("committed state %q", got)
	}

	// The rebuilt source reads g again: 50 of partition 0 takes the
	// watermark to 40 at once, so 35 of partition 2 is late.
	actx = newTestActx(db)
	src, barriers = start(actx, []SourceBatch{
		wmBatch(t, "g 30 0", "0:3 1:2 2:2"),
		wmBatch(t, "h 50 0\ni 45 1\nj 35 2", "0:4 1:3 2:3"),
	}, types.Barrier{Epoch: types.Epoch{Prev: 2, Curr: 3}, Kind: types.BarrierInitial})
	defer src.Close()
	checkOutput(t, through(src, barriers, 2, 4), `
 I T
+ 30 g
 I T
+ 50 h
+ 45 i
wm 0 40
barrier 4
`)
	if len(opened) != 2 || opened[1] != "0:2 1:2 2:2" {
		t.Errorf("opened at %q", opened)
	}
	// A reader that never stopped keeps the same rows: those of epochs
	// 1 and 2, then g, h and i.
	if got, want := runSourceSplit(t, "0@0 1@1 2@2 | 25@0 70@1 70@2 / 30@0 / 50@0 45@1 35@2 /"), "0 1 2 25 70 70 30 50 45"; got != want {
		t.Errorf("uninterrupted: rows %s, want %s", got, want)
	}
}
