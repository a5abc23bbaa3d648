package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// DynamicFilter is a temporal filter (planner.StreamDynamicFilter): it
// keeps the rows for which `Key Op Bound` holds, where Bound is an
// expression of now() and now() is the processing time of the operator's
// epoch: types.EpochMillis of the last barrier's Curr, the time the
// coordinator injected that barrier at. The time never comes from the
// clock here, so a test's barriers decide it, and a recovery replays the
// same decisions for the same epochs.
//
// State holds the rows whose condition may still change, ordered by
// their Key value: for `>`/`>=` the rows that pass (and were emitted),
// which leave as the bound rises; for `<`/`<=` the rows that do not pass
// yet (and were not emitted), which enter as it rises. In either case
// the rows a new bound affects are the first ones of the table, so each
// barrier reads one range from the start, ChunkCap rows at a time.
//
//   - Chunk: Key is evaluated for the whole chunk; a row is emitted now
//     when it passes the current bound (clearing visibility bits, as
//     Filter does, with update pairs split when only one side passes).
//     A `>` filter stores an inserted passing row and deletes a retracted
//     one; a `<` filter stores an inserted row that does not pass yet and
//     deletes a retracted one. Rows with a NULL Key never pass and are
//     dropped. A row whose Key fails to evaluate counts as NULL and the
//     error is recorded.
//   - Watermark: dropped. Rows a `<` filter holds come out after rows
//     that followed them, and a `>` filter retracts old rows: neither
//     output keeps the input's watermarks (the plan has none).
//   - Barrier: the bound is computed for the barrier's time; the rows it
//     moves across the condition are emitted (deletes for `>`, inserts
//     for `<`) and removed from state, then the dirty state is written
//     into the epoch and the barrier forwarded. The first barrier (after
//     a start or recovery) is forwarded first, with the state as
//     committed; the changes its time makes to that state are emitted
//     right after it, in the next epoch.
type DynamicFilter struct {
	actx     *ActorContext
	in       Operator
	key      *exprEval
	keyT     types.T
	op       string
	retracts bool
	bound    executor.Evaluator
	ec       executor.EvalCtx
	one      *types.Chunk

	states    storage.StateTables
	table     *storage.StateTable
	streamKey []int
	outTs     []types.T

	// cur is the bound of the current epoch (valid once started).
	cur     types.Datum
	started bool
	// drain: the rows the last bound moved are still to be emitted;
	// held is the barrier to forward after them (nil after the first
	// barrier, which went first).
	drain bool
	held  *types.Barrier
	keys  [][]byte
	// from is the state key of the last row the drain took (nil before
	// the first): the next scan starts there instead of going over the
	// deleted rows again.
	from types.Row
}

var _ Operator = (*DynamicFilter)(nil)

// NewDynamicFilter returns the temporal filter n over in.
func NewDynamicFilter(actx *ActorContext, in Operator, n *planner.StreamDynamicFilter) (*DynamicFilter, error) {
	switch n.Op {
	case ">", ">=", "<", "<=":
	default:
		return nil, pgerr.New(pgerr.InternalError, "dynamic filter: operator %q", n.Op)
	}
	if n.Key.Type() != n.Bound.Type() {
		return nil, pgerr.New(pgerr.InternalError, "dynamic filter: key %s and bound %s differ", n.Key.Type(), n.Bound.Type())
	}
	kev, err := executor.Compile(n.Key)
	if err != nil {
		return nil, err
	}
	bev, err := executor.Compile(n.Bound)
	if err != nil {
		return nil, err
	}
	ec := actx.Eval
	if ec == nil {
		ec = &executor.EvalCtx{}
	}
	f := &DynamicFilter{
		actx: actx, in: in, op: n.Op, retracts: n.Retracts(), keyT: n.Key.Type(),
		key:   &exprEval{ev: kev, t: n.Key.Type(), ec: ec, op: "DynamicFilter"},
		bound: bev, ec: *ec, one: types.NewChunkFromVecs(nil, 1),
	}
	inB := n.Input.Base()
	f.streamKey = append([]int(nil), inB.StreamKey...)
	f.outTs = inB.Out.Types()
	keyTs := []types.T{f.keyT}
	for _, k := range f.streamKey {
		keyTs = append(keyTs, f.outTs[k])
	}
	f.table = f.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, keyTs, append([]types.T{f.keyT}, f.outTs...), actx.Cache)))
	// The barrier's scans read the table across keys: they must see
	// only this actor's rows.
	keep, err := partitionKeep(actx, inB.Dist, func(c int) int { return c + 1 }, append([]types.T{f.keyT}, f.outTs...))
	if err != nil {
		return nil, err
	}
	f.table.SetPartition(keep)
	// Only this actor writes its rows: a new filter's barrier scans read
	// them in memory (until one is evicted) instead of opening a Pebble
	// iterator every barrier.
	if err := f.table.Exclusive(); err != nil {
		return nil, err
	}
	return f, nil
}

