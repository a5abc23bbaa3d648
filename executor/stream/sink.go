package stream

import (
	"context"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/weirdb/weir/executor/sinktxn"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// SinkStateTypes is the row layout of a sink's state table
// (StreamSink.State): (actor index int4, transactional id text,
// checkpoint epoch int8, transaction record bytea), keyed by its first
// two columns. A row is a transaction pre-committed in the checkpoint of
// its epoch and not yet known to be committed; recovery commits it.
var SinkStateTypes = []types.T{types.TInt4, types.TText, types.TInt8, types.TBytea}

// Sink writes its input's changelog to an external system through the
// connector's SinkWriter, with two-phase commit (DESIGN.md §5): one
// transaction per epoch, pre-committed at the epoch's barrier and
// recorded in the checkpoint, committed once the checkpoint is. It is the
// root of a sink's job.
//
//   - Chunk: projected to the sink's columns (StreamSink.Cols); with
//     FORMAT PLAIN, - and U- rows are dropped and U+ rows become + (the
//     planner allows retractions into PLAIN only with force_append_only).
//     The visible rows are written into the open epoch's transaction. A
//     sink that compacts by key (StreamSink.Compact) writes nothing yet:
//     it folds the rows into the epoch's net change per key
//     (sinkCompactor) and returns no chunk.
//   - Watermark: forwarded.
//   - Barrier: the first one reads the actor's state rows (the actor with
//     Index 0 also takes the rows of indexes >= Parallelism, left by a
//     larger parallelism), opens the writer (OpenSinkFunc, which commits
//     them), deletes them in the epoch's write set and begins the next
//     epoch. Every later barrier first writes the compacted changes of a
//     compacting sink, so they are what the epoch's transaction holds,
//     then pre-commits the open epoch; the
//     transaction, stamped with the barrier's epoch, goes into the state
//     table, and the transactions committed since the previous barrier
//     (TakeDone) leave it; the state table's rows go into the epoch's
//     write set, the next epoch begins and the barrier is forwarded. On
//     the barrier stopping its job no epoch begins; the writer is closed
//     with the operator.
//
// That is the coupled sink (sink.decouple = 'false'). A decoupled sink
// (the default when Build is given a SinkDecoupling, sink_log.go) writes
// nothing to its connector on the checkpoint's path: Chunk rows are
// encoded into the open epoch, and every barrier after the first appends
// them to the sink's log store in the epoch's write set; its first
// barrier starts the delivery goroutine, which runs the sinktxn state
// machine over the writer (and, after a decrease of parallelism, the
// deliveries of what the actors it no longer has left in the log store). Committed feeds that machine instead of the
// committer.
//
// Phase two runs in a committer goroutine: when the job learns that a
// checkpoint committed (Job.Committed), every pre-committed transaction of
// that epoch or older is committed, in epoch order, without waiting for
// the sink's next input. A mutex serialises the writer's calls from the
// actor and the committer. A failed Write, PreCommit or BeginEpoch fails
// the actor at once; a failed Commit fails it at its next message (the
// transaction stays in the committed checkpoint, so recovery commits it).
type Sink struct {
	actx  *ActorContext
	in    Operator
	n     *planner.StreamSink
	open  OpenSinkFunc
	plain bool
	st    *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables
	// compact folds the open epoch's changes when the sink compacts by
	// key; nil otherwise.
	compact *sinkCompactor

	started bool

	// mu serialises calls to w and guards w and pending.
	mu sync.Mutex
	w  SinkWriter
	// pending are the pre-committed transactions not yet committed, in
	// epoch order.
	pending []SinkTxn

	// committed is the newest committed checkpoint epoch the job reported;
	// wake (capacity 1) tells the committer it moved.
	committed atomic.Uint64
	wake      chan struct{}
	quit      chan struct{}
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	// failed holds the committer's error.
	failed    atomic.Pointer[error]
	closeOnce sync.Once

	// decouple is set when the sink is decoupled (sink_log.go): log
	// holds the open epoch's rows and, from the first barrier on, the
	// delivery (dlv, also read by Committed).
	decouple *SinkDecoupling
	log      *sinkLog
	dlv      atomic.Pointer[deliverer]
	// orphans deliver what actors of a larger parallelism left.
	orphans []*deliverer
}

var _ Operator = (*Sink)(nil)

// NewSink returns a Sink of in for n, whose writer open opens on the
// first barrier. It fails with XX000 when the plan gives no state table or
// columns out of range, or open is nil.
func NewSink(actx *ActorContext, in Operator, n *planner.StreamSink, open OpenSinkFunc) (*Sink, error) {
	if n.Rel == nil {
		return nil, pgerr.New(pgerr.InternalError, "sink: no relation")
	}
	if n.State.ID == 0 {
		return nil, pgerr.New(pgerr.InternalError, "sink %s: no state table", n.Rel.Name)
	}
	if open == nil {
		return nil, pgerr.New(pgerr.InternalError, "sink %s: no connector to open it", n.Rel.Name)
	}
	if err := checkStateLayout("sink", n.State, SinkStateTypes, 2); err != nil {
		return nil, err
	}
	if n.Input != nil {
		width := len(n.Input.Base().Out)
		for _, c := range n.Cols {
			if c < 0 || c >= width {
				return nil, pgerr.New(pgerr.InternalError, "sink %s: input column %d of %d", n.Rel.Name, c, width)
			}
		}
	}
	s := &Sink{
		actx: actx, in: in, n: n, open: open,
		plain: strings.EqualFold(n.Format, "plain"),
		wake:  make(chan struct{}, 1),
		quit:  make(chan struct{}),
	}
	s.st = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, SinkStateTypes[:2], SinkStateTypes, actx.Cache)))
	if n.Compact {
		if n.Input == nil || s.plain || len(n.Key) == 0 {
			return nil, pgerr.New(pgerr.InternalError, "sink %s: compaction by key needs a keyed UPSERT or DEBEZIUM sink and its input", n.Rel.Name)
		}
		in := n.Input.Base()
		for _, k := range in.StreamKey {
			if k < 0 || k >= len(in.Out) {
				return nil, pgerr.New(pgerr.InternalError, "sink %s: stream key column %d of %d", n.Rel.Name, k, len(in.Out))
			}
		}
		key := make([]int, len(n.Key))
		for i, k := range n.Key {
			if k < 0 || k >= len(n.Cols) {
				return nil, pgerr.New(pgerr.InternalError, "sink %s: key column %d of %d", n.Rel.Name, k, len(n.Cols))
			}
			key[i] = n.Cols[k]
		}
		outTs := make([]types.T, len(n.Cols))
		for i, c := range n.Cols {
			outTs[i] = in.Out[c].T
		}
		s.compact = newSinkCompactor(in.StreamKey, key, n.Cols, outTs)
	}
	return s, nil
}

