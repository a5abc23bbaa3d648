package stream

import (
	"math"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// sourceWatermarker generates the watermark of one source actor from its
// WATERMARK FOR clause (planner.SourceWatermark) and drops the rows that
// arrive behind it.
//
// The watermark advances record by record, as the records are read. A
// partition's watermark is the largest value of the watermark expression
// over the rows kept from it so far, leaving out NULLs, failures and
// infinite times; the source's is the minimum over the partitions that are
// not idle, and it only rises. A partition is idle once it has delivered
// no record for the idle timeout (0: never), so a quiet partition does not
// hold the others back. While a partition that is not idle has delivered
// no row at all, the watermark does not rise.
//
// Each row is judged against the source's watermark as it stands just
// before the row, in its partition's record order: a row whose watermark
// column is below it is late (downstream operators may have closed its
// window already), so it is dropped, counted, and moves no watermark.
// NULLs are never late; -infinity is below every watermark, so it is late
// once the source has one, and infinity never is. Hence, for a single
// partition (and within each partition's own order), which rows are late
// depends on the records alone, not on how they were batched into chunks
// and epochs: every job reading the source drops the same rows, and so
// does a replay after a recovery. Across partitions it also depends on how
// the reader interleaves them, and with an idle timeout on when partitions
// went quiet.
//
// The watermark is emitted at barriers, before the barrier, when it rose
// since the last one (and once after a restart). A row emitted after a
// watermark W was judged against a watermark at least W, so no row below a
// watermark follows it.
type sourceWatermarker struct {
	w *planner.SourceWatermark
	// out is the source's output column of the watermark column (-1 when
	// the source does not output it: late rows are dropped all the same).
	out int
	// expr is the watermark expression; a chunk on which it fails is
	// evaluated row by row (exprEval.evalRow).
	expr *exprEval
	// direct, when set, computes the watermark expression from the
	// watermark column's value alone, without the evaluator
	// (watermarkDirect); nil: the evaluator runs over each chunk.
	direct func(int64) (int64, error)
	idle   time.Duration

	parts map[int32]*partitionWatermark
	// cur is the source's watermark (has: it has one). announce asks to
	// emit it at the next barrier: it rose, or a restart read it back
	// (downstream operators start without it).
	cur      types.Datum
	has      bool
	announce bool
	// changed: cur differs from what the state table holds.
	changed bool
	// late counts the rows dropped since the last report; lateAt is the
	// watermark the last of them was behind.
	late   int64
	lateAt types.Datum
}

// partitionWatermark is one partition's progress: its watermark (has:
// it has one), when it last delivered a record, and whether its
// watermark differs from the state table's row (dirty).
type partitionWatermark struct {
	max   types.Datum
	has   bool
	last  time.Time
	dirty bool
}

// watermarkPartition is the key of the state row holding a source's
// watermark (partitions are never negative).
const watermarkPartition = -1

// partitionWatermarkKey is the key of the state row holding partition
// p's watermark: -2-p, below the source's row and every position, and
// above lateRowsKey and malformedKey while p is at most
// MaxSourcePartition.
func partitionWatermarkKey(p int32) int64 { return -2 - int64(p) }

// lateRowsKey and malformedKey are the keys of the state rows holding
// how many rows the source dropped for arriving behind its watermark and
// how many records it skipped as malformed, up to its positions: the
// two lowest int4 keys.
const (
	lateRowsKey  = math.MinInt32
	malformedKey = math.MinInt32 + 1
)

// MaxSourcePartition is the highest partition number a source reads:
// partition p's watermark row (-2-p) must stay above malformedKey. Kafka
// numbers partitions from 0 up; brokers allow far fewer.
const MaxSourcePartition = math.MaxInt32 - 3

// keyPartition is the partition whose watermark the state row of key k
// holds (k < watermarkPartition).
func keyPartition(k int64) int32 { return int32(-2 - k) }

func newSourceWatermarker(n *planner.StreamSource, ec *executor.EvalCtx) (*sourceWatermarker, error) {
	ev, err := executor.Compile(n.Watermark.Expr)
	if err != nil {
		return nil, err
	}
	sw := &sourceWatermarker{w: n.Watermark, out: -1, expr: &exprEval{ev: ev, t: n.Watermark.T, ec: ec, op: "Source"},
		idle:  time.Duration(n.Watermark.IdleTimeoutMs) * time.Millisecond,
		parts: map[int32]*partitionWatermark{}, direct: watermarkDirect(n.Watermark)}
	for j, c := range n.Cols {
		if c == n.Watermark.Col {
			sw.out = j
			break
		}
	}
	return sw, nil
}

// watermarkDirect returns the watermark expression w.Expr as a function
// of the watermark column's value, when it is the column itself or the
// column plus or minus a constant interval, on a timestamp column (on a
// timestamptz one, an interval of microseconds only, which no time zone
// changes); nil otherwise. It calls what the evaluator's operators call
// (functions.TsPlusInterval), so it gives the same values and fails on
// the same rows. The source evaluates the expression on every row it
// reads; through the evaluator, a vector at a time, that was about a
// twentieth of Nexmark q5's time.
func watermarkDirect(w *planner.SourceWatermark) func(int64) (int64, error) {
	isCol := func(e planner.Expr) bool {
		c, ok := e.(*planner.ColRef)
		return ok && c.Idx == w.Col && c.T == w.T
	}
	if isCol(w.Expr) {
		return func(x int64) (int64, error) { return x, nil }
	}
	call, ok := w.Expr.(*planner.Call)
	if !ok || len(call.Args) != 2 || call.T != w.T || (call.Fn != "+" && call.Fn != "-") {
		return nil
	}
	a, b := call.Args[0], call.Args[1]
	if call.Fn == "+" && !isCol(a) {
		a, b = b, a
	}
	k, ok := b.(*planner.Const)
	if !isCol(a) || !ok || k.T.ID != types.Interval || k.V.Null {
		return nil
	}
	iv := k.V.Iv
	if call.Fn == "-" {
		iv = functions.NegInterval(iv)
	}
	switch {
	case w.T.ID == types.Timestamp:
	case w.T.ID == types.Timestamptz && iv.Months == 0 && iv.Days == 0:
	default:
		return nil
	}
	return func(x int64) (int64, error) { return functions.TsPlusInterval(x, iv) }
}

// restore sets the watermark read back from the state table.
func (sw *sourceWatermarker) restore(v int64) {
	sw.cur, sw.has, sw.announce = types.DInt(v), true, true
}

// restorePartition sets partition p's watermark read back from the state
// table at time now: with every partition's watermark and the source's
// as they were at the checkpoint, the reader goes on exactly as it would
// have (only the idle clocks start again, from now).
func (sw *sourceWatermarker) restorePartition(p int32, v int64, now time.Time) {
	pw := sw.part(p, now)
	pw.max, pw.has = types.DInt(v), true
}

// dirtyPartitions calls f with every partition whose watermark moved
// since the last call, and its watermark.
func (sw *sourceWatermarker) dirtyPartitions(f func(p int32, v int64)) {
	for p, pw := range sw.parts {
		if pw.dirty {
			f(p, pw.max.I)
			pw.dirty = false
		}
	}
}

// part returns partition p's progress, first seen at now.
func (sw *sourceWatermarker) part(p int32, now time.Time) *partitionWatermark {
	pw := sw.parts[p]
	if pw == nil {
		pw = &partitionWatermark{last: now}
		sw.parts[p] = pw
	}
	return pw
}

// observe goes through the rows of c (whole rows of the source relation)
// in order: it drops each late row by clearing its visibility, and folds
// each other one into its partition's watermark, advancing the source's
// before the next row is judged. partitions gives each row's partition
// (nil: 0); positions names every partition being read.
func (sw *sourceWatermarker) observe(actx *ActorContext, c *types.Chunk, partitions []int32, positions map[int32]int64, now time.Time) {
	for p := range positions {
		sw.part(p, now)
	}
	if c == nil || c.Len() == 0 {
		return
	}
	// Rows come in runs of one partition (a chunk of one split holds
	// one): the last row's partition is found again without a map
	// lookup.
	var lastP int32
	var lastPW *partitionWatermark
	partOf := func(i int) *partitionWatermark {
		p := int32(0)
		if i < len(partitions) {
			p = partitions[i]
		}
		if lastPW == nil || p != lastP {
			lastP, lastPW = p, sw.part(p, now)
		}
		return lastPW
	}
	// A partition delivering records is not idle, late ones included.
	for i := 0; i < c.Len(); i++ {
		if c.Visible(i) {
			partOf(i).last = now
		}
	}
	col := c.Cols[sw.w.Col]
	var v *types.Vec
	if sw.direct == nil || col.I == nil {
		var err error
		if v, err = sw.expr.ev.Eval(sw.expr.ec, c); err != nil {
			// Some row fails: the rows kept are evaluated one by one.
			v = nil
		}
	}
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		// The watermark's types hold their values in Datum.I and
		// compare them as integers (types.Compare).
		if sw.has && !col.Nulls[i] && col.I[i] < sw.cur.I {
			if c.Vis == nil {
				c.Vis = make([]bool, c.Len())
				for k := range c.Vis {
					c.Vis[k] = true
				}
			}
			c.Vis[i] = false
			sw.late++
			sw.lateAt = sw.cur
			continue
		}
		// An infinite value would put every later row behind the
		// watermark, and no window can be computed from it (window
		// functions fail on infinite times): it moves nothing.
		if d, ok := sw.value(actx, c, v, i); ok && !types.IsInfinite(d, sw.w.T) {
			sw.raise(partOf(i), d, now)
		}
	}
}

