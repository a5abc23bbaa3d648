package stream

import (
	"context"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// ProjectSet runs the set-returning functions of a select list
// (planner.StreamProjectSet): each visible row is emitted once per step
// of its calls, run in lockstep, with the calls' values (NULL for a call
// that has ended) and the step's ordinal, until every call has ended.
//
//   - Chunk: each output row keeps its input row's op, so a delete
//     retracts exactly the rows its insert produced (the calls are
//     deterministic, their arguments the row's); an update pair becomes
//     deletes of the old row's rows and inserts of the new row's, whose
//     counts may differ. An error of a call (a zero step) is recorded
//     (ActorContext.Errors) and the row yields nothing, on insert and
//     delete alike.
//   - Watermark and Barrier: forwarded (the input's columns keep their
//     positions; ProjectSet has no state).
type ProjectSet struct {
	actx  *ActorContext
	in    Operator
	ts    []types.T
	args  [][]executor.Evaluator
	argTs [][]types.T
	fns   []string
	ectx  executor.EvalCtx
}

var _ Operator = (*ProjectSet)(nil)

// NewProjectSet returns a ProjectSet of in for n.
func NewProjectSet(actx *ActorContext, in Operator, n *planner.StreamProjectSet) (*ProjectSet, error) {
	p := &ProjectSet{actx: actx, in: in, ts: n.Out.Types()}
	if actx.Eval != nil {
		p.ectx = *actx.Eval
	}
	for _, c := range n.Calls {
		var evs []executor.Evaluator
		for _, a := range c.Args {
			ev, err := executor.Compile(a)
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
		}
		p.args = append(p.args, evs)
		var ts []types.T
		for _, a := range c.Args {
			ts = append(ts, a.Type())
		}
		p.argTs = append(p.argTs, ts)
		p.fns = append(p.fns, c.Fn)
	}
	return p, nil
}

// Next implements Operator.
func (p *ProjectSet) Next(ctx context.Context) (types.Message, error) {
	for {
		msg, err := p.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		c, ok := msg.(*types.Chunk)
		if !ok {
			return msg, nil
		}
		if out, err := p.chunk(c); err != nil || out != nil {
			return out, err
		}
	}
}

// chunk returns the rows of c's rows, or nil for none.
func (p *ProjectSet) chunk(c *types.Chunk) (*types.Chunk, error) {
	argD := make([][][]types.Datum, len(p.args))
	for i, evs := range p.args {
		argD[i] = make([][]types.Datum, c.Len())
		var vecs []*types.Vec
		for k, ev := range evs {
			v, err := evalIsolated(p.actx, "ProjectSet", &p.ectx, ev, p.argTs[i][k], c)
			if err != nil {
				return nil, err
			}
			vecs = append(vecs, v)
		}
		for r := 0; r < c.Len(); r++ {
			a := make([]types.Datum, len(vecs))
			for k, v := range vecs {
				a[k] = v.Get(r)
			}
			argD[i][r] = a
		}
	}
	out := types.NewChunk(p.ts, c.Len())
	buf := make(types.Row, len(p.ts))
	gens := make([]func() (types.Datum, bool), len(p.fns))
	for r := 0; r < c.Len(); r++ {
		if !c.Visible(r) {
			continue
		}
		op := c.Op(r)
		switch op {
		case types.OpUpdateDelete:
			op = types.OpDelete
		case types.OpUpdateInsert:
			op = types.OpInsert
		}
		row := c.Row(r)
		failed := false
		for i, fn := range p.fns {
			g, err := executor.StartSRF(fn, argD[i][r], p.argTs[i], time.UTC)
			if err != nil {
				recordError(p.actx, "ProjectSet", err)
				failed = true
				break
			}
			gens[i] = g
		}
		if failed {
			continue
		}
		copy(buf, row)
		for ord := int64(1); ; ord++ {
			any := false
			for i, g := range gens {
				d, ok := g()
				if !ok {
					d = types.NullDatum
				}
				any = any || ok
				buf[len(row)+i] = d
			}
			if !any {
				break
			}
			buf[len(buf)-1] = types.DInt(ord)
			out.AppendRow(op, buf)
		}
	}
	if out.Len() == 0 {
		return nil, nil
	}
	return out, nil
}

// Close implements Operator.
func (p *ProjectSet) Close() { p.in.Close() }
