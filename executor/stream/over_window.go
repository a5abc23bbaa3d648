package stream

import (
	"context"
	"slices"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// OverWindow computes window functions over a changelog
// (planner.StreamOverWindow without EOWC; RisingWave's general
// OverWindow): ROW_NUMBER, RANK, LAG, aggregates OVER (PARTITION BY ...
// ORDER BY ...) and every other function and frame the batch Window
// computes, exact under inserts, deletes and updates, updates that move
// a row to another partition included.
//
// State: Rows holds every input row, keyed by the partition keys, then
// per ORDER BY key a null rank and the value (descending for DESC, NULLs
// placed as NULLS FIRST/LAST asks), then the input's stream key, so a
// partition reads in window order with ties in stream key order. The
// stored row is the output row: the input row, then the values last
// emitted for it, one per call.
//
// Chunk: each visible row is applied to the state at once: a retraction
// (- or U-) deletes its row, an insert (+ or U+) stores it with NULL
// values, computed at the barrier. The first time a stream key is
// touched in a partition in the epoch, the row stored for it (none for
// an insert) is kept in memory as what was emitted for it; the
// partition becomes dirty.
//
// Watermark: one on a partition key column is held until the barrier
// and forwarded (the output keeps the input's columns in place): later
// rows cannot change partitions below it. Others are dropped, as a new
// row may change the values of rows at any ORDER BY position.
//
// Barrier: each dirty partition's rows are read in order and every call
// is computed over them with the batch Window's code
// (executor.WindowPartitionRows); each row's output is compared with what
// was emitted for it: rows gone are emitted as -, rows whose output
// changed as U-/U+, new rows as +, each kind for all partitions before
// the next, so that a row moving between two partitions of this actor
// leaves before it enters. Rows whose values changed are written back.
// Then the dirty state goes into the epoch's write set, held watermarks
// are emitted and the barrier is forwarded. An error computing a call
// over a partition (ntile(0), a negative frame offset) is recorded as an
// expression error (ActorContext.Errors) and gives the call NULL over
// that partition; an aggregate failing over a row's frame (a float sum
// overflowing) gives that row NULL, as PostgreSQL fails computing that
// frame; the job goes on.
//
// A dirty partition is read whole at the barrier, so an epoch costs time
// in proportion to the sizes of the partitions it changed.
type OverWindow struct {
	actx  *ActorContext
	input Operator
	plan  *planner.StreamOverWindow
	ec    *executor.ExecCtx
	inTs  []types.T
	// nIn is the number of input columns; the state's rows have one more
	// per call.
	nIn   int
	keyTs []types.T
	skTs  []types.T
	state *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables
	args   []overArgs
	// ordCols are the input columns of the ORDER BY keys.
	ordCols []int

	started bool
	dirty   map[string]*overPart
	parts   []*overPart
	wms     []types.Watermark
	out     []types.Message
	ob      outBuilder
	kbuf    []byte
}

// overPart is one partition changed in the epoch.
type overPart struct {
	key types.Row
	// old maps the encoded stream key of each row touched in the epoch
	// to the output row emitted for it before (nil: none); order lists
	// those keys in order of first touch.
	old   map[string]types.Row
	order []string
}

// overArgs gives the arguments of one call: col[j] is the input column
// of argument j, or -1 for a constant whose value is consts[j].
type overArgs struct {
	col    []int
	consts []types.Datum
}

var _ Operator = (*OverWindow)(nil)

// NewOverWindow returns the operator of n: an OverWindow, or an
// EOWCOverWindow when n.EOWC. A call that the batch Window cannot
// compute fails with its error (42883 for an unknown aggregate).
func NewOverWindow(actx *ActorContext, input Operator, n *planner.StreamOverWindow) (Operator, error) {
	if n.EOWC {
		return NewEOWCOverWindow(actx, input, n)
	}
	o := &OverWindow{actx: actx, input: input, plan: n, dirty: map[string]*overPart{}}
	o.ec = overExecCtx(actx)
	if err := o.init(); err != nil {
		return nil, err
	}
	o.ob.ts = n.Out.Types()
	return o, nil
}

func (o *OverWindow) init() error {
	var err error
	o.inTs, o.keyTs, o.skTs, o.ordCols, err = overKeyTypes(o.plan)
	if err != nil {
		return err
	}
	o.nIn = len(o.inTs)
	if o.args, err = overCallArgs(o.plan, o.ec); err != nil {
		return err
	}
	for _, c := range o.plan.Calls {
		if err := checkWindowCall(c); err != nil {
			return err
		}
	}
	o.state = o.states.Add(o.actx.Track(storage.NewStateTable(o.actx.DB, o.plan.Rows.ID, o.keyTs, o.plan.Out.Types(), o.actx.Cache)))
	o.state.SetDesc(overKeyDesc(o.plan))
	return nil
}

// Next implements Operator.
func (o *OverWindow) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(o.out) > 0 {
			m := o.out[0]
			o.out[0] = nil
			o.out = o.out[1:]
			return m, nil
		}
		msg, err := o.input.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if !o.started {
				return nil, pgerr.New(pgerr.InternalError, "over window got a chunk before the first barrier")
			}
			if err := o.applyChunk(m); err != nil {
				return nil, err
			}
		case types.Watermark:
			if slices.Contains(o.plan.PartitionBy, m.Col) {
				o.wms = append(o.wms, m)
			}
		case types.Barrier:
			if err := o.barrier(m); err != nil {
				return nil, err
			}
		}
	}
}

