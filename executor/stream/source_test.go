package stream

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

const sourceStateID = 40

// The source relation of the tests: (v text, part int4, off int8); the
// scan reads (part, off, v).
var sourceRel = &catalog.Relation{ID: 11, Name: "src", Cols: []catalog.Column{
	{Name: "v", T: types.TText}, {Name: "part", T: types.TInt4}, {Name: "off", T: types.TInt8},
}}

var sourceRelTypes = []types.T{types.TText, types.TInt4, types.TInt8}

func sourceNode() *planner.StreamSource {
	return &planner.StreamSource{
		StreamBase: planner.StreamBase{Out: types.Schema{{Name: "part", T: types.TInt4}, {Name: "off", T: types.TInt8}, {Name: "v", T: types.TText}},
			StreamKey: []int{0, 1}, AppendOnly: true, Dist: planner.Distribution{Kind: planner.DistSingle}},
		Rel: sourceRel, Cols: []int{1, 2, 0},
		State: planner.StateTableDesc{ID: sourceStateID, Name: "source",
			Cols: types.Schema{{Name: "partition", T: types.TInt4}, {Name: "offset", T: types.TInt8}}, KeyCols: []int{0}},
	}
}

// scriptedReader returns its batches in order, then waits for ctx. polls
// receives a token after every Poll that returned a batch.
type scriptedReader struct {
	batches []SourceBatch
	polls   chan struct{}
	closed  bool
}

func (r *scriptedReader) Poll(ctx context.Context, max int) (SourceBatch, error) {
	if len(r.batches) == 0 {
		<-ctx.Done()
		return SourceBatch{}, ctx.Err()
	}
	b := r.batches[0]
	r.batches = r.batches[1:]
	r.polls <- struct{}{}
	return b, nil
}

func (r *scriptedReader) Close() { r.closed = true }

// batch builds a SourceBatch from pretty rows (v part off) and positions
// "p:o p:o".
func batch(t *testing.T, rows, pos string) SourceBatch {
	t.Helper()
	var b SourceBatch
	if rows != "" {
		c, err := types.ParseChunk(rows, sourceRelTypes)
		if err != nil {
			t.Fatal(err)
		}
		b.Chunk = c
	}
	b.Positions = map[int32]int64{}
	for _, f := range strings.Fields(pos) {
		var p int32
		var o int64
		if _, err := fmt.Sscanf(f, "%d:%d", &p, &o); err != nil {
			t.Fatal(err)
		}
		b.Positions[p] = o
	}
	return b
}

// sourcePositions reads the committed positions of the source.
func sourcePositions(t *testing.T, db *storage.DB) string {
	t.Helper()
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(sourceStateID, SourceStateTypes)
	defer it.Close()
	var out []string
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return strings.Join(out, " ")
		}
		out = append(out, fmt.Sprintf("%d:%d", r[0].I, r[1].I))
	}
}

func fmtPositions(m map[int32]int64) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%d:%d", p, m[p]))
	}
	return strings.Join(out, " ")
}

// TestSourcePositions checks that a barrier checkpoints the positions
// after the last emitted batch, that skipped records (a batch without
// rows) move them, and that a rebuilt source is opened at the committed
// positions.
func TestSourcePositions(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	reader := &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{
		batch(t, "+ a 0 0", "0:1 1:0"),
		batch(t, "", "0:2 1:0"),
		batch(t, "+ b 0 2\n+ c 1 0", "0:3 1:1"),
	}}
	var opened []string
	open := func(ctx context.Context, actx *ActorContext, n *planner.StreamSource, pos map[int32]int64) (SourceReader, error) {
		opened = append(opened, fmtPositions(pos))
		return reader, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, sourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}}
	got := render(mustNext(t, src))
	got += render(mustNext(t, src)) + render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	got += render(mustNext(t, src))
	checkOutput(t, got, `
barrier 1
 i I T
+ 0 0 a
 i I T
+ 0 2 b
+ 1 0 c
barrier 2
`)
	if fmt.Sprint(opened) != "[]" {
		t.Errorf("opened at %q, want no positions on the first start", opened)
	}
	commitWS(t, actx, 2)
	if got := sourcePositions(t, db); got != "0:3 1:1" {
		t.Errorf("committed positions %q", got)
	}
	src.Close()
	if !reader.closed {
		t.Error("reader not closed")
	}

	// A rebuilt source resumes at the committed positions.
	reader = &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{batch(t, "+ d 1 1", "0:3 1:2")}}
	src, err = NewSource(actx, barriers, sourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 2, Curr: 3}, Kind: types.BarrierInitial}
	got = render(mustNext(t, src)) + render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 3, Curr: 4}}
	got += render(mustNext(t, src))
	checkOutput(t, got, "barrier 3\n i I T\n+ 1 1 d\nbarrier 4")
	if len(opened) != 2 || opened[1] != "0:3 1:1" {
		t.Errorf("opened at %q", opened)
	}
	commitWS(t, actx, 4)
	if got := sourcePositions(t, db); got != "0:3 1:2" {
		t.Errorf("committed positions %q", got)
	}
}

