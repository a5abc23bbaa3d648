package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file carries watermarks across views (DESIGN.md §2). A view's job
// emits watermarks on the columns its plan derives from a watermarked
// column (planner.WithViewWatermarks); its relay passes them on to the
// jobs reading the view, on the view's columns, as it passes on the
// view's changes and barriers. The relay keeps the highest watermark of
// each column, passes on only those that rise (so the readers see them
// monotonic, whatever the upstream job sends after a restart), and sends
// them again ahead of every barrier: a reader gets them as soon as its
// backfill is done (a backfill drops watermarks, its snapshot rows may be
// below them), even when the view's watermark has not moved since. The
// watermarks are stored with every checkpoint, in the batch of the epoch
// being sealed (everything the relay has passed on by then came before
// that epoch's barrier, so the committed state of the view's job has
// emitted it), and a rebuilt job (after a restart or a recovery) starts
// from the committed ones: a reader that resumes, or one created later,
// gets the watermark at once, and it never goes back.

// viewWatermarkMetaKey names the meta entry holding view relID's
// watermarks: "col:value" pairs (value: the watermark's Datum.I),
// comma-separated.
func viewWatermarkMetaKey(relID uint32) string {
	return "view/watermark/" + strconv.FormatUint(uint64(relID), 10)
}

// watermarks returns the view's watermarks, by column.
func (j *jobRun) watermarks() []types.Watermark {
	j.wmMu.Lock()
	defer j.wmMu.Unlock()
	out := make([]types.Watermark, 0, len(j.wms))
	for _, c := range slices.Sorted(maps.Keys(j.wms)) {
		out = append(out, j.wms[c])
	}
	return out
}

// raiseWatermark records w, a watermark on a column of the view, and
// reports whether it rose (only then is it passed on).
func (j *jobRun) raiseWatermark(w types.Watermark) bool {
	j.wmMu.Lock()
	defer j.wmMu.Unlock()
	if cur, ok := j.wms[w.Col]; ok && types.Compare(w.Val, cur.Val, w.T) <= 0 {
		return false
	}
	if j.wms == nil {
		j.wms = map[int]types.Watermark{}
	}
	j.wms[w.Col] = types.Watermark{Col: w.Col, T: w.T, Val: types.DInt(w.Val.I)}
	return true
}

// loadViewWatermarks sets the watermarks of view job j to the committed
// ones. Entries naming no column of the view that can carry a watermark
// are ignored.
func (e *Engine) loadViewWatermarks(j *jobRun) error {
	if j.mat == nil || j.rel.Kind != catalog.KindMView {
		return nil
	}
	v, ok, err := e.db.Meta(viewWatermarkMetaKey(j.rel.ID))
	if err != nil || !ok {
		return err
	}
	wms := map[int]types.Watermark{}
	stored := map[int]int64{}
	for _, f := range strings.Split(string(v), ",") {
		c, val, ok := strings.Cut(f, ":")
		col, err1 := strconv.Atoi(c)
		i, err2 := strconv.ParseInt(val, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return pgerr.New(pgerr.DataCorrupted, "view %d: stored watermarks %q", j.rel.ID, v)
		}
		if col < 0 || col >= len(j.rel.Cols) {
			continue
		}
		wms[col] = types.Watermark{Col: col, T: j.rel.Cols[col].T, Val: types.DInt(i)}
		stored[col] = i
	}
	j.wmMu.Lock()
	j.wms, j.stored = wms, stored
	j.wmMu.Unlock()
	return nil
}

// storeViewWatermarks writes the views' watermarks that moved into b,
// the batch of the epoch being sealed. Called under writeMu.
func (e *Engine) storeViewWatermarks(b *storage.Batch) {
	for _, j := range e.st.sortedJobs() {
		if j.mat == nil || j.rel.Kind != catalog.KindMView {
			continue
		}
		j.wmMu.Lock()
		moved := false
		for c, w := range j.wms {
			if v, ok := j.stored[c]; !ok || v != w.Val.I {
				moved = true
			}
		}
		if !moved {
			j.wmMu.Unlock()
			continue
		}
		parts := make([]string, 0, len(j.wms))
		stored := make(map[int]int64, len(j.wms))
		for _, c := range slices.Sorted(maps.Keys(j.wms)) {
			parts = append(parts, strconv.Itoa(c)+":"+strconv.FormatInt(j.wms[c].Val.I, 10))
			stored[c] = j.wms[c].Val.I
		}
		j.wmMu.Unlock()
		if err := b.SetMeta(viewWatermarkMetaKey(j.rel.ID), []byte(strings.Join(parts, ","))); err != nil {
			e.log.Error("storing a view's watermarks", "view", j.rel.Name, "err", err)
			continue
		}
		j.wmMu.Lock()
		j.stored = stored
		j.wmMu.Unlock()
	}
}
