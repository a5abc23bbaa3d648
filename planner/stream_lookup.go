package planner

import (
	"slices"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Process-time temporal joins (RisingWave's temporal join, Flink's lookup
// join):
//
//	SELECT ... FROM s JOIN t FOR SYSTEM_TIME AS OF PROCTIME() ON f(s.x) = t.k
//
// Each row of s looks its key up in the rows of t committed when the
// row reaches the join, and is joined with what it finds (LEFT JOIN:
// padded with NULLs when nothing). Only s flows: nothing of t is kept
// or followed, so a later change of t changes no earlier output. The
// join is therefore stateless and its output append-only, provided s is:
// a retraction of an s row could not name the output its insertion made.
// A batch query reads t as any scan does (its current rows), so it gives
// the same rows as long as t does not change.

// StreamLookupJoin joins each row of Input with the row of Rel whose
// primary key equals the row's LeftKeys (input columns, one per key
// column of Rel.PK, in its order, each of the key column's type or, for
// an integer key, of any integer type: lookupProbes), read from Rel's committed rows at the
// time the row is processed. Its output is Input's columns followed by
// Rel's columns Cols; Kind is InnerJoin (rows without a match are
// dropped) or LeftJoin (they are padded with NULLs). Cond, over the
// output row, is what must also hold for a match (nil: nothing).
// Stateless: the input is append-only and so is the output, with the
// input's stream key, distribution and watermarks.
type StreamLookupJoin struct {
	StreamBase
	Kind     JoinKind
	Input    StreamNode
	Rel      *catalog.Relation
	Cols     []int
	LeftKeys []int
	Cond     Expr
}

// Base implements StreamNode.
func (n *StreamLookupJoin) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamLookupJoin) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// procTimeSide returns the scan under the right side of a join when
// that is a FOR SYSTEM_TIME AS OF PROCTIME() reference, the conditions
// the binder or the rewrite rules put over it (over the scan's output;
// nil for none) and, for each column of the right side, its position
// in the scan's output (a column alias list puts a projection over the
// scan).
func procTimeSide(p Plan) (s *Scan, filter Expr, cols []int, ok bool) {
	var conds []Expr
	var top Expr
	if f, isFilter := p.(*Filter); isFilter {
		top, p = f.Cond, f.Input
	}
	pr, isProj := p.(*Project)
	if isProj {
		p = pr.Input
	}
	if f, isFilter := p.(*Filter); isFilter {
		conds, p = append(conds, f.Cond), f.Input
	}
	s, isScan := p.(*Scan)
	if !isScan || !s.ProcTime {
		return nil, nil, nil, false
	}
	cols = seq(0, len(s.Out))
	if isProj {
		cols = cols[:0]
		for _, e := range pr.Exprs {
			c, isCol := e.(*ColRef)
			if !isCol {
				failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME(): the table's columns can only be renamed")
			}
			cols = append(cols, c.Idx)
		}
	}
	if top != nil {
		conds = append(conds, mapExpr(top, func(x Expr) Expr {
			if c, ok := x.(*ColRef); ok {
				return &ColRef{Idx: cols[c.Idx], T: c.T, Name: c.Name}
			}
			return x
		}))
	}
	return s, conjoin(conds), cols, true
}

// lookupJoin plans a join whose right side is FOR SYSTEM_TIME AS OF
// PROCTIME() as a StreamLookupJoin.
func (sp *streamPlanner) lookupJoin(j *Join, scan *Scan, filter Expr, rcols []int) StreamNode {
	if j.Kind != InnerJoin && j.Kind != LeftJoin {
		failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME() is supported only in JOIN and LEFT JOIN")
	}
	rel := scan.Rel
	// Every key column of the table must be equal to a left expression
	// of its type: the lookup is a point read of the primary key.
	left := sp.plan(j.Left)
	if !left.Base().AppendOnly {
		failUnsupported("the left side of a FOR SYSTEM_TIME AS OF PROCTIME() join must be append-only (a source or an APPEND ONLY table): a deletion could not retract what its row was joined with")
	}
	leftKeys, rightKeys, cond := crossIntegerKeys(j)
	keyExprs := make([]Expr, len(rel.PK))
	used := make([]bool, len(rightKeys))
	for k, pk := range rel.PK {
		for i, rk := range rightKeys {
			c, isCol := lookupKeyColumn(rk)
			if !isCol || used[i] || scan.Cols[rcols[c.Idx]] != pk {
				continue
			}
			if !lookupProbes(leftKeys[i].Type(), rel.Cols[pk].T) {
				failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME(): the join key compared with %s.%s must have its type (%s), not %s",
					rel.Name, rel.Cols[pk].Name, rel.Cols[pk].T, leftKeys[i].Type())
			}
			keyExprs[k], used[i] = leftKeys[i], true
			break
		}
		if keyExprs[k] == nil || rel.Cols[pk].Hidden {
			failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME() needs equality conditions on every primary key column of \"%s\"", rel.Name)
		}
	}
	for i := range used {
		if !used[i] {
			failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME(): the join's equality conditions must be on the primary key of \"%s\"", rel.Name)
		}
	}
	left, lk := withColumns(left, keyExprs)
	lb := left.Base()
	nl, nlw := len(j.Left.Schema()), len(lb.Out)

	n := &StreamLookupJoin{Kind: j.Kind, Input: left, Rel: rel, Cols: append([]int(nil), scan.Cols...), LeftKeys: lk}
	n.Out = append(types.Schema(nil), lb.Out...)
	for _, c := range scan.Out {
		if j.Kind == LeftJoin {
			c.NotNull = false
		}
		n.Out = append(n.Out, c)
	}
	// The residual condition and the right side's filter, over the
	// physical output: left columns at their place, right columns after
	// the left side's nlw.
	var conds []Expr
	if cond != nil {
		conds = append(conds, mapExpr(cond, func(x Expr) Expr {
			if c, ok := x.(*ColRef); ok && c.Idx >= nl {
				return &ColRef{Idx: nlw + rcols[c.Idx-nl], T: c.T, Name: c.Name}
			}
			return x
		}))
	}
	if filter != nil {
		conds = append(conds, mapExpr(filter, func(x Expr) Expr {
			if c, ok := x.(*ColRef); ok {
				return &ColRef{Idx: nlw + c.Idx, T: c.T, Name: c.Name}
			}
			return x
		}))
	}
	n.Cond = conjoin(conds)
	n.StreamKey = append([]int(nil), lb.StreamKey...)
	n.AppendOnly = true
	n.Dist = lb.Dist
	n.Watermarks = append([]int(nil), lb.Watermarks...)

	// The logical layout: left's columns, then the right side's.
	if nlw == nl && slices.Equal(rcols, seq(0, len(scan.Out))) {
		return n
	}
	exprs := columnsOf(n.Out, nl)
	out := append(types.Schema(nil), n.Out[:nl]...)
	for i, rc := range j.Right.Schema() {
		c := n.Out[nlw+rcols[i]]
		exprs = append(exprs, &ColRef{Idx: nlw + rcols[i], T: c.T, Name: c.Name})
		c.Name = rc.Name
		out = append(out, c)
	}
	return newProject(n, exprs, out)
}

