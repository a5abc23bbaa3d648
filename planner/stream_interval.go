package planner

import (
	"fmt"
	"strings"

	"github.com/weirdb/weir/types"
)

// This file finds the time bounds of interval joins: the lower bounds
// that a join's condition puts on a column of one side in terms of a
// watermarked column of the other (JoinBound), which let the join drop
// stored rows the watermark has passed and forward watermarks on its
// output.
//
// In
//
//	o JOIN p ON p.oid = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '30 seconds'
//
// the binder turns BETWEEN into p.ts >= o.ts AND p.ts <= o.ts + '30 s'.
// The first conjunct bounds p.ts below by o.ts: once o's watermark is
// W, no later order has ts < W, so a stored payment with ts < W can
// match no later order and is dropped. The second, rewritten as o.ts >=
// p.ts - '30 s', bounds o.ts below by p.ts - 30 s: an order with ts < W_p
// - 30 s can match no later payment. An equality of join keys a.k = b.k
// gives a.k >= b.k and b.k >= a.k (two TUMBLE inputs joined on
// window_start).
//
// A bound needs a plain column on its bounded side (the state is ordered
// or indexed by it) and, on the other, an expression that never
// decreases as one column grows (monotoneIn): the column itself, ±
// a constant, date_bin and the like. A bounded side written as col ±
// constant is moved to the other side, which needs the constant's
// subtraction to undo its addition exactly: integers, and intervals of
// microseconds only (or days too on timestamp without time zone, where a
// day is always 24 hours); a month is not a fixed length.

// joinBounds returns the bounds of join n, whose physical left input is
// nlw columns wide: those of the top-level conjuncts of n.Cond, then
// those of the join key pairs. keyNames name the join keys of each side
// (for EXPLAIN). A bound is kept only when its other column carries a
// watermark on its input.
func joinBounds(n *StreamHashJoin, nlw int, keyNames [2][]string) []JoinBound {
	wms := [2][]int{n.Left.Base().Watermarks, n.Right.Base().Watermarks}
	var out []JoinBound
	seen := map[string]bool{}
	add := func(b JoinBound) {
		// A bound's value is computed from a watermark and compared with
		// the column like one: only the types watermarks have qualify.
		if indexOf(wms[1-b.Side], b.OtherCol) < 0 || !WatermarkTypeOK(b.Expr.Type()) {
			return
		}
		k := fmt.Sprintf("%d/%d/%s", b.Side, b.Col, exprKey(b.Expr))
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, b)
	}
	for _, c := range conjuncts(n.Cond) {
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		a, b := call.Args[0], call.Args[1]
		switch call.Fn {
		case ">=", ">":
			if jb, ok := lowerBound(a, b, nlw); ok {
				add(jb)
			}
		case "<=", "<":
			if jb, ok := lowerBound(b, a, nlw); ok {
				add(jb)
			}
		case "=":
			if jb, ok := lowerBound(a, b, nlw); ok {
				add(jb)
			}
			if jb, ok := lowerBound(b, a, nlw); ok {
				add(jb)
			}
		}
	}
	lo, ro := n.Left.Base().Out, n.Right.Base().Out
	for i := range n.LeftKeys {
		l, r := n.LeftKeys[i], n.RightKeys[i]
		add(JoinBound{Side: 0, Col: l, OtherCol: r, Expr: &ColRef{Idx: r, T: ro[r].T, Name: keyNames[1][i]}, Name: keyNames[0][i]})
		add(JoinBound{Side: 1, Col: r, OtherCol: l, Expr: &ColRef{Idx: l, T: lo[l].T, Name: keyNames[0][i]}, Name: keyNames[1][i]})
	}
	return out
}

// lowerBound reads hi >= lo (or hi > lo: the same bound, not as tight as
// it could be) over the physical left ++ right row as a bound on hi's
// column, when hi is a plain column of one side (or that column ± an
// exactly invertible constant) and lo a non-decreasing expression of one
// column of the other side of hi's type.
func lowerBound(hi, lo Expr, nlw int) (JoinBound, bool) {
	col, undo, ok := boundedColumn(hi)
	if !ok {
		return JoinBound{}, false
	}
	oc, ok := monotoneIn(lo)
	if !ok {
		return JoinBound{}, false
	}
	s, os := 0, 1
	if col.Idx >= nlw {
		s, os = 1, 0
	}
	if (oc >= nlw) != (os == 1) || lo.Type().ID != col.T.ID {
		return JoinBound{}, false
	}
	e := lo
	if undo != nil {
		if e, ok = undo(lo); !ok {
			return JoinBound{}, false
		}
	}
	b := JoinBound{Side: s, Col: col.Idx, OtherCol: oc, Expr: e, Name: col.Name}
	if s == 0 {
		b.OtherCol -= nlw
		b.Expr = shift(e, nlw)
	} else {
		b.Col -= nlw
	}
	if b.Name == "" {
		b.Name = FormatExpr(col)
	}
	return b, true
}