func (o *OverWindow) applyChunk(c *types.Chunk) error {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		row := make(types.Row, o.nIn, len(o.plan.Out))
		for j, v := range c.Cols {
			row[j] = detach(v.Get(i))
		}
		p := o.touch(row)
		key := overStateKey(o.plan, o.ordCols, row)
		sk := o.streamKey(row)
		_, seen := p.old[sk]
		if c.Op(i).IsInsert() {
			if !seen {
				p.old[sk] = nil
				p.order = append(p.order, sk)
			}
			for range o.plan.Calls {
				row = append(row, types.NullDatum)
			}
			o.state.Insert(key, row)
			continue
		}
		stored, ok, err := o.state.Get(key)
		if err != nil {
			return err
		}
		if !ok {
			if strictChangelog {
				return pgerr.New(pgerr.InternalError, "over window: retraction of a row that is not in the state")
			}
			continue
		}
		if !seen {
			p.old[sk] = stored
			p.order = append(p.order, sk)
		}
		o.state.Delete(key)
	}
	return nil
}

// touch returns the dirty partition of row, making it dirty on first
// touch in the epoch.
func (o *OverWindow) touch(row types.Row) *overPart {
	pk := make(types.Row, len(o.plan.PartitionBy))
	for i, c := range o.plan.PartitionBy {
		pk[i] = row[c]
	}
	o.kbuf = o.state.EncodeKey(o.kbuf[:0], pk)
	if p, ok := o.dirty[string(o.kbuf)]; ok {
		return p
	}
	p := &overPart{key: pk, old: map[string]types.Row{}}
	o.dirty[string(o.kbuf)] = p
	o.parts = append(o.parts, p)
	return p
}

// streamKey encodes the input stream key of row.
func (o *OverWindow) streamKey(row types.Row) string {
	var b []byte
	for i, c := range o.plan.Input.Base().StreamKey {
		b = types.AppendKey(b, row[c], o.skTs[i], false)
	}
	return string(b)
}

func (o *OverWindow) barrier(b types.Barrier) error {
	o.started = true
	var ch overChanges
	for _, p := range o.parts {
		if err := o.recompute(p, &ch); err != nil {
			return err
		}
	}
	// Retractions of every partition go first: a row that moved to
	// another partition must leave before it enters.
	for _, r := range ch.dels {
		o.ob.add(types.OpDelete, r)
	}
	for _, u := range ch.ups {
		o.ob.update(u[0], u[1])
	}
	for _, r := range ch.ins {
		o.ob.add(types.OpInsert, r)
	}
	clear(o.dirty)
	clear(o.parts)
	o.parts = o.parts[:0]
	o.out = o.ob.take(o.out)
	if err := o.states.Barrier(o.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	for _, w := range o.wms {
		o.out = append(o.out, w)
	}
	o.wms = o.wms[:0]
	o.out = append(o.out, b)
	return nil
}

// overChanges collects an epoch's output by kind.
type overChanges struct {
	dels []types.Row
	ups  [][2]types.Row
	ins  []types.Row
}

// recompute computes the values of partition p's rows and adds the
// differences to what was emitted to ch.
func (o *OverWindow) recompute(p *overPart, ch *overChanges) error {
	rows, err := storage.Collect(o.state.Iter(p.key, false), nil)
	if err != nil {
		return err
	}
	vals, err := overValues(o.plan, o.args, o.ordCols, rows, o.ec, o.actx, 0, len(rows))
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(p.old))
	for i, r := range rows {
		out := make(types.Row, 0, len(o.plan.Out))
		out = append(out, r[:o.nIn]...)
		for _, v := range vals {
			out = append(out, v[i])
		}
		sk := o.streamKey(r)
		old, touched := p.old[sk]
		if touched {
			seen[sk] = true
		} else {
			old = r
		}
		switch {
		case old == nil:
			ch.ins = append(ch.ins, out)
		case !sameRow(old, out):
			ch.ups = append(ch.ups, [2]types.Row{old, out})
		}
		if !sameRow(r, out) {
			o.state.Update(overStateKey(o.plan, o.ordCols, out), out)
		}
	}
	for _, sk := range p.order {
		if old := p.old[sk]; old != nil && !seen[sk] {
			ch.dels = append(ch.dels, old)
		}
	}
	return nil
}

