package stream

import (
	"context"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// ProjectSet runs the set-returning functions of a select list
// (planner.StreamProjectSet): each visible row is emitted once per step
// of its calls, run in lockstep, with the calls' values (NULL for a call
// that has ended) and the step's ordinal, until every call has ended.
//
//   - Chunk: its visible rows join a queue of input rows to expand, in
//     order. Each output row keeps its input row's op, so a delete
//     retracts exactly the rows its insert produced (the calls are
//     deterministic, their arguments the row's, and a row's delete is
//     expanded only after its insert was); an update pair becomes
//     deletes of the old row's rows and inserts of the new row's, whose
//     counts may differ. An error of a call (a zero step) is recorded
//     (ActorContext.Errors) and the row yields nothing, on insert and
//     delete alike. The output goes in chunks of at most types.ChunkCap
//     rows, the calls resuming where the last chunk stopped: one row
//     that yields millions (generate_series(1, n)) costs a chunk of
//     memory at a time.
//   - Between two output chunks the operator polls its input (poller):
//     a chunk joins the queue, a watermark waits until the queue is
//     empty (the rows still to come are behind it), and a barrier
//     passes once the queue is empty or, mid-expansion, once it has
//     waited ActorContext.ExpansionHold (so a statement's expansion that
//     ends within it is in the statement's epoch, read-your-writes, and
//     each view's snapshot is that of a whole input). So a row that
//     yields 10^18 rows holds up checkpoints, and the writers waiting for
//     them, for the hold at most, and DROP not at all; the rows it yields
//     after the barrier belong to the next epoch. The context is checked
//     between chunks too, so stopping the job is prompt. Over an input
//     that cannot be polled (an aggregation in the same fragment) a
//     barrier waits for the expansions before it, as it always did.
//   - Barrier: the queue goes into the state table (input row, op, the
//     next ordinal; only entries that are new or moved since the last
//     barrier are written, and the ones finished are deleted), so the
//     state is empty unless an expansion spans the barrier. After a
//     recovery the queue is read back and the head row's calls resume
//     at the committed ordinal (executor.StartSRFAt): its input row is
//     not replayed, because it came before a committed barrier, and the
//     rows it yielded before that barrier are committed downstream, so
//     every row is emitted exactly once.
//   - Outer (LEFT JOIN LATERAL f(...) ON true): a row whose calls give
//     no rows is emitted once, the calls' columns NULL, ordinal 1, with
//     its op, so its delete retracts it like any other.
//   - Watermark: forwarded (the input's columns keep their positions)
//     once the rows before it are out.
type ProjectSet struct {
	actx  *ActorContext
	in    Operator
	ts    []types.T
	inTs  []types.T
	args  [][]executor.Evaluator
	argTs [][]types.T
	fns   []string
	ectx  executor.EvalCtx
	outer bool
	// polls: the input can be polled, and the state table exists, so
	// barriers may pass mid-expansion.
	polls bool

	states storage.StateTables
	table  *storage.StateTable // nil: the plan gave no state table
	// started: the first barrier was seen (and the state loaded).
	started bool

	// queue holds the input rows still to expand, oldest first; gens
	// are queue[0]'s calls once started (nil before).
	queue []*psRow
	gens  []func() (types.Datum, bool)
	// seq numbers the rows queued by this actor.
	seq int64
	// gone holds the state keys of rows finished since the last barrier.
	gone []types.Row
	// wms are the watermarks waiting for the queue to empty.
	wms []types.Watermark
	// held is a barrier polled while rows were queued: it passes once
	// the queue is empty or hold() passed since heldAt, by now().
	held   *types.Barrier
	heldAt time.Time
	now    func() time.Time
	hold   func() time.Duration
	buf    types.Row
}

// DefaultExpansionHold is how long a ProjectSet holds a barrier behind
// an expansion in progress when the ActorContext gives no hold.
const DefaultExpansionHold = 30 * time.Second

// psRow is an input row of a ProjectSet waiting for its calls to run to
// the end.
type psRow struct {
	seq  int64
	op   types.Op // OpInsert or OpDelete
	row  types.Row
	args [][]types.Datum // per call
	// ord is the ordinal of the next output row (1 before the first).
	ord int64
	// stored: the state table holds the row with ordinal storedOrd (or
	// will once the barrier's writes commit); key is its state key.
	stored    bool
	storedOrd int64
	key       types.Row
}

var _ Operator = (*ProjectSet)(nil)

// projectSetHead is the number of leading state columns before the
// input row: actor index, sequence number, op, next ordinal.
const projectSetHead = 4

// NewProjectSet returns a ProjectSet of in for n.
func NewProjectSet(actx *ActorContext, in Operator, n *planner.StreamProjectSet) (*ProjectSet, error) {
	p := &ProjectSet{actx: actx, in: in, ts: n.Out.Types(), inTs: n.Input.Base().Out.Types(), outer: n.Outer}
	if actx.Eval != nil {
		p.ectx = *actx.Eval
	}
	for _, c := range n.Calls {
		var evs []executor.Evaluator
		for _, a := range c.Args {
			ev, err := executor.Compile(a)
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
		}
		p.args = append(p.args, evs)
		var ts []types.T
		for _, a := range c.Args {
			ts = append(ts, a.Type())
		}
		p.argTs = append(p.argTs, ts)
		p.fns = append(p.fns, c.Fn)
	}
	if n.State.ID != 0 {
		vts := append([]types.T{types.TInt8, types.TInt8, types.TInt8, types.TInt8}, p.inTs...)
		p.table = p.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, []types.T{types.TInt8, types.TInt8}, vts, actx.Cache)))
		p.polls = pollable(in)
	}
	p.buf = make(types.Row, len(p.ts))
	p.now, p.hold = actx.Now, actx.ExpansionHold
	if p.now == nil {
		p.now = time.Now
	}
	if p.hold == nil {
		p.hold = func() time.Duration { return DefaultExpansionHold }
	}
	return p, nil
}

