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
// a time (windowStage), spooling the partition within work_mem and the
// rest of it on tapes (winSpool), which it removes when the partition is
// done, on an error and on Close.
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
		// The stages' partitions and sorts let their tapes go at once,
		// not when the statement closes the plan.
		w.out.Close()
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
// arguments and sorted by partition, ORDER BY and input position. As
// PostgreSQL's WindowAgg does with its tuplestore, it spools one
// partition at a time (winSpool: in memory within work_mem, on tapes
// beyond it), then computes the calls row by row, each reading the
// spool through cursors that follow its frame, and emits the base
// columns then one column per call, a chunk at a time.
type windowStage struct {
	endState
	in    Operator
	calls []planner.WindowCall
	ec    *ExecCtx
	ts    []types.T
	ext   []types.T
	base  int
	nPart int
	nOrd  int
	// part is the partition being emitted; pending is the first row of
	// the next one.
	part    *winPart
	pending types.Row
	in0     *types.Chunk
	inPos   int
	inDone  bool
	row     types.Row
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
	return &windowStage{in: sorted, calls: calls, ec: ec, ts: out, ext: ext, base: base, nPart: len(first.PartitionBy), nOrd: len(first.OrderBy)}, nil
}

var _ Operator = (*windowStage)(nil)

// Next implements Operator.
func (st *windowStage) Next(ctx context.Context) (*types.Chunk, error) {
	if st.done {
		return nil, st.err
	}
	c, err := st.next(ctx)
	if err != nil || c == nil {
		st.dropPart()
	}
	return st.finish(c, err)
}

// next returns the next chunk of computed rows, nil at the end.
func (st *windowStage) next(ctx context.Context) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := st.ec.chunkRows()
	var c *types.Chunk
	for c == nil || c.Len() < n {
		if st.part == nil {
			p, err := st.readPartition(ctx)
			if err != nil {
				return nil, err
			}
			if p == nil {
				return c, nil
			}
			st.part = p
		}
		if st.part.i+1 >= st.part.n {
			st.dropPart()
			continue
		}
		if err := st.part.advance(); err != nil {
			return nil, err
		}
		out, err := st.part.s.output()
		if err != nil {
			return nil, err
		}
		st.row = append(append(st.row[:0], out...), st.part.vals...)
		if c == nil {
			c = types.NewChunk(st.ts, n)
		}
		c.AppendRow(types.OpInsert, st.row)
	}
	return c, nil
}

