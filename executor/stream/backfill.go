package stream

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// BackfillProgress is one actor's backfill progress, reported at every
// barrier while it backfills and once when it is done (the engine turns
// it into NOTICEs and a system view).
type BackfillProgress struct {
	Job   types.JobID
	Actor types.ActorID
	// Rel is the table being backfilled.
	Rel *catalog.Relation
	// Rows is the number of snapshot rows this actor has read; Total is
	// an estimate of how many it will read in all (0 when unknown).
	Rows, Total int64
	Done        bool
}

// Backfill is the scan of a table by a new job: a consistent snapshot of
// the rows the table already holds, merged with the table's later
// changes so that no row is missed or counted twice at the switch
// (RisingWave's no-shuffle backfill). Each actor scans the rows of its
// partition (hash of the primary key, as TableInput partitions changes)
// in primary key order; its position is the key of the last snapshot row
// read. Output rows are the scan's columns (StreamTableScan.Cols).
//
// The snapshot is the table's storage as of the last committed epoch,
// re-taken at every barrier after the first (the first epoch has no
// snapshot: the epoch the job was added in may hold changes the job does
// not receive, and they are committed only with that barrier). With
// snapshot S of epoch k-1 taken at barrier k, the operator keeps this
// invariant: after a barrier, its output holds exactly the table's rows
// with keys <= position. Upstream changes are therefore buffered until
// the barrier that ends their epoch, and then
//   - changes to keys <= position (the scan has emitted the key, from a
//     snapshot older than the change) are emitted;
//   - changes of the epoch just ended to keys > position are kept for one
//     more epoch: the next snapshot (epoch k-1) does not hold them yet,
//     and they are emitted when the scan passes their key;
//   - older changes to keys > position are dropped: the next snapshot
//     holds them.
//
// Changes cannot pass through as they arrive: the scan reads a snapshot
// older than the epoch, so a change to a key the scan reaches later in
// the same epoch would be overwritten by the snapshot's older row.
//
//   - Chunk (upstream): buffered as above while backfilling; projected
//     and returned once the backfill is done.
//   - Watermark: dropped while backfilling (the table's rows read from the
//     snapshot may be below it), forwarded afterwards on the scan's
//     column of the watermark's table column (dropped when the scan does
//     not read that column).
//   - Barrier: emit the changes the position now covers, persist the
//     position (state table: actor Index → done, rows read, position), take
//     a new snapshot, report progress, forward the barrier. When the
//     snapshot was read to its end, every buffered change is emitted and
//     the backfill is done: from then on changes pass through. After a
//     recovery the position is read back and the scan resumes.
//
// With StreamTableScan.SkipSnapshot there is no snapshot: the backfill is
// done from the first barrier on (and reported so), and only the changes
// after it pass through.
type Backfill struct {
	actx     *ActorContext
	src      *TableSource
	rel      *catalog.Relation
	cols     []int
	relTypes []types.T
	// The progress lives in st, or in the metadata entry meta.
	st *storage.StateTable
	// states holds st, committed by one call at a barrier.
	states   storage.StateTables
	meta     string
	progress func(BackfillProgress)
	// skip: SkipSnapshot.
	skip bool

	started bool
	done    bool
	pos     []byte // nil: no snapshot row read yet
	rows    int64
	total   int64
	// estimated: total was computed (once per run, on the first snapshot).
	estimated bool
	snap      *storage.Snapshot
	it        storage.RowIter
	scanDone  bool
	// epochRows counts the snapshot rows read in the open epoch.
	epochRows int
	// prev holds the previous epoch's changes to keys beyond the position
	// then; cur the open epoch's changes (whole rows).
	prev, cur []*types.Chunk
	out       []types.Message
	kbuf      []byte
}

var _ Operator = (*Backfill)(nil)

// backfillRowsPerEpoch, when positive, caps the snapshot rows an actor
// reads per epoch; tests set it to spread a backfill over many epochs.
var backfillRowsPerEpoch = 0

