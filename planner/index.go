package planner

import (
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// IndexScan reads the rows of Rel whose index key (in Index, a relation
// of catalog.KindIndex on Rel) lies in one range: its first len(Eq) key
// columns equal Eq's values and, when Lo or Hi is set, the next one lies
// within them. The key range is read from the index, then each row from
// Rel by its primary key (the index columns PKCols, in Rel.PK order). It
// emits what a Scan of Rel with Cols and Out would, restricted to those
// rows (a superset of the rows its Filter keeps: the Filter stays above
// it). When the source cannot serve the index at the statement's
// snapshot (inside a transaction block that wrote, say), it scans Rel
// instead.
type IndexScan struct {
	Rel    *catalog.Relation
	Index  *catalog.Relation
	Cols   []int
	Out    types.Schema
	Eq     []Expr
	Lo, Hi *IndexBound
	PKCols []int
	// Covering, when set, gives for each output column the index column
	// holding it, or -1 for a column no expression above reads (it is
	// emitted NULL): the rows come from the index alone, without
	// fetching the relation's (an index-only scan).
	Covering []int
}

// IndexBound is one end of an IndexScan's range on a key column: Value
// (an expression without column references), included or not.
type IndexBound struct {
	Value     Expr
	Inclusive bool
}

// Schema implements Plan.
func (p *IndexScan) Schema() types.Schema { return p.Out }

// Inputs implements Plan.
func (p *IndexScan) Inputs() []Plan { return nil }

// UseIndexes rewrites p, a plan about to run as a batch query, so that a
// Filter over a Scan whose conjuncts fix the leading key columns of one
// of the relation's indexes (equality on the first ones, or a range on
// the one after them) reads that index's key range instead of every row
// (IndexScan). indexes returns the usable indexes of a relation. Plans of
// subqueries are rewritten too.
func UseIndexes(p Plan, indexes func(relID uint32) []*catalog.Relation) Plan {
	p = useIndexes(p, indexes)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			s.Plan = useIndexes(s.Plan, indexes)
		}
	})
	return p
}

func useIndexes(p Plan, indexes func(uint32) []*catalog.Relation) Plan {
	rec := func(q Plan) Plan { return useIndexes(q, indexes) }
	switch n := p.(type) {
	case *Project:
		if f, ok := n.Input.(*Filter); ok {
			if s, ok := f.Input.(*Scan); ok {
				if is := chooseIndex(s, f.Cond, indexes(s.Rel.ID)); is != nil {
					is.Covering = covering(is, append(append([]Expr(nil), n.Exprs...), f.Cond))
					f.Input = is
				}
				return n
			}
		}
		n.Input = rec(n.Input)
	case *Filter:
		if s, ok := n.Input.(*Scan); ok {
			if is := chooseIndex(s, n.Cond, indexes(s.Rel.ID)); is != nil {
				n.Input = is
			}
			return n
		}
		n.Input = rec(n.Input)
	case *Join:
		n.Left, n.Right = rec(n.Left), rec(n.Right)
	case *Agg:
		n.Input = rec(n.Input)
	case *Sort:
		n.Input = rec(n.Input)
	case *Limit:
		n.Input = rec(n.Input)
	case *Distinct:
		n.Input = rec(n.Input)
	case *Window:
		n.Input = rec(n.Input)
	case *ProjectSet:
		n.Input = rec(n.Input)
	case *SetOp:
		n.Left, n.Right = rec(n.Left), rec(n.Right)
	}
	return p
}

// IndexesRead returns the ids of the indexes p (and the plans of its
// subqueries) reads through IndexScans.
func IndexesRead(p Plan) []uint32 {
	var ids []uint32
	var walk func(Plan)
	walk = func(q Plan) {
		if is, ok := q.(*IndexScan); ok {
			ids = append(ids, is.Index.ID)
		}
		for _, in := range q.Inputs() {
			walk(in)
		}
	}
	walk(p)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			walk(s.Plan)
		}
	})
	return ids
}

// covering returns IndexScan.Covering for is when the expressions es
// (all that read its output) read only columns its index holds, or nil.
func covering(is *IndexScan, es []Expr) []int {
	used := make([]bool, len(is.Cols))
	ok := true
	for _, e := range es {
		WalkExpr(e, func(x Expr) {
			switch n := x.(type) {
			case *ColRef:
				if n.Idx < len(used) {
					used[n.Idx] = true
				} else {
					ok = false
				}
			case *Subquery:
				// Its outer references read the row too.
				ok = false
			}
		})
	}
	if !ok {
		return nil
	}
	out := make([]int, len(is.Cols))
	for j, col := range is.Cols {
		out[j] = -1
		if !used[j] {
			continue
		}
		c := is.Rel.Cols[col]
		for i, ic := range is.Index.Cols {
			if ic.Name == c.Name && ic.T.ID == c.T.ID {
				out[j] = i
			}
		}
		if out[j] < 0 {
			return nil
		}
	}
	return out
}

