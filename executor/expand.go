package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Expand emits each input row once per grouping set (planner.Expand):
// the row with the key columns the set leaves out NULL, then the set's
// number. Output chunks hold at most types.ChunkCap rows.
type Expand struct {
	endState
	in   Operator
	plan *planner.Expand
	ts   []types.T
	// drop[s][c]: set s leaves input column c out.
	drop [][]bool

	cur *types.Chunk // input chunk being expanded
	row int          // next row of cur
	set int          // next set of row
	buf types.Row
}

var _ Operator = (*Expand)(nil)

// NewExpand returns an Expand of in for p.
func NewExpand(in Operator, p *planner.Expand) *Expand {
	return &Expand{in: in, plan: p, ts: p.Out.Types(), drop: ExpandDrops(p.Input.Schema(), p.Keys, p.Sets)}
}

// ExpandDrops returns, per grouping set, which columns of a row of in it
// sets to NULL: the key columns it does not group by.
func ExpandDrops(in types.Schema, keys []int, sets [][]int) [][]bool {
	out := make([][]bool, len(sets))
	for s, set := range sets {
		out[s] = make([]bool, len(in))
		for _, k := range keys {
			out[s][k] = true
		}
		for _, p := range set {
			out[s][keys[p]] = false
		}
	}
	return out
}

// ExpandRow writes into buf (the input's width plus one) copy s of row.
func ExpandRow(buf, row types.Row, drop []bool, s int) {
	for c, d := range row {
		if drop[c] {
			d = types.NullDatum
		}
		buf[c] = d
	}
	buf[len(buf)-1] = types.DInt(int64(s))
}

// Next implements Operator.
func (e *Expand) Next(ctx context.Context) (*types.Chunk, error) {
	if e.done {
		return nil, e.err
	}
	return e.finish(e.next(ctx))
}

func (e *Expand) next(ctx context.Context) (*types.Chunk, error) {
	out := types.NewChunk(e.ts, types.ChunkCap)
	for out.Len() < types.ChunkCap {
		if e.cur == nil || e.row >= e.cur.Len() {
			if out.Len() > 0 {
				break
			}
			c, err := nextVisible(ctx, e.in)
			if err != nil || c == nil {
				return nil, err
			}
			e.cur, e.row, e.set = c, 0, 0
			continue
		}
		if !e.cur.Visible(e.row) {
			e.row++
			continue
		}
		if e.buf == nil {
			e.buf = make(types.Row, len(e.ts))
		}
		ExpandRow(e.buf, e.cur.Row(e.row), e.drop[e.set], e.set)
		out.AppendRow(types.OpInsert, e.buf)
		if e.set++; e.set == len(e.drop) {
			e.row, e.set = e.row+1, 0
		}
	}
	return out, nil
}

// Close implements Operator.
func (e *Expand) Close() {
	e.done = true
	e.in.Close()
}
