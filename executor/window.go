package executor

import (
	"context"
	"math"
	"sort"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Window computes window functions. It reads its whole input, then for
// each call splits the rows into partitions (PartitionBy, NULLs equal),
// orders each partition stably by the call's OrderBy, and computes one
// value per row: ranking functions (row_number, rank, dense_rank,
// percent_rank, cume_dist, ntile), offsets (lag, lead), frame values
// (first_value, last_value, nth_value) and aggregates over the frame.
//
// Frames follow Postgres (docs §4.2.8): without a frame clause, RANGE
// UNBOUNDED PRECEDING to CURRENT ROW including the current row's peers
// when there is an ORDER BY, the whole partition otherwise; ROWS frames
// with n PRECEDING / FOLLOWING; GROUPS frames count peer groups; RANGE
// frames with an offset hold the rows whose single ORDER BY value lies
// within it of the current row's (window_range.go). A frame exclusion
// leaves the current row, its peer group, or its peers but itself out of
// the frame of the aggregates and of first_value, last_value and
// nth_value.
//
// The output is the input columns then one column per call. Rows come
// out ordered like Postgres's WindowAgg emits them: by the last call's
// partition keys (ascending, NULLs last) then its ORDER BY, stable with
// respect to the input order.
type Window struct {
	endState
	in   Operator
	plan *planner.Window
	ec   *ExecCtx
	buf  *rowBuffer
}

var _ Operator = (*Window)(nil)

// NewWindow returns a Window of in for p.
func NewWindow(in Operator, p *planner.Window, ec *ExecCtx) *Window {
	return &Window{in: in, plan: p, ec: ec}
}

// Next implements Operator.
func (w *Window) Next(ctx context.Context) (*types.Chunk, error) {
	if w.done {
		return nil, w.err
	}
	if w.buf == nil {
		rows, err := w.compute(ctx)
		if err != nil {
			return w.finish(nil, err)
		}
		w.buf = &rowBuffer{ts: w.plan.Out.Types(), rows: rows, ec: w.ec}
	}
	return w.finish(w.buf.next(), nil)
}

// winRow is an input row with the evaluated partition keys, order keys
// and arguments of the call being computed.
type winRow struct {
	idx  int
	part types.Row
	ord  types.Row
	args types.Row
}

func (w *Window) compute(ctx context.Context) ([]types.Row, error) {
	var inputs []types.Row
	// Evaluated expressions per call: partition keys, order keys, args.
	type callExprs struct{ part, ord, args []Evaluator }
	ces := make([]callExprs, len(w.plan.Calls))
	for i, c := range w.plan.Calls {
		var err error
		if ces[i].part, err = compileAll(c.PartitionBy); err != nil {
			return nil, err
		}
		ord := make([]planner.Expr, len(c.OrderBy))
		for k, o := range c.OrderBy {
			ord[k] = o.Expr
		}
		if ces[i].ord, err = compileAll(ord); err != nil {
			return nil, err
		}
		if ces[i].args, err = compileAll(c.Args); err != nil {
			return nil, err
		}
	}
	// Postgres evaluates the frame offsets before it reads a row, so a
	// NULL (or negative ROWS) offset fails even over no rows.
	for _, c := range w.plan.Calls {
		if c.Frame == nil {
			continue
		}
		for _, start := range []bool{true, false} {
			if _, err := FrameOffset(c.Frame, start, w.ec); err != nil {
				return nil, err
			}
		}
	}
	wrows := make([][]winRow, len(w.plan.Calls))
	for {
		c, err := nextVisible(ctx, w.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			break
		}
		for ci, ce := range ces {
			pv, err := evalAll(w.ec, ce.part, c)
			if err != nil {
				return nil, err
			}
			pr := make([]types.Row, c.Len())
			for i := range pr {
				if c.Visible(i) {
					pr[i] = vecRow(pv, i)
				}
			}
			ov, err := evalAll(w.ec, ce.ord, c)
			if err != nil {
				return nil, err
			}
			or := make([]types.Row, c.Len())
			for i := range or {
				if c.Visible(i) {
					or[i] = vecRow(ov, i)
				}
			}
			av, err := evalAll(w.ec, ce.args, c)
			if err != nil {
				return nil, err
			}
			n := len(inputs)
			for i := 0; i < c.Len(); i++ {
				if !c.Visible(i) {
					continue
				}
				wrows[ci] = append(wrows[ci], winRow{idx: n, part: pr[i], ord: or[i], args: vecRow(av, i)})
				n++
			}
		}
		for i := 0; i < c.Len(); i++ {
			if c.Visible(i) {
				inputs = append(inputs, detachRow(c, i))
			}
		}
	}
	w.in.Close()
	results := make([][]types.Datum, len(w.plan.Calls))
	var order []int
	for ci, call := range w.plan.Calls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		parts := partitionRows(wrows[ci], exprTypes(call.PartitionBy), call.OrderBy)
		results[ci] = make([]types.Datum, len(inputs))
		for _, p := range parts {
			if err := computeWindow(call, p, results[ci], w.ec); err != nil {
				return nil, err
			}
		}
		if ci == len(w.plan.Calls)-1 {
			for _, p := range parts {
				for _, r := range p {
					order = append(order, r.idx)
				}
			}
		}
	}
	out := make([]types.Row, 0, len(inputs))
	for _, idx := range order {
		r := append(types.Row(nil), inputs[idx]...)
		for ci := range w.plan.Calls {
			r = append(r, results[ci][idx])
		}
		out = append(out, r)
	}
	return out, nil
}