// TestSourceBarrierFirst checks that a waiting barrier is taken before
// batches waiting too, and that it checkpoints only the positions of what
// was emitted before it.
func TestSourceBarrierFirst(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	reader := &scriptedReader{polls: make(chan struct{}, 16)}
	for i := range 6 {
		reader.batches = append(reader.batches, batch(t, fmt.Sprintf("+ r%d 0 %d", i, i), fmt.Sprintf("0:%d", i+1)))
	}
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return reader, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, sourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}}
	got := render(mustNext(t, src)) + render(mustNext(t, src))
	// The poll goroutine has filled the hand-over channel and holds one
	// more batch: sourcePollChunks+2 polls.
	for range sourcePollChunks + 2 {
		<-reader.polls
	}
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	got += render(mustNext(t, src))
	checkOutput(t, got, "barrier 1\n i I T\n+ 0 0 r0\nbarrier 2")
	commitWS(t, actx, 2)
	if got := sourcePositions(t, db); got != "0:1" {
		t.Errorf("committed positions %q, want those after the emitted row only", got)
	}
}

// TestSourcePauseAndStop checks that a paused source emits nothing until
// resumed, and that the barrier stopping the job closes the reader.
func TestSourcePauseAndStop(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	reader := &scriptedReader{polls: make(chan struct{}, 16), batches: []SourceBatch{batch(t, "+ a 0 0", "0:1")}}
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return reader, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(actx, barriers, sourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Mutation: types.Mutation{Kind: types.MutationPause}}
	got := render(mustNext(t, src))
	<-reader.polls
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 1, Curr: 2}}
	got += render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 2, Curr: 3}, Mutation: types.Mutation{Kind: types.MutationResume}}
	got += render(mustNext(t, src)) + render(mustNext(t, src))
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 3, Curr: 4}, Mutation: types.Mutation{Kind: types.MutationStopJob, Job: types.Job{ID: testJob}}}
	got += render(mustNext(t, src))
	checkOutput(t, got, "barrier 1\nbarrier 2\nbarrier 3\n i I T\n+ 0 0 a\nbarrier 4")
	if !reader.closed {
		t.Error("reader not closed after the job stopped")
	}
}

// TestSourcePollError checks that a Poll error fails the source.
func TestSourcePollError(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	open := func(context.Context, *ActorContext, *planner.StreamSource, map[int32]int64) (SourceReader, error) {
		return failingReader{}, nil
	}
	barriers := make(chan types.Message, 4)
	src, err := NewSource(newTestActx(db), barriers, sourceNode(), open)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	barriers <- types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}}
	mustNext(t, src)
	if _, err := src.Next(context.Background()); err == nil || !strings.Contains(err.Error(), "broker gone") {
		t.Errorf("Next after a failed Poll: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Poll(context.Context, int) (SourceBatch, error) {
	return SourceBatch{}, fmt.Errorf("broker gone")
}
func (failingReader) Close() {}

// fakeTopic is a partitioned log of records (v text, part int4, off
// int8); its readers resume at the positions given and return up to 3
// records of one partition per Poll, round robin, then wait for more.
type fakeTopic struct {
	mu      sync.Mutex
	parts   [][]string
	changed chan struct{}
	// opens records the positions each reader was opened at.
	opens []map[int32]int64
}

func newFakeTopic(parts int) *fakeTopic {
	return &fakeTopic{parts: make([][]string, parts), changed: make(chan struct{})}
}

func (tp *fakeTopic) produce(p int, vs ...string) {
	tp.mu.Lock()
	tp.parts[p] = append(tp.parts[p], vs...)
	close(tp.changed)
	tp.changed = make(chan struct{})
	tp.mu.Unlock()
}

func (tp *fakeTopic) open(ctx context.Context, actx *ActorContext, n *planner.StreamSource, pos map[int32]int64) (SourceReader, error) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.opens = append(tp.opens, maps.Clone(pos))
	next := make([]int64, len(tp.parts))
	for p, o := range pos {
		next[p] = o
	}
	return &topicReader{tp: tp, next: next}, nil
}