// Next implements Operator.
func (p *ProjectSet) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(p.queue) > 0 {
			// Between two output chunks: a stopped job stops here, and
			// a barrier ready behind the rows being expanded passes.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if p.held != nil && p.now().Sub(p.heldAt) >= p.hold() {
				return p.release()
			}
			if p.polls && p.started && p.held == nil {
				msg, ok, err := p.in.(poller).poll(ctx)
				if err != nil {
					return nil, err
				}
				if ok {
					if b, isBarrier := msg.(types.Barrier); isBarrier {
						// The rows before it go out first, for
						// up to the hold.
						p.held, p.heldAt = &b, p.now()
						continue
					}
					if out, err := p.handle(msg); err != nil || out != nil {
						return out, err
					}
				}
			}
			if out := p.fill(); out != nil {
				return out, nil
			}
			continue
		}
		if p.held != nil {
			return p.release()
		}
		if len(p.wms) > 0 {
			w := p.wms[0]
			p.wms = p.wms[1:]
			return w, nil
		}
		msg, err := p.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		if out, err := p.handle(msg); err != nil || out != nil {
			return out, err
		}
	}
}

// release lets the held barrier pass.
func (p *ProjectSet) release() (types.Message, error) {
	b := *p.held
	p.held = nil
	return p.handle(b)
}

// handle takes one input message: a chunk is queued (nil returned), a
// watermark held while rows are queued, a barrier returned after the
// state was written.
func (p *ProjectSet) handle(msg types.Message) (types.Message, error) {
	switch m := msg.(type) {
	case *types.Chunk:
		return nil, p.enqueue(m)
	case types.Watermark:
		if len(p.queue) == 0 && len(p.wms) == 0 {
			return m, nil
		}
		for i, w := range p.wms {
			if w.Col == m.Col {
				p.wms = append(p.wms[:i], p.wms[i+1:]...)
				break
			}
		}
		p.wms = append(p.wms, m)
		return nil, nil
	case types.Barrier:
		if err := p.barrier(m); err != nil {
			return nil, err
		}
		return m, nil
	}
	return msg, nil
}

// enqueue evaluates the calls' arguments over c and queues its visible
// rows.
func (p *ProjectSet) enqueue(c *types.Chunk) error {
	argD, err := p.evalArgs(c)
	if err != nil {
		return err
	}
	for r := 0; r < c.Len(); r++ {
		if !c.Visible(r) {
			continue
		}
		op := c.Op(r)
		switch op {
		case types.OpUpdateDelete:
			op = types.OpDelete
		case types.OpUpdateInsert:
			op = types.OpInsert
		}
		args := make([][]types.Datum, len(argD))
		for i := range argD {
			args[i] = argD[i][r]
		}
		p.queue = append(p.queue, &psRow{seq: p.seq, op: op, row: append(types.Row(nil), c.Row(r)...), args: args, ord: 1})
		p.seq++
	}
	return nil
}

// evalArgs evaluates the calls' arguments over c: per call, per row.
func (p *ProjectSet) evalArgs(c *types.Chunk) ([][][]types.Datum, error) {
	argD := make([][][]types.Datum, len(p.args))
	for i, evs := range p.args {
		argD[i] = make([][]types.Datum, c.Len())
		var vecs []*types.Vec
		for k, ev := range evs {
			v, err := evalIsolated(p.actx, "ProjectSet", &p.ectx, ev, p.argTs[i][k], c)
			if err != nil {
				return nil, err
			}
			vecs = append(vecs, v)
		}
		for r := 0; r < c.Len(); r++ {
			a := make([]types.Datum, len(vecs))
			for k, v := range vecs {
				a[k] = v.Get(r)
			}
			argD[i][r] = a
		}
	}
	return argD, nil
}

