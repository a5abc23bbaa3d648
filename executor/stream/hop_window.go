package stream

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HopWindow assigns each row to every hopping window holding its time
// (planner.StreamHopWindow): a row becomes N = size/slide rows, its
// columns then window_start and window_end, windows in ascending order.
//
//   - Chunk: every visible row is emitted once per window with its op, so
//     a delete retracts exactly the rows its insert produced. An update
//     pair (U-, U+) becomes deletes of the old row's windows that the new
//     row is not in, an update pair for each window both are in, then
//     inserts of the new row's other windows (the stream key holds
//     window_start, so rows of different windows are different rows;
//     deletes go first so that no window is inserted before the same
//     window's delete). A row whose time is NULL yields nothing (the other half of its
//     update pair then stands alone as a delete or an insert); a time
//     whose windows leave the timestamp range is recorded as an error
//     (ActorContext.Errors) and treated as NULL. Output chunks hold at
//     most types.ChunkCap rows and never split an update pair.
//   - Watermark: forwarded (the input's columns keep their positions); a
//     watermark on the time column also yields watermarks on
//     window_start and window_end (functions.Hop.Watermarks).
//
// With planner.StreamHopWindow.Emit the output holds only the columns it
// lists, in its order; watermarks on columns left out are dropped.
//   - Barrier: forwarded (HopWindow has no state).
type HopWindow struct {
	actx *ActorContext
	in   Operator
	hop  functions.Hop
	col  int     // time column
	tt   types.T // its type
	nIn  int     // number of input columns
	ts   []types.T
	// emit lists the output columns as positions in the whole layout
	// (input columns, window_start, window_end); nil: all of them.
	emit []int
	// at maps a position of the whole layout to its output column, -1
	// for one left out.
	at      []int
	wt      types.T   // type of the window columns
	scratch types.Row // the output row of a row of the whole layout

	cur  *types.Chunk // input chunk being expanded
	row  int          // next row of cur
	unit []hopRow     // the row or update pair being expanded
	k    int          // next step of unit
	// steps is the number of steps of unit: its windows, for a pair
	// N plus the number of windows the rows do not share.
	steps int
	// fast: cur holds no update pair, so its rows are expanded column by
	// column (expandFast) rather than one row and window at a time.
	fast bool
	// sel, starts and ops are expandFast's buffers: the input row, window
	// start and op of each output row.
	sel    []int
	starts []int64
	ops    []types.Op
	// pending holds the watermarks derived from one input watermark.
	pending []types.Message
	// reuse: the consumer keeps nothing of an output chunk once it asks
	// for the next (reuseOutput), so expandFast builds each chunk of
	// integer columns in buf, the vectors of the one before.
	reuse bool
	buf   *types.Chunk
}

// outputReuser is an operator that can build each output chunk in the
// storage of the one before, which its consumer enables (reuseOutput)
// when it keeps nothing of a chunk once it asks for the next.
type outputReuser interface{ reuseOutput() }

// reuseOutput tells o (under its stats wrapper), when it is an
// outputReuser, that its consumer keeps nothing of its output chunks.
func reuseOutput(o Operator) {
	if c, ok := o.(counted); ok {
		o = c.Operator
	}
	if r, ok := o.(outputReuser); ok {
		r.reuseOutput()
	}
}

func (h *HopWindow) reuseOutput() { h.reuse = true }

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
	hop, err := functions.NewHop(n.Slide, n.Size, n.Offset)
	if err != nil {
		return nil, err
	}
	in0 := n.Input.Base().Out
	h := &HopWindow{actx: actx, in: in, hop: hop, col: n.TimeCol, tt: in0[n.TimeCol].T, nIn: len(in0), ts: n.Out.Types(), emit: n.Emit}
	h.at = make([]int, h.nIn+2)
	for i := range h.at {
		h.at[i] = i
	}
	if h.emit != nil {
		for i := range h.at {
			h.at[i] = -1
		}
		for i, e := range h.emit {
			if e < 0 || e >= len(h.at) || len(h.ts) != len(h.emit) {
				return nil, fmt.Errorf("stream: HopWindow emits column %d of %d", e, len(h.at))
			}
			h.at[e] = i
		}
		h.scratch = make(types.Row, len(h.emit))
	}
	if h.at[h.nIn] < 0 || len(h.ts) <= h.at[h.nIn] {
		return nil, fmt.Errorf("stream: HopWindow without window_start")
	}
	h.wt = h.ts[h.at[h.nIn]]
	return h, nil
}

