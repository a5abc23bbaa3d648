package stream

import (
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// sourceWatermarker generates the watermark of one source actor from its
// WATERMARK FOR clause (planner.SourceWatermark) and drops the rows that
// arrive behind it.
//
// Each partition's candidate is the largest value of the watermark
// expression over the rows read from it. The source's watermark is the
// minimum of the candidates of the partitions that are not idle; a
// partition is idle once it has delivered no row for the idle timeout
// (0: never), so a quiet partition does not hold the others back. While
// a partition that is not idle has delivered no row at all, nothing
// advances. The watermark only rises; it is computed and emitted at
// barriers.
//
// A row whose watermark column is below the watermark emitted last is
// late: downstream operators may have closed its window already. It is
// dropped and counted. NULLs are never late.
type sourceWatermarker struct {
	w *planner.SourceWatermark
	// out is the source's output column of the watermark column (-1 when
	// the source does not output it: late rows are dropped all the same).
	out  int
	ev   executor.Evaluator
	ec   *executor.EvalCtx
	idle time.Duration

	parts map[int32]*partitionWatermark
	// cur is the watermark emitted last (has: one was); announce asks to
	// emit it again at the next barrier (after a restart, downstream
	// operators start without it).
	cur      types.Datum
	has      bool
	announce bool
	// changed: cur differs from what the state table holds.
	changed bool
	// late counts the rows dropped since the last report.
	late int64
}

// partitionWatermark is one partition's progress.
type partitionWatermark struct {
	max  types.Datum
	has  bool
	last time.Time
}

// watermarkPartition is the key of the state row holding a source's
// watermark (partitions are never negative).
const watermarkPartition = -1

func newSourceWatermarker(n *planner.StreamSource, ec *executor.EvalCtx) (*sourceWatermarker, error) {
	ev, err := executor.Compile(n.Watermark.Expr)
	if err != nil {
		return nil, err
	}
	sw := &sourceWatermarker{w: n.Watermark, out: -1, ev: ev, ec: ec,
		idle:  time.Duration(n.Watermark.IdleTimeoutMs) * time.Millisecond,
		parts: map[int32]*partitionWatermark{}}
	for j, c := range n.Cols {
		if c == n.Watermark.Col {
			sw.out = j
			break
		}
	}
	return sw, nil
}

// restore sets the watermark read back from the state table.
func (sw *sourceWatermarker) restore(v int64) {
	sw.cur, sw.has, sw.announce = types.DInt(v), true, true
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

// observe drops the late rows of c (whole rows of the source relation)
// by clearing their visibility, and folds the others into their
// partitions' candidates. partitions gives each row's partition (nil: 0);
// positions names every partition being read.
func (sw *sourceWatermarker) observe(actx *ActorContext, c *types.Chunk, partitions []int32, positions map[int32]int64, now time.Time) error {
	for p := range positions {
		sw.part(p, now)
	}
	if c == nil || c.Len() == 0 {
		return nil
	}
	col := c.Cols[sw.w.Col]
	if sw.has {
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) || col.Nulls[i] || types.Compare(col.Get(i), sw.cur, sw.w.T) >= 0 {
				continue
			}
			if c.Vis == nil {
				c.Vis = make([]bool, c.Len())
				for k := range c.Vis {
					c.Vis[k] = true
				}
			}
			c.Vis[i] = false
			sw.late++
		}
	}
	v, err := (&exprEval{ev: sw.ev, t: sw.w.T, ec: sw.ec, op: "Source"}).eval(actx, c)
	if err != nil {
		return err
	}
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		var p int32
		if i < len(partitions) {
			p = partitions[i]
		}
		pw := sw.part(p, now)
		pw.last = now
		if v.Nulls[i] {
			continue
		}
		if d := v.Get(i); !pw.has || types.Compare(d, pw.max, sw.w.T) > 0 {
			pw.max, pw.has = d, true
		}
	}
	return nil
}

// advance computes the watermark at a barrier at time now and returns it
// when it must be emitted: it rose, or it is to be announced.
func (sw *sourceWatermarker) advance(now time.Time) (types.Watermark, bool) {
	var lo types.Datum
	found := false
	for _, pw := range sw.parts {
		if sw.idle > 0 && now.Sub(pw.last) >= sw.idle {
			continue
		}
		if !pw.has {
			found = false
			break
		}
		if !found || types.Compare(pw.max, lo, sw.w.T) < 0 {
			lo, found = pw.max, true
		}
	}
	if found && (!sw.has || types.Compare(lo, sw.cur, sw.w.T) > 0) {
		sw.cur, sw.has, sw.changed, sw.announce = lo, true, true, true
	}
	if !sw.announce || !sw.has || sw.out < 0 {
		return types.Watermark{}, false
	}
	sw.announce = false
	return types.Watermark{Col: sw.out, T: sw.w.T, Val: sw.cur}, true
}