// Close implements Operator.
func (o *OverWindow) Close() {
	if o.input != nil {
		o.input.Close()
		o.input = nil
	}
}

// ---- shared by OverWindow and EOWCOverWindow ----

// overExecCtx returns the expression context the window computations
// evaluate constants in.
func overExecCtx(actx *ActorContext) *executor.ExecCtx {
	ec := &executor.ExecCtx{Eval: executor.EvalCtx{Context: functions.Context{Location: time.UTC}}}
	if actx.Eval != nil {
		ec.Eval = *actx.Eval
	}
	return ec
}

// overKeyTypes returns the input's column types, the types of the Rows
// state key (partition keys, a null rank and the value per ORDER BY key,
// the input's stream key), those of the stream key alone, and the input
// columns of the ORDER BY keys.
func overKeyTypes(n *planner.StreamOverWindow) (inTs, keyTs, skTs []types.T, ordCols []int, err error) {
	in := n.Input.Base()
	inTs = in.Out.Types()
	for _, c := range n.PartitionBy {
		if c < 0 || c >= len(inTs) {
			return nil, nil, nil, nil, pgerr.New(pgerr.InternalError, "over window partitions by column %d of %d", c, len(inTs))
		}
		keyTs = append(keyTs, inTs[c])
	}
	for _, k := range n.OrderBy {
		c, ok := k.Expr.(*planner.ColRef)
		if !ok || c.Idx < 0 || c.Idx >= len(inTs) {
			return nil, nil, nil, nil, pgerr.New(pgerr.InternalError, "over window ORDER BY key is not an input column")
		}
		ordCols = append(ordCols, c.Idx)
		keyTs = append(keyTs, types.TInt2, inTs[c.Idx])
	}
	for _, c := range in.StreamKey {
		if c < 0 || c >= len(inTs) {
			return nil, nil, nil, nil, pgerr.New(pgerr.InternalError, "over window input stream key column %d of %d", c, len(inTs))
		}
		keyTs = append(keyTs, inTs[c])
		skTs = append(skTs, inTs[c])
	}
	if len(n.Out) != len(inTs)+len(n.Calls) {
		return nil, nil, nil, nil, pgerr.New(pgerr.InternalError, "over window has %d output columns for %d input columns and %d calls", len(n.Out), len(inTs), len(n.Calls))
	}
	return inTs, keyTs, skTs, ordCols, nil
}

// overKeyDesc returns which Rows key columns sort descending.
func overKeyDesc(n *planner.StreamOverWindow) []bool {
	desc := make([]bool, len(n.PartitionBy))
	for _, k := range n.OrderBy {
		desc = append(desc, false, k.Desc)
	}
	return append(desc, make([]bool, len(n.Input.Base().StreamKey))...)
}

// overStateKey returns the Rows key of an input row (or of an output row,
// which starts with it).
func overStateKey(n *planner.StreamOverWindow, ordCols []int, row types.Row) types.Row {
	sk := n.Input.Base().StreamKey
	key := make(types.Row, 0, len(n.PartitionBy)+2*len(ordCols)+len(sk))
	for _, c := range n.PartitionBy {
		key = append(key, row[c])
	}
	vals := make([]types.Datum, len(ordCols))
	for i, c := range ordCols {
		vals[i] = row[c]
	}
	key = appendOrderKey(key, vals, n.OrderBy)
	for _, c := range sk {
		key = append(key, row[c])
	}
	return key
}