type topicReader struct {
	tp   *fakeTopic
	next []int64
	turn int
}

func (r *topicReader) Poll(ctx context.Context, max int) (SourceBatch, error) {
	for {
		r.tp.mu.Lock()
		changed := r.tp.changed
		for range r.next {
			p := r.turn
			r.turn = (r.turn + 1) % len(r.next)
			recs := r.tp.parts[p]
			if r.next[p] >= int64(len(recs)) {
				continue
			}
			c := types.NewChunk(sourceRelTypes, 3)
			for c.Len() < 3 && r.next[p] < int64(len(recs)) {
				c.AppendRow(types.OpInsert, types.Row{types.DString(recs[r.next[p]]), types.DInt(int64(p)), types.DInt(r.next[p])})
				r.next[p]++
			}
			pos := map[int32]int64{}
			for q, o := range r.next {
				pos[int32(q)] = o
			}
			r.tp.mu.Unlock()
			return SourceBatch{Chunk: c, Positions: pos}, nil
		}
		r.tp.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return SourceBatch{}, ctx.Err()
		}
	}
}

func (r *topicReader) Close() {}

const sourceViewID = 41

// sourceViewPlan materializes the source keyed by (part, off), so that a
// record emitted twice into committed state fails the job (the tests'
// strict changelog).
func sourceViewPlan() planner.StreamNode {
	src := sourceNode()
	return &planner.StreamMaterialize{StreamBase: src.StreamBase, Input: src, Cols: []int{0, 1, 2},
		State: planner.StateTableDesc{ID: sourceViewID, Name: "mv", Cols: src.Out, KeyCols: []int{0, 1}}}
}

// sourceJob runs a job of sourceViewPlan and commits its checkpoints.
type sourceJob struct {
	t     *testing.T
	db    *storage.DB
	sink  *fakeSink
	job   *Job
	stop  context.CancelFunc
	ended chan error
	// wait returns Run's error, waiting for it the first time.
	wait  func() error
	epoch uint64
}

func startSourceJob(t *testing.T, db *storage.DB, tp *fakeTopic, kind types.BarrierKind, mut types.MutationKind) *sourceJob {
	t.Helper()
	e, err := db.CommittedEpoch()
	if err != nil {
		t.Fatal(err)
	}
	j := &sourceJob{t: t, db: db, sink: newFakeSink(), epoch: e}
	j.job, err = Build(sourceViewPlan(), Env{Job: testJob, DB: db, Sink: j.sink, Parallelism: 2, OpenSource: tp.open})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.stop = cancel
	j.ended = make(chan error, 1)
	go func() { j.ended <- j.job.Run(ctx) }()
	j.wait = sync.OnceValue(func() error { return <-j.ended })
	// A failed test stops the job before its storage closes (the test
	// closes it in a cleanup registered earlier).
	t.Cleanup(func() { cancel(); j.wait() })
	j.barrier(kind, mut, true)
	return j
}

