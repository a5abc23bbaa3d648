package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Values emits literal rows: each row's expressions are evaluated once
// (they have no column references; parameters and functions are
// allowed), in chunks of up to ChunkCap rows. SELECT without FROM is one
// row of zero columns. When the plan has a source of more rows
// (planner.Values.More), their batches follow the plan's own rows, each
// let go once emitted.
type Values struct {
	endState
	plan *planner.Values
	ec   *ExecCtx
	rows [][]planner.Expr
	more planner.RowSource
	pos  int
	ts   []types.T
}

var _ Operator = (*Values)(nil)

// NewValues returns a Values operator for p.
func NewValues(p *planner.Values, ec *ExecCtx) *Values {
	v := &Values{plan: p, ec: ec, rows: p.Rows, ts: p.Out.Types()}
	if p.More != nil {
		v.more = p.More()
	}
	return v
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
	for v.pos >= len(v.rows) {
		if v.more == nil {
			return nil, nil
		}
		rows, err := v.more.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rows == nil {
			v.more = nil
		}
		v.rows, v.pos = rows, 0
	}
	n := v.ec.chunkRows()
	c := types.NewChunk(v.ts, min(n, len(v.rows)-v.pos))
	one := oneRowChunk()
	for ; v.pos < len(v.rows) && c.Len() < n; v.pos++ {
		exprs := v.rows[v.pos]
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
