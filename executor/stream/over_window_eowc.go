package stream

import (
	"container/heap"
	"context"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// EOWCOverWindow computes window functions in EMIT ON WINDOW CLOSE mode
// (planner.StreamOverWindow with EOWC; RisingWave's EowcOverWindow) over
// an unbounded append-only input whose first ORDER BY key (ascending)
// carries a watermark. A row is final once the watermark W has passed
// its ORDER BY value (value < W): every row it ties with has arrived,
// and every later row sorts after it. Each row is emitted once, as an
// insert, when it and the rows its calls need are final: LEAD(x, k) and
// frames ending k FOLLOWING wait for k final rows after it (the
// lookahead). Rows tied on the ORDER BY keys are ordered by the input's
// stream key.
//
// RANGE frames with an offset (on the watermark column, their only
// ORDER BY key) reach by distance instead of by count: a frame ending n
// FOLLOWING makes a row wait until the watermark has passed its value
// plus n (then every row of its frame is final), and one starting n
// PRECEDING (or at the current row's peers) needs the emitted rows whose
// value is at least the next row's minus n.
//
// State: Rows (the buffer) holds, per partition, the rows not emitted
// yet and the last H emitted rows, the most any call reaches back (LAG's
// offset, n PRECEDING, one row for rank), or, with RANGE frames, the
// emitted rows within their reach; it is keyed like OverWindow's, so a
// partition reads in window order: the emitted rows kept, then the final
// rows, then the others. Partitions holds one row per partition: the
// number of rows emitted, the last rank and dense rank, the number of
// emitted rows kept when RANGE frames make it vary, and for each
// aggregate, first_value, last_value or nth_value over a frame starting
// UNBOUNDED PRECEDING its running state and the number of rows folded
// into it, then for each such call whether its state failed: an
// aggregate step or result that fails (a float sum overflowing, 22003)
// is recorded as an expression error (ActorContext.Errors) and the call
// reads NULL for that row and every later one of its partition, whose
// frames hold the failing step too; the job goes on. Every value is thus computed from the buffer and these
// counters, and the state is bounded by the partitions times (H +
// lookahead) plus the rows within the RANGE frames' reach of the
// watermark and the rows not yet final, whatever the number of rows a
// partition has seen.
//
// Chunk: each row goes into the buffer, except rows whose ORDER BY value
// is NULL (never final; dropped) or behind the watermark already applied
// (late; dropped). A retraction is an error: the input must be
// append-only. The partition is noted with the smallest ORDER BY value
// it holds that is not final yet.
//
// Watermark: one on the first ORDER BY column is held until the barrier;
// others are dropped.
//
// Barrier: when the held watermark is above the one applied, it is
// applied: each partition holding a row it makes final is read from the
// buffer, and its rows ready are emitted in order, their values computed
// from the counters and running states (row_number, rank, dense_rank,
// frames from UNBOUNDED PRECEDING) or with the batch Window's code over
// the rows in the buffer (LAG, LEAD, frames starting n PRECEDING or
// later; an aggregate failing over a row's frame gives that row NULL,
// recorded, as OverWindow's). Rows no longer needed leave the buffer. Then the dirty state
// goes into the epoch's write set, the watermark is emitted on the
// ORDER BY column when no call looks ahead by a number of rows (every
// row below it has been emitted; with RANGE frames ending n FOLLOWING it
// is delayed by n) and the barrier is forwarded.
//
// After a recovery the buffer is scanned once (at the first barrier) to
// find the partitions holding rows; the first watermark then completes
// whatever was left, as the counters say what was emitted.
type EOWCOverWindow struct {
	actx  *ActorContext
	input Operator
	plan  *planner.StreamOverWindow
	ec    *executor.ExecCtx
	inTs  []types.T
	nIn   int
	keyTs []types.T
	skTs  []types.T
	// ordCols are the input columns of the ORDER BY keys; tsCol is the
	// first, which carries the watermark.
	ordCols []int
	tsCol   int
	partTs  []types.T
	rows    *storage.StateTable
	parts   *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables
	args   []overArgs
	calls  []*eowcCall
	// hist is how many emitted rows later rows need (H); ahead is how
	// many final rows after a row it needs (the lookahead).
	hist, ahead int64
	// RANGE frames reach by ORDER BY distance instead: ordT is the type
	// of the ORDER BY column. rangeBack holds the offsets of frames
	// starting n PRECEDING, and rangePeers is set for frames starting at
	// the current row's peers: an emitted row stays in the buffer while
	// the next row's frame may still reach it. rangeAhead holds the
	// offsets of frames ending n FOLLOWING: a row waits until the
	// watermark passes its value plus n. byDistance is set when the
	// number of emitted rows kept varies (planner.KeepsByDistance), so
	// Partitions counts them.
	ordT       types.T
	rangeBack  []types.Datum
	rangePeers bool
	rangeAhead []types.Datum
	byDistance bool
	wmOut      bool

	started bool
	// w is the watermark applied (valid when hasW), held the highest one
	// received since.
	w, held       int64
	hasW, hasHeld bool
	wmMsg         types.Watermark
	// pending maps each partition holding a row that is not final yet
	// (encoded key) to the smallest such ORDER BY value; due orders them
	// by that value, lazily (an entry that no longer matches pending is
	// skipped).
	pending map[string]*eowcPending
	due     eowcHeap
	out     []types.Message
	ob      outBuilder
	kbuf    []byte
}

type eowcPending struct {
	key   types.Row
	minTs int64
}

// eowcCall is how one call is computed: kind says which state it uses.
type eowcCall struct {
	call planner.WindowCall
	kind eowcKind
	// For eowcRunning: the end of the frame (rows: offset from the
	// current row; peers: the current row's last peer), and a
	// constructor of the aggregate's accumulator (nil for first_value,
	// last_value and nth_value, whose running state is one value).
	endOff   int64
	endPeers bool
	// endRange: a RANGE frame ending endOffV PRECEDING (endSub) or
	// FOLLOWING: it folds in the rows whose value is within the offset.
	endRange bool
	endOffV  types.Datum
	endSub   bool
	mk       func() functions.Accumulator
	stateTs  []types.T
	nth      int64
	nthNull  bool
}

type eowcKind uint8

const (
	eowcRowNumber eowcKind = iota
	eowcRank
	eowcDenseRank
	// eowcRunning: a frame starting UNBOUNDED PRECEDING, kept as a
	// running state in Partitions.
	eowcRunning
	// eowcBuffer: computed over the rows in the buffer (LAG, LEAD,
	// frames starting n PRECEDING or later).
	eowcBuffer
)

// eowcRun is the running state of one eowcRunning call in one
// partition: n rows folded in, into acc or (value functions) v; failed
// once a step or the result of acc failed (runFailed), after which the
// rows are counted in n and not folded into acc.
type eowcRun struct {
	n      int64
	acc    functions.Accumulator
	v      types.Datum
	failed bool
}

var _ Operator = (*EOWCOverWindow)(nil)

// NewEOWCOverWindow returns an EOWCOverWindow over input for n. Errors:
// 0A000 for a call or frame that would wait for rows that never become
// final or keep unbounded state (the planner refuses them first), 22013
// for a negative offset, 22016 for nth_value's argument below one.
func NewEOWCOverWindow(actx *ActorContext, input Operator, n *planner.StreamOverWindow) (*EOWCOverWindow, error) {
	o := &EOWCOverWindow{actx: actx, input: input, plan: n, pending: map[string]*eowcPending{}}
	o.ec = overExecCtx(actx)
	var err error
	o.inTs, o.keyTs, o.skTs, o.ordCols, err = overKeyTypes(n)
	if err != nil {
		return nil, err
	}
	o.nIn = len(o.inTs)
	if len(o.ordCols) == 0 || n.OrderBy[0].Desc || n.OrderBy[0].NullsFirst || !planner.WatermarkTypeOK(o.inTs[o.ordCols[0]]) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE needs window functions ordered by a column with a watermark")
	}
	o.tsCol = o.ordCols[0]
	o.ordT = o.inTs[o.tsCol]
	if o.args, err = overCallArgs(n, o.ec); err != nil {
		return nil, err
	}
	valTs := append([]types.T(nil), o.keyTs[:len(n.PartitionBy)]...)
	o.partTs = append([]types.T(nil), valTs...)
	valTs = append(valTs, types.TInt8, types.TInt8, types.TInt8)
	if o.byDistance = slices.ContainsFunc(n.Calls, planner.KeepsByDistance); o.byDistance {
		valTs = append(valTs, types.TInt8)
	}
	for i, c := range n.Calls {
		ec, err := o.newCall(c, o.args[i])
		if err != nil {
			return nil, err
		}
		o.calls = append(o.calls, ec)
		if ec.kind == eowcRunning {
			valTs = append(valTs, types.TInt8)
			valTs = append(valTs, ec.stateTs...)
		}
	}
	// After every running state, one boolean per running call: its
	// state failed (eowcRun.failed). Rows written before these columns
	// existed read them as NULL, not failed.
	for _, ec := range o.calls {
		if ec.kind == eowcRunning {
			valTs = append(valTs, types.TBool)
		}
	}
	o.wmOut = slices.Contains(n.Watermarks, o.tsCol)
	if o.wmOut && o.ahead > 0 {
		return nil, pgerr.New(pgerr.InternalError, "EOWC over window: a watermark on the output of calls that look ahead")
	}
	o.rows = o.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.Rows.ID, o.keyTs, o.inTs, actx.Cache)))
	o.rows.SetDesc(overKeyDesc(n))
	o.parts = o.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.Partitions.ID, o.partTs, valTs, actx.Cache)))
	// The scan at recovery must find only this actor's partitions; the
	// buffer holds input rows, hashed by their own columns.
	keep, err := partitionKeep(actx, n.Input.Base().Dist, func(c int) int { return c }, o.inTs)
	if err != nil {
		return nil, err
	}
	o.rows.SetPartition(keep)
	o.ob.ts = n.Out.Types()
	return o, nil
}