// backfillStateTypes are the value columns of the backfill state table,
// keyed by the actor's Index (int4).
var backfillStateTypes = []types.T{types.TBool, types.TInt8, types.TBytea}

// NewBackfill returns a Backfill of n.Rel over src; progress, if not
// nil, is called with the actor's progress at each barrier while it
// backfills.
//
// The progress is kept in n.State when the plan gives one, and otherwise
// in a metadata entry named after the job, scanSeq (the scan's number
// among the job's scans) and the actor's Index.
func NewBackfill(actx *ActorContext, src *TableSource, n *planner.StreamTableScan, scanSeq int, progress func(BackfillProgress)) (*Backfill, error) {
	ts := make([]types.T, len(n.Rel.Cols))
	for i, c := range n.Rel.Cols {
		ts[i] = c.T
	}
	b := &Backfill{actx: actx, src: src, rel: n.Rel, cols: n.Cols, relTypes: ts, progress: progress, skip: n.SkipSnapshot}
	if n.State.ID != 0 {
		b.st = b.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, []types.T{types.TInt4}, backfillStateTypes, actx.Cache)))
	} else {
		b.meta = fmt.Sprintf("%s%d/%d/%d", BackfillMetaPrefix, actx.Job, scanSeq, actx.Index)
	}
	return b, nil
}

// BackfillMetaPrefix starts the names of the metadata entries
// (storage.MetaKey) that hold backfill progress when the plan gives the
// scan no state table: "stream/backfill/<job>/<scan>/<actor index>",
// where scan numbers the job's table scans in build order. Dropping a
// job may delete them.
const BackfillMetaPrefix = "stream/backfill/"

// Next implements Operator.
func (b *Backfill) Next(ctx context.Context) (types.Message, error) {
	m, _, err := b.next(ctx, true)
	return m, err
}

// poll implements poller: Next without waiting for the table's changes
// (a snapshot chunk is ready whenever the scan has rows left).
func (b *Backfill) poll(ctx context.Context) (types.Message, bool, error) {
	return b.next(ctx, false)
}

// next is Next, or poll when wait is false: then it reports false
// instead of waiting for the table input.
func (b *Backfill) next(ctx context.Context, wait bool) (types.Message, bool, error) {
	for {
		if len(b.out) > 0 {
			m := b.out[0]
			b.out[0] = nil
			b.out = b.out[1:]
			return m, true, nil
		}
		var msg types.Message
		if b.done || !b.started || b.it == nil || b.scanDone || b.throttled() {
			if !wait {
				m, ok, _ := b.src.poll(ctx)
				if !ok {
					return nil, false, nil
				}
				msg = m
			} else {
				m, err := b.src.Next(ctx)
				if err != nil {
					return nil, false, err
				}
				msg = m
			}
		} else if m, ok, _ := b.src.poll(ctx); ok {
			msg = m
		} else {
			// Nothing from upstream: read on in the snapshot.
			c, err := b.scan()
			if err != nil {
				return nil, false, err
			}
			if c != nil {
				return c, true, nil
			}
			continue
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if b.done {
				if c := b.project(m); c != nil {
					return c, true, nil
				}
				continue
			}
			if !b.started {
				return nil, false, pgerr.New(pgerr.InternalError, "backfill of %s: a chunk before the first barrier", b.rel.Name)
			}
			b.cur = append(b.cur, m)
		case types.Watermark:
			// The table input's watermarks are on the relation's columns;
			// the scan's output has its own.
			if j := slices.Index(b.cols, m.Col); b.done && j >= 0 {
				m.Col = j
				return m, true, nil
			}
		case types.Barrier:
			if err := b.barrier(m); err != nil {
				return nil, false, err
			}
		}
	}
}

