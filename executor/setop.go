package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// SetOp computes UNION, INTERSECT and EXCEPT with Postgres's semantics,
// NULLs equal (Postgres docs §7.4):
//
//   - UNION ALL: every left row, then every right row (streamed).
//   - UNION: each distinct row of either input once.
//   - INTERSECT [ALL]: a row appearing l times left and r times right
//     appears once if l, r > 0 (ALL: min(l, r) times).
//   - EXCEPT [ALL]: once if l > 0 and r = 0 (ALL: max(l - r, 0) times).
//
// The non-streaming forms count rows in a hash table and emit rows in the
// order of their first appearance. Output vectors have the Out types.
type SetOp struct {
	endState
	plan        *planner.SetOp
	left, right Operator
	ts          []types.T
	leftDone    bool
	seen        *rowTable // UNION
	buf         *rowBuffer
}

var _ Operator = (*SetOp)(nil)

// NewSetOp returns a SetOp of left and right for p.
func NewSetOp(left, right Operator, p *planner.SetOp) *SetOp {
	ts := p.Out.Types()
	s := &SetOp{plan: p, left: left, right: right, ts: ts}
	if p.Kind == planner.Union && !p.All {
		s.seen = newRowTable(ts)
	}
	return s
}

// Next implements Operator.
func (s *SetOp) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	return s.finish(s.next(ctx))
}

func (s *SetOp) next(ctx context.Context) (*types.Chunk, error) {
	if s.plan.Kind != planner.Union {
		if s.buf == nil {
			rows, err := s.counted(ctx)
			if err != nil {
				return nil, err
			}
			s.buf = &rowBuffer{ts: s.ts, rows: rows}
		}
		return s.buf.next(), nil
	}
	for {
		in := s.left
		if s.leftDone {
			in = s.right
		}
		c, err := nextVisible(ctx, in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if s.leftDone {
				return nil, nil
			}
			s.leftDone = true
			continue
		}
		out := types.NewChunk(s.ts, c.Len())
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r := c.Row(i)
			if s.seen != nil {
				if _, added := s.seen.findOrInsert(r); !added {
					continue
				}
			}
			out.AppendRow(types.OpInsert, r)
		}
		if out.Len() > 0 {
			return out, nil
		}
	}
}

// counted runs INTERSECT and EXCEPT: it counts each distinct row's
// occurrences on both sides, then derives the output multiplicities.
func (s *SetOp) counted(ctx context.Context) ([]types.Row, error) {
	t := newRowTable(s.ts)
	var nl, nr []int64
	for side, in := range []Operator{s.left, s.right} {
		for {
			c, err := nextVisible(ctx, in)
			if err != nil {
				return nil, err
			}
			if c == nil {
				break
			}
			for i := 0; i < c.Len(); i++ {
				if !c.Visible(i) {
					continue
				}
				r := c.Row(i)
				if side == 1 {
					// Rows only on the right never appear in the output.
					if j := t.find(hashRow(r, s.ts), r); j >= 0 {
						nr[j]++
					}
					continue
				}
				j, added := t.findOrInsert(r)
				if added {
					nl, nr = append(nl, 0), append(nr, 0)
				}
				nl[j]++
			}
		}
		in.Close()
	}
	var rows []types.Row
	for j, r := range t.rows {
		var n int64
		switch {
		case s.plan.Kind == planner.Intersect && s.plan.All:
			n = min(nl[j], nr[j])
		case s.plan.Kind == planner.Intersect:
			if nr[j] > 0 {
				n = 1
			}
		case s.plan.All:
			n = max(nl[j]-nr[j], 0)
		case nr[j] == 0:
			n = 1
		}
		for ; n > 0; n-- {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// Close implements Operator.
func (s *SetOp) Close() {
	s.done = true
	s.seen, s.buf = nil, nil
	s.left.Close()
	s.right.Close()
}