// newCall classifies c and records how far back and ahead it reaches.
func (o *EOWCOverWindow) newCall(c planner.WindowCall, args overArgs) (*eowcCall, error) {
	ec := &eowcCall{call: c, kind: eowcBuffer}
	back := func(n int64) { o.hist = max(o.hist, n) }
	ahead := func(n int64) { o.ahead = max(o.ahead, n) }
	constArg := func(j int) (types.Datum, error) { return eowcConstArg(c, args, j) }
	switch c.Fn {
	case "row_number":
		ec.kind = eowcRowNumber
		return ec, nil
	case "rank", "dense_rank":
		ec.kind = eowcRank
		if c.Fn == "dense_rank" {
			ec.kind = eowcDenseRank
		}
		back(1)
		return ec, nil
	case "lag", "lead":
		off := int64(1)
		if len(args.col) > 1 {
			d, err := constArg(1)
			if err != nil {
				return nil, err
			}
			if d.Null {
				return ec, nil
			}
			off = d.I
		}
		if c.Fn == "lag" {
			off = -off
		}
		if off < 0 {
			back(-off)
		} else {
			ahead(off)
		}
		return ec, nil
	case "ntile", "percent_rank", "cume_dist":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "window function %s() is not supported with EMIT ON WINDOW CLOSE", c.Fn)
	}
	if err := checkWindowCall(c); err != nil {
		return nil, err
	}
	// A frame function: an aggregate, first_value, last_value or
	// nth_value. Without a frame clause the frame is RANGE UNBOUNDED
	// PRECEDING to the current row's last peer.
	if f := c.Frame; f != nil && f.Mode == "range" {
		return o.newRangeCall(ec, args)
	}
	start, end := planner.FrameBound{Kind: "unbounded_preceding"}, planner.FrameBound{Kind: "current_row"}
	peers := true
	if f := c.Frame; f != nil {
		start, end = f.Start, f.End
		if f.Mode != "rows" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s frames are not supported with EMIT ON WINDOW CLOSE", strings.ToUpper(f.Mode))
		}
		peers = false
	}
	offset := func(b planner.FrameBound, isStart bool) (int64, error) {
		switch b.Kind {
		case "current_row", "unbounded_preceding":
			return 0, nil
		case "unbounded_following":
			return 0, pgerr.New(pgerr.FeatureNotSupported, "frames ending UNBOUNDED FOLLOWING are not supported with EMIT ON WINDOW CLOSE")
		}
		v, err := executor.FrameOffset(c.Frame, isStart, o.ec)
		if err != nil {
			return 0, err
		}
		if b.Kind == "preceding" {
			return -v.I, nil
		}
		return v.I, nil
	}
	s, err := offset(start, true)
	if err != nil {
		return nil, err
	}
	e, err := offset(end, false)
	if err != nil {
		return nil, err
	}
	back(max(-e, 0))
	ahead(max(e, 0))
	if start.Kind != "unbounded_preceding" {
		back(max(-s, 0))
		ahead(max(s, 0))
		return ec, nil
	}
	ec.kind, ec.endOff, ec.endPeers = eowcRunning, e, peers && end.Kind == "current_row"
	return o.runningCall(ec, args)
}