// fill returns the next chunk of at most types.ChunkCap rows of the
// queue's expansions, or nil when the queue yields no more (and is
// empty).
func (p *ProjectSet) fill() *types.Chunk {
	var out *types.Chunk
	nIn := len(p.ts) - len(p.fns) - 1
	for out == nil || out.Len() < types.ChunkCap {
		if p.gens == nil {
			if !p.startHead() {
				break
			}
		}
		head := p.queue[0]
		any := false
		for i, g := range p.gens {
			d, ok := g()
			if !ok {
				d = types.NullDatum
			}
			any = any || ok
			p.buf[nIn+i] = d
		}
		if !any && !(p.outer && head.ord == 1) {
			p.finish()
			continue
		}
		p.buf[len(p.buf)-1] = types.DInt(head.ord)
		head.ord++
		if out == nil {
			out = types.NewChunk(p.ts, min(types.ChunkCap, 64))
		}
		out.AppendRow(head.op, p.buf)
		if !any {
			// An outer ProjectSet keeps the row its calls gave none
			// for, once, the calls' columns NULL.
			p.finish()
		}
	}
	if out == nil || out.Len() == 0 {
		return nil
	}
	return out
}

// startHead starts the calls of the first queued row whose calls start
// without error, at its next ordinal, and reports false when the queue
// is empty.
func (p *ProjectSet) startHead() bool {
	for len(p.queue) > 0 {
		head := p.queue[0]
		gens := make([]func() (types.Datum, bool), len(p.fns))
		failed := false
		for i, fn := range p.fns {
			// In UTC a time of day has one offset whatever the date, so
			// jsonb_path_query_tz needs no clock here.
			g, err := executor.StartSRFAt(fn, head.args[i], p.argTs[i], time.UTC, 0, head.ord-1)
			if err != nil {
				recordError(p.actx, "ProjectSet", err)
				failed = true
				break
			}
			gens[i] = g
		}
		if failed {
			p.finish()
			continue
		}
		copy(p.buf, head.row)
		p.gens = gens
		return true
	}
	return false
}

// finish drops the head of the queue, its expansion done.
func (p *ProjectSet) finish() {
	head := p.queue[0]
	if head.stored {
		p.gone = append(p.gone, head.key)
	}
	p.queue[0] = nil
	p.queue = p.queue[1:]
	p.gens = nil
}

// barrier writes the queue's changes since the last barrier into the
// epoch (the first barrier reads the committed queue instead).
func (p *ProjectSet) barrier(b types.Barrier) error {
	if p.table == nil {
		return nil
	}
	if !p.started {
		p.started = true
		if err := p.states.Barrier(p.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
			return err
		}
		return p.load()
	}
	for _, k := range p.gone {
		p.table.Delete(k)
	}
	p.gone = p.gone[:0]
	for _, q := range p.queue {
		if q.stored && q.storedOrd == q.ord {
			continue
		}
		if q.key == nil {
			q.key = types.Row{types.DInt(int64(p.actx.Index)), types.DInt(q.seq)}
		}
		row := append(types.Row{q.key[0], q.key[1], types.DInt(int64(q.op)), types.DInt(q.ord)}, q.row...)
		p.table.Update(q.key, row)
		q.stored, q.storedOrd = true, q.ord
	}
	return p.states.Barrier(p.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr)
}

// load reads the committed queue of this actor back, and, on the first
// actor, the queues of actors beyond the current parallelism (their rows
// are expanded here, under new keys: the operators after a ProjectSet
// do not depend on which actor emits a row).
func (p *ProjectSet) load() error {
	var rows []types.Row
	it := p.table.Iter(nil, false)
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		a := r[0].I
		if a == int64(p.actx.Index) || p.actx.Index == 0 && a >= int64(p.actx.Parallelism) {
			rows = append(rows, append(types.Row(nil), r...))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	in := types.NewChunk(p.inTs, len(rows))
	for _, r := range rows {
		if len(r) != projectSetHead+len(p.inTs) {
			return pgerr.New(pgerr.DataCorrupted, "ProjectSet state row of %d columns, want %d", len(r), projectSetHead+len(p.inTs))
		}
		in.AppendRow(types.OpInsert, r[projectSetHead:])
	}
	argD, err := p.evalArgs(in)
	if err != nil {
		return err
	}
	for j, r := range rows {
		args := make([][]types.Datum, len(argD))
		for i := range argD {
			args[i] = argD[i][j]
		}
		q := &psRow{seq: p.seq, op: types.Op(r[2].I), row: r[projectSetHead:], args: args, ord: r[3].I,
			stored: true, storedOrd: r[3].I, key: types.Row{r[0], r[1]}}
		if r[0].I != int64(p.actx.Index) {
			// Adopted from a removed actor: moved under this actor's key
			// at the next barrier.
			p.gone = append(p.gone, q.key)
			q.stored, q.key = false, nil
		} else if r[1].I >= p.seq {
			p.seq = r[1].I + 1
		}
		p.queue = append(p.queue, q)
	}
	for _, q := range p.queue {
		if !q.stored {
			q.seq = p.seq
			p.seq++
		}
	}
	return nil
}

// Close implements Operator.
func (p *ProjectSet) Close() { p.in.Close() }
