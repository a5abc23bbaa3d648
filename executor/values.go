package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Values emits literal rows: each row's expressions are evaluated once
// (they have no column references; parameters and functions are
// allowed), in chunks of up to ChunkCap rows. SELECT without FROM is one
// row of zero columns.
type Values struct {
	endState
	plan *planner.Values
	ec   *ExecCtx
	pos  int
	ts   []types.T
}

var _ Operator = (*Values)(nil)

// NewValues returns a Values operator for p.
func NewValues(p *planner.Values, ec *ExecCtx) *Values {
	return &Values{plan: p, ec: ec, ts: p.Out.Types()}
}

// Next implements Operator.
func (v *Values) Next(ctx context.Context) (*types.Chunk, error) {
	if v.done {
		return nil, v.err
	}
	return v.finish(v.next(ctx))
}

func (v *Values) next(ctx context.Context) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if v.pos >= len(v.plan.Rows) {
		return nil, nil
	}
	n := v.ec.chunkRows()
	c := types.NewChunk(v.ts, min(n, len(v.plan.Rows)-v.pos))
	one := oneRowChunk()
	for ; v.pos < len(v.plan.Rows) && c.Len() < n; v.pos++ {
		exprs := v.plan.Rows[v.pos]
		for j, e := range exprs {
			ev, err := Compile(e)
			if err != nil {
				return nil, err
			}
			vec, err := ev.Eval(&v.ec.Eval, one)
			if err != nil {
				return nil, err
			}
			c.Cols[j].Append(vec.Get(0))
		}
		c.SetLen(c.Len() + 1)
	}
	return c, nil
}

// Close implements Operator.
func (v *Values) Close() { v.done = true }
