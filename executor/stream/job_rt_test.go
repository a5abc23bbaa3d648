package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The end-to-end tests play the engine: they keep a table t(k int8
// primary key, v int8, s text), push its changes into a job
// (table scan → filter v > 0 → project k, v*2 → hash exchange on k →
// materialize), inject barriers, and commit each epoch's write sets
// together with the table's own writes into a real storage.DB, as the
// checkpoint commit does. The view must always equal the query over the
// committed table.

const (
	tableID    = 10
	viewID     = 20
	backfillID = 30
)

var tableRel = &catalog.Relation{ID: tableID, Name: "t", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
	{Name: "k", T: types.TInt8}, {Name: "v", T: types.TInt8}, {Name: "s", T: types.TText},
}}

// scanStateID is the backfill state table of the scan; 0 keeps the
// progress in metadata entries.
var scanStateID uint32 = backfillID

var tableTypes = []types.T{types.TInt8, types.TInt8, types.TText}

func viewPlan() planner.StreamNode {
	viewCols := types.Schema{{Name: "k", T: types.TInt8}, {Name: "v2", T: types.TInt8}}
	scan := &planner.StreamTableScan{
		StreamBase: planner.StreamBase{Out: types.Schema{{Name: "k", T: types.TInt8}, {Name: "v", T: types.TInt8}}, StreamKey: []int{0}},
		Rel:        tableRel, Cols: []int{0, 1},
		State: planner.StateTableDesc{ID: scanStateID, Name: "backfill"},
	}
	filter := &planner.StreamFilter{StreamBase: scan.StreamBase, Input: scan,
		Cond: call(">", types.TBool, rtCol(1, types.TInt8), cint(0))}
	project := &planner.StreamProject{StreamBase: planner.StreamBase{Out: viewCols, StreamKey: []int{0}}, Input: filter,
		Exprs: []planner.Expr{rtCol(0, types.TInt8), call("*", types.TInt8, rtCol(1, types.TInt8), cint(2))}}
	exch := &planner.StreamExchange{StreamBase: planner.StreamBase{Out: viewCols, StreamKey: []int{0},
		Dist: planner.Distribution{Kind: planner.DistHash, Keys: []int{0}}}, Input: project}
	view := &catalog.Relation{ID: viewID, Name: "mv", Kind: catalog.KindMView, PK: []int{0},
		Cols: []catalog.Column{{Name: "k", T: types.TInt8}, {Name: "v2", T: types.TInt8}}}
	return &planner.StreamMaterialize{StreamBase: exch.StreamBase, Input: exch, Rel: view, Cols: []int{0, 1},
		State: planner.StateTableDesc{ID: viewID, Name: "mv", Cols: viewCols, KeyCols: []int{0}}}
}

var progressMu sync.Mutex

type tableChange struct {
	op  types.Op
	row types.Row
}

// harness is the engine of the end-to-end tests.
type harness struct {
	t     *testing.T
	db    *storage.DB
	sink  *fakeSink
	job   *Job
	stop  context.CancelFunc
	ended chan error
	epoch uint64
	// table is the committed table; pending the open epoch's changes.
	table   map[int64]types.Row
	pending []tableChange
	// reports are the job's backfill progress reports.
	reports []BackfillProgress
}

func newHarness(t *testing.T, db *storage.DB) *harness {
	h := &harness{t: t, db: db, table: map[int64]types.Row{}}
	// Read back the committed table, as the engine does after a restart.
	it := db.NewSnapshot().Scan(tableID, tableTypes)
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
		h.table[r[0].I] = r
	}
	e, err := db.CommittedEpoch()
	if err != nil {
		t.Fatal(err)
	}
	h.epoch = e
	return h
}

// start builds the job and runs its actors.
func (h *harness) start(parallelism int) {
	h.sink = newFakeSink()
	job, err := Build(viewPlan(), Env{Job: testJob, DB: h.db, Sink: h.sink, Parallelism: parallelism, Errors: &errList{},
		Progress: func(p BackfillProgress) {
			progressMu.Lock()
			h.reports = append(h.reports, p)
			progressMu.Unlock()
		}})
	if err != nil {
		h.t.Fatal(err)
	}
	h.job = job
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	h.ended = make(chan error, 1)
	go func() { h.ended <- job.Run(ctx) }()
}

