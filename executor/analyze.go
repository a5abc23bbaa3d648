package executor

import (
	"context"
	"fmt"
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
	// Memory is what an operator holding rows within work_mem used in
	// its last loop, in PostgreSQL's words ("Sort Method: external merge
	// Disk: 2080kB", "Batches: 5  Memory Usage: 4145kB  Disk Usage:
	// 12808kB"); empty for the other operators.
	Memory string
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
	w.usage, _ = op.(usageReporter)
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
	usage   usageReporter
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
	if c == nil {
		a.report()
	}
	return c, err
}

func (a *analyzed) Close() {
	a.report()
	a.in.Close()
}

// report records what the operator used, when it says.
func (a *analyzed) report() {
	if a.usage != nil {
		if u := a.usage.explainUsage(); u != "" {
			a.st.Memory = u
		}
	}
}

// usageReporter is implemented by the operators that hold rows within
// work_mem: explainUsage says what they used so far, in PostgreSQL's
// words, or nothing before they read their input.
type usageReporter interface {
	explainUsage() string
}

// spillUsage is what an operator holding rows within work_mem used: the
// most bytes of rows it held at once (types.RowMemSize), the bytes it
// wrote to tapes, and for a hash operator the batches it processed (its
// table, then each spilled partition).
type spillUsage struct {
	mem, disk int64
	batches   int
}

// held notes that n bytes are held.
func (u *spillUsage) held(n int64) { u.mem = max(u.mem, n) }

// kB returns n bytes in kilobytes, rounded up as PostgreSQL rounds them.
func kB(n int64) int64 { return (n + 1023) / 1024 }

// hashText is a hash operator's usage as PostgreSQL prints a hash
// aggregation's.
func (u *spillUsage) hashText() string {
	if u.batches == 0 {
		return ""
	}
	s := fmt.Sprintf("Batches: %d  Memory Usage: %dkB", u.batches, kB(u.mem))
	if u.disk > 0 {
		s += fmt.Sprintf("  Disk Usage: %dkB", kB(u.disk))
	}
	return s
}

// analyzedCounter is analyzed over a DML operator, whose RowsAffected the
// engine reads for the command tag.
type analyzedCounter struct {
	*analyzed
	rc interface{ RowsAffected() int64 }
}

// RowsAffected is the wrapped operator's.
func (a *analyzedCounter) RowsAffected() int64 { return a.rc.RowsAffected() }
