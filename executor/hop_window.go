package executor

import (
	"context"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HopWindow emits each input row once per hopping window holding its
// time (planner.HopWindow): the row's columns, then window_start and
// window_end, windows in ascending order. Rows whose time is NULL are
// dropped; a time whose windows leave the timestamp range (infinity, for
// one) fails the query with 22008. Output chunks hold at most
// types.ChunkCap rows however many windows a row has, so a small slide
// over a large size needs no more memory than a chunk.
type HopWindow struct {
	endState
	in  Operator
	hop functions.Hop
	col int
	tt  types.T
	ts  []types.T

	cur   *types.Chunk // input chunk being expanded
	row   int          // next row of cur
	k     int          // next window of row
	first int64        // first window start of row (valid when k > 0)
	buf   types.Row
}

var _ Operator = (*HopWindow)(nil)

// NewHopWindow returns a HopWindow of in for p.
func NewHopWindow(in Operator, p *planner.HopWindow) (*HopWindow, error) {
	hop, err := functions.NewHop(p.Slide, p.Size, p.Offset)
	if err != nil {
		return nil, err
	}
	if p.Emit != nil {
		// Only the column pruning of stream plans sets it.
		return nil, pgerr.New(pgerr.InternalError, "batch HopWindow with a pruned output")
	}
	return &HopWindow{in: in, hop: hop, col: p.TimeCol, tt: p.Input.Schema()[p.TimeCol].T, ts: p.Out.Types()}, nil
}

// Next implements Operator.
func (h *HopWindow) Next(ctx context.Context) (*types.Chunk, error) {
	if h.done {
		return nil, h.err
	}
	return h.finish(h.next(ctx))
}

func (h *HopWindow) next(ctx context.Context) (*types.Chunk, error) {
	out := types.NewChunk(h.ts, types.ChunkCap)
	for out.Len() < types.ChunkCap {
		if h.cur == nil || h.row >= h.cur.Len() {
			if out.Len() > 0 {
				// Hand out what is ready before blocking on the input.
				break
			}
			c, err := nextVisible(ctx, h.in)
			if err != nil || c == nil {
				return nil, err
			}
			h.cur, h.row, h.k = c, 0, 0
			continue
		}
		if h.k == 0 {
			if !h.cur.Visible(h.row) {
				h.row++
				continue
			}
			d := h.cur.Cols[h.col].Get(h.row)
			if d.Null {
				h.row++
				continue
			}
			t, err := functions.WindowTime(d, h.tt)
			if err != nil {
				return nil, err
			}
			if h.first, err = h.hop.First(t); err != nil {
				return nil, err
			}
			h.buf = append(h.cur.Row(h.row), types.NullDatum, types.NullDatum)
		}
		start := h.first + int64(h.k)*h.hop.Slide
		n := len(h.buf)
		h.buf[n-2], h.buf[n-1] = types.DInt(start), types.DInt(start+h.hop.Size)
		out.AppendRow(types.OpInsert, h.buf)
		if h.k++; h.k == h.hop.N {
			h.row, h.k = h.row+1, 0
		}
	}
	return out, nil
}

// Close implements Operator.
func (h *HopWindow) Close() {
	h.done = true
	h.in.Close()
}