// scan reads up to a chunk of the actor's partition from the snapshot,
// returning the projected rows as inserts, or nil when it found none
// (scanDone is then set if the snapshot is exhausted).
func (b *Backfill) scan() (*types.Chunk, error) {
	outTypes := make([]types.T, len(b.cols))
	for j, c := range b.cols {
		outTypes[j] = b.relTypes[c]
	}
	out := types.NewChunk(outTypes, types.ChunkCap)
	// Bound the rows looked at per call, so that upstream messages and
	// barriers are not held up by a long run of other partitions' rows.
	for looked := 0; out.Len() < types.ChunkCap && looked < 4*types.ChunkCap && !b.throttled(); looked++ {
		row, err := b.it.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			b.scanDone = true
			break
		}
		b.pos = append(b.pos[:0], b.it.Key()...)
		if partitionOf(hashRow(row, b.rel.PK, b.relTypes), b.actx.Parallelism) != b.actx.Index {
			continue
		}
		b.rows++
		b.epochRows++
		r := make(types.Row, len(b.cols))
		for j, c := range b.cols {
			r[j] = row[c]
		}
		out.AppendRow(types.OpInsert, r)
	}
	if out.Len() == 0 {
		return nil, nil
	}
	fault.Hit(fault.BackfillChunk)
	return out, nil
}

func (b *Backfill) throttled() bool {
	return backfillRowsPerEpoch > 0 && b.epochRows >= backfillRowsPerEpoch
}

// barrier handles a barrier while backfilling (or the first barrier).
func (b *Backfill) barrier(m types.Barrier) error {
	if !b.started {
		b.started = true
		if b.skip {
			b.done = true
			b.out = append(b.out, m)
			b.report()
			return nil
		}
		state, found, err := b.load()
		if err != nil {
			return err
		}
		if found {
			b.done = state[0].Bool()
			b.rows = state[1].I
			if !state[2].Null {
				b.pos = []byte(state[2].S)
			}
		}
		b.out = append(b.out, m)
		// Report at the first barrier whether done or not: once it
		// commits, every actor of the job has reported, so a job that
		// resumes its backfill after a restart is never taken for done
		// on the word of the actors that had finished.
		b.report()
		return nil
	}
	if b.done {
		b.out = append(b.out, m)
		return nil
	}
	if b.scanDone {
		// The snapshot was read to its end: the position is past every
		// key, so every buffered change is covered.
		for _, c := range b.prev {
			b.emit(c)
		}
		for _, c := range b.cur {
			b.emit(c)
		}
		b.prev, b.cur = nil, nil
		b.done = true
		b.closeSnapshot()
	} else {
		for _, c := range b.prev {
			if keep, _ := b.split(c); keep != nil {
				b.emit(keep)
			}
		}
		var next []*types.Chunk
		for _, c := range b.cur {
			keep, rest := b.split(c)
			if keep != nil {
				b.emit(keep)
			}
			if rest != nil {
				next = append(next, rest)
			}
		}
		b.prev, b.cur = next, nil
	}
	if err := b.persist(m.Epoch.Prev, m.Epoch.Curr); err != nil {
		return err
	}
	if !b.done {
		b.closeSnapshot()
		b.snap = b.actx.DB.NewSnapshot()
		if !b.estimated {
			b.estimated = true
			b.total = b.estimate()
		}
		var lo []byte
		if b.pos != nil {
			// The smallest key after pos.
			lo = append(append([]byte(nil), b.pos...), 0)
		}
		b.it = b.snap.ScanRange(b.rel.ID, lo, nil, b.relTypes)
		b.scanDone = false
		b.epochRows = 0
	}
	b.report()
	b.out = append(b.out, m)
	return nil
}

// split divides a chunk of whole rows into the rows whose primary keys
// are <= the position and the others, each with its update pairs fixed.
func (b *Backfill) split(c *types.Chunk) (keep, rest *types.Chunk) {
	vis := make([]bool, c.Len())
	inv := make([]bool, c.Len())
	for i := range vis {
		if !c.Visible(i) {
			continue
		}
		b.kbuf = b.kbuf[:0]
		row := c.Row(i)
		for _, k := range b.rel.PK {
			b.kbuf = types.AppendKey(b.kbuf, row[k], b.relTypes[k], false)
		}
		if b.pos != nil && bytes.Compare(b.kbuf, b.pos) <= 0 {
			vis[i] = true
		} else {
			inv[i] = true
		}
	}
	pick := func(v []bool) *types.Chunk {
		x := *c
		x.Vis = v
		fixUpdatePairs(&x)
		return compactChunk(&x)
	}
	return pick(vis), pick(inv)
}