// overCallArgs resolves every call's arguments to input columns or
// constant values (evaluated once, in ec).
func overCallArgs(n *planner.StreamOverWindow, ec *executor.ExecCtx) ([]overArgs, error) {
	nIn := len(n.Input.Base().Out)
	out := make([]overArgs, len(n.Calls))
	for i, c := range n.Calls {
		for _, a := range c.Args {
			if r, ok := a.(*planner.ColRef); ok {
				if r.Idx < 0 || r.Idx >= nIn {
					return nil, pgerr.New(pgerr.InternalError, "over window argument column %d of %d", r.Idx, nIn)
				}
				out[i].col = append(out[i].col, r.Idx)
				out[i].consts = append(out[i].consts, types.NullDatum)
				continue
			}
			v, err := evalConstExpr(a, ec)
			if err != nil {
				return nil, err
			}
			out[i].col = append(out[i].col, -1)
			out[i].consts = append(out[i].consts, v)
		}
	}
	return out, nil
}

// row returns the arguments of the call for input row r.
func (a *overArgs) row(r types.Row) types.Row {
	out := make(types.Row, len(a.col))
	for j, c := range a.col {
		if c < 0 {
			out[j] = a.consts[j]
		} else {
			out[j] = r[c]
		}
	}
	return out
}

// evalConstExpr evaluates an expression that reads no row.
func evalConstExpr(e planner.Expr, ec *executor.ExecCtx) (types.Datum, error) {
	ev, err := executor.Compile(e)
	if err != nil {
		return types.NullDatum, err
	}
	v, err := ev.Eval(&ec.Eval, types.NewChunkFromVecs(nil, 1))
	if err != nil {
		return types.NullDatum, err
	}
	return detach(v.Get(0)), nil
}

// checkWindowCall fails, when the operator is built, for an aggregate
// the batch Window has no accumulator for (42883), so a view never
// starts that would fail at its first barrier.
func checkWindowCall(c planner.WindowCall) error {
	switch c.Fn {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
		"lag", "lead", "first_value", "last_value", "nth_value":
		return nil
	}
	ts := make([]types.T, len(c.Args))
	for i, a := range c.Args {
		ts[i] = a.Type()
	}
	_, err := functions.NewAccumulatorFunc(functions.AggSpec{Fn: c.Fn, ArgTypes: ts, T: c.T})
	if pgerr.CodeOf(err) == pgerr.UndefinedFunction {
		return pgerr.New(pgerr.UndefinedFunction, "window function %s is not supported", c.Fn)
	}
	return err
}

// overValues computes every call over rows, one partition in window
// order (rows start with the input's columns). An aggregate failing over
// a row's frame (a float sum overflowing, 22003) gives that row NULL;
// any other failure of a call gives it NULL for every row. Errors are
// recorded, those of a row only when it is in [from, to) (the rows the
// caller emits).
func overValues(n *planner.StreamOverWindow, args []overArgs, ordCols []int, rows []types.Row, ec *executor.ExecCtx, actx *ActorContext, from, to int) ([][]types.Datum, error) {
	ord := make([]types.Row, len(rows))
	for i, r := range rows {
		ord[i] = make(types.Row, len(ordCols))
		for j, c := range ordCols {
			ord[i][j] = r[c]
		}
	}
	vals := make([][]types.Datum, len(n.Calls))
	for ci, c := range n.Calls {
		as := make([]types.Row, len(rows))
		for i, r := range rows {
			as[i] = args[ci].row(r)
		}
		v, rowErrs, err := executor.WindowPartitionRows(c, ord, as, ec)
		for i, err := range rowErrs {
			if err != nil && i >= from && i < to {
				recordError(actx, "OverWindow", err)
			}
		}
		if err != nil {
			if pgerr.CodeOf(err) == pgerr.InternalError {
				return nil, err
			}
			if actx.Errors != nil {
				actx.Errors.Record(actx.Job, "OverWindow", err)
			}
			v = make([]types.Datum, len(rows))
			for i := range v {
				v[i] = types.NullDatum
			}
		}
		vals[ci] = v
	}
	return vals, nil
}
