package executor

import (
	"context"
	"math"
	"reflect"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Window computes window functions. For each call it splits the rows
// into partitions (PartitionBy, NULLs equal), orders each partition
// stably by the call's OrderBy, and computes one value per row: ranking
// functions (row_number, rank, dense_rank, percent_rank, cume_dist,
// ntile), offsets (lag, lead), frame values (first_value, last_value,
// nth_value) and aggregates over the frame.
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
//
// As PostgreSQL stacks a Sort and a WindowAgg per window, Window is a
// pipeline of stages, one per run of consecutive calls with the same
// PARTITION BY and ORDER BY: each evaluates the stage's keys and
// arguments once per row (windowEval), sorts the rows by partition keys,
// ORDER BY and input position with the external Sort (so within
// work_mem, spilling beyond it), and computes the calls a partition at
// a time (windowStage). Only one partition per stage is held in memory.
type Window struct {
	endState
	in   Operator
	plan *planner.Window
	ec   *ExecCtx
	// out is the last stage, built at the first Next; its rows carry the
	// input position after the input columns, which Next drops.
	out Operator
	nIn int
}

var _ Operator = (*Window)(nil)

// NewWindow returns a Window of in for p.
func NewWindow(in Operator, p *planner.Window, ec *ExecCtx) *Window {
	return &Window{in: in, plan: p, ec: ec, nIn: len(p.Out) - len(p.Calls)}
}

// Next implements Operator.
func (w *Window) Next(ctx context.Context) (*types.Chunk, error) {
	if w.done {
		return nil, w.err
	}
	if w.out == nil {
		if err := w.start(); err != nil {
			return w.finish(nil, err)
		}
	}
	c, err := nextVisible(ctx, w.out)
	if err != nil || c == nil {
		return w.finish(nil, err)
	}
	cols := append(append([]*types.Vec(nil), c.Cols[:w.nIn]...), c.Cols[w.nIn+1:]...)
	out := types.NewChunkFromVecs(cols, c.Len())
	out.Vis = c.Vis
	return w.finish(out, nil)
}

// start builds the pipeline of stages over the input.
func (w *Window) start() error {
	// Postgres evaluates the frame offsets before it reads a row, so a
	// NULL (or negative ROWS) offset fails even over no rows.
	for _, c := range w.plan.Calls {
		if c.Frame == nil {
			continue
		}
		for _, start := range []bool{true, false} {
			if _, err := FrameOffset(c.Frame, start, w.ec); err != nil {
				return err
			}
		}
	}
	ts := append(w.plan.Out.Types()[:w.nIn:w.nIn], types.TInt8)
	var cur Operator = &windowSeq{in: w.in}
	calls := w.plan.Calls
	for first := 0; first < len(calls); {
		last := first + 1
		for last < len(calls) && reflect.DeepEqual(calls[last].PartitionBy, calls[first].PartitionBy) &&
			reflect.DeepEqual(calls[last].OrderBy, calls[first].OrderBy) {
			last++
		}
		st, err := newWindowStage(cur, first == 0, ts, w.nIn, calls[first:last], w.ec)
		if err != nil {
			cur.Close()
			return err
		}
		cur = st
		for _, c := range calls[first:last] {
			ts = append(ts, c.T)
		}
		first = last
	}
	w.out = cur
	return nil
}

// Close implements Operator.
func (w *Window) Close() {
	w.done = true
	if w.out != nil {
		w.out.Close()
	}
	w.in.Close()
}

// windowSeq passes its input's visible rows with their position (int8,
// from 0) appended, the tie-breaker that keeps each window's sort
// stable with respect to the input order.
type windowSeq struct {
	in Operator
	n  int64
}

func (s *windowSeq) Next(ctx context.Context) (*types.Chunk, error) {
	c, err := nextVisible(ctx, s.in)
	if err != nil || c == nil {
		return nil, err
	}
	seq := types.NewVec(types.TInt8, c.Len())
	for i := 0; i < c.Len(); i++ {
		seq.Append(types.DInt(s.n))
		if c.Visible(i) {
			s.n++
		}
	}
	out := types.NewChunkFromVecs(append(c.Cols[:len(c.Cols):len(c.Cols)], seq), c.Len())
	out.Vis = c.Vis
	return out, nil
}

func (s *windowSeq) Close() { s.in.Close() }

// windowEval appends to its input's columns the values of exprs.
type windowEval struct {
	in  Operator
	evs []Evaluator
	ec  *ExecCtx
}

func (e *windowEval) Next(ctx context.Context) (*types.Chunk, error) {
	c, err := nextVisible(ctx, e.in)
	if err != nil || c == nil {
		return nil, err
	}
	vs, err := evalAll(e.ec, e.evs, c)
	if err != nil {
		return nil, err
	}
	out := types.NewChunkFromVecs(append(c.Cols[:len(c.Cols):len(c.Cols)], vs...), c.Len())
	out.Vis = c.Vis
	return out, nil
}

func (e *windowEval) Close() { e.in.Close() }

// windowStage computes calls sharing one PARTITION BY and ORDER BY over
// its input (base columns), which a windowEval and a Sort below it
// extended with the partition keys, the ORDER BY keys and each call's
// arguments and sorted by partition, ORDER BY and input position. It
// holds one partition at a time and emits the base columns then one
// column per call.
type windowStage struct {
	endState
	in    Operator
	calls []planner.WindowCall
	ec    *ExecCtx
	ts    []types.T
	base  int
	nPart int
	nOrd  int
	// part is the partition being read; pending is the first row of
	// the next one; out the computed rows not yet emitted.
	part    []types.Row
	pending types.Row
	in0     *types.Chunk
	inPos   int
	inDone  bool
	out     *rowBuffer
}

// newWindowStage builds eval → Sort → stage over in, whose rows have
// types ts and their input position in column seqAt. When inOrder (in
// gives the rows by input position) and the calls have neither
// PARTITION BY nor ORDER BY, there is nothing to sort.
func newWindowStage(in Operator, inOrder bool, ts []types.T, seqAt int, calls []planner.WindowCall, ec *ExecCtx) (*windowStage, error) {
	first := calls[0]
	exprs := append([]planner.Expr(nil), first.PartitionBy...)
	for _, o := range first.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	for _, c := range calls {
		exprs = append(exprs, c.Args...)
	}
	evs, err := compileAll(exprs)
	if err != nil {
		return nil, err
	}
	base := len(ts)
	ext := append(append([]types.T(nil), ts...), exprTypes(exprs)...)
	var keys []planner.SortKey
	for i, e := range first.PartitionBy {
		keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: base + i, T: e.Type()}})
	}
	for i, o := range first.OrderBy {
		keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: base + len(first.PartitionBy) + i, T: o.Expr.Type()}, Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	// Equal keys keep the input order.
	keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: seqAt, T: types.TInt8}})
	sch := make(types.Schema, len(ext))
	for i, t := range ext {
		sch[i] = types.Column{T: t}
	}
	var sorted Operator = &windowEval{in: in, evs: evs, ec: ec}
	if len(keys) > 1 || !inOrder {
		if sorted, err = NewSort(sorted, keys, sch, ec); err != nil {
			return nil, err
		}
	}
	out := append([]types.T(nil), ts...)
	for _, c := range calls {
		out = append(out, c.T)
	}
	return &windowStage{in: sorted, calls: calls, ec: ec, ts: out, base: base, nPart: len(first.PartitionBy), nOrd: len(first.OrderBy)}, nil
}