// Next implements Operator.
func (s *Sink) Next(ctx context.Context) (types.Message, error) {
	for {
		if err := s.err(); err != nil {
			return nil, err
		}
		msg, err := s.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if err := s.err(); err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if !s.started {
				return nil, pgerr.New(pgerr.InternalError, "sink %s: a chunk before the first barrier", s.n.Rel.Name)
			}
			if s.compact != nil {
				s.compact.add(m)
				continue
			}
			c := s.project(m)
			if c == nil {
				continue
			}
			if s.log != nil {
				s.log.add(c)
				return c, nil
			}
			s.mu.Lock()
			err := s.w.Write(ctx, c)
			s.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return c, nil
		case types.Barrier:
			if err := s.barrier(ctx, m); err != nil {
				return nil, err
			}
			return m, nil
		default:
			return msg, nil
		}
	}
}

// project maps a chunk to the sink's columns, dropping retractions for
// PLAIN; nil when no row is left.
func (s *Sink) project(c *types.Chunk) *types.Chunk {
	vecs := make([]*types.Vec, len(s.n.Cols))
	for j, k := range s.n.Cols {
		vecs[j] = c.Cols[k]
	}
	out := types.NewChunkFromVecs(vecs, c.Len())
	out.Ops, out.Vis = c.Ops, c.Vis
	if s.plain && c.Ops != nil {
		// Every row left is an insert (nil Ops); the visibility is a new
		// slice, as the input's may be shared with other operators.
		out.Ops = nil
		out.Vis = make([]bool, c.Len())
		for i := range out.Vis {
			out.Vis[i] = c.Visible(i)
			switch c.Ops[i] {
			case types.OpDelete, types.OpUpdateDelete:
				out.Vis[i] = false
			}
		}
	}
	if out.VisibleCount() == 0 {
		return nil
	}
	return out
}

