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
//     reference to the watermark's column, and turned into a watermark on
//     every other output column the plan says carries one
//     (StreamBase.Watermarks: an expression that never decreases as the
//     column grows, such as date_bin over it): the expression evaluated
//     at the watermark's value, unless that value or the result is
//     infinite (no derived watermark then). Dropped when no output
//     column carries it.
//   - Barrier: forwarded (Project has no state). A Project computing
//     proctime() evaluates it, until the next barrier, as the barrier's
//     time (types.EpochMillis of its epoch): the processing time of the
//     rows of that epoch, read from no clock, so every Project of the
//     epoch agrees on it. A replay after a recovery processes the rows
//     again, in later epochs, and gives them those epochs' times.
type Project struct {
	actx  *ActorContext
	in    Operator
	exprs []*exprEval
	// wmCol[c] is the output column carrying input column c unchanged.
	wmCol map[int]int
	// derived[c] are the output columns whose watermark is computed from
	// one on input column c; inTs are the input's column types.
	derived map[int][]int
	inTs    []types.T
	out     []types.Message
	// proc is the expressions' own context when they call proctime():
	// actx.Eval with ProcTime set at each barrier; nil otherwise.
	proc *executor.EvalCtx
}

var _ Operator = (*Project)(nil)

// NewProject returns a Project of in computing n.Exprs.
func NewProject(actx *ActorContext, in Operator, n *planner.StreamProject) (*Project, error) {
	p := &Project{actx: actx, in: in, wmCol: map[int]int{}}
	ec := actx.Eval
	for _, e := range n.Exprs {
		if planner.HasProcTime(e) {
			c := *actx.Eval
			p.proc, ec = &c, &c
			break
		}
	}
	for j, e := range n.Exprs {
		ev, err := executor.Compile(e)
		if err != nil {
			return nil, err
		}
		p.exprs = append(p.exprs, &exprEval{ev: ev, t: e.Type(), ec: ec, op: "Project"})
		if cr, ok := e.(*planner.ColRef); ok {
			if _, seen := p.wmCol[cr.Idx]; !seen {
				p.wmCol[cr.Idx] = j
			}
		}
	}
	if n.Input == nil {
		return p, nil
	}
	ib := n.Input.Base()
	p.inTs = ib.Out.Types()
	for _, j := range n.Watermarks {
		if j < 0 || j >= len(n.Exprs) {
			continue
		}
		c, ok := planner.WatermarkSource(n.Exprs[j], ib.Watermarks)
		if !ok {
			continue
		}
		if w, plain := p.wmCol[c]; plain && w == j {
			continue
		}
		if p.derived == nil {
			p.derived = map[int][]int{}
		}
		p.derived[c] = append(p.derived[c], j)
	}
	return p, nil
}

// Next implements Operator.
func (p *Project) Next(ctx context.Context) (types.Message, error) {
	for {
		if m, ok := p.pending(); ok {
			return m, nil
		}
		msg, err := p.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if m, ok, err := p.apply(msg); err != nil || ok {
			return m, err
		}
	}
}

// poll implements poller over the input's poll.
func (p *Project) poll(ctx context.Context) (types.Message, bool, error) {
	if m, ok := p.pending(); ok {
		return m, true, nil
	}
	msg, ok, err := pollOf(ctx, p.in)
	if err != nil || !ok {
		return nil, false, err
	}
	if m, ok, err := p.apply(msg); err != nil || ok {
		return m, ok, err
	}
	m, ok := p.pending()
	return m, ok, nil
}

// pending returns the next watermark waiting to go out.
func (p *Project) pending() (types.Message, bool) {
	if len(p.out) == 0 {
		return nil, false
	}
	m := p.out[0]
	p.out = p.out[1:]
	return m, true
}

// apply handles one input message: the message to return, or false when
// it gave none (the watermarks it gave wait in p.out).
func (p *Project) apply(msg types.Message) (types.Message, bool, error) {
	switch m := msg.(type) {
	case *types.Chunk:
		vecs := make([]*types.Vec, len(p.exprs))
		for j, e := range p.exprs {
			var err error
			if vecs[j], err = e.eval(p.actx, m); err != nil {
				return nil, false, err
			}
		}
		out := types.NewChunkFromVecs(vecs, m.Len())
		out.Ops, out.Vis = m.Ops, m.Vis
		return out, true, nil
	case types.Watermark:
		if j, ok := p.wmCol[m.Col]; ok {
			w := m
			w.Col = j
			p.out = append(p.out, w)
		}
		for _, j := range p.derived[m.Col] {
			if w, ok := p.derive(m, j); ok {
				p.out = append(p.out, w)
			}
		}
		return nil, false, nil
	case types.Barrier:
		if p.proc != nil {
			p.proc.ProcTime = types.EpochMillis(m.Epoch.Curr) * 1000
		}
		return msg, true, nil
	default:
		return msg, true, nil
	}
}

// derive returns the watermark on output column j implied by w: its
// expression evaluated over a row holding w's value in w's column (the
// expression reads no other column). A value that fails to evaluate or
// is NULL gives none, and so does an infinite one, in or out: ts - 1
// second of infinity is infinity, which would put every later row
// behind the derived watermark (sources and tables never generate one,
// but a watermark is a promise nothing may break).
func (p *Project) derive(w types.Watermark, j int) (types.Watermark, bool) {
	if types.IsInfinite(w.Val, w.T) {
		return types.Watermark{}, false
	}
	row := make(types.Row, len(p.inTs))
	for i := range row {
		row[i] = types.NullDatum
	}
	row[w.Col] = w.Val
	c := types.NewChunk(p.inTs, 1)
	c.AppendRow(types.OpInsert, row)
	e := p.exprs[j]
	v, err := e.ev.Eval(e.ec, c)
	if err != nil || v.Len() != 1 || v.Nulls[0] || types.IsInfinite(v.Get(0), e.t) {
		return types.Watermark{}, false
	}
	return types.Watermark{Col: j, T: e.t, Val: v.Get(0)}, true
}

// Close implements Operator.
func (p *Project) Close() { p.in.Close() }
