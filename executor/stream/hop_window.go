package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HopWindow assigns each row to every hopping window holding its time
// (planner.StreamHopWindow): a row becomes N = size/slide rows, its
// columns then window_start and window_end, windows in ascending order.
//
//   - Chunk: every visible row is emitted once per window with its op, so
//     a delete retracts exactly the rows its insert produced. An update
//     pair (U-, U+) becomes N pairs, the k-th window of the old row with
//     the k-th of the new: a pair whose windows start alike stays an
//     update; otherwise, being two different rows of the output (the
//     stream key holds window_start), it becomes a delete and an insert.
//     A row whose time is NULL yields nothing (the other half of its
//     update pair then stands alone as a delete or an insert); a time
//     whose windows leave the timestamp range is recorded as an error
//     (ActorContext.Errors) and treated as NULL. Output chunks hold at
//     most types.ChunkCap rows and never split an update pair.
//   - Watermark: forwarded (the input's columns keep their positions); a
//     watermark on the time column also yields watermarks on
//     window_start and window_end (executor.Hop.Watermarks).
//   - Barrier: forwarded (HopWindow has no state).
type HopWindow struct {
	actx *ActorContext
	in   Operator
	hop  executor.Hop
	col  int     // time column
	tt   types.T // its type
	nIn  int     // number of input columns
	ts   []types.T

	cur  *types.Chunk // input chunk being expanded
	row  int          // next row of cur
	unit []hopRow     // the row or update pair being expanded
	k    int          // next window of unit
	// pending holds the watermarks derived from one input watermark.
	pending []types.Message
}

// hopRow is an input row with room for the window columns, and the start
// of its first window.
type hopRow struct {
	op    types.Op
	vals  types.Row
	first int64
}

var _ Operator = (*HopWindow)(nil)

// NewHopWindow returns a HopWindow of in for n.
func NewHopWindow(actx *ActorContext, in Operator, n *planner.StreamHopWindow) (*HopWindow, error) {
	hop, err := executor.NewHop(n.Slide, n.Size, n.Offset)
	if err != nil {
		return nil, err
	}
	in0 := n.Input.Base().Out
	return &HopWindow{actx: actx, in: in, hop: hop, col: n.TimeCol, tt: in0[n.TimeCol].T, nIn: len(in0), ts: n.Out.Types()}, nil
}

// Next implements Operator.
func (h *HopWindow) Next(ctx context.Context) (types.Message, error) {
	for {
		if out := h.expand(); out != nil {
			return out, nil
		}
		if len(h.pending) > 0 {
			m := h.pending[0]
			h.pending = h.pending[1:]
			return m, nil
		}
		msg, err := h.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			h.cur, h.row, h.unit = m, 0, nil
		case types.Watermark:
			h.pending = append(h.pending, m)
			if m.Col == h.col && !m.Val.Null {
				if t, err := executor.WindowTime(m.Val, h.tt); err == nil {
					if start, end, ok := h.hop.Watermarks(t); ok {
						wt := h.ts[h.nIn]
						h.pending = append(h.pending,
							types.Watermark{Col: h.nIn, T: wt, Val: types.DInt(start)},
							types.Watermark{Col: h.nIn + 1, T: wt, Val: types.DInt(end)})
					}
				}
			}
		default:
			return msg, nil
		}
	}
}

// expand returns the next output chunk of the current input chunk, or
// nil when it is used up.
func (h *HopWindow) expand() *types.Chunk {
	if h.cur == nil {
		return nil
	}
	out := types.NewChunk(h.ts, types.ChunkCap)
	for out.Len()+2 <= types.ChunkCap {
		if h.unit == nil && !h.nextUnit() {
			h.cur = nil
			break
		}
		if len(h.unit) == 2 {
			o, n := h.unit[0], h.unit[1]
			os, ns := h.window(o), h.window(n)
			if os == ns {
				out.AppendRow(types.OpUpdateDelete, o.vals)
				out.AppendRow(types.OpUpdateInsert, n.vals)
			} else {
				out.AppendRow(types.OpDelete, o.vals)
				out.AppendRow(types.OpInsert, n.vals)
			}
		} else {
			h.window(h.unit[0])
			out.AppendRow(h.unit[0].op, h.unit[0].vals)
		}
		if h.k++; h.k == h.hop.N {
			h.unit = nil
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// window fills in r's k-th window and returns its start.
func (h *HopWindow) window(r hopRow) int64 {
	start := r.first + int64(h.k)*h.hop.Slide
	r.vals[h.nIn], r.vals[h.nIn+1] = types.DInt(start), types.DInt(start+h.hop.Size)
	return start
}

// nextUnit loads the next row or update pair of cur that has windows
// into unit; false when cur is used up.
func (h *HopWindow) nextUnit() bool {
	c := h.cur
	for h.row < c.Len() {
		i := h.row
		if !c.Visible(i) {
			h.row++
			continue
		}
		op := c.Op(i)
		var rows []hopRow
		if op == types.OpUpdateDelete && i+1 < c.Len() && c.Visible(i+1) && c.Op(i+1) == types.OpUpdateInsert {
			h.row += 2
			o, oldOK := h.load(i, types.OpUpdateDelete)
			n, newOK := h.load(i+1, types.OpUpdateInsert)
			switch {
			case oldOK && newOK:
				rows = []hopRow{o, n}
			case oldOK:
				o.op = types.OpDelete
				rows = []hopRow{o}
			case newOK:
				n.op = types.OpInsert
				rows = []hopRow{n}
			}
		} else {
			h.row++
			// A lone half of an update pair is a plain delete or insert.
			switch op {
			case types.OpUpdateDelete:
				op = types.OpDelete
			case types.OpUpdateInsert:
				op = types.OpInsert
			}
			if r, ok := h.load(i, op); ok {
				rows = []hopRow{r}
			}
		}
		if rows != nil {
			h.unit, h.k = rows, 0
			return true
		}
	}
	return false
}

// load reads row i of cur; false when its time is NULL or out of range.
func (h *HopWindow) load(i int, op types.Op) (hopRow, bool) {
	d := h.cur.Cols[h.col].Get(i)
	if d.Null {
		return hopRow{}, false
	}
	t, err := executor.WindowTime(d, h.tt)
	var first int64
	if err == nil {
		first, err = h.hop.First(t)
	}
	if err != nil {
		if h.actx.Errors != nil {
			h.actx.Errors.Record(h.actx.Job, "HopWindow", err)
		}
		return hopRow{}, false
	}
	return hopRow{op: op, vals: append(h.cur.Row(i), types.NullDatum, types.NullDatum), first: first}, true
}

// Close implements Operator.
func (h *HopWindow) Close() { h.in.Close() }