var _ Operator = (*windowStage)(nil)

// Next implements Operator.
func (st *windowStage) Next(ctx context.Context) (*types.Chunk, error) {
	if st.done {
		return nil, st.err
	}
	for {
		if st.out != nil {
			if c := st.out.next(); c != nil {
				return st.finish(c, nil)
			}
			st.out = nil
		}
		rows, err := st.readPartition(ctx)
		if err != nil || rows == nil {
			return st.finish(nil, err)
		}
		out, err := st.compute(rows)
		if err != nil {
			return st.finish(nil, err)
		}
		st.out = &rowBuffer{ts: st.ts, rows: out, ec: st.ec}
	}
}

// nextRow returns the next sorted row, or nil at the end.
func (st *windowStage) nextRow(ctx context.Context) (types.Row, error) {
	for st.in0 == nil || st.inPos >= st.in0.Len() {
		if st.inDone {
			return nil, nil
		}
		c, err := nextVisible(ctx, st.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			st.inDone = true
			return nil, nil
		}
		st.in0, st.inPos = c, 0
	}
	for ; st.inPos < st.in0.Len(); st.inPos++ {
		if st.in0.Visible(st.inPos) {
			r := detachRow(st.in0, st.inPos)
			st.inPos++
			return r, nil
		}
	}
	return st.nextRow(ctx)
}

// readPartition returns the rows of the next partition, nil after the
// last.
func (st *windowStage) readPartition(ctx context.Context) ([]types.Row, error) {
	var part []types.Row
	if st.pending != nil {
		part = append(part, st.pending)
		st.pending = nil
	}
	for {
		r, err := st.nextRow(ctx)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return part, nil
		}
		if len(part) > 0 && !st.samePartition(part[0], r) {
			st.pending = r
			return part, nil
		}
		part = append(part, r)
	}
}

// samePartition reports whether rows a and b have equal partition keys
// (NULLs equal).
func (st *windowStage) samePartition(a, b types.Row) bool {
	for i := st.base; i < st.base+st.nPart; i++ {
		if !sameDatum(a[i], b[i], st.calls[0].PartitionBy[i-st.base].Type()) {
			return false
		}
	}
	return true
}

// compute computes the stage's calls over one partition, in window
// order, and returns its rows: the base columns then one value per call.
func (st *windowStage) compute(rows []types.Row) ([]types.Row, error) {
	ordAt := st.base + st.nPart
	ord := make([]types.Row, len(rows))
	for i, r := range rows {
		ord[i] = r[ordAt : ordAt+st.nOrd]
	}
	results := make([][]types.Datum, len(st.calls))
	argAt := ordAt + st.nOrd
	for ci, call := range st.calls {
		args := make([]types.Row, len(rows))
		for i, r := range rows {
			args[i] = r[argAt : argAt+len(call.Args)]
		}
		argAt += len(call.Args)
		vals, err := WindowPartition(call, ord, args, st.ec)
		if err != nil {
			return nil, err
		}
		results[ci] = vals
	}
	out := make([]types.Row, len(rows))
	for i, r := range rows {
		o := append(make(types.Row, 0, st.base+len(st.calls)), r[:st.base]...)
		for ci := range st.calls {
			o = append(o, results[ci][i])
		}
		out[i] = o
	}
	return out, nil
}

// Close implements Operator.
func (st *windowStage) Close() {
	st.done = true
	st.out, st.pending, st.in0 = nil, nil, nil
	st.in.Close()
}

// winRow is a row of a partition: its place in the partition's result,
// and the values of the call's ORDER BY keys and arguments.
type winRow struct {
	idx  int
	ord  types.Row
	args types.Row
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
