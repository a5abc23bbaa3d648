package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
)

// fakeRecover is a RecoverSinkTxnFunc that logs into w and answers err.
type fakeRecover struct {
	mu  sync.Mutex
	w   *fakeWriter
	err error
}

func (f *fakeRecover) recover(ctx context.Context, actx *ActorContext, n *planner.StreamSink, txn SinkTxn) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.w.logf("resolve %s@%d %s", txn.ID, txn.Epoch, txn.Data)
	return f.err
}

// logStoreState describes the committed sink state: records as
// index/id@epoch:data, log entries as log@epoch.
func logStoreState(t *testing.T, db *storage.DB) string {
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
		if r[0].I < 0 {
			out = append(out, fmt.Sprintf("log@%d", r[2].I))
			continue
		}
		out = append(out, fmt.Sprintf("%d/%s@%d:%s", r[0].I, r[1].S, r[2].I, r[3].S))
	}
}

// waitState waits until the committed sink state is want.
func waitState(t *testing.T, db *storage.DB, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := logStoreState(t, db)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sink state is %q, want %q", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func newDecoupledSink(t *testing.T, actx *ActorContext, in Operator, w *fakeWriter, rec *fakeRecover) *Sink {
	t.Helper()
	s, err := NewSink(actx, in, sinkNode("plain"), opener(w))
	if err != nil {
		t.Fatal(err)
	}
	s.setDecoupling(SinkDecoupling{Recover: rec.recover, RetryInitial: time.Millisecond, RetryMax: time.Millisecond})
	if s.log == nil {
		t.Fatal("the sink is not decoupled")
	}
	return s
}

// TestSinkDecoupledDelivers drives a decoupled PLAIN sink: its barriers
// only append to the log store (no writer call on the checkpoint's
// path); once the checkpoint commits, the delivery writes the epoch in
// one transaction, records it, commits it and truncates it; an epoch
// without rows is not delivered.
func TestSinkDecoupledDelivers(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	in := &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+  1 a 10
-  2 c 12
barrier 6
barrier 7
+ 4 e 14
barrier 8 stop
`)}
	w := newFakeWriter()
	rec := &fakeRecover{w: w}
	s := newDecoupledSink(t, actx, in, w, rec)
	defer s.Close()
	drain(t, s, 1) // barrier 5: the delivery starts and connects
	commitWS(t, actx, 5)
	drain(t, s, 1) // the chunk and barrier 6
	if got := logStoreState(t, db); got != "" {
		t.Fatalf("state before the checkpoint of epoch 6: %q", got)
	}
	commitWS(t, actx, 6)
	if got := logStoreState(t, db); got != "log@6" {
		t.Fatalf("state after the checkpoint of epoch 6: %q", got)
	}
	s.Committed(6)
	waitState(t, db, "")
	checkOutput(t, w.takeThrough(t, "takedone"), `
open actor 0 pending []
begin 6
write txn-1
 T I
+ a 1
precommit txn-1
commit txn-1@6 rec-txn-1
takedone [txn-1]`)
	drain(t, s, 2) // barrier 7, the chunk, barrier 8
	commitWS(t, actx, 7)
	commitWS(t, actx, 8)
	s.Committed(8)
	waitState(t, db, "")
	checkOutput(t, w.takeThrough(t, "takedone"), `
begin 8
write txn-2
 T I
+ e 4
precommit txn-2
commit txn-2@8 rec-txn-2
takedone [txn-2]`)
}

// TestSinkDecoupledRedelivers crashes a decoupled sink between its record
// and its commit (the commit's outcome unknown, the record durable), and
// restarts it with a broker that aborted the transaction: the epoch,
// still in the log store, is delivered again in a new transaction whose
// record replaces the old one.
func TestSinkDecoupledRedelivers(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	w := newFakeWriter()
	w.commitErr = errors.New("broker down")
	rec := &fakeRecover{w: w, err: errors.New("broker down")}
	s := newDecoupledSink(t, actx, &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+ 1 a 10
barrier 6
`)}, w, rec)
	drain(t, s, 2)
	commitWS(t, actx, 5)
	commitWS(t, actx, 6)
	s.Committed(6)
	waitState(t, db, "log@6 0/txn-1@6:rec-txn-1")
	w.waitCommit(t)
	s.Close() // a crash: the record and the epoch stay

	w2 := newFakeWriter()
	rec2 := &fakeRecover{w: w2, err: fmt.Errorf("EndTxn: %w", ErrSinkTxnAborted)}
	actx = newTestActx(db)
	s = newDecoupledSink(t, actx, &rtScript{msgs: parseScript(t, sinkInTypes, "barrier 9 initial")}, w2, rec2)
	defer s.Close()
	drain(t, s, 1)
	waitState(t, db, "")
	checkOutput(t, w2.takeThrough(t, "takedone"), `
resolve txn-1@6 rec-txn-1
open actor 0 pending []
begin 6
write txn-1
 T I
+ a 1
precommit txn-1
commit txn-1@6 rec-txn-1
takedone [txn-1]`)
}