// vecRow returns row i of vecs, detached from them.
func vecRow(vecs []*types.Vec, i int) types.Row {
	r := make(types.Row, len(vecs))
	for j, v := range vecs {
		r[j] = copyDatum(v.Get(i))
	}
	return r
}

// partitionRows groups rows by partition key, sorts the partitions by key
// (ascending, NULLs last, as Postgres's sort before a WindowAgg does) and
// each partition stably by the ORDER BY keys.
func partitionRows(rows []winRow, partTs []types.T, ord []planner.SortKey) [][]winRow {
	t := newRowTable(partTs)
	var parts [][]winRow
	for _, r := range rows {
		g, added := t.findOrInsert(r.part)
		if added {
			parts = append(parts, nil)
		}
		parts[g] = append(parts[g], r)
	}
	sort.SliceStable(parts, func(a, b int) bool {
		ka, kb := parts[a][0].part, parts[b][0].part
		for i, ty := range partTs {
			if c := cmpNulls(ka[i], kb[i], ty, false); c != 0 {
				return c < 0
			}
		}
		return false
	})
	for _, p := range parts {
		sort.SliceStable(p, func(a, b int) bool { return compareKeys(p[a].ord, p[b].ord, ord) < 0 })
	}
	return parts
}

// WindowPartition computes call over one partition exactly as Window
// computes it over each of its partitions, for operators that keep their
// partitions themselves (the stream OverWindow). The rows are given in
// the partition's order, ties already in the order they are to be
// numbered in: ord[i] holds the values of row i's ORDER BY keys
// (call.OrderBy, in order) and args[i] those of its arguments (call.Args).
// The result holds row i's value at index i. Frame offsets are evaluated
// once, in ec.
//
// Errors are Window's: 22013 and 22004 for a negative or NULL frame
// offset, 22014 and 22016 for ntile or
// nth_value arguments below one, 42883 for a function it cannot compute,
// 22003 for an aggregate overflowing.
func WindowPartition(call planner.WindowCall, ord, args []types.Row, ec *ExecCtx) ([]types.Datum, error) {
	p := make([]winRow, len(ord))
	for i := range p {
		p[i] = winRow{idx: i, ord: ord[i], args: args[i]}
	}
	out := make([]types.Datum, len(p))
	if err := computeWindow(call, p, out, ec); err != nil {
		return nil, err
	}
	return out, nil
}