// newRangeCall classifies c, a frame function over a RANGE frame, and
// records how far back and ahead its frame reaches by ORDER BY distance.
// Offsets are checked now, so a view fails when it is created rather
// than at its first row: 22004 for NULL, 22013 for a negative one.
func (o *EOWCOverWindow) newRangeCall(ec *eowcCall, args overArgs) (*eowcCall, error) {
	f := ec.call.Frame
	offset := func(isStart bool) (types.Datum, error) {
		v, err := executor.FrameOffset(f, isStart, o.ec)
		if err != nil || v.Null {
			return v, err
		}
		if _, err := executor.RangeReach(&o.ec.Eval, o.ordT, 0, v); err != nil {
			return types.NullDatum, err
		}
		return v, nil
	}
	so, err := offset(true)
	if err != nil {
		return nil, err
	}
	eo, err := offset(false)
	if err != nil {
		return nil, err
	}
	switch f.End.Kind {
	case "unbounded_following":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "frames ending UNBOUNDED FOLLOWING are not supported with EMIT ON WINDOW CLOSE")
	case "following":
		if eo.I != 0 || eo.Iv != (types.IntervalVal{}) {
			o.rangeAhead = append(o.rangeAhead, eo)
		}
	}
	switch f.Start.Kind {
	case "preceding":
		o.rangeBack = append(o.rangeBack, so)
	case "current_row":
		o.rangePeers = true
	case "unbounded_preceding":
		ec.kind = eowcRunning
		if f.End.Kind == "current_row" {
			ec.endPeers = true
		} else {
			ec.endRange, ec.endOffV, ec.endSub = true, eo, f.End.Kind == "preceding"
		}
		return o.runningCall(ec, args)
	}
	// A frame starting n FOLLOWING needs no row before the current one.
	return ec, nil
}

