package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// LateralJoin joins each left row with the rows its right side (a LATERAL
// subquery, Join.Lateral) yields for it: the right plan is built and run
// once per left row with that row pushed on EvalCtx.Outer, where the
// right side's OuterRefs of depth 1 read it, and the pair is then joined
// as a nested-loop join of Kind (inner, or left with NULL-extension).
type LateralJoin struct {
	left    Operator
	p       *planner.Join
	ec      *ExecCtx
	lts     []types.T
	pending []types.Row
	cur     Operator
	done    bool
}

// NewLateralJoin returns the lateral join of left with p.Right.
func NewLateralJoin(left Operator, p *planner.Join, ec *ExecCtx) *LateralJoin {
	return &LateralJoin{left: left, p: p, ec: ec, lts: p.Left.Schema().Types()}
}

// Next implements Operator.
func (j *LateralJoin) Next(ctx context.Context) (*types.Chunk, error) {
	for !j.done {
		if j.cur != nil {
			c, err := j.cur.Next(ctx)
			if err != nil {
				return nil, err
			}
			if c != nil {
				return c, nil
			}
			j.cur.Close()
			j.cur = nil
		}
		if len(j.pending) == 0 {
			c, err := nextVisible(ctx, j.left)
			if err != nil {
				return nil, err
			}
			if c == nil {
				j.done = true
				break
			}
			for i := 0; i < c.Len(); i++ {
				if c.Visible(i) {
					j.pending = append(j.pending, detachRow(c, i))
				}
			}
			continue
		}
		row := j.pending[0]
		j.pending = j.pending[1:]
		ec := *j.ec
		ec.Eval.Outer = append(append([]types.Row(nil), j.ec.Eval.Outer...), row)
		ec.Eval.Exec = &ec
		right, err := Build(j.p.Right, &ec)
		if err != nil {
			return nil, err
		}
		one := &bufferOp{buf: rowBuffer{ts: j.lts, rows: []types.Row{row}}}
		q := *j.p
		q.Lateral = false
		if j.cur, err = NewNestedLoopJoin(one, right, &q, &ec); err != nil {
			right.Close()
			return nil, err
		}
	}
	return nil, nil
}

// Close implements Operator.
func (j *LateralJoin) Close() {
	j.done = true
	if j.cur != nil {
		j.cur.Close()
		j.cur = nil
	}
	j.left.Close()
}

// bufferOp yields buffered rows.
type bufferOp struct{ buf rowBuffer }

func (b *bufferOp) Next(context.Context) (*types.Chunk, error) { return b.buf.next(), nil }
func (b *bufferOp) Close()                                     {}
