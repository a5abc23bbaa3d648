package planner

// A max over a retracting input keeps a table of its values (Extra), so
// that retracting the current maximum finds the next one. Some inputs
// retract only to grow: a count over an append-only input changes by an
// update pair, the old count retracted and a larger one inserted, and
// never goes away (its group's row is never deleted: closing a window
// deletes state without output). A max over such counts, grouped by
// some of the counting aggregation's group keys, sees every retracted
// value replaced in the same group by a larger one before the barrier,
// so the maximum of all values ever inserted is the maximum of the
// values present: the max needs no table and ignores retractions
// (StreamHashAgg.GrowOnly). Nexmark q5's max of the per-window counts
// is the case in point.
//
// The proof is strict: the argument must be a count (not DISTINCT) of a
// StreamHashAgg over an append-only input, with no state TTL (an expired
// group would start counting again from one) and no grouping sets,
// reached through nothing but exchanges, shares and projections that
// pass the columns through; the max's group keys must reach group keys
// of that aggregation (so an update pair stays in one group of the
// max), and the max has no FILTER and no DISTINCT. Anything else - a
// filter that could turn an update into a delete, a join, a union, a
// sum - keeps the table of values.

// growOnlyMax reports whether the aggregate call c, grouping in by the
// columns keys, is a max whose input only grows (see above).
func (sp *streamPlanner) growOnlyMax(in StreamNode, keys []int, c AggCall) bool {
	if sp.before8 || sp.ttlMs > 0 || c.Fn != "max" || c.Distinct || c.Filter != nil || len(c.OrderBy) > 0 || len(c.Args) != 1 {
		return false
	}
	arg, ok := c.Args[0].(*ColRef)
	if !ok {
		return false
	}
	cols := append([]int{arg.Idx}, keys...)
	for {
		switch n := in.(type) {
		case *StreamExchange:
			in = n.Input
		case *StreamShare:
			in = n.Input
		case *StreamProject:
			for i, col := range cols {
				if col < 0 || col >= len(n.Exprs) {
					return false
				}
				r, ok := n.Exprs[col].(*ColRef)
				if !ok {
					return false
				}
				cols[i] = r.Idx
			}
			in = n.Input
		case *StreamHashAgg:
			return growingCount(n, cols[0], cols[1:])
		default:
			return false
		}
	}
}

// growingCount reports whether output column col of n is a count that
// only grows and every column in keys one of n's group keys.
func growingCount(n *StreamHashAgg, col int, keys []int) bool {
	nk := len(n.GroupBy)
	if n.TTLMs > 0 || len(n.EmptySets) > 0 || !n.Input.Base().AppendOnly || col < nk || col >= nk+len(n.Aggs) {
		return false
	}
	if a := n.Aggs[col-nk]; a.Fn != "count" || a.Distinct {
		return false
	}
	for _, k := range keys {
		if k < 0 || k >= nk {
			return false
		}
	}
	return true
}