// crash stops every actor without committing the open epoch.
func (h *harness) crash() {
	h.stop()
	if err := <-h.ended; err != nil {
		h.t.Fatal(err)
	}
	h.pending = nil
}

// change applies one DML change to the open epoch and pushes it.
func (h *harness) change(op types.Op, k, v int64) {
	old, exists := h.table[k]
	for _, p := range h.pending {
		if p.row[0].I == k {
			old, exists = p.row, p.op.IsInsert()
		}
	}
	row := types.Row{types.DInt(k), types.DInt(v), types.DString(fmt.Sprint("s", v))}
	c := types.NewChunk(tableTypes, 2)
	switch {
	case op == types.OpDelete && exists:
		c.AppendRow(types.OpDelete, old)
		h.pending = append(h.pending, tableChange{types.OpDelete, old})
	case op == types.OpDelete:
		return
	case exists:
		c.AppendRow(types.OpUpdateDelete, old)
		c.AppendRow(types.OpUpdateInsert, row)
		h.pending = append(h.pending, tableChange{types.OpInsert, row})
	default:
		c.AppendRow(types.OpInsert, row)
		h.pending = append(h.pending, tableChange{types.OpInsert, row})
	}
	if h.job != nil {
		if err := h.job.PushDML(context.Background(), tableID, c); err != nil {
			h.t.Fatal(err)
		}
	}
}

// barrier ends the open epoch: injects its barrier, waits for every
// actor's acknowledgement and commits the table's changes with the write
// sets and the committed epoch in one batch.
func (h *harness) barrier(kind types.BarrierKind, mut types.MutationKind) {
	b := types.Barrier{Epoch: types.Epoch{Prev: h.epoch, Curr: h.epoch + 1}, Kind: kind,
		Mutation: types.Mutation{Kind: mut, Job: types.Job{ID: testJob}}}
	h.epoch++
	batch := h.db.NewBatch()
	if h.job != nil {
		if err := h.job.Inject(context.Background(), b); err != nil {
			h.t.Fatal(err)
		}
		for _, ws := range h.sink.wait(h.t, h.epoch, len(h.job.ActorIDs())) {
			if err := batch.Apply(ws); err != nil {
				h.t.Fatal(err)
			}
			ws.Close()
		}
	}
	for _, p := range h.pending {
		key := types.AppendKey(nil, p.row[0], types.TInt8, false)
		var err error
		if p.op.IsInsert() {
			err = batch.Put(tableID, key, p.row, tableTypes)
			h.table[p.row[0].I] = p.row
		} else {
			err = batch.Delete(tableID, key)
			delete(h.table, p.row[0].I)
		}
		if err != nil {
			h.t.Fatal(err)
		}
	}
	h.pending = nil
	if err := batch.SetCommittedEpoch(h.epoch); err != nil {
		h.t.Fatal(err)
	}
	if err := batch.Commit(); err != nil {
		h.t.Fatal(err)
	}
}

// check compares the committed view with the query over the committed
// table.
func (h *harness) check() {
	h.t.Helper()
	var want []string
	for k, r := range h.table {
		if r[1].I > 0 {
			want = append(want, fmt.Sprintf("%d %d", k, 2*r[1].I))
		}
	}
	var got []string
	snap := h.db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(viewID, []types.T{types.TInt8, types.TInt8})
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			h.t.Fatal(err)
		}
		if r == nil {
			break
		}
		got = append(got, fmt.Sprintf("%d %d", r[0].I, r[1].I))
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		h.t.Fatalf("epoch %d: view\n%v\nwant\n%v", h.epoch, got, want)
	}
}

// finishBackfill ends epochs until every scan actor reported its
// backfill done (a CREATE MATERIALIZED VIEW returns only then).
func (h *harness) finishBackfill() {
	h.t.Helper()
	for range 100 {
		if h.backfilled() {
			return
		}
		h.barrier(types.BarrierCheckpoint, types.MutationNone)
	}
	h.t.Fatal("backfill does not finish")
}

func (h *harness) backfilled() bool {
	progressMu.Lock()
	defer progressMu.Unlock()
	done := map[types.ActorID]bool{}
	for _, p := range h.reports {
		if p.Done {
			done[p.Actor] = true
		}
	}
	return len(done) == len(h.job.Fragments[len(h.job.Fragments)-1].Actors)
}

