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
		c, ok := msg.(*types.Chunk)
		if !ok {
			return msg, nil
		}
		v, err := f.cond.eval(f.actx, c)
		if err != nil {
			return nil, err
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
			continue
		}
		c.Vis = vis
		fixUpdatePairs(c)
		return c, nil
	}
}

// Close implements Operator.
func (f *Filter) Close() { f.in.Close() }