// boundedColumn returns the column that e is, or that e adds a constant
// to or subtracts one from, with the function that moves the constant
// to the other side of a comparison e >= lo (lo - c for e = col + c,
// lo + c for e = col - c); undo is nil for a plain column.
func boundedColumn(e Expr) (col *ColRef, undo func(lo Expr) (Expr, bool), ok bool) {
	if c, ok := e.(*ColRef); ok {
		return c, nil, true
	}
	call, isCall := e.(*Call)
	if !isCall || len(call.Args) != 2 || (call.Fn != "+" && call.Fn != "-") {
		return nil, nil, false
	}
	var k *Const
	switch x, y := call.Args[0], call.Args[1]; {
	case isColRef(x) && isConst(y):
		col, k = x.(*ColRef), y.(*Const)
	case call.Fn == "+" && isConst(x) && isColRef(y):
		col, k = y.(*ColRef), x.(*Const)
	default:
		return nil, nil, false
	}
	if call.T.ID != col.T.ID || !exactShift(col.T, k) {
		return nil, nil, false
	}
	inverse := "-"
	if call.Fn == "-" {
		inverse = "+"
	}
	undo = func(lo Expr) (Expr, bool) {
		for _, o := range Overloads(inverse) {
			if len(o.Args) == 2 && o.Args[0] == lo.Type().ID && o.Args[1] == k.T.ID &&
				o.Result([]types.T{lo.Type(), k.T}).ID == col.T.ID {
				return &Call{Fn: inverse, Args: []Expr{lo, k}, T: col.T}, true
			}
		}
		return nil, false
	}
	return col, undo, true
}

func isColRef(e Expr) bool { _, ok := e.(*ColRef); return ok }

func isConst(e Expr) bool { c, ok := e.(*Const); return ok && !c.V.Null }

// exactShift reports whether adding k to a value of type t and then
// subtracting it (or the other way round) always gives the value back,
// so that x + k >= y and x >= y - k hold together.
func exactShift(t types.T, k *Const) bool {
	switch {
	case isIntType(k.T):
		return isIntType(t) || t.ID == types.Date
	case k.T.ID == types.Interval:
		iv := k.V.Iv
		return iv.Months == 0 && (iv.Days == 0 || t.ID == types.Timestamp) &&
			(t.ID == types.Timestamp || t.ID == types.Timestamptz)
	}
	return false
}

// joinClean chooses how side s (0 left, 1 right) of n, whose state table
// is state, is cleaned: by the bounds on the first column of its state
// key when there are any (the state table is ordered by it), otherwise
// by those on the side's first bounded column, through an index table
// named name. It returns nil when the side has no bound.
func (sp *streamPlanner) joinClean(name string, n *StreamHashJoin, s int, state StateTableDesc) *JoinClean {
	var cols []int
	for _, b := range n.Bounds {
		if b.Side == s && indexOf(cols, b.Col) < 0 {
			cols = append(cols, b.Col)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	if len(state.KeyCols) > 0 && indexOf(cols, state.KeyCols[0]) >= 0 {
		return &JoinClean{Col: state.KeyCols[0]}
	}
	side := n.Left.Base()
	if s == 1 {
		side = n.Right.Base()
	}
	c := &JoinClean{Col: cols[0], IndexCols: dedupInts(append([]int{cols[0]}, state.KeyCols...))}
	c.Index = StateTableDesc{ID: sp.alloc(), Name: name}
	for _, k := range c.IndexCols {
		col := side.Out[k]
		col.Hidden = false
		c.Index.Cols = append(c.Index.Cols, col)
	}
	c.Index.KeyCols = seq(0, len(c.IndexCols))
	c.Index.OrderDesc = make([]bool, len(c.IndexCols))
	return c
}

// joinWatermarks returns the output columns of join n (whose physical
// left input is nlw columns wide) that carry a watermark: a column x of
// a side whose rows are never padded with NULLs (both sides of an inner
// join, the left of left, semi and anti joins, the right of a right
// join) that has a watermark on its input and a bound x >= f(o.y). Every
// later output row comes from a later row of x's side (x >= W_x) or from
// a later row of the other side matched with a stored row (x >= f(y) >=
// f(W_y)), so min(W_x, f(W_y)) is a watermark on the output; for a join
// key, that is the minimum of both sides' watermarks.
func joinWatermarks(n *StreamHashJoin, nlw int) []int {
	var sides []int
	switch n.Kind {
	case InnerJoin:
		sides = []int{0, 1}
	case LeftJoin, SemiJoin, AntiJoin:
		sides = []int{0}
	case RightJoin:
		sides = []int{1}
	}
	var out []int
	for _, s := range sides {
		in, off := n.Left.Base().Watermarks, 0
		if s == 1 {
			in, off = n.Right.Base().Watermarks, nlw
		}
		for _, x := range in {
			for _, b := range n.Bounds {
				if b.Side == s && b.Col == x {
					out = append(out, off+x)
					break
				}
			}
		}
	}
	return dedupInts(out)
}

// describeClean prints the rows that side s of join x drops (for
// EXPLAIN): one `col < f(watermark(other col))` per bound on the side's
// clean column.
func describeClean(f *exprFormatter, x *StreamHashJoin, s int, c *JoinClean) string {
	var parts []string
	for _, b := range x.Bounds {
		if b.Side != s || b.Col != c.Col {
			continue
		}
		e := mapExpr(b.Expr, func(e Expr) Expr {
			if r, ok := e.(*ColRef); ok {
				name := r.Name
				if name == "" {
					name = "#" + fmt.Sprint(r.Idx)
				}
				return &ColRef{Idx: r.Idx, T: r.T, Name: "watermark(" + name + ")"}
			}
			return e
		})
		parts = append(parts, b.Name+" < "+f.expr(e))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