// computeWindow computes call over one sorted partition p, storing each
// row's value at out[row.idx].
func computeWindow(call planner.WindowCall, p []winRow, out []types.Datum, ec *ExecCtx) error {
	n := len(p)
	// peerStart[i] and peerEnd[i] bound the peer group of row i (rows
	// equal on the ORDER BY keys; all rows without ORDER BY).
	peerStart, peerEnd := make([]int, n), make([]int, n)
	group := make([]int, n) // peer group number
	for i := 0; i < n; i++ {
		if i > 0 && compareKeys(p[i-1].ord, p[i].ord, call.OrderBy) == 0 {
			peerStart[i], group[i] = peerStart[i-1], group[i-1]
		} else {
			peerStart[i] = i
			if i > 0 {
				group[i] = group[i-1] + 1
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i < n-1 && peerStart[i+1] == peerStart[i] {
			peerEnd[i] = peerEnd[i+1]
		} else {
			peerEnd[i] = i
		}
	}
	// Postgres moves the frame's ends row by row even for functions that
	// do not read the frame, so a bad RANGE offset fails them too.
	f := call.Frame
	rangeOffset := f != nil && f.Mode == "range" && (f.Start.Offset != nil || f.End.Offset != nil)
	bounds := func(int) (int, int) { return 0, -1 }
	if planner.ReadsFrame(call.Fn) || rangeOffset {
		var err error
		if bounds, err = frameBounds(call, p, peerStart, peerEnd, group, ec); err != nil {
			return err
		}
	}
	exclude := ""
	if call.Frame != nil {
		exclude = call.Frame.Exclude
	}
	if o := functions.WindowFunction(call.Fn); o != nil {
		wp := &functions.WindowPartition{Args: make([][]types.Datum, n), PeerStart: peerStart, PeerEnd: peerEnd, Group: group}
		for i, r := range p {
			wp.Args[i] = r.args
		}
		if o.ReadsFrame {
			wp.Frame = func(i int, buf [][2]int) [][2]int {
				lo, hi := bounds(i)
				return keptRuns(exclude, lo, hi, i, peerStart[i], peerEnd[i], buf)
			}
		}
		vals := make([]types.Datum, n)
		if err := o.Window(wp, vals); err != nil {
			return err
		}
		for i, r := range p {
			out[r.idx] = vals[i]
		}
		return nil
	}
	var runs [][2]int
	spec := functions.AggSpec{Fn: call.Fn, ArgTypes: exprTypes(call.Args), T: call.T}
	mk, err := functions.NewAccumulatorFunc(spec)
	if err != nil {
		if pgerr.CodeOf(err) == pgerr.UndefinedFunction {
			return pgerr.New(pgerr.UndefinedFunction, "window function %s is not supported", call.Fn)
		}
		return err
	}
	if exclude != "" {
		// The rows left are not one run: each row's frame is aggregated
		// afresh, in window order, as Postgres restarts the aggregate
		// for every row of a frame with an exclusion.
		for i, r := range p {
			lo, hi := bounds(i)
			acc := mk()
			for _, run := range keptRuns(exclude, lo, hi, i, peerStart[i], peerEnd[i], runs[:0]) {
				for k := run[0]; k <= run[1]; k++ {
					if err := acc.Add(p[k].args); err != nil {
						return err
					}
				}
			}
			out[r.idx] = acc.Result()
		}
		return nil
	}
	// Frames whose start never moves extend one accumulator; others are
	// recomputed per row (exact for every type, including floats, where
	// retraction would not be).
	var acc functions.Accumulator
	accLo, accHi := 0, -1
	for i, r := range p {
		lo, hi := bounds(i)
		if acc == nil || lo != accLo || hi < accHi {
			acc, accLo, accHi = mk(), lo, lo-1
		}
		for ; accHi < hi; accHi++ {
			if err := acc.Add(p[accHi+1].args); err != nil {
				return err
			}
		}
		out[r.idx] = acc.Result()
	}
	return nil
}

// keptRuns appends to buf the rows of row i's frame [lo, hi] that the
// frame exclusion exclude (planner.Frame.Exclude) keeps, as ascending
// runs [a, b] in window order (at most three), and returns it. The
// current row's peer group is [ps, pe]; it need not lie in the frame.
func keptRuns(exclude string, lo, hi, i, ps, pe int, buf [][2]int) [][2]int {
	add := func(a, b int) {
		a, b = max(a, lo), min(b, hi)
		if a <= b {
			buf = append(buf, [2]int{a, b})
		}
	}
	switch exclude {
	case "current_row":
		add(lo, i-1)
		add(i+1, hi)
	case "group":
		add(lo, ps-1)
		add(pe+1, hi)
	case "ties":
		add(lo, ps-1)
		add(i, i)
		add(pe+1, hi)
	default:
		add(lo, hi)
	}
	return buf
}

// frameBounds returns a function giving the frame [lo, hi] of row i (lo >
// hi for an empty frame).
func frameBounds(call planner.WindowCall, p []winRow, peerStart, peerEnd, group []int, ec *ExecCtx) (func(int) (int, int), error) {
	n := len(p)
	f := call.Frame
	if f == nil {
		if len(call.OrderBy) == 0 {
			return func(int) (int, int) { return 0, n - 1 }, nil
		}
		return func(i int) (int, int) { return 0, peerEnd[i] }, nil
	}
	sv, err := FrameOffset(f, true, ec)
	if err != nil {
		return nil, err
	}
	ev, err := FrameOffset(f, false, ec)
	if err != nil {
		return nil, err
	}
	if f.Mode == "range" && (f.Start.Offset != nil || f.End.Offset != nil) {
		lo, hi, err := rangeFrame(call, p, peerStart, peerEnd, sv, ev, ec)
		if err != nil {
			return nil, err
		}
		return func(i int) (int, int) { return lo[i], hi[i] }, nil
	}
	so, eo := sv.I, ev.I
	// Group boundaries for GROUPS mode: first row of each peer group.
	var groupStart []int
	if f.Mode == "groups" {
		for i := 0; i < n; i++ {
			if peerStart[i] == i {
				groupStart = append(groupStart, i)
			}
		}
	}
	bound := func(b planner.FrameBound, off int64, i int, start bool) int {
		switch b.Kind {
		case "unbounded_preceding":
			return 0
		case "unbounded_following":
			return n - 1
		case "current_row":
			if f.Mode == "rows" {
				return i
			}
			if start {
				return peerStart[i]
			}
			return peerEnd[i]
		}
		sign := int64(1)
		if b.Kind == "preceding" {
			sign = -1
		}
		// Offsets are never negative (the binder and FrameOffset check),
		// so only a FOLLOWING offset can overflow: it then reaches past
		// every row, as Postgres's saturating arithmetic does.
		step := func(base int64) int64 {
			if sign < 0 {
				return base - off
			}
			if off > math.MaxInt64-base {
				return math.MaxInt64
			}
			return base + off
		}
		if f.Mode == "groups" {
			g := step(int64(group[i]))
			if g < 0 {
				if start {
					return 0
				}
				return -1
			}
			if g >= int64(len(groupStart)) {
				if start {
					return n
				}
				return n - 1
			}
			if start {
				return groupStart[g]
			}
			return peerEnd[groupStart[g]]
		}
		j := step(int64(i))
		return int(max(min(j, int64(n)), -1))
	}
	return func(i int) (int, int) {
		lo := max(bound(f.Start, so, i, true), 0)
		hi := min(bound(f.End, eo, i, false), n-1)
		return lo, hi
	}, nil
}

// FrameOffset evaluates the offset of f's start (or end) bound, NULL
// for a bound without one. Offsets have no column references (the binder
// checks), so one evaluation serves the whole partition. A NULL offset
// fails (22004), and so does a negative one of a ROWS or GROUPS frame
// (22013); those of a RANGE frame are checked when rows are compared, as
// Postgres's in_range functions check them.
func FrameOffset(f *planner.Frame, start bool, ec *ExecCtx) (types.Datum, error) {
	b, which := f.Start, "starting"
	if !start {
		b, which = f.End, "ending"
	}
	if b.Offset == nil {
		return types.NullDatum, nil
	}
	v, err := evalConst(b.Offset, ec)
	if err != nil {
		return types.NullDatum, err
	}
	if v.Null {
		return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	}
	if f.Mode != "range" && v.I < 0 {
		return types.NullDatum, pgerr.New("22013", "frame %s offset must not be negative", which)
	}
	return v, nil
}

// Close implements Operator.
func (w *Window) Close() {
	w.done = true
	w.buf = nil
	w.in.Close()
}
