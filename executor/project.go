package executor

import (
	"context"

	"github.com/weirdb/weir/types"
)

// Project computes one output column per expression over each input
// chunk, keeping the input's visibility map.
type Project struct {
	endState
	in    Operator
	exprs []Evaluator
	ec    *ExecCtx
}

var _ Operator = (*Project)(nil)

// NewProject returns a Project of in computing exprs.
func NewProject(in Operator, exprs []Evaluator, ec *ExecCtx) *Project {
	return &Project{in: in, exprs: exprs, ec: ec}
}

// Next implements Operator.
func (p *Project) Next(ctx context.Context) (*types.Chunk, error) {
	if p.done {
		return nil, p.err
	}
	return p.finish(p.next(ctx))
}

func (p *Project) next(ctx context.Context) (*types.Chunk, error) {
	c, err := nextVisible(ctx, p.in)
	if err != nil || c == nil {
		return nil, err
	}
	vecs, err := evalAll(p.ec, p.exprs, c)
	if err != nil {
		return nil, err
	}
	out := types.NewChunkFromVecs(vecs, c.Len())
	out.Vis = c.Vis
	return out, nil
}

// Close implements Operator.
func (p *Project) Close() {
	p.done = true
	p.in.Close()
}
