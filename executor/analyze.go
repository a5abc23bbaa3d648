package executor

import (
	"context"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Analyze collects what EXPLAIN ANALYZE prints: for each plan node, how
// many times its operator ran (a correlated subquery or the inner side
// of a lateral join runs once per outer row), the rows it returned and
// the time spent in its Next calls, its inputs' included (PostgreSQL's
// "actual time"). Build wraps every operator it builds when
// ExecCtx.Analyze is set; operators of one statement run on one
// goroutine, so the counters need no lock.
type Analyze struct {
	// Timing says whether to read the clock around every Next call
	// (EXPLAIN's TIMING option); without it only rows and loops count.
	Timing bool
	stats  map[planner.Plan]*NodeStats
}

// NodeStats is one plan node's actual figures, summed over its loops.
type NodeStats struct {
	// Loops is the number of times an operator of the node was started
	// (its first Next call).
	Loops int64
	// Rows is the number of visible rows returned over all loops.
	Rows int64
	// Startup is the time until each loop's first row (or its end, when
	// it returned none), and Total the time of all Next calls, both
	// summed over the loops.
	Startup, Total time.Duration
}

// NewAnalyze returns an empty collector.
func NewAnalyze(timing bool) *Analyze {
	return &Analyze{Timing: timing, stats: map[planner.Plan]*NodeStats{}}
}

// Stats returns the figures of plan node p; ok is false when no operator
// of it was built (a node never reached, such as a subquery that was
// never evaluated).
func (a *Analyze) Stats(p planner.Plan) (NodeStats, bool) {
	st, ok := a.stats[p]
	if !ok {
		return NodeStats{}, false
	}
	return *st, true
}

func (a *Analyze) wrap(p planner.Plan, op Operator) Operator {
	st := a.stats[p]
	if st == nil {
		st = &NodeStats{}
		a.stats[p] = st
	}
	w := &analyzed{in: op, st: st, timing: a.Timing}
	if rc, ok := op.(interface{ RowsAffected() int64 }); ok {
		return &analyzedCounter{analyzed: w, rc: rc}
	}
	return w
}

// analyzed counts the rows and time of the operator it wraps.
type analyzed struct {
	in      Operator
	st      *NodeStats
	timing  bool
	started bool          // the loop is counted
	first   bool          // the loop's startup time is counted
	elapsed time.Duration // this loop's time so far
}

func (a *analyzed) Next(ctx context.Context) (*types.Chunk, error) {
	if !a.started {
		a.started = true
		a.st.Loops++
	}
	var t0 time.Time
	if a.timing {
		t0 = time.Now()
	}
	c, err := a.in.Next(ctx)
	if a.timing {
		d := time.Since(t0)
		a.elapsed += d
		a.st.Total += d
	}
	n := 0
	if c != nil {
		n = c.VisibleCount()
		a.st.Rows += int64(n)
	}
	if !a.first && (n > 0 || c == nil || err != nil) {
		a.first = true
		a.st.Startup += a.elapsed
	}
	return c, err
}

func (a *analyzed) Close() { a.in.Close() }

// analyzedCounter is analyzed over a DML operator, whose RowsAffected the
// engine reads for the command tag.
type analyzedCounter struct {
	*analyzed
	rc interface{ RowsAffected() int64 }
}

// RowsAffected is the wrapped operator's.
func (a *analyzedCounter) RowsAffected() int64 { return a.rc.RowsAffected() }