// passes reports whether key k (not NULL) passes the current bound.
func (f *DynamicFilter) passes(k types.Datum) bool {
	c := types.Compare(k, f.cur, f.keyT)
	switch f.op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	}
	return c <= 0
}

// setTime computes the bound for the epoch time ms (Unix milliseconds).
func (f *DynamicFilter) setTime(ms int64) error {
	f.ec.Now, f.ec.Statement = ms*1000, 0
	v, err := f.bound.Eval(&f.ec, f.one)
	if err != nil {
		return err
	}
	d := v.Get(0)
	if d.Null {
		return pgerr.New(pgerr.InternalError, "dynamic filter: the bound is NULL")
	}
	// Epoch times never go back; a bound never does either.
	if !f.started || types.Compare(d, f.cur, f.keyT) > 0 {
		f.cur = d
	}
	return nil
}

// Next implements Operator.
func (f *DynamicFilter) Next(ctx context.Context) (types.Message, error) {
	for {
		if f.drain {
			c, err := f.scan()
			if err != nil {
				return nil, err
			}
			if c != nil {
				return c, nil
			}
			f.drain, f.from = false, nil
			if b := f.held; b != nil {
				f.held = nil
				if err := f.states.Barrier(f.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
					return nil, err
				}
				return *b, nil
			}
		}
		msg, err := f.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if out, err := f.chunk(m); err != nil || out != nil {
				return out, err
			}
		case types.Watermark:
		case types.Barrier:
			if err := f.setTime(types.EpochMillis(m.Epoch.Curr)); err != nil {
				return nil, err
			}
			f.drain = true
			if !f.started {
				f.started = true
				if err := f.states.Barrier(f.actx.WriteSet, m.Epoch.Prev, m.Epoch.Curr); err != nil {
					return nil, err
				}
				return m, nil
			}
			f.held = &m
		}
	}
}

// chunk filters c by the current bound and keeps the state in step; it
// returns nil when no row is left.
func (f *DynamicFilter) chunk(c *types.Chunk) (*types.Chunk, error) {
	kv, err := f.key.eval(f.actx, c)
	if err != nil {
		return nil, err
	}
	vis := make([]bool, c.Len())
	kept := 0
	for i := range vis {
		if !c.Visible(i) {
			continue
		}
		k := kv.Get(i)
		if k.Null {
			continue
		}
		pass := f.passes(k)
		if pass {
			vis[i] = true
			kept++
		}
		if pass != f.retracts {
			// Its condition cannot change any more: `>` rows that
			// fail, `<` rows that pass.
			continue
		}
		row := c.Row(i)
		key := make(types.Row, 1, 1+len(f.streamKey))
		key[0] = k
		for _, s := range f.streamKey {
			key = append(key, row[s])
		}
		if op := c.Op(i); op == types.OpInsert || op == types.OpUpdateInsert {
			f.table.Insert(key, append(types.Row{k}, row...))
		} else {
			f.table.Delete(key)
		}
	}
	if kept == 0 {
		return nil, nil
	}
	c.Vis = vis
	fixUpdatePairs(c)
	return c, nil
}

// scan takes up to ChunkCap rows that the current bound moved across
// the condition out of the state and returns them as a chunk (deletes
// for a `>` filter, inserts for a `<` one), or nil when there are none
// left.
func (f *DynamicFilter) scan() (*types.Chunk, error) {
	it := f.table.IterRange(f.from, nil, false)
	var out *types.Chunk
	f.keys = f.keys[:0]
	op := types.OpInsert
	if f.retracts {
		op = types.OpDelete
	}
	for len(f.keys) < types.ChunkCap {
		r, err := it.Next()
		if err != nil {
			it.Close()
			return nil, err
		}
		// A row moved when its condition now differs from the one it was
		// stored for; the table is in key order, so the first row that
		// did not move ends the range.
		if r == nil || f.passes(r[0]) == f.retracts {
			break
		}
		if out == nil {
			out = types.NewChunk(f.outTs, types.ChunkCap)
		}
		out.AppendRow(op, r[1:])
		f.keys = append(f.keys, append([]byte(nil), it.Key()...))
		f.from = append(f.from[:0], r[0])
		for _, k := range f.streamKey {
			f.from = append(f.from, r[1+k])
		}
	}
	it.Close()
	for _, k := range f.keys {
		f.table.DeleteKey(k)
	}
	return out, nil
}

// Close implements Operator.
func (f *DynamicFilter) Close() { f.in.Close() }
