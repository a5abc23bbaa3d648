package planner

import (
	"fmt"
	"strings"

	"github.com/weirdb/weir/types"
)

// This file finds the joins whose left side need not store the rows
// that are below the highest value seen so far in their window: a
// relation joined with the maximum of one of its own columns per tumbling
// window (Nexmark q7, "the bids holding each window's highest price"):
//
//	SELECT B.* FROM bid B
//	JOIN (SELECT max(price) AS maxprice, window_end AS date_time
//	      FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_end) B1
//	  ON B.price = B1.maxprice
//	WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time
//
// Without it the join stores every bid until the watermark closes its
// window, although nearly all of them are below a bid of their window
// that came before. The maximum of a window over an append-only input
// only grows, so a bid below the highest price of its window seen so far
// is below the window's maximum at every later barrier (and at the end):
// no right row it can match ever has its price. The join keeps, per
// window, the highest value of the left rows it has seen (a lower bound
// of the window's maximum: those rows are rows the maximum aggregates)
// and neither joins nor stores a left row below it (JoinMaxPrune).
//
// The proof is strict, and anything outside it plans the join as before:
//
//   - an inner join on one key pair, without a state TTL; its left input
//     append-only;
//   - its right key is a max (no DISTINCT, FILTER or ORDER BY) of a
//     StreamHashAgg grouped by one key alone, without TTL or grouping
//     sets, over an append-only input, reached through exchanges, shares
//     and projections that pass the columns through;
//   - the aggregation's argument and the left key are the same column of
//     the same relation (a table, or a Nexmark source, of one split when
//     it has a watermark: both readers see the same rows and drop the
//     same late ones, sameRelation), its group key is TUMBLE's
//     window_end over a timestamp column of that relation that is the
//     left side's column T, and both inputs reach the relation through
//     nothing but exchanges, shares and projections (no filter: every
//     left row is a row the maximum aggregates, in the same window);
//   - the join's bounds (stream_interval.go) put the right row's
//     window_end W within [T, T + size] for every match: W >= T + d with
//     d >= 0, and T >= W - c with 0 <= c <= size. The window ends in that
//     range are the row's own window's end and, when T is a window's
//     start, T itself (the window before ends there): such a row is never
//     dropped.
//   - the key is an integer (compared as Datum.I, as max compares it).
//
// Nothing in the state changes: a join without the highest values seen
// (after a restart or a rescale, or an actor that sees only some of the
// rows) stores more rows, never fewer than it must, so the plan keeps its
// data format.

// JoinMaxPrune marks a join whose left rows below their window's highest
// value seen so far are dropped on arrival (stream_maxprune.go). Value and
// Time are left input columns: the join key (an integer) and the
// timestamp whose TUMBLE window (Size and Offset microseconds) the right
// side's maximum groups by.
type JoinMaxPrune struct {
	Value, Time  int
	Size, Offset int64
}

// joinMaxPrune returns the JoinMaxPrune of join n (its Bounds set), or
// nil when the proof above does not hold.
func (sp *streamPlanner) joinMaxPrune(n *StreamHashJoin) *JoinMaxPrune {
	if sp.ttlMs > 0 || n.Kind != InnerJoin || n.NullAware || len(n.LeftKeys) != 1 || !n.Left.Base().AppendOnly {
		return nil
	}
	lo := n.Left.Base().Out
	lv := n.LeftKeys[0]
	if !isIntType(lo[lv].T) {
		return nil
	}
	for _, b := range n.Bounds {
		// b: left T >= W - c.
		if b.Side != 0 {
			continue
		}
		c, ok := shiftOf(b.Expr, b.OtherCol, "-")
		if !ok || c < 0 {
			continue
		}
		for _, b2 := range n.Bounds {
			// b2: right W >= T + d.
			if b2.Side != 1 || b2.Col != b.OtherCol || b2.OtherCol != b.Col {
				continue
			}
			if d, ok := shiftOf(b2.Expr, b.Col, "+"); !ok || d < 0 {
				continue
			}
			if p := maxOfWindow(n, lv, b.Col, b.OtherCol, c); p != nil {
				return p
			}
		}
	}
	return nil
}

