package stream

import (
	"context"
	"fmt"
	"slices"
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

const sinkStateID = 50

// sinkInTypes are the sink input's columns (k int8, v text, x int8); the
// sink writes (v, k).
var sinkInTypes = []types.T{types.TInt8, types.TText, types.TInt8}

func sinkNode(format string) *planner.StreamSink {
	in := &planner.StreamValues{StreamBase: planner.StreamBase{Out: types.Schema{
		{Name: "k", T: types.TInt8}, {Name: "v", T: types.TText}, {Name: "x", T: types.TInt8}}}}
	return &planner.StreamSink{
		Input: in,
		Rel: &catalog.Relation{ID: 12, Name: "snk", Cols: []catalog.Column{
			{Name: "v", T: types.TText}, {Name: "k", T: types.TInt8}}},
		Cols: []int{1, 0}, Key: []int{1}, Format: format,
		State: planner.StateTableDesc{ID: sinkStateID, Name: "sink"},
	}
}

// fakeWriter logs the calls a sink makes. A transaction is opened by the
// first Write of an epoch and named txn-<n>; Commit marks it done for the
// next TakeDone.
type fakeWriter struct {
	mu        sync.Mutex
	log       []string
	n         int
	epoch     uint64
	open      string
	done      []SinkTxn
	commitErr error
	// commits receives a token after every Commit call.
	commits chan struct{}
}

func newFakeWriter() *fakeWriter { return &fakeWriter{commits: make(chan struct{}, 16)} }

func (w *fakeWriter) logf(format string, args ...any) {
	w.mu.Lock()
	w.log = append(w.log, fmt.Sprintf(format, args...))
	w.mu.Unlock()
}

func (w *fakeWriter) BeginEpoch(e uint64) error {
	w.epoch = e
	w.logf("begin %d", e)
	return nil
}

func (w *fakeWriter) Write(ctx context.Context, c *types.Chunk) error {
	if w.open == "" {
		w.n++
		w.open = fmt.Sprintf("txn-%d", w.n)
	}
	w.logf("write %s\n%s", w.open, strings.TrimRight(c.String(), "\n"))
	return nil
}

func (w *fakeWriter) PreCommit(ctx context.Context) (SinkTxn, bool, error) {
	if w.open == "" {
		w.logf("precommit none")
		return SinkTxn{}, false, nil
	}
	txn := SinkTxn{ID: w.open, Epoch: w.epoch, Data: []byte("rec-" + w.open)}
	w.open = ""
	w.logf("precommit %s", txn.ID)
	return txn, true, nil
}

func (w *fakeWriter) TakeDone() []SinkTxn {
	d := w.done
	w.done = nil
	var ids []string
	for _, t := range d {
		ids = append(ids, t.ID)
	}
	w.logf("takedone %v", ids)
	return d
}

func (w *fakeWriter) Commit(ctx context.Context, txn SinkTxn) error {
	defer func() { w.commits <- struct{}{} }()
	w.logf("commit %s@%d %s", txn.ID, txn.Epoch, txn.Data)
	if w.commitErr != nil {
		return w.commitErr
	}
	w.done = append(w.done, txn)
	return nil
}

func (w *fakeWriter) Abort(ctx context.Context) error {
	w.logf("abort")
	return nil
}

func (w *fakeWriter) Close() { w.logf("close") }

// take returns the log since the last call.
func (w *fakeWriter) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(w.log, "\n")
	w.log = nil
	return s
}