// indexPred is a conjunct comparing a column of the scan with a value.
type indexPred struct {
	col int    // index into the scan's relation's Cols
	op  string // "=", "<", "<=", ">", ">=" with the column on the left
	val Expr
}

// flipped is the comparison with its sides swapped.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// indexPreds returns the conjuncts of cond an index can serve: a column
// of s compared with a value of the column's own type that needs no row.
func indexPreds(s *Scan, cond Expr) []indexPred {
	var out []indexPred
	for _, c := range conjuncts(cond) {
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		op, ok := flipped[call.Fn]
		if !ok {
			continue
		}
		l, r := call.Args[0], call.Args[1]
		if ref, ok := r.(*ColRef); ok && rowFree(l) {
			// value op column: op is already flipped.
			l, r = ref, l
		} else if _, ok := l.(*ColRef); ok && rowFree(r) {
			op = call.Fn
		} else {
			continue
		}
		ref := l.(*ColRef)
		if ref.Idx >= len(s.Cols) {
			continue
		}
		col := s.Cols[ref.Idx]
		t := s.Rel.Cols[col].T
		if ref.T.ID != t.ID || !keyOrdered(t) {
			continue
		}
		if vt := r.Type(); vt.ID != t.ID {
			// A narrower integer (n = 3 over a bigint) converts exactly
			// to the column's type; anything else would change the
			// comparison's meaning or fail.
			if !vt.IsInteger() || !t.IsInteger() || intWidth(vt) > intWidth(t) {
				continue
			}
			r = &Cast{Arg: r, T: t}
		}
		out = append(out, indexPred{col: col, op: op, val: r})
	}
	return out
}

// keyOrdered reports whether the storage key order of t's values is the
// order of its comparisons (arrays and jsonb are keyed by their text,
// whose order is not theirs), so that an index range holds exactly the
// values comparing within it.
func keyOrdered(t types.T) bool {
	switch t.Family() {
	case types.FamBool, types.FamInt, types.FamFloat, types.FamDecimal, types.FamInterval:
		return true
	case types.FamString:
		switch t.ID {
		case types.Varchar, types.Bpchar, types.Text, types.Bytea, types.Name, types.Char:
			return true
		}
	}
	return false
}

// rowFree reports whether e is a constant or parameter (under casts),
// with a value known before any row is read.
func rowFree(e Expr) bool {
	switch n := e.(type) {
	case *Const, *Param:
		return true
	case *Cast:
		return rowFree(n.Arg)
	}
	return false
}

// chooseIndex returns the IndexScan serving the most of cond's
// predicates on s (most equalities on leading key columns, then a range
// on the next), or nil when no index serves any.
func chooseIndex(s *Scan, cond Expr, idxs []*catalog.Relation) *IndexScan {
	preds := indexPreds(s, cond)
	if len(preds) == 0 {
		return nil
	}
	var best *IndexScan
	bestScore := 0
	for _, idx := range idxs {
		is := matchIndex(s, idx, preds)
		if is == nil {
			continue
		}
		score := 2 * len(is.Eq)
		if is.Lo != nil || is.Hi != nil {
			score++
		}
		if score > bestScore {
			best, bestScore = is, score
		}
	}
	return best
}

// matchIndex returns the IndexScan of s through idx for preds, or nil.
func matchIndex(s *Scan, idx *catalog.Relation, preds []indexPred) *IndexScan {
	k := idx.IndexKeys()
	relCol := func(name string) int {
		for i, c := range s.Rel.Cols {
			if c.Name == name {
				return i
			}
		}
		return -1
	}
	is := &IndexScan{Rel: s.Rel, Index: idx, Cols: s.Cols, Out: s.Out}
	// The relation's key must be in the index, to fetch the rows.
	for _, pk := range s.Rel.PK {
		found := -1
		for i, c := range idx.Cols {
			if c.Name == s.Rel.Cols[pk].Name && c.T.ID == s.Rel.Cols[pk].T.ID {
				found = i
			}
		}
		if found < 0 {
			return nil
		}
		is.PKCols = append(is.PKCols, found)
	}
	for i := 0; i < k && i < len(idx.Cols); i++ {
		col := relCol(idx.Cols[i].Name)
		if col < 0 || s.Rel.Cols[col].T.ID != idx.Cols[i].T.ID {
			return nil
		}
		var eq Expr
		for _, p := range preds {
			if p.col == col && p.op == "=" {
				eq = p.val
				break
			}
		}
		if eq != nil {
			is.Eq = append(is.Eq, eq)
			continue
		}
		for _, p := range preds {
			if p.col != col {
				continue
			}
			b := &IndexBound{Value: p.val, Inclusive: p.op == "<=" || p.op == ">="}
			switch p.op {
			case ">", ">=":
				if is.Lo == nil {
					is.Lo = b
				}
			case "<", "<=":
				if is.Hi == nil {
					is.Hi = b
				}
			}
		}
		break
	}
	if len(is.Eq) == 0 && is.Lo == nil && is.Hi == nil {
		return nil
	}
	return is
}