// TestSinkDecoupledHoldsWhenFull checks that a log store at its bound
// holds the job (its sources pause) until delivery truncates it.
func TestSinkDecoupledHoldsWhenFull(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	actx := newTestActx(db)
	actx.Hold = &JobHold{}
	w := newFakeWriter()
	rec := &fakeRecover{w: w}
	n := sinkNode("plain")
	n.Rel.With = map[string]string{OptSinkLogMaxBytes: "1"}
	s, err := NewSink(actx, &rtScript{msgs: parseScript(t, sinkInTypes, `
barrier 5 initial
+ 1 a 10
barrier 6
`)}, n, opener(w))
	if err != nil {
		t.Fatal(err)
	}
	s.setDecoupling(SinkDecoupling{Recover: rec.recover})
	defer s.Close()
	drain(t, s, 2)
	if !actx.Hold.Held() {
		t.Fatal("a full log store does not hold the job")
	}
	commitWS(t, actx, 5)
	commitWS(t, actx, 6)
	s.Committed(6)
	waitState(t, db, "")
	deadline := time.Now().Add(10 * time.Second)
	for actx.Hold.Held() {
		if time.Now().After(deadline) {
			t.Fatal("the hold is not released after truncation")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rescaleWriters opens one fakeWriter per actor index and logs every
// commit, of any index, in one sequence: "<index>@<epoch>".
type rescaleWriters struct {
	mu      sync.Mutex
	ws      map[int]*fakeWriter
	commits []string
	// block, when set, holds every commit of blockIndex until closed.
	block      chan struct{}
	blockIndex int
	// failIndex's commits fail (the broker down), when set.
	failIndex int
}

type rescaleWriter struct {
	*fakeWriter
	idx int
	rw  *rescaleWriters
}

func (w rescaleWriter) Commit(ctx context.Context, txn SinkTxn) error {
	if w.idx == w.rw.blockIndex && w.rw.block != nil {
		<-w.rw.block
	}
	w.rw.mu.Lock()
	fail := w.idx == w.rw.failIndex
	w.rw.mu.Unlock()
	if fail {
		w.logf("commit %s@%d fails", txn.ID, txn.Epoch)
		return errors.New("broker down")
	}
	err := w.fakeWriter.Commit(ctx, txn)
	w.rw.mu.Lock()
	w.rw.commits = append(w.rw.commits, fmt.Sprintf("%d@%d", w.idx, txn.Epoch))
	w.rw.mu.Unlock()
	return err
}

func (rw *rescaleWriters) open(ctx context.Context, actx *ActorContext, n *planner.StreamSink, pending []SinkTxn) (SinkWriter, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	w := rw.ws[actx.Index]
	if w == nil {
		w = newFakeWriter()
		w.commits = make(chan struct{}, 1024)
		rw.ws[actx.Index] = w
	}
	w.logf("open actor %d", actx.Index)
	return rescaleWriter{fakeWriter: w, idx: actx.Index, rw: rw}, nil
}

// TestSinkDecoupledRescale scales a decoupled sink from three actors to
// two while each old actor's log store holds an epoch not yet
// delivered. The actor with index 0 delivers, as actor 2 (its
// transactional ids), what actor 2 left; every old epoch is committed
// once, and no actor commits an epoch of the new run before all of them
// are, though actor 2's commit is held back.
func TestSinkDecoupledRescale(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	rw := &rescaleWriters{ws: map[int]*fakeWriter{}, blockIndex: -1, failIndex: -1}
	rec := &fakeRecover{w: newFakeWriter()}
	start := func(gates *sinkGates, index, par int, script string) (*Sink, *ActorContext) {
		actx := newTestActx(db)
		actx.Index, actx.Parallelism, actx.sinkGates = index, par, gates
		s, err := NewSink(actx, &rtScript{msgs: parseScript(t, sinkInTypes, script)}, sinkNode("plain"), rw.open)
		if err != nil {
			t.Fatal(err)
		}
		s.setDecoupling(SinkDecoupling{Recover: rec.recover, RetryInitial: time.Millisecond, RetryMax: time.Millisecond})
		return s, actx
	}
	// Three actors append epoch 6, which commits; nothing is told of the
	// commit, so nothing is delivered before they stop.
	gates := &sinkGates{}
	for i := range 3 {
		s, actx := start(gates, i, 3, fmt.Sprintf(`
barrier 5 initial
+ %d old 0
barrier 6
`, i))
		drain(t, s, 2)
		commitWS(t, actx, 5)
		commitWS(t, actx, 6)
		s.Close()
	}
	waitState(t, db, "log@6 log@6 log@6")
	for _, w := range rw.ws {
		w.take()
	}

	// Two actors: actor 0 also runs the orphan of index 2, whose commit
	// waits until the new epochs have had every chance to overtake it.
	rw.block, rw.blockIndex = make(chan struct{}), 2
	gates = &sinkGates{}
	var sinks []*Sink
	var actxs []*ActorContext
	for i := range 2 {
		s, actx := start(gates, i, 2, fmt.Sprintf(`
barrier 7 initial
+ %d new 0
barrier 8
`, 10+i))
		defer s.Close()
		drain(t, s, 2)
		sinks, actxs = append(sinks, s), append(actxs, actx)
	}
	for i, s := range sinks {
		commitWS(t, actxs[i], 7)
		commitWS(t, actxs[i], 8)
		s.Committed(8)
	}
	time.Sleep(50 * time.Millisecond)
	close(rw.block)
	waitState(t, db, "")

	rw.mu.Lock()
	commits := slices.Clone(rw.commits)
	rw.mu.Unlock()
	var old, nw []string
	for i, c := range commits {
		if strings.HasSuffix(c, "@6") {
			old = append(old, c)
			continue
		}
		nw = append(nw, c)
		if len(old) < 3 {
			t.Fatalf("commit %d (%s) of the new run came before the old epochs were all committed: %v", i, c, commits)
		}
	}
	slices.Sort(old)
	slices.Sort(nw)
	if got, want := strings.Join(old, " ")+" | "+strings.Join(nw, " "), "0@6 1@6 2@6 | 0@8 1@8"; got != want {
		t.Fatalf("commits %s, want %s", got, want)
	}
	// The orphan of index 2 opened its own writer (fencing actor 2's
	// transactional ids) and closed it once done.
	checkOutput(t, rw.ws[2].take(), `
open actor 2
begin 6
write txn-1
 T I
+ old 2
precommit txn-1
commit txn-1@6 rec-txn-1
takedone [txn-1]
close`)
}

// TestSinkDecoupledRescaleResolvesRecords scales a decoupled sink from two
// actors to one after actor 1 recorded the transaction of an epoch whose
// commit failed: the orphan delivery of index 1 resolves that record as
// actor 1 (the commit is idempotent), so the epoch is not written again,
// and then starts actor 1's producers, which aborts whatever they left
// open.
func TestSinkDecoupledRescaleResolvesRecords(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	rw := &rescaleWriters{ws: map[int]*fakeWriter{}, blockIndex: -1, failIndex: 1}
	var mu sync.Mutex
	var resolved []string
	down := true // the broker: resolving fails while it is down
	recover := func(ctx context.Context, actx *ActorContext, n *planner.StreamSink, txn SinkTxn) error {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return errors.New("broker down")
		}
		resolved = append(resolved, fmt.Sprintf("actor %d: %s@%d", actx.Index, txn.ID, txn.Epoch))
		return nil
	}
	start := func(gates *sinkGates, index, par int, script string) (*Sink, *ActorContext) {
		actx := newTestActx(db)
		actx.Index, actx.Parallelism, actx.sinkGates = index, par, gates
		s, err := NewSink(actx, &rtScript{msgs: parseScript(t, sinkInTypes, script)}, sinkNode("plain"), rw.open)
		if err != nil {
			t.Fatal(err)
		}
		s.setDecoupling(SinkDecoupling{Recover: recover, RetryInitial: time.Millisecond, RetryMax: time.Millisecond})
		return s, actx
	}
	gates := &sinkGates{}
	var old []*Sink
	for i := range 2 {
		s, actx := start(gates, i, 2, fmt.Sprintf(`
barrier 5 initial
+ %d old 0
barrier 6
`, i))
		drain(t, s, 2)
		commitWS(t, actx, 5)
		commitWS(t, actx, 6)
		s.Committed(6)
		old = append(old, s)
	}
	// Actor 0 delivered its epoch; actor 1's stays, with its record.
	waitState(t, db, "log@6 1/txn-1@6:rec-txn-1")
	for _, s := range old {
		s.Close()
	}
	for _, w := range rw.ws {
		w.take()
	}

	rw.mu.Lock()
	rw.failIndex = -1
	rw.mu.Unlock()
	mu.Lock()
	down = false
	mu.Unlock()
	s, actx := start(&sinkGates{}, 0, 1, `
barrier 7 initial
+ 10 new 0
barrier 8
`)
	defer s.Close()
	drain(t, s, 2)
	commitWS(t, actx, 7)
	commitWS(t, actx, 8)
	s.Committed(8)
	waitState(t, db, "")
	mu.Lock()
	got := strings.Join(resolved, "; ")
	mu.Unlock()
	if got != "actor 1: txn-1@6" {
		t.Fatalf("resolved %q, want actor 1's record of epoch 6", got)
	}
	checkOutput(t, rw.ws[1].take(), `
open actor 1
close`)
	checkOutput(t, rw.ws[0].take(), `
open actor 0
begin 8
write txn-2
 T I
+ new 10
precommit txn-2
commit txn-2@8 rec-txn-2
takedone [txn-2]`)
}