// appendRow appends row vals of the whole layout to out, as the output
// columns.
func (h *HopWindow) appendRow(out *types.Chunk, op types.Op, vals types.Row) {
	if h.emit == nil {
		out.AppendRow(op, vals)
		return
	}
	for i, e := range h.emit {
		h.scratch[i] = vals[e]
	}
	out.AppendRow(op, h.scratch)
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
			h.fast = h.hop.N <= types.ChunkCap && !hasUpdates(m)
		case types.Watermark:
			if at := h.at[m.Col]; at >= 0 {
				w := m
				w.Col = at
				h.pending = append(h.pending, w)
			}
			if m.Col == h.col && !m.Val.Null {
				if t, err := functions.WindowTime(m.Val, h.tt); err == nil {
					if start, end, ok := h.hop.Watermarks(t); ok {
						h.pending = append(h.pending, types.Watermark{Col: h.at[h.nIn], T: h.wt, Val: types.DInt(start)})
						if at := h.at[h.nIn+1]; at >= 0 {
							h.pending = append(h.pending, types.Watermark{Col: at, T: h.wt, Val: types.DInt(end)})
						}
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
	if h.fast {
		return h.expandFast()
	}
	out := types.NewChunk(h.ts, types.ChunkCap)
	for out.Len()+2 <= types.ChunkCap {
		if h.unit == nil && !h.nextUnit() {
			h.cur = nil
			break
		}
		if len(h.unit) == 2 {
			h.pairStep(out)
		} else {
			r := h.unit[0]
			h.window(r, h.k)
			h.appendRow(out, r.op, r.vals)
		}
		if h.k++; h.k == h.steps {
			h.unit = nil
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// hasUpdates reports whether c holds a row of an update pair.
func hasUpdates(c *types.Chunk) bool {
	for _, op := range c.Ops {
		if op == types.OpUpdateDelete || op == types.OpUpdateInsert {
			return true
		}
	}
	return false
}

// expandFast is expand for a chunk of inserts and deletes only: it lists
// the input row and window start of each output row first, then builds
// each output column in one pass (gatherVec), so that a row's columns
// are neither read into datums nor appended one datum at a time. The
// output is the same as expand's: each row's windows in ascending
// order, rows in input order, at most types.ChunkCap rows a chunk.
func (h *HopWindow) expandFast() *types.Chunk {
	c := h.cur
	nw := h.hop.N
	h.sel, h.starts, h.ops = h.sel[:0], h.starts[:0], h.ops[:0]
	anyDelete := false
	tv := c.Cols[h.col]
	for h.row < c.Len() && len(h.sel)+nw <= types.ChunkCap {
		i := h.row
		h.row++
		if !c.Visible(i) || tv.Nulls[i] {
			continue
		}
		first, ok := h.first(tv, i)
		if !ok {
			continue
		}
		op := c.Op(i)
		anyDelete = anyDelete || op != types.OpInsert
		for k := range nw {
			h.sel = append(h.sel, i)
			h.starts = append(h.starts, first+int64(k)*h.hop.Slide)
			h.ops = append(h.ops, op)
		}
	}
	if h.row >= c.Len() {
		h.cur = nil
	}
	n := len(h.sel)
	if n == 0 {
		return nil
	}
	if out := h.reused(c, anyDelete); out != nil {
		return out
	}
	out := types.NewChunkFromVecs(make([]*types.Vec, len(h.ts)), n)
	for j, v := range c.Cols {
		if at := h.at[j]; at >= 0 {
			out.Cols[at] = gatherVec(v, h.sel, n)
		}
	}
	out.Cols[h.at[h.nIn]] = &types.Vec{T: h.wt, Nulls: make([]bool, n), I: append([]int64(nil), h.starts...)}
	if at := h.at[h.nIn+1]; at >= 0 {
		end := &types.Vec{T: h.wt, Nulls: make([]bool, n), I: make([]int64, n)}
		for k, s := range h.starts {
			end.I[k] = s + h.hop.Size
		}
		out.Cols[at] = end
	}
	if anyDelete {
		out.Ops = append([]types.Op(nil), h.ops...)
	}
	return out
}

// reused builds expandFast's output of input chunk c in h.buf, the
// vectors of the chunk before, when the consumer allows it (reuse) and
// every column is of integers (a datum read from one is a copy: nothing
// read from the chunk points into it); nil otherwise. Nexmark q5's
// HOP expands each bid into five rows, which its count aggregation
// folds at once: new vectors for each chunk were a fifth of the bytes
// the query allocated.
func (h *HopWindow) reused(c *types.Chunk, anyDelete bool) *types.Chunk {
	if !h.reuse {
		return nil
	}
	for j, v := range c.Cols {
		if h.at[j] >= 0 && (v.T.Family() != types.FamInt || len(v.I) != len(v.Nulls)) {
			return nil
		}
	}
	if h.wt.Family() != types.FamInt {
		return nil
	}
	if h.buf == nil {
		h.buf = &types.Chunk{Cols: make([]*types.Vec, len(h.ts))}
		for i, t := range h.ts {
			h.buf.Cols[i] = &types.Vec{T: t}
		}
	}
	out := h.buf
	for j, v := range c.Cols {
		at := h.at[j]
		if at < 0 {
			continue
		}
		o := out.Cols[at]
		o.T = v.T
		o.Nulls, o.I = o.Nulls[:0], o.I[:0]
		for _, i := range h.sel {
			o.Nulls = append(o.Nulls, v.Nulls[i])
			o.I = append(o.I, v.I[i])
		}
	}
	n := len(h.sel)
	start := out.Cols[h.at[h.nIn]]
	start.Nulls = slices.Grow(start.Nulls[:0], n)[:n]
	clear(start.Nulls)
	start.I = append(start.I[:0], h.starts...)
	if at := h.at[h.nIn+1]; at >= 0 {
		end := out.Cols[at]
		end.Nulls = slices.Grow(end.Nulls[:0], n)[:n]
		clear(end.Nulls)
		end.I = end.I[:0]
		for _, s := range h.starts {
			end.I = append(end.I, s+h.hop.Size)
		}
	}
	out.Ops, out.Vis = nil, nil
	if anyDelete {
		out.Ops = h.ops
	}
	out.SetLen(n)
	return out
}

// first returns the start of the first window of the (non-NULL) time in
// row i of v; false, with the error recorded, when its windows leave the
// timestamp range.
func (h *HopWindow) first(v *types.Vec, i int) (int64, bool) {
	t, err := functions.WindowTime(v.Get(i), h.tt)
	var first int64
	if err == nil {
		first, err = h.hop.First(t)
	}
	if err != nil {
		if h.actx.Errors != nil {
			h.actx.Errors.Record(h.actx.Job, "HopWindow", err)
		}
		return 0, false
	}
	return first, true
}

// pairStep emits step k of an update pair. The old and new rows' windows
// lie on the same grid, so the windows they share form a run: the old
// row's other windows are deleted first, then each shared window gets an
// update pair, then the new row's other windows are inserted. Deletes
// come before inserts because an old-only window and a new-only window
// never share a start, but a delete and an insert of the same window
// would, in the other order, remove the row just inserted.
func (h *HopWindow) pairStep(out *types.Chunk) {
	o, n := h.unit[0], h.unit[1]
	nw := h.hop.N
	shift := h.shift(o, n)
	only := abs(shift) // windows of each row the other lacks
	k := h.k
	switch {
	case k < only:
		// Old-only windows: the first ones when the row moves later.
		i := k
		if shift < 0 {
			i = nw - only + k
		}
		h.window(o, i)
		h.appendRow(out, types.OpDelete, o.vals)
	case k < nw:
		// Shared windows.
		i := k - only
		oi, ni := i, i
		if shift > 0 {
			oi += shift
		} else {
			ni -= shift
		}
		h.window(o, oi)
		h.window(n, ni)
		h.appendRow(out, types.OpUpdateDelete, o.vals)
		h.appendRow(out, types.OpUpdateInsert, n.vals)
	default:
		// New-only windows: the last ones when the row moves later.
		i := k - nw
		if shift > 0 {
			i = nw - only + i
		}
		h.window(n, i)
		h.appendRow(out, types.OpInsert, n.vals)
	}
}

// shift returns how many windows later the new row's first window
// starts than the old row's, clamped to [-N, N] (no shared window
// beyond).
func (h *HopWindow) shift(o, n hopRow) int {
	d := n.first - o.first
	// The difference of two timestamps may overflow; it then only
	// matters that it is far beyond N windows.
	if n.first >= o.first && d < 0 {
		d = math.MaxInt64
	} else if n.first < o.first && d > 0 {
		d = math.MinInt64
	}
	nw := int64(h.hop.N)
	return int(min(max(d/h.hop.Slide, -nw), nw))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// window fills in r's i-th window.
func (h *HopWindow) window(r hopRow, i int) {
	start := r.first + int64(i)*h.hop.Slide
	r.vals[h.nIn], r.vals[h.nIn+1] = types.DInt(start), types.DInt(start+h.hop.Size)
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
			h.unit, h.k, h.steps = rows, 0, h.hop.N
			if len(rows) == 2 {
				h.steps += abs(h.shift(rows[0], rows[1]))
			}
			return true
		}
	}
	return false
}

// load reads row i of cur; false when its time is NULL or out of range.
func (h *HopWindow) load(i int, op types.Op) (hopRow, bool) {
	tv := h.cur.Cols[h.col]
	if tv.Nulls[i] {
		return hopRow{}, false
	}
	first, ok := h.first(tv, i)
	if !ok {
		return hopRow{}, false
	}
	// One allocation for the row and its two window columns.
	vals := make(types.Row, h.nIn+2)
	for j, v := range h.cur.Cols {
		vals[j] = v.Get(i)
	}
	vals[h.nIn], vals[h.nIn+1] = types.NullDatum, types.NullDatum
	return hopRow{op: op, vals: vals, first: first}, true
}

// Close implements Operator.
func (h *HopWindow) Close() { h.in.Close() }
