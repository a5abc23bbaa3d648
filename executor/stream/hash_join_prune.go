package stream

import (
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// maxPrune drops the left rows of a join whose right side is the maximum
// of the left key per TUMBLE window of a left time column
// (planner.JoinMaxPrune, planner/stream_maxprune.go): it keeps, per
// window, the highest key of the left rows seen so far, a lower bound of
// the window's maximum at every later barrier, since those rows are rows
// the maximum aggregates and the maximum of an append-only input only
// grows. A row whose key is below it matches no right row of its window
// from then on, and the join's bounds allow no other window, so it is
// neither joined nor stored. A row on a window's start may also match
// the window before (its end is the row's time) and is always kept, as
// is a row with a NULL key or time.
//
// The highest keys are not state: a join that starts without them (a
// restart, a rescale) keeps more rows, never fewer than it must. The
// windows the left side's watermark on the time column has passed are
// forgotten (no later left row falls into them), and all of them when
// there are more than maxPruneWindows (which only keeps more rows).
type maxPrune struct {
	val, ts      int
	size, offset int64
	// high maps a window's start to the highest key seen in it.
	high map[int64]int64
}

// maxPruneWindows bounds the windows maxPrune remembers.
const maxPruneWindows = 1 << 14

func newMaxPrune(p *planner.JoinMaxPrune, left []types.T) (*maxPrune, error) {
	if p.Value < 0 || p.Value >= len(left) || p.Time < 0 || p.Time >= len(left) || p.Size <= 0 {
		return nil, pgerr.New(pgerr.InternalError, "hash join: max prune on columns %d, %d of %d", p.Value, p.Time, len(left))
	}
	switch left[p.Value].ID {
	case types.Int2, types.Int4, types.Int8:
	default:
		return nil, pgerr.New(pgerr.InternalError, "hash join: max prune on a key of type %s", left[p.Value])
	}
	switch left[p.Time].ID {
	// The planner marks timestamps; the arithmetic is the same on
	// integers.
	case types.Timestamp, types.Timestamptz, types.Int2, types.Int4, types.Int8:
	default:
		return nil, pgerr.New(pgerr.InternalError, "hash join: max prune on a time of type %s", left[p.Time])
	}
	return &maxPrune{val: p.Value, ts: p.Time, size: p.Size, offset: p.Offset, high: map[int64]int64{}}, nil
}

// drop folds row i of c (a left insert) into its window's highest key and
// reports whether the row is below it.
func (p *maxPrune) drop(c *types.Chunk, i int) bool {
	v, t := c.Cols[p.val].Get(i), c.Cols[p.ts].Get(i)
	if v.Null || t.Null {
		return false
	}
	start, err := functions.WindowStart(t.I, p.size, p.offset)
	if err != nil {
		return false
	}
	h, ok := p.high[start]
	if !ok || v.I > h {
		if !ok && len(p.high) >= maxPruneWindows {
			clear(p.high)
		}
		p.high[start] = v.I
		return false
	}
	return v.I < h && start != t.I
}

// watermark forgets the windows that end at or before the left side's
// watermark w on the time column.
func (p *maxPrune) watermark(w types.Watermark) {
	if w.Col != p.ts || w.Val.Null {
		return
	}
	for start := range p.high {
		if start <= w.Val.I-p.size {
			delete(p.high, start)
		}
	}
}