// barrier injects the next barrier, waits for its acknowledgements and,
// when commit is set, commits the epoch.
func (j *sourceJob) barrier(kind types.BarrierKind, mut types.MutationKind, commit bool) {
	j.t.Helper()
	b := types.Barrier{Epoch: types.Epoch{Prev: j.epoch, Curr: j.epoch + 1}, Kind: kind,
		Mutation: types.Mutation{Kind: mut, Job: types.Job{ID: testJob}}}
	if err := j.job.Inject(context.Background(), b); err != nil {
		j.t.Fatal(err)
	}
	acks := j.sink.wait(j.t, b.Epoch.Curr, len(j.job.ActorIDs()))
	if !commit {
		for _, ws := range acks {
			ws.Close()
		}
		return
	}
	batch := j.db.NewBatch()
	for _, ws := range acks {
		if err := batch.Apply(ws); err != nil {
			j.t.Fatal(err)
		}
		ws.Close()
	}
	if err := batch.SetCommittedEpoch(b.Epoch.Curr); err != nil {
		j.t.Fatal(err)
	}
	if err := batch.Commit(); err != nil {
		j.t.Fatal(err)
	}
	j.epoch = b.Epoch.Curr
}

func (j *sourceJob) crash() {
	j.stop()
	if err := j.wait(); err != nil {
		j.t.Fatal(err)
	}
}

// check verifies exactly-once in the committed state: for every partition
// the view holds exactly the records before the committed position. It
// returns the number of rows in the view.
func (j *sourceJob) check(tp *fakeTopic) int {
	j.t.Helper()
	snap := j.db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(sourceViewID, []types.T{types.TInt4, types.TInt8, types.TText})
	defer it.Close()
	got := map[int32][]int64{}
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			j.t.Fatal(err)
		}
		if r == nil {
			break
		}
		got[int32(r[0].I)] = append(got[int32(r[0].I)], r[1].I)
		if want := fmt.Sprintf("p%do%d", r[0].I, r[1].I); r[2].S != want {
			j.t.Fatalf("row %v, want value %s", r, want)
		}
		n++
	}
	pos := map[int32]int64{}
	for _, f := range strings.Fields(sourcePositions(j.t, j.db)) {
		var p int32
		var o int64
		fmt.Sscanf(f, "%d:%d", &p, &o)
		pos[p] = o
	}
	for p := range tp.parts {
		offs := got[int32(p)]
		if int64(len(offs)) != pos[int32(p)] {
			j.t.Fatalf("epoch %d partition %d: view holds offsets %v, committed position %d", j.epoch, p, offs, pos[int32(p)])
		}
		for i, o := range offs {
			if o != int64(i) {
				j.t.Fatalf("epoch %d partition %d: view holds offsets %v", j.epoch, p, offs)
			}
		}
	}
	return n
}

// TestSourceExactlyOnce runs a source into a view, crashes the job with
// an epoch emitted but not committed, rebuilds it from the committed
// state and checks after every checkpoint that each record is in the
// view exactly when its offset is below the committed position.
func TestSourceExactlyOnce(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	t.Cleanup(func() { db.Close() })
	tp := newFakeTopic(3)
	produce := func(from, to int) {
		for i := from; i < to; i++ {
			p := i % 3
			tp.produce(p, fmt.Sprintf("p%do%d", p, len(tp.parts[p])))
		}
	}
	j := startSourceJob(t, db, tp, types.BarrierCheckpoint, types.MutationAddJob)
	produce(0, 40)
	for range 5 {
		j.barrier(types.BarrierCheckpoint, types.MutationNone, true)
		j.check(tp)
	}
	produce(40, 80)
	// This epoch's rows are emitted and acknowledged, never committed.
	j.barrier(types.BarrierCheckpoint, types.MutationNone, false)
	j.crash()
	committed := sourcePositions(t, db)

	j = startSourceJob(t, db, tp, types.BarrierInitial, types.MutationNone)
	tp.mu.Lock()
	reopened := tp.opens[len(tp.opens)-1]
	tp.mu.Unlock()
	if got := fmtPositions(reopened); got != committed {
		t.Errorf("reopened at %q, committed %q", got, committed)
	}
	j.check(tp)
	produce(80, 100)
	total := 0
	for i := 0; total < 100; i++ {
		if i == 10000 {
			t.Fatalf("the view holds %d of 100 records", total)
		}
		j.barrier(types.BarrierCheckpoint, types.MutationNone, true)
		total = j.check(tp)
	}
	if total != 100 {
		t.Errorf("%d rows in the view", total)
	}
	j.barrier(types.BarrierCheckpoint, types.MutationStopJob, true)
	if err := j.wait(); err != nil {
		t.Fatal(err)
	}
}
