package stream

import (
	"context"
	"slices"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Expand emits each input row once per grouping set
// (planner.StreamExpand): the row with the key columns the set leaves
// out NULL, then the set's number.
//
//   - Chunk: every visible row is emitted once per set with its op, so a
//     delete retracts exactly the rows its insert produced; an update
//     pair (U-, U+) becomes an update pair per set (the set number is in
//     the stream key, so the copies of different sets are different
//     rows). A U- or U+ whose other half is not visible is emitted as a
//     delete or an insert. Output chunks hold about types.ChunkCap rows
//     and never split a pair.
//   - Watermark: forwarded, except on a key column (its copies are NULL
//     in some sets).
//   - Barrier: forwarded (Expand has no state).
type Expand struct {
	in   Operator
	ts   []types.T
	keys []int
	drop [][]bool

	cur *types.Chunk // input chunk being expanded
	row int          // next row of cur
	set int          // next set of row
	buf types.Row
}

var _ Operator = (*Expand)(nil)

// NewExpand returns an Expand of in for n.
func NewExpand(in Operator, n *planner.StreamExpand) *Expand {
	return &Expand{in: in, ts: n.Out.Types(), keys: n.Keys,
		drop: executor.ExpandDrops(n.Input.Base().Out, n.Keys, n.Sets), buf: make(types.Row, len(n.Out))}
}

// Next implements Operator.
func (e *Expand) Next(ctx context.Context) (types.Message, error) {
	for {
		if out := e.expand(); out != nil {
			return out, nil
		}
		msg, err := e.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			e.cur, e.row, e.set = m, 0, 0
		case types.Watermark:
			if !slices.Contains(e.keys, m.Col) {
				return m, nil
			}
		default:
			return msg, nil
		}
	}
}

// expand returns the next output chunk of the current input chunk, or
// nil when it is used up.
func (e *Expand) expand() *types.Chunk {
	c := e.cur
	if c == nil {
		return nil
	}
	out := types.NewChunk(e.ts, types.ChunkCap)
	for e.row < c.Len() && out.Len()+2 <= types.ChunkCap {
		if !c.Visible(e.row) {
			e.row++
			continue
		}
		op := c.Op(e.row)
		pair := op == types.OpUpdateDelete && e.row+1 < c.Len() && c.Visible(e.row+1) && c.Op(e.row+1) == types.OpUpdateInsert
		switch {
		case pair:
		case op == types.OpUpdateDelete:
			op = types.OpDelete
		case op == types.OpUpdateInsert:
			op = types.OpInsert
		}
		executor.ExpandRow(e.buf, c.Row(e.row), e.drop[e.set], e.set)
		out.AppendRow(op, e.buf)
		if pair {
			executor.ExpandRow(e.buf, c.Row(e.row+1), e.drop[e.set], e.set)
			out.AppendRow(types.OpUpdateInsert, e.buf)
		}
		if e.set++; e.set == len(e.drop) {
			e.set = 0
			e.row++
			if pair {
				e.row++
			}
		}
	}
	if e.row >= c.Len() {
		e.cur = nil
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// Close implements Operator.
func (e *Expand) Close() { e.in.Close() }