// lookupKeyColumn returns the column of the looked-up side that the
// join key e compares: the column itself or the column widened to the
// other side's integer type (o.id = s.key with o.id bigint and s.key
// int compares s.key::bigint).
func lookupKeyColumn(e Expr) (*ColRef, bool) {
	if c, ok := e.(*Cast); ok {
		if at := c.Arg.Type(); at.IsInteger() && c.T.IsInteger() && intWidth(at) <= intWidth(c.T) {
			e = c.Arg
		}
	}
	c, ok := e.(*ColRef)
	return c, ok
}

// lookupProbes reports whether a join key of type t can probe a primary
// key column of type key: of its type, or both integers. The lookup
// encodes the probe value as a key of the column's type, and every
// integer width has the same key encoding (its 64-bit value), so the
// probe finds the row whose key equals it, and a value beyond the
// column's range finds none, as the comparison in the wider type would.
func lookupProbes(t, key types.T) bool {
	return t.ID == key.ID || (t.IsInteger() && key.IsInteger())
}

// crossIntegerKeys returns j's equi-join keys and the rest of its
// condition, with the equalities of the condition between a left-side
// integer expression and a right-side integer column of another width
// (o.id = s.key, a bigint and an int, which are not hash keys since
// their types differ) moved to the keys: a lookup serves them
// (lookupProbes).
func crossIntegerKeys(j *Join) (leftKeys, rightKeys []Expr, cond Expr) {
	leftKeys = append([]Expr(nil), j.LeftKeys...)
	rightKeys = append([]Expr(nil), j.RightKeys...)
	nl := len(j.Left.Schema())
	var rest []Expr
	for _, c := range conjuncts(j.Cond) {
		call, isCall := c.(*Call)
		if isCall && call.Fn == "=" && len(call.Args) == 2 {
			a, b := call.Args[0], call.Args[1]
			if side(a, nl) == 'r' {
				a, b = b, a
			}
			if rc, isCol := b.(*ColRef); isCol && side(a, nl) == 'l' && side(b, nl) == 'r' &&
				a.Type().IsInteger() && rc.T.IsInteger() {
				leftKeys = append(leftKeys, a)
				rightKeys = append(rightKeys, shift(b, nl))
				continue
			}
		}
		rest = append(rest, c)
	}
	return leftKeys, rightKeys, conjoin(rest)
}
