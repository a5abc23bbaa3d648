package stream

import (
	"context"
	"sync"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// SourceStateTypes is the row layout of a source's state table
// (StreamSource.State): (partition int4, next offset int8), keyed by its
// first column. Each row says where reading that partition resumes: the
// offset of the first record not yet in a committed epoch. A source with
// a watermark also keeps it in rows of negative keys: the source's in the
// row of -1, partition p's in the row of -2-p (watermarkPartition,
// partitionWatermarkKey). The two lowest keys hold the source's counts of
// late rows and malformed records (lateRowsKey, malformedKey).
var SourceStateTypes = []types.T{types.TInt4, types.TInt8}

// sourcePollChunks is how many polled batches wait for the actor at most.
// A batch waiting in the channel is not emitted yet, so its positions are
// not checkpointed: a small number keeps the records read ahead (and read
// again after a recovery) few.
const sourcePollChunks = 2

// Source reads an external source (planner.StreamSource) through the
// connector's SourceReader. It is the leaf of its actor; the engine
// injects barriers into its entry channel (Job.Inject), as for Values.
// A poll goroutine calls SourceReader.Poll and hands each batch over a
// small bounded channel, so the reader reads ahead while the actor works,
// and a barrier never waits behind a Poll.
//
// Exactly-once: the positions the source checkpoints are those after the
// last batch it emitted. Rows emitted before barrier e belong to epoch e,
// and the barrier writes the positions after them into e's write set, so
// a recovery from e reopens the reader right after the last row of e:
// nothing is read twice into committed state, nothing is skipped.
//
//   - Chunk: none expected from the entry; the polled batches are
//     projected to StreamSource.Cols and emitted (empty ones are not,
//     but their positions count as emitted). With a WATERMARK FOR clause
//     (StreamSource.Watermark) the watermark advances row by row as the
//     rows are read, and each row behind the watermark as it stands just
//     before the row is dropped and counted (source_watermark.go): which
//     rows of a partition are late depends on its records alone, not on
//     how they fell into batches and epochs, so every job reading the
//     source and every replay after a recovery drops the same ones.
//   - Watermark: forwarded. A source with a WATERMARK FOR clause
//     generates its own, emitted at barriers, before the barrier, when
//     it rose since the last one (and once after a restart). It is
//     checkpointed with the positions, in the same epoch, and so is
//     every partition's watermark (the state rows of partition -1 and
//     -2-p): a recovered reader resumes with exactly the watermarks it
//     had, so the watermark never goes back, and it moves on without
//     waiting for records from every partition again.
//   - Barrier: a waiting barrier is always taken before more data. The
//     first barrier (Initial after a recovery, AddJob for a new job) loads
//     the committed positions from the state table and opens the reader
//     (OpenSourceFunc) with them; the poll goroutine starts. Every later
//     barrier writes the positions that moved during the epoch into the
//     state table and its rows into the epoch's write set, then is
//     forwarded. Pause stops taking batches (the poll goroutine then
//     blocks on the full channel), Resume takes them again; so does a
//     hold of the job by a sink whose log store is full (JobHold),
//     until a barrier finds it released. After the
//     barrier stopping its job, the poll goroutine is stopped and the
//     reader closed.
//
// A Poll error fails the actor.
type Source struct {
	actx     *ActorContext
	n        *planner.StreamSource
	open     OpenSourceFunc
	barriers <-chan types.Message
	st       *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables

	started bool
	paused  bool
	// pos holds the positions after the last emitted batch; dirty the
	// partitions whose position moved in the open epoch.
	pos   map[int32]int64
	dirty map[int32]bool

	reader  SourceReader
	batches chan sourcePoll
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// wm generates the watermark (nil without a WATERMARK FOR clause);
	// now is its clock. queue holds a barrier to return after the
	// watermark that precedes it.
	wm    *sourceWatermarker
	now   func() time.Time
	queue []types.Message

	// late and malformed count the rows dropped behind the watermark and
	// the records skipped as malformed, up to the positions (the state
	// rows lateRowsKey and malformedKey); counted is set when they moved
	// in the open epoch.
	late, malformed int64
	counted         bool
}

// sourcePoll is one Poll's result as the poll goroutine hands it over.
type sourcePoll struct {
	batch SourceBatch
	err   error
}

var _ Operator = (*Source)(nil)

// NewSource returns a Source of n whose barriers arrive on barriers and
// whose reader open opens on the first barrier. It fails with XX000 when
// the plan gives no state table or open is nil.
func NewSource(actx *ActorContext, barriers <-chan types.Message, n *planner.StreamSource, open OpenSourceFunc) (*Source, error) {
	if n.Rel == nil {
		return nil, pgerr.New(pgerr.InternalError, "source: no relation")
	}
	if n.State.ID == 0 {
		return nil, pgerr.New(pgerr.InternalError, "source %s: no state table", n.Rel.Name)
	}
	if open == nil {
		return nil, pgerr.New(pgerr.InternalError, "source %s: no connector to open it", n.Rel.Name)
	}
	if err := checkStateLayout("source", n.State, SourceStateTypes, 1); err != nil {
		return nil, err
	}
	s := &Source{
		actx: actx, n: n, open: open, barriers: barriers,
		pos:   map[int32]int64{},
		dirty: map[int32]bool{},
	}
	s.st = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, SourceStateTypes[:1], SourceStateTypes, actx.Cache)))
	for _, c := range n.Cols {
		if c < 0 || c >= len(n.Rel.Cols) {
			return nil, pgerr.New(pgerr.InternalError, "source %s: column %d of %d", n.Rel.Name, c, len(n.Rel.Cols))
		}
	}
	s.now = time.Now
	if w := n.Watermark; w != nil {
		if w.Col < 0 || w.Col >= len(n.Rel.Cols) {
			return nil, pgerr.New(pgerr.InternalError, "source %s: watermark column %d of %d", n.Rel.Name, w.Col, len(n.Rel.Cols))
		}
		ec := actx.Eval
		if ec == nil {
			ec = &executor.EvalCtx{Context: functions.Context{Location: time.UTC}}
		}
		var err error
		if s.wm, err = newSourceWatermarker(n, ec); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Next implements Operator.
func (s *Source) Next(ctx context.Context) (types.Message, error) {
	if len(s.queue) > 0 {
		m := s.queue[0]
		s.queue = s.queue[1:]
		return m, nil
	}
	for {
		if s.batches == nil || s.paused || s.actx.Hold.Held() {
			select {
			case m := <-s.barriers:
				return s.control(ctx, m)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		// A waiting barrier goes first: select alone would pick at random
		// between it and a batch.
		select {
		case m := <-s.barriers:
			return s.control(ctx, m)
		default:
		}
		select {
		case m := <-s.barriers:
			return s.control(ctx, m)
		case p := <-s.batches:
			if p.err != nil {
				return nil, p.err
			}
			c, err := s.take(p.batch)
			if err != nil {
				return nil, err
			}
			if c != nil {
				return c, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// control handles a message of the barrier entry.
func (s *Source) control(ctx context.Context, m types.Message) (types.Message, error) {
	b, ok := m.(types.Barrier)
	if !ok {
		if _, isChunk := m.(*types.Chunk); isChunk {
			return nil, pgerr.New(pgerr.InternalError, "source %s: a chunk on the barrier entry", s.n.Rel.Name)
		}
		return m, nil
	}
	if !s.started {
		s.started = true
		if err := s.start(ctx); err != nil {
			return nil, err
		}
	} else {
		for p := range s.dirty {
			s.st.Update(types.Row{types.DInt(int64(p))}, types.Row{types.DInt(int64(p)), types.DInt(s.pos[p])})
		}
		clear(s.dirty)
		var w types.Watermark
		emit := false
		if s.wm != nil {
			w, emit = s.watermark()
		}
		if s.counted {
			for _, kv := range [][2]int64{{lateRowsKey, s.late}, {malformedKey, s.malformed}} {
				k := types.DInt(kv[0])
				s.st.Update(types.Row{k}, types.Row{k, types.DInt(kv[1])})
			}
			s.counted = false
		}
		if err := s.states.Barrier(s.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
			return nil, err
		}
		if emit {
			s.applyMutation(b)
			s.queue = append(s.queue, b)
			return w, nil
		}
	}
	s.applyMutation(b)
	return b, nil
}

// watermark advances the watermark at a barrier, records it in the state
// table, reports it and the late rows, and returns it when it is to be
// emitted.
func (s *Source) watermark() (types.Watermark, bool) {
	sw := s.wm
	rec := s.actx.Watermarks
	if sw.late > 0 {
		if rec != nil {
			rec.LateRows(s.actx.Job, s.n.Rel.ID, sw.late, types.Watermark{Col: sw.out, T: sw.w.T, Val: sw.lateAt})
		}
		s.late += sw.late
		s.counted = true
	}
	sw.late = 0
	w, emit := sw.barrier(s.now())
	if sw.changed {
		k := types.DInt(watermarkPartition)
		s.st.Update(types.Row{k}, types.Row{k, types.DInt(sw.cur.I)})
		sw.changed = false
	}
	sw.dirtyPartitions(func(p int32, v int64) {
		k := types.DInt(partitionWatermarkKey(p))
		s.st.Update(types.Row{k}, types.Row{k, types.DInt(v)})
	})
	if rec != nil && emit {
		rec.Watermark(s.actx.Job, s.n.Rel.ID, w)
	}
	return w, emit
}

// applyMutation applies a barrier's control change to the source.
func (s *Source) applyMutation(b types.Barrier) {
	switch b.Mutation.Kind {
	case types.MutationPause:
		s.paused = true
	case types.MutationResume:
		s.paused = false
	case types.MutationStopJob:
		if b.Mutation.Job.ID == s.actx.Job {
			s.stop()
		}
	}
}

// start loads the committed positions, opens the reader and starts the
// poll goroutine.
func (s *Source) start(ctx context.Context) error {
	it := s.st.Iter(nil, false)
	for {
		r, err := it.Next()
		if err != nil {
			it.Close()
			return err
		}
		if r == nil {
			break
		}
		switch r[0].I {
		case lateRowsKey:
			s.late = r[1].I
			continue
		case malformedKey:
			s.malformed = r[1].I
			continue
		}
		if r[0].I == watermarkPartition {
			if s.wm != nil {
				s.wm.restore(r[1].I)
			}
			continue
		}
		if r[0].I < watermarkPartition {
			if s.wm != nil {
				s.wm.restorePartition(keyPartition(r[0].I), r[1].I, s.now())
			}
			continue
		}
		s.pos[int32(r[0].I)] = r[1].I
	}
	it.Close()
	if rec := s.actx.Watermarks; rec != nil {
		rec.RestoreSourceCounts(s.actx.Job, s.n.Rel.ID, s.late, s.malformed)
	}
	positions := make(map[int32]int64, len(s.pos))
	for p, o := range s.pos {
		positions[p] = o
	}
	r, err := s.open(ctx, s.actx, s.n, positions)
	if err != nil {
		return err
	}
	s.reader = r
	pctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.batches = make(chan sourcePoll, sourcePollChunks)
	s.wg.Add(1)
	go s.poll(pctx, r, s.batches)
	return nil
}

// poll runs in its own goroutine until ctx ends or Poll fails.
func (s *Source) poll(ctx context.Context, r SourceReader, out chan<- sourcePoll) {
	defer s.wg.Done()
	for {
		b, err := r.Poll(ctx, types.ChunkCap)
		if ctx.Err() != nil {
			return
		}
		if err == nil && (b.Chunk == nil || b.Chunk.VisibleCount() == 0) && len(b.Positions) == 0 {
			continue
		}
		select {
		case out <- sourcePoll{batch: b, err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// take records a batch's positions as emitted and returns its rows
// projected to the source's columns, or nil when it has none. A chunk
// without the relation's columns is an internal error (of the connector).
func (s *Source) take(b SourceBatch) (*types.Chunk, error) {
	for p, o := range b.Positions {
		if p < 0 || p > MaxSourcePartition {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "source %s: partition %d is beyond the highest partition a source reads, %d", s.n.Rel.Name, p, MaxSourcePartition)
		}
		if old, ok := s.pos[p]; !ok || old != o {
			s.pos[p] = o
			s.dirty[p] = true
		}
	}
	if b.Malformed > 0 {
		s.malformed += b.Malformed
		s.counted = true
		if rec := s.actx.Watermarks; rec != nil {
			rec.MalformedRecords(s.actx.Job, s.n.Rel.ID, b.Malformed)
		}
	}
	c := b.Chunk
	if s.wm != nil {
		if c != nil && len(c.Cols) != len(s.n.Rel.Cols) {
			return nil, pgerr.New(pgerr.InternalError, "source %s: a batch of %d columns for %d", s.n.Rel.Name, len(c.Cols), len(s.n.Rel.Cols))
		}
		s.wm.observe(s.actx, c, b.Partitions, b.Positions, s.now())
	}
	if c == nil || c.VisibleCount() == 0 {
		return nil, nil
	}
	if len(c.Cols) != len(s.n.Rel.Cols) {
		return nil, pgerr.New(pgerr.InternalError, "source %s: a batch of %d columns for %d", s.n.Rel.Name, len(c.Cols), len(s.n.Rel.Cols))
	}
	vecs := make([]*types.Vec, len(s.n.Cols))
	for j, k := range s.n.Cols {
		vecs[j] = c.Cols[k]
	}
	out := types.NewChunkFromVecs(vecs, c.Len())
	out.Ops, out.Vis = c.Ops, c.Vis
	return out, nil
}

// stop ends the poll goroutine and closes the reader; it is idempotent.
func (s *Source) stop() {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
		s.cancel = nil
	}
	if s.reader != nil {
		s.reader.Close()
		s.reader = nil
	}
	s.batches = nil
}

// Close implements Operator.
func (s *Source) Close() { s.stop() }

// checkStateLayout checks a plan's description of an operator's state
// table against the layout the operator writes (whole rows of ts, keyed
// by their first nkey columns), when the plan describes it at all: a planner
// that disagrees fails the build instead of reading rows it cannot
// decode.
func checkStateLayout(what string, d planner.StateTableDesc, ts []types.T, nkey int) error {
	if len(d.Cols) == 0 {
		return nil
	}
	ok := len(d.Cols) == len(ts)
	for i := 0; ok && i < len(ts); i++ {
		ok = d.Cols[i].T == ts[i]
	}
	if len(d.KeyCols) > 0 {
		ok = ok && len(d.KeyCols) == nkey
		for i, k := range d.KeyCols {
			ok = ok && k == i
		}
	}
	if !ok {
		return pgerr.New(pgerr.InternalError, "%s state table %d: layout %v, want %v", what, d.ID, d.Cols.Types(), ts)
	}
	return nil
}