// shiftOf reads e as column col op (+ or -) a constant interval of
// microseconds k and returns k; a plain column is k = 0.
func shiftOf(e Expr, col int, op string) (int64, bool) {
	if c, ok := e.(*ColRef); ok {
		return 0, c.Idx == col
	}
	call, ok := e.(*Call)
	if !ok || len(call.Args) != 2 || call.Fn != op {
		return 0, false
	}
	c, ok := call.Args[0].(*ColRef)
	k, kok := call.Args[1].(*Const)
	if !ok || !kok || c.Idx != col || !fixedInterval(k) {
		return 0, false
	}
	return k.V.Iv.Micros, true
}

// fixedInterval reports whether k is a non-NULL interval constant of
// microseconds only.
func fixedInterval(k *Const) bool {
	return k.T.ID == types.Interval && !k.V.Null && k.V.Iv.Months == 0 && k.V.Iv.Days == 0
}

// maxOfWindow checks the rest of the proof for left key lv and left time
// column lt against right window column rw, the bound T >= W - c: the
// right key is the max of the left key's column per TUMBLE window of
// lt's column (c at most the window's size).
func maxOfWindow(n *StreamHashJoin, lv, lt, rw int, c int64) *JoinMaxPrune {
	rk := n.RightKeys[0]
	agg, cols, ok := aggBelow(n.Right, []int{rk, rw})
	if !ok || agg.TTLMs > 0 || len(agg.EmptySets) > 0 || len(agg.GroupBy) != 1 || !agg.Input.Base().AppendOnly {
		return nil
	}
	nk := len(agg.GroupBy)
	if cols[1] != 0 || cols[0] < nk || cols[0] >= nk+len(agg.Aggs) {
		return nil
	}
	call := agg.Aggs[cols[0]-nk]
	if call.Fn != "max" || call.Distinct || call.Filter != nil || len(call.OrderBy) > 0 || len(call.Args) != 1 {
		return nil
	}
	arg, ok := call.Args[0].(*ColRef)
	if !ok {
		return nil
	}
	aggRel, aggExprs, ok := relBelow(agg.Input, []Expr{arg, colRef(agg.Input.Base().Out, agg.GroupBy[0])})
	if !ok {
		return nil
	}
	lo := n.Left.Base().Out
	leftRel, leftExprs, ok := relBelow(n.Left, []Expr{colRef(lo, lv), colRef(lo, lt)})
	if !ok || !sameRelation(aggRel, leftRel) {
		return nil
	}
	// The argument and the left key: the same column.
	if !sameColumn(aggRel, aggExprs[0], leftRel, leftExprs[0]) {
		return nil
	}
	// The group key: tumble_start(T, size [, offset]) + size, T the left
	// time column's column.
	end, ok := aggExprs[1].(*Call)
	if !ok || end.Fn != "+" || len(end.Args) != 2 {
		return nil
	}
	start, ok := end.Args[0].(*Call)
	size, sok := end.Args[1].(*Const)
	if !ok || !sok || start.Fn != "tumble_start" || len(start.Args) < 2 || len(start.Args) > 3 || !fixedInterval(size) {
		return nil
	}
	if st, ok := start.Args[1].(*Const); !ok || !fixedInterval(st) || st.V.Iv.Micros != size.V.Iv.Micros {
		return nil
	}
	p := &JoinMaxPrune{Value: lv, Time: lt, Size: size.V.Iv.Micros}
	if len(start.Args) == 3 {
		off, ok := start.Args[2].(*Const)
		if !ok || !fixedInterval(off) {
			return nil
		}
		p.Offset = off.V.Iv.Micros
	}
	if t := start.Args[0].Type().ID; p.Size <= 0 || c > p.Size || (t != types.Timestamp && t != types.Timestamptz) ||
		!sameColumn(aggRel, start.Args[0], leftRel, leftExprs[1]) {
		return nil
	}
	return p
}

func colRef(s types.Schema, i int) *ColRef { return &ColRef{Idx: i, T: s[i].T, Name: s[i].Name} }

