package executor

import (
	"context"
	"math"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Limit skips the first Offset visible rows of its input, then passes at
// most Limit rows, clearing visibility entries rather than copying. The
// LIMIT and OFFSET expressions are evaluated once, at the first Next: NULL
// means no limit (no offset); a negative LIMIT is 2201W and a negative
// OFFSET 2201X, as in Postgres. Limit stops pulling its input once the
// limit is reached, and tells a Sort it reads from directly how many
// rows it will take (Sort.SetBound).
//
// With ties (FETCH FIRST ... WITH TIES, planner.Limit.Ties) it goes on
// past the limit as long as rows tie with the last row taken on the
// ORDER BY keys, as PostgreSQL's LIMIT_OPTION_WITH_TIES does (NULLs tie
// with NULLs), and sets no bound on the Sort.
type Limit struct {
	endState
	in         Operator
	plan       *planner.Limit
	ec         *ExecCtx
	started    bool
	hasLimit   bool
	limit, off int64
	// tieCols are the input columns of plan.Ties; last is the last row
	// taken once the limit is reached (nil before, or with no row taken).
	tieCols []int
	tieTs   []types.T
	last    types.Row
}

var _ Operator = (*Limit)(nil)

// NewLimit returns a Limit of in for p.
func NewLimit(in Operator, p *planner.Limit, ec *ExecCtx) *Limit {
	return &Limit{in: in, plan: p, ec: ec}
}

// Next implements Operator.
func (l *Limit) Next(ctx context.Context) (*types.Chunk, error) {
	if l.done {
		return nil, l.err
	}
	return l.finish(l.next(ctx))
}

func (l *Limit) start() error {
	l.started = true
	if l.plan.Limit != nil {
		d, err := evalConst(l.plan.Limit, l.ec)
		if err != nil {
			return err
		}
		if !d.Null {
			if d.I < 0 {
				return pgerr.New(pgerr.InvalidRowCountInLimit, "LIMIT must not be negative")
			}
			l.hasLimit, l.limit = true, d.I
		}
	}
	if l.plan.Offset != nil {
		d, err := evalConst(l.plan.Offset, l.ec)
		if err != nil {
			return err
		}
		if !d.Null {
			if d.I < 0 {
				return pgerr.New(pgerr.InvalidRowCountInOffset, "OFFSET must not be negative")
			}
			l.off = d.I
		}
	}
	for _, k := range l.plan.Ties {
		c, ok := k.Expr.(*planner.ColRef)
		if !ok {
			return pgerr.New(pgerr.InternalError, "WITH TIES key %s is not a column", planner.FormatExpr(k.Expr))
		}
		l.tieCols = append(l.tieCols, c.Idx)
		l.tieTs = append(l.tieTs, c.T)
	}
	// As PostgreSQL's Limit tells a Sort right below it how many rows
	// it will take (ExecSetTupleBound), so that it can keep only those.
	// EXPLAIN ANALYZE wraps the Sort to count it; the bound goes through,
	// so that it runs, and reports, the plan a query runs.
	in := l.in
	if a, ok := in.(*analyzed); ok {
		in = a.in
	}
	if s, ok := in.(*Sort); ok && l.hasLimit && l.limit > 0 && l.off <= math.MaxInt64-l.limit && l.plan.Ties == nil {
		s.SetBound(l.limit + l.off)
	}
	return nil
}

func (l *Limit) next(ctx context.Context) (*types.Chunk, error) {
	if !l.started {
		if err := l.start(); err != nil {
			return nil, err
		}
	}
	for {
		if l.hasLimit && l.limit == 0 && l.last == nil {
			l.in.Close()
			return nil, nil
		}
		c, err := nextVisible(ctx, l.in)
		if err != nil || c == nil {
			return nil, err
		}
		if l.plan.Ties != nil && l.hasLimit {
			if l.nextTies(c); c.VisibleCount() == 0 {
				continue
			}
			return c, nil
		}
		n := int64(c.VisibleCount())
		if l.off >= n {
			l.off -= n
			continue
		}
		if l.off == 0 && (!l.hasLimit || l.limit >= n) {
			l.limit -= n
			return c, nil
		}
		vis := make([]bool, c.Len())
		for i := range vis {
			if !c.Visible(i) {
				continue
			}
			if l.off > 0 {
				l.off--
				continue
			}
			if l.hasLimit {
				if l.limit == 0 {
					break
				}
				l.limit--
			}
			vis[i] = true
		}
		c.Vis = vis
		return c, nil
	}
}

// nextTies passes the rows of c that a limit WITH TIES takes: after the
// offset, up to the limit, then those tying with the last one taken.
// The first row that does not tie ends the input.
func (l *Limit) nextTies(c *types.Chunk) {
	vis := make([]bool, c.Len())
	for i := range vis {
		if !c.Visible(i) {
			continue
		}
		if l.off > 0 {
			l.off--
			continue
		}
		row := c.Row(i)
		if l.limit == 0 {
			if l.last == nil || !l.ties(l.last, row) {
				l.last = nil // the limit is reached and no row ties
				break
			}
		} else {
			l.limit--
			if l.limit == 0 {
				l.last = row
			}
		}
		vis[i] = true
	}
	c.Vis = vis
}

// ties reports whether rows a and b are equal on the ORDER BY keys.
func (l *Limit) ties(a, b types.Row) bool {
	for k, col := range l.tieCols {
		x, y := a[col], b[col]
		if x.Null || y.Null {
			if x.Null != y.Null {
				return false
			}
			continue
		}
		if types.Compare(x, y, l.tieTs[k]) != 0 {
			return false
		}
	}
	return true
}

// Close implements Operator.
func (l *Limit) Close() {
	l.done = true
	l.in.Close()
}
