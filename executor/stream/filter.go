package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Filter keeps the rows for which the condition is true (not false, not
// NULL).
//
//   - Chunk: the condition is evaluated over the whole chunk and rows are
//     hidden by clearing visibility bits (no copy). An update pair whose
//     old and new rows fall on different sides of the condition becomes
//     a delete (only the old row passed) or an insert (only the new row
//     passed). A chunk left with no visible row is not returned. A row
//     whose condition fails to evaluate counts as NULL (filtered out) and
//     the error is recorded.
//   - Watermark: forwarded (filtering keeps column values).
//   - Barrier: forwarded (Filter has no state).
type Filter struct {
	actx *ActorContext
	in   Operator
	cond *exprEval
}

var _ Operator = (*Filter)(nil)

// NewFilter returns a Filter of in by n.Cond.
func NewFilter(actx *ActorContext, in Operator, n *planner.StreamFilter) (*Filter, error) {
	ev, err := executor.Compile(n.Cond)
	if err != nil {
		return nil, err
	}
	return &Filter{actx: actx, in: in, cond: &exprEval{ev: ev, t: types.TBool, ec: actx.Eval, op: "Filter"}}, nil
}

// Next implements Operator.
func (f *Filter) Next(ctx context.Context) (types.Message, error) {
	for {
		msg, err := f.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if m, ok, err := f.apply(msg); err != nil || ok {
			return m, err
		}
	}
}

// poll implements poller over the input's poll; a chunk filtered out
// whole reports nothing ready.
func (f *Filter) poll(ctx context.Context) (types.Message, bool, error) {
	msg, ok, err := pollOf(ctx, f.in)
	if err != nil || !ok {
		return nil, false, err
	}
	return f.apply(msg)
}

// apply filters one input message; false when a chunk kept no row.
func (f *Filter) apply(msg types.Message) (types.Message, bool, error) {
	c, ok := msg.(*types.Chunk)
	if !ok {
		return msg, true, nil
	}
	v, err := f.cond.eval(f.actx, c)
	if err != nil {
		return nil, false, err
	}
	vis := make([]bool, c.Len())
	kept := 0
	for i := range vis {
		if c.Visible(i) && isTrueAt(v, i) {
			vis[i] = true
			kept++
		}
	}
	if kept == 0 {
		return nil, false, nil
	}
	c.Vis = vis
	fixUpdatePairs(c)
	return c, true, nil
}

// Close implements Operator.
func (f *Filter) Close() { f.in.Close() }