// aggBelow follows output columns cols of n down through exchanges,
// shares and projections that pass them through to a StreamHashAgg, and
// returns it with the columns' indexes in its output.
func aggBelow(n StreamNode, cols []int) (*StreamHashAgg, []int, bool) {
	cols = append([]int(nil), cols...)
	for {
		switch x := n.(type) {
		case *StreamExchange:
			n = x.Input
		case *StreamShare:
			n = x.Input
		case *StreamProject:
			for i, c := range cols {
				r, ok := x.Exprs[c].(*ColRef)
				if !ok {
					return nil, nil, false
				}
				cols[i] = r.Idx
			}
			n = x.Input
		case *StreamHashAgg:
			return x, cols, true
		default:
			return nil, nil, false
		}
	}
}

// relBelow rewrites es, expressions over n's output, down through
// exchanges, shares and projections (nodes that neither drop nor add
// rows) into expressions over the output of the table scan or source
// below, which it returns.
func relBelow(n StreamNode, es []Expr) (StreamNode, []Expr, bool) {
	for {
		switch x := n.(type) {
		case *StreamExchange:
			n = x.Input
		case *StreamShare:
			n = x.Input
		case *StreamProject:
			for i, e := range es {
				es[i] = mapExpr(e, func(y Expr) Expr {
					if c, ok := y.(*ColRef); ok {
						return x.Exprs[c.Idx]
					}
					return y
				})
			}
			n = x.Input
		case *StreamTableScan, *StreamSource:
			if !n.Base().AppendOnly {
				return nil, nil, false
			}
			return n, es, true
		default:
			return nil, nil, false
		}
	}
}

// sameRelation reports whether a and b (table scans or sources) deliver
// the same rows: the same table (its changelog, late rows dropped when
// they were written), or the same Nexmark generator source, whose
// readers all generate the same events, with one split when it has a
// watermark. Which rows a source's watermark drops as late depends on
// its records alone only within one partition
// (executor/stream/source_watermark.go): across partitions it also
// depends on how a reader interleaves them and on when they went idle,
// so two readers may drop different rows. Other sources are left out:
// two readers of a Kafka topic need not start at the same offset.
func sameRelation(a, b StreamNode) bool {
	switch x := a.(type) {
	case *StreamTableScan:
		y, ok := b.(*StreamTableScan)
		return ok && x.Rel != nil && y.Rel != nil && x.Rel.ID == y.Rel.ID
	case *StreamSource:
		y, ok := b.(*StreamSource)
		if !ok || x.Rel == nil || y.Rel == nil || x.Rel.ID != y.Rel.ID || !strings.EqualFold(x.Rel.With["connector"], "nexmark") {
			return false
		}
		w, v := x.Watermark, y.Watermark
		if w == nil || v == nil {
			return w == v
		}
		n, set := x.Rel.With["nexmark.split.num"]
		return (!set || strings.TrimSpace(n) == "1") && w.Col == v.Col && exprKey(w.Expr) == exprKey(v.Expr)
	}
	return false
}

// sameColumn reports whether a over scan x's output and b over scan y's
// (of the same relation) are both the same column of the relation.
func sameColumn(x StreamNode, a Expr, y StreamNode, b Expr) bool {
	ca, ok := a.(*ColRef)
	cb, ok2 := b.(*ColRef)
	if !ok || !ok2 {
		return false
	}
	cols := func(n StreamNode) []int {
		switch s := n.(type) {
		case *StreamTableScan:
			return s.Cols
		case *StreamSource:
			return s.Cols
		}
		return nil
	}
	xa, yb := cols(x), cols(y)
	return ca.Idx < len(xa) && cb.Idx < len(yb) && xa[ca.Idx] == yb[cb.Idx]
}

// describeMaxPrune renders p for EXPLAIN.
func describeMaxPrune(lo types.Schema, p *JoinMaxPrune) string {
	s := fmt.Sprintf("%s below max per tumble(%s, %s)", colName(lo, p.Value), colName(lo, p.Time),
		types.FormatInterval(micros(p.Size)))
	if p.Offset != 0 {
		s += " offset " + types.FormatInterval(micros(p.Offset))
	}
	return s
}
