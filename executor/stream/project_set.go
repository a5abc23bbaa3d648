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
//     delete alike. The output goes in chunks of at most types.ChunkCap
//     rows, the calls resuming where the last chunk stopped: one row
//     that yields millions (generate_series(1, n)) costs a chunk of
//     memory at a time, and the operators after it (an aggregation
//     flushing early) can bound theirs.
//   - Outer (LEFT JOIN LATERAL f(...) ON true): a row whose calls give
//     no rows is emitted once, the calls' columns NULL, ordinal 1, with
//     its op, so its delete retracts it like any other.
//   - Watermark and Barrier: forwarded (the input's columns keep their
//     positions; ProjectSet has no state) once the rows of the chunks
//     before them are out.
type ProjectSet struct {
	actx  *ActorContext
	in    Operator
	ts    []types.T
	args  [][]executor.Evaluator
	argTs [][]types.T
	fns   []string
	ectx  executor.EvalCtx
	outer bool

	// The input chunk being expanded (nil when none): its calls'
	// arguments per row, the next row to start (r), and, while a row's
	// calls run (gens set), its op and the next ordinal.
	cur  *types.Chunk
	argD [][][]types.Datum
	r    int
	gens []func() (types.Datum, bool)
	op   types.Op
	ord  int64
	buf  types.Row
}

var _ Operator = (*ProjectSet)(nil)

// NewProjectSet returns a ProjectSet of in for n.
func NewProjectSet(actx *ActorContext, in Operator, n *planner.StreamProjectSet) (*ProjectSet, error) {
	p := &ProjectSet{actx: actx, in: in, ts: n.Out.Types(), outer: n.Outer}
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
	p.buf = make(types.Row, len(p.ts))
	return p, nil
}

// Next implements Operator.
func (p *ProjectSet) Next(ctx context.Context) (types.Message, error) {
	for {
		if p.cur != nil {
			if out := p.fill(); out != nil {
				return out, nil
			}
			continue
		}
		msg, err := p.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		c, ok := msg.(*types.Chunk)
		if !ok {
			return msg, nil
		}
		if err := p.start(c); err != nil {
			return nil, err
		}
	}
}

// start evaluates the calls' arguments over c and makes it the chunk
// being expanded.
func (p *ProjectSet) start(c *types.Chunk) error {
	argD := make([][][]types.Datum, len(p.args))
	for i, evs := range p.args {
		argD[i] = make([][]types.Datum, c.Len())
		var vecs []*types.Vec
		for k, ev := range evs {
			v, err := evalIsolated(p.actx, "ProjectSet", &p.ectx, ev, p.argTs[i][k], c)
			if err != nil {
				return err
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
	p.cur, p.argD, p.r, p.gens = c, argD, 0, nil
	return nil
}

// fill returns the next chunk of at most types.ChunkCap rows of the
// chunk being expanded, or nil when it yields no more (and is done).
func (p *ProjectSet) fill() *types.Chunk {
	c := p.cur
	var out *types.Chunk
	for out == nil || out.Len() < types.ChunkCap {
		if p.gens == nil {
			if !p.next() {
				p.cur, p.argD = nil, nil
				break
			}
		}
		any := false
		for i, g := range p.gens {
			d, ok := g()
			if !ok {
				d = types.NullDatum
			}
			any = any || ok
			p.buf[len(c.Cols)+i] = d
		}
		if !any && !(p.outer && p.ord == 1) {
			p.gens = nil
			continue
		}
		if !any {
			// An outer ProjectSet keeps the row its calls gave none
			// for, once, the calls' columns NULL.
			p.gens = nil
		}
		p.buf[len(p.buf)-1] = types.DInt(p.ord)
		p.ord++
		if out == nil {
			out = types.NewChunk(p.ts, min(types.ChunkCap, 64))
		}
		out.AppendRow(p.op, p.buf)
	}
	if out == nil || out.Len() == 0 {
		return nil
	}
	return out
}

// next starts the calls of the chunk's next visible row whose calls
// start without error, and reports false when there is none.
func (p *ProjectSet) next() bool {
	c := p.cur
	for ; p.r < c.Len(); p.r++ {
		r := p.r
		if !c.Visible(r) {
			continue
		}
		gens := make([]func() (types.Datum, bool), len(p.fns))
		failed := false
		for i, fn := range p.fns {
			g, err := executor.StartSRF(fn, p.argD[i][r], p.argTs[i], time.UTC)
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
		op := c.Op(r)
		switch op {
		case types.OpUpdateDelete:
			op = types.OpDelete
		case types.OpUpdateInsert:
			op = types.OpInsert
		}
		copy(p.buf, c.Row(r))
		p.gens, p.op, p.ord = gens, op, 1
		p.r++
		return true
	}
	return false
}

// Close implements Operator.
func (p *ProjectSet) Close() { p.in.Close() }