// value returns the watermark expression's value for row i of c: from v
// when the whole chunk evaluated, else evaluated alone, a failure being
// recorded (ActorContext.Errors) and giving no value, as NULL does.
func (sw *sourceWatermarker) value(actx *ActorContext, c *types.Chunk, v *types.Vec, i int) (types.Datum, bool) {
	if col := c.Cols[sw.w.Col]; sw.direct != nil && col.I != nil {
		if col.Nulls[i] {
			return types.Datum{}, false
		}
		if x, err := sw.direct(col.I[i]); err == nil {
			return types.DInt(x), true
		}
		// The evaluator fails the same way, and records the error.
	} else if v != nil {
		if v.Nulls[i] {
			return types.Datum{}, false
		}
		return v.Get(i), true
	}
	d := sw.expr.evalRow(actx, c, i)
	return d, !d.Null
}

// raise folds value d of a row kept from partition pw into its
// watermark and the source's.
func (sw *sourceWatermarker) raise(pw *partitionWatermark, d types.Datum, now time.Time) {
	if pw.has && types.Compare(d, pw.max, sw.w.T) <= 0 {
		return
	}
	// The minimum over the partitions can move only when pw held it: a
	// partition above the source's watermark was not the minimum.
	// (Partitions going idle are noticed at the next barrier or the next
	// rise of the lowest partition.)
	low := !pw.has || !sw.has || types.Compare(pw.max, sw.cur, sw.w.T) <= 0
	pw.max, pw.has, pw.dirty = d, true, true
	if low {
		sw.advance(now)
	}
}

// advance computes the source's watermark at time now: it rises to the
// minimum of the watermarks of the partitions not idle, when each of
// them has one.
func (sw *sourceWatermarker) advance(now time.Time) {
	var lo types.Datum
	found := false
	for _, pw := range sw.parts {
		if sw.idle > 0 && now.Sub(pw.last) >= sw.idle {
			continue
		}
		if !pw.has {
			return
		}
		if !found || types.Compare(pw.max, lo, sw.w.T) < 0 {
			lo, found = pw.max, true
		}
	}
	if found && (!sw.has || types.Compare(lo, sw.cur, sw.w.T) > 0) {
		sw.cur, sw.has, sw.changed, sw.announce = lo, true, true, true
	}
}

// barrier advances the watermark at a barrier at time now (partitions
// may have gone idle since the last record) and returns it when it must
// be emitted: it rose since the last barrier, or it is to be announced.
func (sw *sourceWatermarker) barrier(now time.Time) (types.Watermark, bool) {
	sw.advance(now)
	if !sw.announce || !sw.has || sw.out < 0 {
		return types.Watermark{}, false
	}
	sw.announce = false
	return types.Watermark{Col: sw.out, T: sw.w.T, Val: sw.cur}, true
}