// randomEpoch makes n random changes over keys 0..keys-1.
func (h *harness) randomEpoch(rng *rand.Rand, n, keys int) {
	for range n {
		k := rng.Int64N(int64(keys))
		op := types.OpInsert
		if rng.IntN(4) == 0 {
			op = types.OpDelete
		}
		h.change(op, k, rng.Int64N(10)-3)
	}
}

func TestJobEndToEnd(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	h := newHarness(t, db)
	h.start(2)
	if n := len(h.job.ActorIDs()); n != 4 {
		t.Fatalf("%d actors, want 2 per fragment", n)
	}
	h.barrier(types.BarrierCheckpoint, types.MutationAddJob)
	h.finishBackfill()
	h.check()
	h.change(types.OpInsert, 1, 5)
	h.change(types.OpInsert, 2, -1)
	h.change(types.OpInsert, 3, 7)
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	h.check()
	// Updates that cross the filter, then churn on one key in one epoch.
	h.change(types.OpInsert, 1, -2)
	h.change(types.OpInsert, 2, 4)
	h.change(types.OpDelete, 3, 0)
	for v := range int64(20) {
		h.change(types.OpInsert, 4, v)
	}
	h.change(types.OpInsert, 5, 1)
	h.change(types.OpDelete, 5, 0)
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	h.check()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		h.randomEpoch(rng, 50, 40)
		h.barrier(types.BarrierCheckpoint, types.MutationNone)
		h.check()
	}
	// Stopping the job ends its actors after they acknowledged.
	h.barrier(types.BarrierCheckpoint, types.MutationStopJob)
	if err := <-h.ended; err != nil {
		t.Fatal(err)
	}
}

// TestJobRestart rebuilds the job from storage after a committed epoch
// (losing an uncommitted one) and checks that it goes on as if
// uninterrupted.
func TestJobRestart(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	h := newHarness(t, db)
	h.start(2)
	h.barrier(types.BarrierCheckpoint, types.MutationAddJob)
	h.finishBackfill()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		h.randomEpoch(rng, 40, 30)
		h.barrier(types.BarrierCheckpoint, types.MutationNone)
	}
	h.check()
	// Changes pushed but never committed are lost with the crash.
	h.randomEpoch(rng, 40, 30)
	h.crash()
	h2 := newHarness(t, db)
	h2.start(2)
	h2.barrier(types.BarrierInitial, types.MutationNone)
	h2.check()
	for range 5 {
		h2.randomEpoch(rng, 40, 30)
		h2.barrier(types.BarrierCheckpoint, types.MutationNone)
		h2.check()
	}
	h2.crash()
}

// TestBackfill creates the view over a table that already holds rows,
// with changes to the table in every epoch while the backfill runs (a few
// rows per epoch), a crash in the middle, and checks the view against the
// table after every epoch once the backfill is done, and at the end.
func TestBackfill(t *testing.T) {
	for _, id := range []uint32{backfillID, 0} {
		t.Run(fmt.Sprintf("state=%d", id), func(t *testing.T) {
			defer func(id uint32) { scanStateID = id }(scanStateID)
			scanStateID = id
			testBackfill(t)
		})
	}
}

func testBackfill(t *testing.T) {
	defer func(n int) { backfillRowsPerEpoch = n }(backfillRowsPerEpoch)
	backfillRowsPerEpoch = 7
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	h := newHarness(t, db)
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range int64(200) {
		h.change(types.OpInsert, k, rng.Int64N(10)-3)
	}
	h.barrier(types.BarrierCheckpoint, types.MutationNone)

	h.start(2)
	h.barrier(types.BarrierCheckpoint, types.MutationAddJob)
	for i := range 30 {
		// Changes over the whole key range, also beyond the table's end.
		h.randomEpoch(rng, 10, 260)
		h.barrier(types.BarrierCheckpoint, types.MutationNone)
		if i == 8 {
			h.crash()
			h = newHarness(t, db)
			h.start(2)
			h.barrier(types.BarrierInitial, types.MutationNone)
		}
	}
	h.finishBackfill()
	h.check()
	// Both actors reported progress after the crash (resuming), and
	// finished.
	var done, resumed int
	for _, p := range h.reports {
		if p.Done {
			done++
		}
		if p.Rows > 0 && p.Total > 0 && !p.Done {
			resumed++
		}
	}
	if done < 2 || resumed == 0 {
		t.Errorf("progress reports: %d done, %d in progress", done, resumed)
	}
	for range 5 {
		h.randomEpoch(rng, 20, 260)
		h.barrier(types.BarrierCheckpoint, types.MutationNone)
		h.check()
	}
	h.crash()
}

