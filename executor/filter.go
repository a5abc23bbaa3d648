package executor

import (
	"context"

	"github.com/weirdb/weir/types"
)

// Filter keeps the rows for which the condition is true (not false, not
// NULL). It does not copy: it clears visibility entries of its input's
// chunk and passes the chunk on, skipping chunks left with no visible row.
type Filter struct {
	endState
	in   Operator
	cond Evaluator
	ec   *ExecCtx
}

var _ Operator = (*Filter)(nil)

// NewFilter returns a Filter of in by the compiled condition cond.
func NewFilter(in Operator, cond Evaluator, ec *ExecCtx) *Filter {
	return &Filter{in: in, cond: cond, ec: ec}
}

// Next implements Operator.
func (f *Filter) Next(ctx context.Context) (*types.Chunk, error) {
	if f.done {
		return nil, f.err
	}
	return f.finish(f.next(ctx))
}

func (f *Filter) next(ctx context.Context) (*types.Chunk, error) {
	for {
		c, err := nextVisible(ctx, f.in)
		if err != nil || c == nil {
			return nil, err
		}
		v, err := f.cond.Eval(&f.ec.Eval, c)
		if err != nil {
			return nil, err
		}
		vis := make([]bool, c.Len())
		kept := false
		for i := range vis {
			vis[i] = c.Visible(i) && isTrue(v, i)
			kept = kept || vis[i]
		}
		if kept {
			c.Vis = vis
			return c, nil
		}
	}
}

// Close implements Operator.
func (f *Filter) Close() {
	f.done = true
	f.in.Close()
}