// emit queues a chunk of whole rows, projected to the scan's columns.
func (b *Backfill) emit(c *types.Chunk) {
	if p := b.project(c); p != nil {
		b.out = append(b.out, p)
	}
}

func (b *Backfill) project(c *types.Chunk) *types.Chunk {
	if c.VisibleCount() == 0 {
		return nil
	}
	vecs := make([]*types.Vec, len(b.cols))
	for j, k := range b.cols {
		vecs[j] = c.Cols[k]
	}
	out := types.NewChunkFromVecs(vecs, c.Len())
	out.Ops, out.Vis = c.Ops, c.Vis
	return out
}

// persist writes the actor's progress into the epoch's write set.
func (b *Backfill) persist(prev, epoch uint64) error {
	pos := types.NullDatum
	if b.pos != nil {
		pos = types.DString(string(b.pos))
	}
	row := types.Row{types.DBool(b.done), types.DInt(b.rows), pos}
	if b.st == nil {
		return b.actx.WriteSet.SetMeta(b.meta, types.AppendRow(nil, row, backfillStateTypes))
	}
	b.st.Update(types.Row{types.DInt(int64(b.actx.Index))}, row)
	return b.states.Barrier(b.actx.WriteSet, prev, epoch)
}

// load reads the actor's persisted progress, as of the committed epoch.
// An actor with no progress of its own in a job whose other actors have
// some is an actor added by a change of parallelism (ALTER ... SET
// PARALLELISM, or a restore): when every recorded actor had finished, the
// backfill is done for all (the whole snapshot was read, by hash
// partitions of the old count); otherwise its positions, which are per
// partition, cannot be split again, and the job fails rather than read
// the snapshot twice (the engine rescales finished backfills only).
func (b *Backfill) load() (types.Row, bool, error) {
	if b.st != nil {
		row, ok, err := b.st.Get(types.Row{types.DInt(int64(b.actx.Index))})
		if err != nil || ok {
			return row, ok, err
		}
		it := b.st.Iter(nil, false)
		defer it.Close()
		seen, allDone := 0, true
		for {
			r, err := it.Next()
			if err != nil {
				return nil, false, err
			}
			if r == nil {
				break
			}
			seen++
			allDone = allDone && r[0].Bool()
		}
		if seen == 0 {
			return nil, false, nil
		}
		if !allDone {
			return nil, false, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the backfill of %s was not finished when its parallelism changed", b.rel.Name)
		}
		return types.Row{types.DBool(true), types.DInt(0), types.NullDatum}, true, nil
	}
	v, ok, err := b.actx.DB.Meta(b.meta)
	if err != nil || !ok {
		return nil, false, err
	}
	row, err := types.DecodeRow(v, backfillStateTypes)
	if err != nil {
		return nil, false, pgerr.Wrap(pgerr.DataCorrupted, err, "reading backfill progress")
	}
	return row, true, nil
}

// estimate counts the table's rows in the snapshot and returns this
// actor's share.
func (b *Backfill) estimate() int64 {
	it := b.snap.Scan(b.rel.ID, b.relTypes)
	defer it.Close()
	var n int64
	for {
		row, err := it.Next()
		if err != nil || row == nil {
			break
		}
		n++
	}
	return n / int64(max(b.actx.Parallelism, 1))
}

func (b *Backfill) report() {
	if b.progress != nil {
		b.progress(BackfillProgress{Job: b.actx.Job, Actor: b.actx.Actor, Rel: b.rel, Rows: b.rows, Total: b.total, Done: b.done})
	}
}

func (b *Backfill) closeSnapshot() {
	if b.it != nil {
		b.it.Close()
		b.it = nil
	}
	if b.snap != nil {
		_ = b.snap.Close()
		b.snap = nil
	}
}

// Close implements Operator.
func (b *Backfill) Close() {
	b.closeSnapshot()
	b.src.Close()
}
