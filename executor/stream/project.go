package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Project computes one output column per expression over each row.
//
//   - Chunk: every expression is evaluated over the whole chunk; the
//     output keeps the input's ops (a retraction stays a retraction) and
//     visibility. A row whose expression fails gets NULL and the error is
//     recorded (ActorContext.Errors); the job goes on.
//   - Watermark: forwarded on the first output column that is a plain
//     reference to the watermark's column; dropped when no output column
//     carries it.
//   - Barrier: forwarded (Project has no state).
type Project struct {
	actx  *ActorContext
	in    Operator
	exprs []*exprEval
	// wmCol[c] is the output column carrying input column c unchanged.
	wmCol map[int]int
}

var _ Operator = (*Project)(nil)

// NewProject returns a Project of in computing n.Exprs.
func NewProject(actx *ActorContext, in Operator, n *planner.StreamProject) (*Project, error) {
	p := &Project{actx: actx, in: in, wmCol: map[int]int{}}
	for j, e := range n.Exprs {
		ev, err := executor.Compile(e)
		if err != nil {
			return nil, err
		}
		p.exprs = append(p.exprs, &exprEval{ev: ev, t: e.Type(), ec: actx.Eval, op: "Project"})
		if cr, ok := e.(*planner.ColRef); ok {
			if _, seen := p.wmCol[cr.Idx]; !seen {
				p.wmCol[cr.Idx] = j
			}
		}
	}
	return p, nil
}

// Next implements Operator.
func (p *Project) Next(ctx context.Context) (types.Message, error) {
	for {
		msg, err := p.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			vecs := make([]*types.Vec, len(p.exprs))
			for j, e := range p.exprs {
				if vecs[j], err = e.eval(p.actx, m); err != nil {
					return nil, err
				}
			}
			out := types.NewChunkFromVecs(vecs, m.Len())
			out.Ops, out.Vis = m.Ops, m.Vis
			return out, nil
		case types.Watermark:
			if j, ok := p.wmCol[m.Col]; ok {
				m.Col = j
				return m, nil
			}
		default:
			return msg, nil
		}
	}
}

// Close implements Operator.
func (p *Project) Close() { p.in.Close() }