// dropPart discards the partition being emitted and its tapes.
func (st *windowStage) dropPart() {
	if st.part != nil {
		st.part.s.discard()
		st.part = nil
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

// readPartition spools the rows of the next partition and returns it
// before its first row, nil after the last partition.
func (st *windowStage) readPartition(ctx context.Context) (*winPart, error) {
	first := st.pending
	st.pending = nil
	if first == nil {
		r, err := st.nextRow(ctx)
		if err != nil || r == nil {
			return nil, err
		}
		first = r
	}
	keyAt := st.base + st.nPart
	s := newWinSpool(st.ec, true, st.base, keyAt, st.ext[:st.base], st.ext[keyAt:])
	err := s.add(first)
	for err == nil {
		var r types.Row
		if r, err = st.nextRow(ctx); err != nil || r == nil {
			break
		}
		if !st.samePartition(first, r) {
			st.pending = r
			break
		}
		err = s.add(r)
	}
	if err == nil {
		err = s.seal()
	}
	var p *winPart
	if err == nil {
		p, err = newWinPart(s, st.calls, st.ec)
	}
	if err != nil {
		s.discard()
		return nil, err
	}
	return p, nil
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

// Close implements Operator.
func (st *windowStage) Close() {
	st.done = true
	st.dropPart()
	st.pending, st.in0 = nil, nil
	st.in.Close()
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
	out, _, err := windowPartition(call, ord, args, ec, false)
	return out, err
}

// WindowPartitionRows is WindowPartition going on past an aggregate
// whose step or result fails over a row's frame (22003 for a float sum
// overflowing): that row's value is NULL and errs[i] holds its error
// (errs is nil when no row failed). Each row's value is thus the one
// PostgreSQL gives for its frame, or NULL where PostgreSQL's computation
// of that frame fails; other errors fail the whole partition, as in
// WindowPartition.
func WindowPartitionRows(call planner.WindowCall, ord, args []types.Row, ec *ExecCtx) (vals []types.Datum, errs []error, err error) {
	return windowPartition(call, ord, args, ec, true)
}

func windowPartition(call planner.WindowCall, ord, args []types.Row, ec *ExecCtx, rowErrs bool) ([]types.Datum, []error, error) {
	s := newWinSpool(ec, false, 0, 0, nil, nil)
	for i := range ord {
		r := make(types.Row, 0, len(ord[i])+len(args[i]))
		if err := s.add(append(append(r, ord[i]...), args[i]...)); err != nil {
			return nil, nil, err
		}
	}
	p, err := newWinPart(s, []planner.WindowCall{call}, ec)
	if err != nil {
		return nil, nil, err
	}
	c := p.calls[0]
	c.rowErrs = rowErrs
	out := make([]types.Datum, len(ord))
	var errs []error
	for i := range out {
		if err := p.advance(); err != nil {
			return nil, nil, err
		}
		out[i] = p.vals[0]
		if c.rowErr != nil {
			if errs == nil {
				errs = make([]error, len(ord))
			}
			errs[i], c.rowErr = c.rowErr, nil
		}
	}
	return out, errs, nil
}

// winPart computes a stage's calls over one spooled partition, one row
// at a time in window order: advance moves to the next row and computes
// its values (vals, one per call). The current row's peer group
// [ps, pe] and its number grp follow it through the partition.
type winPart struct {
	s       *winSpool
	orderBy []planner.SortKey
	nOrd    int
	n, i    int
	ps, pe  int
	grp     int
	// cur reads the current row's keys, peer the rows after it that
	// are its peers; prev holds the previous row's ORDER BY values.
	cur, peer *winCursor
	prev      types.Row
	calls     []*winCall
	vals      []types.Datum
}

// newWinPart returns the computation of calls (one PARTITION BY and
// ORDER BY) over the rows of s, whose keys hold the ORDER BY values then
// each call's arguments, before its first row.
func newWinPart(s *winSpool, calls []planner.WindowCall, ec *ExecCtx) (*winPart, error) {
	p := &winPart{s: s, orderBy: calls[0].OrderBy, nOrd: len(calls[0].OrderBy), n: s.n, i: -1, pe: -1,
		cur: newWinCursor(s), vals: make([]types.Datum, len(calls))}
	p.peer = newWinCursor(s)
	if s.spilled() {
		p.peer.wanting(p.nOrd, 0, 0)
	}
	argAt := p.nOrd
	for _, call := range calls {
		c, err := newWinCall(p, call, argAt, ec)
		if err != nil {
			return nil, err
		}
		p.calls = append(p.calls, c)
		argAt += len(call.Args)
	}
	return p, nil
}

// ordAt returns the ORDER BY values of row j read through cursor c.
func (p *winPart) ordAt(c *winCursor, j int) (types.Row, error) {
	k, err := c.keys(j)
	if err != nil {
		return nil, err
	}
	return k[:p.nOrd], nil
}

// advance moves to the next row (p.i+1 < p.n) and computes its values.
func (p *winPart) advance() error {
	p.i++
	ord, err := p.ordAt(p.cur, p.i)
	if err != nil {
		return err
	}
	if p.i > 0 && compareKeys(p.prev, ord, p.orderBy) != 0 {
		p.ps, p.grp = p.i, p.grp+1
	}
	p.prev = ord
	if p.pe < p.i {
		for p.pe = p.i; p.pe+1 < p.n; p.pe++ {
			next, err := p.ordAt(p.peer, p.pe+1)
			if err != nil {
				return err
			}
			if compareKeys(next, ord, p.orderBy) != 0 {
				break
			}
		}
	}
	for ci, c := range p.calls {
		v, err := c.value()
		if err != nil {
			return err
		}
		p.vals[ci] = v
	}
	return nil
}

// winCall computes one call over a winPart's rows. Its frame [lo, hi]
// follows the current row; the frame's ends only move forward, so the
// cursors that find them read each row once, and an aggregate over a
// frame whose start stays put (the default frame, UNBOUNDED PRECEDING)
// is extended row by row rather than recomputed.
type winCall struct {
	p     *winPart
	call  planner.WindowCall
	ec    *ExecCtx
	argAt int
	// fn is a window-only function; mk makes an aggregate's accumulator.
	fn      functions.WindowFunc
	mk      func() functions.Accumulator
	exclude string
	// bounds says whether the frame is computed: for the functions that
	// read it, and for a RANGE frame with an offset, whose comparisons
	// can fail.
	bounds   bool
	rangeOff bool
	so, eo   types.Datum
	lo, hi   int
	// head and tail are a RANGE frame's first row and the row after its
	// last, read through hc and tc; gs and ge find a GROUPS frame's
	// first and last groups.
	head, tail int
	hc, tc     *winCursor
	gs, ge     *groupWalker
	// acc holds the aggregate of rows [accLo, accHi]; rd reads the rows
	// added to it, or a window function's other rows.
	acc          functions.Accumulator
	accLo, accHi int
	rd           *winCursor
	// rowErrs: an aggregate failing over the current row's frame gives
	// it NULL, its error kept in rowErr (WindowPartitionRows).
	rowErrs bool
	rowErr  error
}

func newWinCall(p *winPart, call planner.WindowCall, argAt int, ec *ExecCtx) (*winCall, error) {
	c := &winCall{p: p, call: call, ec: ec, argAt: argAt}
	// The call's cursors decode only the ORDER BY values and its own
	// arguments of the rows they read (from a tape; in memory they
	// decode nothing).
	var want []bool
	if p.s.spilled() {
		want = make([]bool, len(p.s.keyTs))
		for i := range want {
			want[i] = i < p.nOrd || i >= argAt && i < argAt+len(call.Args)
		}
	}
	cursor := func() *winCursor { return &winCursor{s: p.s, j: -1, want: want} }
	c.rd = cursor()
	f := call.Frame
	c.rangeOff = f != nil && f.Mode == "range" && (f.Start.Offset != nil || f.End.Offset != nil)
	// Postgres moves the frame's ends row by row even for functions that
	// do not read the frame, so a bad RANGE offset fails them too.
	c.bounds = planner.ReadsFrame(call.Fn) || c.rangeOff
	if f != nil {
		c.exclude = f.Exclude
		if c.bounds {
			var err error
			if c.so, err = FrameOffset(f, true, ec); err != nil {
				return nil, err
			}
			if c.eo, err = FrameOffset(f, false, ec); err != nil {
				return nil, err
			}
		}
		switch {
		case c.rangeOff:
			c.hc, c.tc = cursor(), cursor()
		case f.Mode == "groups":
			c.gs = &groupWalker{p: p, cur: cursor()}
			c.ge = &groupWalker{p: p, cur: cursor()}
		}
	}
	if o := functions.WindowFunction(call.Fn); o != nil {
		c.fn = o.Window
	}
	return c, nil
}

// newAcc returns a new accumulator of the call's aggregate. It is made
// once the first frame is known, whose errors come first.
func (c *winCall) newAcc() (functions.Accumulator, error) {
	if c.mk == nil {
		spec := functions.AggSpec{Fn: c.call.Fn, ArgTypes: exprTypes(c.call.Args), T: c.call.T}
		mk, err := functions.NewAccumulatorFunc(spec)
		if err != nil {
			if pgerr.CodeOf(err) == pgerr.UndefinedFunction {
				return nil, pgerr.New(pgerr.UndefinedFunction, "window function %s is not supported", c.call.Fn)
			}
			return nil, err
		}
		c.mk = mk
	}
	return c.mk(), nil
}

// argsAt returns the call's arguments of row j read through cursor rd.
func (c *winCall) argsAt(rd *winCursor, j int) ([]types.Datum, error) {
	k, err := rd.keys(j)
	if err != nil {
		return nil, err
	}
	return k[c.argAt : c.argAt+len(c.call.Args)], nil
}

// value computes the call's value at the current row.
func (c *winCall) value() (types.Datum, error) {
	if c.bounds {
		if err := c.frame(); err != nil {
			return types.NullDatum, err
		}
	}
	if c.fn != nil {
		return c.fn(c)
	}
	p := c.p
	if c.exclude != "" {
		// The rows left are not one run: each row's frame is aggregated
		// afresh, in window order, as Postgres restarts the aggregate
		// for every row of a frame with an exclusion.
		acc, err := c.newAcc()
		if err != nil {
			return types.NullDatum, err
		}
		var buf [3][2]int
		for _, run := range keptRuns(c.exclude, c.lo, c.hi, p.i, p.ps, p.pe, buf[:0]) {
			for k := run[0]; k <= run[1]; k++ {
				args, err := c.argsAt(c.rd, k)
				if err != nil {
					return types.NullDatum, err
				}
				if err := acc.Add(args); err != nil {
					return c.aggErr(err)
				}
			}
		}
		return c.aggResult(acc)
	}
	// Frames whose start never moves extend one accumulator; others are
	// recomputed per row (exact for every type, including floats, where
	// retraction would not be).
	if c.acc == nil || c.lo != c.accLo || c.hi < c.accHi {
		acc, err := c.newAcc()
		if err != nil {
			return types.NullDatum, err
		}
		c.acc, c.accLo, c.accHi = acc, c.lo, c.lo-1
	}
	for ; c.accHi < c.hi; c.accHi++ {
		args, err := c.argsAt(c.rd, c.accHi+1)
		if err != nil {
			return types.NullDatum, err
		}
		if err := c.acc.Add(args); err != nil {
			// The row stays out of the accumulator: the next frame
			// holding it fails at it again.
			return c.aggErr(err)
		}
	}
	return c.aggResult(c.acc)
}

// aggResult returns acc's result, or its error as aggErr does.
func (c *winCall) aggResult(acc functions.Accumulator) (types.Datum, error) {
	d, err := functions.AccumulatorResult(acc)
	if err != nil {
		return c.aggErr(err)
	}
	return d, nil
}

// aggErr returns err, an aggregate's step or result failing over the
// current row's frame; with rowErrs an SQL error is kept as the row's
// instead and its value is NULL.
func (c *winCall) aggErr(err error) (types.Datum, error) {
	if c.rowErrs && pgerr.CodeOf(err) != pgerr.InternalError {
		c.rowErr = err
		return types.NullDatum, nil
	}
	return types.NullDatum, err
}

// Len, Row, Args, PeerStart, PeerEnd, Group and Frame make a winCall the
// functions.WindowRows a window-only function reads.
func (c *winCall) Len() int { return c.p.n }
func (c *winCall) Row() int { return c.p.i }
func (c *winCall) Args(j int) ([]types.Datum, error) {
	if j == c.p.i {
		return c.argsAt(c.p.cur, j)
	}
	return c.argsAt(c.rd, j)
}
func (c *winCall) PeerStart() int { return c.p.ps }
func (c *winCall) PeerEnd() int   { return c.p.pe }
func (c *winCall) Group() int     { return c.p.grp }
func (c *winCall) Frame(buf [][2]int) ([][2]int, error) {
	return keptRuns(c.exclude, c.lo, c.hi, c.p.i, c.p.ps, c.p.pe, buf), nil
}

var _ functions.WindowRows = (*winCall)(nil)

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

// frame sets the current row's frame [c.lo, c.hi] (lo > hi for an empty
// frame).
func (c *winCall) frame() error {
	p := c.p
	n := p.n
	f := c.call.Frame
	if f == nil {
		c.lo, c.hi = 0, n-1
		if len(c.call.OrderBy) > 0 {
			c.hi = p.pe
		}
		return nil
	}
	if c.rangeOff {
		return c.rangeFrame()
	}
	lo, err := c.bound(f.Start, c.so.I, true)
	if err != nil {
		return err
	}
	hi, err := c.bound(f.End, c.eo.I, false)
	if err != nil {
		return err
	}
	c.lo, c.hi = max(lo, 0), min(hi, n-1)
	return nil
}

// bound returns the row of the frame's start (or end) bound b with
// offset off (ROWS and GROUPS frames and RANGE frames without an
// offset), which may lie outside the partition.
func (c *winCall) bound(b planner.FrameBound, off int64, start bool) (int, error) {
	p := c.p
	n, i := p.n, p.i
	f := c.call.Frame
	switch b.Kind {
	case "unbounded_preceding":
		return 0, nil
	case "unbounded_following":
		return n - 1, nil
	case "current_row":
		if f.Mode == "rows" {
			return i, nil
		}
		if start {
			return p.ps, nil
		}
		return p.pe, nil
	}
	// Offsets are never negative (the binder and FrameOffset check), so
	// only a FOLLOWING offset can overflow: it then reaches past every
	// row, as Postgres's saturating arithmetic does.
	step := func(base int64) int64 {
		if b.Kind == "preceding" {
			return base - off
		}
		if off > math.MaxInt64-base {
			return math.MaxInt64
		}
		return base + off
	}
	if f.Mode == "groups" {
		g := step(int64(p.grp))
		switch {
		case g < 0 && start:
			return 0, nil
		case g < 0:
			return -1, nil
		case start:
			return c.gs.startOf(g)
		case g >= int64(n):
			return n - 1, nil
		}
		// The last row of group g is the one before group g+1.
		next, err := c.ge.startOf(g + 1)
		return next - 1, err
	}
	return int(max(min(step(int64(i)), int64(n)), -1)), nil
}

// groupWalker finds the first rows of a partition's peer groups, for
// group numbers that never decrease: row start begins group g (start is
// the partition's size once g is past the last group).
type groupWalker struct {
	p     *winPart
	cur   *winCursor
	g     int64
	start int
	first types.Row
}

// startOf returns the first row of group g (g >= the last g asked), or
// the partition's size when there is no such group.
func (w *groupWalker) startOf(g int64) (int, error) {
	p := w.p
	for w.g < g && w.start < p.n {
		first, err := p.ordAt(w.cur, w.start)
		if err != nil {
			return 0, err
		}
		// The cursor's next read reuses first's storage.
		w.first = append(w.first[:0], first...)
		first = w.first
		j := w.start + 1
		for ; j < p.n; j++ {
			o, err := p.ordAt(w.cur, j)
			if err != nil {
				return 0, err
			}
			if compareKeys(o, first, p.orderBy) != 0 {
				break
			}
		}
		w.start, w.g = j, w.g+1
	}
	if w.g < g {
		return p.n, nil
	}
	return w.start, nil
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