// runningCall sets up the running state of ec, a frame function over a
// frame starting UNBOUNDED PRECEDING: one value for first_value,
// last_value and nth_value, an aggregate's state otherwise.
func (o *EOWCOverWindow) runningCall(ec *eowcCall, args overArgs) (*eowcCall, error) {
	c := ec.call
	switch c.Fn {
	case "first_value", "last_value", "nth_value":
		ec.stateTs = []types.T{c.T}
		if c.Fn == "nth_value" {
			d, err := eowcConstArg(c, args, 1)
			if err != nil {
				return nil, err
			}
			if !d.Null && d.I <= 0 {
				return nil, pgerr.New("22016", "argument of nth_value must be greater than zero")
			}
			ec.nth, ec.nthNull = d.I, d.Null
		}
		return ec, nil
	}
	var err error
	ts := make([]types.T, len(c.Args))
	for i, a := range c.Args {
		ts[i] = a.Type()
	}
	ec.mk, err = functions.NewAccumulatorFunc(functions.AggSpec{Fn: c.Fn, ArgTypes: ts, T: c.T})
	if err != nil {
		return nil, err
	}
	var ok bool
	if ec.stateTs, ok = functions.AccumulatorStateTypes(ec.mk()); !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregate %s() over a frame starting UNBOUNDED PRECEDING is not supported with EMIT ON WINDOW CLOSE", c.Fn)
	}
	return ec, nil
}

// eowcConstArg returns argument j of c, which must be a constant.
func eowcConstArg(c planner.WindowCall, args overArgs, j int) (types.Datum, error) {
	if j >= len(args.col) {
		return types.NullDatum, pgerr.New(pgerr.InternalError, "%s has no argument %d", c.Fn, j+1)
	}
	if args.col[j] >= 0 {
		return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "the offset of %s() must be a constant with EMIT ON WINDOW CLOSE", c.Fn)
	}
	return args.consts[j], nil
}

// Next implements Operator.
func (o *EOWCOverWindow) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(o.out) > 0 {
			m := o.out[0]
			o.out[0] = nil
			o.out = o.out[1:]
			return m, nil
		}
		msg, err := o.input.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if !o.started {
				return nil, pgerr.New(pgerr.InternalError, "over window got a chunk before the first barrier")
			}
			if err := o.applyChunk(m); err != nil {
				return nil, err
			}
		case types.Watermark:
			if m.Col == o.tsCol && !m.Val.Null && (!o.hasHeld || m.Val.I > o.held) {
				o.held, o.hasHeld, o.wmMsg = m.Val.I, true, m
			}
		case types.Barrier:
			if err := o.barrier(m); err != nil {
				return nil, err
			}
		}
	}
}