// takeThrough waits (at most 10 s) until the writer has logged a line
// starting with last, then returns and clears its log as take does: the
// delivery logs TakeDone after the log store's delete a test waits for.
func (w *fakeWriter) takeThrough(t *testing.T, last string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		done := slices.ContainsFunc(w.log, func(l string) bool { return strings.HasPrefix(l, last) })
		w.mu.Unlock()
		if done || time.Now().After(deadline) {
			return w.take()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitCommit waits for the committer's next Commit call.
func (w *fakeWriter) waitCommit(t *testing.T) {
	t.Helper()
	select {
	case <-w.commits:
	case <-time.After(10 * time.Second):
		t.Fatal("no commit")
	}
}

// opener opens w, logging the pending transactions it is given.
func opener(w *fakeWriter) OpenSinkFunc {
	return func(ctx context.Context, actx *ActorContext, n *planner.StreamSink, pending []SinkTxn) (SinkWriter, error) {
		var s []string
		for _, t := range pending {
			s = append(s, fmt.Sprintf("%s@%d %s", t.ID, t.Epoch, t.Data))
		}
		w.logf("open actor %d pending %v", actx.Index, s)
		return w, nil
	}
}

// sinkState returns the committed rows of the sink's state table.
func sinkState(t *testing.T, db *storage.DB) string {
	t.Helper()
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(sinkStateID, SinkStateTypes)
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
		out = append(out, fmt.Sprintf("%d/%s@%d:%s", r[0].I, r[1].S, r[2].I, r[3].S))
	}
}

// putSinkState commits state rows "index/id@epoch:data" as a checkpoint
// left them.
func putSinkState(t *testing.T, db *storage.DB, rows ...string) {
	t.Helper()
	st := storage.NewStateTable(db, sinkStateID, SinkStateTypes[:2], SinkStateTypes, storage.NewCache(1<<20))
	for _, r := range rows {
		var idx, epoch int64
		var id, data string
		idAt, rest, _ := strings.Cut(r, "@")
		fmt.Sscanf(idAt, "%d/", &idx)
		id = idAt[strings.Index(idAt, "/")+1:]
		e, d, _ := strings.Cut(rest, ":")
		fmt.Sscanf(e, "%d", &epoch)
		data = d
		st.Update(types.Row{types.DInt(idx), types.DString(id)},
			types.Row{types.DInt(idx), types.DString(id), types.DInt(epoch), types.DString(data)})
	}
	b := db.NewBatch()
	defer b.Close()
	if err := st.Commit(b, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestSinkTwoPhaseCommit drives a PLAIN sink through recovery of pending
// transactions, epochs with and without rows, phase two after the
// checkpoint commits, and the barrier stopping its job.
func TestSinkTwoPhaseCommit(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	// Transactions a previous run recorded: this actor's, one of an actor
	// index beyond the parallelism (actor 0 takes it), and one of another
	// actor.
	putSinkState(t, db, "0/old-a@3:ra", "0/old-b@2:rb", "4/old-c@1:rc")
	actx := newTestActx(db)
	actx.Parallelism = 4
	in := &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+  1 a 10
U- 1 a 10
U+ 1 b 11
-  2 c 12
--
- 3 d 13
barrier 6
barrier 7
+ 4 e 14
barrier 8 stop
`)}
	w := newFakeWriter()
	s, err := NewSink(actx, in, sinkNode("plain"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	next := func() {
		t.Helper()
		m := mustNext(t, s)
		if _, ok := m.(types.Barrier); ok {
			got.WriteString(render(m))
		}
	}
	step := func(want string) {
		t.Helper()
		checkOutput(t, w.take(), want)
	}

	next() // barrier 5
	step(`
open actor 0 pending [old-c@1 rc old-b@2 rb old-a@3 ra]
begin 5`)
	commitWS(t, actx, 5)
	if st := sinkState(t, db); st != "" {
		t.Errorf("state after recovery: %q", st)
	}
	// A chunk whose rows are all retractions is not written.
	next()
	next() // barrier 6
	step(`
write txn-1
 T I
+ a 1
+ b 1
precommit txn-1
takedone []
begin 6`)
	commitWS(t, actx, 6)
	if st := sinkState(t, db); st != "0/txn-1@6:rec-txn-1" {
		t.Errorf("state after epoch 6: %q", st)
	}
	// Phase two only once the checkpoint committed, without more input.
	s.Committed(6)
	w.waitCommit(t)
	step("commit txn-1@6 rec-txn-1")
	next() // barrier 7
	step(`
precommit none
takedone [txn-1]
begin 7`)
	commitWS(t, actx, 7)
	if st := sinkState(t, db); st != "" {
		t.Errorf("state after epoch 7: %q", st)
	}
	next()
	next() // barrier 8 stop
	step(`
write txn-2
 T I
+ e 4
precommit txn-2
takedone []`)
	commitWS(t, actx, 8)
	s.Close()
	step("close")
	checkOutput(t, got.String(), "barrier 5\nbarrier 6\nbarrier 7\nbarrier 8")

	// A rebuilt sink commits the pending transaction through OpenSink and
	// deletes its row.
	w = newFakeWriter()
	s, err = NewSink(actx, &rtScript{msgs: parseScript(t, sinkInTypes, "barrier 9 initial")}, sinkNode("plain"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next()
	step("open actor 0 pending [txn-2@8 rec-txn-2]\nbegin 9")
	commitWS(t, actx, 9)
	if st := sinkState(t, db); st != "" {
		t.Errorf("state after the rebuild: %q", st)
	}
}

// TestSinkUpsertKeepsRetractions checks that a non-PLAIN sink writes
// every op, and that an actor other than 0 takes only its own state rows.
func TestSinkUpsertKeepsRetractions(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	putSinkState(t, db, "0/a@1:ra", "1/b@1:rb", "2/c@1:rc")
	actx := newTestActx(db)
	actx.Index, actx.Parallelism = 1, 2
	in := &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+  1 a 10
U- 1 a 10
U+ 1 b 11
-  2 c 12
barrier 6
`)}
	w := newFakeWriter()
	s, err := NewSink(actx, in, sinkNode("upsert"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	drain(t, s, 2)
	checkOutput(t, w.take(), `
open actor 1 pending [b@1 rb]
begin 5
write txn-1
 T I
+  a 1
U- a 1
U+ b 1
-  c 2
precommit txn-1
takedone []
begin 6`)
	commitWS(t, actx, 6)
	if st := sinkState(t, db); st != "0/a@1:ra 1/txn-1@6:rec-txn-1 2/c@1:rc" {
		t.Errorf("state: %q", st)
	}
}

// compactSinkNode is sinkNode over an input whose stream key is x (input
// column 2, which the sink does not write): keyed by k alone, the sink
// compacts each epoch's changes by k.
func compactSinkNode(format string) *planner.StreamSink {
	n := sinkNode(format)
	n.Input.Base().StreamKey = []int{2}
	n.Compact = true
	return n
}

// TestSinkCompactsByKey feeds a sink keyed by k, over an input whose
// stream key is x, the changes of several epochs in an order a
// re-sharding exchange may deliver them, and checks what each epoch's
// transaction is written at its barrier: per k, the row k ends the epoch
// with, or its delete.
//
// Before the first epoch (barrier 5 to 6) the input holds (k, v, x):
// (1 a 10), (2 b 20), (3 c 30), (5 e 50), (7 g 70). In that epoch k=1
// moves from x=10 to x=11 with the insert arriving before the delete (the
// order the sink must not depend on); k=2 is deleted; k=4 comes and goes
// (transient); k=6 is new; k=3 is updated within its stream key; k=5 is
// deleted and inserted again unchanged, which writes nothing; the row of
// x=70 moves from k=7 to k=8. The next epoch replaces k=6 twice (the last
// insert wins, the before image is the row before the epoch), and the
// last changes only transient keys, so its transaction writes nothing.
func TestSinkCompactsByKey(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+  1 a2 11
-  2 b  20
+  4 d  40
--
-  1 a  10
-  4 d  40
+  6 f  60
U- 3 c  30
U+ 3 c2 30
-  5 e  50
+  5 e  50
U- 7 g  70
U+ 8 g  70
barrier 6
-  6 f  60
+  6 f2 61
-  6 f2 61
+  6 f3 62
barrier 7
+  9 z  90
-  9 z  90
+  1 y  12
-  1 y  12
barrier 8
`)}
	w := newFakeWriter()
	s, err := NewSink(actx, in, compactSinkNode("upsert"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The sink returns no chunk: what it writes is the barrier's.
	checkOutput(t, drain(t, s, 4), "barrier 5\nbarrier 6\nbarrier 7\nbarrier 8")
	// Each barrier commits the transaction of the checkpoint before it
	// (TestSinkCommitsAtNextBarrier).
	checkOutput(t, w.take(), `
open actor 0 pending []
begin 5
write txn-1
 T  I
U- a  1
U+ a2 1
-  b  2
+  f  6
U- c  3
U+ c2 3
-  g  7
+  g  8
precommit txn-1
takedone []
begin 6
commit txn-1@6 rec-txn-1
write txn-2
 T  I
U- f  6
U+ f3 6
precommit txn-2
takedone [txn-1]
begin 7
commit txn-2@7 rec-txn-2
precommit none
takedone [txn-2]
begin 8`)
}

// TestSinkCompactionSplitsChunks checks that a compacted epoch larger
// than a chunk is written in chunks of at most types.ChunkCap rows, an
// update pair never split across two.
func TestSinkCompactionSplitsChunks(t *testing.T) {
	var script strings.Builder
	script.WriteString("barrier 1 initial\n")
	// Every k had the row (k, old, k); each moves to stream key k+10000.
	for k := 0; k < types.ChunkCap; k++ {
		fmt.Fprintf(&script, "+ %d new %d\n- %d old %d\n", k, k+10000, k, k)
	}
	script.WriteString("barrier 2\n")
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	w := &chunkWriter{fakeWriter: newFakeWriter()}
	s, err := NewSink(actx, &rtScript{msgs: parseScript(t, sinkInTypes, script.String())}, compactSinkNode("debezium"),
		func(context.Context, *ActorContext, *planner.StreamSink, []SinkTxn) (SinkWriter, error) {
			return w, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	drain(t, s, 2)
	rows := 0
	for _, c := range w.chunks {
		if c.Len() > types.ChunkCap || c.Op(0) != types.OpUpdateDelete || c.Op(c.Len()-1) != types.OpUpdateInsert {
			t.Fatalf("a chunk of %d rows from %s to %s", c.Len(), c.Op(0), c.Op(c.Len()-1))
		}
		rows += c.Len()
	}
	if want := 2 * types.ChunkCap; rows != want || len(w.chunks) != 2 {
		t.Fatalf("%d rows in %d chunks, want %d rows in 2", rows, len(w.chunks), want)
	}
}

// chunkWriter is a fakeWriter that keeps the chunks written.
type chunkWriter struct {
	*fakeWriter
	chunks []*types.Chunk
}

func (w *chunkWriter) Write(ctx context.Context, c *types.Chunk) error {
	w.chunks = append(w.chunks, c)
	return w.fakeWriter.Write(ctx, c)
}

// TestSinkCommitError checks that a failed Commit fails the sink at its
// next message.
func TestSinkCommitError(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, sinkInTypes, "barrier 1 add\n+ 1 a 1\nbarrier 2\nbarrier 3")}
	w := newFakeWriter()
	w.commitErr = fmt.Errorf("fenced")
	s, err := NewSink(actx, in, sinkNode("plain"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	drain(t, s, 2)
	s.Committed(2)
	w.waitCommit(t)
	// The committer stores the error after Commit returned; wait for it
	// to be stored without sleeping: Close stops the committer.
	s.Close()
	if _, err := s.Next(context.Background()); err == nil || !strings.Contains(err.Error(), "fenced") {
		t.Errorf("Next after a failed commit: %v", err)
	}
}

// TestJobCommittedReachesSinks builds a job whose root is a sink and
// checks that Job.Committed makes it commit, in epoch order, every
// transaction up to the epoch given.
func TestJobCommittedReachesSinks(t *testing.T) {
	// Barrier e+1 comes only after checkpoint e committed (one in
	// flight); the test stops at barrier 2, whose checkpoint holds txn-1.
	sj := startSinkJob(t, 2)
	job, w, cancel, ended := sj.job, sj.w, sj.cancel, sj.ended
	checkOutput(t, w.take(), `
open actor 0 pending []
begin 1
write txn-1
 T I
+ a 1
precommit txn-1
takedone []
begin 2`)
	job.Committed(2)
	w.waitCommit(t)
	checkOutput(t, w.take(), "commit txn-1@2 rec-txn-1")
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	checkOutput(t, w.take(), "close")
}

// TestSinkCommitsAtNextBarrier checks that a sink commits the previous
// checkpoint's transaction at the next barrier even when no Committed
// notification arrived: barrier e+1 comes only after checkpoint e
// committed, so waiting for the notification could exhaust the pool of
// transactional ids when notifications lag.
func TestSinkCommitsAtNextBarrier(t *testing.T) {
	sj := startSinkJob(t, 3)
	w, cancel, ended := sj.w, sj.cancel, sj.ended
	checkOutput(t, w.take(), `
open actor 0 pending []
begin 1
write txn-1
 T I
+ a 1
precommit txn-1
takedone []
begin 2
commit txn-1@2 rec-txn-1
precommit none
takedone [txn-1]
begin 3`)
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
}

// sinkJob is a running job of a PLAIN sink over one constant row, with a
// fake writer recording its calls.
type sinkJob struct {
	job    *Job
	w      *fakeWriter
	cancel context.CancelFunc
	ended  chan error
}

// startSinkJob builds and runs the job and passes it barriers 1..upTo
// (the first adding the job), waiting for each to be acknowledged.
func startSinkJob(t *testing.T, upTo uint64) sinkJob {
	t.Helper()
	db := openMemDB(t, vfs.NewMem())
	t.Cleanup(func() { db.Close() })
	n := sinkNode("plain")
	vals := n.Input.(*planner.StreamValues)
	vals.Rows = [][]planner.Expr{{cint(1), &planner.Const{V: types.DString("a"), T: types.TText}, cint(0)}}
	w := newFakeWriter()
	sink := newFakeSink()
	job, err := Build(n, Env{Job: testJob, DB: db, Sink: sink, Parallelism: 1, OpenSink: opener(w)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- job.Run(ctx) }()
	for e := uint64(1); e <= upTo; e++ {
		b := types.Barrier{Epoch: types.Epoch{Prev: e - 1, Curr: e}}
		if e == 1 {
			b.Mutation = types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}
		}
		if err := job.Inject(ctx, b); err != nil {
			t.Fatal(err)
		}
		for _, ws := range sink.wait(t, e, len(job.ActorIDs())) {
			ws.Close()
		}
	}
	return sinkJob{job: job, w: w, cancel: cancel, ended: ended}
}
