package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Values emits constant rows once, in the first epoch of its job: a view
// over VALUES or without FROM. Its input is the actor's barrier entry
// (the engine injects barriers into it as into table sources).
//
//   - Chunk: none expected from the input.
//   - Watermark: forwarded.
//   - Barrier: forwarded. After the first barrier, when it is the barrier
//     that adds the job (MutationAddJob for this job), the rows follow
//     as inserts, so they belong to the job's first epoch; after a
//     recovery (an Initial barrier) they are already in the view's
//     committed state and are not emitted again. Only the actor with
//     Index 0 emits them.
type Values struct {
	actx    *ActorContext
	in      Operator
	rows    [][]*exprEval
	ts      []types.T
	started bool
	pending *types.Chunk
}

var _ Operator = (*Values)(nil)

// NewValues returns a Values emitting n.Rows, reading barriers from in.
func NewValues(actx *ActorContext, in Operator, n *planner.StreamValues) (*Values, error) {
	v := &Values{actx: actx, in: in, ts: n.Out.Types()}
	for _, r := range n.Rows {
		row := make([]*exprEval, len(r))
		for j, e := range r {
			ev, err := executor.Compile(e)
			if err != nil {
				return nil, err
			}
			row[j] = &exprEval{ev: ev, t: v.ts[j], ec: actx.Eval, op: "Values"}
		}
		v.rows = append(v.rows, row)
	}
	return v, nil
}

// Next implements Operator.
func (v *Values) Next(ctx context.Context) (types.Message, error) {
	if v.pending != nil {
		c := v.pending
		v.pending = nil
		return c, nil
	}
	msg, err := v.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	return msg, v.apply(msg)
}

// poll implements poller over the input's poll.
func (v *Values) poll(ctx context.Context) (types.Message, bool, error) {
	if v.pending != nil {
		c := v.pending
		v.pending = nil
		return c, true, nil
	}
	msg, ok, err := pollOf(ctx, v.in)
	if err != nil || !ok {
		return nil, false, err
	}
	return msg, true, v.apply(msg)
}

// apply takes one input message: the first barrier, when it adds the
// job, makes the rows the next message.
func (v *Values) apply(msg types.Message) error {
	if b, ok := msg.(types.Barrier); ok && !v.started {
		v.started = true
		if b.Mutation.Adds(v.actx.Job) && v.actx.Index == 0 && len(v.rows) > 0 {
			var err error
			if v.pending, err = v.chunk(); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunk evaluates the rows into one chunk of inserts.
func (v *Values) chunk() (*types.Chunk, error) {
	one := types.NewChunkFromVecs(nil, 1)
	c := types.NewChunk(v.ts, len(v.rows))
	for _, r := range v.rows {
		row := make(types.Row, len(r))
		for j, e := range r {
			vec, err := e.eval(v.actx, one)
			if err != nil {
				return nil, err
			}
			row[j] = vec.Get(0)
		}
		c.AppendRow(types.OpInsert, row)
	}
	return c, nil
}

// Close implements Operator.
func (v *Values) Close() { v.in.Close() }