func (o *EOWCOverWindow) applyChunk(c *types.Chunk) error {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		if op := c.Op(i); op != types.OpInsert {
			return pgerr.New(pgerr.InternalError, "EMIT ON WINDOW CLOSE over window got a %s row; its input must be append-only", op)
		}
		ts := c.Cols[o.tsCol].Get(i)
		if ts.Null || o.hasW && ts.I < o.w {
			continue
		}
		row := make(types.Row, o.nIn)
		for j, v := range c.Cols {
			row[j] = detach(v.Get(i))
		}
		o.rows.Insert(overStateKey(o.plan, o.ordCols, row), row)
		o.notePending(row, ts.I)
	}
	return nil
}

// notePending records that row's partition holds a row of ORDER BY value
// ts that is not final yet.
func (o *EOWCOverWindow) notePending(row types.Row, ts int64) {
	pk := o.partKey(row)
	o.kbuf = o.parts.EncodeKey(o.kbuf[:0], pk)
	p, ok := o.pending[string(o.kbuf)]
	if ok && p.minTs <= ts {
		return
	}
	if !ok {
		p = &eowcPending{key: pk}
		o.pending[string(o.kbuf)] = p
	}
	p.minTs = ts
	heap.Push(&o.due, eowcDue{ts: ts, key: string(o.kbuf)})
}

func (o *EOWCOverWindow) partKey(row types.Row) types.Row {
	pk := make(types.Row, len(o.plan.PartitionBy))
	for i, c := range o.plan.PartitionBy {
		pk[i] = row[c]
	}
	return pk
}

func (o *EOWCOverWindow) barrier(b types.Barrier) error {
	if !o.started {
		if err := o.recover(); err != nil {
			return err
		}
		o.started = true
	}
	advanced := o.hasHeld && (!o.hasW || o.held > o.w)
	if advanced {
		o.w, o.hasW = o.held, true
		if err := o.applyWatermark(); err != nil {
			return err
		}
	}
	o.out = o.ob.take(o.out)
	if err := o.states.Barrier(o.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	if advanced && o.wmOut {
		wm := o.wmMsg
		if len(o.rangeAhead) > 0 {
			v, err := o.delayedWatermark()
			if err != nil {
				return err
			}
			wm.Val = types.DInt(v)
		}
		o.out = append(o.out, wm)
	}
	o.out = append(o.out, b)
	return nil
}

// recover finds the partitions of this actor that hold rows in the
// buffer. Each is noted with its smallest ORDER BY value, so the first
// watermark reads it again: emitting what was not emitted yet is all
// that reading does to a partition whose state is up to date.
func (o *EOWCOverWindow) recover() error {
	it := o.rows.Iter(nil, false)
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			return err
		}
		if r == nil {
			return nil
		}
		o.notePending(r, r[o.tsCol].I)
	}
}