// barrier handles a barrier: recovery on the first, the pre-commit on the
// others.
func (s *Sink) barrier(ctx context.Context, b types.Barrier) error {
	if s.log != nil {
		return s.logBarrier(ctx, b)
	}
	stop := b.Mutation.Kind == types.MutationStopJob && b.Mutation.Job.ID == s.actx.Job
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		if err := s.recover(ctx); err != nil {
			return err
		}
	} else {
		// One checkpoint is in flight at a time, so the checkpoint of
		// b.Epoch.Prev has committed: commit its transaction now if the
		// committer has not yet, so that transactional ids are freed at
		// the pace of checkpoints however late a notification is.
		if err := s.commitUpToLocked(ctx, b.Epoch.Prev); err != nil {
			return err
		}
		if s.compact != nil && !s.compact.empty() {
			for _, c := range s.compact.flush() {
				if err := s.w.Write(ctx, c); err != nil {
					return err
				}
			}
		}
		txn, ok, err := s.w.PreCommit(ctx)
		if err != nil {
			return err
		}
		// The done transactions leave the state before the new one enters
		// it, so a transactional id reused by the new one keeps its row.
		for _, d := range s.w.TakeDone() {
			s.st.Delete(s.stateKey(d.ID))
		}
		if ok {
			txn.Epoch = b.Epoch.Curr
			s.st.Update(s.stateKey(txn.ID), types.Row{
				types.DInt(int64(s.actx.Index)), types.DString(txn.ID), types.DInt(int64(txn.Epoch)), types.DString(string(txn.Data)),
			})
			s.pending = append(s.pending, txn)
		}
	}
	if err := s.states.Barrier(s.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	if stop {
		return nil
	}
	return s.w.BeginEpoch(b.Epoch.Curr)
}

// recover reads the actor's transactions from the committed state, opens
// the writer with them (it commits them) and deletes their rows in the
// open epoch. It then starts the committer.
func (s *Sink) recover(ctx context.Context) error {
	var txns []SinkTxn
	var keys []types.Row
	read := func(it storage.RowIter) error {
		defer it.Close()
		for {
			r, err := it.Next()
			if err != nil || r == nil {
				return err
			}
			txns = append(txns, SinkTxn{ID: r[1].S, Epoch: uint64(r[2].I), Data: []byte(r[3].S)})
			keys = append(keys, types.Row{r[0], r[1]})
		}
	}
	if err := read(s.st.Iter(types.Row{types.DInt(int64(s.actx.Index))}, false)); err != nil {
		return err
	}
	if s.actx.Index == 0 && s.actx.Parallelism > 0 {
		if err := read(s.st.IterRange(types.Row{types.DInt(int64(s.actx.Parallelism))}, nil, false)); err != nil {
			return err
		}
	}
	order := make([]int, len(txns))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return txns[order[a]].Epoch < txns[order[b]].Epoch })
	pending := make([]SinkTxn, len(txns))
	for i, j := range order {
		pending[i] = txns[j]
	}
	w, err := s.open(ctx, s.actx, s.n, pending)
	if err != nil {
		return err
	}
	s.w = w
	for _, k := range keys {
		s.st.Delete(k)
	}
	cctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.wg.Add(1)
	go s.commitLoop(cctx)
	return nil
}

func (s *Sink) stateKey(id string) types.Row {
	return types.Row{types.DInt(int64(s.actx.Index)), types.DString(id)}
}

// Committed tells the sink that the checkpoint of epoch committed: its
// committer commits the transactions of that epoch and older. It never
// blocks and is safe from any goroutine.
func (s *Sink) Committed(epoch uint64) {
	if d := s.dlv.Load(); d != nil {
		d.step(sinktxn.CheckpointCommitted{Epoch: epoch})
		return
	}
	for {
		old := s.committed.Load()
		if epoch <= old || s.committed.CompareAndSwap(old, epoch) {
			break
		}
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// commitLoop is the committer goroutine: it commits what Committed
// allows until Close, or until a Commit fails (the error then waits for
// the actor's next Next).
func (s *Sink) commitLoop(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		if err := s.commitUpTo(ctx, s.committed.Load()); err != nil {
			// Also a cancellation's error: the actor then ends anyway, and
			// ignores it.
			s.failed.Store(&err)
			return
		}
	}
}

// commitUpTo commits, in epoch order, the pending transactions of epoch
// or older.
func (s *Sink) commitUpTo(ctx context.Context, epoch uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitUpToLocked(ctx, epoch)
}

// commitUpToLocked is commitUpTo with s.mu held.
func (s *Sink) commitUpToLocked(ctx context.Context, epoch uint64) error {
	for len(s.pending) > 0 && s.pending[0].Epoch <= epoch {
		if err := s.w.Commit(ctx, s.pending[0]); err != nil {
			return err
		}
		s.pending[0] = SinkTxn{}
		s.pending = s.pending[1:]
	}
	return nil
}

func (s *Sink) err() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// Close implements Operator: it stops the committer and closes the
// writer without ending its transactions (recovery aborts what is left
// open and commits what the checkpoint recorded).
func (s *Sink) Close() {
	s.closeOnce.Do(func() {
		if d := s.dlv.Load(); d != nil {
			d.stop()
		}
		for _, d := range s.orphans {
			d.stop()
		}
		close(s.quit)
		if s.cancel != nil {
			s.cancel()
		}
		s.wg.Wait()
		s.mu.Lock()
		if s.w != nil {
			s.w.Close()
			s.w = nil
		}
		s.mu.Unlock()
	})
	s.in.Close()
}