// TestUnionOfValues builds a job whose union reads two inputs running in
// actors of their own, and checks the view: the rows come in the epoch
// after the barrier adding the job, and later epochs add nothing.
func TestUnionOfValues(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	out := types.Schema{{Name: "x", T: types.TInt8}}
	vals := func(xs ...int64) *planner.StreamValues {
		n := &planner.StreamValues{StreamBase: planner.StreamBase{Out: out}}
		for _, x := range xs {
			n.Rows = append(n.Rows, []planner.Expr{cint(x)})
		}
		return n
	}
	union := &planner.StreamUnion{StreamBase: planner.StreamBase{Out: out}, Inputs: []planner.StreamNode{vals(1, 2), vals(3)}}
	root := &planner.StreamMaterialize{StreamBase: union.StreamBase, Input: union, Cols: []int{0},
		State: planner.StateTableDesc{ID: viewID, Cols: out, KeyCols: []int{0}}}
	sink := newFakeSink()
	job, err := Build(root, Env{Job: testJob, DB: db, Sink: sink, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(job.Fragments) != 3 {
		t.Fatalf("%d fragments, want the union's and one per input", len(job.Fragments))
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- job.Run(ctx) }()
	for e := uint64(1); e <= 3; e++ {
		b := types.Barrier{Epoch: types.Epoch{Prev: e - 1, Curr: e}}
		if e == 1 {
			b.Mutation = types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}
		}
		if err := job.Inject(ctx, b); err != nil {
			t.Fatal(err)
		}
		batch := db.NewBatch()
		for _, ws := range sink.wait(t, e, len(job.ActorIDs())) {
			if err := batch.Apply(ws); err != nil {
				t.Fatal(err)
			}
			ws.Close()
		}
		if err := batch.Commit(); err != nil {
			t.Fatal(err)
		}
		snap := db.NewSnapshot()
		it := snap.Scan(viewID, []types.T{types.TInt8})
		var got []int64
		for {
			r, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if r == nil {
				break
			}
			got = append(got, r[0].I)
		}
		it.Close()
		snap.Close()
		want := "[1 2 3]"
		if e == 1 {
			want = "[]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("epoch %d: view %v", e, got)
		}
	}
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
}

// TestEmptyEpochAcksWithoutWriteSet checks that an actor that wrote
// nothing in an epoch acknowledges it without a write set, keeping its
// empty one for the next epoch, and that the writes of later epochs
// still reach the view.
func TestEmptyEpochAcksWithoutWriteSet(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	h := newHarness(t, db)
	h.start(2)
	h.barrier(types.BarrierCheckpoint, types.MutationAddJob)
	h.finishBackfill()
	writeSets := func() (acks, sets int) {
		h.sink.mu.Lock()
		defer h.sink.mu.Unlock()
		return h.sink.n[h.epoch], len(h.sink.acks[h.epoch])
	}
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	if acks, sets := writeSets(); acks != 4 || sets != 0 {
		t.Fatalf("epoch without changes: %d acks with %d write sets, want 4 with none", acks, sets)
	}
	// One row: its scan actor writes nothing (the backfill is done), the
	// view's actor that owns the key writes its row.
	h.change(types.OpInsert, 1, 5)
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	if acks, sets := writeSets(); acks != 4 || sets != 1 {
		t.Fatalf("epoch with one row: %d acks with %d write sets, want 4 with one", acks, sets)
	}
	h.check()
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	for k := range int64(10) {
		h.change(types.OpInsert, k, k+1)
	}
	h.barrier(types.BarrierCheckpoint, types.MutationNone)
	h.check()
	h.barrier(types.BarrierCheckpoint, types.MutationStopJob)
	if err := <-h.ended; err != nil {
		t.Fatal(err)
	}
}