// applyWatermark processes, in key order, every partition holding a row
// that the watermark o.w makes final or a row waiting for it to pass its
// RANGE frame's reach.
func (o *EOWCOverWindow) applyWatermark() error {
	var keys []string
	seen := map[string]bool{}
	for o.due.Len() > 0 && o.due[0].ts < o.w {
		d := heap.Pop(&o.due).(eowcDue)
		if p := o.pending[d.key]; p != nil && p.minTs == d.ts && !seen[d.key] {
			seen[d.key] = true
			keys = append(keys, d.key)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := o.pending[k]
		next, more, err := o.process(p.key)
		if err != nil {
			return err
		}
		if !more {
			delete(o.pending, k)
			continue
		}
		p.minTs = next
		heap.Push(&o.due, eowcDue{ts: next, key: k})
	}
	return nil
}

// eowcPart is the state of one partition (a row of Partitions): the
// rows emitted, the last rank and dense rank, the emitted rows the
// buffer keeps (when that number varies) and the running states.
type eowcPart struct {
	emitted, rank, dense, kept int64
	runs                       []*eowcRun
}

// process emits the rows of partition pk that are ready under watermark
// o.w and updates its state. It returns the value the watermark must
// pass for the partition to have a row to process again: the smallest
// ORDER BY value of its rows that are not final, or the reach of the
// RANGE frame of a final row waiting for it, if it has any.
func (o *EOWCOverWindow) process(pk types.Row) (next int64, more bool, err error) {
	st, err := o.loadPartition(pk)
	if err != nil {
		return 0, false, err
	}
	hcount := min(st.emitted, o.hist)
	if o.byDistance {
		hcount = st.kept
	}
	// rows are the emitted rows kept, then the final rows not emitted.
	var rows []types.Row
	it := o.rows.Iter(pk, false)
	for idx := int64(0); ; idx++ {
		r, err := it.Next()
		if err != nil {
			it.Close()
			return 0, false, err
		}
		if r == nil {
			break
		}
		if idx >= hcount && r[o.tsCol].I >= o.w {
			next, more = r[o.tsCol].I, true
			break
		}
		rows = append(rows, r)
	}
	it.Close()
	base := st.emitted - hcount
	upTo := base + int64(len(rows)) - o.ahead
	// A row whose RANGE frame reaches n FOLLOWING waits until the
	// watermark has passed its value plus n; rows ascend, so those ready
	// are a prefix.
	for i := st.emitted; i < upTo && len(o.rangeAhead) > 0; i++ {
		reach, err := o.reach(rows[i-base])
		if err != nil {
			return 0, false, err
		}
		if reach >= o.w {
			upTo = i
			if !more || reach < next {
				next, more = reach, true
			}
		}
	}
	if upTo <= st.emitted {
		return next, more, nil
	}
	bufVals, err := o.bufferValues(rows, int(st.emitted-base), int(upTo-base))
	if err != nil {
		return 0, false, err
	}
	for i := st.emitted; i < upTo; i++ {
		k := i - base
		out := make(types.Row, 0, len(o.plan.Out))
		out = append(out, rows[k][:o.nIn]...)
		tie := k > 0 && o.sameOrder(rows[k-1], rows[k])
		for ci, c := range o.calls {
			switch c.kind {
			case eowcRowNumber:
				out = append(out, types.DInt(i+1))
			case eowcRank:
				if !tie {
					st.rank = i + 1
				}
				out = append(out, types.DInt(st.rank))
			case eowcDenseRank:
				if !tie {
					st.dense++
				}
				out = append(out, types.DInt(st.dense))
			case eowcRunning:
				v, err := o.runTo(c, st.runs[ci], ci, rows, base, i, k)
				if err != nil {
					return 0, false, err
				}
				out = append(out, v)
			default:
				out = append(out, bufVals[ci][k])
			}
		}
		o.ob.add(types.OpInsert, out)
	}
	st.emitted = upTo
	// The next row to emit has the value of the first final row left,
	// or, when none is left, one at or above the watermark.
	nextVal := types.DInt(o.w)
	if k := st.emitted - base; k < int64(len(rows)) {
		nextVal = rows[k][o.tsCol]
	}
	var dropped int64
	for k := 0; k < len(rows) && base+int64(k) < st.emitted-o.hist; k++ {
		if o.byDistance {
			needed, err := o.neededLater(rows[k], base+int64(k), nextVal, st.runs)
			if err != nil {
				return 0, false, err
			}
			if needed {
				break
			}
		}
		o.rows.Delete(overStateKey(o.plan, o.ordCols, rows[k]))
		dropped++
	}
	st.kept = st.emitted - base - dropped
	o.storePartition(pk, st)
	return next, more, nil
}

// reach returns the last ORDER BY value the RANGE frames ending n
// FOLLOWING of row reach: the row is ready once the watermark is above.
func (o *EOWCOverWindow) reach(row types.Row) (int64, error) {
	var out int64 = math.MinInt64
	for _, off := range o.rangeAhead {
		r, err := executor.RangeReach(&o.ec.Eval, o.ordT, row[o.tsCol].I, off)
		if err != nil {
			return 0, err
		}
		out = max(out, r)
	}
	return out, nil
}

// delayedWatermark returns the watermark of the output when RANGE
// frames look ahead: a row still to come is either not final yet (its
// value at least o.w) or waits for the watermark to pass its frame's
// reach, so its value is at least the smallest one whose reach is at or
// above o.w. Reach grows with the value, so a search finds it; for a
// plain offset it is o.w minus the offset.
func (o *EOWCOverWindow) delayedWatermark() (int64, error) {
	out := o.w
	for _, off := range o.rangeAhead {
		reach := func(v int64) (bool, error) {
			r, err := executor.RangeReach(&o.ec.Eval, o.ordT, v, off)
			return r >= o.w, err
		}
		// lo: a value whose reach is below the watermark (or the least
		// one); hi: one whose reach is not.
		hi := o.w
		if ok, err := reach(hi); err != nil || !ok {
			if err != nil {
				return 0, err
			}
			continue
		}
		lo, found := int64(math.MinInt64), false
		for step := int64(1); step > 0 && o.w >= math.MinInt64+step; step *= 2 {
			ok, err := reach(o.w - step)
			if err != nil {
				return 0, err
			}
			if !ok {
				lo, found = o.w-step, true
				break
			}
			hi = o.w - step
		}
		if !found {
			ok, err := reach(lo)
			if err != nil {
				return 0, err
			}
			if ok {
				hi = lo // every value reaches the watermark
			}
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			ok, err := reach(mid)
			if err != nil {
				return 0, err
			}
			if ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		out = min(out, hi)
	}
	return out, nil
}

// neededLater reports whether the emitted row at partition index idx
// must stay in the buffer: a RANGE frame of a row still to come, whose
// ORDER BY value is at least next, may reach back to it, or a running
// RANGE frame has not folded it in yet.
func (o *EOWCOverWindow) neededLater(row types.Row, idx int64, next types.Datum, runs []*eowcRun) (bool, error) {
	v := row[o.tsCol]
	if o.rangePeers && v.I >= next.I {
		return true, nil
	}
	for _, off := range o.rangeBack {
		in, err := executor.InRange(&o.ec.Eval, o.ordT, v, next, off, true, false)
		if err != nil || in {
			return in, err
		}
	}
	for ci, c := range o.calls {
		if c.kind == eowcRunning && runs[ci].n <= idx {
			return true, nil
		}
	}
	return false, nil
}

// sameOrder reports whether rows a and b tie on every ORDER BY key
// (NULLs equal).
func (o *EOWCOverWindow) sameOrder(a, b types.Row) bool {
	for _, c := range o.ordCols {
		x, y := a[c], b[c]
		if x.Null || y.Null {
			if x.Null != y.Null {
				return false
			}
			continue
		}
		if types.Compare(x, y, o.inTs[c]) != 0 {
			return false
		}
	}
	return true
}

// bufferValues computes the eowcBuffer calls over rows (the emitted rows
// kept, then the final ones) with the batch Window's code. The buffer
// holds every row they reach (hist back, ahead forward), so the values of
// the rows to emit, [from, to) in rows, are those over the whole
// partition; their errors are recorded (overValues).
func (o *EOWCOverWindow) bufferValues(rows []types.Row, from, to int) ([][]types.Datum, error) {
	var idx []int
	var calls []planner.WindowCall
	var args []overArgs
	for ci, c := range o.calls {
		if c.kind == eowcBuffer {
			idx = append(idx, ci)
			calls = append(calls, c.call)
			args = append(args, o.args[ci])
		}
	}
	out := make([][]types.Datum, len(o.calls))
	if len(calls) == 0 {
		return out, nil
	}
	n := &planner.StreamOverWindow{Calls: calls}
	vals, err := overValues(n, args, o.ordCols, rows, o.ec, o.actx, from, to)
	if err != nil {
		return nil, err
	}
	for j, ci := range idx {
		out[ci] = vals[j]
	}
	return out, nil
}

// runTo folds the rows of call c's frame for row i (at k in rows, whose
// first row is row base of the partition) into its running state r and
// returns the call's value.
func (o *EOWCOverWindow) runTo(c *eowcCall, r *eowcRun, ci int, rows []types.Row, base, i int64, k int64) (types.Datum, error) {
	hi := i + c.endOff
	switch {
	case c.endPeers:
		j := k
		for j+1 < int64(len(rows)) && o.sameOrder(rows[j+1], rows[k]) {
			j++
		}
		hi = base + j
	case c.endRange:
		// The frame ends at the last row within the offset of this one;
		// the rows up to it are final, and those not folded in yet are
		// in the buffer.
		hi = r.n - 1
		for j := r.n - base; j < int64(len(rows)); j++ {
			in, err := executor.InRange(&o.ec.Eval, o.ordT, rows[j][o.tsCol], rows[k][o.tsCol], c.endOffV, c.endSub, true)
			if err != nil {
				return types.NullDatum, err
			}
			if !in {
				break
			}
			hi = base + j
		}
	}
	for ; r.n <= hi; r.n++ {
		row := rows[r.n-base]
		if c.mk == nil {
			v := o.args[ci].row(row)[0]
			switch {
			case c.call.Fn == "last_value", c.call.Fn == "first_value" && r.n == 0, c.call.Fn == "nth_value" && !c.nthNull && r.n == c.nth-1:
				r.v = v
			}
			continue
		}
		if r.failed {
			continue
		}
		if err := r.acc.Add(o.args[ci].row(row)); err != nil {
			if err = o.runFailed(r, err); err != nil {
				return types.NullDatum, err
			}
		}
	}
	if c.mk != nil {
		if r.failed {
			return types.NullDatum, nil
		}
		d, err := functions.AccumulatorResult(r.acc)
		if err != nil {
			return types.NullDatum, o.runFailed(r, err)
		}
		return d, nil
	}
	if r.n == 0 || c.call.Fn == "nth_value" && (c.nthNull || r.n < c.nth) {
		return types.NullDatum, nil
	}
	return r.v, nil
}

// runFailed records err, an aggregate's step or result failing in a
// running state (22003 for a float sum that overflows), and marks the
// state failed: PostgreSQL's query fails there, and every later frame
// of the partition holds the failing step too, so the call reads NULL
// from this row on. An internal error is returned instead, and fails
// the job.
func (o *EOWCOverWindow) runFailed(r *eowcRun, err error) error {
	if pgerr.CodeOf(err) == pgerr.InternalError {
		return err
	}
	recordError(o.actx, "EOWCOverWindow", err)
	r.failed = true
	return nil
}

// loadPartition reads partition pk's counters and running states (zero
// for a partition not seen yet).
func (o *EOWCOverWindow) loadPartition(pk types.Row) (*eowcPart, error) {
	row, ok, err := o.parts.Get(pk)
	if err != nil {
		return nil, err
	}
	st := &eowcPart{runs: make([]*eowcRun, len(o.calls))}
	at := len(o.partTs)
	if ok {
		st.emitted, st.rank, st.dense = row[at].I, row[at+1].I, row[at+2].I
	}
	at += 3
	if o.byDistance {
		if ok {
			st.kept = row[at].I
		}
		at++
	}
	for ci, c := range o.calls {
		if c.kind != eowcRunning {
			continue
		}
		r := &eowcRun{v: types.NullDatum}
		if c.mk != nil {
			r.acc = c.mk()
		}
		if ok {
			r.n = row[at].I
			vals := row[at+1 : at+1+len(c.stateTs)]
			if c.mk != nil {
				if err := functions.SetAccumulatorState(r.acc, vals); err != nil {
					return nil, err
				}
			} else {
				r.v = vals[0]
			}
		}
		at += 1 + len(c.stateTs)
		st.runs[ci] = r
	}
	for ci, c := range o.calls {
		if c.kind != eowcRunning {
			continue
		}
		if ok && at < len(row) {
			st.runs[ci].failed = !row[at].Null && row[at].I != 0
		}
		at++
	}
	return st, nil
}

// storePartition writes partition pk's counters and running states.
func (o *EOWCOverWindow) storePartition(pk types.Row, st *eowcPart) {
	row := append(types.Row(nil), pk...)
	row = append(row, types.DInt(st.emitted), types.DInt(st.rank), types.DInt(st.dense))
	if o.byDistance {
		row = append(row, types.DInt(st.kept))
	}
	for ci, c := range o.calls {
		if c.kind != eowcRunning {
			continue
		}
		r := st.runs[ci]
		row = append(row, types.DInt(r.n))
		if c.mk != nil {
			row = functions.AppendAccumulatorState(row, r.acc)
		} else {
			row = append(row, detach(r.v))
		}
	}
	for ci, c := range o.calls {
		if c.kind == eowcRunning {
			row = append(row, types.DBool(st.runs[ci].failed))
		}
	}
	o.parts.Update(pk, row)
}

// Close implements Operator.
func (o *EOWCOverWindow) Close() {
	if o.input != nil {
		o.input.Close()
		o.input = nil
	}
}

// eowcDue is one entry of the heap of partitions by the smallest ORDER BY
// value they hold that is not final.
type eowcDue struct {
	ts  int64
	key string
}

type eowcHeap []eowcDue

func (h eowcHeap) Len() int { return len(h) }
func (h eowcHeap) Less(i, j int) bool {
	return h[i].ts < h[j].ts || h[i].ts == h[j].ts && h[i].key < h[j].key
}
func (h eowcHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eowcHeap) Push(x any)   { *h = append(*h, x.(eowcDue)) }
func (h *eowcHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
