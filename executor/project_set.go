package executor

import (
	"context"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// ProjectSet runs the set-returning functions of a select list
// (planner.ProjectSet): for each input row the calls run in lockstep,
// and the row is emitted once per step with the calls' values (NULL for
// a call that has ended) and the step's ordinal, until every call has
// ended. Output chunks hold at most types.ChunkCap rows, so a long
// series needs no more memory than a chunk.
type ProjectSet struct {
	endState
	in    Operator
	ec    *ExecCtx
	args  [][]Evaluator
	argTs [][]types.T
	fns   []string
	ts    []types.T

	cur  *types.Chunk      // input chunk being expanded
	argD [][][]types.Datum // per call, per row of cur, the arguments
	row  int               // row of cur being expanded (-1: none started)
	gens []func() (types.Datum, bool)
	ord  int64
	buf  types.Row
}

var _ Operator = (*ProjectSet)(nil)

// NewProjectSet returns a ProjectSet of in for p.
func NewProjectSet(in Operator, p *planner.ProjectSet, ec *ExecCtx) (*ProjectSet, error) {
	s := &ProjectSet{in: in, ec: ec, ts: p.Out.Types(), buf: make(types.Row, len(p.Out))}
	for _, c := range p.Calls {
		evs, err := compileAll(c.Args)
		if err != nil {
			return nil, err
		}
		s.args = append(s.args, evs)
		s.argTs = append(s.argTs, exprTypes(c.Args))
		s.fns = append(s.fns, c.Fn)
	}
	return s, nil
}

// Next implements Operator.
func (s *ProjectSet) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	return s.finish(s.next(ctx))
}

func (s *ProjectSet) next(ctx context.Context) (*types.Chunk, error) {
	n := s.ec.chunkRows()
	out := types.NewChunk(s.ts, n)
	for out.Len() < n {
		if s.gens == nil {
			// Start the next visible row of the chunk, or read a chunk.
			if s.cur != nil {
				s.row++
				for s.row < s.cur.Len() && !s.cur.Visible(s.row) {
					s.row++
				}
			}
			if s.cur == nil || s.row >= s.cur.Len() {
				if out.Len() > 0 {
					break
				}
				c, err := nextVisible(ctx, s.in)
				if err != nil || c == nil {
					return nil, err
				}
				s.cur, s.row = c, -1
				// Evaluators may reuse their vectors: keep the values.
				s.argD = make([][][]types.Datum, len(s.args))
				for i, evs := range s.args {
					vecs, err := evalAll(s.ec, evs, c)
					if err != nil {
						return nil, err
					}
					s.argD[i] = make([][]types.Datum, c.Len())
					for r := range s.argD[i] {
						a := make([]types.Datum, len(vecs))
						for j, v := range vecs {
							a[j] = v.Get(r)
						}
						s.argD[i][r] = a
					}
				}
				continue
			}
			if err := s.start(); err != nil {
				return nil, err
			}
		}
		row := s.cur.Row(s.row)
		copy(s.buf, row)
		any := false
		for i, g := range s.gens {
			d, ok := g()
			if !ok {
				s.gens[i] = noRows
				d = types.NullDatum
			}
			any = any || ok
			s.buf[len(row)+i] = d
		}
		if !any {
			s.gens = nil
			continue
		}
		s.ord++
		s.buf[len(s.buf)-1] = types.DInt(s.ord)
		out.AppendRow(types.OpInsert, s.buf)
	}
	if out.Len() == 0 {
		return nil, nil
	}
	return out, nil
}

// start starts the calls over row s.row of s.cur.
func (s *ProjectSet) start() error {
	loc := time.UTC
	if s.ec.Eval.Location != nil {
		loc = s.ec.Eval.Location
	}
	s.gens = make([]func() (types.Datum, bool), len(s.fns))
	s.ord = 0
	for i, fn := range s.fns {
		g, err := StartSRF(fn, s.argD[i][s.row], s.argTs[i], loc, s.ec.Eval.Now)
		if err != nil {
			return err
		}
		s.gens[i] = g
	}
	return nil
}

// Close implements Operator.
func (s *ProjectSet) Close() {
	s.done = true
	s.in.Close()
}
