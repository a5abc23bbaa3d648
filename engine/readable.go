package engine

import (
	"context"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// A materialized view is readable only once its backfill is complete and
// committed. CREATE MATERIALIZED VIEW returns only then, but a restart
// during the backfill brings the view back with its job resuming the
// backfill: until it is done, the view's table holds part of the rows
// (a sum over a quarter of them, say). Reads of such a view, and CREATEs
// that would backfill from it, wait until its backfill completes, under
// the statement's timeout and cancellation.

// awaitReadable waits until the views among ids (every view not FAILED
// when ids is nil) are readable. Relations without a job (tables) are readable.
func (e *Engine) awaitReadable(ctx context.Context, ids []uint32) error {
	if ids != nil && len(ids) == 0 {
		// Nothing to wait for, and no writeMu to take: a DDL holds it
		// while it rewrites or fills a table, and a read of
		// pg_stat_activity or a pg_cancel_backend must not wait for the
		// statement it looks at or would stop.
		return nil
	}
	// A DDL may hold the write lock long (CREATE TABLE AS fills its
	// table under it): the statement's cancel and timeouts end the wait.
	pending := func() ([]*jobRun, error) {
		if err := e.writeMu.lockContext(ctx); err != nil {
			return nil, err
		}
		defer e.writeMu.Unlock()
		var out []*jobRun
		if ids == nil {
			for _, j := range e.st.jobs {
				// A FAILED job's backfill stands still until RESUME:
				// waiting for every view does not wait for it.
				if !j.readable.Load() && !e.st.health.isFailed(j.id) {
					out = append(out, j)
				}
			}
			return out, nil
		}
		for _, id := range ids {
			if j := e.st.jobs[types.JobID(id)]; j != nil && !j.readable.Load() {
				out = append(out, j)
			}
		}
		return out, nil
	}
	pause := 5 * time.Millisecond
	for {
		js, err := pending()
		if err != nil {
			return err
		}
		for _, j := range js {
			if !hasTableScan(j.root) {
				j.readable.Store(true)
			}
		}
		if js, err = pending(); err != nil || len(js) == 0 {
			return err
		}
		// Every actor reports its progress at every barrier: once one
		// more barrier has committed, the reports are complete.
		if err := e.st.drv.Barrier(ctx); err != nil {
			return err
		}
		for _, j := range js {
			if _, _, reported, done := j.backfillState(); reported > 0 && done {
				j.readable.Store(true)
			}
		}
		if js, err = pending(); err != nil || len(js) == 0 {
			return err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctxError(ctx)
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// backfillDone is weir.jobs' backfill_done: whether the job has no
// backfill or every actor of it has reported its backfill done.
func (j *jobRun) backfillDone() bool {
	if j.readable.Load() || !hasTableScan(j.root) {
		return true
	}
	_, _, reported, done := j.backfillState()
	return reported > 0 && done
}

// hasTableScan reports whether the plan rooted at n backfills from a
// table or view.
func hasTableScan(n planner.StreamNode) bool {
	if _, ok := n.(*planner.StreamTableScan); ok {
		return true
	}
	for _, in := range n.StreamInputs() {
		if hasTableScan(in) {
			return true
		}
	}
	return false
}
